"""Distributed self-play training of an All Fives agent on Ray RLlib (PPO, new API stack).

    python train_rllib.py                                   # pagat, 2 players, this machine
    python train_rllib.py --config configs/rllib_smoke.yaml # a few iterations (what CI runs)
    python train_rllib.py --address HEAD:6379 --num_env_runners 16 --num_learners 2

1. The config — :class:`allfives_rllib.config.RLlibConfig`: ``train.py``'s vocabulary (the
   game, PPO's coefficients, the evaluation) plus the cluster's settings; ``configs/*.yaml``
   that hold only shared fields run with either trainer. Anything wrong is one line, exit 2,
   before anything runs; so is an ``--address`` with no Ray cluster behind it.
2. The environment — :class:`allfives_rllib.env.AllFivesMultiAgentEnv` (the AEC env, turn
   based, masked observation dicts); env runners play it on every node of the cluster.
3. The module — :class:`allfives_rllib.module.MaskedActorCritic`, one ``main`` module shared by
   all the seats it plays; with ``critic_state`` its critic also reads the global state.
4. The league — :mod:`allfives_rllib.league`: the main module against itself and frozen
   snapshots of itself, a snapshot added each time it wins often enough against the league.
5. Evaluation — every ``eval_every`` env steps with the project's duplicate-deal evaluator
   against ``eval_opponents``; the best module is kept in ``best/`` (``rllib:RUN`` plays it).
6. Checkpoints and resume — ``checkpoint/`` (RLlib's algorithm checkpoint, with the league)
   every ``checkpoint_every`` iterations, at each evaluation, at Ctrl-C and at the end; the
   same command continues from it. TensorBoard scalars in ``tb/``; a progress bar.

A run folder is ``runs/rllib/<name>``: ``config.yaml``, ``checkpoint/``, ``best/``,
``evals/``, ``tb/`` and, at the end, ``report.json`` (the best module's final evaluation).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import shutil
import signal
import socket
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, NoReturn

_INTERRUPTED = False


def _on_sigint(signum: int, frame: Any) -> None:
    global _INTERRUPTED
    _INTERRUPTED = True


def stop_if_interrupted() -> None:
    """Raise KeyboardInterrupt if Ctrl-C came since the start (checked between iterations)."""
    if _INTERRUPTED:
        raise KeyboardInterrupt


EXTRAS = ("ray", "torch", "yaml", "tyro", "tensorboard", "tqdm")
"""The modules of the ``[rllib]`` extra that training needs."""


def _missing_extras() -> list[str]:
    return [m for m in EXTRAS if importlib.util.find_spec(m) is None]


if __name__ == "__main__":
    signal.signal(signal.SIGINT, _on_sigint)
    if _missing_extras():
        print(
            f"train_rllib.py: error: training on RLlib needs the [rllib] extra (missing: "
            f"{', '.join(_missing_extras())}): pip install -e '.[rllib]'",
            file=sys.stderr,
        )
        raise SystemExit(2)

import tyro  # noqa: E402 - after the check above, which names what to install
import yaml  # noqa: E402

from agents import train_config  # noqa: E402
from agents.files import replace_whole  # noqa: E402
from agents.run_folder import (  # noqa: E402
    check_space,
    full_disk_message,
    hold_run_folder,
    is_disk_full,
    quiet_full_disk_in_threads,
    remove_partial,
)
from allfives_rllib.config import ConfigError, RLlibConfig, load_yaml  # noqa: E402

ROOT = Path(__file__).resolve().parent
PROG = "train_rllib.py"


@dataclass
class Command:
    """Self-play training of an All Fives agent on Ray RLlib (see the top of train_rllib.py)."""

    config: Path | None = None
    """A YAML file of config fields (the field names below); command-line flags override it."""
    address: str | None = None
    """A running Ray cluster to join (HOST:PORT of its head, as `ray start --head` prints it);
    by default a Ray instance on this machine is started for the run."""
    fresh: bool = False
    """Delete the run folder and start over."""
    runs: Path = ROOT / "runs"
    """Where run folders go (under rllib/)."""
    cfg: Annotated[RLlibConfig, tyro.conf.OmitArgPrefixes] = field(default_factory=RLlibConfig)


def fail(message: str) -> NoReturn:
    """Stop with one line on stderr and exit status 2 (a user mistake, not a crash)."""
    train_config.fail(PROG, message)


def parse_args(argv: Sequence[str]) -> Command:
    """The command line (tyro; ``--help`` lists every field). Errors are one line.

    Raises:
        ConfigError: for a bad config file or field.
    """
    path = train_config.config_path(argv)
    default = Command(config=path, cfg=load_yaml(path) if path is not None else RLlibConfig())
    description = __doc__.split("\n\n")[0] if __doc__ else None
    command = train_config.parse_command(Command, default, argv, PROG, description)
    command.cfg.check()
    if command.address is not None:
        check_address(command.address)
    return command


def check_address(address: str) -> None:
    """Refuse an address with no Ray cluster behind it (before Ray tries for a minute).

    Raises:
        ConfigError: if it is not HOST:PORT, or nothing listens there.
    """
    host, colon, port = address.rpartition(":")
    if address == "auto":
        return
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"--address must be HOST:PORT of a Ray head node, not {address!r}")
    try:
        with socket.create_connection((host, int(port)), timeout=5):
            pass
    except OSError as e:
        raise ConfigError(
            f"no Ray cluster at {address!r} ({e.strerror or e}); start one with "
            f"'ray start --head' or leave out --address"
        ) from None


# ----------------------------------------------------------------------------- the run folder


@dataclass
class Run:
    """A run folder and the trainer's record of it (``state.json``)."""

    dir: Path
    step: int = 0
    iteration: int = 0
    seconds: float = 0.0
    next_eval: int = 0
    best_score: float = -1.0
    history: list[dict[str, Any]] = field(default_factory=list)
    league: dict[str, Any] = field(
        default_factory=lambda: {"snapshots": [], "next_index": 0, "last_snapshot_step": 0}
    )
    env_runners: list[dict[str, Any]] = field(default_factory=list)
    """Where the env runners ran (Ray node id and address) and the env steps each sampled."""

    @property
    def checkpoint(self) -> Path:
        return self.dir / "checkpoint"

    @property
    def best(self) -> Path:
        return self.dir / "best"

    @property
    def report_file(self) -> Path:
        return self.dir / "report.json"

    def save_state(self) -> None:
        record = {k: v for k, v in dataclasses.asdict(self).items() if k != "dir"}
        replace_whole(self.dir / "state.json", json.dumps(record, indent=1).encode("utf-8"))

    @classmethod
    def load(cls, folder: Path) -> Run | None:
        """The run in ``folder``, if it has a checkpoint and a record.

        Raises:
            ConfigError: for a damaged record.
        """
        state = folder / "state.json"
        if not state.exists() or not (folder / "checkpoint").is_dir():
            return None
        try:
            record = json.loads(state.read_text(encoding="utf-8"))
            return cls(dir=folder, **record)
        except (OSError, ValueError, TypeError) as e:
            raise ConfigError(
                f"the run record {state} is damaged ({e}); use --fresh to start over"
            ) from None


