"""Turns on one game's row: legality, placements, draws, passes and the ends of hands and of the
match (mirrors :class:`allfives_env.core.game.Game`).

Actions here are *engine* ids (``tile * 16 + slot``, DRAW 448, PASS 449), as in the core and in
the action log; :mod:`.legal` translates the environment's ids.
"""

from __future__ import annotations

from allfives_env.vector._jit import kernel
from allfives_env.vector.kernels import layout
from allfives_env.vector.kernels.scoring import (
    admitted,
    count_points,
    hand_award,
    reaches_target,
)
from allfives_env.vector.state import (
    BONE,
    BPOS,
    C_AT_ONCE,
    C_BONE_LEN,
    C_DWA,
    C_EVERY,
    C_K,
    C_N,
    C_SIDE_OF,
    C_STOP,
    C_UNIT,
    CUR,
    DRAWN,
    DRAWN_TILE,
    END_BLOCKED,
    END_DOMINO,
    END_TARGET,
    ENGINE_DRAW,
    F64,
    FORCED_LEAD,
    HAND_END,
    HAND_OVER,
    HAND_WINNER,
    HANDS,
    I16,
    I32,
    I64,
    LEAD,
    LOG_CAP,
    LOG_LEN,
    MATCH_OVER,
    OPEN_BITS,
    PHASE,
    PIPS_COL,
    PLAY,
    PLAYED,
    PREV_DOMINO,
    PREV_WINNER,
    SIZES,
    T_PIPS,
    TURN_DRAWS,
    VOID_PENDING,
    VOIDS,
    WINNERS,
)


@kernel
def can_draw(r: I32, cfg: I64) -> bool:
    """Whether the boneyard holds a tile that may be drawn (``Game.can_draw``)."""
    return bool(cfg[C_BONE_LEN] - r[BPOS] > cfg[C_STOP])


@kernel
def placeable_tiles(r: I32) -> int:
    """The tile mask of the tiles the seat to act may place now (``PlayerView.legal_actions``'
    placements): at the lead its hand, or the one tile a forced lead names; with a drawn tile
    pending that tile; in play the tiles of its hand that fit an open slot; 0 in any other phase.
    At the lead each goes on slot 0 only; otherwise on every slot where ``layout.fits``."""
    ph = r[PHASE]
    if ph == LEAD:
        return int(r[HANDS + r[CUR]] if r[FORCED_LEAD] < 0 else 1 << r[FORCED_LEAD])
    if ph == DRAWN:
        return int(1 << r[DRAWN_TILE])
    if ph == PLAY:
        return int(r[HANDS + r[CUR]] & layout.playable_mask(r))
    return 0


@kernel
def offered(r: I32, tile: int, slot: int) -> bool:
    """Whether ``tile``, one of :func:`placeable_tiles`, may go on ``slot`` now: slot 0 only at
    the lead, else where it fits."""
    return bool(slot == 0) if r[PHASE] == LEAD else layout.fits(r, tile, slot)


@kernel
def nobody_can_place(r: I32, cfg: I64) -> bool:
    """Whether no hand holds a tile that fits (``Game._nobody_can_place``)."""
    playable = layout.playable_mask(r)
    for seat in range(cfg[C_N]):  # noqa: SIM110 - a loop compiles; all() of a generator not
        if r[HANDS + seat] & playable:
            return False
    return True


@kernel
def is_forced(r: I32) -> bool:
    """Whether the only legal action is DRAW or PASS (``raw_env._auto_play``'s test): phase
    PLAY and no tile in hand fits."""
    return bool(r[PHASE] == PLAY and not (r[HANDS + r[CUR]] & layout.playable_mask(r)))


@kernel
def _log(r: I32, log: I16, action: int) -> None:
    """Append engine id ``action`` to the hand's ``log`` (the hand log's events, for records
    and :meth:`VectorGame.game`); ``LOG_CAP`` bounds any hand."""
    n = r[LOG_LEN]
    if n < LOG_CAP:
        log[n] = action
        r[LOG_LEN] = n + 1


@kernel
def _end_target(r: I32, cfg: I64, award: F64, side: int) -> None:
    """The match is won mid-hand by ``side`` (``Game._end_target``)."""
    for i in range(cfg[C_K]):
        award[i] = 0.0
    r[HAND_END] = END_TARGET
    r[HAND_WINNER] = -1
    r[PHASE] = MATCH_OVER
    r[WINNERS] = 1 << side


