"""PettingZoo's standard AEC wrappers, with the hot attributes forwarded directly.

``TerminateIllegalWrapper``, ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper`` are used
unchanged in behaviour (these classes subclass them). PettingZoo's ``BaseWrapper`` reaches the
wrapped environment's attributes through ``__getattr__`` one layer at a time, which costs more
than a whole game step here; the subclasses read the seven attributes an AEC loop touches on
every step (``agent_selection``, ``agents``, ``terminations``, ``truncations``, ``rewards``,
``infos``, ``_cumulative_rewards``) straight from the unwrapped environment. Everything else
goes through PettingZoo's own code, and so does every check the wrappers make, with one
change: ``AssertOutOfBoundsWrapper``'s check of the action raises a typed
:class:`~allfives_env.envs.settings.ActionSpaceError` (an ``AssertionError`` too, as before)
instead of an ``assert``, which ``python -O`` would drop.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers as pz

from allfives_env.envs.settings import ActionSpaceError, done_agent_error, short_repr

FORWARDED = (
    "agent_selection",
    "agents",
    "terminations",
    "truncations",
    "rewards",
    "infos",
    "_cumulative_rewards",
)


class _NotReset:
    """Stands in for the environment before ``reset``: every attribute is missing, so reads fall
    through to ``OrderEnforcingWrapper.__getattr__``, which raises its "before reset" error."""

    __slots__ = ()


def _forward(name: str) -> property:
    return property(attrgetter(f"_base.{name}"), doc=f"The wrapped environment's ``{name}``.")


class TerminateIllegalWrapper(pz.TerminateIllegalWrapper):  # type: ignore[misc]
    """PettingZoo's ``TerminateIllegalWrapper`` with direct attribute forwarding."""

    def __init__(self, env: AECEnv, illegal_reward: float):
        self._base = env.unwrapped
        super().__init__(env, illegal_reward)


class AssertOutOfBoundsWrapper(pz.AssertOutOfBoundsWrapper):  # type: ignore[misc]
    """PettingZoo's ``AssertOutOfBoundsWrapper`` with direct attribute forwarding, its check
    raising a typed error."""

    def __init__(self, env: AECEnv):
        self._base = env.unwrapped
        super().__init__(env)

    def step(self, action: Any) -> None:
        """PettingZoo's check, then the step: ``action`` must be in the acting agent's action
        space, or ``None`` for an agent that is done (which only ``None`` may move on).

        Raises:
            ActionSpaceError: for an action outside the space (a bool, a float, text, a
                number out of range, ``None`` for a live agent); nothing changes.
            IllegalActionError: for an action other than ``None`` for an agent that is done.
        """
        base = self._base
        if base.agents:  # (with none left, the env itself says the episode is over)
            agent = base.agent_selection
            terminated, truncated = base.terminations[agent], base.truncations[agent]
            if terminated or truncated:
                if action is not None:
                    raise done_agent_error(agent, terminated, action)
            elif not self.action_space(agent).contains(action):
                mask = base.infos[agent]["action_mask"]
                legal = [int(a) for a in np.flatnonzero(mask)]
                raise ActionSpaceError(
                    f"action {short_repr(action)} for {agent} is not in its action space (an "
                    f"int from 0 to {self.action_space(agent).n - 1}; legal now: {legal})",
                    action,
                    base.game.current_player,
                    legal,
                )
        pz.BaseWrapper.step(self, action)


class OrderEnforcingWrapper(pz.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's ``OrderEnforcingWrapper`` with direct attribute forwarding after reset."""

    def __init__(self, env: AECEnv):
        self._base: Any = _NotReset()
        super().__init__(env)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """PettingZoo's reset; from now on the hot attributes are read directly."""
        super().reset(seed=seed, options=options)
        self._base = self.env.unwrapped


for _name in FORWARDED:
    for _cls in (TerminateIllegalWrapper, AssertOutOfBoundsWrapper, OrderEnforcingWrapper):
        setattr(_cls, _name, _forward(_name))
