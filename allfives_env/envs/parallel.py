"""The parallel API over the AEC environment: PettingZoo's turn-based conversion, with its
``step`` checked.

PettingZoo's ``turn_based_aec_to_parallel_wrapper`` reads ``actions[agent_selection]`` and
nothing else: a dict without the acting agent's action is a bare ``KeyError``, a step after the
episode ended returns four empty dicts instead of five, and a step before ``reset`` an
``AttributeError``. :class:`TurnBasedParallelEnv` is that wrapper with those calls refused by
typed errors that say what is wrong (nothing changes); every step it takes goes through
PettingZoo's own code.

The actions are a dict from agent names to action ids. Only the acting agent's action is
applied (the others have an empty action mask; what they are given is ignored), so a dict with
the acting agent's action alone will do, and so will one with an action for every live agent,
as PettingZoo's parallel API has it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils.conversions import turn_based_aec_to_parallel_wrapper

from allfives_env.core.errors import ArgumentError
from allfives_env.envs.settings import (
    EpisodeOverError,
    ResetRequiredError,
    UnknownAgentError,
    short_repr,
)


class ActionsError(ArgumentError):
    """A parallel step's ``actions`` that are not a dict holding the acting agent's action (a
    ``ValueError`` and a ``TypeError``)."""


class TurnBasedParallelEnv(turn_based_aec_to_parallel_wrapper):  # type: ignore[misc]
    """PettingZoo's turn-based AEC → parallel conversion of ``aec_env``, its ``step`` checked
    (see the module docstring)."""

    def __init__(self, aec_env: AECEnv[str, dict[str, Any], int]):
        super().__init__(aec_env)
        self._has_reset = False

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """PettingZoo's ``reset`` (see :meth:`allfives_env.envs.aec.raw_env.reset`)."""
        out: tuple[dict[str, Any], dict[str, Any]] = super().reset(seed=seed, options=options)
        self._has_reset = True
        return out

    def step(
        self, actions: Mapping[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]]:
        """Apply the acting agent's action from ``actions``; return PettingZoo's five dicts
        (observations, rewards, terminations, truncations, infos).

        Raises:
            ResetRequiredError: before the first ``reset``.
            EpisodeOverError: once the episode has ended (no agent is left to act).
            UnknownAgentError: for a key that names no agent of this game.
            ActionsError: if ``actions`` is not a dict, or lacks the acting agent's action.
            ActionSpaceError, IllegalActionError: as the wrapped ``env()`` raises them (an
                action in the space but not in the mask ends the game, as ``env()`` does).
        """
        if not self._has_reset:
            raise ResetRequiredError("step() before reset(): call reset() first")
        if not isinstance(actions, Mapping):
            raise ActionsError(
                f"actions must be a dict of agent name to action id, not {short_repr(actions)}"
            )
        if not self.agents:
            raise EpisodeOverError(
                "step() after the episode ended: no agent is left to act; call reset()"
            )
        possible = self.possible_agents
        unknown = [a for a in actions if a not in possible]
        if unknown:
            raise UnknownAgentError(
                f"actions for no agent of this game: {short_repr(unknown)} (its agents: "
                f"{', '.join(possible)})"
            )
        acting = self.aec_env.agent_selection
        if acting not in actions:
            raise ActionsError(
                f"actions missing for agents {acting} (the agent to act; given: "
                f"{', '.join(actions) or 'none'})"
            )
        return super().step(actions)  # type: ignore[no-any-return]


def parallel(aec_env: AECEnv[str, dict[str, Any], int]) -> TurnBasedParallelEnv:
    """``aec_env`` (a wrapped ``env()``) through the checked turn-based conversion."""
    return TurnBasedParallelEnv(aec_env)


__all__ = ["ActionsError", "TurnBasedParallelEnv", "parallel"]
