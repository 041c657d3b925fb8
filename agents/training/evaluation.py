"""Evaluation during and after training: the duplicate-deal evaluator on checkpoints, the best
so far kept as ``best.zip``, its final choice and evaluation, TensorBoard scalars, the policies
kept for a learning curve (``curve/``), the report and the learning curve's plot.
"""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.files import replace_whole
from agents.training.curve import with_point, write_index
from agents.training.run import Run, say

if TYPE_CHECKING:
    from agents.training.learner import Learner
    from agents.training.selfplay_config import Config


def evaluate_checkpoint(
    cfg: Config, path: Path, opponents: list[str], matches: int, seed: int, bars: bool = False
) -> dict[str, Any]:
    """Duplicate-deal evaluation of the checkpoint at ``path`` against each opponent spec (at
    every other side): :func:`agents.eval.tournament.evaluate_against`. ``bars``: a progress
    bar per opponent (where no training bar is open)."""
    from agents.eval.tournament import evaluate_against

    return evaluate_against(
        cfg.rules(), str(path), opponents, matches, seed, cfg.eval_processes, bars and cfg.progress
    )


def value_file(learner: Learner) -> dict[str, bytes]:
    """The checkpoint's value network (``value_head``), by its file name; none without it."""
    from agents.value_network import VALUE_FILE

    cfg = learner.cfg
    if not cfg.value_head:
        return {}
    return {VALUE_FILE: learner.net.value_to_numpy(cfg.rules().target).to_npz()}


def evaluate_now(learner: Learner, label: str, writer: Any) -> None:
    """Evaluate the current policy; keep it as ``best.zip`` if it is the best so far."""
    from agents.learned import write_checkpoint

    cfg, run = learner.cfg, learner.run
    t0 = time.perf_counter()
    write_checkpoint(run.latest, run.spec(), learner.net.to_numpy(), value_file(learner))
    step = run.imitated + run.step
    first = label == "untrained"  # before the training bar: this one shows its own
    if first:
        say(cfg, f"evaluating the untrained policy: {cfg.eval_matches} matches against each "
            f"of {', '.join(cfg.eval_opponents)}")  # fmt: skip
    elif not cfg.progress:  # (with it, the bar's figures follow each evaluation)
        say(cfg, f"evaluating at step {step:,} ({label}): {cfg.eval_matches} matches against "
            f"each of {', '.join(cfg.eval_opponents)}")  # fmt: skip
    result = evaluate_checkpoint(
        cfg, run.latest, cfg.eval_opponents, cfg.eval_matches, cfg.seed + step, bars=first
    )
    score = float(np.mean([r["win_rate"] for r in result.values()]))
    run.history.append(
        {"step": step, "phase": label, "results": result, "score": score, "time": time.time()}
    )
    for spec, r in result.items():
        writer.add_scalar(f"eval/win_rate_vs_{spec}", r["win_rate"], step)
    if score > run.best_score and label != "untrained":
        run.best_score = score
        replace_whole(run.best, run.latest.read_bytes())
    run.timing["eval"] += time.perf_counter() - t0


def save_curve_point(learner: Learner) -> None:
    """Keep the policy being trained as the learning curve's point at the current PPO step
    (:mod:`agents.training.curve`): ``curve/<steps, 12 digits>.zip`` (a checkpoint like
    ``latest.zip``, playable by its path), then ``curve/index.json``
    (``{"points": [{"env_steps", "agent"}, ...]}``, ``agent`` the path relative to the run
    folder), each written whole. A point already at this step or beyond (left by a session
    stopped before its resume point) is replaced."""
    from agents.learned import write_checkpoint

    run = learner.run
    path = run.curve_file_of(run.step)
    run.curve_dir.mkdir(parents=True, exist_ok=True)
    write_checkpoint(path, run.spec(), learner.net.to_numpy(), value_file(learner))
    point = {"env_steps": run.step, "agent": path.relative_to(run.dir).as_posix()}
    run.curve = with_point(run.curve, point)
    write_index(run.dir, run.curve, newline=True)


def teacher_positions(cfg: Config, imitated: int) -> int:
    """The positions a search teacher labelled in the first ``imitated`` steps of the warm
    start: every one of them (the teacher is asked about each position, whether or not its
    move is played) when it is a value search (``search``, ``batchsearch``: its values with
    ``imitation_targets: values``, or its choice), else 0 (an agent's choice, such as the
    heuristic's, is no search)."""
    if imitated <= 0:
        return 0
    if cfg.imitation_targets == "values":
        return imitated
    from agents.registry import make_agent
    from agents.search import ValueSearch

    return imitated if isinstance(make_agent(cfg.imitation_teacher), ValueSearch) else 0


def log(
    writer: Any, run: Run, info: dict[str, float], stats: dict[str, float], step: int, phase: str
) -> None:
    """TensorBoard scalars of one rollout and update."""
    for key, value in stats.items():
        writer.add_scalar(f"{phase}/{key}", value, step)
    if info["episodes"]:
        writer.add_scalar(f"{phase}/table_win_rate", info["won"] / info["episodes"], step)
    seconds = sum(run.timing[k] for k in ("env", "policy", "update"))
    if seconds:
        writer.add_scalar("charts/learner_steps_per_s", (run.imitated + run.step) / seconds, step)


