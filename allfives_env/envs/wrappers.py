"""PettingZoo's standard AEC wrappers, with the hot attributes forwarded directly.

``TerminateIllegalWrapper``, ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper`` are used
unchanged in behaviour (these classes subclass them). PettingZoo's ``BaseWrapper`` reaches the
wrapped environment's attributes through ``__getattr__`` one layer at a time, which costs more
than a whole game step here; the subclasses read the seven attributes an AEC loop touches on
every step (``agent_selection``, ``agents``, ``terminations``, ``truncations``, ``rewards``,
``infos``, ``_cumulative_rewards``) straight from the unwrapped environment. Everything else —
including every check the wrappers make — goes through PettingZoo's own code.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers as pz

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
    """PettingZoo's ``AssertOutOfBoundsWrapper`` with direct attribute forwarding."""

    def __init__(self, env: AECEnv):
        self._base = env.unwrapped
        super().__init__(env)


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
