"""One environment step of every game: the action, forced actions, rewards, the next hand and
the episode's end (mirrors :meth:`allfives_env.envs.aec.raw_env.step`, ``_auto_play`` and
``_reward`` with :mod:`allfives_env.envs.rewards`)."""

from __future__ import annotations

import numpy as np

from allfives_env.vector._jit import batch_kernel, kernel, prange
from allfives_env.vector.kernels import turns
from allfives_env.vector.kernels.deal import deal_hand, new_episode
from allfives_env.vector.kernels.legal import is_legal
from allfives_env.vector.state import (
    BONE,
    C_AUTO,
    C_BONE_LEN,
    C_EPISODE_HAND,
    C_INDEX_TILE,
    C_K,
    C_MAX_CYCLES,
    C_N,
    C_NUM_ACTIONS,
    C_REWARD_POINTS,
    C_REWARD_WIN,
    C_S,
    C_SIDE_OF,
    C_TARGET,
    CUR,
    DEAL_HANDS,
    DRAWN,
    F32,
    F64,
    HAND_END,
    HAND_OVER,
    HAND_WINNER,
    I8,
    I16,
    I32,
    I64,
    LEADER,
    LOG_LEN,
    MATCH_OVER,
    P_BONE,
    P_BONE_LEN,
    P_DEAL_HANDS,
    P_LEADER,
    P_LOG_LEN,
    PHASE,
    ROLLED,
    STATUS,
    STEPS,
    TERMINATED,
    TRUNCATED,
    U64,
    WINNERS,
)


@kernel
def _rewards(
    r: I32, cfg: I64, scores: F64, hand_start: F64, gains: F64, scored: bool, out: F32
) -> None:
    """Write each seat's reward for this step into ``out`` from ``gains`` (points per side this
    step, the hand award included) (``raw_env._reward`` with ``points_rewards`` and
    ``win_rewards``); ``gains`` is overwritten with the rewards per side."""
    n = cfg[C_N]
    k = cfg[C_K]
    ended = r[PHASE] >= HAND_OVER
    if not ended and not scored:
        for seat in range(n):
            out[seat] = 0.0
        return
    nonzero = False
    for i in range(k):
        if gains[i] != 0:
            nonzero = True
    if cfg[C_REWARD_POINTS] and nonzero:  # own gain minus the mean of the others', / target
        total = 0.0
        for i in range(k):
            total += gains[i]
        for i in range(k):
            g = gains[i]
            gains[i] = (g - (total - g) / (k - 1)) / cfg[C_TARGET]
    else:
        for i in range(k):
            gains[i] = 0.0
    if cfg[C_REWARD_WIN]:
        winners = 0
        if r[PHASE] == MATCH_OVER:
            winners = r[WINNERS]
        elif ended and cfg[C_EPISODE_HAND]:  # the hand's best gain wins the episode
            best = -np.inf
            for i in range(k):
                best = max(best, scores[i] - hand_start[i])
            for i in range(k):
                if scores[i] - hand_start[i] == best:
                    winners |= 1 << i
        if winners:
            w = 0
            for i in range(k):
                w += winners >> i & 1
            for i in range(k):
                share = k / w if winners >> i & 1 else 0.0
                gains[i] += (share - 1.0) / (k - 1)
    for seat in range(n):
        out[seat] = np.float32(gains[cfg[C_SIDE_OF + seat]])


@kernel
def _keep_previous(r: I32, cfg: I64, log: I16, prev: I32, prev_log: I16) -> None:
    """Copy the hand that just ended (deal and actions) to ``prev``, before the next deal."""
    for j in range(4):
        prev[P_DEAL_HANDS + j] = r[DEAL_HANDS + j]
    for j in range(28):
        prev[P_BONE + j] = r[BONE + j]
    prev[P_LEADER] = r[LEADER]
    prev[P_LOG_LEN] = r[LOG_LEN]
    prev[P_BONE_LEN] = cfg[C_BONE_LEN]
    for j in range(r[LOG_LEN]):
        prev_log[j] = log[j]


