"""What every ``allfives`` subcommand shares: one-line errors, the rules options, number types.

A user mistake prints one line on stderr and exits with status 2 (:data:`EXIT_USAGE`); nothing
is printed on stdout and no traceback is shown.
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from allfives_env.core.rules import PRESETS, Rules
from allfives_env.envs.settings import rules_of

EXIT_USAGE = 2
"""The exit status of a user mistake."""


def one_line(message: str) -> str:
    """``message`` with its line breaks escaped."""
    return message.replace("\r", "\\r").replace("\n", "\\n")


def fail(message: str) -> int:
    """Print ``allfives: error: message`` on stderr; return :data:`EXIT_USAGE`."""
    print(f"allfives: error: {one_line(message)}", file=sys.stderr)
    return EXIT_USAGE


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"allfives: error: {one_line(message)} (see {self.prog} --help)\n")


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        k = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if k < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return k


def seconds(text: str) -> float:
    """An argparse type: a number of seconds, more than 0 and at most 3600."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < x <= 3600:
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most 3600: {text!r}")
    return x


def add_rules_options(p: argparse.ArgumentParser) -> None:
    """``--preset``, ``--players`` and ``--partnerships/--no-partnerships``."""
    p.add_argument("--preset", choices=PRESETS, default="pagat", help="rules (default pagat)")
    p.add_argument(
        "--players", type=int, choices=(2, 3, 4), default=2, help="2, 3 or 4 (default 2)"
    )
    p.add_argument(
        "--partnerships",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="with 4 players: seats 0+2 v 1+3, or each for himself (default: the preset's own: "
        "partnerships in pagat, spruce and five_up; each for himself in dominoes_cc and "
        "pyatyorka)",
    )


def rules_from_args(args: argparse.Namespace) -> Rules:
    """The rules the options of :func:`add_rules_options` name (:func:`rules_of`).

    Raises:
        RulesError: for rules the engine refuses.
    """
    return rules_of(args.preset, args.players, args.partnerships)


def split_specs(text: str) -> list[str]:
    """Agent specs from ``"greedy,random"`` (or ``"search:sims=50,time=1;random"`` with ';')."""
    parts = text.split(";" if ";" in text else ",")
    return [p.strip() for p in parts if p.strip()]
