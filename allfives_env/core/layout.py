"""The layout on the table: the line, the spinners and their branches, and the count.

This module is the whole of RULES.md §1 "Layout", "The spinner", "Slots" and "Count", and the
spinner rows of §2 (every double a spinner, branches open at once).

Encoding. The layout has up to 16 *slots* (open places). Each slot ``s`` that exists holds:

* ``value[s]`` — the pip value a tile must show to be placed there (-1: not open);
* ``face[s]`` — the spinner whose free side *is* this open place (-1: none). A line end that is a
  spinner's free straight side, and a branch no tile has started, are faces: they add nothing to
  the count by themselves, since the spinner is counted once, on its own;
* ``contrib[s]`` — what the slot adds to the count: its open value, twice that for an ordinary
  double at the end, 0 for a face.

Spinner ``k`` has ``sp_value[k]`` and ``sp_cov[k]``, the number of its sides covered (the side it
was attached by counts). It adds ``2·v`` to the count while ``sp_cov < 2`` and 0 from then on;
when ``sp_cov`` reaches 2 under ``after_straight``, its branches (slots ``2+2k``, ``3+2k``) open.
Before both straight sides are covered no branch is open, so ``sp_cov`` counts straight sides
there; under ``at_once`` all four sides are open from the start and any two covered close it.
``count`` is kept up to date on every placement, so reading it is free.
"""

from __future__ import annotations

from allfives_env.core.actions import slot_name
from allfives_env.core.tiles import HIGH, IS_DOUBLE, LOW, OTHER, VALUES_MASK

NUM_SLOTS = 16
_SLOTS = range(NUM_SLOTS)


