"""A match at the terminal: a person at one seat, agents at the others (``allfives play``).

:func:`play_match` seats a :class:`~agents.play.human.HumanAgent` at one seat of a match, lets
agents (specs) play every other seat, partner included, and prints the game as it goes: each
move announced, the table from the human's seat after every placement (other hands show only
their sizes), the hand results and the match result. At the end the match is saved as a game
record (RULES.md §4), also after ``quit``. The match is played by the one match loop,
:class:`agents.eval.match.Match`, seeded by :func:`agents.eval.match.match_seeds` from the seed.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TextIO

from agents.errors import AgentError
from agents.eval.match import Match, Watcher, match_seeds
from agents.files import OutputFileError, write_output
from agents.play.human import HumanAgent, QuitMatch, move_text
from agents.registry import agent_for, make_agent
from allfives_env.core.actions import DRAW_ID, PASS_ID, Action
from allfives_env.core.events import ActionResult, HandEnd, HandResult
from allfives_env.core.game import Game
from allfives_env.core.player import Agent
from allfives_env.core.records import record_of
from allfives_env.core.render import render_game
from allfives_env.core.rules import Rules


class PlayArgumentError(AgentError):
    """A bad ``play`` argument (seat, agent spec, save path), found before the game starts."""


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    """How :func:`play_match` ended.

    Attributes:
        game: the game, as far as it was played.
        seat: the human's seat.
        seed: the seed of the deals and the agents.
        stopped: ``None`` if the match was played to its end; ``"quit"`` if the human stopped
            it; ``"hands"`` if it stopped after ``max_hands`` hands.
        record_path: where the record was saved (``None``: not asked to, or saving failed).
        save_error: why saving failed, if it did.
    """

    game: Game
    seat: int
    seed: int
    stopped: str | None
    record_path: Path | None
    save_error: str | None = None


def seat_specs(num_players: int, seat: int, opponents: Sequence[str]) -> list[str]:
    """The spec of each seat: ``"human"`` at ``seat``, ``opponents`` cycled over the others
    clockwise from the human's left (in 4-player partnerships the second one is the partner).

    Raises:
        PlayArgumentError: for more opponents than the other seats.
    """
    if len(opponents) > num_players - 1:
        raise PlayArgumentError(
            f"--opponents names {len(opponents)} agents for {num_players - 1} other seat"
            f"{'s' if num_players > 2 else ''}"
        )
    specs = ["human"] * num_players
    for k in range(1, num_players):
        specs[(seat + k) % num_players] = opponents[(k - 1) % len(opponents)]
    return specs


def make_opponent(spec: str, rules: Rules | None = None) -> Agent:
    """The agent ``spec`` names, for another seat (checked to play ``rules``, if given).

    Raises:
        PlayArgumentError: for a spec the registry cannot make, or an agent that cannot play
            ``rules`` (a checkpoint trained for others).
    """
    try:
        return make_agent(spec) if rules is None else agent_for(spec, rules)
    except (ValueError, OSError) as e:
        raise PlayArgumentError(f"--opponents: {e}") from None


class TablePrinter(Watcher):
    """Prints a match from the human's seat: names of seats and sides, moves, hand ends."""

    def __init__(self, seat: int, specs: Sequence[str], out: TextIO):
        self.seat = seat
        self.specs = specs
        self.out = out
        self.text = ""

    def say(self, text: str = "") -> None:
        """Write one line."""
        print(text, file=self.out)

    def seat_name(self, game: Game, s: int) -> str:
        """``seat 1 (greedy, your partner)``, or ``seat 0 (you)``."""
        if s == self.seat:
            return f"seat {s} (you)"
        partner = game.rules.side_of(s) == game.rules.side_of(self.seat)
        return f"seat {s} ({self.specs[s]}{', your partner' if partner else ''})"

    def side_name(self, game: Game, side: int) -> str:
        """The seats of ``side``, by name."""
        seats = game.rules.seats_of(side)
        return " + ".join("you" if s == self.seat else f"seat {s} ({self.specs[s]})" for s in seats)

    def scores(self, game: Game) -> str:
        """Each side's score, by name."""
        return " | ".join(f"{self.side_name(game, i)} {x}" for i, x in enumerate(game.scores))

    def table(self, game: Game) -> None:
        """The table from the human's seat."""
        for line in render_game(game, self.seat).splitlines()[1:]:
            self.say("  " + line if line else "")

    def hand_started(self, game: Game) -> None:
        self.say(f"=== hand {game.hand_number}: {self.seat_name(game, game.leader)} leads ===")
        self.table(game)

    def acting(self, game: Game, seat: int, action: Action) -> None:
        self.text = move_text(game.layout, action)

    def acted(self, game: Game, result: ActionResult) -> None:
        who = self.seat_name(game, result.player)
        a = result.action
        if a == DRAW_ID:
            drawn = f" {result.drawn}" if result.player == self.seat else ""
            self.say(f"{who} draws{drawn}   (boneyard {game.boneyard_size})")
            return
        if a == PASS_ID:
            self.say(f"{who} passes")
            return
        verb = "leads" if len(game.events) == 1 else "plays"
        gain = f" +{result.points}" if result.points else ""
        self.say(f"{who} {verb} {self.text}{gain}")
        self.table(game)

    def hand_ended(self, game: Game, hand: HandResult) -> None:
        if hand.end == HandEnd.DOMINO:
            assert hand.domino_seat is not None
            how = f"{self.seat_name(game, hand.domino_seat)} played out"
        elif hand.end == HandEnd.BLOCKED:
            how = "blocked: nobody can play"
        else:
            how = "a side reached the target"
        self.say(f"=== hand {game.hand_number} ends: {how} ===")
        if hand.end != HandEnd.TARGET:
            pips = ", ".join(f"{self.seat_name(game, s)} {p}" for s, p in enumerate(hand.pips))
            self.say(f"pips left: {pips}")
            award = ", ".join(
                f"{self.side_name(game, i)} {'+' if x > 0 else ''}{x}"
                for i, x in enumerate(hand.award)
                if x
            )
            self.say(f"award: {award or 'none'}")
        self.say(f"scores: {self.scores(game)}   (target {game.rules.target})")

    def match_end(self, game: Game, stopped: str | None) -> None:
        """The last lines: how the match ended, and the final scores."""
        k = game.hand_number
        hands = f"{k} hand{'s' if k != 1 else ''}"
        if stopped == "quit":
            self.say(f"=== match stopped in hand {k} ===")
        elif stopped == "hands":
            self.say(f"=== match stopped after {hands} (--hands) ===")
        else:
            won = game.winners or ()
            mine = game.rules.side_of(self.seat)
            if won == (mine,):
                verdict = "you win"
            elif len(won) == 1:
                verdict = f"{self.side_name(game, won[0])} wins"
            else:
                verdict = "shared win: " + " and ".join(self.side_name(game, w) for w in won)
            self.say(f"=== match over after {hands}: {verdict} ===")
        self.say(f"final scores: {self.scores(game)}")


