"""The ``allfives`` command line (also ``python -m allfives_env``).

Commands:
  replay FILE     replay a game record; print RULES.md §4's JSON result
  demo            a seeded greedy-vs-random match, printed move by move
  bench engine    moves/s and hands/s of random legal games, per preset
  bench env       environment steps/s of random masked play (env() and raw_env())
  eval            duplicate-deal matches between agents: win rates, CIs, ratings
  play            play a match against agents in the terminal

A user mistake (bad arguments, an invalid record, a missing file) prints one line on stderr and
exits with status 2; nothing is printed on stdout and no traceback is shown.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import NoReturn

from allfives_env.core.errors import AllFivesError

EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"allfives: error: {_one_line(message)} (see {self.prog} --help)\n")


def _one_line(message: str) -> str:
    return message.replace("\r", "\\r").replace("\n", "\\n")


def _fail(message: str) -> int:
    print(f"allfives: error: {_one_line(message)}", file=sys.stderr)
    return EXIT_USAGE


def _seconds(text: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < x <= 3600:
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most 3600: {text!r}")
    return x


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``allfives`` command."""
    from allfives_env.core.rules import PRESETS

    parser = _Parser(prog="allfives", description="All Fives (Muggins, Five-Up) domino engine.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("replay", help="replay a game record and print its result as JSON")
    p.add_argument("file", help="the record (JSON, RULES.md §4); '-' reads stdin")

    p = sub.add_parser("demo", help="a seeded greedy-vs-random match, printed move by move")
    p.add_argument("--seed", type=int, default=1, help="seed of the deals and the agents")
    p.add_argument("--preset", choices=PRESETS, default="pagat")
    p.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    p.add_argument(
        "--agents",
        default="greedy,random",
        help="agent spec per seat, cycled, separated by commas (or by ';' when a spec has "
        "parameters, e.g. 'search:sims=50;random'); default: greedy,random",
    )
    p.add_argument("--save", metavar="FILE", help="save the match as a game record")
    p.add_argument("--quiet", action="store_true", help="print only the result")

    p = sub.add_parser("bench", help="measure speed")
    p.add_argument("what", choices=("engine", "env"), help="what to measure")
    p.add_argument("--seconds", type=_seconds, default=2.0, help="per run (default 2)")
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
    from agents.eval.tournament import add_eval_parser
    from agents.play.human import add_play_parser

    add_eval_parser(sub)
    add_play_parser(sub)
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
    from agents.registry import make_agent

    names = [a.strip() for a in args.agents.split(";" if ";" in args.agents else ",")]
    names = [a for a in names if a]
    if not names:
        return _fail("--agents names no agent")
    for name in names:
        make_agent(name)  # an unknown name fails here, before anything is printed
    if args.save is None:
        return play_demo(args.preset, args.players, names, args.seed, None, args.quiet, sys.stdout)
    with open(args.save, "w", encoding="utf-8") as save:  # an unwritable path fails before play
        return play_demo(args.preset, args.players, names, args.seed, save, args.quiet, sys.stdout)


def _bench(args: argparse.Namespace) -> int:
    from allfives_env import bench
    from allfives_env.core.rules import Rules

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
        return _fail("--reference needs pygame (pip install pygame)")
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


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    from agents.errors import AgentError

    args = build_parser().parse_args(argv)
    try:
        if args.command == "replay":
            return _replay(args.file)
        if args.command == "demo":
            return _demo(args)
        if args.command == "bench":
            return _bench(args)
        if args.command == "eval":
            from agents.eval.tournament import run_eval

            return run_eval(args)
        if args.command == "play":
            from agents.play.human import run_play

            return run_play(args)
    except (AllFivesError, AgentError) as e:
        return _fail(str(e))
    except BrokenPipeError:
        raise
    except OSError as e:
        return _fail(str(e))
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
