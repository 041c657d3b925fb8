"""Per-action features of the observation (``action_features=True``): public facts about each
legal placement that spare a learner the count's arithmetic.

For the observer to act, per placement action id (``tile · S + slot``):

* ``action_points`` — the points it scores now, as scored (0 past an exact target), as the
  count / 60, clipped to 1;
* ``action_replies`` — the most the next player could score right after it with a tile he may
  hold (one the observer cannot see, with no half he is known to lack), the count / 60.

With ``action_features="outlook"`` each placement also gets its public outlook
(:func:`outlook_features`, from :mod:`allfives_env.envs.outlook`).

Only the observer's hand, the table and the public voids (and hand sizes, and scores) are read.

Every block follows the rules' set: ``tile`` is the tile's rank in the set
(:func:`allfives_env.envs.blocks.tile_indices`, the tile id for double-six), so a block has
``T · num_slots`` placements for a set of T tiles, and only the set's tiles may be held.
"""

from __future__ import annotations

from allfives_env.core.actions import DRAW_ID, SLOT_OF, TILE_OF
from allfives_env.core.game import Game
from allfives_env.core.scoring import admitted, count_points
from allfives_env.core.tiles import (
    HIGH,
    IS_DOUBLE,
    LOW,
    OTHER,
    VALUES_MASK,
)
from allfives_env.envs.blocks import LOOKAHEAD_SIZE, OUTLOOK_SIZE, tile_indices
from allfives_env.envs.outlook import Position, after, outlook, reply_risk, wins_match

COUNT_NORM = 60.0
"""Counts are divided by this (and clipped to 1) in the features."""


def best_additions(maybe: int) -> list[list[int]]:
    """``out[v][r]``: the largest amount a tile of the mask ``maybe`` adds to the count when
    placed on an end showing ``v`` (its other half, or ``2·v`` for the double), among amounts
    ``≡ r (mod 5)``; -1 where none."""
    out = [[-1] * 5 for _ in range(7)]
    m = maybe
    while m:
        low = m & -m
        m ^= low
        t = low.bit_length() - 1
        for v in (LOW[t], HIGH[t]):
            add = 2 * v if IS_DOUBLE[t] else OTHER[t][v]
            row = out[v]
            if add > row[add % 5]:
                row[add % 5] = add
    return out


def action_features(game: Game, seat: int, num_slots: int) -> tuple[list[float], list[float]]:
    """``(points, replies)``, each ``T · num_slots`` entries for the rules' set of T tiles (all
    0 unless ``seat`` acts)."""
    rules = game.rules
    size = rules.num_tiles * num_slots
    points = [0.0] * size
    replies = [0.0] * size
    if game.current_player != seat:
        return points, replies
    rank = tile_indices(rules.max_pip)
    lay = game.layout
    score = game.scores[rules.side_of(seat)]
    nxt = (seat + 1) % rules.num_players
    # tiles the next player may hold: unseen by the observer, and no half he lacks
    maybe = rules.tile_mask & ~game.hand_mask(seat) & ~lay.on_table
    by_residue = best_additions(maybe & ~VALUES_MASK[game.void_bits(nxt)])
    for a in game.legal_actions():
        if a >= DRAW_ID:
            continue
        tile, slot = TILE_OF[a], SLOT_OF[a]
        i = rank[tile] * num_slots + slot
        count = lay.count_after(tile, slot)
        if admitted(rules, score, count_points(count, rules.unit)):
            points[i] = min(count / COUNT_NORM, 1.0)
        after = lay.scratch()
        if after.is_empty:
            after.lead(tile, slot == 1)
        else:
            after.place(tile, slot)
        # the best reply that makes a multiple of 5, looked up by the residue it needs
        best = 0
        for s2 in after.open_slots:
            base = after.count_without(s2)
            add = by_residue[after.value[s2]][-base % 5]
            if add >= 0 and base + add > best:
                best = base + add
        replies[i] = min(best / COUNT_NORM, 1.0)
    return points, replies


OUTLOOK_WIN = 60.0
"""What reaching the target counts in the outlook features (before dividing by 60)."""


def outlook_features(game: Game, seat: int, num_slots: int) -> list[float]:
    """The ``action_outlook`` block: ``OUTLOOK_SIZE`` entries per placement action id (all 0
    unless ``seat`` acts), in the order of :data:`allfives_env.envs.blocks.OUTLOOK_ENTRIES`;
    the distinct values are divided by the set's ``max_pip + 1`` (7 for double-six)."""
    out = [0.0] * (game.rules.num_tiles * num_slots * OUTLOOK_SIZE)
    if game.current_player != seat:
        return out
    pos = Position.of_game(game, seat)
    rules = pos.rules
    rank = tile_indices(rules.max_pip)
    values = float(rules.max_pip + 1)
    side = rules.side_of(seat)
    norm = COUNT_NORM
    for a in game.legal_actions():
        if a >= DRAW_ID:
            continue
        o = outlook(pos, a, OUTLOOK_WIN, OUTLOOK_WIN)
        wins = wins_match(rules, pos.scores, side, pos.layout.count_after(TILE_OF[a], SLOT_OF[a]))
        at = (rank[TILE_OF[a]] * num_slots + SLOT_OF[a]) * OUTLOOK_SIZE
        out[at : at + OUTLOOK_SIZE] = [
            min(o.now / norm, 1.0),
            1.0 if wins else 0.0,
            1.0 if o.last_tile else 0.0,
            min(o.threat / norm, 1.0),
            o.opp_stuck,
            min(o.setup / norm, 1.0),
            min(o.kept_pips / norm, 1.0),
            o.variety / values,
            1.0 if o.double else 0.0,
            1.0 if o.stuck else 0.0,
            min(o.assist / norm, 1.0),
            o.partner_stuck,
        ]
    return out


def lookahead_features(game: Game, seat: int, num_slots: int) -> list[float]:
    """The ``action_lookahead`` block: ``LOOKAHEAD_SIZE`` entries per placement action id (all 0
    unless ``seat`` acts), in the order of :data:`allfives_env.envs.blocks.LOOKAHEAD_ENTRIES`:
    :func:`allfives_env.envs.outlook.reply_risk` of the next seat on the layout a placement
    leaves, 0 after one that wins the match or plays out the hand."""
    out = [0.0] * (game.rules.num_tiles * num_slots * LOOKAHEAD_SIZE)
    if game.current_player != seat:
        return out
    pos = Position.of_game(game, seat)
    rules = pos.rules
    rank = tile_indices(rules.max_pip)
    side = rules.side_of(seat)
    nxt = (seat + 1) % rules.num_players
    for a in game.legal_actions():
        if a >= DRAW_ID:
            continue
        t = TILE_OF[a]
        if not pos.hand & ~(1 << t) or wins_match(
            rules, pos.scores, side, pos.layout.count_after(t, SLOT_OF[a])
        ):
            continue
        at = (rank[t] * num_slots + SLOT_OF[a]) * LOOKAHEAD_SIZE
        out[at : at + LOOKAHEAD_SIZE] = reply_risk(pos, after(pos.layout, a), nxt)
    return out
