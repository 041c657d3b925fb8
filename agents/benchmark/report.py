"""A benchmark's results as JSON, a Markdown table and a PNG; the leaderboard of many.

The leaderboard is made from result files only (``allfives leaderboard``): one section per
protocol version, in it one table per setting, a row per agent that plays it, each with the
command that reproduces it (the benchmark's own command line, after the training command of a
recipe's checkpoint). A document holds each version's section between that version's markers
(:func:`markers`), so results of ``allfives-bench/1`` and ``/2`` live side by side.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.benchmark.protocol import FULL
from agents.eval.match import EvalError


def markers(protocol: str) -> tuple[str, str]:
    """The lines that open and close ``protocol``'s leaderboard section in a document."""
    return (
        f"<!-- leaderboard {protocol}: made by `allfives leaderboard`; do not edit by hand -->",
        f"<!-- end of leaderboard {protocol} -->",
    )


def write_json(result: dict[str, Any], path: Path) -> None:
    """Write ``result`` (indented; a NaN is refused)."""
    path.write_text(json.dumps(result, indent=1, allow_nan=False) + "\n", encoding="utf-8")


def read_result(path: Path) -> dict[str, Any]:
    """A benchmark result file.

    Raises:
        EvalError: if it cannot be read or is not one.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise EvalError(f"cannot read benchmark result {str(path)!r}: {e}") from None
    if not isinstance(data, dict) or not str(data.get("format", "")).startswith("allfives-bench/"):
        raise EvalError(f"{str(path)!r} is not a benchmark result (no allfives-bench format)")
    return data


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _cell(r: dict[str, Any]) -> str:
    if "skipped" in r:
        return "—"
    low, high = r["win_rate_ci"]
    return f"{_pct(r['win_rate'])} [{100 * low:.0f}, {100 * high:.0f}]"


def _exploit(entry: dict[str, Any]) -> str:
    e = entry.get("exploitability")
    if e is None:
        return "—"
    if "skipped" in e:
        return "not measured"
    return _cell(e)


def markdown(result: dict[str, Any]) -> str:
    """One agent's results: per setting, its record against each opponent."""
    agent = result["agent"]["label"]
    opponents = result["opponents"]
    lines = [
        f"# {agent}: {result['format']}",
        "",
        "| setting | " + " | ".join(f"v {o}" for o in opponents) + " | rating μ (σ) | "
        "best response's win rate |",
        "|---|" + "---:|" * (len(opponents) + 2),
    ]
    skipped = []
    for name, entry in result["settings"].items():
        if "skipped" in entry:
            skipped.append(f"- {name}: not played ({entry['skipped']})")
            continue
        cells = [_cell(entry["opponents"][o]) for o in opponents]
        rating = entry["rating"]
        lines.append(
            f"| {name} | " + " | ".join(cells)
            + f" | {rating['mu']:.1f} ({rating['sigma']:.1f}) | {_exploit(entry)} |"
        )  # fmt: skip
    lines += ["", "Match win rates with 95% intervals; points per hand are in the JSON."]
    budgets = {
        e["exploitability"].get("budget") or e["exploitability"].get("skipped")
        for e in result["settings"].values()
        if "exploitability" in e
    }
    lines += [f"Best response: {b}." for b in sorted(x for x in budgets if x)]
    if skipped:
        lines += ["", *skipped]
    return "\n".join(lines) + "\n"