def play_match(
    rules: Rules,
    opponents: Sequence[str] = ("greedy",),
    *,
    seat: int = 0,
    seed: int | None = None,
    max_hands: int | None = None,
    save: str | Path | None = None,
    inp: TextIO | None = None,
    out: TextIO | None = None,
) -> MatchOutcome:
    """Play a match with a human at ``seat`` and agents elsewhere; print it; save its record.

    Seat ``seat + k`` is played by ``opponents[(k - 1) % len(opponents)]`` (an agent spec).
    The match is seeded from ``seed`` like match 0 of ``allfives eval --seed SEED``, so the same
    seed and the same answers replay the same match; without a seed one is drawn and shown.
    The match ends when a side reaches the target, after ``max_hands`` hands if given, or when
    the human quits (``quit``, end of input, Ctrl-C). The record (RULES.md §4, plus
    ``players``, ``seed``, ``human_seat`` and ``date``) is then written to ``save``, if given,
    even after a quit, whole; ``record saved`` is printed once it is written, and a failed
    write is not printed but returned (:attr:`MatchOutcome.save_error`) for the caller to say.

    Raises:
        PlayArgumentError: for a seat out of range, no, too many or unknown opponents, an
            opponent that cannot play ``rules`` (a checkpoint trained for others),
            ``max_hands`` below 1, or rules that are not a preset's with ``save`` given (a
            record holds preset rules only), before anything is printed.
    """
    n = rules.num_players
    if type(seat) is not int or not 0 <= seat < n:
        raise PlayArgumentError(f"no seat {seat!r} in a {n}-player game (choose 0-{n - 1})")
    if not opponents:
        raise PlayArgumentError("--opponents names no agent")
    if max_hands is not None and max_hands < 1:
        raise PlayArgumentError(f"--hands must be at least 1, not {max_hands}")
    specs = seat_specs(n, seat, opponents)
    changed = rules.overrides()
    changed.pop("partnerships", None)
    if save is not None and changed:
        raise PlayArgumentError(
            f"a record holds preset rules only; these rules override {', '.join(sorted(changed))}"
        )
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    out = out if out is not None else sys.stdout
    human = HumanAgent(inp, out)
    agents = [human if s == seat else make_opponent(spec, rules) for s, spec in enumerate(specs)]
    printer = TablePrinter(seat, specs, out)
    match = Match(rules, agents, *match_seeds(seed, 0, 0), watcher=printer)
    game = match.game
    others = ", ".join(printer.seat_name(game, s) for s in range(n) if s != seat)
    printer.say(f"All Fives — {rules.describe()} — seed {seed} — you are seat {seat}; {others}")
    goal = (
        f"exactly {rules.target} (a score past it is not scored)"
        if rules.exact_target
        else rules.target
    )
    printer.say(f"first to {goal} wins; type 'help' at your turn for the commands")
    stopped: str | None = None
    try:
        if not match.play(max_hands):
            stopped = "hands"
    except (QuitMatch, KeyboardInterrupt) as e:
        stopped = "quit"
        printer.say(f"({e or 'interrupted'})")
    printer.match_end(game, stopped)
    path = Path(save) if save is not None else None
    error = None
    if path is not None:
        extra = {
            "players": specs,
            "seed": seed,
            "human_seat": seat,
            "date": datetime.now().isoformat(timespec="seconds"),
        }
        text = json.dumps(record_of(game, extra).to_json(), indent=1) + "\n"
        try:
            write_output(path, text.encode("utf-8"), "--save")
        except OutputFileError as e:
            error = str(e)  # the caller says it: ``allfives play`` as its one error line
            path = None
        else:
            printer.say(f"record saved to {path} (replay it: allfives replay {path})")
    return MatchOutcome(game, seat, seed, stopped, path, error)
