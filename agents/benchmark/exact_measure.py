"""Exact NashConv of a sweep's policies on an exact setting (the small track).

On a setting small enough for the exact solver (:attr:`Setting.exact
<agents.benchmark.protocol.Setting.exact>`), a policy is measured without a proxy: its NashConv
in one hand of two players, the sum of both best responses' gains against it
(:meth:`agents.exact.solver.Solver.nash_conv`), read at every information state of the whole
tree. A policy is read as it plays (:func:`agents.exact.policy.measured_agent`: a checkpoint's
most likely action, an NFSP average policy's probabilities); a checkpoint that samples in
training (``train.py``'s) is read as it samples too.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from allfives_env.core.rules import Rules

if TYPE_CHECKING:
    from agents.exact.solver import Solver


@functools.cache
def solver_for(rules: Rules) -> Solver:
    """The solver of ``rules``' whole tree, built once per process.

    Raises:
        RulesError: for rules the solver does not take (more than two players, a tree too
            large for memory).
    """
    from agents.exact.solver import Solver
    from agents.exact.tree import build_tree

    return Solver(build_tree(rules))


def exact_numbers(spec: str, rules: Rules) -> dict[str, Any]:
    """``spec``'s exact NashConv on ``rules`` as it plays (``nash_conv``, and as a share of the
    utility's range, ``nash_conv_of_range``), and, for a checkpoint that can sample, as it
    samples (``nash_conv_sampled``).

    Raises:
        AgentError: for an agent the registry refuses, or whose policy cannot be read exactly
            (it chooses at random without giving probabilities).
    """
    from agents.exact.policy import measured_agent, policy_of_agent

    solver = solver_for(rules)
    tree = solver.tree
    span = float(tree.utility_range)
    played = float(solver.nash_conv(policy_of_agent(tree, measured_agent(spec, rules))))
    out: dict[str, Any] = {"nash_conv": played, "nash_conv_of_range": played / span}
    sampling = measured_agent(spec, rules, sample=True)
    if getattr(sampling, "sample", False):
        value = float(solver.nash_conv(policy_of_agent(tree, sampling)))
        out["nash_conv_sampled"] = value
    out["utility_range"] = span
    return out
