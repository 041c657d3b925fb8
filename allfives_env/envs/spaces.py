"""The one module that owns the environment's action ids and array layouts.

Action ids (``Discrete(28 * S + 2)``, S = :attr:`Rules.num_slots`, 4 or 16): placing tile ``t``
(id 0–27, ``0-0`` … ``6-6``) on slot ``s`` is ``t * S + s``; then DRAW = ``28 * S`` and
PASS = ``28 * S + 1``. The lead is always slot 0 (W). Ids do not depend on the seat.

Observations are seen from the observing seat: "relative seat" ``r`` is the seat ``r`` places
after it in turn order (``r = 0`` is the observer), "relative side" ``k`` the ``k``-th side met
going round from the observer's own (``k = 0``). The layout, block by block, is the list
:data:`OBSERVATION_BLOCKS`; ``python -m allfives_env.envs.spaces`` prints it index by index
(``docs/spaces.md`` is that output, checked by a test).

The global state (:meth:`Encoding.state`) uses absolute seats and sides and adds every hand and
the boneyard in draw order, for centralized critics.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from allfives_env.core.actions import DRAW_ID, MAX_SLOTS, NUM_ACTIONS, PASS_ID
from allfives_env.core.game import _DRAWN, _HAND_OVER, _LEAD, Game
from allfives_env.core.layout import Layout
from allfives_env.core.rules import Rules
from allfives_env.core.tiles import (
    ALL_TILES_MASK,
    HIGH,
    IS_DOUBLE,
    LOW,
    NUM_TILES,
    OTHER,
    VALUES_MASK,
    tiles_of,
)
from allfives_env.core.view import PlayerView

ObsArray = npt.NDArray[np.float32]
MaskArray = npt.NDArray[np.int8]

SLOT_FEATURES = 12
"""Features per slot: open, value one-hot (7), ordinary double at the end, spinner's free side,
that spinner still counting, contribution to the count / 12."""

COUNT_SCALE = 60.0
SCORE_CLIP = 2.0


@dataclass(frozen=True, slots=True)
class Block:
    """One named run of observation entries."""

    name: str
    size: int
    meaning: str


ACTION_POINTS_MEANING = (
    "per placement action id (tile · S + slot), when the observer is to act and it is legal: "
    "the points it would score now (as scored: 0 past an exact target) × unit / 60, clipped to 1"
)
ACTION_REPLIES_MEANING = (
    "per placement action id, when legal for the observer: the most the next player could "
    "score right after it, with any tile he may hold (one the observer cannot see, with no "
    "half he is known to lack) — the count / 60, clipped to 1"
)


def observation_blocks(
    num_players: int, num_sides: int, num_slots: int, action_features: bool = False
) -> list[Block]:
    """The observation layout for a table of this shape, in order."""
    n, k, s = num_players, num_sides, num_slots
    extra = (
        [
            Block("action_points", 28 * s, ACTION_POINTS_MEANING),
            Block("action_replies", 28 * s, ACTION_REPLIES_MEANING),
        ]
        if action_features
        else []
    )
    return [
        Block("hand", 28, "1 if the tile (by id) is in the observer's hand"),
        Block("table", 28, "1 if the tile is on the table"),
        Block(
            "played_by",
            28 * n,
            "per relative seat r (28 entries each, r = 0 first): 1 if seat r placed the tile "
            "this hand",
        ),
        Block("drawn", 28, "1 for the drawn tile the observer must place now (else all 0)"),
        Block(
            "slots",
            SLOT_FEATURES * s,
            f"per slot (W, E, N, S{', @4 … @15' if s > 4 else ''}; {SLOT_FEATURES} entries "
            "each): open; open value one-hot 0–6 (7); an ordinary double ends the arm; the "
            "arm ends at a spinner's free side (or an unstarted branch); that spinner still "
            "counts 2·v; the slot's contribution to the count / 12",
        ),
        Block("count", 1, f"the count / {COUNT_SCALE:g}, clipped to 1"),
        Block("count_mod5", 5, "the count modulo 5, one-hot"),
        Block("hand_sizes", n, "tiles in hand per relative seat / 28"),
        Block("boneyard_size", 2, "boneyard size / 28; 1 if a tile may be drawn"),
        Block(
            "scores",
            k,
            f"score / target per relative side (own side first), clipped to ±{SCORE_CLIP:g}",
        ),
        Block(
            "voids",
            7 * n,
            "per relative seat (7 entries each): 1 if that seat is publicly known to hold no "
            "tile with that pip value (from draws and passes)",
        ),
        Block("phase", 3, "one-hot: lead, play, must place the drawn tile (own turn only)"),
        Block("to_act", n, "one-hot relative seat to act (all 0 when no one is)"),
        Block("draws_this_turn", 1, "tiles the player to act has drawn this turn / 28"),
        Block("leader", n, "one-hot relative seat that led this hand"),
        *extra,
    ]


def state_blocks(num_players: int, num_sides: int, num_slots: int) -> list[Block]:
    """The global state layout (absolute seats and sides), in order."""
    n, k, s = num_players, num_sides, num_slots
    return [
        Block("hands", 28 * n, "per seat (28 entries each): 1 if the tile is in that hand"),
        Block("boneyard", 28, "1 if the tile is in the boneyard"),
        Block(
            "boneyard_order",
            28,
            "for a boneyard tile, (its place in the draw order + 1) / 28; else 0",
        ),
        Block("table", 28, "1 if the tile is on the table"),
        Block("played_by", 28 * n, "per seat: 1 if that seat placed the tile this hand"),
        Block("drawn", 28, "1 for the drawn tile the player to act must place"),
        Block("slots", SLOT_FEATURES * s, "per slot, as in the observation"),
        Block("count", 1, f"the count / {COUNT_SCALE:g}, clipped to 1"),
        Block("count_mod5", 5, "the count modulo 5, one-hot"),
        Block("hand_sizes", n, "tiles in hand per seat / 28"),
        Block("boneyard_size", 2, "boneyard size / 28; 1 if a tile may be drawn"),
        Block("scores", k, f"score / target per side, clipped to ±{SCORE_CLIP:g}"),
        Block("voids", 7 * n, "per seat: publicly known voids"),
        Block("phase", 3, "one-hot: lead, play, must place the drawn tile"),
        Block("to_act", n, "one-hot seat to act"),
        Block("draws_this_turn", 1, "tiles the player to act has drawn this turn / 28"),
        Block("leader", n, "one-hot seat that led this hand"),
    ]


def _offsets(blocks: list[Block]) -> dict[str, int]:
    out: dict[str, int] = {}
    at = 0
    for b in blocks:
        out[b.name] = at
        at += b.size
    return out


# 14-bit tile-mask halves → rows of 0/1, to turn a 28-bit mask into 28 floats in two copies.
_BITS14 = ((np.arange(1 << 14)[:, None] >> np.arange(14)[None, :]) & 1).astype(np.float32)


# 7-bit chunks of a tile mask → the bytes of 7 float32 0/1 entries (a table small enough to stay
# in cache; a 14-bit one is faster in isolation and slower in a real loop)
_CHUNK7: list[bytes] = [row.tobytes() for row in _BITS14[:128, :7]]


def _tile_bytes(mask: int) -> bytes:
    """A 28-bit tile mask as the bytes of 28 float32 0/1 entries."""
    c = _CHUNK7
    return b"".join((c[mask & 127], c[mask >> 7 & 127], c[mask >> 14 & 127], c[mask >> 21]))


def _floats(values: list[float]) -> bytes:
    """``values`` as the bytes of float32 entries."""
    return array("f", values).tobytes()


# a 7-bit void set → the bytes of its 7 float32 0/1 entries
_VOID_PIECE = [_floats([float(bits >> v & 1) for v in range(7)]) for bits in range(128)]


def _slot_row(key: int) -> bytes:
    """One slot's features from its key: value + 8·(spinner's free side) + 16·(that spinner
    counts) + 32·(ordinary double at the end) + 64·(contribution to the count)."""
    values = [0.0] * SLOT_FEATURES
    values[0] = 1.0
    values[1 + (key & 7)] = 1.0
    values[8] = float(key >> 5 & 1)
    values[9] = float(key >> 3 & 1)
    values[10] = float(key >> 4 & 1)
    values[11] = (key >> 6) / 12.0
    return np.array(values, np.float32).tobytes()


def _put_mask(out: ObsArray, at: int, mask: int) -> None:
    out[at : at + 14] = _BITS14[mask & 0x3FFF]
    out[at + 14 : at + 28] = _BITS14[mask >> 14]


@dataclass(slots=True)
class _At:
    """Block offsets as attributes (faster than a dict on the hot path); absent blocks: -1."""

    action_points: int = -1
    action_replies: int = -1
    boneyard: int = -1
    boneyard_order: int = -1
    boneyard_size: int = -1
    count: int = -1
    count_mod5: int = -1
    draws_this_turn: int = -1
    drawn: int = -1
    hand: int = -1
    hand_sizes: int = -1
    hands: int = -1
    leader: int = -1
    phase: int = -1
    played_by: int = -1
    scores: int = -1
    slots: int = -1
    table: int = -1
    to_act: int = -1
    voids: int = -1


class Encoding:
    """Action ids, observation, mask and state arrays for one rules config.

    Raises:
        RulesError: never; ``rules`` is already validated.
    """

    def __init__(self, rules: Rules, action_features: bool = False):
        self.rules = rules
        n = self.num_players = rules.num_players
        k = self.num_sides = rules.num_sides
        s = self.num_slots = rules.num_slots
        self.num_actions = NUM_TILES * s + 2
        self.draw = NUM_TILES * s
        self.pass_ = NUM_TILES * s + 1
        #: engine action id → env action id (-1: not an env action, e.g. a mirrored lead)
        self.to_env = [-1] * NUM_ACTIONS
        #: env action id → engine action id
        self.to_engine = [0] * self.num_actions
        for t in range(NUM_TILES):
            for slot in range(s):
                self.to_env[t * MAX_SLOTS + slot] = t * s + slot
                self.to_engine[t * s + slot] = t * MAX_SLOTS + slot
        self.to_env[DRAW_ID] = self.draw
        self.to_env[PASS_ID] = self.pass_
        self.to_engine[self.draw] = DRAW_ID
        self.to_engine[self.pass_] = PASS_ID
        self.action_features = action_features
        self.blocks = observation_blocks(n, k, s, action_features)
        self.obs_size = sum(b.size for b in self.blocks)
        self._o = _At(**_offsets(self.blocks))
        self.state_blocks_ = state_blocks(n, k, s)
        self.state_size = sum(b.size for b in self.state_blocks_)
        self._s = _At(**_offsets(self.state_blocks_))
        self._abs_seats = list(range(n))
        self._rows: dict[int, bytes] = {}
        self._closed_row = bytes(4 * SLOT_FEATURES)
        self._slot_range = range(s)
        o = self._o
        # observe() assembles hand … slots as bytes, then the tail: they must be contiguous
        assert o.hand == 0 and o.drawn + 28 == o.slots and o.slots + SLOT_FEATURES * s == o.count
        self._tail_len = self.obs_size - o.count - (56 * s if action_features else 0)
        self._count_piece: dict[int, bytes] = {}
        self._score_cache: tuple[tuple[float, ...], bytes] = ((), b"")
        self._rest_piece: dict[int, bytes] = {}
        self._size_piece = [_floats([x / 28.0]) for x in range(NUM_TILES + 1)]
        self._bone_piece = [
            _floats([left / 28.0, float(drawable)])
            for left in range(NUM_TILES + 1)
            for drawable in (0, 1)
        ]
        st = self._s
        assert self.state_size - st.count == self._tail_len
        self._abs_sides = list(range(k))
        self._seats = [[(me + r) % n for r in range(n)] for me in range(n)]
        sides: list[list[int]] = []
        for me in range(n):
            order: list[int] = []
            for seat in self._seats[me]:
                side = rules.side_of(seat)
                if side not in order:
                    order.append(side)
            sides.append(order)
        self._sides = sides
        self._target = float(rules.target)

    def block_range(self, name: str) -> tuple[int, int]:
        """The observation indices ``[start, end)`` of block ``name``.

        Raises:
            KeyError: if the observation has no such block.
        """
        at = 0
        for b in self.blocks:
            if b.name == name:
                return at, at + b.size
            at += b.size
        raise KeyError(name)

    # ------------------------------------------------------------------ actions

    def action_name(self, env_action: int) -> str:
        """The text of an env action id (``"4-1 E"``, ``"draw"``, ``"pass"``)."""
        from allfives_env.core.actions import ACTIONS

        return str(ACTIONS[self.to_engine[env_action]])

    def mask(self, game: Game, seat: int) -> MaskArray:
        """The legal env actions of ``seat`` (all 0 unless it is to act), as int8 0/1."""
        m = bytearray(self.num_actions)
        if game.current_player == seat:
            to_env = self.to_env
            for a in game.legal_actions():
                m[to_env[a]] = 1
        out: MaskArray = np.frombuffer(m, np.int8)
        return out

    # ------------------------------------------------------------------ observation

    # The builders below read the game's internal lists directly: this module is the engine's
    # translation layer, and an observation is built on every environment step. The leading
    # blocks (tile masks, then slots) are assembled as bytes and decoded once; the rest is
    # written entry by entry.

    def _slot_bytes(self, lay: Layout) -> bytes:
        """The ``slots`` block as bytes; rows are cached by their content."""
        value, face, sp_cov, chains, contrib = (
            lay.value, lay.face, lay.sp_cov, lay.chains, lay.contrib
        )  # fmt: skip
        rows = self._rows
        closed = self._closed_row
        parts = []
        for slot in self._slot_range:
            v = value[slot]
            if v < 0:
                parts.append(closed)
                continue
            f = face[slot]
            if f >= 0:  # a spinner's free side: counts nothing itself
                key = v | 8 | (16 if sp_cov[f] < 2 else 0)
            else:
                chain = chains[slot]
                double = chain and IS_DOUBLE[chain[-1][0]]
                key = v | (32 if double else 0) | contrib[slot] << 6
            row = rows.get(key)
            if row is None:
                row = rows[key] = _slot_row(key)
            parts.append(row)
        return b"".join(parts)

    def _tail(self, game: Game, seats: list[int], sides: list[int], phase: int) -> list[bytes]:
        """The blocks after ``slots`` as bytes pieces; ``phase`` is the index to set in the
        ``phase`` block (-1: none)."""
        count = game.layout.count
        piece = self._count_piece.get(count)
        if piece is None:
            mod5 = [0.0] * 5
            mod5[count % 5] = 1.0
            piece = self._count_piece[count] = _floats([min(count / COUNT_SCALE, 1.0), *mod5])
        sizes, voids = game._sizes, game._voids
        size_piece, void_piece = self._size_piece, _VOID_PIECE
        parts = [piece]
        parts += [size_piece[sizes[s]] for s in seats]
        left = len(game._bone) - game._bpos
        parts.append(self._bone_piece[left * 2 + (left > game._stop)])
        scores = game._scores
        key = (sides[0], *scores)
        cached = self._score_cache
        if cached[0] != key:  # scores change rarely: keep the last one built
            target = self._target
            values = [max(-SCORE_CLIP, min(scores[side] / target, SCORE_CLIP)) for side in sides]
            cached = self._score_cache = (key, _floats(values))
        parts.append(cached[1])
        parts += [void_piece[voids[s]] for s in seats]
        # phase, to_act, draws_this_turn and leader, looked up by a small key
        n = self.num_players
        to_act = seats.index(game._cur) if game._phase < _HAND_OVER else -1
        draws = game._turn_draws if to_act >= 0 else 0
        leader = seats.index(game._log[-1].leader)
        key2 = (phase + 1) + 4 * (to_act + 1) + 20 * leader + 80 * draws
        piece = self._rest_piece.get(key2)
        if piece is None:
            rest = [0.0] * (3 + n + 1 + n)
            if phase >= 0:
                rest[phase] = 1.0
            if to_act >= 0:
                rest[3 + to_act] = 1.0
            rest[3 + n] = draws / 28.0
            rest[4 + n + leader] = 1.0
            piece = self._rest_piece[key2] = _floats(rest)
        parts.append(piece)
        return parts

    def _action_features(self, game: Game, seat: int) -> bytes:
        """The ``action_points`` and ``action_replies`` blocks (public: hand, table, voids)."""
        size = NUM_TILES * self.num_slots
        points = [0.0] * size
        replies = [0.0] * size
        if game.current_player == seat:
            lay = game.layout
            unit = game._unit
            room = game._target - game._scores[game._side[seat]] if game._exact else 1 << 30
            s = self.num_slots
            nxt = (seat + 1) % game._n
            # tiles the next player may hold: unseen by the observer, and no half he lacks
            maybe = ALL_TILES_MASK & ~game._hands[seat] & ~lay.on_table
            maybe &= ~VALUES_MASK[game._voids[nxt]]
            # by_residue[v][r]: the largest amount a reply on an end showing v adds (the other
            # half, or 2v for the double), among amounts ≡ r (mod 5); -1 if none
            by_residue = [[-1] * 5 for _ in range(7)]
            m = maybe
            while m:
                low = m & -m
                m ^= low
                t = low.bit_length() - 1
                for v in (LOW[t], HIGH[t]):
                    add = 2 * v if IS_DOUBLE[t] else OTHER[t][v]
                    row = by_residue[v]
                    if add > row[add % 5]:
                        row[add % 5] = add
            for a in game.legal_actions():
                if a >= DRAW_ID:
                    continue
                tile, slot = a >> 4, a & 15
                i = tile * s + slot
                count = lay.count_after(tile, slot)
                if count and count % 5 == 0 and count // unit <= room:
                    points[i] = min(count / 60.0, 1.0)
                after = lay.scratch()
                if after.is_empty:
                    after.lead(tile, slot == 1)
                else:
                    after.place(tile, slot)
                # the best reply: count_after()'s arithmetic, with the best addition that
                # makes a multiple of 5 looked up by residue
                best = 0
                value, contrib, face = after.value, after.contrib, after.face
                sp_cov, sp_value = after.sp_cov, after.sp_value
                for s2 in after.open_slots:
                    v = value[s2]
                    base = after.count - contrib[s2]
                    f = face[s2]
                    if f >= 0 and sp_cov[f] == 1:
                        base -= 2 * sp_value[f]
                    add = by_residue[v][-base % 5]
                    if add >= 0 and base + add > best:
                        best = base + add
                replies[i] = min(best / 60.0, 1.0)
        return _floats(points) + _floats(replies)

    def observe_view(self, view: PlayerView) -> ObsArray:
        """The observation of ``view``'s seat, from the view alone (for agents).

        Equal to :meth:`observe` of the game the view came from: the unseen tiles, which the
        observation does not show, are dealt out in id order to build a stand-in game.
        """
        unseen = tiles_of(view.unseen_mask)
        hands: dict[int, list[int]] = {}
        at = 0
        for seat in range(view.rules.num_players):
            if seat != view.seat:
                k = view.hand_sizes[seat]
                hands[seat] = [int(t) for t in unseen[at : at + k]]
                at += k
        world = Game.from_view(view, hands, [int(t) for t in unseen[at:]], strict=False)
        return self.observe(world, view.seat)

    def observe(self, game: Game, seat: int) -> ObsArray:
        """The observation vector of ``seat`` (float32, :attr:`obs_size` entries)."""
        seats = self._seats[seat]
        phase = game._phase
        mine = phase == _DRAWN and game._cur == seat
        played = game._played
        parts = [_tile_bytes(game._hands[seat]), _tile_bytes(game.layout.on_table)]
        parts += [_tile_bytes(played[s]) for s in seats]
        parts.append(_tile_bytes(1 << game._drawn if mine else 0))
        parts.append(self._slot_bytes(game.layout))
        # another seat's drawn tile shows as plain play: whether it fits is not yet known
        shown = 0 if phase == _LEAD else 2 if mine else 1 if phase < _HAND_OVER else -1
        parts += self._tail(game, seats, self._sides[seat], shown)
        if self.action_features:
            parts.append(self._action_features(game, seat))
        out: ObsArray = np.frombuffer(bytearray(b"".join(parts)), np.float32)
        return out

    def state(self, game: Game) -> ObsArray:
        """The global state vector (float32, :attr:`state_size` entries): hidden tiles included."""
        out = np.zeros(self.state_size, np.float32)
        o = self._s
        n = self.num_players
        for seat in range(n):
            _put_mask(out, o.hands + 28 * seat, game._hands[seat])
        for i, t in enumerate(game._bone[game._bpos :]):
            out[o.boneyard + t] = 1.0
            out[o.boneyard_order + t] = (i + 1) / 28.0
        _put_mask(out, o.table, game.layout.on_table)
        for seat in range(n):
            _put_mask(out, o.played_by + 28 * seat, game._played[seat])
        end = o.slots + SLOT_FEATURES * self.num_slots
        out[o.slots : end] = np.frombuffer(self._slot_bytes(game.layout), np.float32)
        phase = game._phase
        tail = self._tail(game, self._abs_seats, self._abs_sides, phase if phase < 3 else -1)
        out[o.count :] = np.frombuffer(b"".join(tail), np.float32)
        if phase == _DRAWN:
            out[o.drawn + game._drawn] = 1.0
        return out

    # ------------------------------------------------------------------ bounds & docs

    def observation_bounds(self) -> tuple[ObsArray, ObsArray]:
        """``(low, high)`` of the observation Box."""
        return self._bounds(self.blocks, self._o)

    def state_bounds(self) -> tuple[ObsArray, ObsArray]:
        """``(low, high)`` of the state Box."""
        return self._bounds(self.state_blocks_, self._s)

    def _bounds(self, blocks: list[Block], at: _At) -> tuple[ObsArray, ObsArray]:
        size = sum(b.size for b in blocks)
        low = np.zeros(size, np.float32)
        high = np.ones(size, np.float32)
        o = at.scores
        low[o : o + self.num_sides] = -SCORE_CLIP
        high[o : o + self.num_sides] = SCORE_CLIP
        return low, high


def table(blocks: list[Block]) -> str:
    """A Markdown table of ``blocks``: index range, name, size, meaning."""
    lines = ["| indices | block | size | meaning |", "|---|---|---:|---|"]
    at = 0
    for b in blocks:
        span = f"{at}" if b.size == 1 else f"{at}–{at + b.size - 1}"
        lines.append(f"| {span} | `{b.name}` | {b.size} | {b.meaning} |")
        at += b.size
    return "\n".join(lines)


def _tables(
    title: str,
    layout: Callable[[int, int, int], list[Block]],
    shapes: list[tuple[str, int, int]],
) -> list[str]:
    out: list[str] = []
    for s in (4, 16):
        for name, n, k in shapes:
            blocks = layout(n, k, s)
            size = sum(b.size for b in blocks)
            out += ["", f"## {title}: {name}, {s} slots ({size} entries, float32)", ""]
            out.append(table(blocks))
    return out


def spaces_markdown() -> str:
    """The document ``docs/spaces.md``: every layout, index by index, generated from the code."""
    out = [
        "# Spaces of `allfives_v0`",
        "",
        "Generated by `python -m allfives_env.envs.spaces` from `allfives_env/envs/spaces.py`; a test",
        "checks that this file matches the code. Do not edit by hand.",
        "",
        "## Actions",
        "",
        "`Discrete(28 * S + 2)` with S = 4 slots (W E N S), or S = 16 where every double is a",
        "spinner (`five_up`). Placing tile `t` on slot `s` is `t * S + s`; the lead is slot 0;",
        "DRAW is `28 * S`, PASS is `28 * S + 1`. Tile ids: `0-0`=0, `0-1`=1, … `0-6`=6,",
        "`1-1`=7, … `6-6`=27.",
        "",
        "| slots S | actions | DRAW | PASS |",
        "|---:|---:|---:|---:|",
    ]
    for s in (4, 16):
        out.append(f"| {s} | {28 * s + 2} | {28 * s} | {28 * s + 1} |")
    shapes = [
        ("2 players", 2, 2),
        ("3 players", 3, 3),
        ("4 players, partnerships", 4, 2),
        ("4 players, each for himself", 4, 4),
    ]
    out += _tables("Observation", observation_blocks, shapes)
    out += [
        "",
        "## Optional blocks: `action_features=True`",
        "",
        "With `action_features=True` (an argument of the environments) the observation ends",
        "with two more blocks of 28 · S entries each, indexed like the action ids. Both are",
        "public (from the observer's hand, the table and the known voids) and spare a learner",
        "the count's arithmetic:",
        "",
        f"- `action_points`: {ACTION_POINTS_MEANING}.",
        f"- `action_replies`: {ACTION_REPLIES_MEANING}.",
    ]
    out += _tables("State", state_blocks, shapes)
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(spaces_markdown())
