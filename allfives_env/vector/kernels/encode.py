"""Observation and state vectors of one game's row, and their batch kernels (mirrors
``Encoding.observe`` and ``Encoding.state`` of :mod:`allfives_env.envs.spaces`; the block
offsets come from :mod:`allfives_env.envs.blocks` through ``cfg``).

Every writer sets every entry of its block, so output rows need no clearing first.
"""

from __future__ import annotations

import numpy as np

from allfives_env.vector._jit import batch_kernel, kernel, prange
from allfives_env.vector.kernels.features import write_action_features
from allfives_env.vector.kernels.outlook import write_lookahead_features, write_outlook_features
from allfives_env.vector.kernels.turns import can_draw
from allfives_env.vector.state import (
    BONE,
    BPOS,
    C_ACTION_FEATURES,
    C_BONE_LEN,
    C_INDEX_TILE,
    C_K,
    C_N,
    C_NT,
    C_REL_SIDES,
    C_S,
    C_TARGET,
    C_TILE_INDEX,
    C_VALUES,
    CONTRIB,
    COUNT,
    CUR,
    DRAWN,
    DRAWN_TILE,
    END_DOUBLE,
    F32,
    F64,
    FACE,
    FEATURES_LOOKAHEAD,
    FEATURES_OUTLOOK,
    HAND_OVER,
    HANDS,
    I32,
    I64,
    LEAD,
    LEADER,
    O_ACTION_LOOKAHEAD,
    O_ACTION_OUTLOOK,
    O_ACTION_POINTS,
    O_COUNT,
    O_DRAWN,
    O_HAND,
    O_PLAYED_BY,
    O_SLOTS,
    O_TABLE,
    ON_TABLE,
    PHASE,
    PLAYED,
    S_BONEYARD,
    S_BONEYARD_ORDER,
    S_COUNT,
    S_DRAWN,
    S_HANDS,
    S_PLAYED_BY,
    S_SLOTS,
    S_TABLE,
    SIZES,
    SP_COV,
    TURN_DRAWS,
    VALUE,
    VOIDS,
)

COUNT_SCALE = 60.0  # envs.blocks.COUNT_SCALE
SCORE_CLIP = 2.0  # envs.blocks.SCORE_CLIP
SLOT_FEATURES = 12  # envs.blocks.SLOT_FEATURES


@kernel
def _tiles(o: F32, cfg: I64, at: int, mask: int) -> None:
    """T entries from ``o[at]``, by rank in the set: 1.0 where the tile mask has the tile
    (``Encoding._tile_bytes``; for double-six the rank is the id)."""
    nt = cfg[C_NT]
    if nt == 28:
        for t in range(28):
            o[at + t] = np.float32(mask >> t & 1)
    else:
        for i in range(nt):
            o[at + i] = np.float32(mask >> cfg[C_INDEX_TILE + i] & 1)


@kernel
def _slots(r: I32, cfg: I64, o: F32, at: int) -> None:
    """The ``slots`` block (``Encoding._slot_bytes`` / ``spaces._slot_row``): per slot, open;
    value one-hot (V = ``max_pip + 1`` entries); an ordinary double ends the arm; a spinner's
    free side; that spinner still counts; the contribution / 12."""
    nv = cfg[C_VALUES]
    width = nv + SLOT_FEATURES - 7
    for s in range(cfg[C_S]):
        b = at + width * s
        for j in range(width):
            o[b + j] = 0.0
        v = r[VALUE + s]
        if v < 0:
            continue
        o[b] = 1.0
        o[b + 1 + v] = 1.0
        f = r[FACE + s]
        if f >= 0:  # a spinner's free side: counts nothing itself
            o[b + nv + 2] = 1.0
            if r[SP_COV + f] < 2:
                o[b + nv + 3] = 1.0
        else:
            if r[END_DOUBLE] >> s & 1:
                o[b + nv + 1] = 1.0
            o[b + nv + 4] = np.float32(r[CONTRIB + s] / 12.0)


@kernel
def _tail(
    r: I32, cfg: I64, scores: F64, o: F32, at: int, me: int, absolute: bool, phase_index: int
) -> None:
    """The blocks from ``count`` to ``leader`` at ``o[at:]`` (``Encoding._tail``): seats
    relative to ``me`` (or absolute), and ``phase_index`` the phase entry to set (-1: none)."""
    n = cfg[C_N]
    k = cfg[C_K]
    per_tile = float(cfg[C_NT])  # 28.0 for double-six
    nv = cfg[C_VALUES]
    count = r[COUNT]
    o[at] = np.float32(min(count / COUNT_SCALE, 1.0))
    for j in range(5):
        o[at + 1 + j] = 0.0
    o[at + 1 + count % 5] = 1.0
    at += 6
    base = 0 if absolute else me
    for j in range(n):
        seat = (base + j) % n
        o[at + j] = np.float32(r[SIZES + seat] / per_tile)
    at += n
    o[at] = np.float32((cfg[C_BONE_LEN] - r[BPOS]) / per_tile)
    o[at + 1] = 1.0 if can_draw(r, cfg) else 0.0
    at += 2
    target = float(cfg[C_TARGET])
    for j in range(k):
        side = j if absolute else cfg[C_REL_SIDES + 4 * me + j]
        o[at + j] = np.float32(max(-SCORE_CLIP, min(scores[side] / target, SCORE_CLIP)))
    at += k
    for j in range(n):
        seat = (base + j) % n
        bits = r[VOIDS + seat]
        for v in range(nv):
            o[at + nv * j + v] = np.float32(bits >> v & 1)
    at += nv * n
    for j in range(3):
        o[at + j] = 0.0
    if phase_index >= 0:
        o[at + phase_index] = 1.0
    at += 3
    to_act = -1
    if r[PHASE] < HAND_OVER:
        to_act = (r[CUR] - base) % n
    for j in range(n):
        o[at + j] = 1.0 if j == to_act else 0.0
    at += n
    o[at] = np.float32(r[TURN_DRAWS] / per_tile) if to_act >= 0 else 0.0
    at += 1
    leader = (r[LEADER] - base) % n
    for j in range(n):
        o[at + j] = 1.0 if j == leader else 0.0