@kernel
def _end_hand(r: I32, cfg: I64, scores: F64, award: F64, end: int, domino_seat: int) -> None:
    """Score the hand's award and end the hand, or the match (``Game._end_hand``)."""
    winner = hand_award(r, cfg, domino_seat, award)
    k = cfg[C_K]
    for i in range(k):
        award[i] = admitted(cfg, scores[i], award[i])
        scores[i] = scores[i] + award[i]
    r[HAND_END] = end
    r[HAND_WINNER] = winner
    best = 0.0
    reached = 0
    for i in range(k):
        if reaches_target(cfg, scores[i]) and (reached == 0 or scores[i] > best):
            best = scores[i]
            reached = 1
    if reached:
        winners = 0
        for i in range(k):
            if reaches_target(cfg, scores[i]) and scores[i] == best:
                winners |= 1 << i
        r[WINNERS] = winners
        r[PHASE] = MATCH_OVER
        return
    r[PREV_DOMINO] = domino_seat
    r[PREV_WINNER] = winner
    r[PHASE] = HAND_OVER


@kernel
def place(r: I32, cfg: I64, scores: F64, award: F64, log: I16, tile: int, slot: int) -> float:
    """The player to act places ``tile`` on ``slot`` (a lead on slot 0); return the points it
    scored for his side (``Game._place``). The placement must be legal."""
    p = r[CUR]
    if r[PHASE] == LEAD:
        count = layout.lead(r, tile, cfg[C_AT_ONCE])
    else:
        count = layout.place(r, tile, slot, cfg[C_EVERY], cfg[C_AT_ONCE])
    bit = 1 << tile
    r[HANDS + p] ^= bit
    r[PIPS_COL + p] -= T_PIPS[tile]
    r[SIZES + p] -= 1
    r[PLAYED + p] |= bit
    if r[TURN_DRAWS]:
        if not cfg[C_DWA]:  # he placed the tile he drew: his hand is as before the draws
            r[VOIDS + p] = r[VOID_PENDING]
        r[TURN_DRAWS] = 0
    r[DRAWN_TILE] = -1
    _log(r, log, tile * 16 + slot)
    pts = float(count_points(count, cfg[C_UNIT]))
    reached = False
    side = cfg[C_SIDE_OF + p]
    if pts:
        score = scores[side]
        pts = admitted(cfg, score, pts)
        if pts:
            scores[side] = score + pts
            reached = reaches_target(cfg, score + pts)
    if reached:
        _end_target(r, cfg, award, side)
    elif r[SIZES + p] == 0:
        _end_hand(r, cfg, scores, award, END_DOMINO, p)
    elif not can_draw(r, cfg) and nobody_can_place(r, cfg):
        _end_hand(r, cfg, scores, award, END_BLOCKED, -1)
    else:
        r[CUR] = p + 1 if p + 1 < cfg[C_N] else 0
        r[PHASE] = PLAY
    return pts


@kernel
def draw(r: I32, cfg: I64, scores: F64, award: F64, log: I16) -> None:
    """The player to act draws the next boneyard tile (``Game._draw``). It must be legal."""
    p = r[CUR]
    if not cfg[C_DWA]:  # he could not place: no open value in hand, bar tiles drawn unseen
        open_bits = r[OPEN_BITS]
        if r[TURN_DRAWS]:  # the tile drawn before did not fit
            r[VOID_PENDING] = open_bits
        else:
            r[VOID_PENDING] = r[VOIDS + p] | open_bits
    r[VOIDS + p] = 0  # the tile just drawn may carry any value
    t = r[BONE + r[BPOS]]
    r[BPOS] += 1
    r[HANDS + p] |= 1 << t
    r[PIPS_COL + p] += T_PIPS[t]
    r[SIZES + p] += 1
    r[TURN_DRAWS] += 1
    _log(r, log, ENGINE_DRAW)
    if not cfg[C_DWA] and layout.playable_mask(r) >> t & 1:
        r[PHASE] = DRAWN
        r[DRAWN_TILE] = t
    elif not can_draw(r, cfg) and nobody_can_place(r, cfg):
        _end_hand(r, cfg, scores, award, END_BLOCKED, -1)


@kernel
def pass_(r: I32, cfg: I64, log: I16) -> None:
    """The player to act passes (``Game._pass``). It must be legal."""
    p = r[CUR]
    open_bits = r[OPEN_BITS]
    if r[TURN_DRAWS] and not cfg[C_DWA]:  # the last tile drawn did not fit
        r[VOIDS + p] = open_bits
    else:
        r[VOIDS + p] |= open_bits
    _log(r, log, ENGINE_DRAW + 1)
    r[TURN_DRAWS] = 0
    r[CUR] = p + 1 if p + 1 < cfg[C_N] else 0
