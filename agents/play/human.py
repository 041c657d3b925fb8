"""A person at the terminal: :class:`HumanAgent`, who reads moves typed in notation.

:class:`HumanAgent` is an :class:`~allfives_env.core.player.Agent` that asks on a text stream:
it lists the legal moves numbered 1..k and reads a number or a move in notation.
:func:`agents.play.terminal.play_match` (``allfives play``) seats it at one seat of a match, lets
agents play every other seat, partner included, and prints the game as it goes.

A turn looks like this (the table is ``render_game`` from seat 0)::

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

import random
import re
import sys
from typing import TextIO

from agents.greedy import placement_points
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
from allfives_env.core.events import Phase
from allfives_env.core.layout import Layout
from allfives_env.core.render import render_layout
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
