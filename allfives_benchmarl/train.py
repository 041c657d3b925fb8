"""Train MAPPO, IPPO or another BenchMARL algorithm on All Fives and export the policy.

    python -m allfives_benchmarl.train --algorithm mappo --frames 200000 --out runs/bm/mappo
    allfives eval benchmarl:runs/bm/mappo heuristic --matches 200

1. The task — :class:`allfives_benchmarl.task.AllFivesTask` (``--task``, ``--reward``): the
   batched, turn-based :class:`~allfives_benchmarl.env.AllFivesTorchEnv`, every seat an agent
   (one group of opponents, or in partnerships one group per team), masks in its specs.
2. The experiment — BenchMARL's ``Experiment`` with its own yaml defaults, and the flags below
   over them: the algorithm, the frames (env steps over all games; every agent of a step
   counts once), the batch, the MLP, the seed (same seed, same weights).
3. The policy — the trained actor (in partnerships, that of seat 0's team, which plays either
   side: each seat reads its own observation), written to ``--out`` as a policy folder
   (:mod:`allfives_benchmarl.policy_file`) that ``benchmarl:OUT`` plays as an agent;
   BenchMARL's own logs (csv) go to ``OUT/benchmarl/``. With ``--eval_matches`` the policy is
   then evaluated against ``--eval_opponent`` over duplicate deals (``OUT/report.json``).

The env steps (the report's ``env_steps``) are the frames collected: each frame is the decision
of the seat to act in one live game (forced draws and passes are taken by the engine, and
TorchRL's collector deals a game that ended anew before its next frame), as
:mod:`agents.training.policy_trainer` defines an env step. With ``--curve_points K`` the
exported actor is saved at K points of ``--frames`` (at the end of the first iteration at or
after each, :class:`agents.training.policy_trainer.Curve`: ``OUT/curve/<env steps>/``, each
playable as ``benchmarl:OUT/curve/<env steps>``, and ``OUT/curve/index.json``).

An interrupted run (Ctrl-C, a kill, a lost machine) goes on where it stopped when the same
command runs again: the trainer saves a resume point (``OUT/resume.pt``) at the end of an
iteration every ``--resume_every`` seconds, and the resumed run ends with the weights an
uninterrupted one would have (:mod:`allfives_benchmarl.resume`).

A bad flag is one line, exit status 2, before anything runs; so is an ``--out`` folder that
another run holds (the lock of :mod:`agents.training.run_folder`), that already holds a
policy (``--fresh`` deletes it first), or whose resume point is damaged or was saved with
other training flags.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agents.training.config import ConfigError
from agents.training.curve import check_points
from agents.training.policy_trainer import (
    Curve,
    parse_policy_args,
    policy_folder_kind,
    run_policy_trainer,
)

PROG = "python -m allfives_benchmarl.train"

Algorithm = Literal["mappo", "ippo", "masac", "isac", "iql", "qmix", "vdn"]
ON_POLICY = ("mappo", "ippo")
CENTRAL_CRITIC = ("mappo",)
"""The algorithms whose centralised critic, shared, would give every seat one value (MASAC's
discrete critic already gives each seat its own values)."""
TaskName = Literal[
    "PAGAT_2P", "PAGAT_3P", "PAGAT_4P", "SPRUCE_2P", "SPRUCE_3P", "SPRUCE_4P",
    "DOMINOES_CC_2P", "DOMINOES_CC_3P", "DOMINOES_CC_4P", "PYATYORKA_2P", "PYATYORKA_3P",
    "PYATYORKA_4P", "FIVE_UP_2P", "FIVE_UP_3P", "FIVE_UP_4P",
]  # fmt: skip


@dataclass
class Args:
    """Train a BenchMARL algorithm on All Fives (see the top of allfives_benchmarl/train.py)."""

    algorithm: Algorithm = "mappo"
    """BenchMARL's algorithm: mappo, ippo (on-policy), masac, isac, iql, qmix, vdn (off-policy,
    with a replay buffer). QMIX and VDN learn their group's summed reward, so they take only
    a partnership task (PAGAT_4P, SPRUCE_4P, FIVE_UP_4P: a group per team); elsewhere the group
    holds opponents, whose rewards sum to zero, and they are refused."""
    out: Path | None = None
    """The policy folder to write (default runs/benchmarl/ALGORITHM); one run at a time."""
    fresh: bool = False
    """Delete --out first (only a folder this trainer made; without --fresh, one that already
    holds a policy is refused)."""
    task: TaskName = "PAGAT_2P"
    """The table: a preset and 2, 3 or 4 players, the preset's own seating (all seats
    trained; in partnerships each team is a group with its own policy)."""
    reward: Literal["win", "points", "points+win"] = "points+win"
    """Each seat's reward: its side's match result, points, or both."""
    episode: Literal["match", "hand"] = "match"
    """What an episode is: a whole match or one hand."""
    max_pip: int = 6
    """The set: double-N, N from 2 to 6 (the 28 tiles); a smaller set needs --hand_size."""
    hand_size: int = 0
    """Tiles dealt to each seat (0: the preset's)."""
    action_features: Literal["none", "basic", "outlook", "lookahead"] = "none"
    """The observation's per-action blocks (as train.py's config; see docs/spaces.md)."""
    frames: int = 200_000
    """Env steps to train for, over all games (one step moves one seat in one game)."""
    seed: int = 0
    """Seeds the deals, torch and the sampling: the same seed trains the same weights."""
    envs: int = 64
    """Games stepped side by side."""
    frames_per_batch: int = 6_400
    """Env steps collected per iteration (a multiple of --envs)."""
    minibatch_size: int = 800
    """On-policy: env steps per gradient step; off-policy: the replay sample size."""
    epochs: int = 4
    """On-policy: passes over each batch; off-policy: gradient steps per iteration are
    epochs * frames_per_batch / minibatch_size."""
    lr: float = 3e-4
    """Adam's learning rate."""
    gamma: float = 1.0
    """The discount (1, as train.py: the match's result comes at its end)."""
    entropy_coef: float = 0.01
    """MAPPO/IPPO's entropy bonus."""
    hidden: tuple[int, ...] = (256, 256)
    """The MLP's hidden layer widths (actor and critic)."""
    share_params: bool = True
    """One actor for every seat (else one per seat)."""
    curve_points: int = 0
    """Save the exported actor at this many points of --frames (0 to 1000; 0: none), into
    --out's curve/ folder (see the top of allfives_benchmarl/train.py)."""
    eval_matches: int = 0
    """After training, evaluate the policy in this many duplicate-deal matches (0: none)."""
    eval_opponent: str = "heuristic"
    """The opponent agent spec of that evaluation."""
    device: str = "auto"
    """Where BenchMARL trains (its train_device and buffer_device): auto (a GPU when torch
    sees one, else the CPU), cpu, cuda or cuda:N. It samples on the CPU, where the engine runs."""
    engine_threads: int = 0
    """Threads of the batched engine (0: numba's own count, every core)."""
    resume_every: float = 60.0
    """Seconds between two resume points (``OUT/resume.pt``, written at an iteration's end;
    0: after every iteration). Run the same command again to go on from the last one."""

    def folder(self) -> Path:
        """The policy folder, --out or its default."""
        return self.out if self.out is not None else Path("runs", "benchmarl", self.algorithm)

    def check(self) -> None:
        """Refuse values that cannot train.

        Raises:
            ConfigError: naming the flag.
        """
        for name in ("frames", "envs", "frames_per_batch", "minibatch_size", "epochs"):
            value = getattr(self, name)
            if value < 1:
                raise ConfigError(f"--{name} must be a positive integer, not {value}")
        if self.frames_per_batch % self.envs:
            raise ConfigError(
                f"--frames_per_batch ({self.frames_per_batch}) must be a multiple of --envs "
                f"({self.envs})"
            )
        if self.frames < self.frames_per_batch:
            raise ConfigError(
                f"--frames ({self.frames}) must be at least --frames_per_batch "
                f"({self.frames_per_batch})"
            )
        if self.minibatch_size > self.frames_per_batch:
            raise ConfigError(
                f"--minibatch_size ({self.minibatch_size}) must be at most --frames_per_batch "
                f"({self.frames_per_batch})"
            )
        if not self.lr > 0 or not 0 <= self.gamma <= 1 or self.entropy_coef < 0:
            raise ConfigError("--lr must be positive, --gamma in [0, 1], --entropy_coef >= 0")
        if not self.hidden or min(self.hidden) < 1:
            raise ConfigError("--hidden must be one or more positive widths")
        if self.seed < 0 or self.eval_matches < 0:
            raise ConfigError("--seed and --eval_matches must be non-negative")
        if not self.resume_every >= 0:
            raise ConfigError(f"--resume_every must be >= 0 seconds, not {self.resume_every}")
        check_points(self.curve_points)
        from agents.training.device import check_engine_threads, resolve_device

        resolve_device(self.device, "--device")
        check_engine_threads(self.engine_threads, "--engine_threads")
        from allfives_benchmarl.task import PRESETS, check_algorithm
        from allfives_env.envs.settings import EnvConfigError

        try:
            check_algorithm(self.algorithm, PRESETS[self.task], self.task)
        except EnvConfigError as e:
            raise ConfigError(f"--algorithm {e}") from None
        from allfives_env.core.errors import RulesError

        table = dataclasses.replace(
            PRESETS[self.task], max_pip=self.max_pip, hand_size=self.hand_size
        )
        try:
            table.table()
        except RulesError as e:
            raise ConfigError(f"--max_pip/--hand_size: {e}") from None


def parse_args(argv: Sequence[str]) -> Args:
    """The command line (tyro; ``--help`` lists every flag). Errors are one line, exit 2.

    Raises:
        ConfigError: for a value :meth:`Args.check` refuses.
    """
    return parse_policy_args(Args, argv, PROG, __doc__)


def algorithm_config(args: Args) -> Any:
    """BenchMARL's config of ``args.algorithm``: its yaml defaults, PPO's entropy bonus, and a
    critic per seat for MAPPO where a group holds opponents.

    MAPPO's centralised critic reads every seat's observation of its group; with its parameters
    shared (the default) it gives every seat one output, the same value, which fits a team with
    one reward (a partnership task's groups) but not seats that play against each other: the
    value of one seat is minus the other's, so a shared output learns nothing (its explained
    variance stays at 0). With a critic per seat each learns its own seat's value.
    """
    from benchmarl import algorithms

    from agents.training.groups import groups_hold_opponents
    from allfives_benchmarl.task import PRESETS

    kind = {
        "mappo": algorithms.MappoConfig,
        "ippo": algorithms.IppoConfig,
        "masac": algorithms.MasacConfig,
        "isac": algorithms.IsacConfig,
        "iql": algorithms.IqlConfig,
        "qmix": algorithms.QmixConfig,
        "vdn": algorithms.VdnConfig,
    }[args.algorithm]
    config = kind.get_from_yaml()
    table = PRESETS[args.task]
    if args.algorithm in CENTRAL_CRITIC and groups_hold_opponents(table.groups(), table.table()):
        config.share_param_critic = False
    if args.algorithm in ON_POLICY:
        config.entropy_coef = args.entropy_coef
    return config


def experiment_config(args: Args, logs: Path) -> Any:
    """BenchMARL's experiment config: its yaml defaults with ``args`` over them; csv logs in
    ``logs``, no BenchMARL evaluation; BenchMARL asks for a checkpoint at each iteration's end,
    which :class:`allfives_benchmarl.resume.Saver` turns into a resume point when one is due
    (the policy is exported at the end)."""
    from benchmarl.experiment import ExperimentConfig

    c = ExperimentConfig.get_from_yaml()
    from agents.training.device import resolve_device

    c.sampling_device = "cpu"  # where the engine steps
    c.train_device = c.buffer_device = str(resolve_device(args.device, "--device"))
    c.share_policy_params = args.share_params
    c.gamma = args.gamma
    c.lr = args.lr
    c.max_n_iters = None
    c.max_n_frames = args.frames
    steps = args.epochs * args.frames_per_batch // args.minibatch_size
    c.on_policy_collected_frames_per_batch = args.frames_per_batch
    c.on_policy_n_envs_per_worker = args.envs
    c.on_policy_minibatch_size = args.minibatch_size
    c.on_policy_n_minibatch_iters = args.epochs  # passes, each of every minibatch
    c.off_policy_collected_frames_per_batch = args.frames_per_batch
    c.off_policy_n_envs_per_worker = args.envs
    c.off_policy_train_batch_size = args.minibatch_size
    c.off_policy_n_optimizer_steps = max(1, steps)
    c.off_policy_memory_size = max(args.frames_per_batch, min(args.frames, 200_000))
    c.evaluation = False
    c.render = False
    c.loggers = ["csv"]
    c.create_json = False
    c.save_folder = str(logs.resolve())
    c.checkpoint_interval = args.frames_per_batch  # each iteration: the Saver decides
    c.checkpoint_at_end = False
    c.keep_checkpoints_num = None
    c.exclude_buffer_from_checkpoint = args.algorithm in ON_POLICY  # refilled each iteration
    return c


def actor_model(experiment: Any, group: str) -> Any:
    """The trained actor network (BenchMARL's ``Model``) of ``group``."""
    from benchmarl.models.common import Model

    policy = experiment.algorithm.get_policy_for_loss(group)
    for module in policy.modules():
        if isinstance(module, Model):
            return module
    raise RuntimeError(f"no BenchMARL model in the policy of {group!r}")  # pragma: no cover


def export_policy(experiment: Any, args: Args, task_config: Any, folder: Path) -> None:
    """Write the actor the experiment trains now (that of seat 0's group) to the policy folder
    ``folder``, with what it was trained on (``args``, the task's ``task_config``)."""
    from agents.learned import PolicySpec
    from allfives_benchmarl.policy_file import NetworkSpec, save_policy

    env = experiment.test_env.base_env
    group = exported_group(experiment)
    actor = actor_model(experiment, group)
    net = NetworkSpec(
        algorithm=args.algorithm,
        group=group,
        n_agents=len(env.groups[group]),
        obs_size=env.encoding.obs_size,
        num_actions=env.num_env_actions,
        out_key=str(actor.out_key[-1]),
        num_cells=tuple(args.hidden),
        activation="Tanh",
        share_params=args.share_params,
    )
    save_policy(folder, PolicySpec(env.rules, task_config.action_features), net, actor)


def exported_group(experiment: Any) -> str:
    """The group whose actor is exported: seat 0's."""
    groups: dict[str, list[int]] = experiment.test_env.base_env.groups
    return next(g for g, seats in groups.items() if 0 in seats)


def curve_callback(curve: Curve, args: Args, task_config: Any) -> Any:
    """A BenchMARL ``Callback`` that saves ``curve``'s points: at the end of each iteration's
    update of the exported group (``on_train_end``, after the batch's frames were added to
    ``experiment.total_frames``), when a threshold of the frames is due, it exports the actor
    there (:func:`export_policy`). BenchMARL pickles its callbacks with the experiment's
    config: this one pickles as this call."""
    from benchmarl.experiment.callback import Callback

    class CurveCallback(Callback):  # type: ignore[misc]
        def on_train_end(self, training_td: Any, group: str) -> None:
            experiment = self.experiment
            frames = int(experiment.total_frames)
            if group == exported_group(experiment) and curve.due(frames):
                curve.save(
                    frames, frames, lambda path: export_policy(experiment, args, task_config, path)
                )

        def __reduce__(self) -> tuple[Any, ...]:
            return curve_callback, (curve, args, task_config)

    return CurveCallback()


def train(args: Args, folder: Path) -> dict[str, Any]:
    """Run the experiment (from the folder's resume point when it holds one:
    :mod:`allfives_benchmarl.resume`) and write the policy folder; return what the run did.

    Raises:
        ConfigError: if the folder's resume point is damaged or another run's.
    """
    from benchmarl.models.mlp import MlpConfig
    from torch import nn

    from allfives_benchmarl.resume import (
        RESUME_FILE,
        Saver,
        identity,
        load_resume_point,
        resumable_experiment,
        run_from,
    )
    from allfives_benchmarl.task import PRESETS, AllFivesTask

    saved = load_resume_point(folder, args)
    task_config = dataclasses.replace(
        PRESETS[args.task],
        reward=args.reward,
        action_features=args.action_features,
        episode=args.episode,
        max_pip=args.max_pip,
        hand_size=args.hand_size,
    )
    task = AllFivesTask.__members__[args.task].get_task(dataclasses.asdict(task_config))
    logs = folder / "benchmarl"
    logs.mkdir(parents=True, exist_ok=True)
    model = MlpConfig(num_cells=list(args.hidden), layer_class=nn.Linear, activation_class=nn.Tanh)
    curve = Curve(folder, "benchmarl", args.curve_points, args.frames)
    if args.engine_threads:
        from allfives_env.vector import set_num_threads

        set_num_threads(args.engine_threads)
    before = float(saved["seconds"]) if saved else 0.0
    saver = Saver(folder, curve, identity(args), args.resume_every, before)
    experiment = resumable_experiment(
        saver,
        task=task,
        algorithm_config=algorithm_config(args),
        model_config=model,
        critic_model_config=model,
        seed=args.seed,
        config=experiment_config(args, logs),
        callbacks=[curve_callback(curve, args, task_config)] if args.curve_points else [],
    )
    if saved:
        done = int(saved["benchmarl"]["state"]["total_frames"])
        print(f"resuming {folder} from frame {done:,} of {args.frames:,}", flush=True)
    run_from(experiment, saved, curve, folder / RESUME_FILE)
    seconds = saver.seconds()
    export_policy(experiment, args, task_config, folder)
    (folder / RESUME_FILE).unlink(missing_ok=True)  # the policy is final
    frames = int(experiment.total_frames)
    return {
        "frames": frames,
        "env_steps": frames,
        "imitation_samples": 0,
        "teacher_positions": 0,
        "curve": curve.points,
        "seconds": round(seconds, 1),
    }


def _rules_of(folder: Path) -> Any:
    from allfives_benchmarl.policy_file import load_policy

    return load_policy(folder)[0].rules


def main(argv: Sequence[str] | None = None) -> int:
    """Train as the command line says (``sys.argv`` by default); return the exit status."""
    from allfives_benchmarl.policy_file import WEIGHTS_FILE, is_policy_folder
    from allfives_benchmarl.resume import RESUME_FILE

    kind = policy_folder_kind(PROG, WEIGHTS_FILE, folders=("benchmarl",), files=(RESUME_FILE,))
    return run_policy_trainer(
        PROG, argv, "benchmarl", parse_args, is_policy_folder, train, _rules_of, kind, RESUME_FILE
    )


if __name__ == "__main__":
    sys.exit(main())
