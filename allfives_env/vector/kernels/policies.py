"""Compiled opponent policies over a batch: ``random`` (uniform over the mask) and ``greedy``
(mirrors ``agents/greedy.py``'s ``GreedyAgent.act``). Both write env action ids, -1 for a game
with no legal action (done)."""

from __future__ import annotations

from allfives_env.vector._jit import batch_kernel, kernel, prange
from allfives_env.vector.kernels import layout
from allfives_env.vector.kernels.scoring import count_points
from allfives_env.vector.kernels.turns import can_draw, offered, placeable_tiles
from allfives_env.vector.rng import below
from allfives_env.vector.state import (
    C_NUM_ACTIONS,
    C_S,
    C_TILE_INDEX,
    C_UNIT,
    DRAWN,
    I8,
    I32,
    I64,
    PHASE,
    STATUS,
    T_PIPS,
    U64,
)


@batch_kernel
def random_from_masks(masks: I8, rng: U64, out: I64) -> None:
    """``out[i]``: an action drawn uniformly from the 1s of ``masks[i]`` with generator
    ``rng[i]`` (-1, drawing nothing, where the row is all 0)."""
    width = masks.shape[1]
    for i in prange(masks.shape[0]):
        count = 0
        for a in range(width):
            count += masks[i, a]
        if count == 0:
            out[i] = -1
            continue
        k = below(rng[i : i + 1], count)
        for a in range(width):
            if masks[i, a]:
                if k == 0:
                    out[i] = a
                    break
                k -= 1


@kernel
def greedy_action(r: I32, cfg: I64) -> int:
    """The env action ``GreedyAgent.act`` picks: the placement scoring most now
    (``count_points`` of ``count_after``, exact target ignored), ties to the heavier tile, then
    to the lower id; DRAW or PASS only when nothing can be placed (never a voluntary draw)."""
    s_count = cfg[C_S]
    unit = cfg[C_UNIT]
    ph = r[PHASE]
    if ph > DRAWN:
        return -1
    best = -1
    best_pts = -1
    best_pips = -1
    playable = placeable_tiles(r)
    if not playable:  # in play, nothing fits
        draw_id = cfg[C_NUM_ACTIONS] - 2
        return int(draw_id if can_draw(r, cfg) else draw_id + 1)
    for t in range(28):  # ascending ids: a later action wins only if strictly better
        if playable >> t & 1:
            for s in range(s_count):
                if offered(r, t, s):
                    pts = count_points(layout.count_after(r, t, s), unit)
                    if pts > best_pts or (pts == best_pts and T_PIPS[t] > best_pips):
                        best_pts, best_pips = pts, T_PIPS[t]
                        best = cfg[C_TILE_INDEX + t] * s_count + s
    return best


@batch_kernel
def greedy_batch(st: I32, cfg: I64, out: I64) -> None:
    """``out[i]`` = :func:`greedy_action` of game ``i`` (-1 for a game that is done)."""
    for i in prange(st.shape[0]):
        out[i] = greedy_action(st[i], cfg) if st[i, STATUS] == 0 else -1
