"""The RLlib trainer's config: the vocabulary of ``train.py``'s, plus the cluster's settings.

``configs/*.yaml`` files that hold only the shared fields (the game, the PPO coefficients, the
evaluation) run with either trainer; a field that only ``train.py`` has (its imitation warm
start, its baseline pool, its batched-engine table) is refused by name, as is an unknown one.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from allfives_env.core.rules import Rules

TRAIN_PY_ONLY = (
    "num_envs", "num_steps", "num_minibatches", "anneal_lr", "context_dim", "feature_arch",
    "imitation_samples", "imitation_epochs", "imitation_teacher", "teacher_prob", "baselines",
    "baseline_prob", "engine_threads",
)  # fmt: skip
"""Fields of ``train.py``'s config that the RLlib trainer has no use for."""


class ConfigError(ValueError):
    """A config that cannot run: the trainer prints its one line and exits with status 2."""


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
        from agents.errors import AgentError
        from agents.registry import make_agent
        from allfives_env import RulesError
        from allfives_env.envs.aec import EPISODES, FORCED, REWARDS

        for f in dataclasses.fields(self):
            check_type(f.name, getattr(self, f.name), f.type)
        try:
            self.rules()
        except RulesError as e:
            raise ConfigError(f"config: {e}") from None
        checks = [
            (self.episode in EPISODES, "episode", f"one of {', '.join(EPISODES)}"),
            (self.reward in REWARDS, "reward", f"one of {', '.join(REWARDS)}"),
            (self.forced_actions in FORCED, "forced_actions", f"one of {', '.join(FORCED)}"),
            (self.action_features in ("basic", "outlook"), "action_features", "basic or outlook"),
            (
                bool(self.name) and self.name.replace("-", "").replace("_", "").isalnum(),
                "name",
                "letters, digits, - or _",
            ),
            (0 <= self.seed < 2**31, "seed", "from 0 to 2**31 - 1"),
            (bool(self.eval_opponents), "eval_opponents", "at least one agent spec"),
            (
                self.minibatch_size <= self.train_batch_size,
                "minibatch_size",
                "at most train_batch_size",
            ),
        ]
        for key in (
            "total_timesteps", "update_epochs", "train_batch_size", "minibatch_size",
            "num_envs_per_env_runner", "pool_size", "snapshot_every", "eval_every",
            "eval_matches", "eval_processes", "torch_threads", "checkpoint_every",
        ):  # fmt: skip
            checks.append((getattr(self, key) >= 1, key, "at least 1"))
        for key in ("final_eval_matches", "num_env_runners", "num_learners"):
            checks.append((getattr(self, key) >= 0, key, "at least 0"))
        for f in dataclasses.fields(self):
            if f.type == "float":
                checks.append((math.isfinite(getattr(self, f.name)), f.name, "a finite number"))
        for key in ("gae_lambda", "gamma", "latest_prob", "snapshot_win_rate"):
            checks.append((0.0 <= getattr(self, key) <= 1.0, key, "between 0 and 1"))
        for key in ("learning_rate", "clip_coef", "max_grad_norm"):
            checks.append((getattr(self, key) > 0, key, "positive"))
        for key in ("actor_arch", "critic_arch"):
            sizes = getattr(self, key)
            checks.append((bool(sizes) and all(h >= 1 for h in sizes), key, "sizes ≥ 1"))
        for ok, key, what in checks:
            if not ok:
                raise ConfigError(f"config {key!r} must be {what}, not {getattr(self, key)!r}")
        for spec in self.eval_opponents:
            try:
                agent = make_agent(spec)
                check_rules = getattr(agent, "check_rules", None)
                if check_rules is not None:
                    check_rules(self.rules())
            except (AgentError, ValueError, OSError) as e:
                raise ConfigError(f"config 'eval_opponents': {e}") from None


def check_type(key: str, value: Any, kind: Any) -> None:
    """Check a field's value against its annotation (YAML values arrive untyped).

    Raises:
        ConfigError: if it does not fit.
    """
    if kind == "bool | None":
        ok = value is None or isinstance(value, bool)
    elif kind in ("list[int]", "list[str]"):
        item = int if kind == "list[int]" else str
        ok = isinstance(value, list) and all(
            isinstance(v, item) and not isinstance(v, bool) for v in value
        )
    elif kind == "float":
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    else:
        want = {"str": str, "int": int, "bool": bool}[kind]
        ok = isinstance(value, want) and (kind == "bool" or not isinstance(value, bool))
    if not ok:
        raise ConfigError(f"config {key!r} must be of type {kind}, not {value!r}")


def load_yaml(path: Path) -> RLlibConfig:
    """The default config updated by the YAML file at ``path``.

    Raises:
        ConfigError: if the file cannot be read, is not a mapping, or names a key this trainer
            does not know (a ``train.py``-only key is named as such).
    """
    import yaml

    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise ConfigError(f"cannot read config {str(path)!r}: {e}") from None
    if not isinstance(loaded, dict):
        raise ConfigError(f"config {str(path)!r} must be a mapping of field: value")
    names = [f.name for f in dataclasses.fields(RLlibConfig)]
    for key in loaded:
        if key in TRAIN_PY_ONLY:
            raise ConfigError(
                f"config key {key!r} in {path} is a train.py setting that the RLlib trainer "
                f"does not use (remove it, or train with train.py)"
            )
        if key not in names:
            raise ConfigError(f"unknown config key {key!r} in {path} (known: {', '.join(names)})")
    cfg = dataclasses.replace(RLlibConfig(), **loaded)
    for f in dataclasses.fields(cfg):
        check_type(f.name, getattr(cfg, f.name), f.type)
    return cfg
