"""The solver's passes over a :class:`~agents.exact.tree.Tree`, compiled (numba): reach
probabilities, expected values, the best response, and one CFR+ update.

Every kernel takes the tree's arrays and writes into arrays the caller allocates (none
allocates). A policy is a flat array aligned with ``tree.actions``: the probability of each
legal action of each information state. Values are player 0's utility unless a ``sign`` turns
them into player 1's (``sign = -1``). Nodes are numbered parents first, children contiguous
(:mod:`agents.exact.tree`), so a forward loop is top-down and a backward loop bottom-up.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from allfives_env.vector._jit import kernel

CHANCE = -1
TERMINAL = 9

I8 = npt.NDArray[np.int8]
I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]


@kernel
def reach(
    kind: I8,
    parent: I64,
    prob: F64,
    slot: I32,
    infoset: I64,
    offset: I64,
    policy: F64,
    chance: bool,
    player0: bool,
    player1: bool,
    out: F64,
) -> None:
    """``out[i]``: the product, along the path to node ``i``, of the chance probabilities
    (if ``chance``) and of the policy's probabilities of player 0's and player 1's actions
    (if ``player0``, ``player1``)."""
    out[0] = 1.0
    for i in range(1, len(kind)):
        p = parent[i]
        k = kind[p]
        if k == CHANCE:
            out[i] = out[p] * prob[i] if chance else out[p]
        elif (k == 0 and player0) or (k == 1 and player1):
            out[i] = out[p] * policy[offset[infoset[p]] + slot[i]]
        else:
            out[i] = out[p]


@kernel
def below(
    i: int,
    kind: I8,
    first: I64,
    count: I32,
    prob: F64,
    infoset: I64,
    offset: I64,
    utility: F64,
    policy: F64,
    sign: float,
    out: F64,
) -> float:
    """Node ``i``'s value from its children's in ``out``: ``sign`` × its utility at a terminal,
    else its children's values weighted by the chance probabilities or by ``policy``."""
    k = kind[i]
    if k == TERMINAL:
        return float(sign * utility[i])
    c0 = first[i]
    s = 0.0
    if k == CHANCE:
        for j in range(count[i]):
            s += prob[c0 + j] * out[c0 + j]
    else:
        base = offset[infoset[i]]
        for j in range(count[i]):
            s += policy[base + j] * out[c0 + j]
    return s


@kernel
def values(
    kind: I8,
    first: I64,
    count: I32,
    prob: F64,
    infoset: I64,
    offset: I64,
    utility: F64,
    policy: F64,
    out: F64,
) -> None:
    """``out[i]``: player 0's expected utility below node ``i`` when both play ``policy``
    (:func:`below` for every node, written out: CFR+ runs this pass twice an iteration, and
    numba does not inline the call)."""
    for i in range(len(kind) - 1, -1, -1):
        k = kind[i]
        if k == TERMINAL:
            out[i] = utility[i]
            continue
        c0 = first[i]
        s = 0.0
        if k == CHANCE:
            for j in range(count[i]):
                s += prob[c0 + j] * out[c0 + j]
        else:
            base = offset[infoset[i]]
            for j in range(count[i]):
                s += policy[base + j] * out[c0 + j]
        out[i] = s


@kernel
def levels(kind: I8, parent: I64, player: int, out: I32) -> None:
    """``out[i]``: how many of ``player``'s decisions lie on the path above node ``i``."""
    out[0] = 0
    for i in range(1, len(kind)):
        p = parent[i]
        out[i] = out[p] + (1 if kind[p] == player else 0)


@kernel
def best_response(
    kind: I8,
    first: I64,
    count: I32,
    prob: F64,
    infoset: I64,
    offset: I64,
    width: I32,
    utility: F64,
    policy: F64,
    player: int,
    order: I64,
    level_end: I64,
    reach_other: F64,
    q: F64,
    best: I32,
    out: F64,
) -> None:
    """The best response of ``player`` to the other's ``policy``: ``out[i]`` its value below
    node ``i`` (in ``player``'s utility) and ``best[I]`` its action index in each of its
    information states (reached or not).

    ``order`` lists the nodes level by level (:func:`levels`), deepest first; within a level
    ``player``'s nodes first, then the rest in descending id; ``level_end[L]`` is where level
    ``L``'s run in ``order`` ends, from the deepest level down. ``reach_other`` is the
    chance-and-opponent reach of each node; ``q`` (zeroed by the caller, aligned with the
    actions) collects each information state's counterfactual action values. With perfect
    recall an information state's nodes share one level, and every node below a node of
    ``player`` lies a level deeper, so each level's choices are made on finished values.
    """
    sign = 1.0 if player == 0 else -1.0
    start = 0
    for end in level_end:
        # 1: the player's nodes of this level: collect action values per information state
        mine_end = start
        while mine_end < end and kind[order[mine_end]] == player:
            i = order[mine_end]
            base = offset[infoset[i]]
            c0 = first[i]
            r = reach_other[i]
            for j in range(count[i]):
                q[base + j] += r * out[c0 + j]
            mine_end += 1
        # 2: choose, and take the chosen child's value
        for n in range(start, mine_end):
            i = order[n]
            s = infoset[i]
            base = offset[s]
            b = 0
            for j in range(1, width[s]):
                if q[base + j] > q[base + b]:
                    b = j
            best[s] = b
            out[i] = out[first[i] + b]
        # 3: the rest of the level, bottom-up
        for n in range(mine_end, end):
            i = order[n]
            out[i] = below(i, kind, first, count, prob, infoset, offset, utility, policy, sign, out)
        start = end


@kernel
def regret_matching(regret: F64, offset: I64, width: I32, player: I8, who: int, out: F64) -> None:
    """``out``: for each information state of player ``who``, its positive regrets
    normalised (uniform when none is positive); other states are left as they are."""
    for s in range(len(offset)):
        if player[s] != who:
            continue
        base = offset[s]
        total = 0.0
        for j in range(width[s]):
            if regret[base + j] > 0.0:
                total += regret[base + j]
        for j in range(width[s]):
            if total > 0.0:
                out[base + j] = max(regret[base + j], 0.0) / total
            else:
                out[base + j] = 1.0 / width[s]


@kernel
def cfr_plus_update(
    kind: I8,
    first: I64,
    count: I32,
    infoset: I64,
    offset: I64,
    width: I32,
    player_of: I8,
    who: int,
    weight: float,
    policy: F64,
    value: F64,
    reach_other: F64,
    reach_own: F64,
    own_reach: F64,
    regret: F64,
    average: F64,
) -> None:
    """One CFR+ update of player ``who``: with ``value`` the node values (player 0's utility)
    and the reaches under ``policy``, add each action's counterfactual regret, floor the
    regrets at zero, and add ``weight`` × its own reach × ``policy`` to the average
    strategy's numerators. ``own_reach`` is scratch, one entry per information state."""
    sign = 1.0 if who == 0 else -1.0
    for i in range(len(kind)):
        if kind[i] != who:
            continue
        s = infoset[i]
        base = offset[s]
        c0 = first[i]
        r = reach_other[i]
        v = sign * value[i]
        for j in range(count[i]):
            regret[base + j] += r * (sign * value[c0 + j] - v)
        own_reach[s] = reach_own[i]
    for s in range(len(offset)):
        if player_of[s] != who:
            continue
        base = offset[s]
        w = weight * own_reach[s]
        for j in range(width[s]):
            if regret[base + j] < 0.0:
                regret[base + j] = 0.0
            average[base + j] += w * policy[base + j]
