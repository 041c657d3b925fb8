"""The baseline table and learning curves, drawn from a sweep's result files alone.

:func:`rows` groups run results by protocol, setting, tier, track and recipe (one row each: no
row mixes tracks or tiers), and refuses a row that mixes recipes' commands or lacks the seeds
the protocol asks for. :func:`markdown` gives, per table, each row's mean win rate over seeds
with a bootstrap interval over seeds (:mod:`agents.benchmark.over_seeds`), the IQM, and each
seed's win rate with its match-level Wilson interval, beside the samples, wall time,
throughput (samples, env steps plus imitation samples, per wall second of training; marked
"on N CPU models" where the row's attempts ran on more than one, whose times then mix
machines) and the command that re-runs the row; a table of an exact setting (the small track)
adds each row's exact NashConv over seeds. :func:`plot_curves` draws every row's learning
curve (the mean over seeds, and the band from the lowest to the highest seed) against the
budget spent (env steps plus imitation samples, so that both tracks share an axis), and, for an
exact setting, the exact NashConv's.
"""

from __future__ import annotations

import functools
import shlex
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agents.benchmark.over_seeds import over_seeds
from agents.benchmark.sweep import SweepError, in_checkout
from agents.benchmark.training import TRAINING_PROTOCOLS

Key = tuple[str, str, str, str]
"""(protocol, setting, tier, track): one table."""


