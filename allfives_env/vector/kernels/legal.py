"""Legal environment actions of one game's row, and the batch mask kernel (mirrors
``Game.legal_actions`` / ``Game.is_legal_listed`` through ``Encoding.mask``).

Environment ids: tile ``t`` on slot ``s`` is ``rank(t) * S + s`` (S = ``cfg[C_S]``; the rank
of ``t`` in the set, the id for double-six), DRAW ``T * S``, PASS ``T * S + 1`` for a set of T
tiles. The lead is offered on slot 0 only.
"""

from __future__ import annotations

from allfives_env.vector._jit import batch_kernel, kernel, prange
from allfives_env.vector.kernels import layout
from allfives_env.vector.kernels.turns import can_draw
from allfives_env.vector.state import (
    C_DWA,
    C_INDEX_TILE,
    C_NUM_ACTIONS,
    C_S,
    C_TILE_INDEX,
    CUR,
    DRAWN,
    DRAWN_TILE,
    FORCED_LEAD,
    HANDS,
    I8,
    I32,
    I64,
    LEAD,
    PHASE,
    PLAY,
    STATUS,
    T_HIGH,
    T_LOW,
    VALUE,
)


@kernel
def is_legal(r: I32, cfg: I64, action: int) -> bool:
    """Whether env action ``action`` is in the acting seat's mask (``Encoding.mask`` of
    ``Game.legal_actions``; the mirrored lead is not an env action)."""
    s_count = cfg[C_S]
    n_actions = cfg[C_NUM_ACTIONS]
    if action < 0 or action >= n_actions:
        return False
    ph = r[PHASE]
    if ph > DRAWN:
        return False
    hand = r[HANDS + r[CUR]]
    draw_id = n_actions - 2
    if action < draw_id:
        t = cfg[C_INDEX_TILE + action // s_count]
        s = action % s_count
        if not hand >> t & 1:
            return False
        if ph == LEAD:
            return bool(s == 0 and (r[FORCED_LEAD] < 0 or t == r[FORCED_LEAD]))
        if ph == DRAWN and t != r[DRAWN_TILE]:
            return False
        return layout.fits(r, t, s)
    if ph != PLAY:
        return False
    placeable = hand & layout.playable_mask(r) != 0
    drawable = can_draw(r, cfg)
    if action == draw_id:
        return drawable and (cfg[C_DWA] != 0 or not placeable)
    return not drawable and not placeable


@kernel
def write_mask(r: I32, cfg: I64, out: I8) -> int:
    """Write the acting seat's legal env actions as 0/1 into ``out`` (every entry); return
    how many (``Encoding.mask``). A game whose hand is over has none."""
    s_count = cfg[C_S]
    n_actions = cfg[C_NUM_ACTIONS]
    for a in range(n_actions):
        out[a] = 0
    ph = r[PHASE]
    if ph > DRAWN:
        return 0
    hand = r[HANDS + r[CUR]]
    draw_id = n_actions - 2
    if ph == LEAD:
        if r[FORCED_LEAD] >= 0:
            out[cfg[C_TILE_INDEX + r[FORCED_LEAD]] * s_count] = 1
            return 1
        n = 0
        for t in range(28):
            if hand >> t & 1:
                out[cfg[C_TILE_INDEX + t] * s_count] = 1
                n += 1
        return n
    if ph == DRAWN:
        playable = 1 << r[DRAWN_TILE]
    else:
        playable = hand & layout.playable_mask(r)
        if not playable:
            if can_draw(r, cfg):
                out[draw_id] = 1
            else:
                out[draw_id + 1] = 1
            return 1
    n = 0
    for t in range(28):
        if playable >> t & 1:
            a = T_LOW[t]
            b = T_HIGH[t]
            at = cfg[C_TILE_INDEX + t] * s_count
            for s in range(s_count):
                v = r[VALUE + s]
                if v >= 0 and (v == a or v == b):
                    out[at + s] = 1
                    n += 1
    if ph == PLAY and cfg[C_DWA] and can_draw(r, cfg):
        out[draw_id] = 1
        n += 1
    return n


@batch_kernel
def masks_batch(st: I32, cfg: I64, out: I8) -> None:
    """``out[i]`` = the legal env actions of game ``i``'s acting seat (all 0 for a game that
    is done or between hands)."""
    for i in prange(st.shape[0]):
        if st[i, STATUS] != 0:
            for a in range(out.shape[1]):
                out[i, a] = 0
        else:
            write_mask(st[i], cfg, out[i])
