"""The exact solver on small sets: the tree is the core game's, its information states are the
views' keys, best responses and NashConv are exact, CFR+ converges, and a solved policy plays
as an agent from its file. (OpenSpiel's own nash_conv is compared in
tests/extras/test_exact_openspiel.py.)"""

from __future__ import annotations

import itertools
import json
import random
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import fake_checkpoint

from agents.errors import AgentError
from agents.exact.infoset import infoset_key
from agents.exact.policy import (
    ExactAgent,
    PolicyFileError,
    game_at,
    homes,
    load_policy,
    policy_bytes,
    policy_of_agent,
    views,
)
from agents.exact.solver import Solver, check_policy, normalise, uniform
from agents.exact.tree import (
    CHANCE,
    TERMINAL,
    Tree,
    TreeTooLargeError,
    build_tree,
    count_deals,
    deals,
    estimate_nodes,
)
from agents.registry import make_agent
from allfives_env.core.errors import RulesError
from allfives_env.core.rules import Rules

TINY = Rules.preset("pagat", 2, max_pip=2, hand_size=2)
"""3,943 histories, 624 information states a player: a draw, a lot for the leader."""


@pytest.fixture(scope="module")
def tiny() -> Tree:
    return build_tree(TINY)


def test_the_tree_is_the_core_games(tiny: Tree) -> None:
    """Every decision node replays to a position whose view has the node's key and legal
    actions; every terminal's utility is the replayed hand's half difference of scores."""
    all_deals = deals(TINY)
    assert abs(sum(p for _d, p in all_deals) - 1) < 1e-12
    for node in range(1, tiny.num_nodes):
        kind = int(tiny.kind[node])
        if kind == CHANCE and tiny.parent[node] != 0 and tiny.kind[tiny.parent[node]] != CHANCE:
            continue  # a draw's chance node: its position is its parent's
        game = game_at(tiny, node, all_deals)
        if kind == TERMINAL:
            assert game.is_hand_over
            assert tiny.utility[node] == (game.scores[0] - game.scores[1]) / 2
        elif kind in (0, 1):
            s = int(tiny.infoset[node])
            assert game.current_player == kind == tiny.player[s]
            assert infoset_key(game.view(kind)) == tiny.keys[s]
            legal = [int(a) for a in game.legal_actions()]
            base, width = int(tiny.offset[s]), int(tiny.width[s])
            assert legal == tiny.actions[base : base + width].tolist()
    # chance probabilities sum to 1 at every chance node
    for node in np.flatnonzero(tiny.kind == CHANCE):
        a, n = int(tiny.first[node]), int(tiny.count[node])
        assert abs(tiny.prob[a : a + n].sum() - 1) < 1e-12


def test_the_views_of_the_states_are_their_keys(tiny: Tree) -> None:
    assert [infoset_key(v) for v in views(tiny)] == tiny.keys


def test_a_key_never_depends_on_hidden_tiles() -> None:
    """Two deals that differ only in the opponent's hand and the boneyard give seat 0 the same
    key at the start, and different keys for different own hands."""
    from allfives_env.core.deal import Deal
    from allfives_env.core.game import Game

    a = Game(TINY, deal=Deal.of([["0-0", "1-2"], ["0-1", "2-2"]], ["0-2", "1-1"], leader=1))
    b = Game(TINY, deal=Deal.of([["0-0", "1-2"], ["0-2", "1-1"]], ["2-2", "0-1"], leader=1))
    assert infoset_key(a.view(0)) == infoset_key(b.view(0))
    assert infoset_key(a.view(1)) != infoset_key(b.view(1))


def test_exact_values_of_the_uniform_policy(tiny: Tree) -> None:
    solver = Solver(tiny)
    policy = uniform(tiny)
    check_policy(tiny, policy)
    assert abs(solver.value(policy)) < 1e-12  # the lot makes the seats symmetric
    br0, _ = solver.best_response(policy, 0)
    br1, _ = solver.best_response(policy, 1)
    assert br0 > 0 and br1 > 0
    assert solver.nash_conv(policy) == pytest.approx(br0 + br1)
    assert solver.nash_conv(policy) == pytest.approx(0.875, abs=1e-12)


def test_a_best_response_is_best(tiny: Tree) -> None:
    """The best response, played as a pure policy against the uniform one, earns exactly its
    value; no random pure policy earns more."""
    solver = Solver(tiny)
    policy = uniform(tiny)
    value, best = solver.best_response(policy, 0)
    mine = policy.copy()
    rng = np.random.default_rng(0)
    for s in np.flatnonzero(tiny.player == 0):
        base, width = int(tiny.offset[s]), int(tiny.width[s])
        mine[base : base + width] = 0
        mine[base + best[s]] = 1
    assert solver.value(mine) == pytest.approx(value, abs=1e-12)
    for _ in range(20):
        other = policy.copy()
        for s in np.flatnonzero(tiny.player == 0):
            base, width = int(tiny.offset[s]), int(tiny.width[s])
            other[base : base + width] = 0
            other[base + rng.integers(width)] = 1
        assert solver.value(other) <= value + 1e-12