def spec_json(cfg: RLlibConfig) -> str:
    """``allfives.json`` of a checkpoint: the rules and observation options it plays."""
    from agents.learned import PolicySpec

    return json.dumps(PolicySpec(cfg.rules(), cfg.action_features).to_json(), indent=1)


# ----------------------------------------------------------------------------- the algorithm


def build(cfg: RLlibConfig, run: Run, address: str | None) -> Any:
    """Start (or join) Ray and build PPO with the league as ``run`` records it."""
    import logging

    import ray
    import torch
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from allfives_rllib.agent import MODULE_ID
    from allfives_rllib.env import AllFivesMultiAgentEnv
    from allfives_rllib.league import LeagueCallback
    from allfives_rllib.module import MaskedActorCritic

    torch.set_num_threads(cfg.torch_threads)
    os.environ.setdefault("RAY_DEDUP_LOGS", "1")
    if not ray.is_initialized():
        ray.init(
            address=address,
            include_dashboard=False,
            logging_level=logging.ERROR,
            log_to_driver=False,
            configure_logging=True,
            runtime_env={"env_vars": {"PYTHONPATH": str(ROOT)}} if address else None,
        )
    for name in ("ray.rllib", "ray._common.deprecation"):  # RLlib's notes to its developers
        logging.getLogger(name).setLevel(logging.ERROR)
    register_env("allfives", lambda c: AllFivesMultiAgentEnv(c))
    module = RLModuleSpec(
        module_class=MaskedActorCritic,
        model_config={
            "actor_arch": cfg.actor_arch,
            "critic_arch": cfg.critic_arch,
            "critic_state": cfg.critic_state,
        },
    )
    snapshots = list(run.league["snapshots"])
    league = json.loads(json.dumps(run.league))

    def callback() -> LeagueCallback:
        return LeagueCallback(
            cfg.rules(), league, cfg.pool_size, cfg.snapshot_every,
            cfg.snapshot_win_rate, cfg.latest_prob, cfg.seed,
        )  # fmt: skip

    config = (
        PPOConfig()
        .environment("allfives", env_config=cfg.env_config(), disable_env_checking=True)
        .framework("torch")
        .env_runners(
            num_env_runners=cfg.num_env_runners,
            num_envs_per_env_runner=cfg.num_envs_per_env_runner,
            num_cpus_per_env_runner=1,
        )
        .learners(num_learners=cfg.num_learners, num_cpus_per_learner=1)
        .multi_agent(
            policies={MODULE_ID, *snapshots},
            policy_mapping_fn=callback().mapping(),
            policies_to_train=[MODULE_ID],
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={m: module for m in (MODULE_ID, *snapshots)}
            )
        )
        .training(
            lr=cfg.learning_rate,
            gamma=cfg.gamma,
            lambda_=cfg.gae_lambda,
            clip_param=cfg.clip_coef,
            entropy_coeff=cfg.ent_coef,
            vf_loss_coeff=cfg.vf_coef,
            grad_clip=cfg.max_grad_norm,
            num_epochs=cfg.update_epochs,
            train_batch_size_per_learner=cfg.train_batch_size,
            minibatch_size=cfg.minibatch_size,
        )
        .callbacks(callback)
        .reporting(metrics_num_episodes_for_smoothing=200)
        .debugging(seed=cfg.seed, log_level="ERROR")
    )
    return config.build_algo()


