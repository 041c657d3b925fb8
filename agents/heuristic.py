"""The heuristic agent: a hand-crafted evaluation of every placement.

Each legal placement is scored in *pip-equivalents* (points times the rules' unit, so a five_up
count of 15 is worth 15 like a pagat one) and the best is played:

``value = W_NOW·now − W_OPP·threat + W_OPP_DRAW·P(opponent stuck) + W_SETUP·setup
− W_SHED·danger·(pips kept) + W_VARIETY·values + W_DOUBLE·[double] − W_STUCK·[no follow-up]
+ W_PARTNER·assist − W_PARTNER_STUCK·P(partner stuck)``

* ``now`` — the points the placement scores, through the match rules: a score that would pass
  an exact target (five_up) is worth nothing, and one that reaches the target is worth
  :data:`WIN`.
* ``threat`` — what the next opponent may score in reply. From the tiles he might hold (the
  unseen ones minus his known voids) each fitting tile's best reply is valued like ``now`` (for
  his side, so his reaching the target costs :data:`WIN`), and the expected best reply is taken
  with each tile held independently with probability ``q`` = his hand size ÷ the tiles he might
  hold: ``Σ vᵢ·q·(1−q)^(i−1)`` over the replies sorted best first.
* ``P(opponent stuck)`` — the chance that no tile of his fits, ``(1−q)^k`` over the ``k``
  fitting tiles he might hold: he must draw (more pips to be caught with) or pass.
* ``setup`` — the best score our remaining tiles would have on the layout left (if the
  opponent leaves it alone).
* ``danger`` — how likely the hand ends soon, from the smallest hand among the opponents
  (:data:`DANGER`): the heavier the tile, the more shedding it is worth.
* ``values`` — distinct pip values left in hand (variety keeps future placements open).
* ``[double]`` — doubles have one value and are hard to place, so playing one is a plus.
* ``[no follow-up]`` — no tile left in hand fits the layout this placement leaves.
* 4-player partnerships: ``assist`` is the partner's expected best placement (as ``threat``) on
  the layout this placement leaves (he plays after the next opponent, hence the small weight),
  and ``P(partner stuck)`` the chance he cannot follow — blocking him is a cost.

Placing the last tile (a domino) is worth ``now`` + :data:`WIN` / 10 and nothing else.

It never draws by choice: DRAW or PASS only when no placement is legal (under five_up's
draw-when-able rule too). Ties go to the heavier tile, then the lower action id, so the agent is
deterministic (it uses no randomness at all).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from allfives_env.core.actions import DRAW_ID, SLOT_OF, TILE_OF, Action
from allfives_env.core.game import Game
from allfives_env.core.layout import Layout
from allfives_env.core.rules import Rules
from allfives_env.core.scoring import admitted, count_points, reaches_target
from allfives_env.core.tiles import (
    ALL_TILES_MASK,
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

W_NOW = 1.0
"""Weight of the points scored now."""
W_OPP = 0.8
"""Weight of the next opponent's expected best reply."""
W_PARTNER = 0.2
"""Weight of the partner's expected best placement (4-player partnerships)."""
W_SHED = 1.0
"""Weight of a pip kept in hand, times :data:`DANGER`."""
W_VARIETY = 1.0
"""Worth of each distinct pip value left in hand."""
W_DOUBLE = 2.0
"""Bonus for placing a double."""
W_STUCK = 4.0
"""Penalty when no tile left in hand fits the layout left."""
W_OPP_DRAW = 6.0
"""Worth of the next opponent's chance of having no fitting tile."""
W_PARTNER_STUCK = 3.0
"""Cost of the partner's chance of having no fitting tile (4-player partnerships)."""
W_SETUP = 0.2
"""Weight of the best score our remaining tiles would have on the layout left."""
WIN = 1000.0
"""Worth of reaching the target (winning the match), in pip-equivalents."""
DANGER = (1.0, 1.0, 0.55, 0.3, 0.18)
"""Chance-like weight that the hand ends soon, by the smallest opponent hand (0, 1, 2, 3, 4);
larger hands use :data:`DANGER_FAR`."""
DANGER_FAR = 0.1
"""Danger weight while every opponent holds five tiles or more."""


