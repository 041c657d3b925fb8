"""A search agent as a teacher of values: its targets are the search's own values and choice.

For every listed game of a batch, the teacher's choice is what the search agent plays from that
game's view with the same seed, and its target distribution is the softmax of the search's
mean values over exactly the legal actions. Worker processes change nothing; positions with one
legal action are not searched; only value searches can teach values; bad parameters are refused.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("numba")

from agents.registry import make_agent, value_agent
from agents.search import SearchAgent
from agents.training.teacher import SearchTeacher, soft_targets
from allfives_env.core.rules import Rules
from allfives_env.vector.agents import draw_bits
from allfives_env.vector.engine import VectorGame, policy_rng


def batch(preset: str = "pagat", players: int = 2, games: int = 6, moves: int = 5) -> VectorGame:
    """``games`` games of ``preset`` a few random moves in."""
    vg = VectorGame(Rules.preset(preset, players), games, forced_actions="auto")
    vg.reset(3)
    rng = policy_rng(9, games)
    for _ in range(moves):
        vg.step(vg.random_actions(rng))
    return vg


@pytest.mark.parametrize(
    ("spec", "preset", "players"),
    [("batchsearch:worlds=4", "pagat", 2), ("search:sims=3", "five_up", 4)],
)
def test_targets_are_the_searchs_values_and_choice(spec: str, preset: str, players: int) -> None:
    vg = batch(preset, players)
    games = np.arange(vg.num_games)
    rng = policy_rng(5, vg.num_games)
    seeds = draw_bits(rng.copy(), games)
    teacher = SearchTeacher(spec, temperature=1.5)
    choice, probs = teacher.targets(vg, games, rng)
    agent, rounds = value_agent(spec)
    enc = vg.encoding
    assert probs.shape == (vg.num_games, enc.num_actions) and probs.dtype == np.float32
    for k, i in enumerate(games):
        view = vg.view(int(i))
        legal = view.legal_actions
        ids = [enc.to_env[a] for a in legal]
        played = agent.act(view, random.Random(int(seeds[k])))
        assert choice[k] == enc.to_env[played]
        assert np.isclose(probs[k].sum(), 1.0) and probs[k, ids].sum() == pytest.approx(1.0)
        if len(legal) > 1:
            values = np.array(agent.evaluate(view, random.Random(int(seeds[k])))) / rounds
            want = np.exp(values / 1.5 - (values / 1.5).max())
            np.testing.assert_allclose(probs[k, ids], want / want.sum(), rtol=1e-5)
        else:
            assert probs[k, ids[0]] == 1.0


def test_valued_gives_the_targets_and_the_mean_values_on_the_legal_actions() -> None:
    vg = batch(games=5)
    games = np.arange(5)
    teacher = SearchTeacher("batchsearch:worlds=4", temperature=2.0)
    choice, probs = teacher.targets(vg, games, policy_rng(5, 5))
    choice2, probs2, values = teacher.valued(vg, games, policy_rng(5, 5))
    assert np.array_equal(choice, choice2) and np.array_equal(probs, probs2)
    seeds = draw_bits(policy_rng(5, 5), games)
    agent, rounds = value_agent("batchsearch:worlds=4")
    enc = vg.encoding
    for k in games:
        view = vg.view(int(k))
        ids = [enc.to_env[a] for a in view.legal_actions]
        assert np.isnan(np.delete(values[k], ids)).all()
        if len(ids) > 1:
            want = np.array(agent.evaluate(view, random.Random(int(seeds[k])))) / rounds
            np.testing.assert_allclose(values[k, ids], want, rtol=1e-6)
        else:
            assert values[k, ids[0]] == 0.0


def test_worker_processes_change_nothing() -> None:
    vg = batch(games=8)
    games = np.arange(8)
    results = []
    for processes in (1, 2):
        with SearchTeacher("batchsearch:worlds=3", processes=processes) as teacher:
            results.append(teacher.targets(vg, games, policy_rng(11, 8)))
    (c1, p1), (c2, p2) = results
    assert np.array_equal(c1, c2) and np.array_equal(p1, p2)


def test_one_legal_action_is_not_searched() -> None:
    class Counting(SearchAgent):
        calls = 0

        def evaluate(self, view, rng):  # type: ignore[no-untyped-def]
            Counting.calls += 1
            return super().evaluate(view, rng)

    teacher = SearchTeacher("search:sims=2")
    teacher.agent = Counting(sims=2)
    vg = batch(games=30, moves=9)
    views = [vg.view(i) for i in range(30)]
    values = teacher.values(views, list(range(30)))
    forced = [len(v.legal_actions) == 1 for v in views]
    assert any(forced) and not all(forced)
    assert Counting.calls == forced.count(False)
    assert all(values[k] == [0.0] for k in range(30) if forced[k])
    assert all(len(values[k]) == len(views[k].legal_actions) for k in range(30))


def test_soft_targets_sharpen_as_the_temperature_falls() -> None:
    values = [3.0, 1.0, -2.0]
    warm, cold = soft_targets(values, 4.0), soft_targets(values, 0.5)
    assert warm.sum() == pytest.approx(1.0) and cold.sum() == pytest.approx(1.0)
    assert list(np.argsort(-warm)) == [0, 1, 2] == list(np.argsort(-cold))
    assert cold[0] > warm[0] and cold[2] < warm[2]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"spec": "heuristic"}, "batchsearch or search without a time budget"),
        ({"spec": "search:time=0.1"}, "batchsearch or search without a time budget"),
        ({"spec": "nobody"}, "unknown agent"),
        ({"spec": "search", "temperature": 0.0}, "temperature must be positive"),
        ({"spec": "search", "processes": 0}, "processes must be an int of at least 1"),
    ],
)
def test_bad_teachers_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SearchTeacher(**kwargs)  # type: ignore[arg-type]


def test_value_agent_counts_the_rollouts_per_action() -> None:
    assert value_agent("batchsearch:worlds=7")[1] == 7
    assert value_agent("search:sims=9")[1] == 9
    assert isinstance(value_agent("search:sims=9")[0], type(make_agent("search")))
