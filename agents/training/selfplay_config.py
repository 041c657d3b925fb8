"""``train.py``'s config: the shared :class:`~agents.training.config.Settings` and the fields of
self-play on the batched engine (its table, network, warm start and pool); its command line.

Every field has a one-line docstring (``train.py --help`` prints them); ``configs/*.yaml`` use
exactly these names; ``--field value`` overrides. Anything wrong is one :class:`ConfigError`
line (exit 2) before anything runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import tyro  # the [train] extra: the command line

from agents.training import config as train_config
from agents.training.config import (
    ConfigError,
    Settings,
    check_agent_specs,
    config_path,
    parse_command,
    raise_first,
)
from agents.training.curve import CURVE, points_check
from agents.training.ownership import CONFIG, MARKER, FolderKind, config_keys
from agents.training.run_folder import RETIRED

__all__ = [
    "PROG", "RUN_KIND", "TARGETS", "Command", "Config", "ConfigError", "load_yaml", "parse_args",
]  # fmt: skip

PROG = "train.py"
"""How the trainer names itself in its one-line errors."""
TARGETS = ("choice", "values")
"""What the warm start may imitate (``imitation_targets``)."""


@dataclass
class Config(Settings):
    """Everything a training run depends on; the field names are the YAML keys."""

    num_envs: int = 256
    """Games stepped together on the batched engine."""
    num_steps: int = 64
    """Steps per game per rollout (a rollout is num_envs × num_steps learner steps)."""
    num_minibatches: int = 8
    """Minibatches per rollout in each PPO epoch."""
    anneal_lr: bool = True
    """Anneal the learning rate linearly to 0 over total_timesteps."""
    context_dim: int = 32
    """Size of the context vector that weighs each placement's features."""
    feature_arch: list[int] = field(default_factory=list)
    """Hidden layer sizes of the network each placement's features go through (before its
    last layer, of context_dim)."""
    tile_features: bool = False
    """Each placement's features also say what it is: the tile's pips, the pips it leaves open,
    its slot and that slot's observation entries (the network reads them from the observation
    and the action id)."""
    imitation_samples: int = 500_000
    """Learner steps of the warm start (imitation of imitation_teacher); 0: none."""
    imitation_epochs: int = 2
    """Passes over each rollout in the warm start (over it and the replayed ones, with
    imitation_replay)."""
    imitation_refit_epochs: int = 0
    """After the warm start, passes over every position it met, all together and shuffled, in
    its minibatches, the rate annealed linearly from learning_rate to 0 over them: the teacher's
    targets learned from as one data set rather than only a rollout at a time as they come. The
    positions are kept in the run folder as the warm start goes (``positions/``, a few MB a
    rollout, removed once learned from) and held in memory for the refit (about 7 KB a position
    at ``strong.yaml``'s observation). 0: none."""
    imitation_teacher: str = "heuristic"
    """The agent imitated in the warm start."""
    teacher_prob: float = 0.5
    """In the warm start, the chance the teacher's move is played (else the learner's)."""
    start_scores: float = 0.0
    """The chance that a learner's match begins at random scores (each side's uniform over the
    scores below the target), in the warm start and PPO alike, to meet more matches' ends;
    evaluations always begin at 0."""
    imitation_targets: str = "choice"
    """What the warm start imitates: the teacher's ``choice`` (its action), or its ``values``
    (a search teacher's value of every legal action, the target softmax(value /
    imitation_temperature); the teacher must be batchsearch, or search without a time budget)."""
    value_head: bool = False
    """The critic learns the search teacher's value of each position the warm start meets (its
    best legal action's mean value, over the target) instead of the returns, reads the
    observation only, and is saved in the checkpoints beside the actor as their value network
    (what ``batchsearch:value=PATH`` cuts its rollouts short with). Needs imitation_targets:
    values, critic_state: false and total_timesteps: 0 (PPO would teach the critic returns)."""
    imitation_temperature: float = 2.0
    """Temperature of the ``values`` targets, in points."""
    imitation_anneal_lr: bool = False
    """Anneal the learning rate linearly to 0 over the warm start (else it stays constant)."""
    teacher_processes: int = 1
    """Worker processes valuing positions for a ``values`` teacher (results do not depend on it)."""
    baselines: list[str] = field(default_factory=lambda: ["heuristic", "heuristic", "greedy"])
    """Baseline agent specs that may take an opponent's (or the partner's) seat, drawn
    uniformly from the list (repeat a spec to weigh it)."""
    baseline_prob: float = 1.0
    """Chance that a seat goes to a baseline rather than a snapshot (with no baselines, or 0:
    every other seat is one of the learner's own snapshots, pure self-play)."""
    curve_points: int = 0
    """Policies kept for a learning curve: with K above 0, the policy being trained is saved
    at the first update at or after each of the K PPO steps total_timesteps·k/K (k = 1..K, the
    last the final weights) as ``curve/<steps, 12 digits>.zip`` in the run folder, listed in
    ``curve/index.json``; 0: none."""

    def check(self) -> None:
        """Validate every field, before anything runs (the agents named are made once).

        Raises:
            ConfigError: naming the first bad field.
        """
        checks = self.checks(
            seed_limit=2**32,  # what NumPy's seeding takes
            at_least_1=(
                "num_envs", "num_steps", "num_minibatches", "context_dim", "imitation_epochs",
                "teacher_processes",
            ),
            at_least_0=("imitation_samples", "total_timesteps", "imitation_refit_epochs"),
            unit=("baseline_prob", "teacher_prob", "start_scores"),
            positive=("imitation_temperature",),
        )  # fmt: skip
        checks.append(
            (
                self.imitation_targets in TARGETS,
                "imitation_targets",
                f"one of {', '.join(TARGETS)}",
            )
        )
        checks.append(
            (
                self.total_timesteps + self.imitation_samples > 0,
                "total_timesteps",
                "positive when imitation_samples is 0 (something must train)",
            )
        )
        checks += [
            points_check(self.curve_points),
            (self.curve_points == 0 or self.total_timesteps > 0, "curve_points",
             "0 when total_timesteps is 0 (the curve is of PPO's steps)"),
        ]  # fmt: skip
        checks.append(
            (
                self.num_envs * self.num_steps % self.num_minibatches == 0,
                "num_minibatches",
                "a divisor of num_envs × num_steps",
            )
        )
        if self.value_head:
            checks += [
                (self.imitation_targets == "values" and self.imitation_samples > 0,
                 "value_head", "used with imitation_targets: values and imitation_samples > 0"),
                (not self.critic_state, "value_head", "used with critic_state: false (a value "
                 "that plays reads what the player sees)"),
                (self.total_timesteps == 0, "value_head", "used with total_timesteps: 0 (PPO "
                 "would teach the critic returns)"),
            ]  # fmt: skip
        raise_first(self, checks)
        check_agent_specs(self, ("baselines", "eval_opponents", "imitation_teacher"))
        if self.imitation_targets == "values":
            from agents.registry import value_agent

            try:
                value_agent(self.imitation_teacher)
            except ValueError as e:
                raise ConfigError(f"imitation_teacher: {e}") from None


