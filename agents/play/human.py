"""A person at the terminal: :class:`HumanAgent` and the ``allfives play`` command.

:class:`HumanAgent` is an :class:`~agents.base.Agent` that asks on a text stream: it lists the
legal moves numbered 1..k and reads a number or a move in notation. :func:`play_match` seats it
at one seat of a match, lets agents (``--opponents`` specs) play every other seat, partner
included, and prints the game as it goes: each move announced, the table from the human's seat
after every placement (other hands show only their sizes), the hand results and the match
result. At the end the match is saved as a game record (RULES.md §4), also after ``quit``.

A turn looks like this (``allfives play --seed 2``; the table is ``render_game`` from seat 0)::

    seat 1 (greedy) leads 1-4 +5
      scores: side 0 (0): 0 | side 1 (1): 5   (target 250)

        [1|4]

      open: W=1 E=4 count=5   boneyard: 10
      > seat 0: 0-0 0-3 0-4 1-1 2-3 2-4 2-6 3-5 4-6
        seat 1: 8 tiles
    your hand: 0-0 0-3 0-4 1-1 2-3 2-4 2-6 3-5 4-6
    your moves:
      1) 4-0 E
      2) 1-1 W
      3) 4-2 E
      4) 4-6 E
    your move [1 to 4, or a move like '4-6 E'; help]: 99
    there is no move 99: choose 1 to 4
    your move [1 to 4, or a move like '4-6 E'; help]: 4-2
    seat 0 (you) plays 4-2 E

Input, at the human's turn:

- ``2``: the move numbered 2 (a placement that scores now shows its points, ``+10``);
- ``4-1 E``: place 4-1 on slot E (halves in either order; slots ``W E N S``, ``@k``);
- ``6-4``: lead 6-4 with 6 facing W; later, a tile that fits one place only;
- ``draw``, ``pass``: when the rules force it; Enter alone confirms a forced one;
- ``show``: the table again; ``help``: the commands and the scoring rule in short;
- ``quit``, end of input or Ctrl-C: stop the match; the record is still saved.

Anything else gets a one-line message and a new prompt.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import NoReturn, TextIO, TypeVar

from agents.base import Agent
from agents.errors import AgentError
from agents.greedy import placement_points
from agents.registry import make_agent
from allfives_env.core.actions import (
    DRAW_ID,
    PASS_ID,
    SLOT_OF,
    TILE_OF,
    Action,
    parse_slot,
    slot_name,
)
from allfives_env.core.errors import NotationError
from allfives_env.core.events import ActionResult, HandEnd, HandResult, Phase
from allfives_env.core.game import Game
from allfives_env.core.layout import Layout
from allfives_env.core.records import record_of, save_record
from allfives_env.core.render import render_game, render_layout
from allfives_env.core.rules import PRESETS, Rules
from allfives_env.core.tiles import OTHER, TILE_ID, Tile
from allfives_env.core.view import PlayerView

HELP = """\
commands:
  1, 2, ...    the move with that number in the list
  4-1 E        place tile 4-1 on slot E (halves in either order; slots W E N S, @k)
  6-4          lead 6-4 with 6 facing W; later, a tile that fits one place only
  draw, pass   only when nothing fits (Enter alone confirms a forced draw or pass)
  show         the table again
  help         this text
  quit         stop the match now (the record is still saved)
scoring: after each placement the count is the sum of the open ends (a double at an end counts
  both halves); if it is a multiple of 5 your side scores it (five_up: a point per 5). Play out
  your tiles to score the opponents' pips, rounded to 5. The target is shown with the scores."""


class QuitMatch(Exception):
    """The human stopped the match: ``quit``, end of input, or Ctrl-C."""


class BadMove(ValueError):
    """Input at the human's turn that names no legal move; the message is one line."""


class PlayArgumentError(AgentError):
    """A bad ``play`` argument (seat, agent spec, save path), found before the game starts."""


# ---------------------------------------------------------------------- move text


def move_text(layout: Layout, action: Action) -> str:
    """``action`` as the human reads it: a lead as ``a-b`` (``a`` facing W), a placement with
    the half that matches the open end first (``4-1 E`` onto an E end showing 4)."""
    if action >= DRAW_ID:
        return str(action)
    if layout.is_empty:
        return action.lead_text()
    t, s = TILE_OF[action], SLOT_OF[action]
    v = layout.value[s]
    if v < 0 or OTHER[t][v] < 0:
        return str(action)
    return f"{v}-{OTHER[t][v]} {slot_name(s)}"


