"""The batched search agent: its rollouts on the batched engine are the core's rollouts.

A world sampled from the view, loaded into the batch and played out by the compiled heuristic
for every seat must end exactly where the same world played out in the core by the Python
heuristic (each seat choosing from its own view) ends, for every candidate action; the agent's
values are those outcomes' worths. It also plays the same move for the same seed, reads only
the view (a reshuffle of the hidden tiles changes nothing), plays through checkpoints' networks,
and refuses bad parameters with a clear error.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

pytest.importorskip("numba")

from agents.batch_search import BatchSearchAgent
from agents.equity import MatchEquity
from agents.heuristic import HeuristicAgent
from agents.learned import CheckpointError
from agents.registry import UnknownAgentError, is_checkpoint, make_agent
from agents.sampler import sample_world
from agents.search import WIN_BONUS
from agents.value_network import ValueNetwork
from allfives_env.core.actions import DRAW, PASS
from allfives_env.core.game import Game
from allfives_env.core.rules import Rules
from allfives_env.core.view import PlayerView
from allfives_env.envs.spaces import Encoding
from tests.conftest import fake_checkpoint
from tests.vector.test_load import positions
from tests.vector_mirror import IDS, TABLES


def core_values(
    view: PlayerView,
    rng: random.Random,
    worlds: int,
    hoard: bool = False,
    depth: int = 0,
    net: ValueNetwork | None = None,
    equity: MatchEquity | None = None,
) -> list[float]:
    """The agent's values, computed in the core: each world (drawn from ``rng`` as the agent
    draws them) played out by the Python heuristic (with its ``hoard`` rule or not) from every
    seat's own view; with a value ``net``, only until the searching seat is to choose for the
    ``depth``-th time (a forced DRAW or PASS is not a choice), the network's value of the
    seat's observation there added; with an ``equity``, a hand's end that leaves the match
    going worth ``(2p - 1)`` times the won match's worth instead of its points."""
    rules = view.rules
    sides = rules.num_sides
    enc = Encoding(rules, False)
    heuristic = HeuristicAgent(hoard)
    totals = [0.0] * len(view.legal_actions)
    for _ in range(worlds):
        hands, bone = sample_world(view, rng)
        world = Game.from_view(view, hands, bone)
        for j, action in enumerate(view.legal_actions):
            g = world.clone()
            g.apply(action)
            turns, cut = 0, False
            while not g.is_hand_over:
                seat = g.current_player
                assert seat is not None
                choice = g.legal_actions() not in ([DRAW], [PASS])
                if net is not None and seat == view.seat and choice:
                    turns += 1
                    if cut := turns >= depth:
                        break
                g.apply(heuristic.act(g.view(seat), rng))
            gain = [g.scores[s] - view.scores[s] for s in range(sides)]
            value = gain[view.side] - (sum(gain) - gain[view.side]) / (sides - 1)
            bonus = WIN_BONUS * rules.target
            if g.winners is not None:
                value += bonus if view.side in g.winners else -bonus
            if equity is not None:  # the match's worth of where the hand ends, not its points
                own, other = g.scores[view.side], g.scores[1 - view.side]
                p = equity.win_probability(own, other, rules.target)
                won = g.winners is not None and view.side in g.winners
                value = bonus if won else -bonus if g.winners else bonus * (2 * float(p) - 1)
            if cut and net is not None:
                value += float(net.values(enc.observe_view(g.view(view.seat))[None, :])[0])
            totals[j] += value
    return totals


def check_rollouts(rules: Rules, seed: int) -> list[PlayerView]:
    """batchsearch's values at 4 positions of ``rules`` (from ``seed``) are the core's
    rollouts' (:func:`core_values`); the views it was asked about."""
    agent = BatchSearchAgent(worlds=3)
    views = []
    for k, g in enumerate(positions(rules, seed, 4)):
        seat = g.current_player
        assert seat is not None
        view = g.view(seat)
        got = agent.evaluate(view, random.Random(k))
        want = core_values(view, random.Random(k), 3)
        assert got == pytest.approx(want), (g.render(), view.legal_actions)
        views.append(view)
    return views


@pytest.mark.parametrize("c", range(len(TABLES)), ids=IDS)
def test_batched_rollouts_end_where_the_core_ones_do(c: int) -> None:
    preset, n, partners = TABLES[c]
    check_rollouts(Rules.preset(preset, n, partnerships=bool(partners)), 50 + c)


