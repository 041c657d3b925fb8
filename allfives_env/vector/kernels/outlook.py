"""The public outlook of a placement on one game's row (mirrors :mod:`allfives_env.envs.outlook`),
and the ``action_outlook`` block of an observation (mirrors
:func:`allfives_env.envs.features.outlook_features`).

Deliberate speed copies of the Python functions, pinned bit for bit by
``tests/vector/test_outlook.py`` (the observation block) and
``tests/agents/test_compiled_agents.py`` (the heuristic built on :func:`outlook`): every float64
value is computed by the same operations in the same order as the reference, so the doubles are
equal, and so are their float32 roundings.

The seat whose outlook is taken is the one to act (``Position.of_game``): his hand is
``HANDS[seat]``, the tiles he cannot see are the rest off the table, and hand sizes, known voids
and scores are the game's. Each placement is tried on a layout copy in a ``scratch`` row;
:func:`reply_outlook` sorts the replies it weighs in a ``fscratch`` row of float64
(:data:`~allfives_env.vector.state.FSCRATCH_WIDTH` entries).
"""

from __future__ import annotations

import numpy as np

from allfives_env.vector._jit import kernel
from allfives_env.vector.kernels import layout
from allfives_env.vector.kernels.scoring import admitted, count_points, reaches_target
from allfives_env.vector.kernels.turns import offered, placeable_tiles
from allfives_env.vector.state import (
    C_AT_ONCE,
    C_EVERY,
    C_N,
    C_NT,
    C_PARTNERS,
    C_S,
    C_SET_MASK,
    C_SIDE_OF,
    C_TILE_INDEX,
    C_UNIT,
    C_VALUES,
    COUNT,
    CUR,
    DRAWN,
    F32,
    F64,
    HANDS,
    I32,
    I64,
    LEAD_TILE,
    ON_TABLE,
    PHASE,
    SIZES,
    T_DOUBLE,
    T_HIGH,
    T_LOW,
    T_PIPS,
    T_VALUE_BITS,
    T_VALUES_MASK,
    VALUE,
    VOIDS,
)

OUTLOOK_SIZE = 12  # envs.blocks.OUTLOOK_SIZE (a test checks it)
LOOKAHEAD_SIZE = 2  # envs.blocks.LOOKAHEAD_SIZE (a test checks it)
OUTLOOK_WIN = 60.0  # envs.features.OUTLOOK_WIN
COUNT_NORM = 60.0  # envs.features.COUNT_NORM

Outlook = tuple[float, float, float, float, float, float, float, float, float, float, float]
"""What :func:`outlook` returns: the fields of ``envs.outlook.Outlook`` in order, as floats
(``now, last_tile, threat, opp_stuck, setup, kept_pips, variety, double, stuck, assist,
partner_stuck``; the flags 0.0 or 1.0, the counts whole numbers)."""


