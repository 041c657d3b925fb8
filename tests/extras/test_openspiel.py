"""All Fives in OpenSpiel: pyspiel's own checks, the engine's scores through pyspiel, chance,
no leaks, serialization, and OpenSpiel's algorithms running on it."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel")

from conftest import with_hidden_tiles_reshuffled  # noqa: E402

import allfives_openspiel  # noqa: E402,F401  (registers python_allfives)
from allfives_env.core.records import record_of, replay  # noqa: E402
from allfives_env.core.rules import PRESETS  # noqa: E402
from allfives_openspiel.game import AllFivesState, ParameterError  # noqa: E402


def load(**params: Any) -> Any:
    text = ",".join(f"{k}={v}" for k, v in params.items())
    return pyspiel.load_game(f"python_allfives({text})")


def random_play(state: Any, rng: random.Random) -> Any:
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            assert sum(probs) == pytest.approx(1.0)
            state.apply_action(rng.choice(outcomes))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_pyspiels_random_sim_test_passes(preset: str, players: int) -> None:
    pyspiel.random_sim_test(load(preset=preset, players=players), num_sims=2, serialize=True,
                            verbose=False)  # fmt: skip


@pytest.mark.parametrize(("preset", "players"), [("five_up", 2), ("pagat", 4), ("pyatyorka", 3)])
def test_pyspiels_random_sim_test_passes_for_whole_matches(preset: str, players: int) -> None:
    game = load(preset=preset, players=players, episode="match")
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize("seed", range(6))
def test_games_through_pyspiel_replay_to_the_same_scores_and_hand_ends(
    seed: int, tmp_path: Path
) -> None:
    preset = sorted(PRESETS)[seed % len(PRESETS)]
    players = 2 + seed % 3
    state = random_play(load(preset=preset, players=players, episode="match").new_initial_state(),
                        random.Random(seed))  # fmt: skip
    game = state.engine
    result = replay(record_of(game))
    assert result.scores == game.scores == state.scores()
    assert result.winners == game.winners
    assert [(h.end, h.award, h.pips) for h in result.hands] == [
        (h.end, h.award, h.pips) for h in game.hand_results
    ]
    mean = sum(game.scores) / len(game.scores)
    rules = game.rules
    want = [game.scores[rules.side_of(p)] - mean for p in range(players)]
    assert state.returns() == pytest.approx(want)
    assert sum(state.returns()) == pytest.approx(0.0)
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record_of(game).to_json()))
    from allfives_cli import main

    assert main(["replay", str(path)]) == 0


def test_chance_nodes_deal_and_draw_with_exact_probabilities() -> None:
    state = load(preset="pagat", players=2).new_initial_state()
    assert state.is_chance_node()
    assert len(state.chance_outcomes()) == 28
    rng = random.Random(3)
    dealt = 0
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        assert len(outcomes) == 28 - dealt and all(p == 1 / len(outcomes) for _, p in outcomes)
        state.apply_action(rng.choice(outcomes)[0])
        dealt += 1
        if state.is_chance_node() and dealt == 18:  # pagat picks the leader by lot
            assert state.chance_outcomes() == [(0, 0.5), (1, 0.5)]
            state.apply_action(1)
            break
    assert state.current_player() == 1
    while not state.is_terminal():
        if state.is_chance_node():  # a draw: uniform over the undrawn tiles
            pool = sorted(int(t) for t in state.engine.boneyard)
            assert [t for t, _ in state.chance_outcomes()] == pool
            assert "draws" in state.action_to_string(pyspiel.PlayerId.CHANCE, pool[0])
            state.apply_action(rng.choice(pool))
        else:
            state.apply_action(rng.choice(state.legal_actions()))


def test_action_strings_are_the_projects_notation() -> None:
    state = random_play_to_decision(load(preset="pagat", players=2), random.Random(1))
    texts = [state.action_to_string(state.current_player(), a) for a in state.legal_actions()]
    legal = [str(a) for a in state.engine.legal_actions()]
    assert sorted(texts) == sorted(legal)


def random_play_to_decision(game: Any, rng: random.Random, moves: int = 0) -> Any:
    state = game.new_initial_state()
    while True:
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        elif moves and not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            moves -= 1
        else:
            return state


@pytest.mark.parametrize("seed", range(8))
def test_tensors_and_strings_hold_nothing_the_seat_cannot_see(seed: int) -> None:
    rng = random.Random(seed)
    game = load(preset=["pagat", "five_up", "pyatyorka"][seed % 3], players=2 + seed % 3)
    state = random_play_to_decision(game, rng, moves=rng.randrange(1, 30))
    if state.is_terminal():
        return
    for p in range(game.num_players()):
        twin = state.clone()
        twin.engine = with_hidden_tiles_reshuffled(state.engine, p, rng)
        assert twin.engine.hand(p) == state.engine.hand(p)
        assert state.observation_string(p) == twin.observation_string(p)
        assert state.information_state_string(p) == twin.information_state_string(p)
        assert state.observation_tensor(p) == twin.observation_tensor(p)
        assert state.information_state_tensor(p) == twin.information_state_tensor(p)


def test_serialization_round_trips() -> None:
    game = load(preset="five_up", players=3, episode="match")
    state = random_play_to_decision(game, random.Random(4), moves=25)
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game)
    assert state2.history() == state.history()
    assert str(state2) == str(state) and state2.returns() == state.returns()


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(ParameterError, match="unknown preset"):
        load(preset="nope")
    with pytest.raises(ParameterError, match="episode"):
        load(episode="forever")
    with pytest.raises(pyspiel.SpielError, match="colour"):
        pyspiel.load_game("python_allfives(colour=red)")


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    state = random_play_to_decision(load(), random.Random(2))
    illegal = next(a for a in range(state.get_game().num_distinct_actions())
                   if a not in state.legal_actions())  # fmt: skip
    before = str(state)
    with pytest.raises(pyspiel.SpielError, match="illegal action"):
        AllFivesState._apply_action(state, illegal)
    assert str(state) == before


@pytest.mark.parametrize("spec", ["openspiel-ismcts:sims=8", "openspiel-mcts:sims=8,worlds=2"])
def test_openspiel_bots_play_in_allfives_eval(spec: str) -> None:
    from agents.eval.tournament import evaluate
    from allfives_env.core.rules import Rules

    rules = Rules.preset("five_up", 2)
    a = evaluate(rules, [spec, "random"], matches=2, seed=5)
    b = evaluate(rules, [spec, "random"], matches=2, seed=5)
    assert a.matches == 2 and [r.scores for r in a.results] == [r.scores for r in b.results]


def test_a_bad_openspiel_agent_spec_is_one_error() -> None:
    from agents.errors import AgentError
    from agents.registry import make_agent

    with pytest.raises(AgentError, match="unknown parameter"):
        make_agent("openspiel-ismcts:depth=3")
    with pytest.raises(AgentError, match="sims"):
        make_agent("openspiel-mcts:sims=0")


def test_nfsp_and_mccfr_run_on_the_game() -> None:
    from open_spiel.python import rl_environment
    from open_spiel.python.algorithms import outcome_sampling_mccfr
    from open_spiel.python.pytorch import nfsp

    game = load(preset="pagat", players=2)
    env = rl_environment.Environment(game, seed=0)
    size = env.observation_spec()["info_state"][0]
    actions = env.action_spec()["num_actions"]
    agents = [
        nfsp.NFSP(
            p,
            state_representation_size=size,
            num_actions=actions,
            hidden_layers_sizes=[32],
            reservoir_buffer_capacity=100,
            anticipatory_param=0.1,
            min_buffer_size_to_learn=10,
            batch_size=8,
            learn_every=8,
        )
        for p in range(2)
    ]
    for _ in range(4):
        step = env.reset()
        while not step.last():
            player = step.observations["current_player"]
            out = agents[player].step(step)
            assert out.action in step.observations["legal_actions"][player]
            step = env.step([out.action])
        for agent in agents:
            agent.step(step)
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    for _ in range(5):
        solver.iteration()
    state = random_play_to_decision(game, random.Random(0))
    policy = solver.average_policy().action_probabilities(state)
    assert set(policy) == set(state.legal_actions())
    assert sum(policy.values()) == pytest.approx(1.0)


def test_a_clone_shares_the_rules_and_copies_the_game_apart() -> None:
    """pyspiel's ``clone()`` deep-copies a Python state attribute by attribute (it never calls
    the state's ``__deepcopy__``): the frozen rules and encoding are shared, the engine is
    copied with ``Game.clone`` (its ``__deepcopy__``), and the two then play apart."""
    import copy

    game = pyspiel.load_game("python_allfives(players=3)")
    state = game.new_initial_state()
    rng = random.Random(4)
    for _ in range(30):
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    twin = state.clone()
    assert twin.rules is state.rules and twin.encoding is state.encoding
    assert twin.engine is not state.engine
    assert str(twin) == str(state) and twin.legal_actions() == state.legal_actions()
    assert twin.observation_tensor(0) == state.observation_tensor(0)
    before = str(state)
    while not twin.is_terminal() and twin.move_number() < state.move_number() + 20:
        if twin.is_chance_node():
            twin.apply_action(rng.choice([a for a, _ in twin.chance_outcomes()]))
        else:
            twin.apply_action(rng.choice(twin.legal_actions()))
    assert str(state) == before != str(twin)  # the original did not move
    copied = copy.deepcopy(state.engine)  # a Game's deep copy is its clone
    assert copied is not state.engine and str(copied) == str(state.engine)
    assert copy.deepcopy(state.rules) is state.rules
