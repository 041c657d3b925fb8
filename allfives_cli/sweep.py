"""``allfives sweep`` (train and measure recipes × settings × tracks × tiers × seeds) and
``allfives sweep-report`` (the baseline table and learning curves from its result files)."""

from __future__ import annotations

import argparse
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.files import check_output, write_output
from allfives_cli.options import add_force_option, positive_int


def add_sweep_parsers(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``sweep`` and ``sweep-report`` to ``subparsers``."""
    from agents.benchmark.recipes import RECIPES
    from agents.benchmark.training import TRACKS, TRAIN_V1, TRAINING_PROTOCOLS

    p = subparsers.add_parser(
        "sweep",
        help=f"train and measure baselines under the training protocol {TRAIN_V1.name}",
        description="Train every recipe for every setting, track, budget tier and seed, then "
        "measure each run's learning curve (validation deals) and its final policy (the "
        "benchmark's test deals), and file each run's result with its provenance. Resumable: "
        "give the same command again after Ctrl-C. See docs/BENCHMARK.md.",
    )
    p.add_argument(
        "--protocol",
        choices=sorted(TRAINING_PROTOCOLS),
        default=TRAIN_V1.name,
        help=f"the training protocol (default {TRAIN_V1.name}; the reduced one is for tests)",
    )
    p.add_argument(
        "--recipes",
        nargs="+",
        metavar="RECIPE",
        help=f"the recipes, one per argument ({', '.join(RECIPES)})",
    )
    p.add_argument(
        "--settings", nargs="+", default=["pagat-2p"], metavar="SETTING",
        help="the settings: the evaluation protocol's (pagat-2p, pagat-4p, five_up-2p, "
        "pyatyorka-3p) or the exact tiny-2p, the small track (default pagat-2p)",
    )  # fmt: skip
    p.add_argument(
        "--tracks", nargs="+", default=["tabula_rasa"], metavar="TRACK",
        help=f"the tracks ({', '.join(TRACKS)}; default tabula_rasa)",
    )  # fmt: skip
    p.add_argument(
        "--tiers", nargs="+", default=["2M"], metavar="TIER",
        help="the budget tiers (300k, 2M, 10M; default 2M)",
    )  # fmt: skip
    p.add_argument(
        "--seeds", nargs="+", type=int, default=[0, 1, 2], metavar="SEED",
        help="the seeds of each row (default 0 1 2)",
    )  # fmt: skip
    p.add_argument("--out", default="sweeps", help="the sweep's folder (default ./sweeps)")
    p.add_argument(
        "--processes", type=positive_int, default=1,
        help="processes for each run's measurements (default 1)",
    )  # fmt: skip
    p.add_argument(
        "--address",
        help="run the runs as Ray tasks on the cluster at HOST:PORT (every node must see --out)",
    )
    p.add_argument(
        "--rerun",
        metavar="RESULT",
        help="run the run of this result file again, into --out, and say whether its test "
        "lands inside the file's interval",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")

    p = subparsers.add_parser(
        "sweep-report",
        help="the baseline table and learning curves from a sweep's result files",
    )
    p.add_argument(
        "results", nargs="+", metavar="PATH",
        help="result files, or folders searched for them (result.json)",
    )  # fmt: skip
    p.add_argument("--out", metavar="FILE", help="write the table (Markdown) here, else print it")
    p.add_argument(
        "--write",
        metavar="DOC",
        help="replace the baselines section of DOC (between its marker lines) with the tables, "
        "and nothing else",
    )
    p.add_argument("--curves", metavar="FOLDER", help="write one PNG of curves per table here")
    p.add_argument(
        "--sweep-folder", default="sweeps", help="the --out named in the re-run commands"
    )
    add_force_option(p, "the --out file")


def _result_files(paths: list[str]) -> list[Path]:
    from agents.benchmark.sweep import RESULT, SweepError

    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files += sorted(p.rglob(RESULT))
        elif p.is_file():
            files.append(p)
        else:
            raise SweepError(f"{str(p)!r}: no such file or folder")
    seen = {f.resolve() for f in files}
    if len(seen) != len(files):
        raise SweepError("a result file is given twice")
    if not files:
        raise SweepError(f"no {RESULT} under {', '.join(paths)}")
    return files


def run_sweep_command(args: argparse.Namespace, out: Callable[[str], None] = print) -> int:
    """Run ``allfives sweep`` (see :mod:`agents.benchmark.sweep`).

    Raises:
        SweepError: for a sweep that cannot be planned, or a run that fails (one line).
    """
    from agents.benchmark.sweep import SweepError

    folder = Path(args.out)
    if folder.exists() and not folder.is_dir():
        raise SweepError(f"--out {str(folder)!r} is a file, not a folder")
    kept = signal.signal(signal.SIGTERM, _terminated)
    try:
        return _sweep(args, folder, out)
    finally:
        signal.signal(signal.SIGTERM, kept)


def _terminated(signum: int, frame: Any) -> None:
    """SIGTERM stops a sweep as Ctrl-C does: the run's trainer is stopped and its attempt's
    time written (:func:`agents.benchmark.attempts.run_attempt`)."""
    raise KeyboardInterrupt


def _sweep(args: argparse.Namespace, folder: Path, out: Callable[[str], None]) -> int:
    from agents.benchmark.sweep import SweepError, plan, read_result, run_sweep
    from agents.benchmark.training import TRAINING_PROTOCOLS

    if args.rerun is not None:
        old = read_result(Path(args.rerun))
        protocol = TRAINING_PROTOCOLS[old["protocol"]]
        planned = plan(
            protocol, [old["recipe"]], [old["setting"]], [old["track"]], [old["tier"]],
            [old["seed"]], folder,
        )  # fmt: skip
        new = run_sweep(planned, args.processes, args.address, not args.quiet, out)[0]
        for o, was in old["test"].items():
            now = new["test"][o]["win_rate"]
            low, high = was["win_rate_ci"]
            inside = "inside" if low <= now <= high else "OUTSIDE"
            out(
                f"v {o}: {100 * now:.1f}% now, {100 * was['win_rate']:.1f}% "
                f"[{100 * low:.1f}, {100 * high:.1f}] in {args.rerun}: {inside} its interval"
            )
        return 0
    if not args.recipes:
        raise SweepError("give --recipes (one or more), or --rerun RESULT")
    protocol = TRAINING_PROTOCOLS[args.protocol]
    planned = plan(
        protocol, args.recipes, args.settings, args.tracks, args.tiers, args.seeds, folder
    )
    results = run_sweep(planned, args.processes, args.address, not args.quiet, out)
    out(f"sweep done: {len(results)} results under {folder}; draw the table with "
        f"'allfives sweep-report {folder}'")  # fmt: skip
    return 0


def run_sweep_report(args: argparse.Namespace, out: Callable[[str], None] = print) -> int:
    """Run ``allfives sweep-report``: every file is read and every row checked before anything
    is written.

    Raises:
        SweepError: for a file that is not a run result, a run given twice, a row short of
            seeds or mixing commands.
        OutputFileError: for an --out that exists (without --force) or cannot be written.
    """
    import os

    from agents.benchmark.sweep import SweepError, read_result
    from agents.benchmark.sweep_report import markdown, plot_curves, rows, update_page

    results = [read_result(f) for f in _result_files(args.results)]
    rows(results)  # every check, before any output
    if args.out and args.write:
        raise SweepError("give --out (a new file) or --write (a document's section), not both")
    target = check_output(args.out, "--out", force=args.force) if args.out else None
    page = None
    if args.write:
        doc = check_output(args.write, "--write", force=True)  # its section only: on purpose
        curves = None
        if args.curves:
            curves = os.path.relpath(Path(args.curves).resolve(), doc.resolve().parent)
        page = update_page(doc, results, args.sweep_folder, curves)
    if args.curves:
        for path in plot_curves(results, Path(args.curves)):
            out(f"curves: {path}")
    if page is not None:
        write_output(Path(args.write), page.encode("utf-8"), "--write")
        out(f"wrote the baselines of {len(results)} runs into {args.write}")
    elif target is None:
        out(markdown(results, args.sweep_folder))
    else:
        write_output(target, markdown(results, args.sweep_folder).encode("utf-8"), "--out")
        out(f"table: {target}")
    return 0
