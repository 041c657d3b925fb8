"""Scoring on one game's row: count points, the exact target, hand awards
(mirrors :mod:`allfives_env.core.scoring`)."""

from __future__ import annotations

from allfives_env.vector._jit import kernel
from allfives_env.vector.state import (
    AWARD_LOSE_OWN,
    AWARD_NET_FIVES,
    AWARD_PAIRWISE,
    AWARD_ROUND_EACH,
    AWARD_ROUND_ONCE,
    C_AWARD,
    C_EXACT,
    C_K,
    C_N,
    C_SIDE_OF,
    C_TARGET,
    F64,
    I32,
    I64,
    PIPS_COL,
    SIZES,
)


@kernel
def count_points(count: int, unit: int) -> int:
    """Points a count scores: ``count // unit`` if positive and a multiple of 5, else 0
    (``scoring.count_points``)."""
    if count > 0 and count % 5 == 0:
        return count // unit
    return 0


@kernel
def admitted(cfg: I64, score: float, points: float) -> float:
    """What ``points`` add to a side on ``score``: all, or 0 past an exact target
    (``scoring.admitted``)."""
    if cfg[C_EXACT] and score + points > cfg[C_TARGET]:
        return 0.0
    return points


@kernel
def reaches_target(cfg: I64, score: float) -> bool:
    """Whether a side on ``score`` has reached the target (``scoring.reaches_target``)."""
    if cfg[C_EXACT]:
        return bool(score == cfg[C_TARGET])
    return bool(score >= cfg[C_TARGET])


@kernel
def round5(n: int) -> int:
    """Round to the nearest multiple of 5, remainders 1–2 down, 3–4 up (``scoring.round5``)."""
    return 5 * ((n + 2) // 5)


@kernel
def _side_total(r: I32, cfg: I64, side: int, col: int) -> int:
    """The sum of column ``col + seat`` over the seats of ``side`` (``scoring._side_totals``)."""
    total = 0
    for seat in range(cfg[C_N]):
        if cfg[C_SIDE_OF + seat] == side:
            total += r[col + seat]
    return total


@kernel
def _opponents_pips(r: I32, cfg: I64, side: int) -> int:
    """Pips held by every seat not of ``side`` (``scoring._opponents_pips``)."""
    total = 0
    for seat in range(cfg[C_N]):
        if cfg[C_SIDE_OF + seat] != side:
            total += r[PIPS_COL + seat]
    return total


@kernel
def hand_award(r: I32, cfg: I64, domino_seat: int, out: F64) -> int:
    """Write the hand award per side into ``out`` (``num_sides`` entries, before the exact
    target's filter) and return the winning side, -1 for none (``scoring.hand_award``).

    ``domino_seat`` is the seat that played out, or -1 for a blocked hand; pips and tile counts
    are read from the row.
    """
    k = cfg[C_K]
    rule = cfg[C_AWARD]
    for i in range(k):
        out[i] = 0.0
    if rule == AWARD_LOSE_OWN:  # spruce: everyone loses round5(own pips); no hand winner
        for seat in range(cfg[C_N]):
            out[cfg[C_SIDE_OF + seat]] -= round5(r[PIPS_COL + seat])
        if domino_seat >= 0:
            return int(cfg[C_SIDE_OF + domino_seat])
        return -1

    if rule == AWARD_PAIRWISE:  # five_up
        if domino_seat >= 0:
            side = cfg[C_SIDE_OF + domino_seat]
            partner = _side_total(r, cfg, side, PIPS_COL)
            out[side] = round5(max(0, _opponents_pips(r, cfg, side) - partner)) // 5
            return int(side)
        low = 1 << 30
        for i in range(k):
            pi = _side_total(r, cfg, i, PIPS_COL)
            low = min(low, pi)
            for j in range(k):
                pj = _side_total(r, cfg, j, PIPS_COL)
                if pi < pj:
                    out[i] += round5(pj - pi) // 5
        winner = -1
        for i in range(k):
            if _side_total(r, cfg, i, PIPS_COL) == low:
                if winner >= 0:
                    return -1
                winner = i
        return winner

    # the remaining rules have one winning side: the domino player's, or the lowest side
    if domino_seat >= 0:
        w = int(cfg[C_SIDE_OF + domino_seat])
    else:
        low = 1 << 30
        for i in range(k):
            low = min(low, _side_total(r, cfg, i, PIPS_COL))
        lowset = 0
        nlow = 0
        for i in range(k):
            if _side_total(r, cfg, i, PIPS_COL) == low:
                lowset |= 1 << i
                nlow += 1
        if nlow > 1 and rule == AWARD_ROUND_EACH:  # equal pips: fewer tiles wins
            fewest = 1 << 30
            for i in range(k):
                if lowset >> i & 1:
                    fewest = min(fewest, _side_total(r, cfg, i, SIZES))
            keep = 0
            nlow = 0
            for i in range(k):
                if lowset >> i & 1 and _side_total(r, cfg, i, SIZES) == fewest:
                    keep |= 1 << i
                    nlow += 1
            lowset = keep
        if nlow != 1:
            if rule == AWARD_ROUND_ONCE and k > 2 and nlow == 2:
                # pagat, 3+ sides: two tied for lowest share round5(the others' pips)
                rest = 0
                for i in range(k):
                    if not lowset >> i & 1:
                        rest += _side_total(r, cfg, i, PIPS_COL)
                half = round5(rest) / 2
                for i in range(k):
                    if lowset >> i & 1:
                        out[i] = half
            return -1
        w = 0
        while not lowset >> w & 1:
            w += 1

    if rule == AWARD_ROUND_ONCE:
        out[w] = round5(_opponents_pips(r, cfg, w))
    elif rule == AWARD_ROUND_EACH:
        total = 0
        for seat in range(cfg[C_N]):
            if cfg[C_SIDE_OF + seat] != w:
                total += round5(r[PIPS_COL + seat])
        out[w] = total
    elif rule == AWARD_NET_FIVES:
        own = _side_total(r, cfg, w, PIPS_COL) if domino_seat < 0 else 0
        out[w] = round5(_opponents_pips(r, cfg, w) - own) // 5
    return w
