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
   same command continues from it, once every file it reads is checked
   (:mod:`allfives_rllib.run_record`). TensorBoard scalars in ``tb/``; a progress bar, and a
   line on stderr as each phase begins.
7. The learning curve — with ``curve_points`` K > 0, the module being trained is saved at K
   points of the budget into ``curve/`` (each an agent, listed in ``curve/index.json``:
   :mod:`allfives_rllib.curve`).

A run folder is ``runs/rllib/<name>``: ``config.yaml``, ``checkpoint/``, ``best/``,
``evals/``, ``curve/``, ``tb/`` and, at the end, ``report.json`` (the budget spent, the curve,
the best module's final evaluation: :func:`finish`).
"""

from __future__ import annotations

import signal
import sys

_NOTED: list[bool] = []
"""Ctrl-C during the imports below: noted here, handed to the trainer, which stops at once."""

if __name__ == "__main__":
    signal.signal(signal.SIGINT, lambda *_: _NOTED.append(True))

from agents.training.entry import RLLIB_EXTRAS, require_extras  # noqa: E402

if __name__ == "__main__":
    require_extras("train_rllib.py", RLLIB_EXTRAS, "rllib", "training on RLlib")

import dataclasses  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import time  # noqa: E402
from collections.abc import Sequence  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Annotated, Any  # noqa: E402

import tyro  # noqa: E402

from agents.files import replace_whole  # noqa: E402
from agents.training import config as train_config  # noqa: E402
from agents.training.cluster import check_address  # noqa: E402
from agents.training.entry import INTERRUPTS, Session, run_command, tell  # noqa: E402
from agents.training.ownership import config_record  # noqa: E402
from agents.training.run_folder import (  # noqa: E402
    WAY_OUT,
    check_same_config,
    open_run_folder,
    write_config,
)
from allfives_rllib.algorithm import build, module_id  # noqa: E402
from allfives_rllib.config import ConfigError, RLlibConfig, load_yaml  # noqa: E402
from allfives_rllib.run_record import RLLIB_KIND, Run, digests, load_run, resume_message  # noqa: E402

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
    """Delete the run folder and start over (only a run folder train_rllib.py made: one that
    holds anything else is refused)."""
    runs: Path = Path("runs")
    """Where run folders go (under rllib/)."""
    cfg: Annotated[RLlibConfig, tyro.conf.OmitArgPrefixes] = field(default_factory=RLlibConfig)


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


# ----------------------------------------------------------------------------- the run folder


def policy_spec(cfg: RLlibConfig) -> Any:
    """The :class:`agents.learned.PolicySpec` of the module trained: the rules and observation
    options it plays."""
    from agents.learned import PolicySpec

    return PolicySpec(cfg.rules(), cfg.action_features)


def spec_json(cfg: RLlibConfig) -> str:
    """``allfives.json`` of a checkpoint: the rules and observation options it plays."""
    return json.dumps(policy_spec(cfg).to_json(), indent=1)


# ----------------------------------------------------------------------------- the algorithm


def save_checkpoint(algo: Any, run: Run, cfg: RLlibConfig) -> None:
    """RLlib's checkpoint of everything, written beside the old one; then, in three renames,
    it, the best module staged since the last (:func:`evaluate_now`) and the record
    (``state.json``, which holds the SHA-256 of every file of both) are swapped in."""
    tmp = run.dir / "checkpoint.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    algo.save_to_path(str(tmp.resolve()))
    (tmp / "allfives.json").write_text(spec_json(cfg), encoding="utf-8")
    if cfg.engine == "aec":  # (the batched table's league is the run's own record)
        from allfives_rllib.league import league_callback

        run.league = json.loads(json.dumps(league_callback(algo).league))
    run.checkpoint_files = digests(tmp)
    best_tmp = run.dir / "best.tmp"
    if run.staged_best:
        run.best_files = digests(best_tmp)
    replace_whole(run.state_file.with_name("state.json.tmp"), run.record())
    old = run.dir / "checkpoint.old"
    shutil.rmtree(old, ignore_errors=True)
    if run.checkpoint.exists():
        os.replace(run.checkpoint, old)
    os.replace(tmp, run.checkpoint)
    if run.staged_best:
        shutil.rmtree(run.dir / "best.old", ignore_errors=True)
        if run.best.exists():
            os.replace(run.best, run.dir / "best.old")
        os.replace(best_tmp, run.best)
        run.staged_best = False
    os.replace(run.state_file.with_name("state.json.tmp"), run.state_file)
    shutil.rmtree(old, ignore_errors=True)
    shutil.rmtree(run.dir / "best.old", ignore_errors=True)


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
    """Evaluate the main module as it is now; if it is the best so far, stage it as the next
    ``best/`` (:func:`save_checkpoint` swaps it in)."""
    from allfives_rllib.agent import write_agent_folder

    if not cfg.progress:  # (with it, the bar's figures follow each evaluation)
        tell(PROG, f"evaluating at step {run.step:,}: {cfg.eval_matches} matches against each "
             f"of {', '.join(cfg.eval_opponents)}")  # fmt: skip
    folder = run.dir / "evals" / f"step_{run.step:010d}"
    shutil.rmtree(folder, ignore_errors=True)
    write_agent_folder(folder, algo.get_module(module_id(cfg)), policy_spec(cfg))
    result = evaluate_folder(cfg, folder, cfg.eval_opponents, cfg.eval_matches, cfg.seed + run.step)
    score = sum(r["win_rate"] for r in result.values()) / len(result)
    run.history.append({"step": run.step, "results": result, "score": score, "time": time.time()})
    for spec, r in result.items():
        writer.add_scalar(f"eval/win_rate_vs_{spec}", r["win_rate"], run.step)
    if score > run.best_score:  # staged, and swapped in with the next checkpoint
        run.best_score = score
        tmp = run.dir / "best.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(folder, tmp)
        run.staged_best = True


SCALARS = {
    "env_runners/episode_return_mean": "rollout/episode_return_mean",
    "env_runners/episode_len_mean": "rollout/episode_len_mean",
    "learners/MODULE/policy_loss": "train/policy_loss",
    "learners/MODULE/vf_loss": "train/value_loss",
    "learners/MODULE/entropy": "train/entropy",
    "learners/MODULE/mean_kl_loss": "train/kl",
    "league_size": "league/size",
    "league_win_rate": "league/main_win_rate",
}
"""RLlib's result keys (``MODULE``: the trained module's id) → the TensorBoard scalars written
each iteration."""


def where_runners_ran(algo: Any) -> list[dict[str, Any]]:
    """Each env runner's Ray node (id and address) and the env steps its process took (since
    it started: a resumed run counts from the resume)."""
    import ray

    def probe(runner: Any) -> dict[str, Any]:
        from allfives_rllib.env import AllFivesMultiAgentEnv
        from allfives_rllib.vector_env import TableVectorEnv

        return {
            "node": ray.get_runtime_context().get_node_id(),
            "address": ray.util.get_node_ip_address(),
            "env_steps": AllFivesMultiAgentEnv.steps_in_process + TableVectorEnv.steps_in_process,
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
    where = f"joining the Ray cluster at {address}" if address else "starting Ray on this machine"
    tell(PROG, f"{where} and building PPO (importing RLlib takes a few seconds)")
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME
    from torch.utils.tensorboard import SummaryWriter

    from allfives_rllib import table_league
    from allfives_rllib.curve import Curve
    from allfives_rllib.league import add_snapshot, league_callback

    resumed = run.checkpoint.is_dir()
    curve = Curve.resume(run.dir, cfg.total_timesteps, cfg.curve_points, run.step)
    algo = build(cfg, run.league, address)
    batched = cfg.engine == "batched"
    snapshots = run.dir / "snapshots"
    shutil.rmtree(run.dir / "best.tmp", ignore_errors=True)  # staged by a run killed since
    if resumed:
        try:
            algo.restore_from_path(str(run.checkpoint.resolve()))
        except Exception as e:  # an earlier version's damaged checkpoint: RLlib raises many kinds
            algo.stop()
            detail = " ".join(str(e).split())[:200]
            raise ConfigError(
                f"{run.checkpoint} cannot be restored ({detail}); {WAY_OUT}"
            ) from None
        if batched:
            table_league.seat_saved(algo, snapshots, run.league)
    elif batched:
        if cfg.imitation_samples > 0:  # the warm start: train.py's imitation, then into RLlib
            from allfives_rllib.warm_start import imitate, load_into

            tell(PROG, f"the warm start: {cfg.imitation_samples:,} learner steps imitating "
                 f"{cfg.imitation_teacher} (compiling the engine the first time)")  # fmt: skip
            load_into(algo, module_id(cfg), imitate(cfg, run.dir / "warm_start"))
        table_league.take(algo, module_id(cfg), snapshots, run.league, 0)
        save_checkpoint(algo, run, cfg)
    else:
        add_snapshot(algo, league_callback(algo), 0)  # the untrained module joins the league
    left = "" if not run.step else f", from {run.step:,}"
    tell(PROG, f"PPO: {cfg.total_timesteps:,} env steps{left}, evaluated every "
         f"{cfg.eval_every:,}")  # fmt: skip
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
            if batched and run.step - run.league["last_snapshot_step"] >= cfg.snapshot_every:
                table_league.take(algo, module_id(cfg), snapshots, run.league, run.step)
            for key, name in SCALARS.items():
                value = _lookup(result, key.replace("MODULE", module_id(cfg)))
                if isinstance(value, int | float):
                    writer.add_scalar(name, value, run.step)
            writer.add_scalar("time/env_steps_per_s", run.step / max(run.seconds, 1e-9), run.step)
            pointed = curve.due(run.step)  # (then a checkpoint, which a resume goes on from)
            if pointed:
                curve.save(algo.get_module(module_id(cfg)), policy_spec(cfg), run.step)
            evaluate = run.step >= run.next_eval or run.step >= cfg.total_timesteps
            if evaluate:
                evaluate_now(algo, run, cfg, writer)
                run.next_eval = run.step + cfg.eval_every
                if bar is not None:
                    last = run.history[-1]["results"]
                    bar.set_postfix({s: f"{r['win_rate']:.2f}" for s, r in last.items()})
                started = time.perf_counter()
            if evaluate or pointed or run.iteration % cfg.checkpoint_every == 0:
                save_checkpoint(algo, run, cfg)
            INTERRUPTS.check()
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
    """The best module's final evaluation on deals of its own; ``report.json``.

    Beside the config, the history and the final evaluation, the report says the budget the
    run spent:

    - ``env_steps``: the counter the training loop runs to ``total_timesteps``, RLlib's
      ``NUM_ENV_STEPS_SAMPLED_LIFETIME``. On the batched engine it counts the learner's
      decisions only: one step per learner move of each game (the table's
      :class:`~allfives_rllib.table_runner.TableEnvRunner` counts its fragment's rows); the
      other seats' moves are played inside the batch and are not steps, and with
      ``forced_actions: auto`` neither are the learner's forced draws and passes (the engine
      takes them); with ``explicit`` those are steps. On the AEC env it counts every seat's
      moves, the snapshots' too (one ``step`` each; forced draws and passes as above).
    - ``imitation_samples``: the warm start's learner steps
      (:func:`allfives_rllib.warm_start.imitation_steps`: ``imitation_samples`` rounded up to
      whole rollouts; 0 without one, or on the AEC env); not env steps.
    - ``teacher_positions``: the positions a search teacher labelled in the warm start (0
      unless ``imitation_teacher`` is a search: :func:`allfives_rllib.warm_start.
      teacher_positions`).
    - ``curve``: ``curve/index.json``'s points (:mod:`allfives_rllib.curve`), or ``[]``.
    """
    from allfives_rllib.curve import read_index
    from allfives_rllib.warm_start import imitation_steps, teacher_positions

    final: dict[str, Any] = {}
    if cfg.final_eval_matches > 0:
        tell(PROG, f"the final evaluation: {cfg.final_eval_matches} matches against each of "
             f"{', '.join(cfg.eval_opponents)}")  # fmt: skip
        final = evaluate_folder(
            cfg, run.best, cfg.eval_opponents, cfg.final_eval_matches, cfg.seed + 10**9
        )
    report = {
        "config": dataclasses.asdict(cfg),
        "env_steps": run.step,
        "imitation_samples": imitation_steps(cfg),
        "teacher_positions": teacher_positions(cfg),
        "iterations": run.iteration,
        "train_seconds": run.seconds,
        "env_steps_per_s": run.step / max(run.seconds, 1e-9),
        "league": run.league,
        "env_runners": run.env_runners,
        "history": run.history,
        "best": str(run.best),
        "curve": read_index(run.dir),
        "final_eval": final,
    }
    replace_whole(run.report_file, json.dumps(report, indent=1).encode("utf-8"))
    return report


def main(argv: Sequence[str] | None = None, noted: bool = False) -> int:
    """Train as the command line says (``sys.argv`` by default); return the exit status.
    ``noted``: a Ctrl-C came before (see :mod:`agents.training.entry`)."""
    args = sys.argv[1:] if argv is None else argv
    session = Session(PROG, kept="the last checkpoint")
    # Ctrl-C is noted and stops the run after the cluster's iteration, with a checkpoint
    return run_command(session, lambda session: _run(session, args), noted, at_once=False)


def _run(session: Session, argv: Sequence[str]) -> int:
    """The run folder's life around :func:`train`: fresh, resumed, complete or refused."""
    command = parse_args(argv)
    cfg = command.cfg
    folder = command.runs / "rllib" / cfg.name
    session.folder = folder  # a full disk from here on (the lock file too) is one line
    with open_run_folder(folder, command.fresh, RLLIB_KIND):  # one process a run folder
        recorded = config_record(folder, RLLIB_KIND)  # a hand edit: refused, never overwritten
        loaded = load_run(folder, cfg)  # every file a resume reads, checked: nothing written
        if loaded is not None and recorded is not None:
            recorded = {"curve_points": 0, **recorded}  # (a run from before the field had none)
            check_same_config(folder, recorded, dataclasses.asdict(cfg))
        run = loaded or Run(dir=folder)
        session.resumable = run.checkpoint.is_dir
        if run.step >= cfg.total_timesteps and run.report_file.exists():
            print(f"{folder} is complete ({run.step:,} steps): {run.report_file}")
            return 0
        if loaded is not None:
            print(resume_message(run, cfg), flush=True)
        write_config(folder, cfg, RLLIB_KIND)
        engine = "the batched engine" if cfg.engine == "batched" else "the AEC env"
        tell(
            PROG,
            f"run {cfg.name!r}: {cfg.rules().describe()}, {cfg.total_timesteps:,} env "
            f"steps of PPO on {engine}, into {folder}/ (config.yaml holds every setting)",
        )
        INTERRUPTS.check()
        if run.step < cfg.total_timesteps:
            train(cfg, run, command.address)
        report = finish(cfg, run)
    print(json.dumps(report["final_eval"], indent=1))
    print(f"report: {run.report_file}\nbest: {run.best} (play it as rllib:{run.dir})")
    return 0


if __name__ == "__main__":
    sys.exit(main(noted=bool(_NOTED)))