def choose_best(cfg: Config, run: Run) -> dict[str, Any]:
    """Settle ``best.zip``: the best periodic evaluation, or the final weights (``latest.zip``)
    if they do at least as well on deals of their own (seed 2·10⁶ + seed,
    ``final_eval_matches`` per opponent, the same deals for both).

    Each periodic evaluation is one noisy sample, and the best of many is flattered by its
    noise, while the final weights have had the whole annealed run; a fresh, paired comparison
    settles it. The final evaluation's deals (seed 10⁶ + seed) serve neither choice, so its
    figures stay unbiased. Returns what was compared and kept (empty when nothing was)."""
    if cfg.final_eval_matches <= 0 or not run.best.exists() or not run.latest.exists():
        return {}
    if run.best.read_bytes() == run.latest.read_bytes():
        return {"kept": "final weights (also the best periodic evaluation)"}
    seed = 2 * 10**6 + cfg.seed
    n = cfg.final_eval_matches
    scores = {}
    say(cfg, f"choosing best.zip: the best periodic evaluation or the final weights, {n} "
        "matches each against each opponent")  # fmt: skip
    for label, path in (("best periodic", run.best), ("final weights", run.latest)):
        result = evaluate_checkpoint(cfg, path, cfg.eval_opponents, n, seed, True)
        scores[label] = float(np.mean([r["win_rate"] for r in result.values()]))
    final_wins = scores["final weights"] >= scores["best periodic"]
    kept = "final weights" if final_wins else "best periodic"
    if final_wins:
        replace_whole(run.best, run.latest.read_bytes())
    return {"mean_win_rate": scores, "matches": n, "seed": seed, "kept": kept}


def finish(cfg: Config, run: Run) -> dict[str, Any]:
    """The choice of ``best.zip``, its final evaluation, the report and the learning curve.

    The report says the run's budget: ``env_steps``, the PPO steps taken (the learner's own
    decisions, ``num_envs`` × ``num_steps`` a rollout, each one step of the batched engine at
    the learner's turn; the opponents' moves are not counted, nor, with ``forced_actions:
    auto``, the learner's forced draws and passes, taken for it; with ``explicit`` they are
    its steps); ``imitation_samples``, the warm start's steps taken (counted alike, not env
    steps of PPO); ``teacher_positions`` (:func:`teacher_positions`); and ``curve``, the
    points of ``curve/index.json`` (empty without ``curve_points``)."""
    t0 = time.perf_counter()
    selection = choose_best(cfg, run)
    final: dict[str, Any] = {}
    if cfg.final_eval_matches > 0 and run.best.exists():
        say(cfg, f"the final evaluation: {cfg.final_eval_matches} matches against each of "
            f"{', '.join(cfg.eval_opponents)}")  # fmt: skip
        final = evaluate_checkpoint(
            cfg, run.best, cfg.eval_opponents, cfg.final_eval_matches, 10**6 + cfg.seed, True
        )
    eval_seconds = time.perf_counter() - t0
    timing = run.timing
    learn = timing["env"] + timing["policy"] + timing["update"]
    report = {
        "config": dataclasses.asdict(cfg),
        "steps": {"imitation": run.imitated, "ppo": run.step},
        "env_steps": run.step,
        "imitation_samples": run.imitated,
        "teacher_positions": teacher_positions(cfg, run.imitated),
        "curve": run.curve,
        "history": run.history,
        "best_score": run.best_score,
        "selection": selection,
        "final_eval": final,
        "final_eval_seconds": eval_seconds,
        "throughput": {
            "learner_steps_per_second": (run.imitated + run.step) / learn if learn else None,
            "training_seconds": run.seconds,
            "time_share": {k: v / max(1e-9, sum(timing.values())) for k, v in timing.items()},
        },
    }
    replace_whole(run.report_file, json.dumps(report, indent=1).encode("utf-8"))
    plot_curve(run)
    return report


def plot_curve(run: Run) -> None:
    """Win rate against each evaluation opponent over training steps, with 95% CIs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for spec in run.cfg.eval_opponents:
        pts = [(h["step"], h["results"][spec]) for h in run.history if spec in h["results"]]
        if not pts:
            continue
        x = [p[0] for p in pts]
        y = [p[1]["win_rate"] for p in pts]
        lo = [p[1]["ci95"][0] for p in pts]
        hi = [p[1]["ci95"][1] for p in pts]
        ax.plot(x, y, marker="o", label=f"vs {spec}")
        ax.fill_between(x, lo, hi, alpha=0.2)
    if run.imitated:
        ax.axvline(run.imitated, color="grey", lw=0.8, ls=":", label="end of the warm start")
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("learner steps")
    ax.set_ylabel("match win rate")
    ax.set_ylim(0, 1)
    ax.set_title(f"{run.cfg.name}: {run.cfg.rules().describe()}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(run.curve_file, dpi=100)
    plt.close(fig)
