"""Self-play training on the batched engine, top to bottom: what ``train.py`` runs.

1. The config — :class:`~agents.training.selfplay_config.Config`.
2. The table — :func:`~agents.training.table.make_table`: ``num_envs`` games on the batched
   engine, the learner at one seat of each, every other seat drawn each episode from a
   :class:`~agents.training.table.Pool` of baseline agents and the learner's frozen snapshots.
3. The network — :class:`agents.training.torch_networks.ScorerNet`, held with its optimizer by
   the :class:`~agents.training.learner.Learner`.
4. The warm start — imitation of a teacher (its choices, or a search's values:
   :class:`agents.training.teacher.SearchTeacher`), then, optionally, a refit over every
   position it met.
5. PPO — :meth:`~agents.training.learner.Learner.collect` a rollout,
   :meth:`~agents.training.learner.Learner.update`; snapshots into the pool; periodic
   evaluation (:mod:`agents.training.evaluation`); the learning curve's policies
   (``curve_points``: :mod:`agents.training.curve`,
   :func:`~agents.training.evaluation.save_curve_point`); a resume point
   after every update (:mod:`agents.training.resume`).
6. The end — :func:`~agents.training.evaluation.finish`: ``best.zip`` settled, its final
   evaluation, ``report.json`` and ``learning_curve.png``.

``python -m agents.training.selfplay`` runs it as ``train.py`` does (the benchmark's best
response runs it so, from an installed package).
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from collections.abc import Sequence
from typing import Any

from agents.training.config import ConfigError
from agents.training.curve import due as curve_due
from agents.training.entry import INTERRUPTS, Session, run_command
from agents.training.evaluation import evaluate_now, finish, log, save_curve_point
from agents.training.learner import Learner
from agents.training.resume import restore, save_resume_point, seed_everything
from agents.training.resume_check import check_resume_files, load_resume_point, resume_message
from agents.training.run import Run, say
from agents.training.run_folder import open_run_folder, write_config
from agents.training.selfplay_config import PROG, RUN_KIND, Config, parse_args


def train(cfg: Config, run: Run, saved: dict[str, Any] | None, address: str | None = None) -> None:
    """The warm start and PPO, from the start or from ``saved`` (a resume point); a teacher of
    values runs on the Ray cluster at ``address`` if given (the same targets)."""
    import torch as th
    from torch.utils.tensorboard import SummaryWriter

    from agents.training.device import engine_thread_count, make_deterministic, resolve_device
    from allfives_env.vector import set_num_threads

    th.set_num_threads(cfg.torch_threads)
    set_num_threads(engine_thread_count(cfg.engine_threads, cfg.torch_threads))
    make_deterministic(resolve_device(cfg.device))
    seed_everything(cfg)
    say(cfg, "making the table of games and the network (compiling the engine the first time)")
    learner = Learner.at_new_table(cfg, run)
    learner.attach_teacher(address)
    if saved is not None:
        try:
            restore(learner, saved)  # before TensorBoard's writer makes its file
        except ConfigError:
            learner.close_teacher()
            raise
    pool, batch = learner.pool, learner.batch
    writer = SummaryWriter(str(run.dir / "tb"))
    if saved is None:
        shutil.rmtree(run.curve_dir, ignore_errors=True)  # left by one stopped before resuming
        pool.add(learner.net.to_numpy())  # the untrained policy: the first snapshot
        batch.reset(cfg.seed)
        evaluate_now(learner, "untrained", writer)
    bar = None
    total = cfg.imitation_samples + cfg.total_timesteps
    if cfg.progress:
        from tqdm import tqdm

        done = run.imitated + run.step
        bar = tqdm(total=total, initial=done, unit="step", dynamic_ncols=True, file=sys.stderr)
    per_rollout = cfg.num_envs * cfg.num_steps
    started = time.perf_counter()
    try:
        if run.imitated < cfg.imitation_samples:
            say(cfg, f"the warm start: {cfg.imitation_samples:,} learner steps imitating "
                f"{cfg.imitation_teacher}{_from(run.imitated)}")  # fmt: skip
        while run.imitated < cfg.imitation_samples:  # 4. the warm start
            if cfg.imitation_anneal_lr:
                frac = 1.0 - run.imitated / cfg.imitation_samples
                learner.optimizer.param_groups[0]["lr"] = frac * cfg.learning_rate
            info = learner.collect(imitation=True)
            stats = learner.update(imitation=True)
            run.imitated += per_rollout
            log(writer, run, info, stats, run.imitated, "imitation")
            if bar is not None:
                bar.update(per_rollout)
                bar.set_postfix(imitation=f"{stats['imitation_accuracy']:.2f}")
            if run.imitated >= cfg.imitation_samples:
                learner.close_teacher()  # its workers, before the evaluation's
                if cfg.imitation_refit_epochs > 0:
                    say(cfg, f"the refit: {cfg.imitation_refit_epochs} epochs over every "
                        "position the warm start kept")  # fmt: skip
                    refit = learner.refit()
                    log(writer, run, {"episodes": 0}, refit, run.imitated, "refit")
                    print(
                        f"refit: {cfg.imitation_refit_epochs} epochs over the warm start's "
                        f"{int(refit['positions']):,} positions",
                        flush=True,
                    )
                pool.add(learner.net.to_numpy())
                evaluate_now(learner, "imitation", writer)
            run.seconds += time.perf_counter() - started
            started = time.perf_counter()
            save_resume_point(learner)
            if run.imitated >= cfg.imitation_samples:
                shutil.rmtree(run.positions_dir, ignore_errors=True)  # learned from
            INTERRUPTS.check()
        if run.step < cfg.total_timesteps:
            say(cfg, f"PPO: {cfg.total_timesteps:,} learner steps{_from(run.step)}, evaluated "
                f"every {cfg.eval_every:,}")  # fmt: skip
        while run.step < cfg.total_timesteps:  # 5. PPO
            if cfg.anneal_lr:
                frac = 1.0 - run.step / cfg.total_timesteps
                learner.optimizer.param_groups[0]["lr"] = frac * cfg.learning_rate
            info = learner.collect(imitation=False)
            stats = learner.update(imitation=False)
            before, run.step = run.step, run.step + per_rollout
            log(writer, run, info, stats, run.imitated + run.step, "ppo")
            if bar is not None:
                bar.update(per_rollout)
            if run.step >= run.next_snapshot:
                pool.add(learner.net.to_numpy())
                run.next_snapshot += cfg.snapshot_every
            if curve_due(before, run.step, cfg.total_timesteps, cfg.curve_points):
                save_curve_point(learner)  # before the resume point: redone if stopped between
            if run.step >= run.next_eval or run.step >= cfg.total_timesteps:
                evaluate_now(learner, "ppo", writer)
                run.next_eval += cfg.eval_every
                if bar is not None:
                    last = run.history[-1]["results"]
                    bar.set_postfix({s: f"{r['win_rate']:.2f}" for s, r in last.items()})
            run.seconds += time.perf_counter() - started
            started = time.perf_counter()
            save_resume_point(learner)
            INTERRUPTS.check()
    finally:
        learner.close_teacher()
        if bar is not None:
            bar.close()
        writer.close()


def hardware(cfg: Config) -> str:
    """Where the run's parts run: the learner's device, the engine's and torch's threads."""
    from agents.training.device import engine_thread_count, resolve_device

    engine = engine_thread_count(cfg.engine_threads, cfg.torch_threads)
    return (
        f"the learner on {resolve_device(cfg.device)}, the engine on {engine} thread(s), "
        f"torch on {cfg.torch_threads}"
    )


def _from(done: int) -> str:
    """Where a resumed phase goes on from (nothing for one that begins)."""
    return f", from {done:,}" if done else ""


def main(argv: Sequence[str] | None = None, noted: bool = False) -> int:
    """Train as the command line says (``sys.argv`` by default); return the exit status.
    ``noted``: a Ctrl-C came before (see :mod:`agents.training.entry`)."""
    args = sys.argv[1:] if argv is None else argv
    return run_command(Session(PROG), lambda session: _run(session, args), noted)


def _run(session: Session, argv: Sequence[str]) -> int:
    """The run folder's life around :func:`train`: fresh, resumed, complete or refused."""
    command = parse_args(argv)
    cfg = command.cfg
    run = Run(cfg, command.runs)
    session.folder, session.resumable = run.dir, run.state_file.exists
    with open_run_folder(run.dir, command.fresh, RUN_KIND):  # one process a run folder
        saved = load_resume_point(run, cfg)  # every file it reads, checked: nothing written
        if saved is not None:
            done = saved["num_timesteps"]
            if done >= cfg.total_timesteps and run.report_file.exists():
                print(f"{run.dir} is complete ({done:,} steps): {run.report_file}")
                return 0
            check_resume_files(run, cfg, saved)
            print(resume_message(run, cfg, saved), flush=True)
        write_config(run.dir, cfg, RUN_KIND)
        warm = f" after a warm start of {cfg.imitation_samples:,}" if cfg.imitation_samples else ""
        say(cfg, f"run {cfg.name!r}: {cfg.rules().describe()}, {cfg.total_timesteps:,} steps of "
            f"PPO{warm}, into {run.dir}/ (config.yaml holds every setting); "
            f"{hardware(cfg)}")  # fmt: skip
        INTERRUPTS.check()
        train(cfg, run, saved, command.address)
        final = finish(cfg, run)
    print(json.dumps(final["final_eval"], indent=1))
    print(f"report: {run.report_file}\ncurve: {run.curve_file}\nbest: {run.best}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
