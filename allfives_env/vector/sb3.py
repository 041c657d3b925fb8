"""The batched single-agent game as a stable-baselines3 ``VecEnv``, masks included.

:class:`AllFivesVecEnv` runs a :class:`~allfives_env.vector.single_agent.LearnerBatch` behind
SB3's ``VecEnv`` interface: auto-reset with the finished episode's last observation in
``infos[i]["terminal_observation"]`` (and ``"TimeLimit.truncated"`` where ``max_cycles`` cut it),
and ``action_masks()`` — also through ``env_method("action_masks")``, which is what sb3-contrib's
``MaskablePPO`` calls — so it trains as it is::

    from sb3_contrib import MaskablePPO
    from allfives_env.vector.sb3 import AllFivesVecEnv

    venv = AllFivesVecEnv(64, opponents="greedy", reward="points+win", seed=0)
    MaskablePPO("MlpPolicy", venv, n_steps=64).learn(10_000)

Needs stable-baselines3 (the ``train`` extra).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from allfives_env.core.rules import Rules
from allfives_env.envs.settings import EnvSettings, ResetRequiredError, next_seed
from allfives_env.vector.single_agent import LearnerBatch
from allfives_env.vector.state import I8


class AllFivesVecEnv(VecEnv):
    """N games with one learner seat each, as an SB3 ``VecEnv`` (see the module docstring).

    Takes :class:`LearnerBatch`'s arguments (the settings :class:`EnvSettings`' fields, held as
    :attr:`settings`), and ``seed``: the seed of the first ``reset``
    (later ``reset`` calls count up from it; :meth:`seed` sets the next one).
    """

    def __init__(
        self,
        num_envs: int,
        rules: str | Rules | EnvSettings = "pagat",
        seed: int = 0,
        **kwargs: Any,
    ):
        self.batch = LearnerBatch(num_envs, rules, **kwargs)
        enc = self.batch.encoding
        low, high = enc.observation_bounds()
        super().__init__(
            num_envs,
            spaces.Box(low, high, dtype=np.float32),
            spaces.Discrete(enc.num_actions),
        )
        self._next_seed = next_seed(seed, None)
        self._actions: np.ndarray | None = None
        self._masks: I8 = np.zeros((num_envs, enc.num_actions), np.int8)

    @property
    def settings(self) -> EnvSettings:
        """What every game plays (its :class:`LearnerBatch`'s)."""
        return self.batch.settings

    def reset(self) -> np.ndarray:
        """Deal every game; return the learner's observations."""
        result = self.batch.reset(self._next_seed)
        self._next_seed = next_seed(None, self._next_seed)
        self._masks = result.masks
        return result.obs

    def step_async(self, actions: np.ndarray) -> None:
        """Remember the learner's actions for :meth:`step_wait`."""
        self._actions = actions

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Step every game; ended games are dealt again (SB3's auto-reset).

        Raises:
            ResetRequiredError: without a :meth:`step_async` since the last step.
            ActionArrayError, VectorActionError: for actions :meth:`LearnerBatch.step`
                refuses (nothing is stepped).
        """
        if self._actions is None:
            raise ResetRequiredError("step_wait() without step_async(actions) first")
        acts = np.asarray(self._actions)
        if acts.shape == (self.num_envs, 1):  # a policy's (N, 1): one action per game
            acts = acts.reshape(self.num_envs)
        r = self.batch.step(acts)  # checked there: shape, type, ids, masks
        self._actions = None
        self._masks = r.masks
        dones = r.terminated | r.truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones).tolist():
            infos[i]["terminal_observation"] = r.final_obs[i]
            infos[i]["TimeLimit.truncated"] = bool(r.truncated[i] and not r.terminated[i])
        return r.obs, r.rewards, dones, infos

    def action_masks(self) -> I8:
        """(N, num_actions) the learner's legal actions in each game now."""
        return self._masks

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seed the next :meth:`reset` (``None``: from fresh entropy, as SB3's own envs do).

        Raises:
            EnvConfigError: for a seed :func:`~allfives_env.envs.settings.check_seed` refuses.
        """
        self._next_seed = next_seed(seed, None)
        return [None] * self.num_envs

    def close(self) -> None:
        """Nothing to release."""

    def _indices(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        """``env_method("action_masks")``: each game's mask (what MaskablePPO asks for).

        Raises:
            AttributeError: for any other method (the games are not separate objects).
        """
        if method_name != "action_masks":
            raise AttributeError(f"AllFivesVecEnv has no per-game method {method_name!r}")
        return [self._masks[i] for i in self._indices(indices)]

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        """``render_mode`` (``None``) for each game; other attributes are not per game.

        Raises:
            AttributeError: for any other attribute.
        """
        if attr_name == "render_mode":
            return [None for _ in self._indices(indices)]
        raise AttributeError(f"AllFivesVecEnv has no per-game attribute {attr_name!r}")

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        """Per-game attributes cannot be set.

        Raises:
            AttributeError: always.
        """
        raise AttributeError(f"AllFivesVecEnv cannot set {attr_name!r} per game")

    def has_attr(self, attr_name: str) -> bool:
        """Whether the games have ``attr_name`` (only ``action_masks``)."""
        return attr_name == "action_masks"

    def env_is_wrapped(
        self, wrapper_class: type, indices: int | Iterable[int] | None = None
    ) -> list[bool]:
        """The games are not wrapped."""
        return [False for _ in self._indices(indices)]
