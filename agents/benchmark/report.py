"""A benchmark's results as JSON, a Markdown table and a PNG; the leaderboard of many.

The leaderboard is made from result files only (``allfives leaderboard``): one section per
protocol version, in it one table per setting, a row per agent that plays it, each with the
command that reproduces it (the benchmark's own command line, after the training command of a
recipe's checkpoint). A document holds each version's section between that version's markers
(:func:`markers`), so results of ``allfives-bench/1`` and ``/2`` live side by side.
"""

from __future__ import annotations

import io
import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.benchmark.protocol import FULL, PROTOCOLS
from agents.eval.match import EvalError
from agents.files import write_output
from allfives_env.core import strict_json


def markers(protocol: str) -> tuple[str, str]:
    """The lines that open and close ``protocol``'s leaderboard section in a document."""
    return (
        f"<!-- leaderboard {protocol}: made by `allfives leaderboard`; do not edit by hand -->",
        f"<!-- end of leaderboard {protocol} -->",
    )


def write_json(result: dict[str, Any], path: Path, option: str = "--out") -> None:
    """Write ``result`` whole (indented; a NaN is refused).

    Raises:
        OutputFileError: if it cannot be written (named as ``option``).
    """
    text = json.dumps(result, indent=1, allow_nan=False) + "\n"
    write_output(path, text.encode("utf-8"), option)


