"""The array layout of N games: one ``int32`` row of fields per game, and the tables kernels read.

A batch of games is a handful of arrays with the game index first (the last column: dtype):

==============  ====================  ===  ============================================
array           shape                 dt   what
==============  ====================  ===  ============================================
``st``          (N, WIDTH)            i32  every integer field of a game (columns below)
``scores``      (N, 4)                f64  each side's score (``pagat`` ties: half points)
``hand_start``  (N, 4)                f64  the scores when the current hand was dealt
``award``       (N, 4)                f64  the award of the hand that ended in the last
                                           step, as scored (all 0 for a ``target`` end)
``gains``       (N, 4)                f64  scratch: points won per side in one step
``rng``         (N,)                  u64  each game's deal generator (:mod:`.rng`)
``log``         (N, LOG_CAP)          i16  the engine action ids of the current hand
``prev``        (N, PREV_WIDTH)       i32  the hand before the current one (deal, log
                                           length), kept for one step after a new deal
``prev_log``    (N, LOG_CAP)          i16  that hand's engine action ids (for records)
``scratch``     (N, SCRATCH_WIDTH)    i32  a layout copy to try placements on, and a
                                           table (action features only; else (N, 1))
``fscratch``    (N, FSCRATCH_WIDTH)   f64  the outlook's replies, sorted best first
                                           (outlook features only; else (N, 1))
==============  ====================  ===  ============================================

Sides beyond ``rules.num_sides`` and seats beyond ``num_players`` stay 0. The columns of ``st``
mirror the fields of :class:`~allfives_env.core.game.Game` and
:class:`~allfives_env.core.layout.Layout` (same names, same encodings: tile masks of 28 bits,
7-bit value sets, -1 for "none"). The layout's columns are contiguous (``LAYOUT_START`` …
``LAYOUT_END``) so a layout copies as one slice.

The rules and the episode settings travel to the kernels as ``cfg``, an ``int64`` vector
(:func:`make_config`; indices ``C_*``).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from allfives_env.core.rules import Rules
from allfives_env.core.tiles import HIGH, IS_DOUBLE, LOW, NUM_TILES, OTHER, PIPS, VALUES_MASK
from allfives_env.envs.blocks import (
    FEATURE_SETS,
    feature_set,
    observation_blocks,
    offsets,
    state_blocks,
)

I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]
I16 = npt.NDArray[np.int16]
I8 = npt.NDArray[np.int8]
U64 = npt.NDArray[np.uint64]
F64 = npt.NDArray[np.float64]
F32 = npt.NDArray[np.float32]
BoolArray = npt.NDArray[np.bool_]

MAX_PLAYERS = 4
MAX_SIDES = 4
NUM_SLOTS = 16
MAX_SPINNERS = 8  # 7 doubles at most; 8 keeps the columns aligned

# ---------------------------------------------------------------------- phases (core Phase)
LEAD, PLAY, DRAWN, HAND_OVER, MATCH_OVER = 0, 1, 2, 3, 4

# ---------------------------------------------------------------------- episode status
LIVE, TERMINATED, TRUNCATED = 0, 1, 2

# ---------------------------------------------------------------------- hand ends (HandEnd)
END_NONE, END_DOMINO, END_BLOCKED, END_TARGET = 0, 1, 2, 3
HAND_ENDS = ("", "domino", "blocked", "target")

# ---------------------------------------------------------------------- rules as ints
LEADER_RULES = ("lot", "highest_double", "last_winner")
AWARD_RULES = ("round_once", "lose_own", "round_each", "net_fives", "pairwise_fives")
LEADER_LOT, LEADER_HIGHEST_DOUBLE, LEADER_LAST_WINNER = 0, 1, 2
AWARD_ROUND_ONCE, AWARD_LOSE_OWN, AWARD_ROUND_EACH, AWARD_NET_FIVES, AWARD_PAIRWISE = range(5)

# ---------------------------------------------------------------------- engine action ids
ENGINE_SLOTS = 16  # engine id = tile * 16 + slot (core.actions)
ENGINE_DRAW = NUM_TILES * ENGINE_SLOTS
ENGINE_PASS = ENGINE_DRAW + 1

# ---------------------------------------------------------------------- columns of st
COLUMNS: dict[str, tuple[int, int, str]] = {}
"""Each column (or run of columns) of ``st`` by its constant's name: (first column, size,
meaning). The constants below are made here, one line each, in the order of ``st``."""


def _column(name: str, size: int, meaning: str) -> int:
    """Add the next ``size`` columns to :data:`COLUMNS` as ``name``; return the first."""
    at = sum(n for _, n, _ in COLUMNS.values())
    COLUMNS[name] = (at, size, meaning)
    return at


# game (core.game.Game)
PHASE = _column("PHASE", 1, "LEAD 0, PLAY 1, DRAWN 2, HAND_OVER 3, MATCH_OVER 4 (core Phase)")
CUR = _column("CUR", 1, "the seat to act (after a hand's end: the seat that acted last)")
LEADER = _column("LEADER", 1, "the seat that led this hand")
BY_LOT = _column("BY_LOT", 1, "1 if this hand's leader was drawn by lot")
DRAWN_TILE = _column("DRAWN_TILE", 1, "the drawn tile to place (phase DRAWN), else -1")
TURN_DRAWS = _column("TURN_DRAWS", 1, "tiles the player to act has drawn this turn")
VOID_PENDING = _column(
    "VOID_PENDING", 1, "the voids to restore if the drawn tile is placed (Game._void_pending)"
)
FORCED_LEAD = _column("FORCED_LEAD", 1, "the tile the leader must lead (highest_double), else -1")
BPOS = _column("BPOS", 1, "tiles drawn from the boneyard so far (BONE[BPOS] is next)")
HAND_NO = _column("HAND_NO", 1, "hands dealt this episode")
PREV_DOMINO = _column(
    "PREV_DOMINO", 1, "the seat that dominoed the last hand, -1 if blocked or none"
)
PREV_WINNER = _column("PREV_WINNER", 1, "the side that won the last hand, -1 for none")
WINNERS = _column("WINNERS", 1, "the sides that won the match, as a bit set (0 while not over)")
# episode (envs.aec.raw_env)
STATUS = _column("STATUS", 1, "LIVE 0, TERMINATED 1, TRUNCATED 2")
STEPS = _column("STEPS", 1, "env steps taken this episode (max_cycles counts these)")
LOG_LEN = _column("LOG_LEN", 1, "actions in log (this hand)")
# what the last step did
HAND_END = _column(
    "HAND_END", 1, "how a hand ended in the last step: END_NONE/DOMINO/BLOCKED/TARGET"
)
HAND_WINNER = _column("HAND_WINNER", 1, "that hand's winning side, -1 for none")
ROLLED = _column(
    "ROLLED", 1, "1 if the last step ended a hand and dealt the next (the old one is in prev)"
)
HANDS = _column("HANDS", MAX_PLAYERS, "each seat's hand, a tile mask")
PIPS_COL = _column("PIPS_COL", MAX_PLAYERS, "pips in each hand")
SIZES = _column("SIZES", MAX_PLAYERS, "tiles in each hand")
PLAYED = _column("PLAYED", MAX_PLAYERS, "tiles each seat placed this hand, a tile mask")
VOIDS = _column("VOIDS", MAX_PLAYERS, "each seat's known voids, a 7-bit value set (Game.void_bits)")
DEAL_HANDS = _column("DEAL_HANDS", MAX_PLAYERS, "each seat's hand as dealt, a tile mask")
BONE = _column(
    "BONE", NUM_TILES, "the boneyard in draw order as dealt (its first BONE_LEN entries)"
)
# layout (core.layout.Layout), contiguous
COUNT = _column("COUNT", 1, "the count")
OPEN_BITS = _column("OPEN_BITS", 1, "the open values, a 7-bit set")
ON_TABLE = _column("ON_TABLE", 1, "tiles on the table, a tile mask")
NUM_SP = _column("NUM_SP", 1, "spinners placed")
LEAD_TILE = _column("LEAD_TILE", 1, "the led tile, -1 before the lead")
END_DOUBLE = _column(
    "END_DOUBLE", 1, "slots whose outermost tile is an ordinary double, a 16-bit set"
)
VALUE = _column(
    "VALUE", NUM_SLOTS, "per slot, the value a tile must show to go there; -1: not open"
)
FACE = _column("FACE", NUM_SLOTS, "per slot, the spinner whose free side it is; -1: none")
CONTRIB = _column("CONTRIB", NUM_SLOTS, "per slot, what it adds to the count")
SP_VALUE = _column("SP_VALUE", MAX_SPINNERS, "per spinner, its value")
SP_COV = _column("SP_COV", MAX_SPINNERS, "per spinner, its sides covered")
OPEN_COUNT = _column("OPEN_COUNT", 8, "per value 0-6, the open slots showing it")

WIDTH = sum(n for _, n, _ in COLUMNS.values())
"""Columns per game in ``st``."""
BY_RESIDUE = WIDTH
"""In ``scratch`` rows only, after a layout copy: 35 entries, ``best_additions`` of the
action features (``[5 · value + residue]`` → the largest addition, -1 for none)."""
SCRATCH_WIDTH = WIDTH + 35
FSCRATCH_WIDTH = NUM_TILES
"""Entries of a ``fscratch`` row: one per tile, the best values of the replies the outlook
weighs (:mod:`allfives_env.vector.kernels.outlook`), sorted best first."""

LAYOUT_START = COUNT
LAYOUT_END = WIDTH  # the layout's columns are the last

LOG_CAP = 208
"""Actions one hand can hold. A hand has at most 28 placements and ``28 - n·k`` draws (``n``
players dealt ``k`` tiles), and at most ``n - 1`` passes follow any of them (``n`` passes in a
row would mean a blocked hand, which ends before anyone passes): ``(56 - n·k) · n`` ≤ 208
actions for any rules (4 players dealt one tile each)."""

# prev: the hand before the current one
P_DEAL_HANDS = 0  # 4 tile masks
P_BONE = 4  # 28 tiles
P_LEADER = 32
P_LOG_LEN = 33
P_BONE_LEN = 34
PREV_WIDTH = 35

# ---------------------------------------------------------------------- cfg
# Indices into cfg. Rules fields first, then the episode settings, then the offsets of the
# observation blocks (O_*, -1 where absent) and of the state blocks (S_*) from envs.blocks, then
# the side of each seat (4 entries) and, per observer, the sides going round from his own
# (C_REL_SIDES + 4 * observer + k); last the set (C_NT …), its tiles by rank and their ranks.
C_N, C_K, C_PARTNERS, C_HAND_SIZE, C_BONE_LEN, C_LEADER = range(6)
C_EVERY, C_AT_ONCE, C_STOP, C_DWA, C_UNIT, C_AWARD, C_TARGET, C_EXACT = range(6, 14)
C_S, C_NUM_ACTIONS, C_EPISODE_HAND, C_AUTO, C_REWARD_POINTS, C_REWARD_WIN = range(14, 20)
C_MAX_CYCLES, C_ACTION_FEATURES, C_OBS_SIZE, C_STATE_SIZE = range(20, 24)
FEATURES_NONE, FEATURES_BASIC, FEATURES_OUTLOOK, FEATURES_LOOKAHEAD = range(4)
"""cfg[C_ACTION_FEATURES]: the index in ``envs.blocks.FEATURE_SETS``."""
(
    O_HAND, O_TABLE, O_PLAYED_BY, O_DRAWN, O_SLOTS, O_COUNT, O_COUNT_MOD5, O_HAND_SIZES,
    O_BONEYARD_SIZE, O_SCORES, O_VOIDS, O_PHASE, O_TO_ACT, O_DRAWS, O_LEADER, O_ACTION_POINTS,
    O_ACTION_REPLIES, O_ACTION_OUTLOOK, O_ACTION_LOOKAHEAD,
) = range(24, 43)  # fmt: skip
(
    S_HANDS, S_BONEYARD, S_BONEYARD_ORDER, S_TABLE, S_PLAYED_BY, S_DRAWN, S_SLOTS, S_COUNT,
    S_COUNT_MOD5, S_HAND_SIZES, S_BONEYARD_SIZE, S_SCORES, S_VOIDS, S_PHASE, S_TO_ACT, S_DRAWS,
    S_LEADER,
) = range(43, 60)  # fmt: skip
C_SIDE_OF = 60
C_REL_SIDES = 64
C_NT = 80
"""T, the tiles of the rules' set (28 for double-six): the size of every tile block."""
C_VALUES = 81
"""The set's pip values, ``max_pip + 1`` (7 for double-six): the size of a value one-hot."""
C_SET_MASK = 82
"""The set's tiles, a tile mask."""
C_INDEX_TILE = 83
"""``cfg[C_INDEX_TILE + i]``: the tile id of rank ``i`` in the set (T entries, then -1)."""
C_TILE_INDEX = C_INDEX_TILE + NUM_TILES
"""``cfg[C_TILE_INDEX + t]``: the rank of tile id ``t`` in the set, -1 if not in it (the index
of its entry in the tile blocks; an env placement id is ``rank · S + slot``)."""
CFG_SIZE = C_TILE_INDEX + NUM_TILES

