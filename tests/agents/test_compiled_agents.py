"""The compiled agents against the Python ones: the same choice in every position.

For every preset and table (2, 3, 4 in partnerships, 4 each for himself) a batch of games is
played by a mix of the compiled heuristic, greedy and random, and mirrored by core games dealt
the same deals. In every position the compiled heuristic (``HeuristicAgent.act_batch``) must pick
the env action ``HeuristicAgent.act`` picks on the seat's view, and its evaluation of every legal
placement must equal ``heuristic.evaluate`` as a float64; ``GreedyAgent.act_batch`` must pick what
``GreedyAgent.act`` picks. Leads, plain play, drawn tiles pending, forced draws and passes, last
tiles and five_up's exact target are all met (the test counts them).
"""

from __future__ import annotations

import random
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

pytest.importorskip("numba")

from vector_mirror import IDS, TABLES, follow, mirror

from agents import GreedyAgent, HeuristicAgent, RandomAgent
from agents import heuristic as heuristic_module
from agents.heuristic import danger_of, evaluate
from allfives_env.core.actions import DRAW_ID
from allfives_env.core.events import Phase
from allfives_env.core.rules import Rules
from allfives_env.envs.outlook import Position
from allfives_env.vector import VectorGame, policy_rng
from allfives_env.vector.agents import RandomBatch, batch_agent

NUM_GAMES = 12
STEPS = 500  # 12 games x 500 steps = 6,000 positions per table


