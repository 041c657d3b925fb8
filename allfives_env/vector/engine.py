"""The batched engine: :class:`VectorGame`, N games stepped together by compiled kernels.

It behaves like N copies of :class:`allfives_env.envs.aec.raw_env` driven in lockstep: the same
observations, masks, rewards, forced actions, hand and match episodes, and truncation, bit for
bit (the differential tests replay every step through the core :class:`Game` and a real
``raw_env``). Only the deals differ: each game draws its own from a per-game SplitMix64
generator (:mod:`allfives_env.vector.rng`), so a game depends on its seed alone, whatever the
batch size or the thread count.

The loop of a collector::

    vg = VectorGame(rules, 1024, forced_actions="auto", reward="points+win")
    vg.reset(seed)                        # deals every game
    obs, masks = vg.observe(), vg.masks() # the acting seat of each game
    rewards, terminated, truncated = vg.step(actions)   # (N, players), (N,), (N,)
    vg.reset_games(np.flatnonzero(terminated | truncated))

- **Actions** are env ids (:mod:`allfives_env.envs.spaces`): tile ``t`` on slot ``s`` is
  ``t * S + s``, DRAW ``28 * S``, PASS ``28 * S + 1``; the lead is offered on slot 0 only.
  ``-1`` leaves a game as it is (the one action a finished game takes until it is reset).
- **Refused input** changes no game: every action is checked before any is applied.
- **Rewards** are each step's, per seat (``raw_env.rewards`` after its ``step``);
  ``terminated``/``truncated`` tell each game's status after the step, until it is reset.
- **Between hands** of a match episode the next hand is dealt inside the step, as ``raw_env``
  does; :attr:`VectorGame.hand_end`, :attr:`~VectorGame.hand_award` and
  :attr:`~VectorGame.hand_winner` tell what ended during the last step.
- **Core objects** on demand: :meth:`VectorGame.game` (a :class:`Game` in the same position),
  :meth:`~VectorGame.view`, :meth:`~VectorGame.deal`, :meth:`~VectorGame.record`.
- **Policies**: :meth:`VectorGame.random_actions` and :meth:`~VectorGame.greedy_actions`
  (as ``agents.greedy``) run compiled, for opponents in front ends.

>>> from allfives_env.core.rules import Rules
>>> vg = VectorGame(Rules.preset("pagat", 2), 4)
>>> vg.reset(7)
>>> obs, masks = vg.observe(), vg.masks()
>>> obs.shape, masks.shape, int(masks.sum(axis=1).min()) > 0
((4, 222), (4, 114), True)
>>> rewards, terminated, truncated = vg.step(vg.greedy_actions())
>>> rewards.shape, bool(terminated.any())
((4, 2), False)
>>> g = vg.game(0)  # the core Game in game 0's position
>>> bool((vg.observe()[0] == Encoding(vg.rules).observe(g, g.current_player)).all())
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Unpack

import numpy as np
from numpy.typing import ArrayLike

from allfives_env.core.errors import RulesError
from allfives_env.core.game import Game, check_scores
from allfives_env.core.rules import Rules
from allfives_env.envs.blocks import OUTLOOK_SETS, feature_set
from allfives_env.envs.settings import (
    EnvConfigError,
    EnvSettings,
    ResetRequiredError,
    SettingsArgs,
    SettingsFields,
    settings_of,
)
from allfives_env.envs.spaces import Encoding
from allfives_env.vector.bridge import GameBridge, HandHistory, _num
from allfives_env.vector.errors import ActionArrayError, VectorActionError, VectorConfigError
from allfives_env.vector.kernels.encode import observe_batch, observe_listed, state_batch
from allfives_env.vector.kernels.legal import masks_batch, write_mask
from allfives_env.vector.kernels.policies import greedy_batch, random_from_masks
from allfives_env.vector.kernels.step import reset_batch, step_batch
from allfives_env.vector.memory import check_fits
from allfives_env.vector.rng import derive_seeds, one_seed, seed_array, seed_states
from allfives_env.vector.state import (
    CUR,
    F32,
    F64,
    FSCRATCH_WIDTH,
    HAND_END,
    HAND_NO,
    HAND_WINNER,
    I8,
    I64,
    LOG_CAP,
    PREV_WIDTH,
    ROLLED,
    SCRATCH_WIDTH,
    STATUS,
    STEPS,
    TERMINATED,
    TRUNCATED,
    U64,
    WIDTH,
    WINNERS,
    BoolArray,
    make_config,
)


def bytes_per_game(rules: Rules, action_features: bool | str = False) -> int:
    """About how many bytes a game of a :class:`VectorGame` takes: its arrays, one
    observation and one mask of it (what ``observe`` and ``masks`` add), and its history's
    bookkeeping."""
    enc = Encoding(rules, action_features)
    features = feature_set(action_features)
    ints = WIDTH + PREV_WIDTH + (SCRATCH_WIDTH if features != "none" else 1)
    floats = 5 * 4 + (FSCRATCH_WIDTH if features in OUTLOOK_SETS else 1)
    per_seat = 4 * rules.num_players  # the rewards
    return (
        4 * ints
        + 8 * floats
        + 2 * 2 * LOG_CAP
        + 8
        + 8
        + 1
        + per_seat
        + 2 * enc.num_actions
        + (4 * enc.obs_size)
        + 120
    )


class VectorGame(SettingsFields, GameBridge):
    """N matches of All Fives in arrays, stepped by one compiled kernel call per step; the
    bridge to the core's objects (:meth:`deal`, :meth:`load`, :meth:`redeal`, :meth:`game`,
    :meth:`view`, :meth:`record`...) is :class:`~allfives_env.vector.bridge.GameBridge`'s.

    Args:
        rules: the rules of every game (a :class:`Rules`, or a preset name with the
            ``num_players`` and ``partnerships`` keywords, as :func:`rules_of`), or its whole
            settings, an :class:`EnvSettings` (then give no settings keyword).
        num_games: N.
        record: keep every hand of each game's episode, for :meth:`record` and :meth:`game`.
        settings: the keywords of :meth:`EnvSettings.of` (its defaults), :class:`EnvSettings`'
            fields: ``episode``, ``"match"`` (between hands the next one is dealt at once) or
            ``"hand"``; ``reward``, ``"win"``, ``"points"`` or ``"points+win"`` (as
            ``raw_env``); ``forced_actions``, ``"explicit"``, or ``"auto"``: a forced DRAW or
            PASS (the only legal action) is taken by the engine until a real choice or the
            episode's end; ``action_features``, ``True`` for the ``action_points`` and
            ``action_replies`` blocks, ``"outlook"`` those and ``action_outlook`` (as
            :class:`Encoding`; ``"basic"`` and ``"none"`` are ``True`` and ``False``);
            ``max_cycles``, truncate an episode after this many steps (``None``: never).

    The settings are held as :attr:`settings` (also read as :attr:`rules`, :attr:`episode`,
    :attr:`reward_mode`, :attr:`forced_actions`, :attr:`action_features`, :attr:`max_cycles`).
    Call :meth:`reset` first. Every array the engine returns is a fresh copy unless an
    ``out`` array is passed in.

    Raises:
        EnvConfigError: for an unknown argument value (a ``RulesError``), or settings given
            both as an :class:`EnvSettings` and as keywords.
    """

    def __init__(
        self,
        rules: str | Rules | EnvSettings,
        num_games: int,
        *,
        record: bool = False,
        **settings: Unpack[SettingsArgs],
    ):
        self.settings = the = settings_of(rules, settings)
        """What every game plays."""
        if type(num_games) is not int or num_games < 1:
            raise EnvConfigError(f"num_games must be a positive int, not {num_games!r}")
        if type(record) is not bool:
            raise EnvConfigError(f"record must be a bool, not {record!r}")
        rules, action_features = the.rules, the.action_features
        check_fits(num_games * bytes_per_game(rules, action_features), f"{num_games:,} games")
        self.rules = rules
        self.num_games = n = num_games
        self.recording = record
        self.encoding = enc = Encoding(rules, action_features)
        self.num_players = rules.num_players
        self.num_sides = rules.num_sides
        self.num_actions = enc.num_actions
        self.obs_size = enc.obs_size
        self.state_size = enc.state_size
        self.cfg: I64 = make_config(
            rules,
            episode_hand=the.episode == "hand",
            auto=the.forced_actions == "auto",
            reward_points="points" in the.reward,
            reward_win="win" in the.reward,
            max_cycles=the.max_cycles or 0,
            action_features=action_features,
        )
        self.st = np.zeros((n, WIDTH), np.int32)
        self.scores_ = np.zeros((n, 4), np.float64)
        self.episode_start = np.zeros((n, 4), np.float64)  # the scores each episode began at
        self.hand_start = np.zeros((n, 4), np.float64)
        self.award = np.zeros((n, 4), np.float64)
        self.gains = np.zeros((n, 4), np.float64)
        self.rng: U64 = np.zeros(n, np.uint64)
        self.log = np.zeros((n, LOG_CAP), np.int16)
        self.prev = np.zeros((n, PREV_WIDTH), np.int32)
        self.prev_log = np.zeros((n, LOG_CAP), np.int16)
        # a layout copy per game for the action features, and the outlook's sort buffer
        # (unread without them)
        features = feature_set(action_features)
        self.scratch = np.zeros((n, SCRATCH_WIDTH if features != "none" else 1), np.int32)
        self.fscratch = np.zeros((n, FSCRATCH_WIDTH if features in OUTLOOK_SETS else 1), np.float64)
        self._rewards = np.zeros((n, rules.num_players), np.float32)
        self._bad = np.zeros(n, np.int8)
        self._acting = np.full(n, -1, np.int64)
        self._mask_buf = np.zeros((n, enc.num_actions), np.int8)
        self._history: list[list[HandHistory]] = [[] for _ in range(n)]
        self._loaded: dict[int, Game] = {}  # games set by load(), until their hand ends
        # games redealt since: (seat to act, every hand's mask, boneyard) of the world they
        # now hold, as rows of redeal()'s own arrays (read only when a game is rebuilt)
        self._redealt: dict[int, tuple[int, I64, I64]] = {}
        self._ready = False

    # ------------------------------------------------------------------ episodes

    def _check_seeds(self, seeds: object, count: int, what: str) -> U64:
        """Generator states for ``count`` games from ``seeds``: one seed (game ``i``'s derives
        from it and ``i``) or ``count`` of them.

        Raises:
            VectorConfigError: naming ``what``, unless ``seeds`` is one int from 0 to
                2**64 - 1 or ``count`` of them (:func:`~allfives_env.vector.rng.seed_array`).
        """
        if isinstance(seeds, int | np.integer):
            return seed_states(derive_seeds(one_seed(seeds, what), count))
        return seed_states(seed_array(seeds, count, what))

    def reset(
        self, seeds: int | Sequence[int] | np.ndarray, scores: ArrayLike | None = None
    ) -> None:
        """Start a new episode in every game, dealing from ``seeds`` (one per game, or one
        int from which game ``i``'s seed derives as a mix of it and ``i``), from ``scores``
        (one row of the sides' scores per game, as ``raw_env.reset``'s ``"scores"`` option; the
        default all 0).

        Raises:
            VectorConfigError: for bad seeds or scores (nothing is changed).
        """
        states = self._check_seeds(seeds, self.num_games, "reset")
        start = self._check_scores(scores, self.num_games, "reset")
        self.rng[:] = states
        self._new_episodes(np.arange(self.num_games, dtype=np.int64), start)
        self._ready = True

    def reset_games(
        self,
        indices: Sequence[int] | np.ndarray,
        seeds: Sequence[int] | np.ndarray | None = None,
        scores: ArrayLike | None = None,
    ) -> None:
        """Start a new episode in the games ``indices`` only (for auto-reset): dealt from
        ``seeds`` (one per index), or, with ``seeds=None``, from each game's own generator where
        it stands (a game's whole run still depends on its first seed alone); from ``scores``
        (one row per index, as in :meth:`reset`).

        Raises:
            VectorConfigError: for indices out of range or repeated, or bad seeds or scores
                (nothing is changed).
            ResetRequiredError: before the first :meth:`reset`.
        """
        self._need_reset()
        idx = self._indices(indices, "reset_games")
        start = self._check_scores(scores, idx.size, "reset_games")
        if seeds is not None:
            if isinstance(seeds, int | np.integer):
                raise VectorConfigError("reset_games: give one seed per index")
            self.rng[idx] = self._check_seeds(seeds, idx.size, "reset_games")
        self._new_episodes(idx, start)

    def _check_scores(self, scores: ArrayLike | None, count: int, what: str) -> F64 | None:
        """``scores`` as a (count, sides) float64 array (``None`` stays ``None``).

        Raises:
            VectorConfigError: unless it is ``count`` rows of starting scores that
                ``Game(scores=...)`` accepts.
        """
        if scores is None:
            return None
        k = self.num_sides
        try:
            cells = np.array(scores, dtype=object)
        except ValueError:  # ragged
            cells = np.zeros(0, dtype=object)
        if cells.shape != (count, k) or not all(
            isinstance(x, int | float | np.integer | np.floating)
            and not isinstance(x, bool | np.bool_)
            for x in cells.flat
        ):
            raise VectorConfigError(
                f"{what}: scores must be {count} rows of {k} numbers, not {scores!r}"
            )
        out = cells.astype(np.float64)
        for row in out.tolist():
            try:
                check_scores(self.rules, [_num(x) for x in row])
            except RulesError as e:
                raise VectorConfigError(f"{what}: {e}") from None
        return out

    def _indices(self, indices: Sequence[int] | np.ndarray, what: str) -> I64:
        """``indices`` as an int64 array of distinct game indices.

        Raises:
            VectorConfigError: naming ``what``, for anything else.
        """
        idx = np.asarray(indices)
        if idx.ndim != 1 or (idx.size and idx.dtype.kind not in "iu"):
            raise VectorConfigError(f"{what}: indices must be a 1-D int array, not {idx!r}")
        out: I64 = idx.astype(np.int64)
        if out.size and (out.min() < 0 or out.max() >= self.num_games):
            raise VectorConfigError(f"{what}: an index is out of range 0-{self.num_games - 1}")
        if np.unique(out).size != out.size:
            raise VectorConfigError(f"{what}: an index is repeated")
        return out

    def _new_episodes(self, idx: I64, scores: F64 | None = None) -> None:
        reset_batch(self.st, self.cfg, self.scores_, self.hand_start, self.award, self.rng, idx)
        self.episode_start[idx] = 0
        if scores is not None:  # the deal does not read the scores: set them once it is made
            self.scores_[idx, : self.num_sides] = scores
            self.hand_start[idx, : self.num_sides] = scores
            self.episode_start[idx, : self.num_sides] = scores
        for i in idx.tolist():
            self._history[i] = []
            self._loaded.pop(i, None)
            self._redealt.pop(i, None)

    def _need_reset(self) -> None:
        if not self._ready:
            raise ResetRequiredError("call reset(seeds) first")

    # ------------------------------------------------------------------ reading

    @property
    def status(self) -> I8:
        """(N,) per game: 0 live, 1 terminated, 2 truncated (until reset)."""
        out: I8 = self.st[:, STATUS].astype(np.int8)
        return out

    @property
    def terminated(self) -> BoolArray:
        """(N,) whether each game's episode has terminated (and not been reset since)."""
        out: BoolArray = self.st[:, STATUS] == TERMINATED
        return out

    @property
    def truncated(self) -> BoolArray:
        """(N,) whether each game's episode was truncated at ``max_cycles`` steps."""
        out: BoolArray = self.st[:, STATUS] == TRUNCATED
        return out

    @property
    def done(self) -> BoolArray:
        """(N,) terminated or truncated."""
        out: BoolArray = self.st[:, STATUS] != 0
        return out

    @property
    def current_player(self) -> I64:
        """(N,) the seat to act in each game; -1 in a game that is done."""
        st = self.st
        out: I64 = np.where(st[:, STATUS] == 0, st[:, CUR], -1).astype(np.int64)
        return out

    @property
    def scores(self) -> F64:
        """(N, num_sides) each side's score."""
        out: F64 = self.scores_[:, : self.num_sides].copy()
        return out

    @property
    def winners(self) -> BoolArray:
        """(N, num_sides) the sides that won each game's match (all False while not over)."""
        bits = self.st[:, WINNERS][:, None] >> np.arange(self.num_sides)[None, :]
        out: BoolArray = (bits & 1).astype(bool)
        return out

    @property
    def hand_end(self) -> I8:
        """(N,) how a hand ended during the last step: 0 none, 1 domino, 2 blocked, 3 target
        (names in :data:`~allfives_env.vector.state.HAND_ENDS`)."""
        out: I8 = self.st[:, HAND_END].astype(np.int8)
        return out

    @property
    def hand_award(self) -> F64:
        """(N, num_sides) the award of the hand that ended during the last step, as scored
        (where ``hand_end`` is not 0)."""
        out: F64 = self.award[:, : self.num_sides].copy()
        return out

    @property
    def hand_winner(self) -> I64:
        """(N,) that hand's winning side, -1 for none."""
        out: I64 = self.st[:, HAND_WINNER].astype(np.int64)
        return out

    @property
    def hand_number(self) -> I64:
        """(N,) the hands dealt in each game's episode."""
        out: I64 = self.st[:, HAND_NO].astype(np.int64)
        return out

    @property
    def episode_steps(self) -> I64:
        """(N,) the steps taken in each game's episode."""
        out: I64 = self.st[:, STEPS].astype(np.int64)
        return out

    def state_bytes(self) -> int:
        """Bytes of the arrays that hold the games (the per-game state, logs included)."""
        arrays: list[np.ndarray] = [self.st, self.scores_, self.hand_start, self.episode_start]
        arrays.append(self.award)
        arrays += [self.gains, self.rng, self.log, self.prev, self.prev_log, self.scratch]
        arrays.append(self.fscratch)
        return sum(a.nbytes for a in arrays)

    # ------------------------------------------------------------------ arrays

    def _out(self, out: Any, shape: tuple[int, ...], dtype: type, what: str) -> Any:
        if out is None:
            return np.empty(shape, dtype)
        if (
            not isinstance(out, np.ndarray)
            or out.shape != shape
            or out.dtype != dtype
            or not out.flags.c_contiguous
            or not out.flags.writeable
        ):
            raise VectorConfigError(
                f"{what} must be a writable C-contiguous {dtype.__name__} array of shape {shape}"
            )
        return out

    def observe(self, out: F32 | None = None) -> F32:
        """(N, obs_size) float32: each game's acting seat's observation, as
        ``Encoding.observe`` (in a game that is done: the seat that acted last)."""
        self._need_reset()
        o: F32 = self._out(out, (self.num_games, self.obs_size), np.float32, "observe: out")
        observe_batch(self.st, self.cfg, self.scores_, self._acting, o, self.scratch, self.fscratch)
        return o

    def observe_seat(self, seats: Sequence[int] | np.ndarray, out: F32 | None = None) -> F32:
        """(N, obs_size) float32: the observation of seat ``seats[i]`` in game ``i``.

        Raises:
            VectorConfigError: if ``seats`` is not N seats of this table.
        """
        self._need_reset()
        s = np.asarray(seats)
        if s.shape != (self.num_games,) or s.dtype.kind not in "iu":
            raise VectorConfigError(f"observe_seat: seats must be {self.num_games} ints")
        if s.size and (s.min() < 0 or s.max() >= self.num_players):
            raise VectorConfigError(f"observe_seat: seats must be 0-{self.num_players - 1}")
        o: F32 = self._out(out, (self.num_games, self.obs_size), np.float32, "observe_seat: out")
        seats_ = s.astype(np.int64)
        observe_batch(self.st, self.cfg, self.scores_, seats_, o, self.scratch, self.fscratch)
        return o

    def observe_games(
        self, games: Sequence[int] | np.ndarray, seats: Sequence[int] | np.ndarray
    ) -> F32:
        """(k, obs_size) float32: the observation of seat ``seats[j]`` in game ``games[j]``
        (``observe_seat`` for some games only; each game listed once).

        Raises:
            VectorConfigError: for games or seats that are not this batch's, or a game listed
                twice.
        """
        self._need_reset()
        g = np.asarray(games)
        s = np.asarray(seats)
        if (
            g.ndim != 1
            or s.shape != g.shape
            or g.dtype.kind not in "iu"
            or s.dtype.kind not in "iu"
        ):
            raise VectorConfigError("observe_games: games and seats must be two lists of ints")
        if g.size and (g.min() < 0 or g.max() >= self.num_games):
            raise VectorConfigError(f"observe_games: games must be 0-{self.num_games - 1}")
        if s.size and (s.min() < 0 or s.max() >= self.num_players):
            raise VectorConfigError(f"observe_games: seats must be 0-{self.num_players - 1}")
        if np.unique(g).size != g.size:
            raise VectorConfigError("observe_games: a game is listed twice")
        out = np.zeros((g.size, self.obs_size), np.float32)
        observe_listed(
            self.st, self.cfg, self.scores_, g.astype(np.int64), s.astype(np.int64), out,
            self.scratch, self.fscratch,
        )  # fmt: skip
        return out

    def masks(self, out: I8 | None = None) -> I8:
        """(N, num_actions) int8 0/1: the legal env actions of each game's acting seat, as
        ``Encoding.mask`` (all 0 in a game that is done)."""
        self._need_reset()
        o: I8 = self._out(out, (self.num_games, self.num_actions), np.int8, "masks: out")
        masks_batch(self.st, self.cfg, o)
        return o

    def state(self, out: F32 | None = None) -> F32:
        """(N, state_size) float32: each game's global state, as ``Encoding.state``."""
        self._need_reset()
        o: F32 = self._out(out, (self.num_games, self.state_size), np.float32, "state: out")
        state_batch(self.st, self.cfg, self.scores_, o)
        return o

    # ------------------------------------------------------------------ stepping

    def _actions(self, actions: object) -> I64:
        """``actions`` as a C-contiguous int64 array of N entries.

        Raises:
            ActionArrayError: for another shape, or entries that are not integers.
        """
        arr = actions if isinstance(actions, np.ndarray) else np.asarray(actions)
        if arr.shape != (self.num_games,):
            raise ActionArrayError(f"actions must have shape ({self.num_games},), not {arr.shape}")
        if arr.dtype.kind not in "iu":
            raise ActionArrayError(f"actions must be integers, not {arr.dtype}")
        if arr.dtype.kind == "u" and arr.size and arr.max() > np.iinfo(np.int64).max:
            raise ActionArrayError("actions must be env action ids (or -1)")
        if arr.dtype != np.int64 or not arr.flags.c_contiguous:
            arr = np.ascontiguousarray(arr, dtype=np.int64)
        out: I64 = arr
        return out

    def action_ids(self, actions: object) -> I64:
        """``actions`` as int64, checked to hold an env action id for every game: what the
        front ends (Gymnasium, SB3, multi-agent) take, where no game may be left out, so -1 is
        refused like any number outside the action space.

        Raises:
            ActionArrayError: for another shape, or entries that are not integers.
            VectorActionError: for an entry outside ``0..num_actions - 1``, naming the first
                such game and its action (nothing is stepped).
        """
        arr = actions if isinstance(actions, np.ndarray) else np.asarray(actions)
        if arr.shape != (self.num_games,):
            raise ActionArrayError(f"actions must have shape ({self.num_games},), not {arr.shape}")
        if arr.dtype.kind not in "iu":
            raise ActionArrayError(f"actions must be integers, not {arr.dtype}")
        bad = np.flatnonzero((arr < 0) | (arr >= self.num_actions)) if arr.size else arr
        if len(bad):
            i = int(bad[0])
            more = f" ({len(bad) - 1} more games too)" if len(bad) > 1 else ""
            raise VectorActionError(
                f"game {i}: action {int(arr[i])} is not an action id (0 to "
                f"{self.num_actions - 1}){more}; no game was stepped",
                i,
                int(arr[i]) if arr[i] <= np.iinfo(np.int64).max else -1,
                None,
                (),
            )
        return self._actions(arr)

    def step(self, actions: Sequence[int] | np.ndarray) -> tuple[F32, BoolArray, BoolArray]:
        """Apply ``actions[i]`` (an env action id, or -1 to leave game ``i`` as it is) for the
        acting seat of every game; return ``(rewards, terminated, truncated)``.

        ``rewards`` (N, num_players) float32 are this step's, per seat, as ``raw_env`` computes
        them; ``terminated`` and ``truncated`` (N,) tell each game's status after the step.

        Raises:
            ActionArrayError: if ``actions`` is not N integers.
            VectorActionError: if an action is not in its game's mask, or a game that is done
                gets an action other than -1; it names the first such game, and no game is
                changed.
            ResetRequiredError: before :meth:`reset`.
        """
        self._need_reset()
        acts = self._actions(actions)
        first = step_batch(
            self.st, self.cfg, self.scores_, self.hand_start, self.award, self.gains, self.rng,
            self.log, self.prev, self.prev_log, acts, self._rewards, self._bad,
        )  # fmt: skip
        if first >= 0:
            raise self._refusal(int(first), acts)
        if self.recording or self._loaded:  # (a recording engine loads no game)
            for i in np.flatnonzero(self.st[:, ROLLED]).tolist():
                if self.recording:
                    self._history[i].append(self._previous_hand(i))
                self._loaded.pop(i, None)  # a new hand, dealt as any other
                self._redealt.pop(i, None)
        status = self.st[:, STATUS]
        return self._rewards.copy(), status == TERMINATED, status == TRUNCATED

    def _refusal(self, i: int, acts: I64) -> VectorActionError:
        a = int(acts[i])
        count = int(np.count_nonzero(self._bad))
        more = f" ({count - 1} more games refused too)" if count > 1 else ""
        status = int(self.st[i, STATUS])
        if status:
            what = "terminated" if status == TERMINATED else "truncated"
            return VectorActionError(
                f"game {i} is done ({what}): its action must be -1, not {a}; reset it with "
                f"reset_games{more}; no game was stepped",
                i,
                a,
                None,
                (),
            )
        legal = self.legal_actions(i)
        names = ", ".join(f"{x} ({self.encoding.action_name(x)})" for x in legal)
        seat = int(self.st[i, CUR])
        return VectorActionError(
            f"illegal action {a} in game {i} for seat {seat}: not in its action mask "
            f"(legal: {names}){more}; no game was stepped",
            i,
            a,
            seat,
            legal,
        )

    def legal_actions(self, i: int) -> list[int]:
        """The legal env action ids of game ``i``'s acting seat (empty if it is done).

        Raises:
            VectorConfigError: for an index that is not a game's.
            ResetRequiredError: before :meth:`reset`.
        """
        self._need_reset()
        i = self._game_index(i, "legal_actions")
        if self.st[i, STATUS]:
            return []
        m = np.zeros(self.num_actions, np.int8)
        write_mask(self.st[i], self.cfg, m)
        return [int(x) for x in np.flatnonzero(m)]

    # ------------------------------------------------------------------ policies

    def greedy_actions(self, out: I64 | None = None) -> I64:
        """(N,) each game's greedy action (as ``agents.greedy.GreedyAgent``), -1 where done."""
        self._need_reset()
        o: I64 = self._out(out, (self.num_games,), np.int64, "greedy_actions: out")
        greedy_batch(self.st, self.cfg, o)
        return o

    def random_actions(self, rng: U64, masks: I8 | None = None, out: I64 | None = None) -> I64:
        """(N,) actions drawn uniformly from each game's mask with the caller's generator
        states ``rng`` (see :func:`policy_rng`), -1 where done. ``masks`` saves recomputing
        the masks when the caller has them."""
        self._need_reset()
        if (
            not isinstance(rng, np.ndarray)
            or rng.shape != (self.num_games,)
            or rng.dtype != np.uint64
            or not rng.flags.c_contiguous
            or not rng.flags.writeable
        ):
            raise VectorConfigError(
                f"random_actions: rng must be a writable array of {self.num_games} uint64 "
                "states (policy_rng makes one)"
            )
        if masks is None:
            m = self.masks(out=self._mask_buf)
        else:  # the caller's masks, checked like an out array
            shape = (self.num_games, self.num_actions)
            m = self._out(masks, shape, np.int8, "random_actions: masks")
        o: I64 = self._out(out, (self.num_games,), np.int64, "random_actions: out")
        random_from_masks(m, rng, o)
        return o


def policy_rng(seeds: int | Sequence[int] | np.ndarray, num_games: int | None = None) -> U64:
    """Generator states for :meth:`VectorGame.random_actions`: one per game, from per-game
    seeds or from one int and the game index (then ``num_games`` is required).

    Raises:
        VectorConfigError: for seeds that are not one int from 0 to 2**64 - 1 or a list of
            them (of ``num_games``, where given), or a ``num_games`` that is not a count.
    """
    if num_games is not None and (
        isinstance(num_games, bool) or not isinstance(num_games, int | np.integer) or num_games < 0
    ):
        raise VectorConfigError(f"policy_rng: num_games must be a count, not {num_games!r}")
    if isinstance(seeds, int | np.integer):
        if num_games is None:
            raise VectorConfigError("policy_rng: give num_games with a single seed")
        return seed_states(derive_seeds(one_seed(seeds, "policy_rng"), int(num_games)))
    count = None if num_games is None else int(num_games)
    return seed_states(seed_array(seeds, count, "policy_rng"))