SMALL_SETS = [
    ("pagat", 2, 2, 2),
    ("dominoes_cc", 2, 3, 4),
    ("five_up", 3, 4, 4),
    ("pyatyorka", 3, 3, 2),
    ("pagat", 4, 5, 5),
]
"""Smaller sets (preset, players, double-N, hand size) the batched rollouts are pinned on."""


@pytest.mark.parametrize("table", SMALL_SETS, ids=lambda t: f"{t[0]}-{t[1]}p-d{t[2]}")
def test_batched_rollouts_end_where_the_core_ones_do_on_smaller_sets(
    table: tuple[str, int, int, int],
) -> None:
    preset, n, pip, hand = table
    rules = Rules.preset(preset, n, max_pip=pip, hand_size=hand)
    for k, view in enumerate(check_rollouts(rules, 60 + pip)):
        move = make_agent("batchsearch:worlds=4,infer=1").act(view, random.Random(k))
        assert move in view.legal_actions


@pytest.mark.parametrize("n", [2, 3, 4])
def test_hoarding_rollouts_end_where_the_core_ones_do(n: int) -> None:
    rules = Rules.preset("five_up", n)
    agent = BatchSearchAgent(worlds=3, hoard=True)
    draws = 0
    for k, g in enumerate(positions(rules, 70 + n, 5)):
        seat = g.current_player
        assert seat is not None
        view = g.view(seat)
        draws += sum(a.is_placement for a in view.legal_actions) < len(view.legal_actions) > 1
        got = agent.evaluate(view, random.Random(k))
        assert got == pytest.approx(core_values(view, random.Random(k), 3, hoard=True))
    assert draws  # DRAW was a candidate beside placements


def test_same_seed_same_move_and_only_the_view_counts() -> None:
    rules = Rules.preset("pagat", 2)
    agent = make_agent("batchsearch:worlds=16")
    for g in positions(rules, 7, 6):
        seat = g.current_player
        assert seat is not None
        view = g.view(seat)
        move = agent.act(view, random.Random(3))
        assert agent.act(view, random.Random(3)) == move
        # the same view with the hidden tiles dealt otherwise
        hands, bone = sample_world(view, random.Random(99))
        other = Game.from_view(view, hands, bone).view(seat)
        assert agent.act(other, random.Random(3)) == move


def test_a_network_plays_the_rollouts(tmp_path: Path) -> None:
    rules = Rules.preset("pagat", 2)
    path = tmp_path / "net.zip"
    fake_checkpoint(path, rules)
    spec = f"batchsearch:worlds=4,rollout={path}"
    assert not is_checkpoint(spec)
    agent = make_agent(spec)
    g = positions(rules, 3, 1)[0]
    view = g.view(g.current_player)  # type: ignore[arg-type]
    assert agent.act(view, random.Random(1)) in view.legal_actions
    other = positions(Rules.preset("five_up", 2), 3, 1)[0]
    with pytest.raises(CheckpointError, match="trained for"):
        agent.act(other.view(other.current_player), random.Random(1))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "spec, message",
    [
        ("batchsearch:worlds=0", "worlds must be"),
        ("batchsearch:worlds=2.5", "worlds must be"),
        ("batchsearch:rollout=random", "rollout must be"),
        ("batchsearch:sims=3", "unexpected keyword"),
        ("batchsearch:hoard=true,rollout=greedy", "needs rollout=heuristic"),
        ("batchsearch:hoard=2", "hoard must be true or false"),
        ("batchsearch:value=net", "value must be a checkpoint path"),
        ("batchsearch:depth=0", "depth must be"),
        ("batchsearch:depth=1.5", "depth must be"),
        ("batchsearch:prior=net", "prior must be a checkpoint path"),
        ("batchsearch:prior_weight=-1", "prior_weight must be a number"),
        ("batchsearch:prior_weight=true", "prior_weight must be a number"),
        ("batchsearch:equity=1", "equity must be true or false"),
        ("batchsearch:equity=true,value=net.zip", "a value network cuts the hand short"),
    ],
)
def test_bad_parameters_are_refused(spec: str, message: str) -> None:
    with pytest.raises(UnknownAgentError, match=message):
        make_agent(spec)


def test_a_missing_rollout_checkpoint_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UnknownAgentError, match="no checkpoint"):
        make_agent(f"batchsearch:rollout={tmp_path / 'none.zip'}")
