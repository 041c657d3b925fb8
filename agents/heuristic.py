"""The heuristic agent: a hand-crafted evaluation of every placement.

Each legal placement is scored in *pip-equivalents* (points times the rules' unit, so a five_up
count of 15 is worth 15 like a pagat one) and the best is played. The quantities weighed are the
placement's public outlook (:mod:`allfives_env.envs.outlook`, with ``win`` = :data:`WIN`):

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

By default it never draws by choice: DRAW or PASS only when no placement is legal (under
five_up's draw-when-able rule too). With ``hoard`` (``heuristic:hoard=true``) it keeps the
boneyard from the opponents where the rules let a player draw while able to place (five_up,
RULES.md §2): it draws while the boneyard holds a tile, unless its best placement is
*decisive* (:func:`decisive`: it reaches the target or places the last tile). Whoever empties
the boneyard holds every spare tile, so its opponents, unable to draw, pass whenever nothing
fits while it chooses among many placements; a player who places instead hands the boneyard to
the next seat. In rules without drawing while able the rule never applies. Ties go to the
heavier tile, then the lower action id, so the agent is deterministic (it uses no randomness at
all).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from allfives_env.core.actions import DRAW_ID, TILE_OF, Action
from allfives_env.core.tiles import PIPS
from allfives_env.core.view import PlayerView
from allfives_env.envs.outlook import Position, outlook, smallest_opponent_hand

if TYPE_CHECKING:
    from allfives_env.vector.engine import VectorGame
    from allfives_env.vector.state import I64, U64

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


def weights() -> dict[str, float]:
    """The weights above by name (``W_*`` and ``WIN``), as they stand now (the compiled
    heuristic reads them from here)."""
    return {
        "W_NOW": W_NOW,
        "W_OPP": W_OPP,
        "W_OPP_DRAW": W_OPP_DRAW,
        "W_SETUP": W_SETUP,
        "W_SHED": W_SHED,
        "W_VARIETY": W_VARIETY,
        "W_DOUBLE": W_DOUBLE,
        "W_STUCK": W_STUCK,
        "W_PARTNER": W_PARTNER,
        "W_PARTNER_STUCK": W_PARTNER_STUCK,
        "WIN": WIN,
    }


def danger_of(pos: Position) -> float:
    """:data:`DANGER` for the smallest opponent hand (how soon the hand may end)."""
    smallest = smallest_opponent_hand(pos)
    return DANGER[smallest] if smallest < len(DANGER) else DANGER_FAR


def evaluate(pos: Position, action: int, danger: float | None = None) -> float:
    """The evaluation of placement ``action`` (see the module docstring), higher is better.

    ``danger`` may be passed in when evaluating several placements of one position.
    """
    o = outlook(pos, action, WIN, WIN / 10)
    if o.now >= WIN or o.last_tile:  # the match or the hand is won: nothing else matters
        return W_NOW * o.now + WIN / 10
    value = W_NOW * o.now
    value += -W_OPP * o.threat + W_OPP_DRAW * o.opp_stuck
    value += W_SETUP * o.setup
    if danger is None:
        danger = danger_of(pos)
    value -= W_SHED * danger * o.kept_pips
    value += W_VARIETY * o.variety
    if o.double:
        value += W_DOUBLE
    if o.stuck:
        value -= W_STUCK
    if pos.rules.num_players == 4 and pos.rules.partnerships:
        value += W_PARTNER * o.assist - W_PARTNER_STUCK * o.partner_stuck
    return value


def decisive(pos: Position, action: int) -> bool:
    """Whether placement ``action`` reaches the target (wins the match) or places the actor's
    last tile (wins the hand): what the ``hoard`` rule places rather than draws."""
    o = outlook(pos, action, WIN, WIN / 10)
    return o.now >= WIN or o.last_tile


def choose(pos: Position, legal: list[Action] | tuple[Action, ...], hoard: bool = False) -> Action:
    """The best placement among ``legal`` for ``pos`` (or the forced DRAW / PASS); with
    ``hoard``, DRAW instead where it is legal beside a placement and the best placement is not
    :func:`decisive` (see the module docstring)."""
    placements = [a for a in legal if a < DRAW_ID]
    if not placements:
        return legal[0]
    if len(placements) == 1:
        best = placements[0]
    else:
        danger = danger_of(pos)
        best = max(placements, key=lambda a: (evaluate(pos, a, danger), PIPS[TILE_OF[a]], -a))
    if hoard and len(placements) < len(legal) and not decisive(pos, best):
        return next(a for a in legal if a == DRAW_ID)
    return best


class HeuristicAgent:
    """Scores now, keeps the next opponent from scoring, sheds weight, keeps pip variety.

    See the module docstring for the evaluation and its weights. Deterministic: ties go to the
    heavier tile, then the lower action id; ``rng`` is not used.

    Args:
        hoard: draw while able, where the rules allow it, unless the best placement is
            decisive (the module docstring's ``hoard`` rule); default off: it draws only
            when forced.

    Raises:
        ValueError: for a ``hoard`` that is not a bool.
    """

    name = "heuristic"

    def __init__(self, hoard: bool = False):
        if not isinstance(hoard, bool):
            raise ValueError(f"hoard must be true or false, not {hoard!r}")
        self.hoard = hoard

    def __repr__(self) -> str:
        return f"HeuristicAgent(hoard={self.hoard})"

    def act(self, view: PlayerView, rng: random.Random) -> Action:
        """The placement with the best evaluation (DRAW or PASS only when forced, or by the
        ``hoard`` rule)."""
        return choose(Position.of_view(view), view.legal_actions, self.hoard)

    def act_batch(self, vg: VectorGame, games: I64, rng: U64) -> I64:
        """The env action :meth:`act` picks for the acting seat of each game in ``games``
        (indices into ``vg``, each live), compiled (:mod:`agents.compiled`); ``rng`` is not
        used."""
        from agents.compiled import danger_vector, heuristic_actions, weight_vector

        w = weight_vector(weights())
        return heuristic_actions(vg, games, w, danger_vector(DANGER, DANGER_FAR), self.hoard)