def test_cfr_plus_converges(tiny: Tree) -> None:
    solver = Solver(tiny)
    seen = []
    policy, curve = solver.cfr_plus(200, measure_every=50, on_progress=seen.append)
    assert [p.iteration for p in curve] == [50, 100, 150, 200] and seen == curve
    assert all(a.nash_conv >= b.nash_conv for a, b in itertools.pairwise(curve))
    assert 0 <= curve[-1].nash_conv < 1e-3 * tiny.utility_range
    assert solver.nash_conv(policy) == pytest.approx(curve[-1].nash_conv)
    # the same run again: the same policy (no randomness anywhere)
    again, _ = Solver(tiny).cfr_plus(200)
    assert np.array_equal(policy, again)


def test_normalise_makes_a_policy(tiny: Tree) -> None:
    weights = np.zeros(len(tiny.actions))
    weights[tiny.offset[0]] = 3.0
    policy = normalise(tiny, weights)
    check_policy(tiny, policy)
    assert policy[tiny.offset[0]] == 1.0
    with pytest.raises(ValueError, match="sum to"):
        check_policy(tiny, weights)


def test_agents_policies(tiny: Tree) -> None:
    solver = Solver(tiny)
    random_policy = policy_of_agent(tiny, make_agent("random"))
    assert np.allclose(random_policy, uniform(tiny))
    greedy = policy_of_agent(tiny, make_agent("greedy"))
    check_policy(tiny, greedy)
    assert set(np.unique(greedy)) <= {0.0, 1.0}
    assert solver.nash_conv(greedy) > solver.nash_conv(uniform(tiny)) > 0


def test_a_checkpoint_is_read_as_it_plays(tiny: Tree, tmp_path: Path) -> None:
    from agents.learned import load_learned

    path = tmp_path / "net.zip"
    fake_checkpoint(path, TINY)
    best, sampled = load_learned(str(path)), load_learned(str(path), sample=True)
    assert best.probabilities is None  # the most likely action: its policy is its act
    greedy_policy = policy_of_agent(tiny, best)
    assert set(np.unique(greedy_policy)) <= {0.0, 1.0}
    soft = policy_of_agent(tiny, sampled)
    check_policy(tiny, soft)
    rng = random.Random(0)
    for view in views(tiny)[::7]:
        probs = sampled.probabilities(view)  # type: ignore[misc]
        assert set(probs) == set(view.legal_actions)
        assert sum(probs.values()) == pytest.approx(1.0)
        top = max(probs, key=lambda a: (probs[a], -a))
        assert best.act(view, rng) == top
        assert probs[sampled.act(view, rng)] > 0
    solver = Solver(tiny)
    assert solver.nash_conv(soft) != pytest.approx(solver.nash_conv(greedy_policy))


def test_a_random_choice_without_probabilities_is_refused(tiny: Tree) -> None:
    class Coin:
        name = "coin"

        def act(self, view, rng):  # type: ignore[no-untyped-def]
            return view.legal_actions[rng.randrange(len(view.legal_actions))]

    with pytest.raises(AgentError, match="cannot be read exactly"):
        policy_of_agent(tiny, Coin())


def test_a_solved_policy_plays_from_its_file(tiny: Tree, tmp_path: Path) -> None:
    solver = Solver(tiny)
    policy, _ = solver.cfr_plus(50)
    path = tmp_path / "tiny.npz"
    path.write_bytes(policy_bytes(tiny, policy, {"iterations": 50}))
    agent = make_agent(f"exact:{path}")
    assert isinstance(agent, ExactAgent) and agent.policy.about == {"iterations": 50}
    # read back, the agent's policy is the solved one, state by state
    assert np.allclose(policy_of_agent(tiny, agent), policy)
    agent.check_rules(TINY)
    with pytest.raises(AgentError, match="was solved for"):
        agent.check_rules(Rules.preset("pagat", 2))
    # it plays: seeded, the same choices
    from allfives_env.core.game import Game

    def play(seed: int) -> list[int]:
        rng = random.Random(seed)
        game = Game(TINY, rng)
        moves = []
        while not game.is_hand_over:
            p = game.current_player
            assert p is not None
            a = agent.act(game.view(p), rng)
            moves.append(int(a))
            game.apply(a)
        return moves

    assert play(3) == play(3)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda b: b[: len(b) // 2], "not a policy file"),
        (lambda b: b"not a zip", "not a policy file"),
        (lambda b: b"", "not a policy file"),
    ],
)
def test_a_damaged_policy_file_is_refused(
    tiny: Tree, tmp_path: Path, damage: object, message: str
) -> None:
    path = tmp_path / "p.npz"
    data = policy_bytes(tiny, uniform(tiny), {})
    path.write_bytes(damage(data))  # type: ignore[operator]
    with pytest.raises(PolicyFileError, match=message):
        load_policy(path)


