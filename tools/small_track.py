"""The benchmark's small track: learners trained on the tiny game, measured exactly.

On the tiny game (``pagat``, double-two, hands of 2, one hand a game: the game the exact solver
and OpenSpiel's ``nash_conv`` both solve), every number here is exact, not a proxy:

- **PPO** (``train.py``, tabula rasa: self-play against its own snapshots, no teacher),
  **MAPPO** (BenchMARL's, every seat one shared policy) and **NFSP** (OpenSpiel's, through
  ``python -m allfives_openspiel.train``) are the sweep's recipes on its exact setting
  ``tiny-2p`` (``allfives sweep --settings tiny-2p --tiers 300k``: the same budget of env
  steps, a decision of the policy being trained in whichever seat, ten policies kept along
  the way), from each seed; the sweep measures each point's exact NashConv
  (:mod:`agents.benchmark.exact_measure`: PPO's as it samples, the softmax over its legal
  actions, and as it plays in ``allfives eval``, its most likely action; MAPPO's exported
  actor as it plays, its most likely action; NFSP's average policy);
- the benchmark's **approximate best response** (``train.py`` against the frozen agent, the
  large settings' budget: imitation of the heuristic, then PPO) is trained against fixed agents
  on the tiny game, and its exact gain against the agent is set beside the exact best
  response's: how far below the exact exploitability the large settings' proxy lands.

Each run is a folder under ``--out`` (the learners' under ``OUT/sweep``, each with its own
result file; done runs are kept and not run again); ``result.json`` holds the best responses'
figures with their commands, the commit, versions and the machine; the report prints Markdown
and draws ``small_track.png``::

    python tools/small_track.py --out runs/small_track --seeds 0 1 2

Run it on a quiet machine for the times (the figures themselves do not depend on the load).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import numpy as np

from agents.benchmark.protocol import TINY_2P

ROOT = Path(__file__).resolve().parents[1]


def source() -> dict[str, Any]:
    from agents.benchmark.provenance import source as of_checkout

    return of_checkout()


def run(cmd: list[str], log: Path) -> float:
    """Run ``cmd`` from the repository root, its output to ``log``; its wall seconds.

    Raises:
        SystemExit: with the log's last line, if it fails.
    """
    t0 = time.perf_counter()
    with log.open("w") as f:
        proc = subprocess.run(
            cmd,
            cwd=ROOT,
            stdout=f,
            stderr=subprocess.STDOUT,
            env=dict(os.environ, PYTHONHASHSEED="0"),
        )
    if proc.returncode != 0:
        tail = (log.read_text().strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"small_track: {' '.join(cmd[:4])} … failed: {tail}")
    return time.perf_counter() - t0


def br_command(folder: Path, opponent: str, seed: int) -> list[str]:
    """The benchmark's best response (its budget and flags) to ``opponent``, on the tiny game."""
    from agents.benchmark.protocol import FULL
    from agents.benchmark.run import best_response_command

    cmd = best_response_command(opponent, FULL.setting("pagat-2p"), FULL, folder, 1)
    cmd[cmd.index("--seed") + 1] = str(seed)
    return [*cmd, *TINY_2P.trainer_flags()]


class Measure:
    """Exact values on the tiny game's tree, built once."""

    def __init__(self) -> None:
        from agents.benchmark.exact_measure import solver_for

        self.solver = solver_for(TINY_2P.rules())
        self.tree = self.solver.tree
        self.range = float(self.tree.utility_range)

    def policy(self, spec: str, sample: bool = False) -> Any:
        from agents.exact.policy import measured_agent, policy_of_agent

        return policy_of_agent(self.tree, measured_agent(spec, self.tree.rules, sample))

    def nash_conv(self, spec: str, sample: bool = False) -> float:
        return float(self.solver.nash_conv(self.policy(spec, sample)))

    def against(self, responder: Any, agent: Any) -> list[float]:
        """Each seat's exact value (in its own utility) when ``responder``'s policy plays that
        seat against ``agent``'s: what :meth:`Solver.best_response` gives for the best
        response."""
        out = []
        for seat in (0, 1):
            mixed = agent.copy()
            mine = np.repeat(self.tree.player == seat, self.tree.width)
            mixed[mine] = responder[mine]
            value = float(self.solver.value(mixed))
            out.append(value if seat == 0 else -value)
        return out


