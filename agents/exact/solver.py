"""Exact values on a small game's whole tree: a policy's expected utility, each player's best
response to it, its NashConv, and CFR+ to solve the game.

A *policy* is a flat ``float64`` array aligned with ``tree.actions`` (each information state's
legal actions, in order), each state's entries summing to 1 (:func:`uniform`,
:func:`agents.exact.policy.policy_of_agent`). All values are exact up to floating point: sums
over every history, weighted by the chance probabilities, never sampled.

**NashConv** (OpenSpiel's ``exploitability.nash_conv``): the sum over the two players of what a
best response to the other's policy gains over the policy itself. In a two-player zero-sum game
the policy's own values cancel, so it is ``br(0) + br(1)``; 0 exactly at an equilibrium.
*Exploitability* is half of it.

**CFR+** (Tammelin 2014; Bowling et al. 2015): regret matching+ with alternating updates
(player 0, then player 1 on player 0's new strategy), regrets floored at zero after each
update, and the average strategy weighted by the iteration number (linear averaging).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from agents.exact import kernels
from agents.exact.tree import Tree, check_rules

F64 = npt.NDArray[np.float64]


def uniform(tree: Tree) -> F64:
    """The policy that plays every legal action equally often."""
    return np.repeat(1.0 / tree.width, tree.width).astype(np.float64)


def check_policy(tree: Tree, policy: F64) -> None:
    """Refuse an array that is not a policy of ``tree``.

    Raises:
        ValueError: for a wrong length, a negative or non-finite entry, or an information
            state whose probabilities do not sum to 1 (within 1e-6).
    """
    if policy.shape != tree.actions.shape:
        raise ValueError(
            f"a policy of this tree has {len(tree.actions)} entries, not {policy.shape}"
        )
    if not np.all(np.isfinite(policy)) or np.any(policy < 0):
        raise ValueError("a policy's probabilities must be finite and non-negative")
    sums = np.add.reduceat(policy, tree.offset) if len(tree.offset) else np.zeros(0)
    bad = np.flatnonzero(np.abs(sums - 1.0) > 1e-6)
    if len(bad):
        raise ValueError(f"information state {int(bad[0])}'s probabilities sum to {sums[bad[0]]}")


@dataclass
class CfrProgress:
    """One point of a CFR+ run."""

    iteration: int
    seconds: float
    """Time spent iterating so far (not measuring)."""
    nash_conv: float


class Solver:
    """The exact computations on one tree (see the module docstring)."""

    def __init__(self, tree: Tree):
        """Raises:
        RulesError: for a tree of more than two players (:func:`check_rules`)."""
        check_rules(tree.rules)
        self.tree = tree
        n = tree.num_nodes
        self._reach = np.empty(n, np.float64)
        self._reach2 = np.empty(n, np.float64)
        self._value = np.empty(n, np.float64)
        self._orders: dict[int, tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]] = {}

    def _order(self, player: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """:func:`kernels.best_response`'s node order and level ends for ``player``."""
        if player not in self._orders:
            t = self.tree
            lev = np.empty(t.num_nodes, np.int32)
            kernels.levels(t.kind, t.parent, player, lev)
            ids = np.arange(t.num_nodes, dtype=np.int64)
            order = np.lexsort((-ids, t.kind != player, -lev.astype(np.int64)))
            counts = np.bincount(lev)[::-1]
            self._orders[player] = (order.astype(np.int64), np.cumsum(counts).astype(np.int64))
        return self._orders[player]

    def value(self, policy: F64) -> float:
        """Player 0's expected utility when both players play ``policy``."""
        t = self.tree
        kernels.values(
            t.kind, t.first, t.count, t.prob, t.infoset, t.offset, t.utility, policy, self._value
        )
        return float(self._value[0])

    def best_response(self, policy: F64, player: int) -> tuple[float, npt.NDArray[np.int32]]:
        """The value (in ``player``'s utility) of ``player``'s best response to the other
        player's part of ``policy``, and its action index in each information state."""
        t = self.tree
        kernels.reach(
            t.kind, t.parent, t.prob, t.slot, t.infoset, t.offset, policy,
            True, player != 0, player != 1, self._reach,
        )  # fmt: skip
        order, level_end = self._order(player)
        q = np.zeros(len(t.actions), np.float64)
        best = np.zeros(t.num_infosets, np.int32)
        kernels.best_response(
            t.kind, t.first, t.count, t.prob, t.infoset, t.offset, t.width, t.utility, policy,
            player, order, level_end, self._reach, q, best, self._value,
        )  # fmt: skip
        return float(self._value[0]), best

    def nash_conv(self, policy: F64) -> float:
        """``policy``'s NashConv: the two best responses' gains (see the module docstring)."""
        return self.best_response(policy, 0)[0] + self.best_response(policy, 1)[0]

    def cfr_plus(
        self,
        iterations: int,
        measure_every: int = 0,
        on_progress: Callable[[CfrProgress], None] | None = None,
        stop_below: float = 0.0,
    ) -> tuple[F64, list[CfrProgress]]:
        """Run CFR+ for ``iterations`` iterations; return the average policy and the curve.

        Every ``measure_every`` iterations (and after the last) the average policy's NashConv
        is measured (its time is not counted in ``seconds``) and passed to ``on_progress``;
        the run stops early once it is below ``stop_below``.
        """
        t = self.tree
        m = len(t.actions)
        regret = np.zeros(m, np.float64)
        average = np.zeros(m, np.float64)
        policy = uniform(t)
        own = np.zeros(t.num_infosets, np.float64)
        curve: list[CfrProgress] = []
        spent = 0.0
        for it in range(1, iterations + 1):
            start = time.perf_counter()
            for who in (0, 1):
                kernels.regret_matching(regret, t.offset, t.width, t.player, who, policy)
                kernels.reach(
                    t.kind, t.parent, t.prob, t.slot, t.infoset, t.offset, policy,
                    True, who != 0, who != 1, self._reach,
                )  # fmt: skip
                kernels.reach(
                    t.kind, t.parent, t.prob, t.slot, t.infoset, t.offset, policy,
                    False, who == 0, who == 1, self._reach2,
                )  # fmt: skip
                kernels.values(
                    t.kind, t.first, t.count, t.prob, t.infoset, t.offset, t.utility, policy,
                    self._value,
                )  # fmt: skip
                kernels.cfr_plus_update(
                    t.kind, t.first, t.count, t.infoset, t.offset, t.width, t.player, who,
                    float(it), policy, self._value, self._reach, self._reach2, own, regret,
                    average,
                )  # fmt: skip
            spent += time.perf_counter() - start
            last = it == iterations
            if (measure_every and it % measure_every == 0) or last:
                point = CfrProgress(it, spent, self.nash_conv(normalise(t, average)))
                curve.append(point)
                if on_progress is not None:
                    on_progress(point)
                if point.nash_conv < stop_below:
                    break
        return normalise(t, average), curve


def normalise(tree: Tree, weights: F64) -> F64:
    """A policy from non-negative per-action weights: each information state's weights over
    their sum, uniform where they sum to 0 (a state the policy never reaches)."""
    sums = np.add.reduceat(weights, tree.offset) if len(tree.offset) else np.zeros(0)
    per = np.repeat(sums, tree.width)
    out: F64 = np.where(
        per > 0, weights / np.where(per > 0, per, 1.0), np.repeat(1.0 / tree.width, tree.width)
    )
    return out
