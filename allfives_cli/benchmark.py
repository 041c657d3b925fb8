"""``allfives benchmark`` (an agent under the benchmark protocol) and ``allfives leaderboard``
(the leaderboard section of a document, made from result files)."""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agents.eval.match import EvalError
from agents.eval.runner import useful_processes
from agents.files import check_output, write_output
from allfives_cli.options import add_force_option, positive_int


def add_benchmark_parsers(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``benchmark`` and ``leaderboard`` to ``subparsers``."""
    from agents.benchmark.protocol import FULL, PROTOCOLS

    p = subparsers.add_parser(
        "benchmark",
        help=f"benchmark agents under the fixed protocol {FULL.name}",
        description=f"Play each agent under the benchmark protocol {FULL.name} (see "
        f"docs/BENCHMARK.md): four settings, duplicate deals against {', '.join(FULL.opponents)}, "
        "an OpenSkill rating against them, and the win rate of a best response trained "
        "against the agent. Writes JSON, Markdown and PNG per agent.",
    )
    p.add_argument("agents", nargs="*", metavar="AGENT", help="agent specs")
    p.add_argument(
        "--protocol",
        choices=sorted(PROTOCOLS),
        default=FULL.name,
        help=f"the protocol (default {FULL.name}; allfives-bench/1 is the previous version, "
        "the reduced ones are for tests)",
    )
    p.add_argument(
        "--out",
        default="benchmarks",
        help="folder for the results, one set of files per agent: LABEL.json, .md and .png "
        "(default ./benchmarks)",
    )
    add_force_option(p, "result files in --out")
    p.add_argument(
        "--processes",
        type=positive_int,
        help="worker processes (default and most: the CPU count); any number gives the same "
        "numbers",
    )
    p.add_argument(
        "--recipe",
        help="the command that trained the agent (printed before the benchmark's own command "
        "on the leaderboard)",
    )
    p.add_argument(
        "--label",
        help="the agent's name in tables and file names (one agent only; default: from its spec)",
    )
    p.add_argument(
        "--provenance",
        metavar="RESULT",
        help="the run result of 'allfives sweep' that trained the agent (one agent only, its "
        "final policy): the leaderboard takes a learned agent only with it",
    )
    p.add_argument("--no-exploitability", action="store_true", help="do not train best responses")
    p.add_argument(
        "--reference",
        action="store_true",
        help="benchmark the fixed opponents themselves (each against each), fit their "
        "reference ratings on those matches and write them into the package (how the shipped "
        "file was made)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bars")

    p = subparsers.add_parser(
        "leaderboard",
        help="write the leaderboard section of a document from benchmark results",
    )
    p.add_argument("results", nargs="+", metavar="JSON", help="benchmark result files")
    p.add_argument(
        "--write",
        metavar="DOC",
        help="replace the leaderboard section of each protocol in DOC (docs/BENCHMARK.md), "
        "between its marker lines, and nothing else (a DOC without them is refused); else "
        "print it",
    )


def _slug(label: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in label).strip("_") or "agent"


def run_benchmark(args: argparse.Namespace, out: Callable[[str], None] = print) -> int:
    """Run ``allfives benchmark``.

    Every check (the agents, the modules, the output files) runs before any match: the files
    each agent would write in ``--out`` (``LABEL.json``, ``.md``, ``.png``) are refused if one
    exists, unless ``--force``, or if two agents would write the same ones. Progress (an
    estimate of the length at the start, then a bar) goes to stderr unless ``--quiet``.

    Raises:
        EvalError: for a bad request or a failed best response (one line).
        UnknownAgentError: for an agent spec the registry does not know.
        OutputFileError: for a result file that exists (without ``--force``) or cannot be
            written.
    """
    from agents.benchmark.protocol import FULL, PROTOCOLS
    from agents.benchmark.report import markdown
    from agents.benchmark.run import benchmark, play_reference, reference_file
    from agents.eval.tournament import check_specs, labels_of

    protocol = PROTOCOLS[args.protocol]
    processes = useful_processes(args.processes)  # at most one per core
    if bool(args.agents) == args.reference:
        raise EvalError("give agents to benchmark, or --reference alone")
    if args.label is not None and (len(args.agents) != 1 or not args.label.strip()):
        raise EvalError("--label names one agent: give exactly one, and a non-empty label")
    check_specs(args.agents)
    provenance = _provenance(args)
    for module, what in (("openskill", "ratings"), ("matplotlib", "charts")):
        if importlib.util.find_spec(module) is None:
            raise EvalError(f"the benchmark's {what} need {module}: pip install -e '.[train]'")
    folder = Path(args.out)
    specs = list(protocol.opponents) if args.reference else list(args.agents)
    labels = [args.label] if args.label is not None else [labels_of([s])[0] for s in specs]
    check_result_files(folder, labels, args.force)
    progress = not args.quiet

    def note(text: str) -> None:
        if progress:
            print(text, file=sys.stderr)

    def command(spec: str) -> str:
        words = ["allfives", "benchmark", spec]
        if protocol.name != FULL.name:
            words += ["--protocol", protocol.name]
        if args.no_exploitability:
            words.append("--no-exploitability")
        if args.label is not None:
            words += ["--label", args.label]
        return shlex.join(words)

    folder.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    if args.reference:
        reference, results = play_reference(
            protocol, processes, progress, not args.no_exploitability, note
        )
        path = reference_file(protocol)
        ratings = {s: {k: list(v) for k, v in r.items()} for s, r in reference.items()}
        words = ["allfives", "benchmark", "--reference", "--protocol", protocol.name]
        made = {"format": protocol.name, "command": shlex.join(words), "ratings": ratings}
        write_output(path, (json.dumps(made, indent=1) + "\n").encode("utf-8"), "--reference")
        out(f"wrote {path}")
    else:
        results = [
            benchmark(spec, protocol, processes, progress, not args.no_exploitability, note)
            for spec in args.agents
        ]
    for result in results:
        if args.label is not None:
            result["agent"]["label"] = args.label
        result["command"] = command(result["agent"]["spec"])
        if args.recipe:
            result["recipe"] = args.recipe
        if provenance is not None:
            result["provenance"] = provenance
            if not args.recipe:
                result["recipe"] = rerun_of(provenance)
        write_outputs(result, folder / _slug(result["agent"]["label"]))
        out(markdown(result))
    out(f"{time.perf_counter() - start:.0f} s; results in {folder}")
    return 0


def _provenance(args: argparse.Namespace) -> dict[str, Any] | None:
    """The run result given as ``--provenance``, checked against the one agent benchmarked
    (its final policy), without its trainer's own report.

    Raises:
        EvalError: for a file that is not a run result, a run of an exact setting (measured
            by the sweep itself), several agents, or an agent that is not the run's final
            policy.
    """
    if args.provenance is None:
        return None
    from agents.benchmark.sweep import read_result

    run = read_result(Path(args.provenance))
    if "exact" in run:
        raise EvalError(
            f"--provenance {args.provenance} is a run of the exact setting {run['setting']}: "
            "the benchmark plays the full set; its result file holds its exact measures"
        )
    if len(args.agents) != 1:
        raise EvalError("--provenance goes with exactly one agent: the run's final policy")
    kind, _, path = str(run["agent"]).rpartition(":")
    given_kind, _, given = args.agents[0].rpartition(":")
    if kind != given_kind or os.path.realpath(path) != os.path.realpath(given):
        raise EvalError(
            f"--provenance {args.provenance} made {run['agent']}, not {args.agents[0]}: "
            "benchmark the run's final policy"
        )
    return {k: v for k, v in run.items() if k != "trainer_report"}


def rerun_of(provenance: dict[str, Any]) -> str:
    """The command that trains the run again (``allfives sweep`` of its one run:
    :func:`agents.benchmark.sweep_report.sweep_command`)."""
    from agents.benchmark.sweep_report import sweep_command

    p = provenance
    return sweep_command(
        (p["protocol"], p["setting"], p["tier"], p["track"]), p["recipe"], [p["seed"]]
    )


RESULT_SUFFIXES = (".json", ".md", ".png")
"""The files each benchmarked agent gets in ``--out``: ``LABEL`` and these."""


def check_result_files(folder: Path, labels: Sequence[str], force: bool) -> None:
    """Check, before any match, that the result files of agents ``labels`` may be written in
    ``folder`` (made if missing): none exists unless ``force``, and no two agents share them.

    Raises:
        EvalError: for a ``folder`` that is a file, or cannot be made or written in; for two
            agents whose files would be the same.
        OutputFileError: for a result file that exists (without ``force``) or cannot be
            replaced.
    """
    if folder.exists() and not folder.is_dir():
        raise EvalError(f"--out {folder}: not a folder")
    owners: dict[str, str] = {}
    for label in labels:
        slug = _slug(label)
        if slug in owners:
            raise EvalError(
                f"agents {owners[slug]!r} and {label!r} would write the same files "
                f"{folder / slug}.*: benchmark them one at a time, each with its own --label"
            )
        owners[slug] = label
        if folder.is_dir():
            for suffix in RESULT_SUFFIXES:
                check_output(folder / f"{slug}{suffix}", "--out", force=force)
    if not folder.is_dir():
        above = folder.parent
        while not above.exists() and above != above.parent:
            above = above.parent
        if not above.is_dir() or not os.access(above, os.W_OK | os.X_OK):
            raise EvalError(f"--out {folder}: cannot make it in {str(above)!r}")


def write_outputs(result: dict[str, Any], base: Path) -> None:
    """``base``.json, .md and .png of one agent's result, each written whole.

    Raises:
        OutputFileError: if one cannot be written.
    """
    from agents.benchmark.report import markdown, write_json, write_png

    write_json(result, base.parent / f"{base.name}.json")
    write_output(base.parent / f"{base.name}.md", markdown(result).encode("utf-8"), "--out")
    write_png(result, base.parent / f"{base.name}.png")


def run_leaderboard(args: argparse.Namespace, out: Callable[[str], None] = print) -> int:
    """Run ``allfives leaderboard``.

    Every result file is read strictly and checked field by field before anything is printed
    or written; ``--write`` replaces only the sections between the document's markers (a
    document without them is refused: nothing else of it is ever replaced), whole.

    Raises:
        EvalError: for a file that is not a benchmark result (naming the file and the field),
            one of an unknown protocol, a file (or an agent's result) given twice, or a
            document without the section's markers.
        OutputFileError: for a document that cannot be written.
    """
    from agents.benchmark.report import (
        by_protocol,
        check_distinct,
        leaderboard,
        read_result,
        update_leaderboard,
    )

    results = [read_result(Path(p)) for p in args.results]
    check_distinct(list(zip(args.results, results, strict=True)))
    if args.write is None:
        out("\n".join(leaderboard(group) for group in by_protocol(results).values()))
        return 0
    doc = check_output(args.write, "--write", force=True)  # the sections only: on purpose
    text = update_leaderboard(doc, results)
    write_output(doc, text.encode("utf-8"), "--write")
    out(f"wrote the leaderboard of {len(results)} results into {doc}")
    return 0