TRAINERS = ("trainpy-ppo", "benchmarl-mappo", "openspiel-nfsp")
"""The small track's recipes (:mod:`agents.benchmark.recipes`)."""


def trainer_runs(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The learners' runs: ``allfives sweep`` of :data:`TRAINERS` on the exact setting
    ``tiny-2p``, the tier ``--tier`` (300k) of ``--protocol``, tabula rasa, into ``OUT/sweep``
    (done runs are kept); each run's result file (its curve measured exactly at every
    point)."""
    from agents.benchmark.sweep import plan, run_sweep
    from agents.benchmark.training import TRAINING_PROTOCOLS

    protocol = TRAINING_PROTOCOLS[args.protocol]
    where = args.out / "sweep"
    planned = plan(protocol, TRAINERS, ["tiny-2p"], ["tabula_rasa"], [args.tier], args.seeds, where)
    return run_sweep(planned, progress=False)


def br_runs(args: argparse.Namespace, m: Measure) -> list[dict[str, Any]]:
    from agents.exact.policy import policy_of_agent
    from agents.registry import agent_for

    rows = []
    for opponent in args.opponents:
        agent = policy_of_agent(m.tree, agent_for(opponent, m.tree.rules))
        exact = [float(m.solver.best_response(agent, p)[0]) for p in (0, 1)]
        for seed in args.br_seeds or args.seeds:
            folder = args.out / "best_response" / opponent.replace(":", "_") / f"seed{seed}"
            done = folder / "result.json"
            if done.exists():
                rows.append(json.loads(done.read_text()))
                continue
            folder.mkdir(parents=True, exist_ok=True)
            cmd = br_command(folder, opponent, seed)
            print(f"small_track: best response to {opponent} seed {seed}", flush=True)
            seconds = run(cmd, folder / "train.log")
            responder = m.policy(str(folder / "best_response" / "best.zip"))
            row = {
                "opponent": opponent,
                "seed": seed,
                "command": cmd,
                "seconds": round(seconds, 1),
                "commit": source().get("commit"),
                "exact_best_response": exact,
                "ppo_best_response": m.against(responder, agent),
            }
            done.write_text(json.dumps(row, indent=1))
            rows.append(row)
    return rows


def fixed_rows(m: Measure) -> list[tuple[str, float]]:
    """The solver's CFR+ at a few iteration counts and the fixed agents, exactly."""
    rows = []
    for iterations in (10, 100, 1000):
        policy, _ = m.solver.cfr_plus(iterations)
        rows.append(
            (f"CFR+ (the solver), {iterations:,} iterations", float(m.solver.nash_conv(policy)))
        )
    for spec in ("heuristic", "greedy", "random"):
        rows.append((f"`{spec}`", m.nash_conv(spec)))
    return rows


READS: dict[str, tuple[tuple[str, str], ...]] = {
    "train.py PPO": (
        ("as it samples", "nash_conv_sampled"),
        ("most likely action", "nash_conv"),
    ),
    "BenchMARL MAPPO": (("most likely action", "nash_conv"),),
    "OpenSpiel NFSP": (("average policy", "nash_conv"),),
}
"""How each algorithm's policy is read: (what the curve shows, its key in a curve point)."""


def curves(rows: list[dict[str, Any]]) -> list[tuple[str, list[float], list[list[float]]]]:
    """Per algorithm and reading: the k-th curve point's env steps (the mean over seeds) and
    each seed's NashConv there (the seeds' points are matched by index: their budgets are
    equal, the step a point lands on differs a little)."""
    out = []
    for name, reads in READS.items():
        runs = [r for r in rows if r["label"] == name]
        if not runs:
            continue
        k = min(len(r["curve"]) for r in runs)
        steps = [float(np.mean([r["curve"][i]["env_steps"] for r in runs])) for i in range(k)]
        for label, key in reads:
            vals = [[float(r["curve"][i]["exact"][key]) for r in runs] for i in range(k)]
            out.append((f"{name}, {label}", steps, vals))
    return out