@dataclass(frozen=True, slots=True)
class Position:
    """What the evaluation needs about one seat's situation (from a view, or a sampled world).

    Attributes:
        rules: the rules in force.
        seat: the seat to move.
        hand: its tiles, as a tile mask.
        layout: the table.
        hand_sizes: tiles in each seat's hand.
        scores: each side's score.
        voids: per seat, the pip values it is known not to hold (7-bit sets).
        unseen: the tiles the seat cannot see (other hands and the boneyard), as a tile mask.
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
        hand = mask_of(view.hand)
        return cls(
            view.rules,
            view.seat,
            hand,
            view.layout,
            view.hand_sizes,
            view.scores,
            view.known_voids,
            view.unseen_mask,
        )

    @classmethod
    def of_game(cls, game: Game) -> Position:
        """The position of the player to act in ``game``, as that player may know it."""
        seat = game.current_player
        if seat is None:
            raise ValueError("no player is to act")
        hand = game.hand_mask(seat)
        n = game.rules.num_players
        return cls(
            game.rules,
            seat,
            hand,
            game.layout,
            game.hand_sizes,
            game.scores,
            tuple(game.void_bits(s) for s in range(n)),
            ALL_TILES_MASK & ~game.layout.on_table & ~hand,
        )


def points_worth(rules: Rules, scores: tuple[float, ...], side: int, count: int) -> float:
    """What a placement leaving ``count`` is worth to ``side``, in pip-equivalents.

    Scores under the rules' unit; a score past an exact target is worth 0, one that reaches the
    target :data:`WIN`.
    """
    pts = count_points(count, rules.unit)
    if not pts or not admitted(rules, scores[side], pts):
        return 0.0
    if reaches_target(rules, scores[side] + pts):
        return WIN
    return float(pts * rules.unit)


def _after(layout: Layout, action: int) -> Layout:
    lay = layout.clone()
    if lay.is_empty:
        lay.lead(TILE_OF[action], SLOT_OF[action] == 1)
    else:
        lay.place(TILE_OF[action], SLOT_OF[action])
    return lay


def reply_outlook(
    pos: Position, layout: Layout, seat: int, exclude: int = 0
) -> tuple[float, float]:
    """``seat``'s expected best placement on ``layout`` and his chance of having none.

    His possible tiles are the unseen ones (minus ``exclude``) outside his known voids; each is
    taken as held independently with probability hand size ÷ possible tiles.
    """
    size = pos.hand_sizes[seat]
    possible = pos.unseen & ~exclude & ~VALUES_MASK[pos.voids[seat]]
    n_possible = possible.bit_count()
    if not size or not n_possible:
        return 0.0, 1.0
    q = min(1.0, size / n_possible)
    fitting = possible & layout.playable_mask()
    if not fitting:
        return 0.0, 1.0
    rules = pos.rules
    side = rules.side_of(seat)
    scores = pos.scores
    value = layout.value
    slots = layout.open_slots
    best: list[float] = []
    m = fitting
    while m:
        low = m & -m
        t = low.bit_length() - 1
        m ^= low
        a, b = LOW[t], HIGH[t]
        top = 0.0
        for s in slots:
            v = value[s]
            if v == a or v == b:
                w = points_worth(rules, scores, side, layout.count_after(t, s))
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


def own_best(pos: Position, layout: Layout, hand: int) -> float:
    """The best placement ``hand`` would have on ``layout`` (for the seat to move)."""
    side = pos.rules.side_of(pos.seat)
    top = 0.0
    fitting = hand & layout.playable_mask()
    value = layout.value
    while fitting:
        low = fitting & -fitting
        t = low.bit_length() - 1
        fitting ^= low
        for s in layout.open_slots:
            v = value[s]
            if v == LOW[t] or v == HIGH[t]:
                w = points_worth(pos.rules, pos.scores, side, layout.count_after(t, s))
                top = max(top, w)
    return min(top, WIN / 10)


def _danger(pos: Position) -> float:
    rules = pos.rules
    side = rules.side_of(pos.seat)
    smallest = min(
        (pos.hand_sizes[s] for s in range(rules.num_players) if rules.side_of(s) != side),
        default=99,
    )
    return DANGER[smallest] if smallest < len(DANGER) else DANGER_FAR


def evaluate(pos: Position, action: int, danger: float | None = None) -> float:
    """The evaluation of placement ``action`` (see the module docstring), higher is better.

    ``danger`` may be passed in when evaluating several placements of one position.
    """
    rules = pos.rules
    n = rules.num_players
    me = pos.seat
    t = TILE_OF[action]
    lay = _after(pos.layout, action)
    now = points_worth(rules, pos.scores, rules.side_of(me), lay.count)
    rest = pos.hand & ~(1 << t)
    if now >= WIN or not rest:  # the match or the hand is won: nothing else matters
        return W_NOW * now + WIN / 10
    value = W_NOW * now
    threat, opp_stuck = reply_outlook(pos, lay, (me + 1) % n)
    value += -W_OPP * threat + W_OPP_DRAW * opp_stuck
    value += W_SETUP * own_best(pos, lay, rest)
    if danger is None:
        danger = _danger(pos)
    value -= W_SHED * danger * sum(PIPS[u] for u in tiles_of(rest))
    bits = 0
    for u in tiles_of(rest):
        bits |= TILE_VALUE_BITS[u]
    value += W_VARIETY * bits.bit_count()
    if IS_DOUBLE[t]:
        value += W_DOUBLE
    if not rest & lay.playable_mask():
        value -= W_STUCK
    if n == 4 and rules.partnerships:
        assist, partner_stuck = reply_outlook(pos, lay, (me + 2) % n)
        value += W_PARTNER * assist - W_PARTNER_STUCK * partner_stuck
    return value


def choose(pos: Position, legal: list[Action] | tuple[Action, ...]) -> Action:
    """The best placement among ``legal`` for ``pos`` (or the forced DRAW / PASS)."""
    placements = [a for a in legal if a < DRAW_ID]
    if not placements:
        return legal[0]
    if len(placements) == 1:
        return placements[0]
    danger = _danger(pos)
    return max(placements, key=lambda a: (evaluate(pos, a, danger), PIPS[TILE_OF[a]], -a))


class HeuristicAgent:
    """Scores now, keeps the next opponent from scoring, sheds weight, keeps pip variety.

    See the module docstring for the evaluation and its weights. Deterministic: ties go to the
    heavier tile, then the lower action id; ``rng`` is not used.
    """

    name = "heuristic"

    def act(self, view: PlayerView, rng: random.Random) -> Action:
        """The placement with the best evaluation (DRAW or PASS only when forced)."""
        return choose(Position.of_view(view), view.legal_actions)
