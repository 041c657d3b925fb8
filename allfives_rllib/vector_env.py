"""The learner's table on the batched engine, as RLlib's single-agent env runners step it.

RLlib's ``SingleAgentEnvRunner`` builds its env with ``gymnasium.make_vec`` and, with
``gym_env_vectorize_mode="vector_entry_point"``, takes a vector env of the user's whole: here
:class:`TableVectorEnv`, ``num_envs_per_env_runner`` games of one
:class:`~allfives_env.vector.single_agent.LearnerBatch`, stepped in one call of the compiled
kernels. It is the table ``train.py`` plays at (:mod:`agents.training.table`): the learner at
one seat of each game, drawn every episode; every other seat (the partner too) drawn each
episode from the baselines (the compiled heuristic and greedy, inside the batch) and the
learner's frozen snapshots, which the trainer sends to every env runner
(:meth:`TableVectorEnv.add_snapshot`).

What RLlib's runner expects, and :class:`allfives_env.vector.single_agent.AllFivesVectorEnv`
does not do:

- **next-step autoreset**: the step that ends an episode returns its last observation (with
  ``terminated``/``truncated``); the next step returns the next episode's first observation,
  reward 0, whatever action it is given (that game does not move:
  :meth:`LearnerBatch.step`'s ``wait``);
- **the mask inside the observation**: a dict ``{"observations", "action_mask"}``, and with
  ``critic_state`` ``"state"`` too (every hand and the boneyard, and the learner's seat
  one-hot: what ``train.py``'s critic reads). The actor never reads ``"state"``; at an
  episode's last observation it is zeros (the state there is not kept; PPO reads the value
  of a last observation only where the episode was cut short).

Randomness: game ``i`` of a runner deals from ``(seed, i)``, ``seed`` being what RLlib's
runner gives the first :meth:`~TableVectorEnv.reset` (the run's seed and the runner's index).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from agents.learned import PolicySpec
from agents.training.table import Pool
from allfives_env.core.rules import Rules
from allfives_env.envs.settings import EnvConfigError, EnvSettings, next_seed
from allfives_env.vector.single_agent import LearnerBatch, learner_state_size
from allfives_env.vector.state import F32, BoolArray

KEYS = frozenset(
    {
        "rules", "episode", "reward", "forced_actions", "action_features", "critic_state",
        "baselines", "baseline_prob", "pool_size", "start_scores", "num_envs",
    }
)  # fmt: skip
"""The env config keys :class:`TableVectorEnv` reads (RLlib adds its own, passed over)."""


@dataclass
class TableSettings:
    """Who sits at the table (:class:`agents.training.table.Pool`'s settings)."""

    baselines: list[str] = field(default_factory=lambda: ["heuristic", "heuristic", "greedy"])
    baseline_prob: float = 1.0
    pool_size: int = 8


class TableVectorEnv(VectorEnv[dict[str, Any], Any, Any]):
    """``num_envs`` games of the learner's table (see the module docstring).

    ``config`` keys: ``num_envs``; ``rules`` (a :class:`Rules` as a dict of its fields);
    ``episode``, ``reward``, ``forced_actions``, ``action_features`` as for
    :func:`allfives_env.env` (with ``rules``, :class:`EnvSettings`' fields, held as
    :attr:`settings`); ``critic_state``; ``baselines``, ``baseline_prob``, ``pool_size`` (the
    table's); ``start_scores`` (as :class:`LearnerBatch`'s).

    Raises:
        EnvConfigError: for a missing or bad key.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012
    steps_in_process = 0
    """Learner steps taken by every table of this process (the trainer's report reads it)."""

    def __init__(self, config: dict[str, Any]):
        try:
            rules = Rules(**config["rules"])
            num_envs = int(config["num_envs"])
        except (KeyError, TypeError, ValueError) as e:
            raise EnvConfigError(f"the table's env config needs 'rules' and 'num_envs': {e}") from e
        self.settings = EnvSettings.of(
            rules,
            episode=config.get("episode", "match"),
            reward=config.get("reward", "points+win"),
            forced_actions=config.get("forced_actions", "auto"),
            action_features=config.get("action_features", "outlook"),
        )
        """What every game plays."""
        table = TableSettings(
            list(config.get("baselines", TableSettings().baselines)),
            float(config.get("baseline_prob", 1.0)),
            int(config.get("pool_size", 8)),
        )
        self.pool = Pool(table, PolicySpec(rules, self.settings.action_features))
        self.batch = LearnerBatch(
            num_envs,
            self.settings,
            opponents="random",  # replaced by the pool's picks
            start_scores=float(config.get("start_scores", 0.0)),
        )
        self.batch.set_lineup(self.pool.agents, self.pool.pick)
        self.critic_state = bool(config.get("critic_state", False))
        enc = self.batch.encoding
        low, high = enc.observation_bounds()
        n_actions = enc.num_actions
        obs_spaces: dict[str, spaces.Space[Any]] = {
            "observations": spaces.Box(low, high, dtype=np.float32),
            "action_mask": spaces.Box(0.0, 1.0, (n_actions,), np.float32),
        }
        self.state_size = learner_state_size(enc) if self.critic_state else 0
        if self.critic_state:
            obs_spaces["state"] = spaces.Box(-np.inf, np.inf, (self.state_size,), np.float32)
        self.num_envs = num_envs
        self.single_observation_space = spaces.Dict(obs_spaces)
        self.single_action_space = spaces.Discrete(n_actions)
        self.observation_space = gym.vector.utils.batch_space(
            self.single_observation_space, num_envs
        )
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, num_envs)
        self._waiting: BoolArray = np.zeros(num_envs, bool)
        self._seed: int | None = None

    def add_snapshot(self, policy: Any) -> None:
        """Seat the learner's frozen ``policy`` (an :class:`agents.numpy_networks.ScorerPolicy`)
        at the table from the next episodes on."""
        self.pool.add(policy)
        self.batch.set_lineup(self.pool.agents, self.pool.pick)

    def _observe(self, obs: F32, masks: Any, done: BoolArray | None) -> dict[str, Any]:
        out: dict[str, Any] = {"observations": obs, "action_mask": masks.astype(np.float32)}
        if self.critic_state:
            state = self.batch.learner_state()
            if done is not None:
                state[done] = 0.0
            out["state"] = state
        return out

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Deal every game (game ``i`` from ``(seed, i)``; without a seed, the last one plus
        one). ``options`` is not used.

        Raises:
            EnvConfigError: for a seed :func:`~allfives_env.envs.settings.check_seed` refuses.
        """
        self._seed = next_seed(seed, self._seed)
        r = self.batch.reset(self._seed)
        self._waiting[:] = False
        return self._observe(r.obs, r.masks, None), {}

    def step(
        self, actions: Any
    ) -> tuple[dict[str, Any], F32, BoolArray, BoolArray, dict[str, Any]]:
        """The learner acts in every game but those whose episode ended in the last step
        (those return their next episode's first observation, reward 0)."""
        r = self.batch.step(actions, wait=self._waiting)
        done = r.terminated | r.truncated
        obs = np.where(done[:, None], r.final_obs, r.obs)
        masks = np.where(done[:, None], 0, r.masks)
        TableVectorEnv.steps_in_process += int((~self._waiting).sum())
        self._waiting = done
        return self._observe(obs, masks, done), r.rewards, r.terminated, r.truncated, {}
