"""Tiles of the double-six set and the lookup tables the engine is built on.

Tile ids are stable and ordered: ``0-0`` is 0, ``0-1`` is 1, ... ``0-6`` is 6, ``1-1`` is 7, ...,
``6-6`` is 27. A :class:`Tile` *is* its id (an ``int``), with readable accessors and the ``a-b``
text form. Sets of tiles are kept as 28-bit masks (bit ``t`` set = tile ``t`` present); sets of
pip values as 7-bit masks. A smaller set, double-N (:data:`SET_MASK`), is the tiles whose halves
are at most N, with the same ids.

>>> Tile.parse("4-6"), Tile.parse("6-4") == Tile.parse("4-6")
(Tile('4-6'), True)
>>> int(Tile.parse("6-6")), Tile(27).pips, Tile(27).is_double
(27, 12, True)
"""

from __future__ import annotations

from collections.abc import Iterable

from allfives_env.core.errors import NotationError

NUM_TILES = 28
MAX_PIP = 6
ALL_TILES_MASK = (1 << NUM_TILES) - 1

#: ``LOW[t]``, ``HIGH[t]``: the smaller and the larger half of tile ``t``.
LOW: list[int] = []
HIGH: list[int] = []
for _a in range(MAX_PIP + 1):
    for _b in range(_a, MAX_PIP + 1):
        LOW.append(_a)
        HIGH.append(_b)

#: ``PIPS[t]``: the pip total of tile ``t``; ``IS_DOUBLE[t]``: whether it is a double.
PIPS: list[int] = [a + b for a, b in zip(LOW, HIGH, strict=True)]
IS_DOUBLE: list[bool] = [a == b for a, b in zip(LOW, HIGH, strict=True)]

#: ``TILE_ID[a][b]``: the id of the tile with halves ``a`` and ``b`` (either order).
TILE_ID: list[list[int]] = [[0] * (MAX_PIP + 1) for _ in range(MAX_PIP + 1)]
for _t in range(NUM_TILES):
    TILE_ID[LOW[_t]][HIGH[_t]] = _t
    TILE_ID[HIGH[_t]][LOW[_t]] = _t

#: ``OTHER[t][v]``: the half of tile ``t`` that is not ``v`` (``v`` for a double matching ``v``),
#: or -1 where tile ``t`` has no half ``v``.
OTHER: list[list[int]] = [
    [HIGH[t] if LOW[t] == v else LOW[t] if HIGH[t] == v else -1 for v in range(MAX_PIP + 1)]
    for t in range(NUM_TILES)
]

#: ``PIP_MASK[v]``: the tile mask of every tile with a half ``v``.
PIP_MASK: list[int] = [
    sum(1 << t for t in range(NUM_TILES) if v in (LOW[t], HIGH[t])) for v in range(MAX_PIP + 1)
]

#: ``VALUES_MASK[bits]``: the tile mask of every tile with a half in the 7-bit value set ``bits``.
VALUES_MASK: list[int] = []
for _bits in range(1 << (MAX_PIP + 1)):
    _m = 0
    for _v in range(MAX_PIP + 1):
        if _bits >> _v & 1:
            _m |= PIP_MASK[_v]
    VALUES_MASK.append(_m)

#: ``TILE_VALUE_BITS[t]``: the 7-bit value set of tile ``t``'s halves.
TILE_VALUE_BITS: list[int] = [(1 << LOW[t]) | (1 << HIGH[t]) for t in range(NUM_TILES)]

MIN_SET = 2
"""The smallest set a game may be played with: double-two (six tiles)."""

#: ``SET_MASK[n]``: the tile mask of the double-``n`` set, the tiles whose halves are both at most
#: ``n`` (``SET_MASK[6]`` is every tile). A smaller set keeps the double-six ids of its tiles.
SET_MASK: list[int] = [
    sum(1 << t for t in range(NUM_TILES) if HIGH[t] <= n) for n in range(MAX_PIP + 1)
]


def set_size(max_pip: int) -> int:
    """The number of tiles of the double-``max_pip`` set: (N + 1)(N + 2) / 2 (28 for N = 6)."""
    return (max_pip + 1) * (max_pip + 2) // 2


class Tile(int):
    """A tile of the double-six set: an ``int`` id 0–27 with its halves.

    Construct from an id (``Tile(9)``) or from text (``Tile.parse("1-3")``); instances for all
    28 ids are shared (:data:`TILES`), so ``Tile`` values cost nothing to pass around.
    """

    __slots__ = ()

    def __new__(cls, tile_id: int) -> Tile:
        if not 0 <= tile_id < NUM_TILES:
            raise NotationError(f"tile id out of range 0-27: {tile_id!r}")
        return super().__new__(cls, tile_id)

    @classmethod
    def parse(cls, text: str) -> Tile:
        """Read ``"a-b"`` (halves 0–6, in either order).

        Raises:
            NotationError: if ``text`` is not of that form.
        """
        if (
            not isinstance(text, str)
            or len(text) != 3
            or text[1] != "-"
            or text[0] not in "0123456"
            or text[2] not in "0123456"
        ):
            raise NotationError(f"not a tile (expected 'a-b' with halves 0-6): {text!r}")
        return TILES[TILE_ID[int(text[0])][int(text[2])]]

    @classmethod
    def of(cls, a: int, b: int) -> Tile:
        """The tile with halves ``a`` and ``b`` (either order)."""
        if not (0 <= a <= MAX_PIP and 0 <= b <= MAX_PIP):
            raise NotationError(f"not a tile: halves {a!r}, {b!r} (each must be 0-6)")
        return TILES[TILE_ID[a][b]]

    @property
    def low(self) -> int:
        """The smaller half."""
        return LOW[self]

    @property
    def high(self) -> int:
        """The larger half."""
        return HIGH[self]

    @property
    def pips(self) -> int:
        """The pip total of both halves."""
        return PIPS[self]

    @property
    def is_double(self) -> bool:
        """Whether both halves are equal."""
        return IS_DOUBLE[self]

    def __str__(self) -> str:
        return f"{LOW[self]}-{HIGH[self]}"

    def __repr__(self) -> str:
        return f"Tile('{LOW[self]}-{HIGH[self]}')"


#: The 28 shared tile instances, by id.
TILES: tuple[Tile, ...] = tuple(int.__new__(Tile, t) for t in range(NUM_TILES))


def tiles_of(mask: int) -> list[Tile]:
    """The tiles of a tile mask, in ascending id order."""
    out: list[Tile] = []
    while mask:
        low = mask & -mask
        out.append(TILES[low.bit_length() - 1])
        mask ^= low
    return out


def set_tiles(max_pip: int) -> tuple[Tile, ...]:
    """The tiles of the double-``max_pip`` set, in ascending id order."""
    return tuple(tiles_of(SET_MASK[max_pip]))


def mask_of(tiles: Iterable[int]) -> int:
    """The tile mask of some tile ids."""
    m = 0
    for t in tiles:
        m |= 1 << t
    return m
