"""The layout on one game's row: lead, place, the count (mirrors :mod:`allfives_env.core.layout`).

``r`` is one game's ``st`` row (or a scratch copy of its layout columns); the columns are those
of :class:`~allfives_env.core.layout.Layout` (see :mod:`allfives_env.vector.state`), plus
``END_DOUBLE``, the bit set of slots whose outermost tile is an ordinary double (what
``Layout.chains[s][-1]`` tells the encoder).
"""

from __future__ import annotations

from allfives_env.vector._jit import kernel
from allfives_env.vector.state import (
    CONTRIB,
    COUNT,
    END_DOUBLE,
    FACE,
    I32,
    LAYOUT_END,
    LAYOUT_START,
    LEAD_TILE,
    NUM_SLOTS,
    NUM_SP,
    ON_TABLE,
    OPEN_BITS,
    OPEN_COUNT,
    SP_COV,
    SP_VALUE,
    T_DOUBLE,
    T_HIGH,
    T_LOW,
    T_OTHER,
    T_VALUES_MASK,
    VALUE,
)


@kernel
def clear(r: I32) -> None:
    """Empty the table (mirrors ``Layout.__init__``)."""
    for c in range(LAYOUT_START, LAYOUT_END):
        r[c] = 0
    for s in range(NUM_SLOTS):
        r[VALUE + s] = -1
        r[FACE + s] = -1
    r[LEAD_TILE] = -1


@kernel
def copy_layout(src: I32, dst: I32) -> None:
    """Copy the layout columns of row ``src`` into row ``dst`` (``Layout.scratch``)."""
    for c in range(LAYOUT_START, LAYOUT_END):
        dst[c] = src[c]


@kernel
def playable_mask(r: I32) -> int:
    """The tile mask of every tile that fits an open slot (``Layout.playable_mask``)."""
    return int(T_VALUES_MASK[r[OPEN_BITS]])


@kernel
def fits(r: I32, tile: int, slot: int) -> bool:
    """Whether ``tile`` may go on ``slot`` now (``Layout.fits``; ``slot`` in 0–15)."""
    v = r[VALUE + slot]
    return bool(v >= 0 and (T_LOW[tile] == v or T_HIGH[tile] == v))


@kernel
def _open(r: I32, slot: int, v: int, face: int) -> None:
    """Open ``slot`` showing ``v`` as a free side of spinner ``face`` (-1: none)
    (``Layout._open``)."""
    r[VALUE + slot] = v
    r[FACE + slot] = face
    r[CONTRIB + slot] = 0
    r[END_DOUBLE] &= ~(1 << slot)
    r[OPEN_COUNT + v] += 1
    r[OPEN_BITS] |= 1 << v


@kernel
def _new_spinner(r: I32, v: int, covered: int, at_once: int) -> int:
    """Add a spinner of value ``v`` with ``covered`` sides covered; return its index
    (``Layout._new_spinner``)."""
    k = r[NUM_SP]
    r[NUM_SP] = k + 1
    r[SP_VALUE + k] = v
    r[SP_COV + k] = covered
    r[COUNT] += 2 * v
    if at_once:
        _open(r, 2 + 2 * k, v, k)
        _open(r, 3 + 2 * k, v, k)
    return int(k)


@kernel
def lead(r: I32, tile: int, at_once: int) -> int:
    """Lead ``tile``, low half facing W; return the count (``Layout.lead``, not mirrored)."""
    a = T_LOW[tile]
    b = T_HIGH[tile]
    r[LEAD_TILE] = tile
    r[ON_TABLE] |= 1 << tile
    if a == b:
        k = _new_spinner(r, a, 0, at_once)
        _open(r, 0, a, k)
        _open(r, 1, a, k)
    else:
        _open(r, 0, a, -1)
        _open(r, 1, b, -1)
        r[CONTRIB + 0] = a
        r[CONTRIB + 1] = b
        r[COUNT] = a + b
    return int(r[COUNT])


@kernel
def place(r: I32, tile: int, slot: int, every: int, at_once: int) -> int:
    """Place ``tile`` on open ``slot`` (it must fit); return the new count (``Layout.place``)."""
    v = r[VALUE + slot]
    far = T_OTHER[tile, v]
    count = r[COUNT] - r[CONTRIB + slot]
    r[ON_TABLE] |= 1 << tile
    f = r[FACE + slot]
    if f >= 0:  # covering a free side of spinner f
        cov = r[SP_COV + f] + 1
        r[SP_COV + f] = cov
        if cov == 2:
            sv = r[SP_VALUE + f]
            count -= 2 * sv
            if not at_once:
                _open(r, 2 + 2 * f, sv, f)
                _open(r, 3 + 2 * f, sv, f)
    if far != v:  # the slot's value moves from v to far
        r[OPEN_COUNT + v] -= 1
        if r[OPEN_COUNT + v] == 0:
            r[OPEN_BITS] &= ~(1 << v)
        r[OPEN_COUNT + far] += 1
        r[OPEN_BITS] |= 1 << far
    r[VALUE + slot] = far
    if T_DOUBLE[tile]:
        if every or r[NUM_SP] == 0:  # a new spinner: its far side is this slot
            r[COUNT] = count
            r[FACE + slot] = _new_spinner(r, v, 1, at_once)
            r[CONTRIB + slot] = 0
            r[END_DOUBLE] &= ~(1 << slot)
            return int(r[COUNT])
        r[FACE + slot] = -1
        r[CONTRIB + slot] = 2 * v
        r[END_DOUBLE] |= 1 << slot
        count += 2 * v
    else:
        r[FACE + slot] = -1
        r[CONTRIB + slot] = far
        r[END_DOUBLE] &= ~(1 << slot)
        count += far
    r[COUNT] = count
    return int(count)


@kernel
def count_without(r: I32, slot: int) -> int:
    """The count once open ``slot`` is covered, before the covering tile's own part
    (``Layout.count_without``)."""
    count = r[COUNT] - r[CONTRIB + slot]
    f = r[FACE + slot]
    if f >= 0 and r[SP_COV + f] == 1:  # this covers the spinner's second side
        count -= 2 * r[SP_VALUE + f]
    return int(count)


@kernel
def count_after(r: I32, tile: int, slot: int) -> int:
    """The count if ``tile`` went on ``slot`` now, led on an empty table
    (``Layout.count_after``)."""
    if r[LEAD_TILE] < 0:
        if T_DOUBLE[tile]:
            return int(2 * T_LOW[tile])
        return int(T_LOW[tile] + T_HIGH[tile])
    v = r[VALUE + slot]
    if T_DOUBLE[tile]:
        return count_without(r, slot) + int(2 * v)
    return count_without(r, slot) + int(T_OTHER[tile, v])