@kernel
def popcount(x: int) -> int:
    """The number of bits set in ``x`` (``int.bit_count``; ``x`` ≥ 0, at most 64 bits)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return int((x * 0x0101010101010101) >> 56 & 0xFF)


@kernel
def points_worth(cfg: I64, scores: F64, side: int, count: int, win: float) -> float:
    """What a placement leaving ``count`` is worth to ``side``, in pip-equivalents: 0 past an
    exact target, ``win`` if it reaches the target (``outlook.points_worth``)."""
    pts = count_points(count, cfg[C_UNIT])
    if pts == 0:
        return 0.0
    score = scores[side]
    if admitted(cfg, score, float(pts)) == 0.0:
        return 0.0
    if reaches_target(cfg, score + pts):
        return win
    return float(pts * cfg[C_UNIT])


@kernel
def reply_tiles(r: I32, lay: I32, seat: int, unseen: int) -> tuple[float, int]:
    """``(q, fitting)`` of ``seat``'s possible tiles (``unseen`` outside his known voids) on
    layout ``lay`` (``outlook.reply_tiles``, without ``exclude``)."""
    size = r[SIZES + seat]
    possible = unseen & ~T_VALUES_MASK[r[VOIDS + seat]]
    n_possible = popcount(possible)
    if size == 0 or n_possible == 0:
        return 0.0, 0
    return min(1.0, size / n_possible), possible & layout.playable_mask(lay)


@kernel
def reply_outlook(
    r: I32, cfg: I64, scores: F64, lay: I32, seat: int, win: float, unseen: int, buf: F64
) -> tuple[float, float]:
    """``seat``'s expected best placement on layout ``lay`` and his chance of having none
    (``outlook.reply_outlook``, without ``exclude``): his possible tiles are ``unseen`` outside
    his known voids, each held with probability ``q`` = hand size ÷ possible tiles; ``buf``
    holds the fitting tiles' positive best values, sorted best first."""
    q, fitting = reply_tiles(r, lay, seat, unseen)
    if fitting == 0:
        return 0.0, 1.0
    side = cfg[C_SIDE_OF + seat]
    s_count = cfg[C_S]
    k = 0  # the fitting tiles
    m = 0  # the positive values in buf (the reference stops its sum at the first 0)
    for t in range(28):
        if not fitting >> t & 1:
            continue
        k += 1
        a = T_LOW[t]
        b = T_HIGH[t]
        top = 0.0
        for s in range(s_count):
            v = lay[VALUE + s]  # -1 (closed) matches no half
            if v == a or v == b:
                w = points_worth(cfg, scores, side, layout.count_after(lay, t, s), win)
                if w > top:
                    top = w
        if top > 0.0:  # insert, keeping buf[:m] sorted best first
            j = m
            while j > 0 and buf[j - 1] < top:
                buf[j] = buf[j - 1]
                j -= 1
            buf[j] = top
            m += 1
    expected = 0.0
    miss = 1.0  # chance he holds none of the better replies
    for j in range(m):
        expected += buf[j] * q * miss
        miss *= 1.0 - q
    # a float exponent: libm's pow, as Python's float ** int (an int one would multiply)
    none = (1.0 - q) ** float(k)
    return expected, none


@kernel
def wins_match(cfg: I64, scores: F64, side: int, count: int) -> bool:
    """Whether a placement leaving ``count`` takes ``side`` to its target
    (``outlook.wins_match``)."""
    pts = count_points(count, cfg[C_UNIT])
    if pts == 0:
        return False
    score = scores[side]
    return admitted(cfg, score, float(pts)) != 0.0 and reaches_target(cfg, score + pts)


@kernel
def reply_risk(
    r: I32, cfg: I64, scores: F64, lay: I32, seat: int, unseen: int
) -> tuple[float, float]:
    """The chance that ``seat``'s reply on layout ``lay`` takes his side to its target, and the
    chance that it plays out his hand (``outlook.reply_risk``)."""
    q, fitting = reply_tiles(r, lay, seat, unseen)
    if fitting == 0:
        return 0.0, 0.0
    side = cfg[C_SIDE_OF + seat]
    s_count = cfg[C_S]
    k = 0
    k_win = 0
    for t in range(28):
        if not fitting >> t & 1:
            continue
        k += 1
        a = T_LOW[t]
        b = T_HIGH[t]
        for s in range(s_count):
            v = lay[VALUE + s]
            if (v == a or v == b) and wins_match(cfg, scores, side, layout.count_after(lay, t, s)):
                k_win += 1
                break
    wins = 1.0 - (1.0 - q) ** float(k_win) if k_win > 0 else 0.0
    out = 1.0 - (1.0 - q) ** float(k) if r[SIZES + seat] == 1 else 0.0
    return wins, out


@kernel
def own_best(
    cfg: I64, scores: F64, side: int, lay: I32, hand: int, win: float, cap: float
) -> float:
    """The best placement ``hand`` would have on layout ``lay`` for ``side``, at most ``cap``
    (``outlook.own_best``)."""
    top = 0.0
    fitting = hand & layout.playable_mask(lay)
    s_count = cfg[C_S]
    for t in range(28):
        if not fitting >> t & 1:
            continue
        a = T_LOW[t]
        b = T_HIGH[t]
        for s in range(s_count):
            v = lay[VALUE + s]
            if v == a or v == b:
                w = points_worth(cfg, scores, side, layout.count_after(lay, t, s), win)
                top = max(top, w)
    return min(top, cap)


