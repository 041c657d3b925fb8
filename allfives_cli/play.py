"""``allfives play``: a match against agents at the terminal (see :mod:`agents.play.terminal`)."""

from __future__ import annotations

import argparse
import random
from datetime import datetime
from pathlib import Path
from typing import Any

from agents.files import check_output
from agents.play.terminal import PlayArgumentError, make_opponent, play_match, seat_specs
from allfives_cli.options import (
    add_force_option,
    add_rules_options,
    agent_specs,
    fail,
    positive_int,
    rules_from_args,
    seed_value,
)


def add_play_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the ``play`` subcommand to ``subparsers`` (run it with :func:`run_play`)."""
    p = subparsers.add_parser(
        "play",
        help="play a match against agents at the terminal",
        description="Play All Fives at the terminal against agents; the match is saved as a "
        "game record at the end (also after 'quit').",
    )
    add_rules_options(p)
    p.add_argument(
        "--seat",
        default="0",
        help="your seat, 0 to players-1 (play goes 0, 1, 2, 3, 0...), or 'random' (default 0)",
    )
    p.add_argument(
        "--opponents",
        nargs="+",
        action="extend",
        metavar="AGENT",
        help="the agent of each other seat, one spec per argument (the option may be "
        "repeated), clockwise from your left, cycled: a name, name:key=value,key=value or a "
        ".zip checkpoint (e.g. --opponents "
        "search:sims=100,time=1 greedy); in 4-player partnerships the second is your partner "
        "(default: greedy)",
    )
    p.add_argument(
        "--seed",
        type=seed_value,
        help="seed of the deals and the agents' choices (default: random, shown); the same "
        "match as the first of 'allfives eval --seed SEED'",
    )
    p.add_argument(
        "--hands",
        type=positive_int,
        metavar="N",
        help="stop after N hands, even if no side has reached the target (the record is saved "
        "mid-match)",
    )
    group = p.add_mutually_exclusive_group()
    group.add_argument(
        "--save",
        metavar="PATH",
        help="where to save the game record (default: allfives-<date>-<time>.json here)",
    )
    group.add_argument("--no-save", action="store_true", help="do not save a record")
    add_force_option(p, "the --save file")


def default_record_path(now: datetime | None = None, where: Path | None = None) -> Path:
    """``allfives-YYYYMMDD-HHMMSS.json`` in ``where`` (default: the current directory), with
    ``-2``, ``-3``... added if that file exists."""
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    base = where if where is not None else Path()
    path = base / f"allfives-{stamp}.json"
    k = 2
    while path.exists():
        path = base / f"allfives-{stamp}-{k}.json"
        k += 1
    return path


def resolve_seat(text: str, num_players: int, seed: int) -> int:
    """The seat ``--seat`` names: a number, or ``random`` (drawn from ``seed``).

    Raises:
        PlayArgumentError: for anything else, or a seat out of range.
    """
    if text.strip().lower() == "random":
        return random.Random(f"{seed}/human-seat").randrange(num_players)
    try:
        seat = int(text)
    except ValueError:
        seat = -1
    if not 0 <= seat < num_players:
        raise PlayArgumentError(
            f"bad --seat {text!r}: choose 0-{num_players - 1} or 'random' ({num_players} players)"
        )
    return seat


def run_play(args: argparse.Namespace) -> int:
    """Run ``allfives play`` with parsed ``args`` on stdin/stdout; return the exit status.

    0 when the match was played, stopped by ``--hands`` or quit (and its record saved, unless
    ``--no-save``); 2, with one ``allfives: error:`` line on stderr and no ``record saved``
    line, if the record could not be written.

    Raises:
        PlayArgumentError: for a bad seat or agent spec, or an agent that cannot play the
            rules, before the game starts.
        AgentError: for several specs joined in one argument.
        OutputFileError: for a save path that cannot be written, or a file there without
            ``--force``, before the game starts.
    """
    rules = rules_from_args(args)
    specs = agent_specs("--opponents", args.opponents or ["greedy"])
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    seat = resolve_seat(args.seat, args.players, seed)
    seat_specs(rules.num_players, seat, specs)  # too many opponents fail here, before output
    for spec in specs:
        make_opponent(spec, rules)
    save: Path | None = None
    if not args.no_save:
        save = Path(args.save) if args.save is not None else default_record_path()
        check_output(save, "--save", force=args.force)
    outcome = play_match(rules, specs, seat=seat, seed=seed, max_hands=args.hands, save=save)
    if outcome.save_error is not None:
        return fail(outcome.save_error)
    return 0
