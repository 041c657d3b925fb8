"""The protocol every player implements: an agent, a person, a policy wrapper.

It lives in the core because it is the contract between a :class:`PlayerView` and the action
that comes back; the ``agents`` package implements it, and the environments call it.
"""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

from allfives_env.core.actions import Action
from allfives_env.core.view import PlayerView


@runtime_checkable
class Agent(Protocol):
    """Chooses a legal action for the seat of ``view``, from that view alone.

    Contract: ``act`` returns one of ``view.legal_actions`` (never empty when called), reads
    nothing but the view, and draws any randomness from ``rng`` only, so a seeded ``rng``
    makes the agent deterministic.
    """

    name: str
    """A short name for tables and logs."""

    def act(self, view: PlayerView, rng: random.Random) -> Action:
        """The action to take."""
        ...