@kernel
def smallest_opponent_hand(r: I32, cfg: I64, seat: int) -> int:
    """The fewest tiles any opponent of ``seat`` holds; 99 without one
    (``outlook.smallest_opponent_hand``)."""
    side = cfg[C_SIDE_OF + seat]
    smallest = 99
    for s in range(cfg[C_N]):
        if cfg[C_SIDE_OF + s] != side and r[SIZES + s] < smallest:
            smallest = r[SIZES + s]
    return int(smallest)


@kernel
def outlook(
    r: I32,
    cfg: I64,
    scores: F64,
    seat: int,
    tile: int,
    slot: int,
    win: float,
    cap: float,
    lay: I32,
    buf: F64,
) -> Outlook:
    """The outlook of placing ``tile`` on ``slot`` (a lead on an empty table) by ``seat``, the
    seat to act (``outlook.outlook``); ``lay`` receives the layout it leaves.

    When the placement wins the match or plays out the hand, the fields after ``last_tile``
    are 0 but for ``double``.
    """
    n = cfg[C_N]
    layout.copy_layout(r, lay)
    if lay[LEAD_TILE] < 0:
        layout.lead(lay, tile, cfg[C_AT_ONCE])
    else:
        layout.place(lay, tile, slot, cfg[C_EVERY], cfg[C_AT_ONCE])
    side = cfg[C_SIDE_OF + seat]
    now = points_worth(cfg, scores, side, lay[COUNT], win)
    hand = r[HANDS + seat]
    rest = hand & ~(1 << tile)
    double = float(T_DOUBLE[tile])
    if now >= win or rest == 0:
        last = 1.0 if rest == 0 else 0.0
        return now, last, 0.0, 0.0, 0.0, 0.0, 0.0, double, 0.0, 0.0, 0.0
    unseen = cfg[C_SET_MASK] & ~r[ON_TABLE] & ~hand
    nxt = seat + 1 if seat + 1 < n else 0
    threat, opp_stuck = reply_outlook(r, cfg, scores, lay, nxt, win, unseen, buf)
    setup = own_best(cfg, scores, side, lay, rest, win, cap)
    kept = 0
    bits = 0
    for u in range(28):
        if rest >> u & 1:
            kept += T_PIPS[u]
            bits |= T_VALUE_BITS[u]
    stuck = 1.0 if rest & layout.playable_mask(lay) == 0 else 0.0
    assist = 0.0
    partner_stuck = 0.0
    if cfg[C_PARTNERS]:
        partner = (seat + 2) % n
        assist, partner_stuck = reply_outlook(r, cfg, scores, lay, partner, win, unseen, buf)
    return (
        now,
        0.0,
        threat,
        opp_stuck,
        setup,
        float(kept),
        float(popcount(bits)),
        double,
        stuck,
        assist,
        partner_stuck,
    )


@kernel
def outlook_entries(
    r: I32, cfg: I64, scores: F64, seat: int, t: int, s: int, o: F32, at: int, scr: I32, buf: F64
) -> None:
    """The :data:`OUTLOOK_SIZE` entries of placement ``(t, s)`` at ``o[at:]``, in the order of
    ``envs.blocks.OUTLOOK_ENTRIES`` (the body of ``outlook_features``' loop)."""
    now, last, threat, opp_stuck, setup, kept, variety, double, stuck, assist, p_stuck = outlook(
        r, cfg, scores, seat, t, s, OUTLOOK_WIN, OUTLOOK_WIN, scr, buf
    )
    wins = wins_match(cfg, scores, cfg[C_SIDE_OF + seat], layout.count_after(r, t, s))
    norm = COUNT_NORM
    o[at] = np.float32(min(now / norm, 1.0))
    o[at + 1] = 1.0 if wins else 0.0
    o[at + 2] = np.float32(last)
    o[at + 3] = np.float32(min(threat / norm, 1.0))
    o[at + 4] = np.float32(opp_stuck)
    o[at + 5] = np.float32(min(setup / norm, 1.0))
    o[at + 6] = np.float32(min(kept / norm, 1.0))
    o[at + 7] = np.float32(variety / float(cfg[C_VALUES]))
    o[at + 8] = np.float32(double)
    o[at + 9] = np.float32(stuck)
    o[at + 10] = np.float32(min(assist / norm, 1.0))
    o[at + 11] = np.float32(p_stuck)


