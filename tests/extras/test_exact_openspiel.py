"""The exact solver agrees with OpenSpiel's own ``exploitability.nash_conv`` (its Python best
response, unchanged) on the tiny game, policy by policy, to 1e-9."""

from __future__ import annotations

import random
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python import policy as os_policy  # noqa: E402
from open_spiel.python.algorithms import exploitability  # noqa: E402

import allfives_openspiel  # noqa: E402, F401  (registers python_allfives)
from agents.exact.policy import ExactAgent, load_policy, policy_bytes  # noqa: E402
from agents.exact.solver import Solver, uniform  # noqa: E402
from agents.exact.tree import build_tree  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from allfives_env.core.rules import Rules  # noqa: E402

TINY = Rules.preset("pagat", 2, max_pip=2, hand_size=2)
GAME_STRING = "python_allfives(preset=pagat,players=2,max_pip=2,hand_size=2)"


class AgentPolicy(os_policy.Policy):  # type: ignore[misc]
    """An agent of the project as an OpenSpiel policy, through the state's engine view: its
    ``probabilities`` where it has them, else its one choice."""

    def __init__(self, game: Any, agent: Any):
        super().__init__(game, [0, 1])
        self.agent = agent

    def action_probabilities(self, state: Any, player_id: int | None = None) -> dict[int, float]:
        p = state.current_player()
        view = state.engine.view(p)
        to_env = state.encoding.to_env
        probs = getattr(self.agent, "probabilities", None)
        if probs is not None:
            return {to_env[int(a)]: float(x) for a, x in probs(view).items()}
        return {to_env[int(self.agent.act(view, random.Random(0)))]: 1.0}


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver(build_tree(TINY))


def test_the_games_agree_on_the_uniform_policy(solver: Solver) -> None:
    game = pyspiel.load_game(GAME_STRING)
    theirs = exploitability.nash_conv(game, os_policy.UniformRandomPolicy(game))
    assert solver.nash_conv(uniform(solver.tree)) == pytest.approx(theirs, abs=1e-9)


@pytest.mark.parametrize("spec", ["greedy", "heuristic", "random"])
def test_the_solver_agrees_with_openspiel_on_agents(solver: Solver, spec: str) -> None:
    from agents.exact.policy import policy_of_agent

    game = pyspiel.load_game(GAME_STRING)
    agent = make_agent(spec)
    theirs = exploitability.nash_conv(game, AgentPolicy(game, agent))
    mine = solver.nash_conv(policy_of_agent(solver.tree, agent))
    assert mine == pytest.approx(theirs, abs=1e-9)


def test_the_solved_policy_agrees_with_openspiel(solver: Solver, tmp_path: Any) -> None:
    policy, curve = solver.cfr_plus(30)
    path = tmp_path / "p.npz"
    path.write_bytes(policy_bytes(solver.tree, policy, {}))
    agent = ExactAgent(load_policy(path))
    game = pyspiel.load_game(GAME_STRING)
    theirs = exploitability.nash_conv(game, AgentPolicy(game, agent))
    assert curve[-1].nash_conv == pytest.approx(theirs, abs=1e-9)


def test_openspiel_policies_read_into_the_tree(solver: Solver) -> None:
    """OpenSpiel's own CFR+ and outcome-sampling MCCFR, unchanged: their average policies,
    read into the tree, have the NashConv OpenSpiel's nash_conv gives them."""
    import numpy as np
    from open_spiel.python.algorithms import cfr, outcome_sampling_mccfr

    from allfives_openspiel.exact import PolicyReader

    reader = PolicyReader(solver.tree)
    game = reader.game
    assert np.allclose(reader.read(os_policy.UniformRandomPolicy(game)), uniform(solver.tree))
    plus = cfr.CFRPlusSolver(game)
    for _ in range(2):
        plus.evaluate_and_update_policy()
    np.random.seed(0)
    sampled = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    for _ in range(100):
        sampled.iteration()
    for algo in (plus, sampled):
        average = algo.average_policy()
        theirs = exploitability.nash_conv(game, average)
        assert solver.nash_conv(reader.read(average)) == pytest.approx(theirs, abs=1e-9)


def test_nfsp_trains_on_the_tiny_game_and_is_measured_exactly(
    solver: Solver, tmp_path: Any
) -> None:
    """OpenSpiel's NFSP (through the project's trainer) on the tiny game: its average policy,
    read through its probabilities, has the NashConv OpenSpiel's nash_conv gives it."""
    import subprocess
    import sys

    from agents.exact.policy import policy_of_agent
    from allfives_openspiel.nfsp_policy import load_nfsp_agent

    out = tmp_path / "nfsp"
    args = ["--preset", "pagat", "--max_pip", "2", "--hand_size", "2", "--episode", "hand"]
    done = subprocess.run(
        [sys.executable, "-m", "allfives_openspiel.train", *args, "--env_steps", "3000",
         "--batch_size", "32", "--out", str(out), "--no-progress"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    agent = load_nfsp_agent(out)
    agent.check_rules(TINY)
    game = pyspiel.load_game(GAME_STRING)
    theirs = exploitability.nash_conv(game, AgentPolicy(game, agent))
    assert solver.nash_conv(policy_of_agent(solver.tree, agent)) == pytest.approx(theirs, abs=1e-9)
    bad = subprocess.run(
        [sys.executable, "-m", "allfives_openspiel.train", "--max_pip", "3", "--out",
         str(tmp_path / "x"), "--no-progress"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1, bad.stderr
    assert "'hand_size' must be an int from 1 to 5" in bad.stderr
