"""The one module that owns the environment's action ids and arrays: :class:`Encoding`.

Action ids (``Discrete(28 * S + 2)``, S = :attr:`Rules.num_slots`, 4 or 16): placing tile ``t``
(id 0–27, ``0-0`` … ``6-6``) on slot ``s`` is ``t * S + s``; then DRAW = ``28 * S`` and
PASS = ``28 * S + 1``. The lead is always slot 0 (W). Ids do not depend on the seat.

A smaller set (:attr:`Rules.max_pip` N below 6: T = (N + 1)(N + 2) / 2 tiles) shrinks the ids
and the tile blocks with it: a tile is named by its rank in the set (:attr:`Encoding.tile_index`,
:attr:`Encoding.index_tile`; ranks follow ids), placing it is ``rank * S + s``, DRAW ``T * S``,
PASS ``T * S + 1``; value one-hots have N + 1 entries and the divisions by 28 divide by T
(:mod:`allfives_env.envs.blocks`). For double-six the rank is the id: every array is the one the
batched engine (:mod:`allfives_env.vector`) is pinned to, byte for byte.

Observations are seen from the observing seat: "relative seat" ``r`` is the seat ``r`` places
after it in turn order (``r = 0`` is the observer), "relative side" ``k`` the ``k``-th side met
going round from the observer's own (``k = 0``). The layout, block by block, is in
:mod:`allfives_env.envs.blocks` (``docs/spaces.md`` prints it index by index).

The global state (:meth:`Encoding.state`) uses absolute seats and sides and adds every hand and
the boneyard in draw order, for centralized critics.

The encoder reads the game through its public, read-only surface only.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from allfives_env.core.actions import ACTIONS, DRAW_ID, MAX_SLOTS, NUM_ACTIONS, PASS_ID
from allfives_env.core.events import Phase
from allfives_env.core.game import Game
from allfives_env.core.layout import Layout
from allfives_env.core.rules import Rules
from allfives_env.core.tiles import IS_DOUBLE, MAX_PIP, tiles_of
from allfives_env.core.view import PlayerView
from allfives_env.envs.blocks import (
    COUNT_SCALE,
    OUTLOOK_SETS,
    SCORE_CLIP,
    Block,
    feature_set,
    observation_blocks,
    offsets,
    slot_features,
    state_blocks,
    tile_indices,
)
from allfives_env.envs.features import action_features, lookahead_features, outlook_features

ObsArray = npt.NDArray[np.float32]
MaskArray = npt.NDArray[np.int8]

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


def _void_pieces(max_pip: int) -> list[bytes]:
    """A 7-bit void set → the bytes of its ``max_pip + 1`` float32 0/1 entries (values 0 to
    ``max_pip``: a void is only ever known in a value of the set)."""
    return [_floats([float(bits >> v & 1) for v in range(max_pip + 1)]) for bits in range(128)]


_VOID_PIECE = _void_pieces(MAX_PIP)


def _slot_row(key: int, max_pip: int = MAX_PIP) -> bytes:
    """One slot's features from its key: value + 8·(spinner's free side) + 16·(that spinner
    counts) + 32·(ordinary double at the end) + 64·(contribution to the count); the value
    one-hot has ``max_pip + 1`` entries."""
    v = max_pip + 1
    values = [0.0] * slot_features(max_pip)
    values[0] = 1.0
    values[1 + (key & 7)] = 1.0
    values[v + 1] = float(key >> 5 & 1)
    values[v + 2] = float(key >> 3 & 1)
    values[v + 3] = float(key >> 4 & 1)
    values[v + 4] = (key >> 6) / 12.0
    return np.array(values, np.float32).tobytes()


def _put_mask(out: ObsArray, at: int, mask: int) -> None:
    out[at : at + 14] = _BITS14[mask & 0x3FFF]
    out[at + 14 : at + 28] = _BITS14[mask >> 14]


class _RankBytes:
    """``(mask)`` → a tile mask as the bytes of a smaller set's T float32 0/1 entries, by rank
    (a class, not a closure, so that an encoding pickles)."""

    def __init__(self, index: tuple[int, ...]):
        """``index``: :func:`~allfives_env.envs.blocks.tile_indices` of the set."""
        # per 7-bit chunk of a tile mask, its 128 values → the rank mask of their tiles
        tables = []
        for chunk in range(4):
            table = [0] * 128
            for bits in range(128):
                for j in range(7):
                    if bits >> j & 1 and index[7 * chunk + j] >= 0:
                        table[bits] |= 1 << index[7 * chunk + j]
            tables.append(table)
        self.r0, self.r1, self.r2, self.r3 = tables
        self.size = 4 * sum(1 for i in index if i >= 0)

    def __call__(self, mask: int) -> bytes:
        m = self.r0[mask & 127] | self.r1[mask >> 7 & 127] | self.r2[mask >> 14 & 127]
        m |= self.r3[mask >> 21]
        c = _CHUNK7
        return b"".join((c[m & 127], c[m >> 7 & 127], c[m >> 14 & 127]))[: self.size]


@dataclass(slots=True)
class _At:
    """Block offsets as attributes (faster than a dict on the hot path); absent blocks: -1."""

    action_lookahead: int = -1
    action_outlook: int = -1
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
    """Action ids, observation, mask and state arrays for one rules config, any set.

    Attributes:
        max_pip: N, the rules' set is double-N (6: the 28 tiles).
        num_tiles: T, the tiles of the rules' set (28 for double-six).
        tile_index: tile id (0–27) → its rank in the set (-1: not in the set), the index of
            its entry in the tile blocks and of its placements among the action ids.
        index_tile: rank → tile id (the set's tile ids, ascending).
        num_actions: ``T * S + 2``; ``draw`` and ``pass_`` are the last two.
        to_env: engine action id → env action id (-1: not an env action).
        to_engine: env action id → engine action id.
        slot_features: features per slot, N + 6 (12 for double-six).

    The rules are already validated: the constructor raises nothing.
    """

    def __deepcopy__(self, memo: dict[int, object]) -> Encoding:
        """Itself: an encoding is made whole by its constructor and never changed, so a deep
        copy (of an environment, of an OpenSpiel state) shares it."""
        return self

    def __init__(self, rules: Rules, action_features: bool | str = False):
        self.rules = rules
        n = self.num_players = rules.num_players
        k = self.num_sides = rules.num_sides
        s = self.num_slots = rules.num_slots
        pips = self.max_pip = rules.max_pip
        nt = self.num_tiles = rules.num_tiles
        self.tile_index: tuple[int, ...] = tile_indices(pips)
        self.index_tile: tuple[int, ...] = tuple(int(t) for t in rules.tiles)
        self.num_actions = nt * s + 2
        self.draw = nt * s
        self.pass_ = nt * s + 1
        #: engine action id → env action id (-1: not an env action, e.g. a mirrored lead)
        self.to_env = [-1] * NUM_ACTIONS
        #: env action id → engine action id
        self.to_engine = [0] * self.num_actions
        for i, t in enumerate(self.index_tile):
            for slot in range(s):
                self.to_env[t * MAX_SLOTS + slot] = i * s + slot
                self.to_engine[i * s + slot] = t * MAX_SLOTS + slot
        self.to_env[DRAW_ID] = self.draw
        self.to_env[PASS_ID] = self.pass_
        self.to_engine[self.draw] = DRAW_ID
        self.to_engine[self.pass_] = PASS_ID
        self.action_features = action_features
        self.features = feature_set(action_features)
        self.blocks = observation_blocks(n, k, s, action_features, pips)
        self.obs_size = sum(b.size for b in self.blocks)
        self._o = _At(**offsets(self.blocks))
        self.state_blocks_ = state_blocks(n, k, s, pips)
        self.state_size = sum(b.size for b in self.state_blocks_)
        self._s = _At(**offsets(self.state_blocks_))
        self._abs_seats = list(range(n))
        self._rows: dict[int, bytes] = {}
        self.slot_features = sf = slot_features(pips)
        self._closed_row = bytes(4 * sf)
        self._slot_range = range(s)
        o = self._o
        # observe() assembles hand … slots as bytes, then the tail: they must be contiguous
        assert o.hand == 0 and o.drawn + nt == o.slots and o.slots + sf * s == o.count
        extra = sum(b.size for b in self.blocks if b.name.startswith("action_"))
        self._tail_len = self.obs_size - o.count - extra
        self._count_piece: dict[int, bytes] = {}
        self._score_cache: tuple[tuple[float, ...], bytes] = ((), b"")
        self._rest_piece: dict[int, bytes] = {}
        # the divisions by the set's size (28.0 for double-six: the same floats as before)
        self._per_tile = float(nt)
        self._size_piece = [_floats([x / self._per_tile]) for x in range(nt + 1)]
        self._bone_piece = [
            _floats([left / self._per_tile, float(drawable)])
            for left in range(nt + 1)
            for drawable in (0, 1)
        ]
        self._void_piece = _VOID_PIECE if pips == MAX_PIP else _void_pieces(pips)
        self._tile_bytes: Callable[[int], bytes] = (
            _tile_bytes if pips == MAX_PIP else _RankBytes(self.tile_index)
        )
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
                row = rows[key] = _slot_row(key, self.max_pip)
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
        sizes, voids = game.hand_sizes, game.void_sets
        size_piece, void_piece = self._size_piece, self._void_piece
        parts = [piece]
        parts += [size_piece[sizes[s]] for s in seats]
        parts.append(self._bone_piece[game.boneyard_size * 2 + game.can_draw])
        scores = game.scores
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
        cur = game.current_player
        to_act = seats.index(cur) if cur is not None else -1
        draws = game.draws_this_turn if to_act >= 0 else 0
        leader = seats.index(game.leader)
        key2 = (phase + 1) + 4 * (to_act + 1) + 20 * leader + 80 * draws
        piece = self._rest_piece.get(key2)
        if piece is None:
            rest = [0.0] * (3 + n + 1 + n)
            if phase >= 0:
                rest[phase] = 1.0
            if to_act >= 0:
                rest[3 + to_act] = 1.0
            rest[3 + n] = draws / self._per_tile
            rest[4 + n + leader] = 1.0
            piece = self._rest_piece[key2] = _floats(rest)
        parts.append(piece)
        return parts

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
        phase = game.phase
        mine = phase == Phase.DRAWN and game.current_player == seat
        played = game.played_masks
        tile_bytes = self._tile_bytes
        parts = [tile_bytes(game.hand_mask(seat)), tile_bytes(game.layout.on_table)]
        parts += [tile_bytes(played[s]) for s in seats]
        drawn = game.drawn_tile
        parts.append(tile_bytes(1 << drawn if mine and drawn is not None else 0))
        parts.append(self._slot_bytes(game.layout))
        # another seat's drawn tile shows as plain play: whether it fits is not yet known
        shown = 0 if phase == Phase.LEAD else 2 if mine else 1 if phase < Phase.HAND_OVER else -1
        parts += self._tail(game, seats, self._sides[seat], shown)
        if self.features != "none":
            points, replies = action_features(game, seat, self.num_slots)
            parts.append(_floats(points) + _floats(replies))
            if self.features in OUTLOOK_SETS:
                parts.append(_floats(outlook_features(game, seat, self.num_slots)))
            if self.features == "lookahead":
                parts.append(_floats(lookahead_features(game, seat, self.num_slots)))
        out: ObsArray = np.frombuffer(bytearray(b"".join(parts)), np.float32)
        return out

    def state(self, game: Game) -> ObsArray:
        """The global state vector (float32, :attr:`state_size` entries): hidden tiles included."""
        out = np.zeros(self.state_size, np.float32)
        o = self._s
        n = self.num_players
        nt = self.num_tiles
        put = self._put_tiles
        index = self.tile_index
        for seat in range(n):
            put(out, o.hands + nt * seat, game.hand_mask(seat))
        for i, t in enumerate(game.boneyard):
            out[o.boneyard + index[t]] = 1.0
            out[o.boneyard_order + index[t]] = (i + 1) / self._per_tile
        put(out, o.table, game.layout.on_table)
        played = game.played_masks
        for seat in range(n):
            put(out, o.played_by + nt * seat, played[seat])
        end = o.slots + self.slot_features * self.num_slots
        out[o.slots : end] = np.frombuffer(self._slot_bytes(game.layout), np.float32)
        phase = game.phase
        tail = self._tail(game, self._abs_seats, self._abs_sides, phase if phase < 3 else -1)
        out[o.count :] = np.frombuffer(b"".join(tail), np.float32)
        drawn = game.drawn_tile
        if drawn is not None:
            out[o.drawn + index[drawn]] = 1.0
        return out

    def _put_tiles(self, out: ObsArray, at: int, mask: int) -> None:
        """Write the tile mask ``mask`` as the set's T 0/1 entries, by rank, at ``out[at:]``."""
        if self.max_pip == MAX_PIP:
            _put_mask(out, at, mask)
        else:
            out[at : at + self.num_tiles] = np.frombuffer(self._tile_bytes(mask), np.float32)

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


if __name__ == "__main__":
    import sys

    from allfives_env.envs.blocks import spaces_markdown

    sys.stdout.write(spaces_markdown())
