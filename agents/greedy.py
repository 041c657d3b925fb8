"""The greedy agent: the placement that scores most now."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from allfives_env.core.actions import DRAW_ID, SLOT_OF, TILE_OF, Action
from allfives_env.core.scoring import count_points
from allfives_env.core.tiles import PIPS
from allfives_env.core.view import PlayerView

if TYPE_CHECKING:
    from allfives_env.vector.engine import VectorGame
    from allfives_env.vector.state import I64, U64


def placement_points(view: PlayerView, action: Action) -> int:
    """Points ``action`` (a placement) would score now, in the rules' unit (exact target aside)."""
    count = view.layout.count_after(TILE_OF[action], SLOT_OF[action])
    return count_points(count, view.rules.unit)


class GreedyAgent:
    """Places the tile that scores most now.

    Ties go to the heavier tile (fewer pips left to be caught with), then to the lower action
    id. It draws or passes only when nothing can be placed (it never draws by choice, even
    where the rules allow it).
    """

    name = "greedy"

    def act(self, view: PlayerView, rng: random.Random) -> Action:
        """The highest-scoring placement (see the class docstring for ties)."""
        placements = [a for a in view.legal_actions if a < DRAW_ID]
        if not placements:
            return view.legal_actions[0]
        return max(placements, key=lambda a: (placement_points(view, a), PIPS[TILE_OF[a]], -a))

    def act_batch(self, vg: VectorGame, games: I64, rng: U64) -> I64:
        """The greedy choices, compiled (:class:`~allfives_env.vector.agents.GreedyBatch`): the env
        action :meth:`act` picks for the acting seat of each game in ``games``; ``rng`` is
        not used."""
        from allfives_env.vector.agents import GreedyBatch

        return GreedyBatch().act_batch(vg, games, rng)