_TILE_RE = re.compile(r"([0-6])\s*-\s*([0-6])(?:\s+(\S+))?")


def parse_move(text: str, view: PlayerView) -> Action:
    """The legal action that ``text`` names at ``view``'s turn.

    ``text`` is a move number (1-based, in ``view.legal_actions`` order), a move in notation
    (``"4-1 E"``, a bare tile ``"6-4"`` for a lead or a tile that fits one place only,
    ``"draw"``, ``"pass"``), or empty, which confirms a forced draw or pass.

    Raises:
        BadMove: if ``text`` names no legal action; the message says why, in one line.
    """
    legal = view.legal_actions
    n = len(legal)
    t = " ".join(text.split())
    low = t.lower()
    if not t:
        if n == 1 and legal[0] >= DRAW_ID:
            return legal[0]
        raise BadMove(f"Enter alone only confirms a forced draw or pass: choose {_choose(n)}")
    if t.isdigit():
        k = int(t)
        if 1 <= k <= n:
            return legal[k - 1]
        raise BadMove(f"there is no move {t}: choose {_choose(n)}")
    if low in ("draw", "pass"):
        want = DRAW_ID if low == "draw" else PASS_ID
        if want in legal:
            return Action.from_id(want)
        if view.phase == Phase.DRAWN:
            raise BadMove(f"you must place the tile you drew, {view.drawn_tile}")
        if view.phase == Phase.LEAD:
            raise BadMove("you lead: play any tile from your hand")
        if DRAW_ID in legal:
            raise BadMove("you cannot pass while the boneyard has tiles to draw: type 'draw'")
        if PASS_ID in legal:
            raise BadMove("the boneyard is empty and nothing fits: type 'pass'")
        raise BadMove(f"you cannot {low} while a tile fits: choose {_choose(n)}")
    m = _TILE_RE.fullmatch(t)
    if m is None:
        raise BadMove(f"not a move: {t!r} (type {_choose(n)}, a move like '4-1 E', or 'help')")
    a, b = int(m.group(1)), int(m.group(2))
    tile = Tile(TILE_ID[a][b])
    if tile not in view.hand:
        raise BadMove(f"you do not hold {a}-{b}")
    if view.phase == Phase.LEAD:
        return _lead(view, tile, a, b, m.group(3))
    if view.phase == Phase.DRAWN and tile != view.drawn_tile:
        raise BadMove(f"you must place the tile you drew, {view.drawn_tile}")
    fits = [x for x in legal if TILE_OF[x] == tile]
    if m.group(3) is None:
        if len(fits) == 1:
            return fits[0]
        if not fits:
            raise BadMove(f"{a}-{b} fits no open end ({view.layout.describe()})")
        where = " or ".join(slot_name(SLOT_OF[x]) for x in fits)
        example = f"{a}-{b} {slot_name(SLOT_OF[fits[-1]])}"
        raise BadMove(f"{a}-{b} fits {where}: say where, e.g. '{example}'")
    try:
        slot = parse_slot(m.group(3).upper())
    except NotationError:
        raise BadMove(f"not a slot: {m.group(3)!r} (W, E, N, S or @k)") from None
    action = Action.placement(tile, slot)
    if action in legal:
        return action
    v = view.layout.value[slot]
    if v < 0:
        raise BadMove(f"slot {slot_name(slot)} is not open ({view.layout.describe()})")
    if not view.layout.fits(tile, slot):
        raise BadMove(f"{a}-{b} does not match {slot_name(slot)}, which shows {v}")
    raise BadMove(f"{a}-{b} {slot_name(slot)} is not legal now: choose {_choose(n)}")


def _lead(view: PlayerView, tile: Tile, a: int, b: int, slot_text: str | None) -> Action:
    if view.required_lead is not None and tile != view.required_lead:
        raise BadMove(f"the rules say you lead {view.required_lead}")
    if slot_text is not None:
        raise BadMove(f"a lead is a bare tile: '{a}-{b}' puts {a} facing W")
    # "6-4" leads with 6 facing W: the mirrored lead on E (legal, though not listed)
    return Action.placement(tile, 1 if a > b else 0)


