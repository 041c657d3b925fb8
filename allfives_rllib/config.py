"""The RLlib trainer's config: the vocabulary of ``train.py``'s, plus the cluster's settings.

``configs/*.yaml`` files that hold only the shared fields (the game, the PPO coefficients, the
evaluation) run with either trainer; a field that only ``train.py`` has (its imitation warm
start, its baseline pool, its batched-engine table) is refused by name, as is an unknown one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.training import config as train_config
from agents.training.config import ConfigError, Settings, check_agent_specs, raise_first

__all__ = ["TRAIN_PY_ONLY", "ConfigError", "RLlibConfig", "load_yaml"]

TRAIN_PY_ONLY = (
    "num_envs", "num_steps", "num_minibatches", "anneal_lr", "context_dim", "feature_arch",
    "tile_features", "imitation_samples", "imitation_epochs", "imitation_refit_epochs",
    "imitation_teacher", "teacher_prob", "start_scores", "imitation_targets",
    "imitation_temperature", "imitation_anneal_lr", "teacher_processes", "baselines",
    "baseline_prob",
)  # fmt: skip
"""Fields of ``train.py``'s config that the RLlib trainer has no use for."""


@dataclass
class RLlibConfig(Settings):
    """Every setting of an RLlib self-play run (``configs/*.yaml`` use these names): the shared
    :class:`~agents.training.config.Settings` (some with defaults of their own here) and the
    cluster's."""

    total_timesteps: int = 1_400_000
    """Environment steps to train for (every seat's moves)."""
    learning_rate: float = 3e-4
    """Adam's step size."""
    actor_arch: list[int] = field(default_factory=lambda: [256, 256])
    """Hidden sizes of the actor."""
    critic_arch: list[int] = field(default_factory=lambda: [256, 256])
    """Hidden sizes of the critic."""
    critic_state: bool = False
    """A centralized critic (MAPPO): the value function also reads the env's global state
    (training only; the actor never sees it)."""
    snapshot_every: int = 200_000
    """At least this many env steps between two snapshots."""
    eval_every: int = 500_000
    """Env steps between evaluations with the duplicate-deal evaluator."""
    eval_matches: int = 200
    """Matches per opponent in each periodic evaluation."""
    torch_threads: int = 1
    """Threads per torch process (the driver's learner and each env runner)."""
    train_batch_size: int = 8192
    """Environment steps per training iteration (per learner)."""
    minibatch_size: int = 1024
    """SGD minibatch size."""
    num_env_runners: int = 2
    """Remote env runners (processes, on any node of the cluster); 0 samples in the driver."""
    num_envs_per_env_runner: int = 8
    """Games each env runner plays side by side."""
    num_learners: int = 0
    """Remote learners (0: learn in the driver process)."""
    snapshot_win_rate: float = 0.55
    """A snapshot is added once the main module wins this often against the league."""
    checkpoint_every: int = 10
    """Training iterations between checkpoints (also written at evaluations and the end)."""

    def env_config(self) -> dict[str, Any]:
        """The env config dict of :class:`allfives_rllib.env.AllFivesMultiAgentEnv`."""
        return {
            "preset": self.preset,
            "num_players": self.num_players,
            "partnerships": self.partnerships,
            "episode": self.episode,
            "reward": self.reward,
            "forced_actions": self.forced_actions,
            "action_features": self.action_features,
            "critic_state": self.critic_state,
        }

    def check(self) -> None:
        """Validate every field before anything runs (the opponents named are made once).

        Raises:
            ConfigError: naming the first bad field.
        """
        checks = self.checks(
            seed_limit=2**31,
            at_least_1=(
                "total_timesteps", "train_batch_size", "minibatch_size",
                "num_envs_per_env_runner", "checkpoint_every",
            ),
            at_least_0=("num_env_runners", "num_learners"),
            unit=("snapshot_win_rate",),
        )  # fmt: skip
        checks.append(
            (
                self.minibatch_size <= self.train_batch_size,
                "minibatch_size",
                "at most train_batch_size",
            )
        )
        raise_first(self, checks)
        check_agent_specs(self, ("eval_opponents",))


def load_yaml(path: Path) -> RLlibConfig:
    """The default config updated by the YAML file at ``path``.

    Raises:
        ConfigError: if the file cannot be read, is not a mapping, or names a key this trainer
            does not know (a ``train.py``-only key is named as such).
    """
    refused = {
        key: "a train.py setting that the RLlib trainer does not use (remove it, or train with "
        "train.py)"
        for key in TRAIN_PY_ONLY
    }
    return train_config.load_yaml(path, RLlibConfig(), refused)
