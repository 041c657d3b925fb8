"""What every ``allfives`` subcommand shares: one-line errors, the rules options, number types,
agent specs (one per argument: :func:`agent_specs`) and ``--force`` for output files.

A user mistake prints one line on stderr and exits with status 2 (:data:`EXIT_USAGE`); nothing
is printed on stdout and no traceback is shown.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from typing import NoReturn

from agents.errors import AgentError
from agents.registry import joined_specs
from allfives_env.core.rules import PRESETS, Rules
from allfives_env.core.seeds import SEED_RULE, as_seed
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


def seed_value(text: str) -> int:
    """An argparse type: a seed, as every front end takes one (an int from 0 to 2**64 - 1:
    :func:`allfives_env.core.seeds.as_seed`)."""
    try:
        value = as_seed(int(text))
    except ValueError:
        value = None
    if value is None:
        raise argparse.ArgumentTypeError(f"a seed is {SEED_RULE}, not {text!r}")
    return value


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
    """``--preset``, ``--players``, ``--partnerships/--no-partnerships``, and the set, hand size
    and target (``--max_pip``, ``--hand_size``, ``--target``)."""
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
    p.add_argument(
        "--max_pip",
        type=int,
        default=None,
        help="play the double-N set, N from 2 to 6 (default 6: the 28 tiles); a smaller set "
        "needs a smaller --hand_size",
    )
    p.add_argument(
        "--hand_size", type=int, help="tiles dealt to each player (default: the preset's)"
    )
    p.add_argument(
        "--target", type=int, help="the score that wins the match (default: the preset's)"
    )


def rules_from_args(args: argparse.Namespace) -> Rules:
    """The rules the options of :func:`add_rules_options` name (:func:`rules_of`).

    Raises:
        RulesError: for rules the engine refuses.
    """
    return rules_of(
        args.preset,
        args.players,
        args.partnerships,
        max_pip=getattr(args, "max_pip", None),
        hand_size=getattr(args, "hand_size", None),
        target=getattr(args, "target", None),
    )


def add_force_option(p: argparse.ArgumentParser, what: str = "an output file") -> None:
    """``--force``: let the command replace ``what`` that exists (refused without it)."""
    p.add_argument(
        "--force",
        action="store_true",
        help=f"replace {what} that exists (without it, an existing file is refused before "
        "any work)",
    )


def agent_specs(option: str, values: Sequence[str]) -> list[str]:
    """The agent specs given to ``option`` (one per argument), checked for the old
    comma-separated lists (``greedy,random``), which are refused showing the new form.

    Raises:
        AgentError: for an empty spec, or several joined in one argument.
    """
    specs = []
    for value in values:
        spec = value.strip()
        if not spec:
            raise AgentError(f"{option}: an empty agent spec ({value!r})")
        parts = joined_specs(spec)
        if parts is not None:
            raise AgentError(
                f"{option} {value!r} names {len(parts)} agents in one argument: give one spec "
                f"per argument: {option} {shlex.join(parts)}"
            )
        specs.append(spec)
    return specs