def write_png(result: dict[str, Any], path: Path) -> None:
    """Win rates against each opponent, per setting, with 95% error bars (and the best
    response's win rate). Needs matplotlib (Agg backend, pyplot untouched)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    played = {n: e for n, e in result["settings"].items() if "skipped" not in e}
    fig = Figure(figsize=(3.2 * max(1, len(played)) + 1, 4.2), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, max(1, len(played)), squeeze=False)[0]
    for ax, (name, entry) in zip(axes, played.items(), strict=False):
        rows = [(f"v {o}", r) for o, r in entry["opponents"].items() if "skipped" not in r]
        e = entry.get("exploitability") or {}
        if "win_rate" in e:
            rows.append(("best\nresponse", e))
        values = [r["win_rate"] for _, r in rows]
        err = [
            [r["win_rate"] - r["win_rate_ci"][0] for _, r in rows],
            [r["win_rate_ci"][1] - r["win_rate"] for _, r in rows],
        ]
        colors = ["tab:red" if n == "best\nresponse" else "tab:blue" for n, _ in rows]
        ax.bar(range(len(rows)), values, yerr=err, capsize=4, color=colors)
        ax.set_xticks(range(len(rows)), [n for n, _ in rows], rotation=30, ha="right",
                      fontsize=8)  # fmt: skip
        ax.set_ylim(0, 1.05)
        ax.set_title(f"{name}\nrating {entry['rating']['mu']:.1f}", fontsize=10)
    axes[0].set_ylabel("match win rate (95% CI)")
    fig.suptitle(f"{result['agent']['label']} — {result['format']}")
    fig.savefig(path, dpi=90)


def by_protocol(results: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """``results`` grouped by their protocol, each group in the order given."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in results:
        groups.setdefault(str(r["format"]), []).append(r)
    return groups


def leaderboard(results: Sequence[dict[str, Any]], protocol: str | None = None) -> str:
    """The leaderboard section of one protocol: a table per setting, rows by rating, best
    first, between the protocol's :func:`markers`. ``protocol`` defaults to the results' own
    (the current version where there are none).

    Raises:
        EvalError: for results of different protocols, or of another than ``protocol``.
    """
    formats = set(by_protocol(results))
    if protocol is None:
        protocol = formats.pop() if len(formats) == 1 else FULL.name
    if formats - {protocol}:
        raise EvalError(f"results of different protocols: {', '.join(sorted(formats))}")
    start, end = markers(protocol)
    if not results:
        return f"{start}\n\n(no results)\n\n{end}\n"
    opponents = results[0]["opponents"]
    settings: list[str] = []
    for r in results:
        settings += [s for s in r["settings"] if s not in settings]
    out = [start, ""]
    for name in settings:
        rows = [
            (r, r["settings"][name]) for r in results
            if name in r["settings"] and "skipped" not in r["settings"][name]
        ]  # fmt: skip
        rows.sort(key=lambda x: (-x[1]["rating"]["mu"], x[0]["agent"]["label"]))
        out += [
            f"### {name}",
            "",
            "| agent | " + " | ".join(f"v {o}" for o in opponents)
            + " | rating μ (σ) | best response | reproduce |",
            "|---|" + "---:|" * (len(opponents) + 2) + "---|",
        ]  # fmt: skip
        for r, entry in rows:
            cells = [_cell(entry["opponents"][o]) for o in opponents]
            rating = entry["rating"]
            out.append(
                f"| {r['agent']['label']} | " + " | ".join(cells)
                + f" | {rating['mu']:.1f} ({rating['sigma']:.1f}) | {_exploit(entry)} "
                + f"| `{reproduce(r)}` |"
            )  # fmt: skip
        out.append("")
    out.append(end)
    return "\n".join(out) + "\n"


def reproduce(result: dict[str, Any]) -> str:
    """The one command that reproduces a row: the recipe's training, then the benchmark."""
    command = result.get("command") or f"allfives benchmark {result['agent']['spec']}"
    recipe = result.get("recipe")
    return f"{recipe} && {command}" if recipe else command


def update_leaderboard(doc: Path, results: Sequence[dict[str, Any]]) -> str:
    """``doc``'s text with the leaderboard section of each protocol among ``results``
    replaced by :func:`leaderboard` (with no results, the current version's section emptied).

    Raises:
        EvalError: if ``doc`` cannot be read or lacks a section's markers.
    """
    try:
        text = doc.read_text(encoding="utf-8")
    except OSError as e:
        raise EvalError(f"cannot read {doc}: {e.strerror or e}") from None
    groups = by_protocol(results) or {FULL.name: []}
    for protocol, group in groups.items():
        start, end = markers(protocol)
        if start not in text or end not in text:
            raise EvalError(
                f"{doc} has no leaderboard section for {protocol} (the lines {start!r} … {end!r})"
            )
        head, _, rest = text.partition(start)
        _, _, tail = rest.partition(end)
        text = head + leaderboard(group, protocol).rstrip("\n") + tail
    return text
