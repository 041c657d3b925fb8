"""All Fives in OpenSpiel on a set smaller than double-six (the ``max_pip``, ``hand_size`` and
``target`` parameters): pyspiel's own checks, sizes that shrink with the set, chance over the
set's tiles, game strings that load again, perfect recall, no leaks, resampling, and an exact
algorithm (``exploitability.nash_conv``) on the smallest game.

The double-six game is tests/extras/test_openspiel.py's; its strings and tensors are unchanged.
"""

from __future__ import annotations

import random
import time
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from conftest import with_hidden_tiles_reshuffled  # noqa: E402

import allfives_openspiel  # noqa: E402,F401  (registers python_allfives)
from allfives_env.core.records import record_of, replay  # noqa: E402
from allfives_env.core.rules import Rules  # noqa: E402
from allfives_env.core.tiles import PIPS, set_size, set_tiles  # noqa: E402
from allfives_openspiel.game import (  # noqa: E402
    MOVES_PER_HAND,
    AllFivesGame,
    ParameterError,
    moves_per_hand,
    params_of,
    settings_from_params,
)
from tests.extras.test_openspiel import (  # noqa: E402
    SINGLE,
    information_key,
    observers,
    random_play,
    random_play_to_decision,
    sampler,
    seen_by,
)

TINY = "python_allfives(preset=pagat,players=2,max_pip=2,hand_size=2)"
"""The smallest game: the six tiles of double-two, two in each hand, two in the boneyard."""

GAMES = [
    "preset=pagat,players=2,max_pip=2,hand_size=2",
    "preset=five_up,players=2,max_pip=2,hand_size=3,episode=match,target=11",
    "preset=pagat,players=3,max_pip=3,hand_size=2",
    "preset=spruce,players=2,max_pip=3,hand_size=4,episode=match,target=30",
    "preset=dominoes_cc,players=4,max_pip=3,hand_size=2",
    "preset=pyatyorka,players=3,max_pip=4,hand_size=3,rewards=terminal",
    "preset=five_up,players=4,max_pip=4,hand_size=3,partnerships=each",
    "preset=pagat,players=4,max_pip=5,hand_size=4,episode=match,target=40",
    "preset=pyatyorka,players=2,max_pip=5,hand_size=6",
]


def load(params: str) -> Any:
    return pyspiel.load_game(f"python_allfives({params})")


@pytest.mark.parametrize("params", GAMES)
def test_pyspiels_random_sim_test_passes_on_a_small_set(params: str) -> None:
    game = load(params)
    sims = 2 if "match" in params else 6
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)


@pytest.mark.parametrize("params", GAMES)
def test_sizes_and_chance_follow_the_set(params: str) -> None:
    game = load(params)
    rules = game.rules
    n, s = rules.num_players, rules.num_slots
    tiles = [int(t) for t in set_tiles(rules.max_pip)]
    t = len(tiles)
    assert t == set_size(rules.max_pip) and rules.max_pip < 6
    assert game.num_distinct_actions() == t * s + 2 == game.encoding.num_actions
    assert game.max_chance_outcomes() == max(tiles) + 1
    assert game.max_game_length() == moves_per_hand(t) * (1 if "match" not in params else 200)
    assert moves_per_hand(28) == MOVES_PER_HAND
    assert game.observation_tensor_shape() == [game.encoding.obs_size]
    match = 1 + n + 2 if "match" in params else 0
    recall = 3 + (t + t * s) + (t + 1) * n + match + t + t
    assert game.information_state_tensor_shape() == [game.encoding.obs_size + recall]
    state = game.new_initial_state()
    assert [a for a, _ in state.chance_outcomes()] == tiles
    rng = random.Random(params)
    dealt: list[int] = []
    while state.is_chance_node() and state.dealt is not None and not state.lot:
        outcomes = state.chance_outcomes()
        assert [a for a, _ in outcomes] == [x for x in tiles if x not in dealt]
        assert all(p == pytest.approx(1 / len(outcomes)) for _, p in outcomes)
        dealt.append(rng.choice(outcomes)[0])
        state.apply_action(dealt[-1])
    assert len(dealt) == n * rules.hand_size
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = [a for a, _ in state.chance_outcomes()]
            assert all(0 <= a < game.max_chance_outcomes() for a in outcomes)
            state.apply_action(rng.choice(outcomes))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    result = replay(record_of(state.engine))  # a record of a small set replays
    assert result.scores == state.engine.scores