def test_a_policy_file_that_disagrees_with_itself_is_refused(tiny: Tree, tmp_path: Path) -> None:
    path = tmp_path / "p.npz"
    bad = uniform(tiny)
    bad[0] += 0.5
    path.write_bytes(policy_bytes(tiny, bad, {}))
    with pytest.raises(PolicyFileError, match="do not sum to 1"):
        load_policy(path)


def test_a_tree_of_three_or_four_players_is_built_and_counted_not_solved() -> None:
    for players, hand in ((3, 1), (3, 2), (4, 1)):
        rules = Rules.preset("pagat", players, max_pip=2, hand_size=hand)
        tree = build_tree(rules)
        assert {int(p) for p in tree.player} == set(range(players))
        all_deals = deals(rules)
        for s, node in enumerate(homes(tree)):
            game = game_at(tree, int(node), all_deals)
            assert infoset_key(game.view(int(tree.player[s]))) == tree.keys[s]
        # each leaf: player 0's side's points less the mean of the sides'
        leaf = int(np.flatnonzero(tree.kind == TERMINAL)[0])
        scores = game_at(tree, leaf, all_deals).scores
        assert tree.utility[leaf] == pytest.approx(scores[0] - sum(scores) / len(scores))
        with pytest.raises(RulesError, match="2-player games only"):
            Solver(tree)


def test_games_the_solver_does_not_take_are_refused() -> None:
    big = Rules.preset("pagat", 2, max_pip=4, hand_size=3)
    assert estimate_nodes(big) > 1e9
    with pytest.raises(TreeTooLargeError, match="more than the limit of 1,000,000"):
        build_tree(big, max_nodes=1_000_000)


@pytest.mark.parametrize(
    ("preset", "players", "n", "hand"),
    [("pagat", 2, 2, 2), ("dominoes_cc", 2, 3, 4), ("pagat", 3, 2, 1), ("five_up", 4, 2, 1)],
)
def test_the_deals_are_counted_without_listing_them(
    preset: str, players: int, n: int, hand: int
) -> None:
    rules = Rules.preset(preset, players, max_pip=n, hand_size=hand)
    assert count_deals(rules) == len(deals(rules))


def test_the_estimate_is_near_the_size() -> None:
    rules = Rules.preset("pagat", 2, max_pip=2, hand_size=2)
    nodes = build_tree(rules).num_nodes
    assert 0.5 * nodes < estimate_nodes(rules) < 2 * nodes


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``allfives ARGS`` run in this process from ``cwd`` (argparse's errors exit with status
    2 as the console script does), its output captured."""
    import contextlib
    import io
    import os

    from allfives_cli import main

    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else 1
    finally:
        os.chdir(here)
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


def test_the_command_line(tmp_path: Path) -> None:
    game = ["--max_pip", "2", "--hand_size", "2"]
    out = cli("tree-size", *game, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    sizes = json.loads(out.stdout)
    assert sizes["histories"] == 3943 and sizes["infosets"] == [624, 624]
    out = cli("tree-size", "--players", "3", "--max_pip", "2", "--hand_size", "2", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert len(json.loads(out.stdout)["infosets"]) == 3
    out = cli("solve", *game, "--iterations", "100", "--out", "p.npz", "--curve", "c.json",
              cwd=tmp_path)  # fmt: skip
    assert out.returncode == 0, out.stderr
    curve = json.loads((tmp_path / "c.json").read_text())["curve"]
    assert curve[-1]["iteration"] == 100
    out = cli("exploitability", "exact:p.npz", "random", *game, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert rows[0]["nash_conv"] == pytest.approx(curve[-1]["nash_conv"])
    assert rows[1]["nash_conv"] == pytest.approx(0.875)
    fake_checkpoint(tmp_path / "net.zip", TINY)
    out = cli("exploitability", "net.zip", *game, "--sample", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    row = json.loads(out.stdout)
    assert row["sampled_checkpoint"] and 0 < row["nash_conv"] < row["utility_range"]
    out = cli("eval", "exact:p.npz", "heuristic", *game, "--matches", "4", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    # bad input: one line, exit 2, nothing written or replaced
    before = (tmp_path / "p.npz").read_bytes()
    for args in (
        ["solve", *game, "--out", "p.npz"],
        ["solve", *game, "--out", "p.txt"],
        ["solve", "--max_pip", "2", "--hand_size", "4", "--out", "q.npz"],
        ["exploitability", "exact:missing.npz", *game],
        ["exploitability", "exact:p.npz", "--max_pip", "3", "--hand_size", "2"],
        ["tree-size", "--max_pip", "4", "--hand_size", "3", "--max_nodes", "1000"],
        ["tree-size", "--max_pip", "9", "--hand_size", "3"],
        ["eval", "greedy", "random", "--max_pip", "3"],  # the preset's 9 tiles a hand
        ["eval", "exact:p.npz", "random", "--max_pip", "3", "--hand_size", "2"],
    ):
        out = cli(*args, cwd=tmp_path)
        assert out.returncode == 2, (args, out.stderr)
        assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
    assert (tmp_path / "p.npz").read_bytes() == before
    assert not (tmp_path / "q.npz").exists() and not (tmp_path / "p.txt").exists()
