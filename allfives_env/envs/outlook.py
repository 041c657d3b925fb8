"""The public outlook of a placement: what it scores, what it leaves the others and oneself.

For the seat to act and one legal placement, :func:`outlook` gives the quantities a player
weighs (the heuristic agent adds them up with its weights; the environment's ``outlook``
features hand them to a learner). Only public information and the actor's own hand are read:
the tiles the actor cannot see (other hands and the boneyard), each seat's hand size and known
voids, the table and the scores.

Values are *pip-equivalents*: points times the rules' unit, so a ``five_up`` count of 15 is
worth 15 as in ``pagat``. A score that would pass an exact target is worth 0; one that reaches
the target is worth ``win`` (a parameter: the heuristic's :data:`agents.heuristic.WIN`, or 60
for the features).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from allfives_env.core.actions import SLOT_OF, TILE_OF
from allfives_env.core.game import Game
from allfives_env.core.layout import Layout
from allfives_env.core.rules import Rules
from allfives_env.core.scoring import admitted, count_points, reaches_target
from allfives_env.core.tiles import (
    HIGH,
    IS_DOUBLE,
    LOW,
    PIPS,
    TILE_VALUE_BITS,
    VALUES_MASK,
    mask_of,
    tiles_of,
)
from allfives_env.core.view import PlayerView


@dataclass(frozen=True, slots=True)
class Position:
    """What the outlook needs about one seat's situation (from a view, or a game).

    Attributes:
        rules: the rules in force.
        seat: the seat to move.
        hand: its tiles, as a tile mask.
        layout: the table.
        hand_sizes: tiles in each seat's hand.
        scores: each side's score.
        voids: per seat, the pip values it is known not to hold (7-bit sets).
        unseen: the tiles of the set the seat cannot see (other hands and the boneyard), as a
            tile mask.
    """

    rules: Rules
    seat: int
    hand: int
    layout: Layout
    hand_sizes: tuple[int, ...]
    scores: tuple[float, ...]
    voids: tuple[int, ...]
    unseen: int

    @classmethod
    def of_view(cls, view: PlayerView) -> Position:
        """The position of ``view``'s seat."""
        return cls(
            view.rules,
            view.seat,
            mask_of(view.hand),
            view.layout,
            view.hand_sizes,
            view.scores,
            view.known_voids,
            view.unseen_mask,
        )

    @classmethod
    def of_game(cls, game: Game, seat: int | None = None) -> Position:
        """The position of ``seat`` (default: the player to act) in ``game``, as he may know it.

        Raises:
            ValueError: if no seat is given and no player is to act.
        """
        if seat is None:
            seat = game.current_player
            if seat is None:
                raise ValueError("no player is to act")
        hand = game.hand_mask(seat)
        return cls(
            game.rules,
            seat,
            hand,
            game.layout,
            game.hand_sizes,
            game.scores,
            game.void_sets,
            game.rules.tile_mask & ~game.layout.on_table & ~hand,
        )


def points_worth(
    rules: Rules, scores: tuple[float, ...], side: int, count: int, win: float
) -> float:
    """What a placement leaving ``count`` is worth to ``side``, in pip-equivalents: 0 past an
    exact target, ``win`` if it reaches the target."""
    pts = count_points(count, rules.unit)
    if not pts or not admitted(rules, scores[side], pts):
        return 0.0
    if reaches_target(rules, scores[side] + pts):
        return win
    return float(pts * rules.unit)


def wins_match(rules: Rules, scores: tuple[float, ...], side: int, count: int) -> bool:
    """Whether a placement leaving ``count`` takes ``side`` to its target."""
    pts = count_points(count, rules.unit)
    return (
        bool(pts)
        and bool(admitted(rules, scores[side], pts))
        and reaches_target(rules, scores[side] + pts)
    )


def after(layout: Layout, action: int) -> Layout:
    """The layout once placement ``action`` is made (a lead on an empty table)."""
    lay = layout.clone()
    if lay.is_empty:
        lay.lead(TILE_OF[action], SLOT_OF[action] == 1)
    else:
        lay.place(TILE_OF[action], SLOT_OF[action])
    return lay


def counts_left(layout: Layout, fitting: int) -> Iterator[list[int]]:
    """For each tile of ``fitting`` (a tile mask of tiles that fit ``layout``), by id: the count
    its placement on each open slot it matches would leave, by slot."""
    value = layout.value
    slots = layout.open_slots
    m = fitting
    while m:
        low = m & -m
        t = low.bit_length() - 1
        m ^= low
        a, b = LOW[t], HIGH[t]
        yield [layout.count_after(t, s) for s in slots if value[s] == a or value[s] == b]


def reply_tiles(pos: Position, layout: Layout, seat: int, exclude: int = 0) -> tuple[float, int]:
    """``(q, fitting)``: the chance ``q`` that ``seat`` holds any one of his possible tiles (the
    unseen ones, minus ``exclude``, outside his known voids), taken as hand size ÷ possible tiles
    and independent from tile to tile; and those of them that fit ``layout``, as a tile mask
    (0 when he holds no tile or none is possible)."""
    size = pos.hand_sizes[seat]
    possible = pos.unseen & ~exclude & ~VALUES_MASK[pos.voids[seat]]
    n_possible = possible.bit_count()
    if not size or not n_possible:
        return 0.0, 0
    return min(1.0, size / n_possible), possible & layout.playable_mask()