def test_a_tile_outside_the_set_is_no_chance_outcome() -> None:
    game = pyspiel.load_game(TINY)
    state = game.new_initial_state()
    outside = next(x for x in range(28) if x not in set_tiles(2))
    chance = pyspiel.PlayerId.CHANCE
    with pytest.raises(pyspiel.SpielError, match="not left to deal"):
        state.apply_action(outside)
    with pytest.raises(pyspiel.SpielError, match=r"not a tile \(an id of the double-2 set\)"):
        state.action_to_string(chance, outside)
    assert state.action_to_string(chance, 13) == "deal 2-2 to seat 0"


def test_game_strings_name_the_set_and_load_again() -> None:
    game = pyspiel.load_game(TINY)
    assert str(game) == (
        "python_allfives(episode=hand,hand_size=2,max_pip=2,partnerships=preset,players=2,"
        "preset=pagat,rewards=step)"
    )
    for params in GAMES:
        game = load(params)
        again = pyspiel.load_game(str(game))
        assert str(again) == str(game) and again.rules == game.rules
        state = random_play_to_decision(game, random.Random(3), moves=5)
        game2, state2 = pyspiel.deserialize_game_and_state(
            pyspiel.serialize_game_and_state(game, state)
        )
        assert str(game2) == str(game) and str(state2) == str(state)
        assert settings_from_params(params_of(game.rules)).rules == game.rules
    # the double-six game's string names none of the new parameters (earlier versions' string)
    full = load("preset=pagat,players=2,max_pip=6,hand_size=0,target=0")
    assert str(full) == (
        "python_allfives(episode=hand,partnerships=preset,players=2,preset=pagat,rewards=step)"
    )
    assert full.rules == Rules.preset("pagat", 2)
    longer = load("preset=pagat,players=2,target=100,hand_size=5")
    assert longer.rules == Rules.preset("pagat", 2, target=100, hand_size=5)
    assert "hand_size=5" in str(longer) and "target=100" in str(longer)


def test_params_of_writes_the_set_where_it_differs() -> None:
    assert "max_pip" not in params_of(Rules.preset("pagat", 2))
    small = Rules.preset("five_up", 3, max_pip=3, hand_size=2)
    params = params_of(small)
    assert (params["max_pip"], params["hand_size"]) == (3, 2) and "target" not in params
    assert params_of(Rules.preset("pagat", 2, target=99))["target"] == 99
    game = AllFivesGame.for_rules(small)
    assert game.rules == small and pyspiel.load_game(str(game)).rules == small


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ("max_pip=2", "'hand_size' must be an int from 1 to 3 (the double-2 set's 6 tiles"),
        ("max_pip=3,hand_size=4,players=3", "'hand_size' must be an int from 1 to 3"),
        ("max_pip=1,hand_size=1", "'max_pip' must be an int from 2 to 6"),
        ("max_pip=0,hand_size=1", "'max_pip' must be an int from 2 to 6"),
        ("max_pip=7", "'max_pip' must be an int from 2 to 6"),
        ("hand_size=-1", "hand_size must be a whole number of at least 0"),
        ("target=-5", "target must be a whole number of at least 0"),
    ],
)
def test_bad_set_parameters_are_one_line_errors(params: str, message: str) -> None:
    with pytest.raises(ParameterError) as info:
        load(params)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_a_bad_parameter_type_is_pyspiels_error() -> None:
    with pytest.raises(pyspiel.SpielError, match="max_pip"):
        load("max_pip=two")
    with pytest.raises(ParameterError, match="max_pip must be a whole number"):
        AllFivesGame({"max_pip": 2.5, "hand_size": 2})


@pytest.mark.parametrize("seed", range(6))
def test_nothing_shown_to_a_seat_depends_on_hidden_tiles(seed: int) -> None:
    """Every hidden tile dealt anew: the seat's observations, information states (strings and
    tensors, with and without recall) and resampled worlds do not change."""
    rng = random.Random(seed)
    game = load(GAMES[2 + seed % 7])
    state = random_play_to_decision(game, rng, moves=rng.randrange(1, 12))
    if state.is_terminal():
        return
    views = observers(game, SINGLE)
    for p in range(game.num_players()):
        twin = state.clone()
        twin.engine = with_hidden_tiles_reshuffled(state.engine, p, rng)
        assert state.observation_string(p) == twin.observation_string(p)
        assert state.information_state_string(p) == twin.information_state_string(p)
        assert state.observation_tensor(p) == twin.observation_tensor(p)
        assert state.information_state_tensor(p) == twin.information_state_tensor(p)
        for view in views:
            assert seen_by(view, state, p) == seen_by(view, twin, p)
        worlds = [s.resample_from_infostate(p, sampler(seed)) for s in (state, twin)]
        assert str(worlds[0].engine) == str(worlds[1].engine)
        for world in worlds:
            assert world.information_state_string(p) == state.information_state_string(p)
            assert world.information_state_tensor(p) == state.information_state_tensor(p)
            assert {int(t) for t in world.engine.boneyard} <= set(
                map(int, set_tiles(game.rules.max_pip))
            )
            random_play(world, rng)


