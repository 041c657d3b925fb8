"""The BenchMARL task: All Fives on :class:`~allfives_benchmarl.env.AllFivesTorchEnv`.

``AllFivesTask.PAGAT_2P.get_task()`` is the task BenchMARL's ``Experiment`` takes; its config is
an :class:`AllFivesTaskConfig` (the table, the reward, how long an evaluation rollout is), from
:data:`PRESETS` unless a config is given. The task is BenchMARL's own kind of environment
(``env_name() == "allfives"``): one group, ``"players"``, of one agent per seat; discrete
actions only; an ``action_mask`` per agent, which BenchMARL's discrete-action algorithms read
(MAPPO, IPPO, MASAC, ISAC, IQL mask their logits or Q values with it); no global state, so
MAPPO's centralised critic reads every seat's own observation (the actors never do).

The seats play against each other (zero-sum), so a centralised critic must not share its
parameters across the group (BenchMARL's default, ``share_param_critic=True``, gives every
seat the same value); QMIX and VDN, which learn the group's summed reward, learn nothing here.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from benchmarl.environments.common import Task, TaskClass
from torchrl.data import Composite
from torchrl.envs import EnvBase

from allfives_benchmarl.env import GROUP, AllFivesTorchEnv
from allfives_env.envs.settings import DEFAULT_MAX_CYCLES, EnvConfigError


@dataclass
class AllFivesTaskConfig:
    """The game a task plays (the arguments of :func:`allfives_env.env` of the same names)."""

    rules: str = "pagat"
    """A rules preset."""
    num_players: int = 2
    """2, 3 or 4 seats, all trained."""
    partnerships: bool | None = None
    """4 players in two sides (``None``: the preset's own)."""
    episode: str = "match"
    """``"match"`` or ``"hand"``."""
    reward: str = "win"
    """``"win"``, ``"points"`` or ``"points+win"``."""
    forced_actions: str = "auto"
    """``"auto"`` (forced draws and passes taken by the engine) or ``"explicit"``."""
    action_features: bool | str = False
    """The observation's per-action blocks, as :class:`~allfives_env.envs.spaces.Encoding`."""
    max_cycles: int = DEFAULT_MAX_CYCLES
    """Truncate an episode after this many steps."""
    max_steps: int = 500
    """The steps of one of BenchMARL's evaluation rollouts (a pagat match of two players takes
    about 270 steps of random play)."""

    def env_kwargs(self) -> dict[str, Any]:
        """The keyword arguments of :class:`AllFivesTorchEnv` (all but ``num_envs``)."""
        kwargs = dataclasses.asdict(self)
        kwargs.pop("max_steps")
        return kwargs

    @classmethod
    def from_dict(cls, config: dict[str, Any]) -> AllFivesTaskConfig:
        """Read a task config dict; unknown keys are an error.

        Raises:
            EnvConfigError: for an unknown key.
        """
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(config) - known)
        if unknown:
            raise EnvConfigError(
                f"unknown All Fives task config keys: {', '.join(unknown)} "
                f"(known: {', '.join(sorted(known))})"
            )
        return cls(**config)


PRESETS: dict[str, AllFivesTaskConfig] = {
    "PAGAT_2P": AllFivesTaskConfig("pagat", 2),
    "PAGAT_3P": AllFivesTaskConfig("pagat", 3),
    "PAGAT_4P": AllFivesTaskConfig("pagat", 4),
}
"""The default config of each :class:`AllFivesTask` member."""


class AllFivesTaskClass(TaskClass):  # type: ignore[misc]
    """Builds :class:`AllFivesTorchEnv` for BenchMARL and names its specs (see the module
    docstring). ``config`` is a dict of :class:`AllFivesTaskConfig` fields."""

    def _config(self) -> AllFivesTaskConfig:
        return AllFivesTaskConfig.from_dict(copy.deepcopy(dict(self.config)))

    def get_env_fun(
        self, num_envs: int, continuous_actions: bool, seed: int | None, device: Any
    ) -> Callable[[], EnvBase]:
        """A factory of the batched env of ``num_envs`` games, seeded with ``seed``."""
        kwargs = self._config().env_kwargs()
        return lambda: AllFivesTorchEnv(num_envs, seed=seed, device=device, **kwargs)

    def supports_continuous_actions(self) -> bool:
        return False

    def supports_discrete_actions(self) -> bool:
        return True

    def max_steps(self, env: EnvBase) -> int:
        return self._config().max_steps

    def has_render(self, env: EnvBase) -> bool:
        return False

    def group_map(self, env: EnvBase) -> dict[str, list[str]]:
        return dict(env.group_map)

    def _only(self, env: EnvBase, key: str) -> Composite:
        """The group's entry ``key`` of one game's observation spec (BenchMARL's specs have
        no batch dimension)."""
        spec = env.full_observation_spec_unbatched.clone()
        group = spec[GROUP]
        for k in list(group.keys()):
            if k != key:
                del group[k]
        return spec

    def observation_spec(self, env: EnvBase) -> Composite:
        """Each agent's observation (its own, see :mod:`allfives_benchmarl.env`)."""
        return self._only(env, "observation")

    def action_mask_spec(self, env: EnvBase) -> Composite:
        """Each agent's action mask."""
        return self._only(env, "action_mask")

    def info_spec(self, env: EnvBase) -> Composite | None:
        return None

    def state_spec(self, env: EnvBase) -> Composite | None:
        return None

    def action_spec(self, env: EnvBase) -> Composite:
        return env.full_action_spec_unbatched

    @staticmethod
    def env_name() -> str:
        return "allfives"


class AllFivesTask(Task):  # type: ignore[misc]
    """The All Fives tables; ``get_task()`` gives the :data:`PRESETS` config, ``get_task(
    config)`` another (a dict of :class:`AllFivesTaskConfig` fields)."""

    PAGAT_2P = None
    PAGAT_3P = None
    PAGAT_4P = None

    @staticmethod
    def associated_class() -> type[AllFivesTaskClass]:
        return AllFivesTaskClass

    def get_task(self, config: dict[str, Any] | None = None) -> AllFivesTaskClass:
        """The task with ``config`` (default: this member's preset).

        Raises:
            EnvConfigError: for an unknown config key.
        """
        if config is None:
            config = dataclasses.asdict(PRESETS[self.name])
        AllFivesTaskConfig.from_dict(config)
        return AllFivesTaskClass(name=self.name, config=dict(config))
