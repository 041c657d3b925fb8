"""A core :class:`~allfives_env.core.game.Game`'s position written into one game's row of a
batch (:meth:`allfives_env.vector.engine.VectorGame.load`): the inverse of ``VectorGame.game``
for the current hand, so that positions a caller builds in the core (the worlds a search samples
with :meth:`Game.from_view`) can be played on in the batched engine.

Every column the kernels read to go on from a position is written from the game's public
accessors; the columns of :mod:`allfives_env.vector.state` mirror the core's fields one to one.
The row's boneyard holds the game's undrawn tiles in draw order at its end (``BONE[BPOS:]``).
"""

from __future__ import annotations

from allfives_env.core.game import Game
from allfives_env.core.tiles import IS_DOUBLE, NUM_TILES
from allfives_env.vector.state import (
    BONE,
    BPOS,
    BY_LOT,
    CONTRIB,
    COUNT,
    CUR,
    DEAL_HANDS,
    DRAWN_TILE,
    END_DOUBLE,
    F64,
    FACE,
    FORCED_LEAD,
    HAND_NO,
    HAND_WINNER,
    HANDS,
    I32,
    LEAD_TILE,
    LEADER,
    NUM_SLOTS,
    NUM_SP,
    ON_TABLE,
    OPEN_BITS,
    OPEN_COUNT,
    PHASE,
    PIPS_COL,
    PLAYED,
    PREV_DOMINO,
    PREV_WINNER,
    SIZES,
    SP_COV,
    SP_VALUE,
    TURN_DRAWS,
    VALUE,
    VOID_PENDING,
    VOIDS,
)


def hand_start_scores(game: Game) -> list[float]:
    """Each side's score when the current hand was dealt: its score less what this hand's
    events have scored for it."""
    rules = game.rules
    start = list(game.scores)
    for event in game.events:
        start[rules.side_of(event.seat)] -= event.points
    return start


def write_row(
    row: I32, scores: F64, hand_start: F64, award: F64, game: Game, bone_len: int
) -> None:
    """Write ``game``'s position into row ``row`` and its score rows (the hand must be in play).

    ``bone_len`` is the rules' boneyard size (``cfg[C_BONE_LEN]``).
    """
    rules = game.rules
    n = rules.num_players
    lay = game.layout
    # filled as a list, then written at once; every column not set below stays 0: the episode
    # is live, has taken no step and logged no action, and no hand has ended in a last step
    r = [0] * len(row)
    cur = game.current_player
    assert cur is not None
    r[PHASE] = int(game.phase)
    r[CUR] = cur
    r[LEADER] = game.leader
    r[BY_LOT] = int(game.hand_log[-1].by_lot)
    drawn = game.drawn_tile
    r[DRAWN_TILE] = -1 if drawn is None else int(drawn)
    r[TURN_DRAWS] = game.draws_this_turn
    r[VOID_PENDING] = game.pending_voids
    lead = game.required_lead
    r[FORCED_LEAD] = -1 if lead is None else int(lead)
    r[HAND_NO] = game.hand_number
    r[PREV_DOMINO] = -1
    r[PREV_WINNER] = -1
    r[HAND_WINNER] = -1
    sizes = game.hand_sizes
    played = game.played_masks
    voids = game.void_sets
    for seat in range(n):
        r[HANDS + seat] = game.hand_mask(seat)
        r[DEAL_HANDS + seat] = game.hand_mask(seat)
        r[PIPS_COL + seat] = game.pips(seat)
        r[SIZES + seat] = sizes[seat]
        r[PLAYED + seat] = played[seat]
        r[VOIDS + seat] = voids[seat]
    bone = [int(t) for t in game.boneyard]
    at = bone_len - len(bone)
    r[BPOS] = at
    r[BONE : BONE + NUM_TILES] = [-1] * NUM_TILES
    for j, t in enumerate(bone):
        r[BONE + at + j] = t
    # the layout
    r[COUNT] = lay.count
    r[OPEN_BITS] = lay.open_bits
    r[ON_TABLE] = lay.on_table
    r[NUM_SP] = len(lay.sp_value)
    r[LEAD_TILE] = lay.lead_tile
    r[VALUE : VALUE + NUM_SLOTS] = lay.value
    r[FACE : FACE + NUM_SLOTS] = lay.face
    r[CONTRIB : CONTRIB + NUM_SLOTS] = lay.contrib
    ends = 0
    for s, chain in enumerate(lay.chains):
        if lay.face[s] < 0 and chain and IS_DOUBLE[chain[-1][0]]:
            ends |= 1 << s
    r[END_DOUBLE] = ends
    r[SP_VALUE : SP_VALUE + len(lay.sp_value)] = lay.sp_value
    r[SP_COV : SP_COV + len(lay.sp_cov)] = lay.sp_cov
    r[OPEN_COUNT : OPEN_COUNT + 7] = lay.open_count
    row[:] = r
    start = hand_start_scores(game)
    for side in range(4):
        scores[side] = game.scores[side] if side < rules.num_sides else 0.0
        hand_start[side] = start[side] if side < rules.num_sides else 0.0
        award[side] = 0.0