def test_a_referee_tensor_indexes_tiles_by_rank() -> None:
    from open_spiel.python.observation import make_observation

    game = load("preset=pagat,players=3,max_pip=3,hand_size=2")
    state = random_play_to_decision(game, random.Random(1), moves=2)
    referee = make_observation(
        game,
        pyspiel.IIGObservationType(
            perfect_recall=True, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS
        ),
    )
    referee.set_from(state, 1)
    rank = game.encoding.index_tile
    hands = referee.dict["hands"].reshape(-1, 10)[:3]
    assert [[rank[i] for i in np.flatnonzero(h)] for h in hands] == [
        [int(t) for t in state.engine.hand((1 + r) % 3)] for r in range(3)
    ]


@pytest.mark.parametrize(
    ("params", "hands_before"),
    [
        ("preset=pagat,players=2,max_pip=2,hand_size=2", 0),
        ("preset=five_up,players=3,max_pip=3,hand_size=2", 0),
        ("preset=pyatyorka,players=2,max_pip=4,hand_size=4", 0),
        ("preset=pagat,players=2,max_pip=3,hand_size=3,episode=match,target=15", 1),
    ],
)
def test_the_information_state_has_perfect_recall_on_a_small_set(
    params: str, hands_before: int
) -> None:
    """Two positions share a seat's information-state tensor (and, within a hand, its string)
    exactly when the seat has seen the same things in the same order. A match's tensor keeps
    earlier hands by their ends only (as the module docstring of the observer says), its
    string in full: across hands only the tensor is held to the key that forgets them, and
    not while the next hand is dealt (the tensor still shows the hand that ended, which that
    key has forgotten: it knows more, not less)."""
    game = load(params)
    rng = random.Random(1)
    root = game.new_initial_state()
    while root.is_chance_node() or root.seen.hands <= hands_before:
        root.apply_action(rng.choice(root.legal_actions()))
    keys: dict[Any, set[Any]] = {}
    tensors: dict[Any, set[Any]] = {}
    for _ in range(40):
        state = root.clone()
        for _ in range(30):
            if state.is_terminal():
                break
            for p in range(game.num_players()):
                key = (p, information_key(game, state.history(), p, hands_before > 0))
                tensor = np.asarray(state.information_state_tensor(p), np.float32).tobytes()
                keys.setdefault((p, tensor), set()).add(key)
                if not hands_before:
                    tensors.setdefault(key, set()).add((tensor, state.information_state_string(p)))
                elif state.dealt is None:
                    tensors.setdefault(key, set()).add((tensor, ""))
            state.apply_action(rng.choice(state.legal_actions()))
    assert all(len(k) == 1 for k in keys.values())
    assert all(len(t) == 1 for t in tensors.values())
    assert len(keys) > 20


def test_the_match_tensor_divides_the_pips_by_the_sets() -> None:
    game = load("preset=pagat,players=2,max_pip=3,hand_size=3,episode=match,target=40")
    state = game.new_initial_state()
    rng = random.Random(2)
    while state.seen.hands < 2 and not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    last = state.seen.last
    observer = observers(game, SINGLE)[1]
    observer.set_from(state, 0)
    pips = sum(PIPS[t] for t in set_tiles(3))
    assert pips == 3 * 4 * 5 // 2
    assert list(observer.dict["match"][1:3]) == pytest.approx([p / pips for p in last.pips])


def test_nash_conv_of_the_uniform_policy_on_the_smallest_game() -> None:
    """The smallest game is small enough for OpenSpiel's exact best response: the uniform
    random policy's NashConv is computed over the whole tree (about 10 s on one busy core)."""
    from open_spiel.python import policy
    from open_spiel.python.algorithms import exploitability

    game = pyspiel.load_game(TINY)
    start = time.perf_counter()
    value = exploitability.nash_conv(game, policy.UniformRandomPolicy(game))
    elapsed = time.perf_counter() - start
    assert value == pytest.approx(0.875)
    assert elapsed < 120
