"""The BenchMARL task: All Fives on :class:`~allfives_benchmarl.env.AllFivesTorchEnv`.

``AllFivesTask.PAGAT_2P.get_task()`` is the task BenchMARL's ``Experiment`` takes; its config is
an :class:`AllFivesTaskConfig` (the table, the reward, how long an evaluation rollout is), from
:data:`PRESETS` unless a config is given. There is a task for every preset and player count,
``PRESET_NP`` (``PAGAT_2P`` … ``FIVE_UP_4P``), each with the preset's own seating.

The task is BenchMARL's own kind of environment (``env_name() == "allfives"``): discrete
actions only; an ``action_mask`` per agent, which BenchMARL's discrete-action algorithms read
(MAPPO, IPPO, MASAC, ISAC, IQL, QMIX, VDN mask their logits or Q values with it); no global
state, so a centralised critic or mixer reads every seat's own observation in its group (the
actors never do). Its groups (:func:`agents.training.groups.seat_groups`):

- each for himself: one group, ``"players"``, of seats that play against each other
  (zero-sum). A centralised critic must then not share its parameters across the group
  (BenchMARL's default, ``share_param_critic=True``, gives every seat the same value), and
  QMIX and VDN, which learn the group's summed reward (zero here), learn nothing:
  :func:`check_algorithm` refuses them;
- 4 players in partnerships (``PAGAT_4P``, ``SPRUCE_4P``, ``FIVE_UP_4P``): one group per team,
  ``"team_0"`` and ``"team_1"``, each seat rewarded with its team's reward, so QMIX, VDN and
  MAPPO's team critic learn what they are built for; the two teams train side by side, each its
  own policy.
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

from agents.training.groups import seat_groups, summed_over_opponents
from allfives_benchmarl.env import AllFivesTorchEnv
from allfives_env.core.rules import Rules
from allfives_env.envs.settings import DEFAULT_MAX_CYCLES, EnvConfigError, EnvSettings, rules_of


@dataclass
class AllFivesTaskConfig:
    """The game a task plays (the arguments of :func:`allfives_env.env` of the same names)."""

    rules: str = "pagat"
    """A rules preset."""
    num_players: int = 2
    """2, 3 or 4 seats, all trained."""
    partnerships: bool | None = None
    """4 players in two sides (``None``: the preset's own)."""
    max_pip: int = 6
    """The set: double-N, N from 2 to 6 (the 28 tiles)."""
    hand_size: int = 0
    """Tiles dealt to each seat (0: the preset's own; a smaller set needs fewer)."""
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
    teams: bool | None = None
    """One group per team in partnerships (``None``, ``True``), or one group of all seats
    (``False``); see :func:`agents.training.groups.seat_groups`."""

    def table(self) -> Rules:
        """The rules this config plays (:func:`rules_of`: the preset's, on the set of
        :attr:`max_pip`, with :attr:`hand_size` where it is set).

        Raises:
            RulesError: for rules the engine refuses (a hand that does not fit the set).
        """
        return rules_of(
            self.rules,
            self.num_players,
            self.partnerships,
            max_pip=self.max_pip,
            hand_size=self.hand_size or None,
        )

    def settings(self) -> EnvSettings:
        """The settings of this config's environment: :meth:`table` and the fields of
        :class:`EnvSettings`' names.

        Raises:
            RulesError: for rules the engine refuses; an :class:`EnvConfigError` for a bad
                setting (:meth:`EnvSettings.of`).
        """
        return EnvSettings.of(
            self.table(),
            episode=self.episode,
            reward=self.reward,
            forced_actions=self.forced_actions,
            action_features=self.action_features,
            max_cycles=self.max_cycles,
        )

    def groups(self) -> dict[str, list[int]]:
        """Its agent groups' seats."""
        return seat_groups(self.table(), self.teams)

    def env_kwargs(self) -> dict[str, Any]:
        """The keyword arguments of :class:`AllFivesTorchEnv` (all but ``num_envs``): the
        :meth:`settings` as ``rules``, and ``teams``.

        Raises:
            RulesError: as :meth:`settings`.
        """
        return {"rules": self.settings(), "teams": self.teams}

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


TABLE_PRESETS = ("pagat", "spruce", "dominoes_cc", "pyatyorka", "five_up")
PRESETS: dict[str, AllFivesTaskConfig] = {
    f"{preset.upper()}_{n}P": AllFivesTaskConfig(preset, n)
    for preset in TABLE_PRESETS
    for n in (2, 3, 4)
}
"""The default config of each :class:`AllFivesTask` member: every preset and player count."""


def check_algorithm(algorithm: str, config: AllFivesTaskConfig, task: str = "this task") -> None:
    """Refuse an algorithm whose assumptions the task breaks: QMIX or VDN on a group of
    opponents (its summed reward is zero, so there is nothing to learn; the rule of
    :func:`agents.training.groups.summed_over_opponents`).

    Raises:
        EnvConfigError: one line, naming the algorithm, the task and what to use instead.
    """
    bad = summed_over_opponents(algorithm, config.table(), config.teams)
    if bad is not None:
        raise EnvConfigError(
            f"{algorithm} learns its group's summed reward, and in {task} the group "
            f"{bad!r} holds opponents, whose rewards sum to zero: use a partnership task "
            "(PAGAT_4P, SPRUCE_4P, FIVE_UP_4P) or an algorithm without a mixer (mappo, ippo, "
            "masac, isac, iql)"
        )


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
        """Each group's entry ``key`` of one game's observation spec (BenchMARL's specs have
        no batch dimension)."""
        spec = env.full_observation_spec_unbatched.clone()
        for name in env.group_map:
            group = spec[name]
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
    """The All Fives tables, one per preset and player count; ``get_task()`` gives the
    :data:`PRESETS` config, ``get_task(config)`` another (a dict of
    :class:`AllFivesTaskConfig` fields)."""

    PAGAT_2P = None
    PAGAT_3P = None
    PAGAT_4P = None
    SPRUCE_2P = None
    SPRUCE_3P = None
    SPRUCE_4P = None
    DOMINOES_CC_2P = None
    DOMINOES_CC_3P = None
    DOMINOES_CC_4P = None
    PYATYORKA_2P = None
    PYATYORKA_3P = None
    PYATYORKA_4P = None
    FIVE_UP_2P = None
    FIVE_UP_3P = None
    FIVE_UP_4P = None

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
        AllFivesTaskConfig.from_dict(config).groups()
        return AllFivesTaskClass(name=self.name, config=dict(config))