class Layout:
    """The tiles on the table and the open places, for one hand.

    ``Layout(every_double_spinner, branches_at_once)`` is the empty table. Methods that change it
    trust their caller (the game) to have checked legality; :meth:`fits` is that check.
    """

    __slots__ = (
        "at_once",
        "chains",
        "contrib",
        "count",
        "every",
        "face",
        "lead_tile",
        "lead_west",
        "on_table",
        "open_bits",
        "open_count",
        "open_slots",
        "sp_cov",
        "sp_value",
        "sp_where",
        "value",
    )

    def __init__(self, every_double_spinner: bool = False, branches_at_once: bool = False):
        self.every = every_double_spinner
        self.at_once = branches_at_once
        self.value = [-1] * NUM_SLOTS
        self.face = [-1] * NUM_SLOTS
        self.contrib = [0] * NUM_SLOTS
        self.open_slots: list[int] = []
        self.open_count = [0] * 7
        self.open_bits = 0
        self.count = 0
        self.sp_value: list[int] = []
        self.sp_cov: list[int] = []
        # Where spinner k lies: (slot, index in that slot's chain), or (-1, 0) for a led spinner.
        self.sp_where: list[tuple[int, int]] = []
        # Per slot, the tiles placed on it, outwards, as (tile, near half, far half).
        self.chains: list[list[tuple[int, int, int]]] = [[] for _ in _SLOTS]
        self.lead_tile = -1
        self.lead_west = -1  # the half of the lead facing W
        self.on_table = 0  # tile mask

    # ----------------------------------------------------------------- queries

    @property
    def is_empty(self) -> bool:
        """Whether no tile has been led yet."""
        return self.lead_tile < 0

    def fits(self, tile: int, slot: int) -> bool:
        """Whether ``tile`` may be placed on ``slot`` now (the slot is open and matches)."""
        if not 0 <= slot < NUM_SLOTS:
            return False
        v = self.value[slot]
        return v >= 0 and (LOW[tile] == v or HIGH[tile] == v)

    def playable_mask(self) -> int:
        """The tile mask of every tile that fits some open slot."""
        return VALUES_MASK[self.open_bits]

    @property
    def num_spinners(self) -> int:
        """Spinners placed so far this hand."""
        return len(self.sp_value)

    def count_after(self, tile: int, slot: int) -> int:
        """The count if ``tile`` were placed on ``slot`` now (led, on an empty table).

        ``slot`` must be open and fit ``tile`` (or, for a lead, 0 or 1); the layout is unchanged.
        """
        if self.lead_tile < 0:
            return 2 * LOW[tile] if IS_DOUBLE[tile] else LOW[tile] + HIGH[tile]
        # the same arithmetic as place(), without changing anything
        v = self.value[slot]
        # a double adds 2·v, as a new spinner (whose side counts 0) or as an ordinary end
        return self.count_without(slot) + (2 * v if IS_DOUBLE[tile] else OTHER[tile][v])

    def count_without(self, slot: int) -> int:
        """The count once open ``slot`` is covered, before the covering tile's own part.

        That is the count minus the slot's share, and minus a spinner's ``2·v`` when the slot
        is its second covered side. A tile placed there adds its far half (``2·v`` for a
        double): :meth:`count_after` is this plus that.
        """
        count = self.count - self.contrib[slot]
        f = self.face[slot]
        if f >= 0 and self.sp_cov[f] == 1:  # this covers the spinner's second side
            count -= 2 * self.sp_value[f]
        return count

    # ----------------------------------------------------------------- changes

    def _open(self, slot: int, v: int, face: int) -> None:
        self.value[slot] = v
        self.face[slot] = face
        self.contrib[slot] = 0
        self.open_slots.append(slot)
        self.open_slots.sort()
        self.open_count[v] += 1
        self.open_bits |= 1 << v

    def _new_spinner(self, v: int, covered: int, where: tuple[int, int]) -> int:
        k = len(self.sp_value)
        self.sp_value.append(v)
        self.sp_cov.append(covered)
        self.sp_where.append(where)
        self.count += 2 * v
        if self.at_once:
            self._open(2 + 2 * k, v, k)
            self._open(3 + 2 * k, v, k)
        return k

    def lead(self, tile: int, mirrored: bool = False) -> int:
        """Lead ``tile`` (low half facing W, or high half if ``mirrored``); return the count."""
        a, b = (HIGH[tile], LOW[tile]) if mirrored else (LOW[tile], HIGH[tile])
        self.lead_tile = tile
        self.lead_west = a
        self.on_table |= 1 << tile
        if IS_DOUBLE[tile]:
            k = self._new_spinner(a, 0, (-1, 0))
            self._open(0, a, k)
            self._open(1, a, k)
        else:
            self._open(0, a, -1)
            self._open(1, b, -1)
            self.contrib[0] = a
            self.contrib[1] = b
            self.count = a + b
        return self.count

    def place(self, tile: int, slot: int) -> int:
        """Place ``tile`` on open ``slot`` (which it must fit); return the new count."""
        v = self.value[slot]
        far = OTHER[tile][v]
        count = self.count - self.contrib[slot]
        chains = self.chains
        chain = chains[slot] if chains else None
        if chain is not None:
            chain.append((tile, v, far))
        self.on_table |= 1 << tile
        f = self.face[slot]
        if f >= 0:  # covering a free side of spinner f
            cov = self.sp_cov[f] + 1
            self.sp_cov[f] = cov
            if cov == 2:
                sv = self.sp_value[f]
                count -= 2 * sv
                if not self.at_once:
                    self._open(2 + 2 * f, sv, f)
                    self._open(3 + 2 * f, sv, f)
        # the slot's value moves from v to far
        if far != v:
            oc = self.open_count
            oc[v] -= 1
            if oc[v] == 0:
                self.open_bits &= ~(1 << v)
            oc[far] += 1
            self.open_bits |= 1 << far
        self.value[slot] = far
        if IS_DOUBLE[tile]:
            if self.every or not self.sp_value:
                self.count = count
                where = (slot, len(chain) - 1 if chain is not None else -1)
                self.face[slot] = self._new_spinner(v, 1, where)
                self.contrib[slot] = 0
                return self.count
            self.face[slot] = -1
            self.contrib[slot] = 2 * v
            count += 2 * v
        else:
            self.face[slot] = -1
            self.contrib[slot] = far
            count += far
        self.count = count
        return count

    def key(self) -> tuple[object, ...]:
        """Everything that makes this layout what it is, as a comparable tuple."""
        return (
            self.every,
            self.at_once,
            tuple(self.value),
            tuple(self.face),
            tuple(self.contrib),
            self.count,
            tuple(self.sp_value),
            tuple(self.sp_cov),
            tuple(self.sp_where),
            tuple(tuple(c) for c in self.chains),
            self.lead_tile,
            self.lead_west,
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Layout) and self.key() == other.key()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def scratch(self) -> Layout:
        """A copy for trying placements: counts and open places only, no tile chains.

        Cheaper than :meth:`clone`; :meth:`line`, :meth:`key` and rendering need the chains.
        """
        c = Layout.__new__(Layout)
        c.every = self.every
        c.at_once = self.at_once
        c.value = self.value[:]
        c.face = self.face[:]
        c.contrib = self.contrib[:]
        c.open_slots = self.open_slots[:]
        c.open_count = self.open_count[:]
        c.open_bits = self.open_bits
        c.count = self.count
        c.sp_value = self.sp_value[:]
        c.sp_cov = self.sp_cov[:]
        c.sp_where = self.sp_where[:]  # a copy: a spinner tried on it must not show here
        c.chains = []
        c.lead_tile = self.lead_tile
        c.lead_west = self.lead_west
        c.on_table = self.on_table
        return c

    def clone(self) -> Layout:
        """An independent copy."""
        c = self.scratch()
        c.sp_where = self.sp_where[:]
        c.chains = [ch[:] for ch in self.chains]
        return c

    # ----------------------------------------------------------------- reading

    def line(self) -> list[tuple[int, int, int]]:
        """The line from the W end to the E end, as ``(tile, west half, east half)``."""
        if self.lead_tile < 0:
            return []
        west = [(t, far, near) for t, near, far in reversed(self.chains[0])]
        lead = self.lead_tile
        a = self.lead_west
        b = OTHER[lead][a]
        east = [(t, near, far) for t, near, far in self.chains[1]]
        return [*west, (lead, a, b), *east]

    def spinner_column(self) -> int:
        """The index on :meth:`line` of the first spinner, from whose column its N and S
        branches hang; -1 when there is no spinner yet."""
        if not self.sp_value:
            return -1
        slot, idx = self.sp_where[0]
        west = len(self.chains[0])
        return {-1: west, 0: west - 1 - idx, 1: west + 1 + idx}.get(slot, -1)

    def side_branches(self) -> list[tuple[int, int]]:
        """The open branches that do not hang from :meth:`spinner_column`, as ``(slot,
        spinner)``: every branch of a later spinner (and the first's, were it off the line)."""
        first_on_line = self.spinner_column() >= 0
        return [
            (s, k)
            for k in range(len(self.sp_value))
            if not (k == 0 and first_on_line)
            for s in (2 + 2 * k, 3 + 2 * k)
            if self.value[s] >= 0
        ]

    def describe(self) -> str:
        """The open places and the count on one line: ``W=3 E=2 N=5 S=0 count=10``."""
        ends = " ".join(f"{slot_name(s)}={self.value[s]}" for s in self.open_slots)
        return f"{ends or 'empty'} count={self.count}"

    def __repr__(self) -> str:
        return f"<Layout {self.describe()}>"
