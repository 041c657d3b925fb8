"""Engine actions: placements ``(tile, slot)``, DRAW and PASS, and their text notation.

An :class:`Action` *is* its engine id (an ``int``): ``tile * 16 + slot`` for a placement
(0–447), :data:`DRAW` = 448, :data:`PASS` = 449. These ids are the engine's own and fixed; the
environment's action space is a separate, denser numbering owned by the environment module.

Slots (RULES.md §1–2): ``W`` = 0 and ``E`` = 1 are the ends of the line, ``N`` = 2 and ``S`` = 3
the first spinner's branches; with every double a spinner, spinner *k* (in placement order) owns
slots ``2 + 2k`` and ``3 + 2k``, written ``@k``-style (``@4`` … ``@15``).

The lead is a placement on slot W: tile ``a-b`` (``a`` ≤ ``b``) led on W lies with ``a`` facing W.
Led on E it is the mirrored lead, ``b`` facing W (``"b-a"`` in a record). Both are legal;
:meth:`Game.legal_actions` lists only the W form, since a mirrored layout plays identically.

>>> a = Action.placement(Tile.parse("1-4"), 1)
>>> a, str(a), a.tile, a.slot, int(a)
(Action('1-4 E'), '1-4 E', Tile('1-4'), 1, 161)
>>> Action.parse("4-1 E") == a, Action.parse("3-2 @5").slot, str(DRAW)
(True, 5, 'draw')
"""

from __future__ import annotations

import re

from allfives_env.core.errors import NotationError
from allfives_env.core.tiles import HIGH, LOW, NUM_TILES, TILES, Tile

MAX_SLOTS = 16
"""Slot numbers an engine action may name (16: W, E and seven spinners' two branches)."""

DRAW_ID = NUM_TILES * MAX_SLOTS
PASS_ID = DRAW_ID + 1
NUM_ACTIONS = PASS_ID + 1

SLOT_LETTERS = ("W", "E", "N", "S")

_PLACEMENT_RE = re.compile(r"([0-6])-([0-6]) (W|E|N|S|@(?:1[0-5]|[0-9]))")
_LEAD_RE = re.compile(r"([0-6])-([0-6])")


def slot_name(slot: int) -> str:
    """``W``, ``E``, ``N``, ``S`` for slots 0–3, ``@k`` beyond."""
    return SLOT_LETTERS[slot] if slot < 4 else f"@{slot}"


def parse_slot(text: str) -> int:
    """Read ``W``, ``E``, ``N``, ``S`` or ``@k`` (k = 0–15).

    Raises:
        NotationError: if ``text`` names no slot.
    """
    if text in SLOT_LETTERS:
        return SLOT_LETTERS.index(text)
    m = re.fullmatch(r"@(1[0-5]|[0-9])", text)
    if m is None:
        raise NotationError(f"not a slot (expected W, E, N, S or @0-@15): {text!r}")
    return int(m.group(1))


class Action(int):
    """An engine action; the value is its id. Shared instances live in :data:`ACTIONS`."""

    __slots__ = ()

    @classmethod
    def placement(cls, tile: int, slot: int) -> Action:
        """The placement of ``tile`` on ``slot``.

        Raises:
            NotationError: if the tile id or slot is out of range.
        """
        if not (0 <= tile < NUM_TILES and 0 <= slot < MAX_SLOTS):
            raise NotationError(f"no placement of tile id {tile!r} on slot {slot!r}")
        return ACTIONS[tile * MAX_SLOTS + slot]

    @classmethod
    def from_id(cls, action_id: int) -> Action:
        """The action with engine id ``action_id``.

        Raises:
            NotationError: if the id is out of range.
        """
        if type(action_id) is not int and not isinstance(action_id, int):
            raise NotationError(f"not an action id: {action_id!r}")
        if not 0 <= action_id < NUM_ACTIONS:
            raise NotationError(f"action id out of range 0-{NUM_ACTIONS - 1}: {action_id!r}")
        return ACTIONS[action_id]

    @classmethod
    def parse(cls, text: str) -> Action:
        """Read ``"c-d X"`` (halves in either order), ``"draw"`` or ``"pass"``.

        A bare ``"a-b"`` reads as a lead: on W when ``a`` ≤ ``b``, else the mirrored lead on E.

        Raises:
            NotationError: if ``text`` is none of these forms.
        """
        if text == "draw":
            return DRAW
        if text == "pass":
            return PASS
        if not isinstance(text, str):
            raise NotationError(f"not an action: {text!r}")
        m = _PLACEMENT_RE.fullmatch(text)
        if m is not None:
            tile = Tile.of(int(m.group(1)), int(m.group(2)))
            return ACTIONS[tile * MAX_SLOTS + parse_slot(m.group(3))]
        m = _LEAD_RE.fullmatch(text)
        if m is not None:
            a, b = int(m.group(1)), int(m.group(2))
            return ACTIONS[Tile.of(a, b) * MAX_SLOTS + (1 if a > b else 0)]
        raise NotationError(
            f"not an action (expected 'c-d X' with X in W E N S @k, a bare lead 'a-b', "
            f"'draw' or 'pass'): {text!r}"
        )

    @property
    def is_draw(self) -> bool:
        """Whether this is DRAW."""
        return self == DRAW_ID

    @property
    def is_pass(self) -> bool:
        """Whether this is PASS."""
        return self == PASS_ID

    @property
    def is_placement(self) -> bool:
        """Whether this places a tile."""
        return self < DRAW_ID

    @property
    def tile(self) -> Tile | None:
        """The placed tile; ``None`` for DRAW and PASS."""
        return TILES[self >> 4] if self < DRAW_ID else None

    @property
    def slot(self) -> int | None:
        """The slot placed on; ``None`` for DRAW and PASS."""
        return self & 15 if self < DRAW_ID else None

    def lead_text(self) -> str:
        """The record form of this action as a lead: ``"a-b"`` with ``a`` facing W."""
        t = self >> 4
        return f"{HIGH[t]}-{LOW[t]}" if self & 15 else f"{LOW[t]}-{HIGH[t]}"

    def __str__(self) -> str:
        if self >= DRAW_ID:
            return "draw" if self == DRAW_ID else "pass"
        t = self >> 4
        return f"{LOW[t]}-{HIGH[t]} {slot_name(self & 15)}"

    def __repr__(self) -> str:
        return f"Action('{self}')"


#: ``TILE_OF[a]``, ``SLOT_OF[a]``: the tile id and the slot of engine action ``a`` (-1 for DRAW and
#: PASS). Plain lookups, as fast as the bit arithmetic they hide, for hot loops outside this module.
TILE_OF: tuple[int, ...] = tuple(a >> 4 if a < DRAW_ID else -1 for a in range(NUM_ACTIONS))
SLOT_OF: tuple[int, ...] = tuple(a & 15 if a < DRAW_ID else -1 for a in range(NUM_ACTIONS))

#: The 450 shared action instances, by engine id.
ACTIONS: tuple[Action, ...] = tuple(int.__new__(Action, i) for i in range(NUM_ACTIONS))
DRAW: Action = ACTIONS[DRAW_ID]
"""Draw one tile from the boneyard."""
PASS: Action = ACTIONS[PASS_ID]
"""Pass the turn (only when nothing can be placed or drawn)."""
