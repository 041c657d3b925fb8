"""The random agent: uniform over the legal actions."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from allfives_env.core.actions import Action
from allfives_env.core.view import PlayerView

if TYPE_CHECKING:
    from allfives_env.vector.engine import VectorGame
    from allfives_env.vector.state import I64, U64


class RandomAgent:
    """Picks uniformly among the legal actions."""

    name = "random"

    def act(self, view: PlayerView, rng: random.Random) -> Action:
        """A uniformly random legal action."""
        legal = view.legal_actions
        return legal[rng.randrange(len(legal))]

    def probabilities(self, view: PlayerView) -> dict[Action, float]:
        """Its policy: each legal action with probability 1/(the number of them)."""
        legal = view.legal_actions
        return {a: 1.0 / len(legal) for a in legal}

    def act_batch(self, vg: VectorGame, games: I64, rng: U64) -> I64:
        """Uniform legal env actions for the acting seat of each game in ``games``, compiled
        (:class:`~allfives_env.vector.agents.RandomBatch`: drawn from ``rng[i]``, so not the
        choices :meth:`act` would make with a ``random.Random``)."""
        from allfives_env.vector.agents import RandomBatch

        return RandomBatch().act_batch(vg, games, rng)
