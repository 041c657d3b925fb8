"""``allfives eval``: duplicate-deal matches between agents, head to head or as a league."""

from __future__ import annotations

import argparse
import importlib.util
import time
from collections.abc import Callable
from typing import Any

from agents.eval.match import EvalError
from agents.eval.report import table, write_json, write_png
from agents.eval.results import Evaluation, League
from agents.eval.runner import useful_processes
from agents.eval.tournament import check_specs, evaluate, league
from agents.files import check_output, check_outputs
from allfives_cli.options import (
    add_force_option,
    add_rules_options,
    positive_int,
    rules_from_args,
    seed_value,
)

SUFFIXES: dict[str, tuple[str, ...]] = {"--json": (), "--png": (".png",)}
"""The suffixes each output must end in (its format is the suffix's): any for JSON."""


def add_eval_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the ``eval`` command to ``subparsers`` (run it with :func:`run_eval`)."""
    p = subparsers.add_parser(
        "eval",
        help="evaluate agents over duplicate deals (head to head, or a league)",
        description="Play agents against each other over duplicate deals: each deal is played "
        "once per rotation of the agents over the sides, so the luck of the deal cancels. "
        "With one agent per side: head to head. With --league, or more agents than sides: "
        "every pair plays, and Elo ratings are fitted.",
    )
    p.add_argument(
        "agents",
        nargs="+",
        metavar="AGENT",
        help="agent specs: a name (random, greedy, ...), name:key=value,... or a .zip checkpoint",
    )
    add_rules_options(p)
    p.add_argument(
        "--matches",
        type=positive_int,
        default=1000,
        help="matches to play (per pair in a league); rounded up to whole deals (default 1000)",
    )
    p.add_argument("--seed", type=seed_value, default=0, help="base seed of deals and agents")
    p.add_argument(
        "--processes",
        type=positive_int,
        help="worker processes (default and most: the CPU count); any number gives the same "
        "results",
    )
    p.add_argument("--json", metavar="FILE", help="write the results as JSON")
    p.add_argument("--png", metavar="FILE.png", help="write a chart of the results (a PNG)")
    add_force_option(p, "a --json or --png file")
    p.add_argument("--league", action="store_true", help="play every pair of agents")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def run_eval(args: argparse.Namespace, out: Callable[[str], None] = print) -> int:
    """Run ``allfives eval`` with parsed ``args``: play, print a table, write the files.

    Every check (agents and the rules they can play, numbers, output paths and their
    suffixes, an existing file without ``--force``, matplotlib for ``--png``) runs before any
    match is played.

    Raises:
        EvalError: for a bad request (one line, for the caller to print).
        OutputFileError: for an output path that cannot be written, a ``--png`` not ending in
            ``.png``, both naming one file, or an existing file without ``--force``.
        UnknownAgentError: for an agent spec the registry does not know.
        RulesError: for rules the engine refuses.
    """
    specs: list[str] = list(args.agents)
    if len(specs) < 2:
        raise EvalError(f"give at least two agents, not {len(specs)}")
    processes = useful_processes(args.processes)  # at most one per core
    rules = rules_from_args(args)
    k = rules.num_sides
    is_league = args.league or len(specs) > k
    if is_league and k != 2:
        raise EvalError(
            f"a league needs two sides (2 players, or 4 in partnerships); {rules.describe()} "
            f"has {k}: give {k} agents, one per side"
        )
    if not is_league and len(specs) != k:
        raise EvalError(
            f"{rules.describe()} has {k} sides: give {k} agents, one per side, not {len(specs)}"
        )
    outputs = [(p, o) for p, o in ((args.json, "--json"), (args.png, "--png")) if p is not None]
    check_outputs(outputs)
    for path, option in outputs:
        check_output(path, option, force=args.force, suffixes=SUFFIXES[option])
    if args.png is not None and importlib.util.find_spec("matplotlib") is None:
        raise EvalError("--png needs matplotlib (pip install matplotlib)")
    check_specs(specs, rules)
    start = time.perf_counter()
    result: Evaluation | League
    if is_league:
        result = league(rules, specs, args.matches, args.seed, processes, not args.quiet)
    else:
        result = evaluate(rules, specs, args.matches, args.seed, processes, not args.quiet)
    elapsed = time.perf_counter() - start
    out(table(result))
    workers = f"{processes} process{'es' if processes > 1 else ''}"
    out(f"{elapsed:.1f} s with {workers}")
    if args.json is not None:
        write_json(result, args.json)
        out(f"wrote {args.json}")
    if args.png is not None:
        write_png(result, args.png)
        out(f"wrote {args.png}")
    return 0