# ---------------------------------------------------------------------- the agent


def describe_view(view: PlayerView) -> str:
    """The table as ``view``'s seat sees it: scores, layout, count and hand sizes."""
    r = view.rules
    scores = " | ".join(f"side {i}: {s}" for i, s in enumerate(view.scores))
    sizes = ", ".join(
        f"seat {s} {'(you) ' if s == view.seat else ''}{k} tiles"
        for s, k in enumerate(view.hand_sizes)
    )
    lines = [f"scores: {scores}   (target {r.target})"]
    lines += ["  " + x for x in render_layout(view.layout)]
    lines.append(f"open: {view.layout.describe()}   boneyard: {view.boneyard_size}")
    lines.append(f"hands: {sizes}")
    return "\n".join(lines)


class HumanAgent:
    """An :class:`~agents.base.Agent` that asks a person on a text stream.

    Each turn it prints the hand and the legal moves, numbered, and reads lines until one names
    a legal move (see :func:`parse_move`); ``help`` and ``show`` print and ask again.

    Args:
        inp: where answers are read (default: ``sys.stdin`` at each read).
        out: where questions are written (default: ``sys.stdout``).
        echo: write each answer after its prompt, for a readable transcript when ``inp`` is
            not a terminal (default: echo unless ``inp`` is a terminal).

    ``act`` raises :class:`QuitMatch` on ``quit``, end of input, or Ctrl-C.
    """

    name = "human"

    def __init__(
        self, inp: TextIO | None = None, out: TextIO | None = None, *, echo: bool | None = None
    ):
        self._inp = inp
        self._out = out
        self._echo = echo

    @property
    def inp(self) -> TextIO:
        """The stream answers are read from."""
        return self._inp if self._inp is not None else sys.stdin

    @property
    def out(self) -> TextIO:
        """The stream questions are written to."""
        return self._out if self._out is not None else sys.stdout

    def say(self, text: str) -> None:
        """Write one or more lines."""
        print(text, file=self.out)

    def ask(self, prompt: str) -> str:
        """Write ``prompt`` and read one line (without its newline).

        Raises:
            QuitMatch: at end of input or on Ctrl-C.
        """
        out = self.out
        out.write(prompt)
        out.flush()
        try:
            line = self.inp.readline()
        except KeyboardInterrupt:
            out.write("\n")
            raise QuitMatch("interrupted") from None
        if not line:
            out.write("\n")
            raise QuitMatch("end of input")
        line = line.rstrip("\r\n")
        echo = self._echo
        if echo is None:
            echo = not _isatty(self.inp)
        if echo:
            out.write(line + "\n")
        return line

    def act(self, view: PlayerView, rng: random.Random) -> Action:
        """Ask until the answer names a legal action; return it.

        Raises:
            QuitMatch: on ``quit``, end of input, or Ctrl-C.
        """
        self.say(self.menu(view))
        prompt = self.prompt(view)
        while True:
            line = self.ask(prompt)
            cmd = line.strip().lower()
            if cmd in ("help", "h", "?"):
                self.say(HELP)
            elif cmd in ("show", "table", "board"):
                self.say(describe_view(view))
                self.say(self.menu(view))
            elif cmd in ("quit", "q", "exit"):
                raise QuitMatch("you quit")
            else:
                try:
                    return parse_move(line, view)
                except BadMove as e:
                    self.say(str(e))

    @staticmethod
    def menu(view: PlayerView) -> str:
        """The hand and the numbered legal moves (each with the points it scores now)."""
        legal = view.legal_actions
        lines = [f"your hand: {' '.join(map(str, view.hand))}"]
        if view.phase == Phase.DRAWN:
            lines.append(f"you drew {view.drawn_tile}, which fits: place it")
        elif legal == (Action.from_id(DRAW_ID),):
            lines.append("nothing fits: you must draw")
        elif legal == (Action.from_id(PASS_ID),):
            lines.append("nothing fits and the boneyard is empty: you must pass")
        elif view.phase == Phase.LEAD:
            lines.append("you lead (a bare tile 'a-b' leads with a facing W):")
        else:
            lines.append("your moves:")
        for k, a in enumerate(legal, 1):
            pts = placement_points(view, a) if a < DRAW_ID else 0
            gain = f"   +{pts}" if pts else ""
            lines.append(f"  {k}) {move_text(view.layout, a)}{gain}")
        return "\n".join(lines)

    @staticmethod
    def prompt(view: PlayerView) -> str:
        """The question for this turn."""
        legal = view.legal_actions
        if len(legal) == 1 and legal[0] >= DRAW_ID:
            return f"your move [Enter to {legal[0]}; help]: "
        example = next((a for a in reversed(legal) if a < DRAW_ID), legal[0])
        like = move_text(view.layout, example)
        return f"your move [{_choose(len(legal))}, or a move like '{like}'; help]: "


