"""Learned values in the batched search: ``batchsearch:value=PATH,depth=D`` and
``batchsearch:prior=PATH,prior_weight=W``.

A rollout cut short by the value network must be worth exactly what the same world played out
in the core by the Python heuristic is worth up to the searching seat's ``depth``-th turn, plus
the network's value of the seat's own observation there; a depth the hand never reaches is the
plain search. The network reads only the seat's observation (a reshuffle of the hidden tiles
changes nothing), and bad parameters or files are clear errors. A prior adds to each action's
mean value exactly ``W`` times the network's log-probability of it in the view.
"""

from __future__ import annotations

import itertools
import json
import random
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba")

from agents.batch_search import BatchSearchAgent
from agents.learned import META_FILE, WEIGHTS_FILE, CheckpointError, PolicySpec
from agents.registry import UnknownAgentError, make_agent
from agents.sampler import sample_world
from agents.value_network import VALUE_FILE, ValueNetwork, global_size, read_value
from allfives_env.core.game import Game
from allfives_env.core.rules import Rules
from allfives_env.envs.spaces import Encoding
from tests.agents.test_batch_search import core_values
from tests.conftest import fake_checkpoint, random_mlp
from tests.vector.test_load import positions


def random_value(rules: Rules, seed: int = 0) -> ValueNetwork:
    """A value network with random weights for ``rules`` (its output of the order of points)."""
    rng = np.random.default_rng(seed)
    sizes = [global_size(rules), 12, 1]
    layers = [
        (
            (rng.standard_normal((b, a)) / np.sqrt(a)).astype(np.float32),
            rng.standard_normal(b).astype(np.float32),
        )
        for a, b in itertools.pairwise(sizes)
    ]
    return ValueNetwork(layers, float(rules.target))


def value_checkpoint(path: Path, rules: Rules, net: ValueNetwork | None) -> Path:
    """A checkpoint of a random actor, with ``net`` as its value network (none: without)."""
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(META_FILE, json.dumps(PolicySpec(rules, False).to_json()))
        z.writestr(WEIGHTS_FILE, random_mlp(rules).to_npz())
        if net is not None:
            z.writestr(VALUE_FILE, net.to_npz())
    return path


TABLES = [("pagat", 2, False), ("pagat", 4, True), ("five_up", 3, False)]


@pytest.mark.parametrize("preset, n, partners", TABLES)
@pytest.mark.parametrize("depth", [1, 2])
def test_cut_rollouts_are_the_core_rollouts_plus_the_value(
    tmp_path: Path, preset: str, n: int, partners: bool, depth: int
) -> None:
    rules = Rules.preset(preset, n, partnerships=partners)
    net = random_value(rules, n)
    path = value_checkpoint(tmp_path / "v.zip", rules, net)
    agent = BatchSearchAgent(worlds=3, value=str(path), depth=depth)
    for k, g in enumerate(positions(rules, 70 + n, 4)):
        seat = g.current_player
        assert seat is not None
        view = g.view(seat)
        got = agent.evaluate(view, random.Random(k))
        want = core_values(view, random.Random(k), 3, depth=depth, net=net)
        assert got == pytest.approx(want, rel=1e-4, abs=1e-3), (g.render(), view.legal_actions)


def test_a_depth_beyond_the_hand_is_the_plain_search(tmp_path: Path) -> None:
    rules = Rules.preset("pagat", 2)
    path = value_checkpoint(tmp_path / "v.zip", rules, random_value(rules))
    plain = BatchSearchAgent(worlds=8)
    never = BatchSearchAgent(worlds=8, value=str(path), depth=99)
    cut = BatchSearchAgent(worlds=8, value=str(path), depth=1)
    differs = 0
    for k, g in enumerate(positions(rules, 5, 6)):
        view = g.view(g.current_player)  # type: ignore[arg-type]
        want = plain.evaluate(view, random.Random(k))
        assert never.evaluate(view, random.Random(k)) == want
        differs += cut.evaluate(view, random.Random(k)) != want
    assert differs  # the value is used where the hand goes on


def test_the_value_reads_only_the_view(tmp_path: Path) -> None:
    rules = Rules.preset("pagat", 2)
    path = value_checkpoint(tmp_path / "v.zip", rules, random_value(rules))
    agent = make_agent(f"batchsearch:worlds=16,value={path},depth=1")
    for g in positions(rules, 9, 6):
        seat = g.current_player
        assert seat is not None
        view = g.view(seat)
        move = agent.act(view, random.Random(3))
        hands, bone = sample_world(view, random.Random(99))
        other = Game.from_view(view, hands, bone).view(seat)
        assert agent.act(other, random.Random(3)) == move


