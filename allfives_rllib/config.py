"""The RLlib trainer's config: the vocabulary of ``train.py``'s, plus the cluster's settings.

``configs/*.yaml`` files that hold only the shared fields (the game, the PPO coefficients, the
evaluation) run with either trainer; a field that only ``train.py`` has (its imitation warm
start, its baseline pool, its batched-engine table) is refused by name, as is an unknown one.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.training import config as train_config
from agents.training.config import ConfigError, Settings, check_agent_specs, raise_first
from agents.training.curve import points_check

__all__ = ["ENGINES", "TRAIN_PY_ONLY", "ConfigError", "RLlibConfig", "load_yaml"]

ENGINES = ("batched", "aec")
"""What the env runners step: the learner's table on the batched engine, or the AEC env."""

TRAIN_PY_ONLY = (
    "num_envs", "num_minibatches", "imitation_refit_epochs", "teacher_prob",
    "start_scores", "imitation_targets", "imitation_temperature", "imitation_anneal_lr",
    "teacher_processes",
)  # fmt: skip
"""Fields of ``train.py``'s config that the RLlib trainer has no use for."""


@dataclass
class RLlibConfig(Settings):
    """Every setting of an RLlib self-play run (``configs/*.yaml`` use these names): the shared
    :class:`~agents.training.config.Settings` (some with defaults of their own here) and the
    cluster's."""

    engine: str = "batched"
    """``batched``: the learner's table on the batched engine, as ``train.py`` plays it (the
    learner at one seat of each game, the heuristic and greedy inside the batch beside its own
    snapshots; ``train.py``'s network; a warm start imitating the heuristic). ``aec``: the AEC
    environment, every seat a module, in pure self-play against a league of snapshots."""
    total_timesteps: int = 5_000_000
    """Environment steps to train for, after the warm start (``batched``: the learner's moves;
    ``aec``: every seat's)."""
    snapshot_every: int = 400_000
    """At least this many env steps between two snapshots."""
    eval_matches: int = 200
    """Matches per opponent in each periodic evaluation."""
    train_batch_size: int = 16_384
    """Environment steps per training iteration (per learner)."""
    minibatch_size: int = 2048
    """SGD minibatch size."""
    num_env_runners: int = 0
    """Remote env runners (processes, on any node of the cluster); 0 samples in the driver."""
    num_envs_per_env_runner: int = 256
    """Games each env runner plays side by side (``batched``: in one vector env)."""
    num_learners: int = 0
    """Remote learners (0: learn in the driver process)."""
    snapshot_win_rate: float = 0.55
    """A snapshot is added once the main module wins this often against the league."""
    checkpoint_every: int = 10
    """Training iterations between checkpoints (also written at evaluations and the end)."""
    anneal_lr: bool = True
    """The learning rate falls linearly to 0 over ``total_timesteps``."""
    num_steps: int = 64
    """``batched``: steps each game plays per rollout of the warm start. PPO's rollouts share
    ``train_batch_size`` among the env runners' games (each plays ``train_batch_size /
    (num_env_runners · num_envs_per_env_runner)`` steps an iteration)."""
    context_dim: int = 32
    """``batched``: the network's context size (``train.py``'s)."""
    feature_arch: list[int] = field(default_factory=list)
    """``batched``: hidden sizes of the per-placement network before its last layer."""
    tile_features: bool = False
    """``batched``: each placement's features also say which tile goes on which slot."""
    baselines: list[str] = field(default_factory=lambda: ["heuristic", "heuristic", "greedy"])
    """``batched``: the agents drawn for the other seats of the table (compiled ones play
    inside the batch). Empty only with ``baseline_prob`` 0 and no warm start: the learner then
    meets only its own snapshots (the first taken as PPO begins)."""
    baseline_prob: float = 1.0
    """``batched``: the chance a seat is drawn from the baselines (else from the snapshots)."""
    imitation_samples: int = 500_000
    """``batched``: learner steps of the warm start imitating ``imitation_teacher`` before
    PPO (0: none)."""
    imitation_epochs: int = 2
    """``batched``: passes over each rollout of the warm start."""
    imitation_teacher: str = "heuristic"
    """``batched``: the agent the warm start imitates."""
    curve_points: int = 0
    """Points of the learning curve (0-1000; 0: none): the module being trained is saved at the
    first iteration boundary at or after each of ``total_timesteps·k/curve_points`` env steps,
    into ``curve/`` of the run folder (:mod:`allfives_rllib.curve`)."""

    def env_config(self) -> dict[str, Any]:
        """The env config dict of :class:`allfives_rllib.env.AllFivesMultiAgentEnv`: the preset
        by name, or, on a smaller set, a hand size or a target of its own, the whole rules."""
        if (self.max_pip, self.hand_size, self.target) == (6, 0, 0):
            game: dict[str, Any] = {
                "preset": self.preset,
                "num_players": self.num_players,
                "partnerships": self.partnerships,
            }
        else:
            game = {"rules": dataclasses.asdict(self.rules())}
        return {
            **game,
            "episode": self.episode,
            "reward": self.reward,
            "forced_actions": self.forced_actions,
            "action_features": self.action_features,
            "critic_state": self.critic_state,
        }

    def table_games(self) -> int:
        """``batched``: the games every env runner plays together (the driver's when there
        are no remote env runners); an iteration plays ``train_batch_size / table_games()``
        steps of each."""
        return max(1, self.num_env_runners) * self.num_envs_per_env_runner

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
            at_least_0=("num_env_runners", "num_learners", "imitation_samples"),
            unit=("snapshot_win_rate", "baseline_prob"),
        )  # fmt: skip
        checks.append((self.engine in ENGINES, "engine", f"one of {', '.join(ENGINES)}"))
        checks.append((self.num_steps >= 1, "num_steps", "at least 1"))
        checks.append((self.context_dim >= 1, "context_dim", "at least 1"))
        checks.append((self.imitation_epochs >= 1, "imitation_epochs", "at least 1"))
        checks.append(points_check(self.curve_points))
        checks.append(
            (
                bool(self.baselines) or self.baseline_prob == 0,
                "baselines",
                "at least one agent unless baseline_prob is 0 (then the other seats are the "
                "learner's snapshots only)",
            )
        )
        checks.append(
            (
                bool(self.baselines) or self.engine == "aec" or self.imitation_samples == 0,
                "imitation_samples",
                "0 with no baselines (the warm start's table seats only baselines)",
            )
        )
        sizes = all(s >= 1 for s in self.feature_arch)
        checks.append((sizes, "feature_arch", "sizes of at least 1"))
        checks.append(
            (
                self.engine == "aec" or self.action_features != "basic",
                "action_features",
                "outlook or lookahead with engine batched (its network scores each placement's "
                "outlook)",
            )
        )
        checks.append(
            (
                self.minibatch_size <= self.train_batch_size,
                "minibatch_size",
                "at most train_batch_size",
            )
        )
        games = self.table_games()
        checks.append(
            (
                self.engine == "aec" or self.train_batch_size >= games,
                "train_batch_size",
                f"at least one step of every env runner's games ({games:,}) with engine batched",
            )
        )
        raise_first(self, checks)
        check_agent_specs(self, ("eval_opponents", "baselines", "imitation_teacher"))


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