def _choose(n: int) -> str:
    return "1" if n == 1 else f"1 to {n}"


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


# ---------------------------------------------------------------------- the match


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


def split_specs(text: str) -> list[str]:
    """Agent specs from ``"greedy,random"`` (or ``"search:sims=50,time=1;random"`` with ';')."""
    parts = text.split(";" if ";" in text else ",")
    return [p.strip() for p in parts if p.strip()]


def seat_specs(num_players: int, seat: int, opponents: Sequence[str]) -> list[str]:
    """The spec of each seat: ``"human"`` at ``seat``, ``opponents`` cycled over the others
    clockwise from the human's left (in 4-player partnerships the second one is the partner)."""
    specs = ["human"] * num_players
    for k in range(1, num_players):
        specs[(seat + k) % num_players] = opponents[(k - 1) % len(opponents)]
    return specs


def make_opponents(specs: Sequence[str], seat: int) -> dict[int, Agent]:
    """A fresh agent for every seat but ``seat`` (``specs`` as :func:`seat_specs` gives them).

    Raises:
        PlayArgumentError: for a spec the registry cannot make.
    """
    return {s: _make(spec) for s, spec in enumerate(specs) if s != seat}


def _make(spec: str) -> Agent:
    try:
        return make_agent(spec)
    except (ValueError, OSError) as e:
        raise PlayArgumentError(f"--opponents: {e}") from None


