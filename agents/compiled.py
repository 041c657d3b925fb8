"""The heuristic agent compiled for a batch of games (mirrors :mod:`agents.heuristic`).

:func:`heuristic_actions` picks, for each listed game of a
:class:`~allfives_env.vector.engine.VectorGame`, the env action that
``HeuristicAgent().act(vg.view(i), rng)`` picks: the same evaluation of every legal placement
(:func:`heuristic_action` mirrors ``heuristic.choose`` and ``heuristic.evaluate``, on the
outlook kernel :func:`allfives_env.vector.kernels.outlook.outlook`, which mirrors
``envs.outlook.outlook``), with the same float64 operations in the same order, the same weights
(``HeuristicAgent.act_batch`` hands over :func:`agents.heuristic.weights` at each call) and the
same tie-break: the best value, then the heavier tile, then the lower action id. DRAW or PASS
only when no placement is legal, or, with ``hoard``, by the heuristic's ``hoard`` rule (DRAW
while able unless the best placement is decisive, ``heuristic.decisive``); no randomness.
``tests/agents/test_compiled_agents.py`` pins it to the Python agent.

This module imports numba (through :mod:`allfives_env.vector`); :mod:`agents.heuristic` imports
it only inside ``HeuristicAgent.act_batch``, so ``import agents`` stays cheap. It does not
import :mod:`agents.heuristic` (no circle): the weights come in as arguments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from allfives_env.vector._jit import batch_kernel, cache_with_package, kernel, prange
from allfives_env.vector.engine import VectorGame
from allfives_env.vector.kernels.legal import is_legal
from allfives_env.vector.kernels.outlook import outlook, smallest_opponent_hand
from allfives_env.vector.kernels.turns import can_draw, offered, placeable_tiles
from allfives_env.vector.state import (
    C_INDEX_TILE,
    C_NUM_ACTIONS,
    C_PARTNERS,
    C_S,
    C_TILE_INDEX,
    CUR,
    DRAWN,
    F64,
    FSCRATCH_WIDTH,
    I32,
    I64,
    PHASE,
    SCRATCH_WIDTH,
    STATUS,
    T_PIPS,
)

# The kernels below call the package's helpers: stamp their cache with the package's sources
# (before the first decorator, where numba picks its cache).
cache_with_package(__file__)

WEIGHT_NAMES = (
    "W_NOW", "W_OPP", "W_OPP_DRAW", "W_SETUP", "W_SHED", "W_VARIETY", "W_DOUBLE", "W_STUCK",
    "W_PARTNER", "W_PARTNER_STUCK", "WIN",
)  # fmt: skip
"""The weights of :mod:`agents.heuristic` in the order of the kernels' weight vector."""
(
    _W_NOW, _W_OPP, _W_OPP_DRAW, _W_SETUP, _W_SHED, _W_VARIETY, _W_DOUBLE, _W_STUCK, _W_PARTNER,
    _W_PARTNER_STUCK, _WIN,
) = range(len(WEIGHT_NAMES))  # fmt: skip


def weight_vector(weights: Mapping[str, float]) -> F64:
    """``weights`` (every name of :data:`WEIGHT_NAMES`) as the kernels' float64 vector.

    Raises:
        KeyError: for a missing weight.
    """
    return np.array([float(weights[name]) for name in WEIGHT_NAMES], np.float64)


def danger_vector(danger: Sequence[float], far: float) -> F64:
    """The danger weight by the smallest opponent hand (``danger``), then ``far`` for any
    larger hand, as the kernels read it."""
    return np.array([*danger, far], np.float64)


@kernel
def evaluate(
    r: I32,
    cfg: I64,
    scores: F64,
    seat: int,
    t: int,
    s: int,
    danger: float,
    w: F64,
    scr: I32,
    buf: F64,
) -> float:
    """The evaluation of placing tile ``t`` on slot ``s`` by ``seat``, the seat to act
    (``heuristic.evaluate`` with ``danger`` given); higher is better."""
    win = w[_WIN]
    now, last, threat, opp_stuck, setup, kept, variety, double, stuck, assist, p_stuck = outlook(
        r, cfg, scores, seat, t, s, win, win / 10, scr, buf
    )
    if now >= win or last != 0.0:  # the match or the hand is won: nothing else matters
        return float(w[_W_NOW] * now + win / 10)
    value = w[_W_NOW] * now
    value += -w[_W_OPP] * threat + w[_W_OPP_DRAW] * opp_stuck
    value += w[_W_SETUP] * setup
    value -= w[_W_SHED] * danger * kept
    value += w[_W_VARIETY] * variety
    if double != 0.0:
        value += w[_W_DOUBLE]
    if stuck != 0.0:
        value -= w[_W_STUCK]
    if cfg[C_PARTNERS]:
        value += w[_W_PARTNER] * assist - w[_W_PARTNER_STUCK] * p_stuck
    return float(value)


@kernel
def decisive(
    r: I32, cfg: I64, scores: F64, seat: int, t: int, s: int, w: F64, scr: I32, buf: F64
) -> bool:
    """Whether placing tile ``t`` on slot ``s`` reaches the target or places ``seat``'s last
    tile (``heuristic.decisive``)."""
    win = w[_WIN]
    o = outlook(r, cfg, scores, seat, t, s, win, win / 10, scr, buf)
    return bool(o[0] >= win or o[1] != 0.0)


@kernel
def _danger(r: I32, cfg: I64, seat: int, danger_by_size: F64) -> float:
    """The danger weight of ``seat``'s position (``heuristic.danger_of``)."""
    smallest = smallest_opponent_hand(r, cfg, seat)
    far = danger_by_size.shape[0] - 1
    return float(danger_by_size[smallest] if smallest < far else danger_by_size[far])