def play(
    rules: Rules,
    num_games: int,
    steps: int,
    seed: int,
    episode: str = "match",
    hoard: bool = False,
) -> Counter[str]:
    """Play ``steps`` steps of ``num_games`` games, comparing the compiled agents with the
    Python ones (the heuristic with its ``hoard`` rule or not) in every position; return what
    was met."""
    from agents.compiled import danger_vector, heuristic_values, weight_vector

    weights = weight_vector(heuristic_module.weights())
    danger_by_size = danger_vector(heuristic_module.DANGER, heuristic_module.DANGER_FAR)

    vg = VectorGame(rules, num_games, episode=episode, max_cycles=None)
    enc = vg.encoding
    vg.reset(np.arange(num_games) + 100 * seed)
    games = [mirror(vg, i) for i in range(num_games)]
    heuristic, greedy = HeuristicAgent(hoard), GreedyAgent()
    prng = policy_rng(seed, num_games)
    rng = random.Random(seed)
    everyone = np.arange(num_games, dtype=np.int64)
    next_seed = 1_000_000 + 1000 * seed
    met: Counter[str] = Counter()
    for step in range(steps):
        chosen = heuristic.act_batch(vg, everyone, prng)
        greedy_chosen = greedy.act_batch(vg, everyone, prng)
        assert chosen.dtype == np.int64 and chosen.shape == (num_games,)
        for i, g in enumerate(games):
            seat = g.current_player
            assert seat is not None and seat == vg.current_player[i], vg.describe(i)
            # the engine's own view now and then (it replays the hand), else the mirror's
            view = vg.view(i) if (step + i) % 8 == 0 else g.view(seat)
            want = enc.to_env[heuristic.act(view, rng)]
            assert chosen[i] == want, (vg.describe(i), step, chosen[i], want)
            assert greedy_chosen[i] == enc.to_env[greedy.act(view, rng)], vg.describe(i)
            placements = [a for a in view.legal_actions if a < DRAW_ID]
            if (step + i) % 3 == 0 and len(placements) > 1:
                values = heuristic_values(vg, i, weights, danger_by_size)
                pos = Position.of_view(view)
                danger = danger_of(pos)
                for a in placements:
                    v = values[enc.to_env[a]]
                    assert v == evaluate(pos, a, danger), (vg.describe(i), step, str(a))
                met["evaluated"] += len(placements)
            met[view.phase.name] += 1
            if placements and chosen[i] == enc.to_env[DRAW_ID]:
                met["hoarded"] += 1
            elif len(placements) < len(view.legal_actions) and placements:
                met["placed_beside_draw"] += 1
            met["single" if len(placements) == 1 else "forced" if not placements else "choice"] += 1
            met["last_tile"] += len(view.hand) == 1 and bool(placements)
            if rules.exact_target and rules.target - g.scores[rules.side_of(seat)] <= 10:
                met["near_exact_target"] += 1
        actions = vg.random_actions(prng)
        actions[: num_games // 2] = chosen[: num_games // 2]
        actions[num_games // 2 :: 3] = greedy_chosen[num_games // 2 :: 3]
        _, terminated, truncated = vg.step(actions)
        next_seed = follow(vg, games, actions, terminated | truncated, next_seed, met)
    return met


@pytest.mark.parametrize("c", range(len(TABLES)), ids=IDS)
def test_compiled_heuristic_and_greedy_choose_as_the_python_agents(c: int) -> None:
    preset, n, partners = TABLES[c]
    rules = Rules.preset(preset, n, partnerships=bool(partners))
    # hand episodes at some tables (long solo matches end sooner); five_up plays its matches
    # out for the positions near its exact target
    episode = "hand" if c % 4 == 3 and not rules.exact_target else "match"
    met = play(rules, NUM_GAMES, STEPS, c, episode)
    assert met[Phase.LEAD.name] and met[Phase.PLAY.name] and met["evaluated"]
    assert bool(met[Phase.DRAWN.name]) != rules.draw_when_able
    assert met["choice"] and met["single"] and met["forced"] and met["last_tile"]
    assert met["episodes"]
    if rules.exact_target:
        assert met["near_exact_target"]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_compiled_hoard_rule_chooses_as_the_python_one(n: int) -> None:
    # five_up lets a player draw while able: the hoarding heuristic draws there, and places
    # beside a legal draw only a decisive tile (the last one, or one that reaches 61)
    met = play(Rules.preset("five_up", n), NUM_GAMES, 300, 40 + n, hoard=True)
    assert met["hoarded"] and met["placed_beside_draw"] and met["choice"]


@pytest.mark.parametrize(
    ("preset", "n", "max_pip", "hand_size", "hoard"),
    [("pagat", 2, 2, 2, False), ("five_up", 2, 3, 3, True), ("pyatyorka", 4, 4, 3, False)],
)
def test_the_compiled_agents_choose_as_the_python_ones_on_small_sets(
    preset: str, n: int, max_pip: int, hand_size: int, hoard: bool
) -> None:
    rules = Rules.preset(preset, n, max_pip=max_pip, hand_size=hand_size)
    met = play(rules, NUM_GAMES, 200, 60 + max_pip, "hand", hoard)
    assert met["choice"] and met["evaluated"] and met["episodes"]
    if hoard:
        assert met["hoarded"]


def test_the_parallel_build_chooses_the_same() -> None:
    # 96 games: the parallel build of the batch kernel (the tests above run the serial one)
    met = play(Rules.preset("pagat", 4), 96, 12, 77)
    assert met["choice"]


def test_act_batch_answers_for_the_listed_games_only() -> None:
    rules = Rules.preset("five_up", 3)
    vg = VectorGame(rules, 10)
    vg.reset(3)
    prng = policy_rng(4, 10)
    agent = batch_agent("heuristic")
    assert isinstance(agent, HeuristicAgent)
    for _ in range(20):
        everyone = agent.act_batch(vg, np.arange(10, dtype=np.int64), prng)
        some = np.array([7, 2, 5], np.int64)
        assert np.array_equal(agent.act_batch(vg, some, prng), everyone[some])
        assert agent.act_batch(vg, np.zeros(0, np.int64), prng).shape == (0,)
        vg.step(everyone)


def test_random_and_greedy_act_batch_delegate_to_the_batch_agents() -> None:
    rules = Rules.preset("pyatyorka", 4)
    vg = VectorGame(rules, 6)
    vg.reset(8)
    games = np.arange(6, dtype=np.int64)
    mine, theirs = policy_rng(5, 6), policy_rng(5, 6)
    for _ in range(25):
        a = RandomAgent().act_batch(vg, games, mine)
        assert np.array_equal(a, RandomBatch().act_batch(vg, games, theirs))
        assert np.array_equal(mine, theirs)
        assert np.array_equal(GreedyAgent().act_batch(vg, games, mine), vg.greedy_actions())
        vg.step(a)


def test_the_weights_are_the_heuristic_modules_as_they_stand(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agents import compiled

    names = set(compiled.WEIGHT_NAMES)
    assert names == set(heuristic_module.weights())
    assert names == {n for n in vars(heuristic_module) if n.startswith("W_")} | {"WIN"}
    # other weights, other choices: the compiled agent follows the module's values
    monkeypatch.setattr(heuristic_module, "W_OPP", -3.0)
    monkeypatch.setattr(heuristic_module, "W_SHED", 0.0)
    monkeypatch.setattr(heuristic_module, "DANGER", (2.0, 1.5, 1.0, 0.5, 0.25))
    play(Rules.preset("pagat", 2), 6, 60, 5)


def test_compiled_kernels_cache_by_the_package_sources() -> None:
    from agents import compiled
    from allfives_env.vector import _jit

    assert _jit.PACKAGE_STAMP_ACTIVE
    stamp = _jit.source_stamp(compiled.heuristic_batch.serial)  # type: ignore[attr-defined]
    assert stamp is not None and stamp != _jit.package_stamp()
    assert stamp == _jit.source_stamp(compiled.evaluate)
    # the same stamp again from the same files: what a fresh process computes
    before = dict(_jit._SOURCES)
    _jit.cache_with_package(compiled.__file__)
    assert before == _jit._SOURCES


def test_importing_agents_does_not_import_numba() -> None:
    code = "import sys, agents; print('numba' in sys.modules, 'agents.compiled' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