class _Table:
    """The match's printing: names of seats and sides, moves, hand ends."""

    def __init__(self, game: Game, seat: int, specs: Sequence[str], out: TextIO):
        self.game = game
        self.seat = seat
        self.specs = specs
        self.out = out

    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    def seat_name(self, s: int) -> str:
        if s == self.seat:
            return f"seat {s} (you)"
        partner = self.game.rules.side_of(s) == self.game.rules.side_of(self.seat)
        return f"seat {s} ({self.specs[s]}{', your partner' if partner else ''})"

    def side_name(self, side: int) -> str:
        seats = self.game.rules.seats_of(side)
        return " + ".join("you" if s == self.seat else f"seat {s} ({self.specs[s]})" for s in seats)

    def scores(self) -> str:
        return " | ".join(f"{self.side_name(i)} {x}" for i, x in enumerate(self.game.scores))

    def table(self) -> None:
        for line in render_game(self.game, self.seat).splitlines()[1:]:
            self.say("  " + line if line else "")

    def hand_start(self) -> None:
        g = self.game
        self.say(f"=== hand {g.hand_number}: {self.seat_name(g.leader)} leads ===")
        self.table()

    def move(self, text: str, result: ActionResult) -> None:
        g = self.game
        who = self.seat_name(result.player)
        a = result.action
        if a == DRAW_ID:
            drawn = f" {result.drawn}" if result.player == self.seat else ""
            self.say(f"{who} draws{drawn}   (boneyard {g.boneyard_size})")
            return
        if a == PASS_ID:
            self.say(f"{who} passes")
            return
        verb = "leads" if len(g.events) == 1 else "plays"
        gain = f" +{result.points}" if result.points else ""
        self.say(f"{who} {verb} {text}{gain}")
        self.table()

    def hand_end(self, h: HandResult) -> None:
        g = self.game
        if h.end == HandEnd.DOMINO:
            assert h.domino_seat is not None
            how = f"{self.seat_name(h.domino_seat)} played out"
        elif h.end == HandEnd.BLOCKED:
            how = "blocked: nobody can play"
        else:
            how = "a side reached the target"
        self.say(f"=== hand {g.hand_number} ends: {how} ===")
        if h.end != HandEnd.TARGET:
            pips = ", ".join(f"{self.seat_name(s)} {p}" for s, p in enumerate(h.pips))
            self.say(f"pips left: {pips}")
            award = ", ".join(
                f"{self.side_name(i)} {'+' if x > 0 else ''}{x}" for i, x in enumerate(h.award) if x
            )
            self.say(f"award: {award or 'none'}")
        self.say(f"scores: {self.scores()}   (target {g.rules.target})")

    def match_end(self, stopped: str | None) -> None:
        g = self.game
        k = g.hand_number
        hands = f"{k} hand{'s' if k != 1 else ''}"
        if stopped == "quit":
            self.say(f"=== match stopped in hand {k} ===")
        elif stopped == "hands":
            self.say(f"=== match stopped after {hands} (--hands) ===")
        else:
            won = g.winners or ()
            mine = g.rules.side_of(self.seat)
            if won == (mine,):
                verdict = "you win"
            elif len(won) == 1:
                verdict = f"{self.side_name(won[0])} wins"
            else:
                verdict = "shared win: " + " and ".join(self.side_name(w) for w in won)
            self.say(f"=== match over after {hands}: {verdict} ===")
        self.say(f"final scores: {self.scores()}")


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
    The deals come from ``random.Random(seed)`` and each agent's choices from its own generator
    seeded from it, so the same seed and the same answers replay the same match; without a seed
    one is drawn and shown. The match ends when a side reaches the target, after ``max_hands``
    hands if given, or when the human quits (``quit``, end of input, Ctrl-C). The record
    (RULES.md §4, plus ``players``, ``seed``, ``human_seat`` and ``date``) is then written to
    ``save``, if given, even after a quit.

    Raises:
        PlayArgumentError: for a seat out of range, no or unknown opponents, ``max_hands``
            below 1, or rules that are not a preset's with ``save`` given (a record holds
            preset rules only), before anything is printed.
    """
    n = rules.num_players
    if type(seat) is not int or not 0 <= seat < n:
        raise PlayArgumentError(f"no seat {seat!r} in a {n}-player game (choose 0-{n - 1})")
    if not opponents:
        raise PlayArgumentError("--opponents names no agent")
    if max_hands is not None and max_hands < 1:
        raise PlayArgumentError(f"--hands must be at least 1, not {max_hands}")
    for spec in opponents:  # every spec, also those more seats would use
        _make(spec)
    changed = rules.overrides()
    changed.pop("partnerships", None)
    if save is not None and changed:
        raise PlayArgumentError(
            f"a record holds preset rules only; these rules override {', '.join(sorted(changed))}"
        )
    specs = seat_specs(n, seat, opponents)
    agents = make_opponents(specs, seat)
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    out = out if out is not None else sys.stdout
    human = HumanAgent(inp, out)
    deal_rng = random.Random(seed)
    rngs = [random.Random(f"{seed}/seat{s}") for s in range(n)]
    game = Game(rules, deal_rng)
    table = _Table(game, seat, specs, out)
    others = ", ".join(table.seat_name(s) for s in range(n) if s != seat)
    table.say(f"All Fives — {rules.describe()} — seed {seed} — you are seat {seat}; {others}")
    goal = (
        f"exactly {rules.target} (a score past it is not scored)"
        if rules.exact_target
        else rules.target
    )
    table.say(f"first to {goal} wins; type 'help' at your turn for the commands")
    stopped: str | None = None
    try:
        table.hand_start()
        while True:
            s = game.current_player
            assert s is not None
            view = game.view(s)
            try:
                action = (human if s == seat else agents[s]).act(view, rngs[s])
            except KeyboardInterrupt:
                raise QuitMatch("interrupted") from None
            text = move_text(game.layout, action)
            result = game.apply(action)
            table.move(text, result)
            if result.hand is None:
                continue
            table.hand_end(result.hand)
            if game.is_match_over:
                break
            if max_hands is not None and game.hand_number >= max_hands:
                stopped = "hands"
                break
            game.deal(deal_rng)
            table.hand_start()
    except QuitMatch as e:
        stopped = "quit"
        table.say(f"({e})")
    table.match_end(stopped)
    path = Path(save) if save is not None else None
    error = None
    if path is not None:
        extra = {
            "players": specs,
            "seed": seed,
            "human_seat": seat,
            "date": datetime.now().isoformat(timespec="seconds"),
        }
        try:
            save_record(record_of(game, extra), path)
        except OSError as e:
            error = f"cannot save the record to {str(path)!r}: {e.strerror or e}"
            table.say(error)
            path = None
        else:
            table.say(f"record saved to {path} (replay it: allfives replay {path})")
    return MatchOutcome(game, seat, seed, stopped, path, error)


# ---------------------------------------------------------------------- command line


def _positive(text: str) -> int:
    try:
        k = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if k < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return k


def _add_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--preset", choices=PRESETS, default="pagat", help="rules (default pagat)")
    p.add_argument(
        "--players", type=int, choices=(2, 3, 4), default=2, help="2, 3 or 4 (default 2)"
    )
    p.add_argument(
        "--no-partnerships",
        action="store_true",
        help="with 4 players, each plays for himself (default: partnerships 0+2 v 1+3)",
    )
    p.add_argument(
        "--seat",
        default="0",
        help="your seat, 0 to players-1 (play goes 0, 1, 2, 3, 0...), or 'random' (default 0)",
    )
    p.add_argument(
        "--opponents",
        default="greedy",
        help="agent spec for each other seat, clockwise from your left, cycled, separated by "
        "commas (or ';' when a spec has parameters, e.g. 'search:sims=100;greedy'); in "
        "4-player partnerships the second is your partner (default: greedy)",
    )
    p.add_argument(
        "--seed",
        type=int,
        help="seed of the deals and the agents' choices (default: random, shown)",
    )
    p.add_argument(
        "--hands",
        type=_positive,
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


_P = TypeVar("_P", bound=argparse.ArgumentParser)


def add_play_parser(subparsers: argparse._SubParsersAction[_P]) -> None:
    """Add the ``play`` subcommand (a match against agents at the terminal) to ``subparsers``."""
    p = subparsers.add_parser(
        "play",
        help="play a match against agents at the terminal",
        description="Play All Fives at the terminal against agents; the match is saved as a "
        "game record at the end (also after 'quit').",
    )
    _add_options(p)


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


def _check_save_path(path: Path) -> None:
    if path.is_dir():
        raise PlayArgumentError(f"--save: {str(path)!r} is a directory")
    parent = path.parent
    if not parent.is_dir():
        raise PlayArgumentError(f"--save: no directory {str(parent)!r}")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise PlayArgumentError(f"--save: cannot write {str(path)!r}")


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

    0 when the match was played, stopped by ``--hands`` or quit; 1 if the record could not be
    saved.

    Raises:
        PlayArgumentError: for a bad seat, agent spec or save path, before the game starts.
    """
    rules = Rules.preset(args.preset, args.players, partnerships=not args.no_partnerships)
    specs = split_specs(args.opponents)
    if not specs:
        raise PlayArgumentError("--opponents names no agent")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    seat = resolve_seat(args.seat, args.players, seed)
    for spec in specs:  # fail before any output
        _make(spec)
    save: Path | None = None
    if not args.no_save:
        save = Path(args.save) if args.save is not None else default_record_path()
        _check_save_path(save)
    outcome = play_match(rules, specs, seat=seat, seed=seed, max_hands=args.hands, save=save)
    return 1 if outcome.save_error is not None else 0


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors, as the ``allfives`` command prints them."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"allfives: error: {message} (see {self.prog} --help)\n")


def main(argv: Sequence[str] | None = None) -> int:
    """``allfives play`` on its own: parse ``argv`` (default ``sys.argv[1:]``), play, and
    return the exit status (2, with one line on stderr, for bad arguments)."""
    parser = _Parser(prog="allfives play", description="Play All Fives against agents.")
    _add_options(parser)
    args = parser.parse_args(argv)
    try:
        return run_play(args)
    except PlayArgumentError as e:
        print(f"allfives: error: {e}", file=sys.stderr)
        return 2


__all__ = [
    "HELP",
    "BadMove",
    "HumanAgent",
    "MatchOutcome",
    "PlayArgumentError",
    "QuitMatch",
    "add_play_parser",
    "main",
    "parse_move",
    "play_match",
    "run_play",
]