@kernel
def heuristic_action(
    r: I32, cfg: I64, scores: F64, w: F64, danger_by_size: F64, hoard: bool, scr: I32, buf: F64
) -> int:
    """The env action ``HeuristicAgent(hoard).act`` picks for the seat to act
    (``heuristic.choose``): the placement of best :func:`evaluate`, ties to the heavier tile,
    then to the lower id; DRAW or PASS only when no placement is legal, or with ``hoard`` where
    DRAW is legal beside it and it is not :func:`decisive`; -1 between hands."""
    s_count = cfg[C_S]
    ph = r[PHASE]
    if ph > DRAWN:
        return -1
    seat = r[CUR]
    playable = placeable_tiles(r)
    draw = cfg[C_NUM_ACTIONS] - 2
    if playable == 0:  # in play, nothing fits
        return int(draw if can_draw(r, cfg) else draw + 1)
    # the placements, by env id (the lead on slot 0 only)
    first = -1
    count = 0
    for t in range(28):
        if playable >> t & 1:
            for s in range(s_count):
                if offered(r, t, s):
                    if first < 0:
                        first = cfg[C_TILE_INDEX + t] * s_count + s
                    count += 1
    if count == 1:
        best = first
    else:
        danger = _danger(r, cfg, seat, danger_by_size)
        best = -1
        best_value = 0.0
        best_pips = -1
        for t in range(28):  # ascending ids: a later action wins only if strictly better
            if not playable >> t & 1:
                continue
            for s in range(s_count):
                if not offered(r, t, s):
                    continue
                value = evaluate(r, cfg, scores, seat, t, s, danger, w, scr, buf)
                if (
                    best < 0
                    or value > best_value
                    or (value == best_value and T_PIPS[t] > best_pips)
                ):
                    best_value, best_pips = value, T_PIPS[t]
                    best = cfg[C_TILE_INDEX + t] * s_count + s
    if hoard and is_legal(r, cfg, draw):
        tile = cfg[C_INDEX_TILE + best // s_count]
        if not decisive(r, cfg, scores, seat, tile, best % s_count, w, scr, buf):
            return int(draw)
    return best


@batch_kernel
def heuristic_batch(
    games: I64,
    st: I32,
    cfg: I64,
    scores: F64,
    w: F64,
    danger_by_size: F64,
    hoard: bool,
    scratch: I32,
    fscratch: F64,
    out: I64,
) -> None:
    """``out[k]`` = :func:`heuristic_action` of game ``games[k]`` (-1 for a game that is done);
    ``scratch[k]`` and ``fscratch[k]`` are its scratch rows."""
    for k in prange(games.shape[0]):
        i = games[k]
        if st[i, STATUS] != 0:
            out[k] = -1
        else:
            out[k] = heuristic_action(
                st[i], cfg, scores[i], w, danger_by_size, hoard, scratch[k], fscratch[k]
            )


@kernel
def write_values(
    r: I32, cfg: I64, scores: F64, w: F64, danger_by_size: F64, scr: I32, buf: F64, out: F64
) -> None:
    """``out[a]`` = :func:`evaluate` of each placement ``a`` (env id) legal for the seat to
    act, with its position's danger; NaN for every other action."""
    s_count = cfg[C_S]
    for a in range(out.shape[0]):
        out[a] = np.nan
    ph = r[PHASE]
    if ph > DRAWN:
        return
    seat = r[CUR]
    playable = placeable_tiles(r)
    danger = _danger(r, cfg, seat, danger_by_size)
    for t in range(28):
        if playable >> t & 1:
            for s in range(s_count):
                if offered(r, t, s):
                    a = cfg[C_TILE_INDEX + t] * s_count + s
                    out[a] = evaluate(r, cfg, scores, seat, t, s, danger, w, scr, buf)


def heuristic_values(vg: VectorGame, i: int, weights: F64, danger_by_size: F64) -> F64:
    """The evaluation of every legal placement of game ``i``'s acting seat, by env action id
    (``heuristic.evaluate``; NaN for the other actions and in a game between hands), with the
    weights of :func:`weight_vector` and :func:`danger_vector`."""
    out = np.empty(vg.num_actions, np.float64)
    scratch = np.empty(SCRATCH_WIDTH, np.int32)
    fscratch = np.empty(FSCRATCH_WIDTH, np.float64)
    row = vg.st[i]
    write_values(row, vg.cfg, vg.scores_[i], weights, danger_by_size, scratch, fscratch, out)
    return out


def heuristic_actions(
    vg: VectorGame, games: I64, weights: F64, danger_by_size: F64, hoard: bool = False
) -> I64:
    """The heuristic's env action for the acting seat of each game in ``games`` (indices into
    ``vg``; -1 for a game that is done), with the weights of :func:`weight_vector` and
    :func:`danger_vector`, and its ``hoard`` rule or not."""
    idx = np.ascontiguousarray(games, np.int64)
    out = np.empty(idx.size, np.int64)
    scratch = np.empty((idx.size, SCRATCH_WIDTH), np.int32)
    fscratch = np.empty((idx.size, FSCRATCH_WIDTH), np.float64)
    w = np.ascontiguousarray(weights, np.float64)
    d = np.ascontiguousarray(danger_by_size, np.float64)
    heuristic_batch(idx, vg.st, vg.cfg, vg.scores_, w, d, bool(hoard), scratch, fscratch, out)
    return out