def save_checkpoint(algo: Any, run: Run, cfg: RLlibConfig) -> None:
    """RLlib's checkpoint of everything, written beside the old one and then swapped in."""
    tmp = run.dir / "checkpoint.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    algo.save_to_path(str(tmp.resolve()))
    (tmp / "allfives.json").write_text(spec_json(cfg), encoding="utf-8")
    from allfives_rllib.league import league_callback

    run.league = json.loads(json.dumps(league_callback(algo).league))
    old = run.dir / "checkpoint.old"
    shutil.rmtree(old, ignore_errors=True)
    if run.checkpoint.exists():
        os.replace(run.checkpoint, old)
    os.replace(tmp, run.checkpoint)
    shutil.rmtree(old, ignore_errors=True)
    run.save_state()


def evaluate_folder(
    cfg: RLlibConfig, folder: Path, opponents: list[str], matches: int, seed: int
) -> dict[str, Any]:
    """Duplicate-deal evaluation of the module in ``folder`` against each opponent spec (at
    every other side): :func:`agents.eval.tournament.evaluate_against`."""
    from agents.eval.tournament import evaluate_against

    return evaluate_against(
        cfg.rules(), f"rllib:{folder}", opponents, matches, seed, cfg.eval_processes
    )


def evaluate_now(algo: Any, run: Run, cfg: RLlibConfig, writer: Any) -> None:
    """Evaluate the main module as it is now; keep it as ``best/`` if it is the best so far."""
    from allfives_rllib.agent import MODULE_DIR, MODULE_ID

    folder = run.dir / "evals" / f"step_{run.step:010d}"
    shutil.rmtree(folder, ignore_errors=True)
    (folder / MODULE_DIR).mkdir(parents=True)
    algo.get_module(MODULE_ID).save_to_path(str((folder / MODULE_DIR / MODULE_ID).resolve()))
    (folder / "allfives.json").write_text(spec_json(cfg), encoding="utf-8")
    result = evaluate_folder(cfg, folder, cfg.eval_opponents, cfg.eval_matches, cfg.seed + run.step)
    score = sum(r["win_rate"] for r in result.values()) / len(result)
    run.history.append({"step": run.step, "results": result, "score": score, "time": time.time()})
    for spec, r in result.items():
        writer.add_scalar(f"eval/win_rate_vs_{spec}", r["win_rate"], run.step)
    if score > run.best_score:
        run.best_score = score
        tmp = run.dir / "best.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(folder, tmp)
        shutil.rmtree(run.best, ignore_errors=True)
        os.replace(tmp, run.best)


