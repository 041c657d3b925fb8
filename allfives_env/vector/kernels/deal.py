"""Deals on one game's row: shuffle, hands, boneyard and leader (mirrors
:func:`allfives_env.core.deal.random_deal`, :func:`~allfives_env.core.deal.leader_choice` and
``Game.deal``), and the start of a new episode."""

from __future__ import annotations

from allfives_env.vector._jit import kernel
from allfives_env.vector.kernels import layout
from allfives_env.vector.rng import below
from allfives_env.vector.state import (
    BONE,
    BPOS,
    BY_LOT,
    C_BONE_LEN,
    C_HAND_SIZE,
    C_INDEX_TILE,
    C_LEADER,
    C_N,
    C_NT,
    C_PARTNERS,
    CUR,
    DEAL_HANDS,
    DRAWN_TILE,
    F64,
    FORCED_LEAD,
    HAND_END,
    HAND_NO,
    HAND_WINNER,
    HANDS,
    I32,
    I64,
    LEAD,
    LEADER,
    LEADER_HIGHEST_DOUBLE,
    LEADER_LAST_WINNER,
    LOG_LEN,
    PHASE,
    PIPS_COL,
    PLAYED,
    PREV_DOMINO,
    PREV_WINNER,
    ROLLED,
    SIZES,
    STATUS,
    STEPS,
    T_PIPS,
    T_RANK,
    TURN_DRAWS,
    U64,
    VOID_PENDING,
    VOIDS,
    WINNERS,
)


@kernel
def deal_hand(r: I32, cfg: I64, rng: U64) -> None:
    """Deal the next hand from the game's generator ``rng[0]`` (``Game.deal`` with
    ``random_deal``): shuffle the set's T tiles from id order (Fisher–Yates, as
    ``random.shuffle``), give seat ``s`` the tiles ``s·k … s·k + k − 1``, the rest to the
    boneyard in order; then the leader (``leader_choice``; by lot from the same generator where
    the rules say so)."""
    n = cfg[C_N]
    k = cfg[C_HAND_SIZE]
    nt = cfg[C_NT]
    for i in range(nt):
        r[BONE + i] = cfg[C_INDEX_TILE + i]
    for j in range(nt - 1, 0, -1):
        x = below(rng, j + 1)
        tmp = r[BONE + j]
        r[BONE + j] = r[BONE + x]
        r[BONE + x] = tmp
    for seat in range(4):
        r[HANDS + seat] = 0
        r[PIPS_COL + seat] = 0
        r[SIZES + seat] = 0
        r[PLAYED + seat] = 0
        r[VOIDS + seat] = 0
    for seat in range(n):
        m = 0
        pips = 0
        for j in range(seat * k, seat * k + k):
            t = r[BONE + j]
            m |= 1 << t
            pips += T_PIPS[t]
        r[HANDS + seat] = m
        r[DEAL_HANDS + seat] = m
        r[PIPS_COL + seat] = pips
        r[SIZES + seat] = k
    for seat in range(n, 4):
        r[DEAL_HANDS + seat] = 0
    nb = cfg[C_BONE_LEN]
    for j in range(nb):
        r[BONE + j] = r[BONE + n * k + j]
    for j in range(nb, 28):
        r[BONE + j] = -1
    first = r[HAND_NO] == 0
    forced = -1
    by_lot = 0
    rule = cfg[C_LEADER]
    if rule == LEADER_HIGHEST_DOUBLE:  # a double first, then pips, then the high half
        best = -1
        leader = 0
        for seat in range(n):
            h = r[HANDS + seat]
            for t in range(28):
                if h >> t & 1 and (best < 0 or T_RANK[t] > T_RANK[best]):
                    best = t
                    leader = seat
        forced = best
    elif first or (r[PREV_DOMINO] < 0 and (rule != LEADER_LAST_WINNER or r[PREV_WINNER] < 0)):
        leader = below(rng, n)  # lot: rng.randrange(len(seats))
        by_lot = 1
    elif r[PREV_DOMINO] >= 0:
        leader = r[PREV_DOMINO]
    elif cfg[C_PARTNERS]:  # last_winner: a partnership's seats, by lot
        leader = r[PREV_WINNER] + 2 * below(rng, n // 2)  # seats (w, w + 2)
        by_lot = 1
    else:
        leader = r[PREV_WINNER]
    layout.clear(r)
    r[HAND_NO] += 1
    r[LEADER] = leader
    r[BY_LOT] = by_lot
    r[CUR] = leader
    r[PHASE] = LEAD
    r[DRAWN_TILE] = -1
    r[TURN_DRAWS] = 0
    r[VOID_PENDING] = 0
    r[FORCED_LEAD] = forced
    r[BPOS] = 0
    r[LOG_LEN] = 0


@kernel
def new_episode(r: I32, cfg: I64, scores: F64, hand_start: F64, award: F64, rng: U64) -> None:
    """Start a new episode: scores 0 and the first hand dealt from the game's generator
    ``rng[0]`` (``raw_env.reset``)."""
    for j in range(4):
        scores[j] = 0.0
        hand_start[j] = 0.0
        award[j] = 0.0
    r[HAND_NO] = 0
    r[PREV_DOMINO] = -1
    r[PREV_WINNER] = -1
    r[WINNERS] = 0
    r[STATUS] = 0
    r[STEPS] = 0
    r[HAND_END] = 0
    r[HAND_WINNER] = -1
    r[ROLLED] = 0
    deal_hand(r, cfg, rng)