def rows(results: Sequence[dict[str, Any]]) -> dict[Key, dict[str, list[dict[str, Any]]]]:
    """The tables (by protocol, setting, tier's budget, track): each a dict of recipe → its
    runs (sorted by seed).

    Raises:
        SweepError: for a run given twice (same table, recipe and seed), a row whose runs do
            not share one command (apart from the seed and the folder), a row with fewer
            seeds than its protocol asks, or a result of an unknown protocol.
    """
    tables: dict[Key, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for r in results:
        if r["protocol"] not in TRAINING_PROTOCOLS:
            raise SweepError(f"a result of the unknown training protocol {r['protocol']!r}")
        key = (r["protocol"], r["setting"], r["tier"], r["track"])
        runs = tables[key][r["recipe"]]
        if any(x["seed"] == r["seed"] for x in runs):
            raise SweepError(f"{r['recipe']} {'/'.join(key)} seed {r['seed']} is given twice")
        runs.append(r)
    for key, table in tables.items():
        need = TRAINING_PROTOCOLS[key[0]].min_seeds
        for name, runs in table.items():
            runs.sort(key=lambda x: x["seed"])
            if len(runs) < need:
                raise SweepError(
                    f"{name} in {'/'.join(key)} has {len(runs)} seed(s); {key[0]} asks for "
                    f"{need}: finish the sweep first"
                )
            shapes = {_shape(x["command"]) for x in runs}
            if len(shapes) > 1:
                raise SweepError(f"{name} in {'/'.join(key)}: its runs ran different commands")
    return {k: dict(v) for k, v in sorted(tables.items(), key=lambda kv: _order(kv[0]))}


def _order(key: Key) -> tuple[str, str, int, str, str]:
    """Tables in order of protocol, setting, tier by its budget (2M before 10M), track."""
    protocol, setting, tier, track = key
    known = TRAINING_PROTOCOLS[protocol].tiers.get(tier)
    return protocol, setting, known.budget if known else 0, tier, track


FOLDER_ONLY = ("--fresh",)
"""Flags that manage a run's folder and change nothing it trains (the sweep restarts an
interrupted policy trainer with ``--fresh``): left out when a row's commands are compared."""


def _shape(command: Sequence[str]) -> str:
    """A command without its seed, its folders and :data:`FOLDER_ONLY`, its paths in the
    checkout relative to it (:func:`~agents.benchmark.sweep.in_checkout`), to compare a row's
    runs."""
    out, skip = [], False
    for arg in in_checkout(command):
        if skip:
            skip = False
            continue
        if arg in ("--seed", "--out", "--runs", "--name"):
            skip = True
            continue
        if arg in FOLDER_ONLY:
            continue
        out.append(arg)
    return shlex.join(out)


def _is_exact(table: dict[str, list[dict[str, Any]]]) -> bool:
    """Whether every run of a table was measured exactly (an exact setting's)."""
    return all("exact" in r for runs in table.values() for r in runs)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def sweep_command(key: Key, recipe: str, seeds: Sequence[int], out: str | None = None) -> str:
    """The ``allfives sweep`` command that runs ``recipe``'s runs of the table ``key`` with
    ``seeds`` again (into ``--out out`` if given, else the command's default folder): a row of
    the table (:func:`rerun_command`), or one run (``allfives benchmark --provenance``)."""
    protocol, setting, tier, track = key
    command = (
        f"allfives sweep --protocol {protocol} --recipes {recipe} --settings {setting} "
        f"--tiers {tier} --tracks {track} --seeds {' '.join(str(s) for s in seeds)}"
    )
    return command if out is None else f"{command} --out {out}"


def rerun_command(key: Key, recipe: str, runs: Sequence[dict[str, Any]], out: str) -> str:
    """The command that runs the row again (:func:`sweep_command`)."""
    return sweep_command(key, recipe, [r["seed"] for r in runs], out)


MARKERS = (
    "<!-- baselines: made by `allfives sweep-report --write`; do not edit by hand -->",
    "<!-- end of baselines -->",
)
"""The lines around a document's generated section of baselines."""


def curves_file(key: Key) -> str:
    """The PNG of a table's curves (:func:`plot_curves`)."""
    return f"{key[1]}_{key[2]}_{key[3]}.png"


def markdown(
    results: Sequence[dict[str, Any]], out: str = "sweeps", curves: str | None = None
) -> str:
    """The tables of ``results`` in Markdown (see the module docstring), each followed by its
    curves' PNG from the folder ``curves`` (a path relative to the document) if given."""
    parts = []
    for key, table in rows(results).items():
        protocol, setting, tier, track = key
        opponents = TRAINING_PROTOCOLS[protocol].test_opponents
        parts.append(f"### {setting}, {tier} tier, {track.replace('_', ' ')} ({protocol})\n")
        exact = _is_exact(table)
        head = " | ".join(f"v {o}: mean [95% CI over seeds]" for o in opponents)
        if exact:
            head += " | exact NashConv as it plays: mean [95% CI over seeds] (of the range)"
        parts.append(
            f"| row | framework | seeds | env steps + imitation (teacher positions) | training: "
            f"wall, CPU, samples/s (mean) | {head} | "
            f"per seed v {opponents[-1]} (Wilson 95%) |"
        )
        parts.append("|" + "---|" * (6 + len(opponents) + exact))
        commands = []
        for name, runs in sorted(table.items()):
            first = runs[0]
            cells = []
            for o in opponents:
                s = over_seeds([r["test"][o]["win_rate"] for r in runs])
                cells.append(f"{_pct(s.mean)} [{_pct(s.mean_ci[0])}, {_pct(s.mean_ci[1])}]")
            if exact:
                s = over_seeds([r["exact"]["nash_conv"] for r in runs])
                span = float(first["exact"]["utility_range"])
                cells.append(
                    f"{s.mean:.3f} [{s.mean_ci[0]:.3f}, {s.mean_ci[1]:.3f}] ({_pct(s.mean / span)})"
                )
            per_seed = ", ".join(
                f"{r['seed']}: {_pct(r['test'][opponents[-1]]['win_rate'])} "
                f"[{_pct(r['test'][opponents[-1]]['win_rate_ci'][0])}, "
                f"{_pct(r['test'][opponents[-1]]['win_rate_ci'][1])}]"
                for r in runs
            )
            steps = sum(r["env_steps"] for r in runs) / len(runs)
            imitation = sum(r["imitation_samples"] for r in runs) / len(runs)
            wall = sum(r["wall_seconds"] for r in runs) / len(runs)
            cpu = sum(r["cpu_seconds"] for r in runs) / len(runs)
            # a run whose attempt was killed before its CPU time was read: a lower bound
            at_least = "" if all(r.get("cpu_seconds_complete", True) for r in runs) else "≥"
            teacher = sum(r.get("teacher_positions", 0) for r in runs) / len(runs)
            # the CPU models its attempts ran on (an earlier file's: the machine it finished on)
            kinds = {
                c
                for r in runs
                for c in r.get("attempt_cpus") or [r.get("machine", {}).get("cpu")]
                if c
            }
            mixed = f" on {len(kinds)} CPU models" if len(kinds) > 1 else ""
            framework = f"{first['framework']} {first.get('framework_version') or ''}".strip()
            parts.append(
                f"| {first['label']} | {framework} | {len(runs)} | {steps:,.0f} + "
                f"{imitation:,.0f} ({teacher:,.0f}) | {wall / 60:.1f} min, "
                f"{at_least}{cpu / 60:.1f} CPU-min, "
                f"{(steps + imitation) / max(wall, 1e-9):,.0f}/s{mixed} | {' | '.join(cells)} | "
                f"{per_seed} |"
            )
            commands.append(f"- {first['label']}: `{rerun_command(key, name, runs, out)}`")
        parts.append("")
        if curves is not None:
            parts.append(
                f"![learning curves, {setting}, {tier}, {track}]({curves}/{curves_file(key)})"
            )
            parts.append("")
        parts.append("Each row again:")
        parts.append("")
        parts.extend(commands)
        parts.append("")
    return "\n".join(parts)


def update_page(
    doc: Path, results: Sequence[dict[str, Any]], out: str = "sweeps", curves: str | None = None
) -> str:
    """``doc``'s text with its section between :data:`MARKERS` replaced by the tables.

    Raises:
        EvalError: if ``doc`` cannot be read or its markers are missing, repeated or out of
            order (nothing replaced).
    """
    from agents.benchmark.report import read_document, replace_section

    table = markdown(results, out, curves).strip()
    body = "\n".join((MARKERS[0], "", table, "", MARKERS[1]) if table else MARKERS)
    return replace_section(read_document(doc), *MARKERS, body, f"{doc}'s baselines section")


def _win_rate(opponent: str, point: dict[str, Any]) -> float:
    """A curve point's win rate against ``opponent``."""
    return float(point["results"][opponent]["win_rate"])


def _draw(
    ax: Any, table: dict[str, list[dict[str, Any]]], read: Callable[[dict[str, Any]], float]
) -> None:
    """Each row's curve of ``read(point)`` on ``ax``: the mean over seeds, and the band
    between its lowest and highest seed, against the budget spent (the point's env steps plus
    the run's imitation samples, which come first; the seeds' points matched by index)."""
    import numpy as np

    for _name, runs in sorted(table.items()):
        n = min(len(r["curve"]) for r in runs)
        x = np.mean(
            [[p["env_steps"] + r["imitation_samples"] for p in r["curve"][:n]] for r in runs],
            axis=0,
        )
        y = np.array([[read(p) for p in r["curve"][:n]] for r in runs])
        (line,) = ax.plot(x, y.mean(axis=0), marker=".", label=runs[0]["label"])
        ax.fill_between(x, y.min(axis=0), y.max(axis=0), alpha=0.2, color=line.get_color())
    ax.set_xlabel("env steps + imitation samples")
    ax.grid(alpha=0.3)


def plot_curves(results: Sequence[dict[str, Any]], folder: Path) -> list[Path]:
    """One PNG per table (``folder/SETTING_TIER_TRACK.png``): each row's curve against each
    curve opponent, the mean over seeds and the band between its lowest and highest seed.
    Returns the files written (each replaced whole)."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from agents.files import replace_whole

    written = []
    for key, table in rows(results).items():
        protocol, setting, tier, track = key
        opponents = TRAINING_PROTOCOLS[protocol].test_opponents
        exact = _is_exact(table)
        panels = len(opponents) + exact
        fig, axes = plt.subplots(1, panels, figsize=(5 * panels, 3.6))
        for ax, o in zip(np.atleast_1d(axes), opponents, strict=False):
            _draw(ax, table, functools.partial(_win_rate, o))
            ax.set_title(f"v {o}")
            ax.set_ylabel("win rate (validation deals)")
            ax.set_ylim(0, 1)
        if exact:
            ax = np.atleast_1d(axes)[-1]
            _draw(ax, table, lambda p: p["exact"]["nash_conv"])
            ax.set_title("exact NashConv, as it plays")
            ax.set_ylabel("NashConv (one hand's points)")
            ax.set_ylim(bottom=0)
        np.atleast_1d(axes)[0].legend(fontsize=8)
        fig.suptitle(
            f"{setting}, {tier} tier, {track.replace('_', ' ')}: mean and range over seeds"
        )
        fig.tight_layout()
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=90)
        plt.close(fig)
        path = folder / curves_file(key)
        folder.mkdir(parents=True, exist_ok=True)
        replace_whole(path, buffer.getvalue())
        written.append(path)
    return written