def reply_outlook(
    pos: Position, layout: Layout, seat: int, win: float, exclude: int = 0
) -> tuple[float, float]:
    """``seat``'s expected best placement on ``layout`` and his chance of having none.

    His possible tiles are the unseen ones (minus ``exclude``) outside his known voids; each is
    taken as held independently with probability ``q`` = hand size ÷ possible tiles, so the
    expected best is ``Σ vᵢ·q·(1−q)^(i−1)`` over his fitting tiles' best values, sorted best
    first, and the chance of none ``(1−q)^k`` over the ``k`` fitting tiles.
    """
    q, fitting = reply_tiles(pos, layout, seat, exclude)
    if not fitting:
        return 0.0, 1.0
    rules = pos.rules
    side = rules.side_of(seat)
    scores = pos.scores
    best: list[float] = []
    for counts in counts_left(layout, fitting):
        top = 0.0
        for count in counts:
            w = points_worth(rules, scores, side, count, win)
            if w > top:
                top = w
        best.append(top)
    best.sort(reverse=True)
    expected = 0.0
    miss = 1.0  # chance he holds none of the better replies
    for w in best:
        if w <= 0.0:
            break
        expected += w * q * miss
        miss *= 1.0 - q
    none = (1.0 - q) ** len(best)
    return expected, none


def reply_risk(pos: Position, layout: Layout, seat: int) -> tuple[float, float]:
    """The chance that ``seat``'s reply on ``layout`` takes his side to its target, and the
    chance that it is his last tile (he plays out the hand).

    His possible tiles and ``q`` are those of :func:`reply_tiles`; over the ``k`` fitting tiles
    of which some placement reaches the target the first chance is ``1 − (1−q)^k``, and with one
    tile in hand the second is ``1 − (1−q)^k`` over all ``k`` fitting tiles (0 with more).
    """
    q, fitting = reply_tiles(pos, layout, seat)
    if not fitting:
        return 0.0, 0.0
    rules = pos.rules
    side = rules.side_of(seat)
    k = 0
    k_win = 0
    for counts in counts_left(layout, fitting):
        k += 1
        if any(wins_match(rules, pos.scores, side, count) for count in counts):
            k_win += 1
    wins = 1.0 - (1.0 - q) ** k_win if k_win else 0.0
    out = 1.0 - (1.0 - q) ** k if pos.hand_sizes[seat] == 1 else 0.0
    return wins, out


def own_best(pos: Position, layout: Layout, hand: int, win: float, cap: float) -> float:
    """The best placement ``hand`` would have on ``layout`` (for the seat to move), at most
    ``cap``."""
    side = pos.rules.side_of(pos.seat)
    top = 0.0
    for counts in counts_left(layout, hand & layout.playable_mask()):
        for count in counts:
            top = max(top, points_worth(pos.rules, pos.scores, side, count, win))
    return min(top, cap)


def smallest_opponent_hand(pos: Position) -> int:
    """The fewest tiles any opponent holds (how soon the hand may end); 99 without one."""
    rules = pos.rules
    side = rules.side_of(pos.seat)
    return min(
        (pos.hand_sizes[s] for s in range(rules.num_players) if rules.side_of(s) != side),
        default=99,
    )


class Outlook(NamedTuple):
    """The outlook of one placement (see the module docstring for units).

    Attributes:
        now: what it scores now (``win`` if it reaches the target).
        last_tile: whether it is the actor's last tile (a domino).
        threat: the next seat's expected best reply (for his side: ``win`` where his reply
            would reach the target).
        opp_stuck: the chance the next seat has no tile that fits.
        setup: the best the actor's remaining tiles would score on the layout left (at most
            ``cap``).
        kept_pips: pips left in the actor's hand.
        variety: distinct pip values left in the actor's hand.
        double: whether the placed tile is a double.
        stuck: whether no tile left in hand fits the layout left.
        assist: 4-player partnerships: the partner's expected best placement on the layout left
            (0 otherwise).
        partner_stuck: 4-player partnerships: the chance the partner has no tile that fits.
    """

    now: float
    last_tile: bool
    threat: float
    opp_stuck: float
    setup: float
    kept_pips: int
    variety: int
    double: bool
    stuck: bool
    assist: float
    partner_stuck: float


def outlook(pos: Position, action: int, win: float, cap: float) -> Outlook:
    """The outlook of placement ``action`` by ``pos.seat``.

    When the placement wins the match or plays out the hand, nothing after it matters to the
    actor: the other fields are 0 (``False``).
    """
    rules = pos.rules
    n = rules.num_players
    me = pos.seat
    t = TILE_OF[action]
    lay = after(pos.layout, action)
    now = points_worth(rules, pos.scores, rules.side_of(me), lay.count, win)
    rest = pos.hand & ~(1 << t)
    if now >= win or not rest:
        return Outlook(now, not rest, 0.0, 0.0, 0.0, 0, 0, IS_DOUBLE[t], False, 0.0, 0.0)
    threat, opp_stuck = reply_outlook(pos, lay, (me + 1) % n, win)
    setup = own_best(pos, lay, rest, win, cap)
    kept = sum(PIPS[u] for u in tiles_of(rest))
    bits = 0
    for u in tiles_of(rest):
        bits |= TILE_VALUE_BITS[u]
    stuck = not rest & lay.playable_mask()
    assist = partner_stuck = 0.0
    if n == 4 and rules.partnerships:
        assist, partner_stuck = reply_outlook(pos, lay, (me + 2) % n, win)
    return Outlook(
        now,
        False,
        threat,
        opp_stuck,
        setup,
        kept,
        bits.bit_count(),
        IS_DOUBLE[t],
        stuck,
        assist,
        partner_stuck,
    )