def test_the_value_network_round_trips_and_scales_to_points(tmp_path: Path) -> None:
    rules = Rules.preset("pagat", 2)
    net = random_value(rules)
    spec, read = read_value(value_checkpoint(tmp_path / "v.zip", rules, net))
    assert spec.rules == rules
    x = np.random.default_rng(1).random((5, global_size(rules) + 7), dtype=np.float32)
    assert read.values(x) == pytest.approx(net.values(x))
    unscaled = ValueNetwork(net.layers, 1.0).values(x)
    assert net.values(x) == pytest.approx(unscaled * rules.target)


def test_the_global_observation_is_the_same_whatever_the_action_features() -> None:
    rules = Rules.preset("pagat", 2)
    size = global_size(rules)
    for g in positions(rules, 4, 5):
        view = g.view(g.current_player)  # type: ignore[arg-type]
        plain = Encoding(rules, False).observe_view(view)
        for features in (True, "outlook"):
            assert (Encoding(rules, features).observe_view(view)[:size] == plain).all()


def broken(net: ValueNetwork, how: str) -> ValueNetwork:
    layers = [(w.copy(), b.copy()) for w, b in net.layers]
    if how == "nan":
        layers[0][0][0, 0] = np.nan
    elif how == "shape":
        layers[0] = (layers[0][0][:, :-1], layers[0][1])
    elif how == "outputs":
        layers[-1] = (np.vstack([layers[-1][0]] * 2), np.zeros(2, np.float32))
    return ValueNetwork(layers, net.scale)


@pytest.mark.parametrize(
    "how, message",
    [
        ("nan", "NaN"),
        ("shape", "must read"),
        ("outputs", "not 1"),
    ],
)
def test_a_broken_value_network_is_refused(tmp_path: Path, how: str, message: str) -> None:
    rules = Rules.preset("pagat", 2)
    path = value_checkpoint(tmp_path / "v.zip", rules, broken(random_value(rules), how))
    with pytest.raises(CheckpointError, match=message):
        read_value(path)
    with pytest.raises(UnknownAgentError, match=message):
        make_agent(f"batchsearch:value={path}")


def test_checkpoints_without_a_value_or_for_other_rules_are_refused(tmp_path: Path) -> None:
    rules = Rules.preset("pagat", 2)
    bare = value_checkpoint(tmp_path / "bare.zip", rules, None)
    with pytest.raises(UnknownAgentError, match="holds no value network"):
        make_agent(f"batchsearch:value={bare}")
    with pytest.raises(UnknownAgentError, match="no checkpoint"):
        make_agent(f"batchsearch:value={tmp_path / 'none.zip'}")
    path = value_checkpoint(tmp_path / "v.zip", rules, random_value(rules))
    agent = make_agent(f"batchsearch:worlds=2,value={path}")
    other = positions(Rules.preset("five_up", 2), 3, 1)[0]
    with pytest.raises(CheckpointError, match="trained for"):
        agent.act(other.view(other.current_player), random.Random(1))  # type: ignore[arg-type]


def test_a_prior_adds_its_log_probabilities_to_the_mean_values(tmp_path: Path) -> None:
    from agents.learned import load_learned

    rules = Rules.preset("pagat", 2)
    path = tmp_path / "net.zip"
    fake_checkpoint(path, rules)
    network = load_learned(str(path))
    plain = BatchSearchAgent(worlds=4)
    guided = BatchSearchAgent(worlds=4, prior=str(path), prior_weight=3.0)
    unweighed = BatchSearchAgent(worlds=4, prior=str(path), prior_weight=0)
    for k, g in enumerate(positions(rules, 11, 6)):
        view = g.view(g.current_player)  # type: ignore[arg-type]
        base = np.array(plain.evaluate(view, random.Random(k)))
        lp = network.log_policy(view)
        assert len(lp) == len(view.legal_actions)
        assert np.exp(lp).sum() == pytest.approx(1.0) and (lp <= 0).all()
        assert guided.evaluate(view, random.Random(k)) == pytest.approx(base + 4 * 3.0 * lp)
        assert unweighed.evaluate(view, random.Random(k)) == pytest.approx(base)
    other = positions(Rules.preset("five_up", 2), 3, 1)[0]
    with pytest.raises(CheckpointError, match="trained for"):
        guided.act(other.view(other.current_player), random.Random(1))  # type: ignore[arg-type]