SCALARS = {
    "env_runners/episode_return_mean": "rollout/episode_return_mean",
    "env_runners/episode_len_mean": "rollout/episode_len_mean",
    "learners/main/policy_loss": "train/policy_loss",
    "learners/main/vf_loss": "train/value_loss",
    "learners/main/entropy": "train/entropy",
    "learners/main/mean_kl_loss": "train/kl",
    "league_size": "league/size",
    "league_win_rate": "league/main_win_rate",
}
"""RLlib's result keys → the TensorBoard scalars written each iteration."""


def where_runners_ran(algo: Any) -> list[dict[str, Any]]:
    """Each env runner's Ray node (id and address) and the env steps its process took (since
    it started: a resumed run counts from the resume)."""
    import ray

    def probe(runner: Any) -> dict[str, Any]:
        from allfives_rllib.env import AllFivesMultiAgentEnv

        return {
            "node": ray.get_runtime_context().get_node_id(),
            "address": ray.util.get_node_ip_address(),
            "env_steps": AllFivesMultiAgentEnv.steps_in_process,
        }

    remote = algo.env_runner_group.num_remote_env_runners() > 0
    found: list[dict[str, Any]] = algo.env_runner_group.foreach_env_runner(
        probe, local_env_runner=not remote
    )
    return found


def _lookup(result: dict[str, Any], key: str) -> Any:
    node: Any = result
    for part in key.split("/"):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def train(cfg: RLlibConfig, run: Run, address: str | None) -> None:
    """PPO self-play until ``total_timesteps``, from the start or from ``run``'s checkpoint."""
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME
    from torch.utils.tensorboard import SummaryWriter

    from allfives_rllib.league import add_snapshot, league_callback

    resumed = run.checkpoint.is_dir()
    algo = build(cfg, run, address)
    if resumed:
        algo.restore_from_path(str(run.checkpoint.resolve()))
    else:
        add_snapshot(algo, league_callback(algo), 0)  # the untrained module joins the league
    writer = SummaryWriter(str(run.dir / "tb"))
    bar = None
    if cfg.progress:
        from tqdm import tqdm

        bar = tqdm(
            total=cfg.total_timesteps, initial=min(run.step, cfg.total_timesteps), unit="step",
            dynamic_ncols=True, file=sys.stderr,
        )  # fmt: skip
    started = time.perf_counter()
    try:
        while run.step < cfg.total_timesteps:
            result = algo.train()
            run.iteration += 1
            steps = int(result[ENV_RUNNER_RESULTS].get(NUM_ENV_STEPS_SAMPLED_LIFETIME, run.step))
            if bar is not None:
                bar.update(max(0, min(steps, cfg.total_timesteps) - bar.n))
            run.step = steps
            now = time.perf_counter()
            run.seconds += now - started
            started = now
            for key, name in SCALARS.items():
                value = _lookup(result, key)
                if isinstance(value, int | float):
                    writer.add_scalar(name, value, run.step)
            writer.add_scalar("time/env_steps_per_s", run.step / max(run.seconds, 1e-9), run.step)
            evaluate = run.step >= run.next_eval or run.step >= cfg.total_timesteps
            if evaluate:
                evaluate_now(algo, run, cfg, writer)
                run.next_eval = run.step + cfg.eval_every
                if bar is not None:
                    last = run.history[-1]["results"]
                    bar.set_postfix({s: f"{r['win_rate']:.2f}" for s, r in last.items()})
                started = time.perf_counter()
            if evaluate or run.iteration % cfg.checkpoint_every == 0:
                save_checkpoint(algo, run, cfg)
            stop_if_interrupted()
        run.env_runners = where_runners_ran(algo)
        save_checkpoint(algo, run, cfg)
    except KeyboardInterrupt:
        save_checkpoint(algo, run, cfg)
        raise
    finally:
        if bar is not None:
            bar.close()
        writer.close()
        algo.stop()