_OBS_NAMES = (
    "hand", "table", "played_by", "drawn", "slots", "count", "count_mod5", "hand_sizes",
    "boneyard_size", "scores", "voids", "phase", "to_act", "draws_this_turn", "leader",
    "action_points", "action_replies", "action_outlook", "action_lookahead",
)  # fmt: skip
_STATE_NAMES = (
    "hands", "boneyard", "boneyard_order", "table", "played_by", "drawn", "slots", "count",
    "count_mod5", "hand_sizes", "boneyard_size", "scores", "voids", "phase", "to_act",
    "draws_this_turn", "leader",
)  # fmt: skip


def make_config(
    rules: Rules,
    *,
    episode_hand: bool,
    auto: bool,
    reward_points: bool,
    reward_win: bool,
    max_cycles: int,
    action_features: bool | str,
) -> I64:
    """The ``cfg`` vector the kernels read: the rules' fields, the episode settings, and the
    observation and state offsets of :mod:`allfives_env.envs.blocks`.

    ``cfg[C_ACTION_FEATURES]`` is the index of ``action_features`` in
    :data:`~allfives_env.envs.blocks.FEATURE_SETS`: 0 none, 1 basic, 2 outlook, 3 lookahead.

    Raises:
        ValueError: for an unknown ``action_features``.
    """
    n, k, s = rules.num_players, rules.num_sides, rules.num_slots
    cfg = np.zeros(CFG_SIZE, np.int64)
    cfg[C_N] = n
    cfg[C_K] = k
    cfg[C_PARTNERS] = int(n == 4 and rules.partnerships)
    cfg[C_HAND_SIZE] = rules.hand_size
    cfg[C_BONE_LEN] = rules.boneyard_size
    cfg[C_LEADER] = LEADER_RULES.index(rules.leader)
    cfg[C_EVERY] = int(rules.spinners == "every")
    cfg[C_AT_ONCE] = int(rules.branches == "at_once")
    cfg[C_STOP] = rules.stop_tiles
    cfg[C_DWA] = int(rules.draw_when_able)
    cfg[C_UNIT] = rules.unit
    cfg[C_AWARD] = AWARD_RULES.index(rules.award)
    cfg[C_TARGET] = rules.target
    cfg[C_EXACT] = int(rules.exact_target)
    cfg[C_S] = s
    cfg[C_NUM_ACTIONS] = rules.num_tiles * s + 2
    cfg[C_EPISODE_HAND] = int(episode_hand)
    cfg[C_AUTO] = int(auto)
    cfg[C_REWARD_POINTS] = int(reward_points)
    cfg[C_REWARD_WIN] = int(reward_win)
    cfg[C_MAX_CYCLES] = max_cycles
    cfg[C_ACTION_FEATURES] = FEATURE_SETS.index(feature_set(action_features))
    obs = observation_blocks(n, k, s, action_features, rules.max_pip)
    sta = state_blocks(n, k, s, rules.max_pip)
    cfg[C_OBS_SIZE] = sum(b.size for b in obs)
    cfg[C_STATE_SIZE] = sum(b.size for b in sta)
    o, so = offsets(obs), offsets(sta)
    for i, name in enumerate(_OBS_NAMES):
        cfg[O_HAND + i] = o.get(name, -1)
    for i, name in enumerate(_STATE_NAMES):
        cfg[S_HANDS + i] = so[name]
    for seat in range(MAX_PLAYERS):
        cfg[C_SIDE_OF + seat] = rules.side_of(seat) if seat < n else 0
    for me in range(n):
        order: list[int] = []
        for r in range(n):
            side = rules.side_of((me + r) % n)
            if side not in order:
                order.append(side)
        for j, side in enumerate(order):
            cfg[C_REL_SIDES + 4 * me + j] = side
    cfg[C_NT] = rules.num_tiles
    cfg[C_VALUES] = rules.max_pip + 1
    cfg[C_SET_MASK] = rules.tile_mask
    cfg[C_INDEX_TILE : C_INDEX_TILE + NUM_TILES] = -1
    cfg[C_TILE_INDEX : C_TILE_INDEX + NUM_TILES] = -1
    for i, t in enumerate(rules.tiles):
        cfg[C_INDEX_TILE + i] = t
        cfg[C_TILE_INDEX + t] = i
    return cfg


# ---------------------------------------------------------------------- tables (core.tiles)
T_LOW = np.array(LOW, np.int64)
T_HIGH = np.array(HIGH, np.int64)
T_PIPS = np.array(PIPS, np.int64)
T_DOUBLE = np.array(IS_DOUBLE, np.int64)
T_OTHER = np.array(OTHER, np.int64)  # (28, 7): the other half, -1 if no half v
T_VALUES_MASK = np.array(VALUES_MASK, np.int64)  # (128,): tiles with a half in the value set
T_VALUE_BITS = np.array([(1 << LOW[t]) | (1 << HIGH[t]) for t in range(NUM_TILES)], np.int64)
#: greedy/lead order: a double first, then pips, then the high half (core.deal._tile_rank)
T_RANK = np.array([IS_DOUBLE[t] * 1000 + PIPS[t] * 10 + HIGH[t] for t in range(NUM_TILES)])