def read_result(path: Path) -> dict[str, Any]:
    """A benchmark result file, read strictly (a key given twice or ``NaN`` is refused) and
    checked field by field (:func:`check_result`).

    Raises:
        EvalError: naming the file (and the field), if it cannot be read or is not a result
            of a known protocol.
    """
    if path.exists() and not (path.is_file() or path.is_fifo()):  # /dev/zero never ends
        raise EvalError(f"{str(path)!r} is not a benchmark result: not a file")
    try:
        data = strict_json.loads(path.read_bytes().decode("utf-8"))
    except OSError as e:
        raise EvalError(f"cannot read benchmark result {str(path)!r}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise EvalError(f"{str(path)!r} is not a benchmark result: not UTF-8 text") from None
    except ValueError as e:
        raise EvalError(f"{str(path)!r} is not a benchmark result: {e}") from None
    check_result(data, str(path))
    return data  # type: ignore[no-any-return]


def _number(x: object) -> bool:
    return type(x) in (int, float) and math.isfinite(x)  # type: ignore[arg-type]


def _rate(x: object) -> bool:
    return _number(x) and 0 <= x <= 1  # type: ignore[operator]


def _interval(x: object) -> bool:
    return isinstance(x, list) and len(x) == 2 and all(_rate(v) for v in x) and x[0] <= x[1]


def check_result(data: Any, where: str) -> None:
    """Check a decoded result file field by field: what :func:`markdown` and
    :func:`leaderboard` read, of the types they read it as, and the protocol's opponents and
    settings.

    Raises:
        EvalError: ``WHERE: FIELD must be ...`` for the first field that is missing or wrong;
            ``not a benchmark result`` without an ``allfives-bench/`` format; ``unknown
            protocol`` for a format no protocol here has.
    """

    def need(ok: bool, field: str, what: str, value: object) -> None:
        if not ok:
            shown = repr(value)
            shown = shown if len(shown) <= 60 else shown[:57] + "..."
            raise EvalError(f"{where}: {field} must be {what}, not {shown}")

    fmt = data.get("format") if isinstance(data, dict) else None
    if not isinstance(fmt, str) or not fmt.startswith("allfives-bench/"):
        raise EvalError(f"{where!r} is not a benchmark result (no allfives-bench format)")
    protocol = PROTOCOLS.get(fmt)
    if protocol is None:
        raise EvalError(
            f"{where}: unknown protocol {fmt!r} (known: {', '.join(sorted(PROTOCOLS))})"
        )
    agent = data.get("agent")
    need(isinstance(agent, dict), "agent", "an object", agent)
    need(isinstance(agent.get("spec"), str), "agent.spec", "a string", agent.get("spec"))
    label = agent.get("label")
    need(isinstance(label, str) and bool(label.strip()), "agent.label", "a name", label)
    opponents = data.get("opponents")
    need(opponents == list(protocol.opponents), "opponents",
         f"{fmt}'s {list(protocol.opponents)}", opponents)  # fmt: skip
    for key in ("command", "recipe"):
        value = data.get(key)
        need(value is None or isinstance(value, str), key, "a string", value)
    settings = data.get("settings")
    need(isinstance(settings, dict) and bool(settings), "settings", "an object", settings)
    names = {x.name for x in protocol.settings}
    for name, entry in settings.items():
        at = f"settings[{name!r}]"
        need(name in names, at, f"one of {fmt}'s settings {sorted(names)}", name)
        need(isinstance(entry, dict), at, "an object", entry)
        if "skipped" in entry:
            need(isinstance(entry["skipped"], str), f"{at}.skipped", "a string", entry["skipped"])
            continue
        played = entry.get("opponents")
        need(isinstance(played, dict) and set(played) == set(protocol.opponents),
             f"{at}.opponents", "an object of every fixed opponent", played)  # fmt: skip
        for o, cell in played.items():
            _check_cell(cell, f"{at}.opponents[{o!r}]", need)
        rating = entry.get("rating")
        need(isinstance(rating, dict), f"{at}.rating", "an object", rating)
        for key in ("mu", "sigma"):
            need(_number(rating.get(key)), f"{at}.rating.{key}", "a number", rating.get(key))
        if "exploitability" in entry:
            e = entry["exploitability"]
            need(isinstance(e, dict), f"{at}.exploitability", "an object", e)
            _check_cell(e, f"{at}.exploitability", need)
            budget = e.get("budget")
            need(budget is None or isinstance(budget, str), f"{at}.exploitability.budget",
                 "a string", budget)  # fmt: skip


def _check_cell(cell: Any, at: str, need: Any) -> None:
    """A result against one opponent (or the best response's): skipped, or a win rate."""
    need(isinstance(cell, dict), at, "an object", cell)
    if "skipped" in cell:
        need(isinstance(cell["skipped"], str), f"{at}.skipped", "a string", cell["skipped"])
        return
    need(_rate(cell.get("win_rate")), f"{at}.win_rate", "a number from 0 to 1",
         cell.get("win_rate"))  # fmt: skip
    need(_interval(cell.get("win_rate_ci")), f"{at}.win_rate_ci", "[low, high] within [0, 1]",
         cell.get("win_rate_ci"))  # fmt: skip


LEARNED_KINDS = ("rllib", "benchmarl", "openspiel-nfsp")
"""Agent kinds whose policy was trained (besides a ``.zip`` checkpoint of ``train.py``)."""

PROVENANCE_KEYS = (
    "protocol", "track", "tier", "recipe", "framework", "seed", "command", "env_steps",
    "imitation_samples", "teacher_positions", "wall_seconds", "cpu_seconds", "machine",
    "source", "versions", "curve",
)  # fmt: skip
"""What a learned row's ``provenance`` holds: a run result of ``allfives sweep``."""


def is_learned(result: dict[str, Any]) -> bool:
    """Whether the result's agent is a trained policy (a checkpoint, an RLlib, BenchMARL or
    NFSP policy), or came with a training recipe."""
    spec = str(result["agent"]["spec"])
    kind = spec.partition(":")[0]
    return kind in LEARNED_KINDS or spec.endswith(".zip") or bool(result.get("recipe"))


def check_provenance(result: dict[str, Any], where: str) -> None:
    """Refuse a learned row without its provenance (the run result of ``allfives sweep`` that
    made it, with every key of :data:`PROVENANCE_KEYS`).

    Raises:
        EvalError: one line naming the file and what to do.
    """
    if not is_learned(result):
        return
    provenance = result.get("provenance")
    label = result["agent"]["label"]
    if not isinstance(provenance, dict):
        raise EvalError(
            f"{where}: {label!r} is a learned agent without provenance: train it with "
            "'allfives sweep' and benchmark its policy with --provenance RUN/result.json"
        )
    missing = [k for k in PROVENANCE_KEYS if k not in provenance]
    if missing:
        raise EvalError(f"{where}: the provenance of {label!r} lacks {', '.join(missing)}")


def check_distinct(results: Sequence[tuple[str, dict[str, Any]]]) -> None:
    """Refuse a result file given twice, or two results of one agent (label) under one
    protocol: a leaderboard lists each agent once. ``results``: ``(path, result)`` pairs.

    Raises:
        EvalError: naming both.
    """
    files: dict[str, str] = {}
    agents: dict[tuple[str, str], str] = {}
    for path, result in results:
        real = os.path.realpath(path)
        if real in files:
            raise EvalError(f"{path} is given twice (as {files[real]} too)")
        files[real] = path
        key = (str(result["format"]), str(result["agent"]["label"]))
        if key in agents:
            raise EvalError(
                f"{agents[key]} and {path} are both results of {key[1]!r} under {key[0]}: give one"
            )
        agents[key] = path


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


def write_png(result: dict[str, Any], path: Path, option: str = "--out") -> None:
    """Win rates against each opponent, per setting, with 95% error bars (and the best
    response's win rate), as a PNG written whole. Needs matplotlib (Agg backend, pyplot
    untouched).

    Raises:
        OutputFileError: if it cannot be written (named as ``option``).
    """
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
    buf = io.BytesIO()
    fig.savefig(buf, dpi=90, format="png")
    write_output(path, buf.getvalue(), option)


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
        EvalError: for results of different protocols, or of another than ``protocol``, or a
            learned row without provenance (:func:`check_provenance`).
    """
    for r in results:
        check_provenance(r, str(r["agent"]["label"]))
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


def read_document(doc: Path) -> str:
    """The text of a document whose generated sections are to be replaced.

    Raises:
        EvalError: if it is not a regular file or cannot be read.
    """
    if doc.exists() and not doc.is_file():  # a folder, or a device that may never end
        raise EvalError(f"{doc} is not a document: not a regular file")
    try:
        return doc.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise EvalError(f"cannot read {doc}: {getattr(e, 'strerror', None) or e}") from None


def replace_section(text: str, start: str, end: str, body: str, where: str) -> str:
    """``text`` with what lies between the lines ``start`` and ``end`` replaced by ``body``
    (which holds the two lines itself).

    Raises:
        EvalError: naming ``where`` (the document and the section) if the markers are missing,
            repeated, or out of order: nothing is replaced then.
    """
    if start not in text or end not in text:
        raise EvalError(f"{where}: no such section (the lines {start!r} … {end!r})")
    if text.count(start) != 1 or text.count(end) != 1 or text.index(end) < text.index(start):
        raise EvalError(
            f"{where} is not one start line followed by one end line ({start!r} … {end!r}): "
            "fix the markers by hand"
        )
    head, _, rest = text.partition(start)
    _, _, tail = rest.partition(end)
    return head + body.rstrip("\n") + tail


def update_leaderboard(doc: Path, results: Sequence[dict[str, Any]]) -> str:
    """``doc``'s text with the leaderboard section of each protocol among ``results``
    replaced by :func:`leaderboard` (with no results, the current version's section emptied).

    Raises:
        EvalError: if ``doc`` cannot be read, or lacks a section's markers (each once, the
            end after the start): nothing of it is replaced then.
    """
    text = read_document(doc)
    groups = by_protocol(results) or {FULL.name: []}
    for protocol, group in groups.items():
        start, end = markers(protocol)
        if start not in text or end not in text:
            raise EvalError(
                f"{doc} has no leaderboard section for {protocol} (the lines {start!r} … {end!r})"
            )
        where = f"{doc}'s leaderboard section for {protocol}"
        text = replace_section(text, start, end, leaderboard(group, protocol), where)
    return text
