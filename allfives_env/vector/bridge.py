"""The bridge between a batch of games in arrays and the core's Python objects: the deal of a
game, a :class:`~allfives_env.core.game.Game` loaded into a row or rebuilt from one, worlds
redealt for a search, games copied between rows, a player's view, a record, a description.

:class:`GameBridge` is one of :class:`~allfives_env.vector.engine.VectorGame`'s two halves (the
other steps and observes the games); its methods read and write the arrays the engine holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from allfives_env.core.deal import Deal
from allfives_env.core.game import Game
from allfives_env.core.records import Record, record_of
from allfives_env.core.rules import Rules
from allfives_env.core.tiles import NUM_TILES, TILES, tiles_of
from allfives_env.core.view import PlayerView
from allfives_env.vector.errors import VectorConfigError
from allfives_env.vector.load import write_row
from allfives_env.vector.state import (
    BONE,
    BPOS,
    C_BONE_LEN,
    CUR,
    DEAL_HANDS,
    F64,
    HAND_END,
    HAND_ENDS,
    HAND_NO,
    HANDS,
    I8,
    I16,
    I32,
    I64,
    LEADER,
    LOG_LEN,
    ON_TABLE,
    P_BONE,
    P_DEAL_HANDS,
    P_LEADER,
    P_LOG_LEN,
    PHASE,
    PIPS_COL,
    SIZES,
    STATUS,
    T_PIPS,
    U64,
)

_V = TypeVar("_V")

HandHistory = tuple[Deal, tuple[int, ...]]
"""One hand as the engine played it: its deal and its engine action ids."""


def _num(x: float) -> float:
    """Whole scores as ints, like the core."""
    return int(x) if float(x).is_integer() else float(x)


class GameBridge:
    """The core's objects from and into the rows of a
    :class:`~allfives_env.vector.engine.VectorGame` (its arrays and settings, made by its
    ``__init__``)."""

    rules: Rules
    num_games: int
    num_players: int
    num_sides: int
    num_actions: int
    recording: bool
    cfg: I64
    st: I32
    scores_: F64
    episode_start: F64
    hand_start: F64
    award: F64
    rng: U64
    log: I16
    prev: I32
    prev_log: I16
    _mask_buf: I8
    _history: list[list[HandHistory]]
    _loaded: dict[int, Game]
    _redealt: dict[int, tuple[int, I64, I64]]

    if TYPE_CHECKING:  # the engine's, used here

        def _need_reset(self) -> None: ...

        def _indices(self, indices: Sequence[int] | np.ndarray, what: str) -> I64: ...

        def _out(self, out: Any, shape: tuple[int, ...], dtype: type, what: str) -> Any: ...

        def masks(self, out: I8 | None = None) -> I8: ...

    def _game_index(self, i: object, what: str) -> int:
        """``i`` as the index of one of the games (every method that takes one checks it so).

        Raises:
            VectorConfigError: naming ``what``, for anything but an int (NumPy integers too)
                from 0 to ``num_games - 1``; a negative index does not count from the end.
        """
        last = self.num_games - 1
        if isinstance(i, bool) or not isinstance(i, int | np.integer) or not 0 <= i <= last:
            raise VectorConfigError(f"{what}: game index must be in 0-{last}, not {i!r}")
        return int(i)

    def deal(self, i: int) -> Deal:
        """The deal of game ``i``'s current hand (hands as dealt, boneyard in draw order,
        leader); for a game set by :meth:`load`, that game's (a world's deal is its position).

        Raises:
            VectorConfigError: for an index that is not a game's.
            ResetRequiredError: before :meth:`reset`.
        """
        self._need_reset()
        i = self._game_index(i, "deal")
        if i in self._loaded:
            return self._base(i).hand_log[-1].deal
        r = self.st[i]
        return self._deal_of(r[DEAL_HANDS : DEAL_HANDS + 4], r[BONE : BONE + NUM_TILES], r[LEADER])

    def _deal_of(self, hands: Any, bone: Any, leader: Any) -> Deal:
        n = self.num_players
        size = self.rules.boneyard_size
        return Deal(
            tuple(tuple(tiles_of(int(hands[s]))) for s in range(n)),
            tuple(TILES[int(t)] for t in bone[:size]),
            int(leader),
        )

    def _previous_hand(self, i: int) -> HandHistory:
        p = self.prev[i]
        deal = self._deal_of(
            p[P_DEAL_HANDS : P_DEAL_HANDS + 4], p[P_BONE : P_BONE + 28], p[P_LEADER]
        )
        return deal, tuple(int(a) for a in self.prev_log[i, : p[P_LOG_LEN]])

    def load(self, i: int, game: Game, *, copy: bool = True) -> None:
        """Set game ``i`` to ``game``'s position, in a fresh episode that starts there with
        ``game``'s scores, so that it can be played on in the batch: e.g. a world that a search
        sampled with :meth:`Game.from_view`, to roll out. ``game`` is not changed; the engine
        keeps a copy of it (for :meth:`game`), or with ``copy=False`` ``game`` itself, which
        the caller must then leave as it is.

        From then on the game is stepped like any other; :meth:`game` and :meth:`view` give
        ``game``'s position with the actions since applied, and :meth:`deal` ``game``'s deal
        (a world's deal is its position). In a match episode the hands after this one are dealt
        from the game's own generator, as after :meth:`reset_games`.

        Raises:
            VectorConfigError: if ``i`` is out of range, ``game`` is not a :class:`Game` in
                play under this engine's rules, or the engine records (a record cannot hold a
                position set from outside).
            ResetRequiredError: before :meth:`reset`.
        """
        self._need_reset()
        if self.recording:
            raise VectorConfigError("load() is not available with record=True")
        i = self._game_index(i, "load")
        if not isinstance(game, Game):
            raise VectorConfigError(f"load: game must be a core Game, not {game!r}")
        if game.rules != self.rules:
            raise VectorConfigError(
                f"load: the game is played under {game.rules.describe()}, not this engine's "
                f"{self.rules.describe()}"
            )
        if game.is_hand_over:
            raise VectorConfigError("load: the game's hand is over; only a hand in play loads")
        write_row(
            self.st[i], self.scores_[i], self.hand_start[i], self.award[i], game,
            int(self.cfg[C_BONE_LEN]),
        )  # fmt: skip
        self._history[i] = []
        self._loaded[i] = game.clone() if copy else game
        self._redealt.pop(i, None)

    def _base(self, i: int) -> Game:
        """The core game that loaded game ``i`` starts from (redealt where it was)."""
        base = self._loaded[i]
        redealt = self._redealt.get(i)
        if redealt is None:
            return base
        seat, masks, bone = redealt
        hands = {s: tiles_of(m) for s, m in enumerate(masks.tolist()) if s != seat}
        return Game.from_view(base.view(seat), hands, bone.tolist(), strict=False)

    def redeal(
        self, indices: Sequence[int] | np.ndarray, hands: np.ndarray, boneyards: np.ndarray
    ) -> None:
        """Deal anew every tile that the seat to act cannot see, in games just set by
        :meth:`load` (or copied from one, and not stepped since): ``hands[j]`` gives game
        ``indices[j]`` every seat's hand as a tile mask (the acting seat's must be his own),
        ``boneyards[j]`` the undrawn boneyard in draw order. The table, the scores and all else
        stay. A search loads one world of a view and redeals the others into copies of it, far
        faster than loading each; the worlds are the caller's, so known voids are not checked.

        Raises:
            VectorConfigError: if a game was not just loaded, the arrays' shapes are wrong, the
                acting seat's hand differs, a hand's size differs, or the hands and boneyard
                are not exactly the tiles off the table; no game is changed then.
        """
        self._need_reset()
        idx = self._indices(indices, "redeal")
        n = self.num_players
        h = np.asarray(hands)
        b = np.asarray(boneyards)
        if h.shape != (idx.size, n) or h.dtype.kind not in "iu":
            raise VectorConfigError(f"redeal: hands must be {idx.size} rows of {n} tile masks")
        if b.ndim != 2 or b.shape[0] != idx.size or (b.size and b.dtype.kind not in "iu"):
            raise VectorConfigError(f"redeal: boneyards must be {idx.size} rows of tiles")
        st = self.st[idx]
        if any(i not in self._loaded for i in idx.tolist()) or st[:, LOG_LEN].any():
            raise VectorConfigError("redeal: only games just set by load() can be redealt")
        left = int(self.cfg[C_BONE_LEN]) - st[:, BPOS]
        if (left != b.shape[1]).any():
            raise VectorConfigError("redeal: a boneyard's length is not the tiles left in it")
        h = h.astype(np.int64)
        b = b.astype(np.int64)
        cur = st[:, CUR].astype(np.int64)
        rows = np.arange(idx.size)
        if (h[rows, cur] != st[rows, HANDS + cur]).any():
            raise VectorConfigError("redeal: the acting seat's hand must stay his own")
        if (b < 0).any() or (b >= NUM_TILES).any():
            raise VectorConfigError("redeal: a boneyard holds a number that is not a tile")
        bits = (h[:, :, None] >> np.arange(NUM_TILES)) & 1  # (M, n, 28)
        bone_bits = np.zeros((idx.size, NUM_TILES), np.int64)
        np.add.at(bone_bits, (np.repeat(rows, b.shape[1]), b.ravel()), 1)
        table = (st[:, ON_TABLE, None].astype(np.int64) >> np.arange(NUM_TILES)) & 1
        if (bits.sum(axis=2) != st[:, SIZES : SIZES + n]).any():
            raise VectorConfigError("redeal: a hand's size differs from the game's")
        in_set = (self.rules.tile_mask >> np.arange(NUM_TILES)) & 1
        if (bits.sum(axis=1) + bone_bits + table != in_set).any():
            raise VectorConfigError(
                "redeal: the hands and boneyard must be the set's tiles off the table"
            )
        st[:, HANDS : HANDS + n] = h
        st[:, DEAL_HANDS : DEAL_HANDS + n] = h
        st[:, PIPS_COL : PIPS_COL + n] = bits @ T_PIPS
        for k in range(b.shape[1]):
            st[rows, BONE + st[:, BPOS] + k] = b[:, k]
        self.st[idx] = st
        self._redealt.update(zip(idx.tolist(), zip(cur.tolist(), h, b, strict=True), strict=True))

    def copy_games(
        self, sources: int | Sequence[int] | np.ndarray, targets: Sequence[int] | np.ndarray
    ) -> None:
        """Make each game ``targets[j]`` an exact copy of game ``sources[j]`` (or of the one
        game ``sources``): its position, its episode so far and its generator. E.g. worlds
        loaded once each, then tried with a different action in each copy.

        Raises:
            VectorConfigError: for an index out of range, repeated targets, sources and targets
                of different lengths, or a target that is also a source.
            ResetRequiredError: before :meth:`reset`.
        """
        self._need_reset()
        idx = np.asarray(targets)
        src = np.asarray(sources)
        for a, what in ((idx, "targets"), (src, "sources")):
            if a.ndim > 1 or (a.size and a.dtype.kind not in "iu") or a.dtype == bool:
                raise VectorConfigError(f"copy_games: {what} must be ints, not {a!r}")
        if (src.ndim == 1 and src.shape != idx.shape) or idx.ndim != 1:
            raise VectorConfigError("copy_games: give one source, or one source per target")
        idx = idx.astype(np.int64)
        src = np.broadcast_to(src.astype(np.int64), idx.shape)
        last = self.num_games - 1
        if idx.size and (min(idx.min(), src.min()) < 0 or max(idx.max(), src.max()) > last):
            raise VectorConfigError(f"copy_games: an index is out of range 0-{last}")
        if np.unique(idx).size != idx.size:
            raise VectorConfigError("copy_games: a target is repeated")
        if np.isin(idx, src).any():
            raise VectorConfigError("copy_games: a target is also a source")
        arrays = (self.st, self.scores_, self.hand_start, self.episode_start, self.award, self.rng,
                  self.log)  # fmt: skip
        for a in arrays:
            a[idx] = a[src]
        self.prev[idx] = self.prev[src]
        self.prev_log[idx] = self.prev_log[src]
        for i, j in zip(idx.tolist(), src.tolist(), strict=True):
            self._history[i] = list(self._history[j])
            _copy_entry(self._loaded, j, i)
            _copy_entry(self._redealt, j, i)

    def hand_actions(self, i: int) -> tuple[int, ...]:
        """The engine action ids of game ``i``'s current hand so far.

        Raises:
            VectorConfigError: for an index that is not a game's.
        """
        i = self._game_index(i, "hand_actions")
        return tuple(int(a) for a in self.log[i, : self.st[i, LOG_LEN]])

    def game(self, i: int) -> Game:
        """A core :class:`Game` in game ``i``'s exact position.

        With ``record=True`` it replays the whole episode (every hand's deal and actions), so
        its hand log and results are the match's. Without, it starts from the current hand's
        deal with the scores the hand began with, and replays that hand.

        Raises:
            VectorConfigError: for an index that is not a game's.
            ResetRequiredError: before :meth:`reset`.
        """
        self._need_reset()
        i = self._game_index(i, "game")
        if i in self._loaded:  # the game it was set from, and what has been played since
            game = self._base(i).clone()
            for a in self.hand_actions(i):
                game.apply(a)
            return game
        hands = [*self._history[i], (self.deal(i), self.hand_actions(i))]
        if self.recording:  # the whole episode, from the scores it began at
            start = [_num(x) for x in self.episode_start[i, : self.num_sides]]
            game = Game(self.rules, deal=hands[0][0], scores=start)
        else:
            start = [_num(x) for x in self.hand_start[i, : self.num_sides]]
            hands = hands[-1:]
            game = Game(self.rules, deal=hands[0][0], scores=start)
        for k, (deal, actions) in enumerate(hands):
            if k:
                game.deal(deal=deal)
            for a in actions:
                game.apply(a)
        return game

    def view(self, i: int, seat: int | None = None) -> PlayerView:
        """What ``seat`` (default: the seat to act) may know in game ``i``: the core
        :class:`PlayerView` of :meth:`game` (for agents written against the core).

        Raises:
            VectorConfigError: for an index that is not a game's.
            ArgumentError: for a seat that is not one of the table's.
            ResetRequiredError: before :meth:`reset`.
        """
        i = self._game_index(i, "view")
        game = self.game(i)
        if seat is None:
            seat = int(self.st[i, CUR])
        return game.view(seat)

    def record(self, i: int, extra: dict[str, Any] | None = None) -> Record:
        """The game record of game ``i``'s episode so far (every hand dealt, as RULES.md §4).

        Raises:
            VectorConfigError: unless the engine was built with ``record=True``, or for an
                index that is not a game's.
            RecordError: if the rules are not a preset's (records hold presets only), or
                ``extra`` holds a key a record checks with a value it refuses
                (:func:`~allfives_env.core.records.record_of`).
        """
        if not self.recording:
            raise VectorConfigError("record() needs VectorGame(..., record=True)")
        i = self._game_index(i, "record")
        return record_of(self.game(i), extra)

    def describe(self, i: int) -> str:
        """One line on game ``i``: status, hand, phase, seat to act, scores.

        Raises:
            VectorConfigError: for an index that is not a game's.
        """
        st = self.st[self._game_index(i, "describe")]
        status = ("live", "terminated", "truncated")[int(st[STATUS])]
        scores = ", ".join(f"{_num(x):g}" for x in self.scores_[i, : self.num_sides])
        end = HAND_ENDS[int(st[HAND_END])]
        left = self.rules.boneyard_size - int(st[BPOS])
        return (
            f"game {i}: {status}, hand {int(st[HAND_NO])}, phase {int(st[PHASE])}, "
            f"seat {int(st[CUR])}, boneyard {left}, scores [{scores}]"
            + (f", last hand end {end}" if end else "")
        )


def _copy_entry(table: dict[int, _V], source: int, target: int) -> None:
    """Give ``target`` the entry of ``source`` in ``table``, or none where it has none."""
    if source in table:
        table[target] = table[source]
    else:
        table.pop(target, None)