def finish(cfg: RLlibConfig, run: Run) -> dict[str, Any]:
    """The best module's final evaluation on deals of its own; ``report.json``."""
    final: dict[str, Any] = {}
    if cfg.final_eval_matches > 0:
        final = evaluate_folder(
            cfg, run.best, cfg.eval_opponents, cfg.final_eval_matches, cfg.seed + 10**9
        )
    report = {
        "config": dataclasses.asdict(cfg),
        "env_steps": run.step,
        "iterations": run.iteration,
        "train_seconds": run.seconds,
        "env_steps_per_s": run.step / max(run.seconds, 1e-9),
        "league": run.league,
        "env_runners": run.env_runners,
        "history": run.history,
        "best": str(run.best),
        "final_eval": final,
    }
    run.report_file.write_text(json.dumps(report, indent=1), encoding="utf-8")
    return report


def _yaml(cfg: RLlibConfig) -> str:
    return str(yaml.safe_dump(dataclasses.asdict(cfg), sort_keys=False))


def main(argv: Sequence[str] | None = None) -> int:
    """Train as the command line says; return the exit status."""
    run: Run | None = None
    try:
        stop_if_interrupted()
        command = parse_args(sys.argv[1:] if argv is None else argv)
        cfg = command.cfg
        folder = command.runs / "rllib" / cfg.name
        with hold_run_folder(folder):  # one process a run folder: a second is refused
            if command.fresh and folder.exists():
                shutil.rmtree(folder)
            saved_cfg = folder / "config.yaml"
            if saved_cfg.exists() and (folder / "state.json").exists():
                old = yaml.safe_load(saved_cfg.read_text(encoding="utf-8"))
                new = dataclasses.asdict(cfg)
                diff = sorted(
                    k
                    for k in new
                    if k not in ("total_timesteps", "progress") and old.get(k) != new[k]
                )
                if diff:
                    raise ConfigError(
                        f"{folder} was trained with another config (differs in {', '.join(diff)}); "
                        f"use --name for a new run or --fresh to start over"
                    )
            run = Run.load(folder) or Run(dir=folder)
            if run.step >= cfg.total_timesteps and run.report_file.exists():
                print(f"{folder} is complete ({run.step:,} steps): {run.report_file}")
                return 0
            if run.step:
                print(f"resuming {folder} from step {run.step:,}", flush=True)
            check_space(folder)  # a full disk: one line, before anything is written
            quiet_full_disk_in_threads()
            folder.mkdir(parents=True, exist_ok=True)
            replace_whole(saved_cfg, _yaml(cfg).encode("utf-8"))
            stop_if_interrupted()
            if run.step < cfg.total_timesteps:
                train(cfg, run, command.address)
            report = finish(cfg, run)
    except ConfigError as e:
        fail(str(e))
    except OSError as e:
        if not is_disk_full(e):
            raise
        remove_partial(folder)
        fail(full_disk_message(folder))
    except KeyboardInterrupt:
        where = f"; the last checkpoint is in {run.dir}" if run is not None else ""
        print(f"\ninterrupted{where}: run the same command to continue", file=sys.stderr)
        return 130
    print(json.dumps(report["final_eval"], indent=1))
    print(f"report: {run.report_file}\nbest: {run.best} (play it as rllib:{run.dir})")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("\ninterrupted: run the same command to continue", file=sys.stderr)
        sys.exit(130)
