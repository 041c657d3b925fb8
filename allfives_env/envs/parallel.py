"""The parallel API over the AEC environment: PettingZoo's turn-based conversion, with its
``step`` checked.

PettingZoo's ``turn_based_aec_to_parallel_wrapper`` reads ``actions[agent_selection]`` and
nothing else: a dict without the acting agent's action is a bare ``KeyError``, a step after the
episode ended returns four empty dicts instead of five, and a step before ``reset`` an
``AttributeError``. :class:`TurnBasedParallelEnv` is that wrapper with those calls refused by
typed errors that say what is wrong (nothing changes); every step it takes goes through
PettingZoo's own code.

The actions are a dict from agent names to action ids. Only the acting agent's action is
applied, so a dict with the acting agent's action alone will do, and so will one with an action
for every live agent, as PettingZoo's parallel API has it.

**Agents not on turn have one legal action, a no-op.** Their ``action_mask`` (in the
observation and in the info) allows ``pass`` alone (:attr:`allfives_env.envs.spaces.Encoding.
pass_`), and whatever action they are given is ignored. So a client that samples every live
agent's action from its mask (TorchRL's ``PettingZooWrapper(use_mask=True)``, a masked
categorical over all agents at once) always has something to sample; under ``env()`` the same
agents have an all-zero mask, as the AEC API has it. The mask of the agent to act is the game's
own, and a mask never reveals anything: it is the same for every agent not on turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
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
        size = int(aec_env.action_space(aec_env.possible_agents[0]).n)
        wait = np.zeros(size, np.int8)
        wait[aec_env.unwrapped.encoding.pass_] = 1
        wait.flags.writeable = False
        self.wait_mask = wait
        """The action mask of an agent not on turn: ``pass`` alone (read-only)."""

    def _waiting(self, observations: dict[str, Any], infos: dict[str, Any]) -> None:
        """Give every agent not on turn the no-op mask, in its observation and its info."""
        env = self.aec_env
        acting = env.agent_selection if env.agents else None
        for agent, obs in observations.items():
            if agent != acting and isinstance(obs, dict) and "action_mask" in obs:
                observations[agent] = {**obs, "action_mask": self.wait_mask}
        for agent in env.agents:
            info = infos.get(agent)
            if agent != acting and isinstance(info, dict) and "action_mask" in info:
                infos[agent] = {**info, "action_mask": self.wait_mask}

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """PettingZoo's ``reset`` (see :meth:`allfives_env.envs.aec.raw_env.reset`)."""
        observations, infos = super().reset(seed=seed, options=options)
        self._has_reset = True
        self._waiting(observations, infos)
        return observations, infos

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
        observations, rewards, terminations, truncations, infos = super().step(actions)
        self._waiting(observations, infos)
        return observations, rewards, terminations, truncations, infos


def parallel(aec_env: AECEnv[str, dict[str, Any], int]) -> TurnBasedParallelEnv:
    """``aec_env`` (a wrapped ``env()``) through the checked turn-based conversion."""
    return TurnBasedParallelEnv(aec_env)


__all__ = ["ActionsError", "TurnBasedParallelEnv", "parallel"]