@kernel
def write_outlook_features(
    r: I32, cfg: I64, scores: F64, seat: int, o: F32, at: int, scr: I32, buf: F64
) -> None:
    """Write the ``action_outlook`` block at ``o[at:]`` for observer ``seat``: every entry,
    all 0 unless he is to act, then the outlook of each legal placement at
    ``(rank · S + slot) · OUTLOOK_SIZE`` (``features.outlook_features``)."""
    s_count = cfg[C_S]
    for j in range(cfg[C_NT] * s_count * OUTLOOK_SIZE):
        o[at + j] = 0.0
    ph = r[PHASE]
    if ph > DRAWN or r[CUR] != seat:
        return
    playable = placeable_tiles(r)
    for t in range(28):
        if playable >> t & 1:
            for s in range(s_count):
                if offered(r, t, s):
                    b = at + (cfg[C_TILE_INDEX + t] * s_count + s) * OUTLOOK_SIZE
                    outlook_entries(r, cfg, scores, seat, t, s, o, b, scr, buf)


@kernel
def placement_lookahead(
    r: I32, cfg: I64, scores: F64, seat: int, t: int, s: int, scr: I32
) -> tuple[float, float]:
    """The :data:`LOOKAHEAD_SIZE` entries of placement ``(t, s)`` by ``seat``, the seat to
    act: :func:`reply_risk` of the next seat on the layout it leaves, or 0s after a placement
    that wins the match or plays out the hand (the body of ``lookahead_features``' loop)."""
    hand = r[HANDS + seat]
    if hand & ~(1 << t) == 0:
        return 0.0, 0.0
    if wins_match(cfg, scores, cfg[C_SIDE_OF + seat], layout.count_after(r, t, s)):
        return 0.0, 0.0
    n = cfg[C_N]
    nxt = seat + 1 if seat + 1 < n else 0
    unseen = cfg[C_SET_MASK] & ~r[ON_TABLE] & ~hand
    layout.copy_layout(r, scr)
    if scr[LEAD_TILE] < 0:
        layout.lead(scr, t, cfg[C_AT_ONCE])
    else:
        layout.place(scr, t, s, cfg[C_EVERY], cfg[C_AT_ONCE])
    wins, out = reply_risk(r, cfg, scores, scr, nxt, unseen)
    return float(wins), float(out)


@kernel
def write_lookahead_features(
    r: I32, cfg: I64, scores: F64, seat: int, o: F32, at: int, scr: I32
) -> None:
    """Write the ``action_lookahead`` block at ``o[at:]`` for observer ``seat``: every entry,
    all 0 unless he is to act, then :func:`placement_lookahead` of each legal placement at
    ``(rank · S + slot) · LOOKAHEAD_SIZE`` (``features.lookahead_features``)."""
    s_count = cfg[C_S]
    for j in range(cfg[C_NT] * s_count * LOOKAHEAD_SIZE):
        o[at + j] = 0.0
    ph = r[PHASE]
    if ph > DRAWN or r[CUR] != seat:
        return
    playable = placeable_tiles(r)
    for t in range(28):
        if not playable >> t & 1:
            continue
        for s in range(s_count):
            if offered(r, t, s):
                wins, out = placement_lookahead(r, cfg, scores, seat, t, s, scr)
                b = at + (cfg[C_TILE_INDEX + t] * s_count + s) * LOOKAHEAD_SIZE
                o[b] = np.float32(wins)
                o[b + 1] = np.float32(out)