@kernel
def step_game(
    r: I32,
    cfg: I64,
    scores: F64,
    hand_start: F64,
    award: F64,
    gains: F64,
    rng: U64,
    log: I16,
    prev: I32,
    prev_log: I16,
    action: int,
    rewards: F32,
) -> None:
    """Apply env ``action`` (legal) for the acting seat, then what ``raw_env.step`` does after
    it: forced draws and passes under ``auto``, the rewards, the next hand's deal in a match
    episode (from the game's generator ``rng[0]``), termination, and truncation at
    ``max_cycles`` steps."""
    r[HAND_END] = 0
    r[HAND_WINNER] = -1
    r[ROLLED] = 0
    for j in range(4):
        gains[j] = 0.0
    p = r[CUR]
    s_count = cfg[C_S]
    draw_id = cfg[C_NUM_ACTIONS] - 2
    pts = 0.0
    if action < draw_id:
        t = cfg[C_INDEX_TILE + action // s_count]
        pts = turns.place(r, cfg, scores, award, log, t, action % s_count)
    elif action == draw_id:
        turns.draw(r, cfg, scores, award, log)
    else:
        turns.pass_(r, cfg, log)
    if pts != 0:
        gains[cfg[C_SIDE_OF + p]] += pts
    if cfg[C_AUTO]:  # forced = DRAW or PASS alone (raw_env._auto_play)
        while r[PHASE] <= DRAWN and turns.is_forced(r):
            if turns.can_draw(r, cfg):
                turns.draw(r, cfg, scores, award, log)
            else:
                turns.pass_(r, cfg, log)
    r[STEPS] += 1
    ended = r[PHASE] >= HAND_OVER
    if ended:
        for j in range(cfg[C_K]):
            gains[j] += award[j]
    _rewards(r, cfg, scores, hand_start, gains, pts != 0, rewards)
    over = False
    if ended:
        if r[PHASE] == MATCH_OVER or cfg[C_EPISODE_HAND]:
            over = True
            r[STATUS] = TERMINATED
        else:  # a lead is never forced, so the new hand needs no auto play
            _keep_previous(r, cfg, log, prev, prev_log)
            deal_hand(r, cfg, rng)
            for j in range(4):
                hand_start[j] = scores[j]
            r[ROLLED] = 1
    if not over and cfg[C_MAX_CYCLES] > 0 and r[STEPS] == cfg[C_MAX_CYCLES]:
        r[STATUS] = TRUNCATED


@batch_kernel
def step_batch(
    st: I32,
    cfg: I64,
    scores: F64,
    hand_start: F64,
    award: F64,
    gains: F64,
    rng: U64,
    log: I16,
    prev: I32,
    prev_log: I16,
    actions: I64,
    rewards: F32,
    bad: I8,
) -> int:
    """Step every game ``i`` with ``actions[i]`` (-1: leave it as it is), or none at all.

    First every action is checked: ``bad[i]`` = 1 if ``actions[i]`` is not in game ``i``'s
    mask, 2 if the game is done and the action is not -1, else 0. If any is bad, nothing is
    changed and the first bad index is returned; else every game is stepped
    (:func:`step_game`; a skipped game gets zero rewards and no "last step" news) and -1 is
    returned.
    """
    n = st.shape[0]
    for i in prange(n):
        a = actions[i]
        if a == -1:
            bad[i] = 0
        elif st[i, STATUS] != 0:
            bad[i] = 2
        elif is_legal(st[i], cfg, a):
            bad[i] = 0
        else:
            bad[i] = 1
    for i in range(n):
        if bad[i]:
            return i
    for i in prange(n):
        if actions[i] == -1:
            for j in range(rewards.shape[1]):
                rewards[i, j] = 0.0
            st[i, HAND_END] = 0
            st[i, HAND_WINNER] = -1
            st[i, ROLLED] = 0
        else:
            step_game(
                st[i], cfg, scores[i], hand_start[i], award[i], gains[i], rng[i : i + 1],
                log[i], prev[i], prev_log[i], actions[i], rewards[i],
            )  # fmt: skip
    return -1


@batch_kernel
def reset_batch(
    st: I32,
    cfg: I64,
    scores: F64,
    hand_start: F64,
    award: F64,
    rng: U64,
    indices: I64,
) -> None:
    """Start a new episode in each game of ``indices`` (``raw_env.reset``)."""
    for j in prange(indices.shape[0]):
        i = indices[j]
        new_episode(st[i], cfg, scores[i], hand_start[i], award[i], rng[i : i + 1])
