"""The RLlib trainer's config: the vocabulary of ``train.py``'s, plus the cluster's settings.

``configs/*.yaml`` files that hold only the shared fields (the game, the PPO coefficients, the
evaluation) run with either trainer; a field that only ``train.py`` has (its imitation warm
start, its baseline pool, its batched-engine table) is refused by name, as is an unknown one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents import train_config
from agents.train_config import (
    ConfigError,
    check_agent_specs,
    check_types,
    common_checks,
    raise_first,
)
from allfives_env.core.rules import Rules

__all__ = ["TRAIN_PY_ONLY", "ConfigError", "RLlibConfig", "load_yaml"]

TRAIN_PY_ONLY = (
    "num_envs", "num_steps", "num_minibatches", "anneal_lr", "context_dim", "feature_arch",
    "tile_features", "fused_features", "imitation_samples", "imitation_epochs", "imitation_replay",
    "imitation_refit_epochs", "imitation_teacher", "teacher_prob", "baselines", "baseline_prob",
    "engine_threads",
)  # fmt: skip
"""Fields of ``train.py``'s config that the RLlib trainer has no use for."""


@dataclass
class RLlibConfig:
    """Every setting of an RLlib self-play run (``configs/*.yaml`` use these names)."""

    name: str = "default"
    """The run's name: its folder is ``<runs>/rllib/<name>``."""
    preset: str = "pagat"
    """The rules preset."""
    num_players: int = 2
    """2, 3 or 4 players."""
    partnerships: bool | None = None
    """With 4 players: partnerships (True) or each for himself (False); None: the preset's."""
    episode: str = "match"
    """An episode is a ``match`` or one ``hand``."""
    reward: str = "points+win"
    """The reward mode of the environment (``win``, ``points`` or ``points+win``)."""
    forced_actions: str = "auto"
    """``auto``: forced draws and passes are taken for the players; ``explicit``: by them."""
    action_features: str = "outlook"
    """Per-action blocks of the observation: ``basic`` or ``outlook``."""
    total_timesteps: int = 1_400_000
    """Environment steps to train for (every seat's moves)."""
    seed: int = 0
    """Seeds RLlib (its env runners, modules, sampling) and the league's draws."""
    learning_rate: float = 3e-4
    """Adam's step size."""
    gamma: float = 1.0
    """Discount."""
    gae_lambda: float = 0.95
    """GAE's lambda."""
    clip_coef: float = 0.2
    """PPO's clip range."""
    ent_coef: float = 0.01
    """Entropy bonus."""
    vf_coef: float = 0.5
    """Value loss coefficient."""
    max_grad_norm: float = 0.5
    """Gradient clipping."""
    update_epochs: int = 4
    """Passes over each train batch."""
    actor_arch: list[int] = field(default_factory=lambda: [256, 256])
    """Hidden sizes of the actor."""
    critic_arch: list[int] = field(default_factory=lambda: [256, 256])
    """Hidden sizes of the critic."""
    critic_state: bool = False
    """A centralized critic (MAPPO): the value function also reads the env's global state
    (training only; the actor never sees it)."""
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
    pool_size: int = 8
    """At most this many frozen snapshots of the main module in the league (oldest dropped)."""
    snapshot_every: int = 200_000
    """At least this many env steps between two snapshots."""
    snapshot_win_rate: float = 0.55
    """A snapshot is added once the main module wins this often against the league."""
    latest_prob: float = 0.5
    """Probability that an opponent seat is the main module itself (else a snapshot)."""
    eval_every: int = 500_000
    """Env steps between evaluations with the duplicate-deal evaluator."""
    eval_matches: int = 200
    """Matches per opponent in each periodic evaluation."""
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "greedy", "heuristic"])
    """Agent specs the main module is evaluated against."""
    final_eval_matches: int = 1000
    """Matches per opponent in the final evaluation of the best checkpoint (0: none)."""
    eval_processes: int = 2
    """Processes for evaluation."""
    torch_threads: int = 1
    """Threads per torch process (the driver's learner and each env runner)."""
    checkpoint_every: int = 10
    """Training iterations between checkpoints (also written at evaluations and the end)."""
    progress: bool = True
    """Show a progress bar."""

    def rules(self) -> Rules:
        """The rules this config trains on.

        Raises:
            RulesError: for an unknown preset or a bad player count.
        """
        extra = {} if self.partnerships is None else {"partnerships": self.partnerships}
        return Rules.preset(self.preset, self.num_players, **extra)

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
        check_types(self)
        checks = common_checks(
            self,
            seed_limit=2**31,
            at_least_1=(
                "total_timesteps", "update_epochs", "train_batch_size", "minibatch_size",
                "num_envs_per_env_runner", "pool_size", "snapshot_every", "eval_every",
                "eval_matches", "eval_processes", "torch_threads", "checkpoint_every",
            ),
            at_least_0=("final_eval_matches", "num_env_runners", "num_learners"),
            unit=("gae_lambda", "gamma", "latest_prob", "snapshot_win_rate"),
            positive=("learning_rate", "clip_coef", "max_grad_norm"),
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
