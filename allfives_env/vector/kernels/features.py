"""The ``action_points`` and ``action_replies`` blocks of an observation (mirrors
:func:`allfives_env.envs.features.action_features` and ``best_additions``)."""

from __future__ import annotations

import numpy as np

from allfives_env.vector._jit import kernel
from allfives_env.vector.kernels import layout
from allfives_env.vector.kernels.scoring import admitted, count_points
from allfives_env.vector.kernels.turns import offered, placeable_tiles
from allfives_env.vector.state import (
    BY_RESIDUE,
    C_AT_ONCE,
    C_EVERY,
    C_N,
    C_NT,
    C_S,
    C_SET_MASK,
    C_SIDE_OF,
    C_TILE_INDEX,
    C_UNIT,
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
    T_DOUBLE,
    T_HIGH,
    T_LOW,
    T_OTHER,
    T_VALUES_MASK,
    VALUE,
    VOIDS,
)

COUNT_NORM = 60.0  # envs.features.COUNT_NORM


@kernel
def _best_additions(maybe: int, scr: I32) -> None:
    """``scr[BY_RESIDUE + 5·v + r]``: the largest amount a tile of ``maybe`` adds to the count
    on an end showing ``v``, among amounts ≡ r (mod 5); -1 where none (``best_additions``)."""
    for j in range(35):
        scr[BY_RESIDUE + j] = -1
    for t in range(28):
        if maybe >> t & 1:
            for v in (T_LOW[t], T_HIGH[t]):
                add = 2 * v if T_DOUBLE[t] else T_OTHER[t, v]
                at = BY_RESIDUE + 5 * v + add % 5
                if add > scr[at]:
                    scr[at] = add


@kernel
def placement_features(
    r: I32, cfg: I64, scr: I32, score: float, t: int, s: int
) -> tuple[float, float]:
    """The two features of placement ``(t, s)``: its points and the best reply's, each a
    count over :data:`COUNT_NORM` capped at 1 (``scr`` holds :func:`_best_additions`' table,
    and its layout part is overwritten)."""
    count = layout.count_after(r, t, s)
    points = 0.0
    if admitted(cfg, score, float(count_points(count, cfg[C_UNIT]))) != 0:
        points = min(count / COUNT_NORM, 1.0)
    layout.copy_layout(r, scr)
    if scr[LEAD_TILE] < 0:
        layout.lead(scr, t, cfg[C_AT_ONCE])
    else:
        layout.place(scr, t, s, cfg[C_EVERY], cfg[C_AT_ONCE])
    best = 0
    for s2 in range(cfg[C_S]):  # the best reply that makes a multiple of 5
        v2 = scr[VALUE + s2]
        if v2 < 0:
            continue
        base = layout.count_without(scr, s2)
        add = scr[BY_RESIDUE + 5 * v2 + (5 - base % 5) % 5]
        if add >= 0 and base + add > best:
            best = base + add
    return points, min(best / COUNT_NORM, 1.0)


@kernel
def prepare_features(r: I32, cfg: I64, seat: int, scr: I32) -> None:
    """Set ``scr``'s table of best additions for :func:`placement_features` (``seat`` to act):
    the tiles the next player may hold, unseen by ``seat``, with no half he lacks."""
    nxt = seat + 1 if seat + 1 < cfg[C_N] else 0
    maybe = cfg[C_SET_MASK] & ~r[HANDS + seat] & ~r[ON_TABLE]
    _best_additions(maybe & ~T_VALUES_MASK[r[VOIDS + nxt]], scr)


@kernel
def write_action_features(
    r: I32, cfg: I64, scores: F64, seat: int, o: F32, at: int, scr: I32
) -> None:
    """Write the ``action_points`` block at ``o[at:]`` and ``action_replies`` right after it,
    for observer ``seat`` (all 0 unless he is to act) (``features.action_features``)."""
    s_count = cfg[C_S]
    size = cfg[C_NT] * s_count
    for j in range(2 * size):
        o[at + j] = 0.0
    ph = r[PHASE]
    if ph > DRAWN or r[CUR] != seat:
        return
    score = scores[cfg[C_SIDE_OF + seat]]
    prepare_features(r, cfg, seat, scr)
    playable = placeable_tiles(r)
    for t in range(28):
        if playable >> t & 1:
            for s in range(s_count):
                if offered(r, t, s):
                    points, reply = placement_features(r, cfg, scr, score, t, s)
                    b = at + cfg[C_TILE_INDEX + t] * s_count + s
                    o[b] = np.float32(points)
                    o[b + size] = np.float32(reply)
