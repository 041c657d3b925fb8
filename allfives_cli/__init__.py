"""The ``allfives`` command line (also ``python -m allfives_env``).

Commands:
  replay FILE     replay a game record; print RULES.md §4's JSON result
  demo            a seeded match between agents, printed move by move
  speed engine    moves/s and hands/s of random legal games, per preset
  speed env       environment steps/s of random masked play (env() and raw_env())
  speed vector    the batched engine's steps/s beside env(), memory per game, compile time
  eval            duplicate-deal matches between agents: win rates, CIs, ratings
  play            play a match against agents in the terminal
  benchmark       agents under the benchmark protocol allfives-bench/2 (JSON, Markdown, PNG)
  leaderboard     the leaderboard section of docs/BENCHMARK.md, from benchmark results
  sweep           train and measure baselines under the training protocol allfives-train/1
  sweep-report    the baseline table and learning curves, from a sweep's result files
  solve           CFR+ on a small set's whole game tree; the policy plays as exact:FILE
  exploitability  exact best responses and NashConv of agents on a small set's game
  tree-size       histories, information states and deals of a small set's game
  serve           the web page: play, watch and replay games in the browser

A user mistake (bad arguments, an invalid record, a missing file) prints one line on stderr and
exits with status 2; nothing is printed on stdout and no traceback is shown. Everything is
checked before any work: the agents (one spec per argument) and the rules they can play, and
every file a command would write (an existing one is refused without ``--force``:
:func:`agents.files.check_output`). A write that fails at the end (a full disk) is one such
line too, and no success line is printed before it. Ctrl-C exits with status 130, quietly.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from agents.errors import AgentError
from agents.files import check_output
from agents.registry import agent_for
from allfives_cli.benchmark import add_benchmark_parsers, run_benchmark, run_leaderboard
from allfives_cli.evaluate import add_eval_parser, run_eval
from allfives_cli.options import (
    Parser,
    add_force_option,
    add_rules_options,
    agent_specs,
    fail,
    rules_from_args,
    seed_value,
)
from allfives_cli.play import add_play_parser, run_play
from allfives_cli.serve import add_serve_parser, run_serve
from allfives_cli.solve import add_solve_parsers, run_solve_command
from allfives_cli.speed import add_speed_parser, run_speed
from allfives_cli.sweep import add_sweep_parsers, run_sweep_command, run_sweep_report
from allfives_env.core.errors import AllFivesError

DEMO_AGENTS = ("greedy", "random")
"""``allfives demo``'s agents without ``--agents``."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``allfives`` command."""
    parser = Parser(prog="allfives", description="All Fives (Muggins, Five-Up) domino engine.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)

    p = sub.add_parser("replay", help="replay a game record and print its result as JSON")
    p.add_argument("file", help="the record (JSON, RULES.md §4); '-' reads stdin")

    p = sub.add_parser("demo", help="a seeded match between agents, printed move by move")
    p.add_argument(
        "--seed",
        type=seed_value,
        default=1,
        help="seed of the deals and the agents: the first match of 'allfives eval --seed SEED'",
    )
    add_rules_options(p)
    p.add_argument(
        "--agents",
        nargs="+",
        action="extend",
        metavar="AGENT",
        help="the agent of each seat, one spec per argument (the option may be repeated), "
        "cycled over the seats: a name, name:key=value,key=value or a .zip checkpoint (e.g. "
        "--agents search:sims=50,time=1 random); default: greedy random",
    )
    p.add_argument("--save", metavar="FILE", help="save the match as a game record")
    add_force_option(p, "the --save file")
    p.add_argument("--quiet", action="store_true", help="print only the result")

    add_speed_parser(sub)
    add_eval_parser(sub)
    add_play_parser(sub)
    add_benchmark_parsers(sub)
    add_sweep_parsers(sub)
    add_solve_parsers(sub)
    add_serve_parser(sub)
    return parser


def _replay(path: str) -> int:
    from allfives_env.core.records import load_json, replay_json, replay_text

    if path == "-":
        result = replay_text(sys.stdin.read())
    else:
        result = replay_json(load_json(path)).to_json()
    print(json.dumps(result))
    return 0


def _demo(args: argparse.Namespace) -> int:
    from agents.play.demo import play_demo

    names = agent_specs("--agents", args.agents or DEMO_AGENTS)
    rules = rules_from_args(args)
    if len(names) > rules.num_players:
        return fail(f"--agents names {len(names)} agents for {rules.num_players} seats")
    save = None if args.save is None else check_output(args.save, "--save", force=args.force)
    for name in names:
        agent_for(name, rules)  # an unknown name or other rules fail here, before any output
    return play_demo(rules, names, args.seed, save, args.quiet, sys.stdout)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    args = build_parser().parse_args(argv)
    try:
        if args.command == "replay":
            return _replay(args.file)
        if args.command == "demo":
            return _demo(args)
        if args.command in ("speed", "bench"):
            return run_speed(args)
        if args.command == "eval":
            return run_eval(args)
        if args.command == "play":
            return run_play(args)
        if args.command == "benchmark":
            return run_benchmark(args)
        if args.command == "leaderboard":
            return run_leaderboard(args)
        if args.command == "serve":
            return run_serve(args)
        if args.command == "sweep":
            return run_sweep_command(args)
        if args.command == "sweep-report":
            return run_sweep_report(args)
        if args.command in ("solve", "exploitability", "tree-size"):
            return run_solve_command(args)
    except (AllFivesError, AgentError) as e:
        return fail(str(e))
    except BrokenPipeError:
        raise
    except OSError as e:
        return fail(str(e))
    except KeyboardInterrupt:
        return 130
    raise AssertionError(args.command)  # pragma: no cover - argparse requires a command


def entry() -> None:
    """The console-script entry point."""
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. `allfives demo | head`: the reader left; stop quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 0
    sys.exit(status)