RUN_KIND = FolderKind(
    made_by=PROG,
    files=(
        CONFIG, MARKER, "state.pkl", "resume.zip", "latest.zip", "best.zip", "report.json",
        "learning_curve.png", "*.tmp",
    ),
    folders=("tb", "positions", CURVE),
    config_keys=config_keys(Config, retired=RETIRED),
)  # fmt: skip
"""What a ``train.py`` run folder holds (:mod:`agents.training.ownership`): the resume point
(``state.pkl``, ``resume.zip``), the checkpoints, the report and curve, TensorBoard's ``tb/``,
the warm start's ``positions/`` and the learning curve's policies, ``curve/``."""


@dataclass
class Command:
    """Self-play training of an All Fives agent on the batched engine (``train.py``)."""

    config: Path | None = None
    """A YAML file of config fields (the field names below); command-line flags override it."""
    address: str | None = None
    """A running Ray cluster (HOST:PORT of its head, as `ray start --head` prints it) whose CPUs
    value the positions for a teacher of values (imitation_targets: values) instead of
    teacher_processes here: where it runs, not what it computes (the same targets); not part of
    the config, a resumed run may take another address or none. Needs the [rllib] extra."""
    fresh: bool = False
    """Delete the run folder and start over (only a run folder train.py made: one that holds
    anything else is refused)."""
    runs: Path = Path("runs")
    """Where run folders go."""
    cfg: Annotated[Config, tyro.conf.OmitArgPrefixes] = field(default_factory=Config)


def load_yaml(path: Path) -> Config:
    """The default config updated by the YAML file at ``path``.

    Raises:
        ConfigError: if the file cannot be read, is not a mapping, or names an unknown key.
    """
    return train_config.load_yaml(path, Config())


def parse_args(argv: Sequence[str]) -> Command:
    """The command line: ``--config FILE``, ``--fresh``, ``--runs DIR`` and ``--<field> VALUE``
    for each config field (tyro; ``--help`` lists every field with its doc). Errors are one line.
    """
    path = config_path(argv)
    default = Command(config=path, cfg=load_yaml(path) if path is not None else Config())
    description = (
        "Self-play training of an All Fives agent: imitation of the heuristic, then PPO, on the "
        "batched engine."
    )
    command = parse_command(Command, default, argv, PROG, description)
    command.cfg.check()
    if command.address is not None:
        check_teacher_address(command.cfg, command.address)
    return command


def check_teacher_address(cfg: Config, address: str) -> None:
    """Refuse ``--address`` where it has no use or cannot work: a config with no teacher of
    values, Ray not installed, no Ray cluster at the address.

    Raises:
        ConfigError: saying which.
    """
    from agents.training.cluster import check_address, require_ray

    if cfg.imitation_targets != "values" or cfg.imitation_samples == 0:
        raise ConfigError(
            "--address runs a teacher of values on a Ray cluster, and this config has none "
            "(imitation_targets: values with imitation_samples above 0); leave it out"
        )
    require_ray("--address")
    check_address(address)