def report(rows: list[dict[str, Any]], brs: list[dict[str, Any]], m: Measure, out: Path) -> str:
    lines = [
        f"Exact NashConv on the tiny game (range {m.range:g}); mean [min, max] over "
        f"{len({r['seed'] for r in rows})} seeds at each curve point.",
        "",
        "| algorithm, policy read | env steps | NashConv | of the range |",
        "|---|---:|---:|---:|",
    ]
    for label, steps, vals in curves(rows):
        for s, v in zip(steps, vals, strict=True):
            lines.append(
                f"| {label} | {s:,.0f} | {np.mean(v):.3f} [{min(v):.3f}, {max(v):.3f}] | "
                f"{np.mean(v) / m.range:.1%} |"
            )
    lines += [
        "",
        "Beside them, on the same tree: the solver's CFR+ and the fixed agents.",
        "",
        "| policy | NashConv | of the range |",
        "|---|---:|---:|",
    ]
    for label, value in fixed_rows(m):
        lines.append(f"| {label} | {value:.4g} | {value / m.range:.3%} |")
    lines += [
        "",
        "The benchmark's approximate best response, measured exactly: its gain against the "
        "agent, by seat, beside the exact best response's (mean over seeds).",
        "",
        "| agent | exact best response (seat 0, seat 1) | PPO best response | share of the exact |",
        "|---|---:|---:|---:|",
    ]
    for opponent in sorted({b["opponent"] for b in brs}):
        bs = [b for b in brs if b["opponent"] == opponent]
        exact = bs[0]["exact_best_response"]
        got = np.mean([b["ppo_best_response"] for b in bs], axis=0)
        share = float(np.sum(got) / np.sum(exact)) if np.sum(exact) > 0 else float("nan")
        lines.append(
            f"| `{opponent}` | {exact[0]:.4f}, {exact[1]:.4f} | {got[0]:.4f}, {got[1]:.4f} | "
            f"{share:.0%} |"
        )
    _plot(rows, out / "small_track.png", m.range)
    return "\n".join(lines)


def _plot(rows: list[dict[str, Any]], path: Path, span: float) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for label, steps, vals in curves(rows):
        ax.plot(steps, [float(np.mean(v)) for v in vals], marker="o", label=label)
        ax.fill_between(steps, [min(v) for v in vals], [max(v) for v in vals], alpha=0.2)
    ax.set_xlabel("env steps")
    ax.set_ylabel(f"exact NashConv (range {span:g})")
    ax.set_title("The tiny game: pagat, double-two, hands of 2")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, required=True, help="the folder of the runs")
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument(
        "--protocol",
        default="allfives-train/1",
        help="the training protocol (allfives-train/1-reduced with --tier smoke: a smoke test)",
    )
    p.add_argument("--tier", default="300k", help="the learners' budget tier (default 300k)")
    p.add_argument(
        "--br_seeds", type=int, nargs="+", help="the best responses' seeds (default: --seeds)"
    )
    p.add_argument(
        "--opponents", nargs="*", default=["heuristic", "greedy", "random"],
        help="agents whose best response is trained (the benchmark's budget; none: no best "
        "response)",
    )  # fmt: skip
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    m = Measure()
    rows = trainer_runs(args)
    brs = br_runs(args, m)
    from agents.benchmark.provenance import machine, versions

    text = report(rows, brs, m, args.out)
    about = {"machine": machine(), "source": source(), "versions": versions()}
    result = {"runs": [r["agent"] for r in rows], "best_responses": brs, **about}
    (args.out / "result.json").write_text(json.dumps(result, indent=1))
    print(text)


if __name__ == "__main__":
    main()
