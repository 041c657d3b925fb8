"""Scoring, in one place: what a count scores (RULES.md §1 "Count"), the exact target (the
"Target" row of §2), and end-of-hand awards (§1 "Hand award" and the "Hand award" row of §2).

>>> from allfives_env.core.rules import Rules
>>> count_points(15, unit=1), count_points(15, unit=5), count_points(36, unit=1)
(15, 3, 0)
>>> five_up = Rules.preset("five_up", 2)
>>> admitted(five_up, 58, 4), admitted(five_up, 58, 3), reaches_target(five_up, 61)
(0, 3, True)

Each award rule takes the remaining pips (and tile counts) per *player* at the end of a hand and
returns the points per *side*, in the preset's unit, before the match's exact-target filter.
A side's pips or tiles are its players' added (a partnership's two hands), except where a rule
rounds per player (``round_each``, ``lose_own``).

>>> from allfives_env.core.rules import Rules
>>> r = Rules.preset("pagat", 3)
>>> hand_award(r, domino_seat=0, pips=[0, 7, 7], tiles=[0, 1, 1]).points   # RULES.md §3 ex. 7
[15, 0, 0]
>>> solo = Rules.preset("pyatyorka", 4, partnerships=False)
>>> hand_award(solo, None, [2, 7, 10, 12], [1, 2, 2, 2]).points   # the seed's 7+10+12-2 example
[5, 0, 0, 0]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from allfives_env.core.rules import Rules


def count_points(count: int, unit: int) -> int:
    """The points a layout ``count`` scores: ``count // unit`` if it is positive and a multiple
    of 5, else 0 (before the exact-target filter, :func:`admitted`)."""
    return count // unit if count > 0 and count % 5 == 0 else 0


def admitted(rules: Rules, score: float, points: float) -> float:
    """What ``points`` add to a side standing on ``score``: all of them, or 0 where they would
    take it past an exact target (``five_up``: such a score is not scored at all)."""
    return 0 if rules.exact_target and score + points > rules.target else points


def reaches_target(rules: Rules, score: float) -> bool:
    """Whether a side on ``score`` has reached the target (exactly, under an exact target)."""
    return score == rules.target if rules.exact_target else score >= rules.target


def round5(n: int) -> int:
    """Round to the nearest multiple of 5: remainders 1–2 down, 3–4 up.

    >>> [round5(n) for n in (0, 1, 2, 3, 7, 8, 12, 13, 17, 21, 23, 28)]
    [0, 0, 0, 5, 5, 10, 10, 15, 15, 20, 25, 30]
    """
    return 5 * ((n + 2) // 5)


@dataclass(frozen=True, slots=True)
class Award:
    """The end-of-hand result of the award rule.

    Attributes:
        points: points per side (negative under ``lose_own``; half points possible under
            ``round_once`` with two players tied for lowest).
        winner: the side that won the hand, or ``None`` (a tie, or no winner under the rule).
    """

    points: list[float]
    winner: int | None


def _side_totals(rules: Rules, per_player: Sequence[int]) -> list[int]:
    totals = [0] * rules.num_sides
    for seat, x in enumerate(per_player):
        totals[rules.side_of(seat)] += x
    return totals


def _lowest(values: Sequence[int]) -> list[int]:
    m = min(values)
    return [i for i, x in enumerate(values) if x == m]


def _opponents_pips(rules: Rules, side: int, pips: Sequence[int]) -> int:
    return sum(p for seat, p in enumerate(pips) if rules.side_of(seat) != side)


def hand_award(
    rules: Rules, domino_seat: int | None, pips: Sequence[int], tiles: Sequence[int]
) -> Award:
    """The award for a hand that ended by a domino (``domino_seat``) or blocked (``None``).

    Args:
        rules: the rules in force.
        domino_seat: the seat that played its last tile, or ``None`` for a blocked hand.
        pips: remaining pips per seat.
        tiles: remaining tile count per seat (the ``round_each`` tie-break).
    """
    n_sides = rules.num_sides
    out: list[float] = [0] * n_sides
    side_pips = _side_totals(rules, pips)
    rule = rules.award

    if rule == "lose_own":  # spruce: everyone loses round5(own pips); no hand winner
        for seat, p in enumerate(pips):
            out[rules.side_of(seat)] -= round5(p)
        winner = rules.side_of(domino_seat) if domino_seat is not None else None
        return Award(out, winner)

    if rule == "pairwise_fives":  # five_up
        if domino_seat is not None:
            side = rules.side_of(domino_seat)
            partner = side_pips[side]  # the domino player holds nothing
            out[side] = round5(max(0, _opponents_pips(rules, side, pips) - partner)) // 5
            return Award(out, side)
        for i in range(n_sides):
            for j in range(n_sides):
                if side_pips[i] < side_pips[j]:
                    out[i] += round5(side_pips[j] - side_pips[i]) // 5
        low = _lowest(side_pips)
        return Award(out, low[0] if len(low) == 1 else None)

    # The remaining rules have one winning side: the domino player's, or the lowest side.
    if domino_seat is not None:
        w = rules.side_of(domino_seat)
    else:
        low = _lowest(side_pips)
        if len(low) > 1 and rule == "round_each":  # equal pips: fewer tiles wins
            side_tiles = _side_totals(rules, tiles)
            fewest = min(side_tiles[i] for i in low)
            low = [i for i in low if side_tiles[i] == fewest]
        if len(low) != 1:
            if rule == "round_once" and n_sides > 2 and len(low) == 2:
                # pagat, 3+ sides: two tied for lowest share round5(the others' pips).
                rest = sum(side_pips[i] for i in range(n_sides) if i not in low)
                half = round5(rest) / 2
                half_pts: float = int(half) if half.is_integer() else half
                for i in low:
                    out[i] = half_pts
            return Award(out, None)
        w = low[0]

    if rule == "round_once":
        out[w] = round5(_opponents_pips(rules, w, pips))
    elif rule == "round_each":
        out[w] = sum(round5(p) for seat, p in enumerate(pips) if rules.side_of(seat) != w)
    elif rule == "net_fives":
        own = side_pips[w] if domino_seat is None else 0
        out[w] = round5(_opponents_pips(rules, w, pips) - own) // 5
    else:  # pragma: no cover - Rules validates the award name
        raise AssertionError(rule)
    return Award(out, w)