@kernel
def write_global(r: I32, cfg: I64, scores: F64, seat: int, o: F32) -> None:
    """Write the global part of ``seat``'s observation (every block before the per-action
    ones) into ``o``."""
    n = cfg[C_N]
    nt = cfg[C_NT]
    ph = r[PHASE]
    mine = ph == DRAWN and r[CUR] == seat
    _tiles(o, cfg, cfg[O_HAND], r[HANDS + seat])
    _tiles(o, cfg, cfg[O_TABLE], r[ON_TABLE])
    for j in range(n):
        _tiles(o, cfg, cfg[O_PLAYED_BY] + nt * j, r[PLAYED + (seat + j) % n])
    _tiles(o, cfg, cfg[O_DRAWN], 1 << r[DRAWN_TILE] if mine else 0)
    _slots(r, cfg, o, cfg[O_SLOTS])
    # another seat's drawn tile shows as plain play: whether it fits is not yet known
    shown = 0 if ph == LEAD else 2 if mine else 1 if ph < HAND_OVER else -1
    _tail(r, cfg, scores, o, cfg[O_COUNT], seat, False, shown)


@kernel
def write_observation(
    r: I32, cfg: I64, scores: F64, seat: int, o: F32, scr: I32, fscr: F64
) -> None:
    """Write ``seat``'s observation into ``o`` (``Encoding.observe``); ``scr`` and ``fscr``
    are the game's scratch rows (read only with action features)."""
    write_global(r, cfg, scores, seat, o)
    if cfg[C_ACTION_FEATURES]:
        write_action_features(r, cfg, scores, seat, o, cfg[O_ACTION_POINTS], scr)
    if cfg[C_ACTION_FEATURES] >= FEATURES_OUTLOOK:
        write_outlook_features(r, cfg, scores, seat, o, cfg[O_ACTION_OUTLOOK], scr, fscr)
    if cfg[C_ACTION_FEATURES] == FEATURES_LOOKAHEAD:
        write_lookahead_features(r, cfg, scores, seat, o, cfg[O_ACTION_LOOKAHEAD], scr)


@kernel
def write_state(r: I32, cfg: I64, scores: F64, o: F32) -> None:
    """Write the global state into ``o`` (``Encoding.state``): every hand, the boneyard in
    draw order, absolute seats and sides."""
    n = cfg[C_N]
    nt = cfg[C_NT]
    per_tile = float(nt)
    for seat in range(n):
        _tiles(o, cfg, cfg[S_HANDS] + nt * seat, r[HANDS + seat])
    at_b = cfg[S_BONEYARD]
    at_o = cfg[S_BONEYARD_ORDER]
    for i in range(nt):
        o[at_b + i] = 0.0
        o[at_o + i] = 0.0
    for j in range(r[BPOS], cfg[C_BONE_LEN]):
        i = cfg[C_TILE_INDEX + r[BONE + j]]
        o[at_b + i] = 1.0
        o[at_o + i] = np.float32((j - r[BPOS] + 1) / per_tile)
    _tiles(o, cfg, cfg[S_TABLE], r[ON_TABLE])
    for seat in range(n):
        _tiles(o, cfg, cfg[S_PLAYED_BY] + nt * seat, r[PLAYED + seat])
    ph = r[PHASE]
    _tiles(o, cfg, cfg[S_DRAWN], 1 << r[DRAWN_TILE] if ph == DRAWN else 0)
    _slots(r, cfg, o, cfg[S_SLOTS])
    _tail(r, cfg, scores, o, cfg[S_COUNT], 0, True, ph if ph < HAND_OVER else -1)


@batch_kernel
def observe_batch(
    st: I32, cfg: I64, scores: F64, seats: I64, out: F32, scratch: I32, fscratch: F64
) -> None:
    """``out[i]`` = the observation of seat ``seats[i]`` of game ``i`` (-1: its seat to act,
    or after its end the seat that acted last); ``scratch`` and ``fscratch`` as
    :class:`~allfives_env.vector.engine.VectorGame` holds them."""
    for i in prange(st.shape[0]):
        seat = seats[i]
        if seat < 0:
            seat = st[i, CUR]
        write_observation(st[i], cfg, scores[i], seat, out[i], scratch[i], fscratch[i])


@batch_kernel
def observe_listed(
    st: I32,
    cfg: I64,
    scores: F64,
    games: I64,
    seats: I64,
    out: F32,
    scratch: I32,
    fscratch: F64,
) -> None:
    """``out[k]`` = the observation of seat ``seats[k]`` of game ``games[k]`` (as
    :func:`observe_batch`, for some games only); the games are distinct, since each uses its
    scratch rows."""
    for k in prange(games.shape[0]):
        i = games[k]
        write_observation(st[i], cfg, scores[i], seats[k], out[k], scratch[i], fscratch[i])


@batch_kernel
def state_batch(st: I32, cfg: I64, scores: F64, out: F32) -> None:
    """``out[i]`` = the global state of game ``i``."""
    for i in prange(st.shape[0]):
        write_state(st[i], cfg, scores[i], out[i])
