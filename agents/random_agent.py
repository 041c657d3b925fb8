"""The random agent: uniform over the legal actions."""

from __future__ import annotations

import random

from allfives_env.core.actions import Action
from allfives_env.core.view import PlayerView


class RandomAgent:
    """Picks uniformly among the legal actions."""

    name = "random"

    def act(self, view: PlayerView, rng: random.Random) -> Action:
        """A uniformly random legal action."""
        legal = view.legal_actions
        return legal[rng.randrange(len(legal))]
