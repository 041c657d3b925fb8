"""``allfives bench``: speed of the engine and the environments (see :mod:`allfives_env.bench`)."""

from __future__ import annotations

import argparse
from typing import Any

from agents.cli.options import fail, seconds
from allfives_env import bench
from allfives_env.core.rules import PRESETS, Rules


def add_bench_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the ``bench`` command to ``subparsers`` (run it with :func:`run_bench`)."""
    p = subparsers.add_parser("bench", help="measure speed")
    p.add_argument("what", choices=("engine", "env"), help="what to measure")
    p.add_argument("--seconds", type=seconds, default=2.0, help="per run (default 2)")
    p.add_argument(
        "--repeat",
        type=int,
        choices=range(1, 21),
        default=3,
        metavar="N",
        help="runs per row, the fastest reported: noise only slows a run down (default 3)",
    )
    p.add_argument(
        "--preset",
        action="append",
        choices=PRESETS,
        help="preset(s) to run (repeatable; default: all)",
    )
    p.add_argument(
        "--players",
        action="append",
        type=int,
        choices=(2, 3, 4),
        help="player count(s) (repeatable; default: 2, 3 and 4)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--reference",
        action="store_true",
        help="env: also time PettingZoo's connect_four_v3.env() in the same loop (needs pygame)",
    )


def run_bench(args: argparse.Namespace) -> int:
    """Run ``allfives bench`` with parsed ``args``; print a table."""
    presets = args.preset or bench.DEFAULT_PRESETS
    players = args.players or [2, 3, 4]
    seed = args.seed
    how = f"one process, best of {args.repeat} runs of {args.seconds:g} s per row, seed {seed}"
    if args.what == "engine":
        print(f"random legal matches, {how}")
        rows = [
            bench.best_of(
                args.repeat, bench.bench_engine, Rules.preset(p, n), args.seconds, args.seed
            )
            for p in presets
            for n in players
        ]
        print(bench.table(rows))
        return 0
    if args.reference and bench.bench_reference(0.01, args.seed) is None:
        return fail("--reference needs pygame (pip install pygame)")
    print(f"random masked AEC play, {how}")
    env_rows = [
        bench.best_of(args.repeat, bench.bench_env, p, n, wrapped, args.seconds, args.seed)
        for p in presets
        for n in players
        for wrapped in (True, False)
    ]
    if args.reference:
        env_rows.append(bench.best_of(args.repeat, bench.reference_loop, args.seconds, seed))
    print(bench.env_table(env_rows))
    return 0
