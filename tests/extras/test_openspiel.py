"""All Fives in OpenSpiel: pyspiel's own checks, the engine's scores through pyspiel, chance,
parameters, perfect recall, no leaks, resampling, serialization, and OpenSpiel's algorithms and
bots running on it."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from conftest import with_hidden_tiles_reshuffled  # noqa: E402

import allfives_openspiel  # noqa: E402,F401  (registers python_allfives)
from allfives_env.core.records import record_of, replay  # noqa: E402
from allfives_env.core.rules import PRESETS  # noqa: E402
from allfives_openspiel.game import AllFivesGame, ParameterError  # noqa: E402
from allfives_openspiel.state import AllFivesState, Seen  # noqa: E402

NONE, SINGLE, ALL = (pyspiel.PrivateInfoType.NONE, pyspiel.PrivateInfoType.SINGLE_PLAYER,
                     pyspiel.PrivateInfoType.ALL_PLAYERS)  # fmt: skip


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


def seen_by(observer: Any, state: Any, player: int) -> tuple[bytes, str]:
    """What ``observer`` shows ``player`` of ``state``: its tensor and its string."""
    observer.set_from(state, player)
    return observer.tensor.tobytes(), observer.string_from(state, player)


def observers(game: Any, private: Any) -> list[Any]:
    """``game``'s observers with public info and ``private``, with and without recall."""
    from open_spiel.python.observation import make_observation

    return [make_observation(game, pyspiel.IIGObservationType(perfect_recall=recall,
                                                              private_info=private))
            for recall in (False, True)]  # fmt: skip


def sampler(seed: int) -> Any:
    """A probability sampler as OpenSpiel passes one: floats in [0, 1), seeded."""
    return random.Random(seed).random


@pytest.mark.parametrize("seed", range(8))
def test_tensors_strings_and_worlds_hold_nothing_the_seat_cannot_see(seed: int) -> None:
    """Every hidden tile dealt anew (the other hands, the boneyard and its order): the seat's
    observations, information states and resampled worlds do not change."""
    rng = random.Random(seed)
    game = load(preset=["pagat", "five_up", "pyatyorka"][seed % 3], players=2 + seed % 3,
                episode=["hand", "match"][seed % 2])  # fmt: skip
    state = random_play_to_decision(game, rng, moves=rng.randrange(1, 60))
    if state.is_terminal():
        return
    views = observers(game, SINGLE)
    for p in range(game.num_players()):
        twin = state.clone()
        twin.engine = with_hidden_tiles_reshuffled(state.engine, p, rng)
        assert twin.engine.hand(p) == state.engine.hand(p)
        assert state.observation_string(p) == twin.observation_string(p)
        assert state.information_state_string(p) == twin.information_state_string(p)
        assert state.observation_tensor(p) == twin.observation_tensor(p)
        assert state.information_state_tensor(p) == twin.information_state_tensor(p)
        for view in views:
            assert seen_by(view, state, p) == seen_by(view, twin, p)
        worlds = [s.resample_from_infostate(p, sampler(seed)) for s in (state, twin)]
        assert str(worlds[0].engine) == str(worlds[1].engine)  # every hand shown: the same
        assert [seen_by(v, worlds[0], q) for v in views for q in range(game.num_players())] == [
            seen_by(v, worlds[1], q) for v in views for q in range(game.num_players())
        ]


@pytest.mark.parametrize("seed", range(4))
def test_a_public_observer_shows_none_of_the_seats_own_tiles(seed: int) -> None:
    """With ``private_info=NONE`` two positions that differ only in hidden tiles (the seat's
    own included) look the same; the default (the seat's own tiles) tells them apart."""
    rng = random.Random(seed)
    game = load(preset=["pagat", "five_up"][seed % 2], players=2 + seed % 3)
    state = random_play_to_decision(game, rng, moves=rng.randrange(1, 20))
    if state.is_terminal():
        return
    p, other = 0, 1
    twin = state.clone()
    twin.engine = with_hidden_tiles_reshuffled(state.engine, other, rng)  # seat 0's tiles too
    seen = state.seen  # and no private history at all
    twin.seen = Seen(seen.hands, seen.prev, seen.last, seen.past, ((),) * game.num_players())
    for view in observers(game, NONE):
        assert seen_by(view, state, p) == seen_by(view, twin, p)
        assert not any(str(t) in view.string_from(state, p).split() for t in state.engine.hand(p))
    if twin.engine.hand(p) != state.engine.hand(p):
        for view in observers(game, SINGLE):
            assert seen_by(view, state, p) != seen_by(view, twin, p)


def test_a_referee_observer_shows_every_hand_and_a_private_one_only_the_seats() -> None:
    from open_spiel.python.observation import make_observation

    game = load(preset="pagat", players=3)
    state = random_play_to_decision(game, random.Random(3), moves=4)
    referee = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True,
                                                               private_info=ALL))  # fmt: skip
    text = referee.string_from(state, 0)
    assert all(f"seat {s} holds " + " ".join(map(str, state.engine.hand(s))) in text
               for s in range(3))  # fmt: skip
    referee.set_from(state, 1)
    hands = referee.dict["hands"].reshape(-1, 28)[:3]  # relative seats 0, 1, 2 from seat 1
    assert [list(np.flatnonzero(h)) for h in hands] == [
        [int(t) for t in state.engine.hand((1 + r) % 3)] for r in range(3)
    ]
    private = make_observation(game, pyspiel.IIGObservationType(
        perfect_recall=False, public_info=False, private_info=SINGLE))  # fmt: skip
    assert private.string_from(state, 2) == (
        f"seat 2 | seat 2 holds {' '.join(map(str, state.engine.hand(2)))}"
    )
    private.set_from(state, 2)
    assert private.tensor.size == 56 and private.tensor[:28].sum() == len(state.engine.hand(2))


def information_key(game: Any, history: list[int], seat: int, match: bool) -> Any:
    """Everything ``seat`` has seen along ``history``, in order (the deal as a set, as no seat
    acts during it); with ``match``, each earlier hand only by what its end showed."""
    state = game.new_initial_state()
    items: list[Any] = []
    mine: list[Any] = []
    for a in history:
        if state.is_chance_node() and state.lot:
            items.append(("lot", a))
        elif state.is_chance_node() and state.drawing:
            drawer = state.engine.current_player
            items.append(("draw", drawer, a if drawer == seat else None))
        elif state.is_chance_node():
            if state.dealt is None and match and state.seen.last is not None:
                last = state.seen.last
                items, mine = [("hand", state.seen.hands, state.scores(), last.pips, last.end)], []
            to = state.deal_seat if state.dealt is not None else 0
            items.append(("deal", to))
            if to == seat:
                mine.append(a)
        else:
            items.append(("move", state.current_player(), a))
        state.apply_action(a)
    return tuple(items), frozenset(mine)


@pytest.mark.parametrize(
    ("params", "hands_before"),
    [("preset=pagat,players=2", 0), ("preset=five_up,players=3", 0),
     ("preset=pyatyorka,players=4", 0), ("preset=pagat,players=3,episode=match", 1)],
)  # fmt: skip
def test_the_information_state_tensor_has_perfect_recall(params: str, hands_before: int) -> None:
    """From one deal, many random lines of play: two positions share a seat's information-state
    tensor exactly when the seat has seen the same things in the same order. The observation
    tensor, which forgets the order, does not (the check has teeth)."""
    game = pyspiel.load_game(f"python_allfives({params})")
    rng = random.Random(1)
    root = game.new_initial_state()
    while root.is_chance_node() or root.seen.hands <= hands_before:
        root.apply_action(rng.choice(root.legal_actions()))
    keys: dict[Any, set[Any]] = {}
    tensors: dict[Any, set[bytes]] = {}
    forgetful: dict[Any, set[Any]] = {}
    for _ in range(25):
        state = root.clone()
        for _ in range(40):
            if state.is_terminal():
                break
            for p in range(game.num_players()):
                key = (p, information_key(game, state.history(), p, hands_before > 0))
                tensor = np.asarray(state.information_state_tensor(p), np.float32).tobytes()
                keys.setdefault((p, tensor), set()).add(key)
                tensors.setdefault(key, set()).add(tensor)
                obs = np.asarray(state.observation_tensor(p), np.float32).tobytes()
                forgetful.setdefault((p, obs), set()).add(key)
            state.apply_action(rng.choice(state.legal_actions()))
    assert all(len(k) == 1 for k in keys.values())  # no two histories share a tensor
    assert all(len(t) == 1 for t in tensors.values())  # one history, one tensor
    assert any(len(k) > 1 for k in forgetful.values())


def test_a_match_information_state_keeps_the_finished_hands_and_their_pips() -> None:
    game = load(preset="pagat", players=2, episode="match")
    state = game.new_initial_state()
    rng = random.Random(2)
    while state.seen.hands < 2 and not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    last = state.seen.last
    text = state.information_state_string(0)
    assert f"end {last.end} | pips {'/'.join(map(str, last.pips))}" in text
    assert "hand 1 dealt" in text and "hand 2 dealt" in text
    observer = observers(game, SINGLE)[1]  # with perfect recall
    observer.set_from(state, 0)
    assert observer.dict["match"][0] == pytest.approx(2 / 200)  # the hand number
    assert list(observer.dict["match"][1:3]) == pytest.approx([p / 168 for p in last.pips])


def test_chance_outcomes_are_refused_where_chance_does_not_move() -> None:
    state = random_play_to_decision(load(), random.Random(0))
    with pytest.raises(pyspiel.SpielError, match="chance_outcomes"):
        state.chance_outcomes()
    state = random_play(state, random.Random(0))
    with pytest.raises(pyspiel.SpielError, match="chance_outcomes"):
        state.chance_outcomes()
    assert state.legal_actions() == []


def test_a_match_ends_when_its_last_hand_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    """At the hand cap (200; 2 here) the match is over whatever the scores, as the project's
    match loop stops after ``max_hands`` hands."""
    import allfives_openspiel.game

    monkeypatch.setattr(allfives_openspiel.game, "MAX_HANDS", 2)
    game = load(preset="five_up", players=2, episode="match")  # a target of exactly 61: long
    assert game.max_game_length() == 2 * allfives_openspiel.game.MOVES_PER_HAND
    state = random_play(game.new_initial_state(), random.Random(0))
    assert state.seen.hands == 2 and not state.engine.is_match_over
    margin = state.scores()[0] - sum(state.scores()) / 2
    assert state.returns() == pytest.approx([margin, -margin])
    assert len(state.history()) < game.max_game_length() + 200  # chance outcomes apart


@pytest.mark.parametrize(
    ("params", "sides"),
    [("preset=pagat,players=4,partnerships=each", 4),
     ("preset=pagat,players=4,partnerships=pairs", 2), ("preset=pagat,players=4", 2),
     ("preset=dominoes_cc,players=4", 4), ("preset=dominoes_cc,players=4,partnerships=pairs", 2),
     ("preset=five_up,players=4,partnerships=each", 4)],
)  # fmt: skip
def test_every_seating_round_trips(params: str, sides: int) -> None:
    """``preset`` (the default) seats the preset's way, ``pairs`` in pairs, ``each`` each for
    himself; the game's own text loads it again, and its states serialize."""
    game = pyspiel.load_game(f"python_allfives({params})")
    assert game.rules.num_sides == sides
    again = pyspiel.load_game(str(game))
    assert str(again) == str(game) and again.rules == game.rules
    state = random_play_to_decision(game, random.Random(7), moves=12)
    game2, state2 = pyspiel.deserialize_game_and_state(
        pyspiel.serialize_game_and_state(game, state))  # fmt: skip
    assert str(game2) == str(game) and str(state2) == str(state)
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize("preset", ["pagat", "spruce", "dominoes_cc", "pyatyorka", "five_up"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_partnerships_means_what_it_means_in_pettingzoo(preset: str, players: int) -> None:
    """OpenSpiel's ``preset``/``pairs``/``each`` are the environments' ``None``/``True``/``False``:
    the same rules, for every preset and player count; and :func:`params_of` names each."""
    from allfives_env import raw_env
    from allfives_openspiel.game import SEATINGS, params_of

    for seating, partnerships in SEATINGS.items():
        game = load(preset=preset, players=players, partnerships=seating)
        env = raw_env(rules=preset, num_players=players, partnerships=partnerships)
        assert game.rules == env.rules
        assert settings_rules(params_of(env.rules)) == env.rules


def settings_rules(params: dict[str, object]) -> Any:
    from allfives_openspiel.game import settings_from_params

    return settings_from_params(params).rules


def test_game_strings_of_earlier_versions_load_the_game_they_named() -> None:
    """``partnerships`` was a bool up to 0.16 (``true``: the preset's own seating): pyspiel
    refuses it now, and ``load_game`` upgrades it to the same game."""
    from allfives_openspiel import load_game, upgrade_game_string

    with pytest.raises(pyspiel.SpielError, match="partnerships"):  # pyspiel checks the type
        pyspiel.load_game("python_allfives(players=4,partnerships=true)")
    cases = {
        "python_allfives(preset=dominoes_cc,players=4,partnerships=true)": 4,
        "python_allfives(players=4,partnerships=true)": 2,
        "python_allfives(partnerships=false,players=4)": 4,
        "python_allfives(preset=five_up,players=4,partnerships=False,episode=match)": 4,
    }
    for old, sides in cases.items():
        assert load_game(old).rules.num_sides == sides
    assert upgrade_game_string("python_allfives(players=4,partnerships=true)") == (
        "python_allfives(players=4,partnerships=preset)"
    )
    assert upgrade_game_string("kuhn_poker(players=3)") == "kuhn_poker(players=3)"


def test_partnerships_takes_a_seating() -> None:
    with pytest.raises(ParameterError, match="partnerships must be preset, pairs or each"):
        pyspiel.load_game("python_allfives(players=4,partnerships=default)")
    with pytest.raises(ParameterError, match="partnerships must be preset, pairs or each"):
        AllFivesGame({"players": 4, "partnerships": "false"})
    with pytest.raises(ParameterError, match="now preset"):
        AllFivesGame({"players": 4, "partnerships": True})
    with pytest.raises(ParameterError, match="rewards"):
        load(rewards="sometimes")


def test_terminal_rewards_pay_the_same_returns_at_the_end() -> None:
    step, terminal = load(preset="pagat", players=3), load(preset="pagat", players=3,
                                                          rewards="terminal")  # fmt: skip
    model = pyspiel.GameType.RewardModel
    assert step.get_type().reward_model == model.REWARDS
    assert terminal.get_type().reward_model == model.TERMINAL
    assert str(pyspiel.load_game(str(terminal))) == str(terminal)
    a = random_play(step.new_initial_state(), random.Random(5))
    b = terminal.new_initial_state()
    total = [0.0] * 3
    for action in a.history():
        assert b.returns() == [0.0] * 3 and b.rewards() == [0.0] * 3
        b.apply_action(action)
        total = [t + r for t, r in zip(total, b.rewards(), strict=True)]
    assert b.is_terminal() and b.returns() == pytest.approx(a.returns())
    assert total == pytest.approx(a.returns())
    assert any(a.returns())


@pytest.mark.parametrize("seed", range(5))
def test_a_resampled_state_agrees_with_the_seats_information_state(seed: int) -> None:
    """At a decision, a pending draw or midway through the deal, a world resampled for a seat
    shows that seat all it saw; the hidden tiles vary from world to world, and a world plays
    on to the end."""
    rng = random.Random(seed)
    game = load(preset=["pagat", "dominoes_cc", "five_up", "pyatyorka", "spruce"][seed],
                players=2 + seed % 3, episode=["hand", "match"][seed % 2])  # fmt: skip
    state = game.new_initial_state()
    kinds: set[str] = set()
    varied = False
    for step in range(200):
        if state.is_terminal():
            break
        kind = "deal" if state.dealt is not None else "draw" if state.drawing else "move"
        now = kind == "move" and state.current_player() >= 0 and step % 7 == 0
        if now or (kind not in kinds and (kind != "deal" or step == 5)):
            varied |= _check_worlds(game, state, rng)
            kinds.add(kind)
        state.apply_action(rng.choice(state.legal_actions()))
    assert {"deal", "move"} <= kinds and varied


def _check_worlds(game: Any, state: Any, rng: random.Random) -> bool:
    """Check four worlds per seat; whether they differed."""
    views = observers(game, SINGLE)
    hidden: set[str] = set()
    for p in range(game.num_players()):
        worlds = [state.resample_from_infostate(p, sampler(rng.randrange(99))) for _ in range(4)]
        for world in worlds:
            assert world.current_player() == state.current_player()
            assert world.information_state_string(p) == state.information_state_string(p)
            assert world.information_state_tensor(p) == state.information_state_tensor(p)
            assert world.observation_string(p) == state.observation_string(p)
            assert [seen_by(v, world, p) for v in views] == [seen_by(v, state, p) for v in views]
            assert world.legal_actions() == state.legal_actions() or state.current_player() != p
            if world.engine is not None:
                assert world.engine.hand_sizes == state.engine.hand_sizes
        hidden.update(str(w.engine) + str(w.dealt) for w in worlds)
        random_play(worlds[0], rng)
    return len(hidden) > 1


def _ismcts(game: Any, sims: int = 12, seed: int = 0) -> Any:
    from open_spiel.python.algorithms import ismcts, mcts

    class ISMCTS(ismcts.ISMCTSBot):  # type: ignore[misc]
        """OpenSpiel's ISMCTS, restartable (``evaluate_bots`` restarts every bot)."""

        def restart_at(self, state: Any) -> None:
            pass

    rs = np.random.RandomState(seed)
    return ISMCTS(game, mcts.RandomRolloutEvaluator(1, rs), 15.0, sims, random_state=rs)


def test_openspiels_ismcts_and_mcts_bots_play_the_game_as_loaded() -> None:
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("python_allfives(preset=pagat,players=2)")
    state = random_play_to_decision(game, random.Random(1), moves=3)
    while len(state.legal_actions()) < 2:
        state = random_play_to_decision(game, random.Random(state.move_number()), moves=3)
    assert _ismcts(game).step(state) in state.legal_actions()  # default settings
    with pytest.raises(ValueError, match="terminal rewards"):
        mcts.MCTSBot(game, 15.0, 8, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)))
    terminal = pyspiel.load_game("python_allfives(preset=pagat,players=2,rewards=terminal)")
    bot = mcts.MCTSBot(terminal, 15.0, 12, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
                       random_state=np.random.RandomState(0))  # fmt: skip
    state = pyspiel.deserialize_game_and_state(
        pyspiel.serialize_game_and_state(terminal, state))[1]  # fmt: skip
    assert bot.step(state) in state.legal_actions()


def test_evaluate_bots_sets_openspiel_bots_against_the_projects_agents() -> None:
    from open_spiel.python.algorithms import evaluate_bots

    from allfives_openspiel.bots import AgentBot

    game = pyspiel.load_game("python_allfives(preset=pagat,players=2)")
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(),
                                          [_ismcts(game, sims=4), AgentBot(1, "heuristic")],
                                          np.random.RandomState(0))  # fmt: skip
    assert sum(returns) == pytest.approx(0.0)
    bots = [pyspiel.make_uniform_random_bot(0, 3), AgentBot(1, "greedy", seed=1)]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 4)  # pyspiel's C++ loop
    assert sum(returns) == pytest.approx(0.0)
    state = random_play_to_decision(game, random.Random(0))
    with pytest.raises(pyspiel.SpielError, match="plays seat"):
        AgentBot(1 - state.current_player(), "random").step(state)


def test_a_search_game_can_play_rules_no_parameter_names() -> None:
    from allfives_env.core.rules import Rules

    rules = Rules.preset("dominoes_cc", 4, partnerships=True, target=100)
    game = AllFivesGame.for_rules(rules, rewards="terminal")
    assert game.rules == rules and game.get_type().reward_model.name == "TERMINAL"
    state = random_play(game.new_initial_state(), random.Random(0))
    assert state.engine.rules == rules and sum(state.returns()) == pytest.approx(0.0)


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


# ------------------------------------------------------------------ what a state refuses


def fingerprint(state: Any) -> tuple[Any, ...]:
    """All a state shows through pyspiel's API (and what its next moves would be)."""
    return (
        state.history(),
        str(state),
        state.current_player(),
        state.returns(),
        state.legal_actions(),
        [state.observation_string(p) for p in range(state.num_players())],
    )


def first_node(game: Any, found: Any, seed: int = 0, limit: int = 40) -> Any:
    """The first state of a seeded random play (a few tries) where ``found(state)`` holds."""
    for k in range(limit):
        rng = random.Random(seed * 1000 + k)
        state = game.new_initial_state()
        while not state.is_terminal():
            if found(state):
                return state
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        if found(state):
            return state
    raise AssertionError("no such node in these plays")


@pytest.mark.parametrize("episode", ["hand", "match"])
def test_a_terminal_state_refuses_every_action_and_its_history_stays(episode: str) -> None:
    game = load(preset="five_up", players=2, episode=episode)
    state = random_play(game.new_initial_state(), random.Random(6))
    before = fingerprint(state)
    for action in (0, 5, 27, 100, game.num_distinct_actions() - 1):
        with pytest.raises(pyspiel.SpielError, match="terminal state"):
            state.apply_action(action)
    assert fingerprint(state) == before and state.is_terminal()
    clone = state.clone()  # a clone refuses alike
    with pytest.raises(pyspiel.SpielError, match="terminal state"):
        clone.apply_action(0)


NODES = {
    "the deal": lambda s: s.engine is None and s.is_chance_node(),
    "a lot": lambda s: bool(s.lot),
    "a draw's tile": lambda s: s.drawing,
    "the next hand's first tile": lambda s: (
        s.engine is not None and s.dealt is None and s.is_chance_node() and not s.drawing
        and not s.lot
    ),
    "a seat's move": lambda s: s.current_player() >= 0,
}  # fmt: skip


@pytest.mark.parametrize("node", list(NODES))
def test_every_node_refuses_what_it_cannot_take_and_changes_nothing(node: str) -> None:
    """An id no player or chance could give here (a tile dealt or drawn already, a tile id or
    seat out of range, a seat's action at a chance node, a chance outcome at a seat's turn)
    is a ``SpielError``; the state is as it was, and plays on."""
    game = load(preset="pagat", players=3, episode="match")
    state = first_node(game, NODES[node])
    legal = set(state.legal_actions())
    bad = [a for a in (0, 1, 2, 3, 27, 28, 29, 100, 10**6, 2**40, -1) if a not in legal]
    bad += [a for a in range(game.num_distinct_actions()) if a not in legal][:20]
    before = fingerprint(state)
    for action in bad:
        with pytest.raises(pyspiel.SpielError):
            state.apply_action(action)
        assert fingerprint(state) == before, action
    state.apply_action(min(legal))  # and the state plays on
    assert len(state.history()) == len(before[0]) + 1


def test_action_to_string_refuses_an_id_that_is_no_action() -> None:
    game = load(preset="pagat", players=3, episode="match")
    n = game.num_distinct_actions()
    for node, ids in [("the deal", (28, 100, -1)), ("a draw's tile", (28, -1)),
                      ("a lot", (3, 9, -1)), ("a seat's move", (n, n + 5, -1, -3))]:  # fmt: skip
        state = first_node(game, NODES[node])
        player = state.current_player()
        for action in ids:
            with pytest.raises(pyspiel.SpielError, match=str(action)):
                state.action_to_string(player, action)
        assert state.action_to_string(player, state.legal_actions()[0])


@pytest.mark.parametrize("seat", [2, 3, -1, True, 1.0, "0", None])
def test_what_a_seat_has_seen_is_refused_for_a_seat_that_is_not_one(seat: Any) -> None:
    """A negative seat does not count from the end: that would be another seat's secrets."""
    game = load(preset="five_up", players=2)
    state = first_node(game, NODES["a seat's move"])
    before = fingerprint(state)
    for call in (state.private_history, state.drew, state.view):
        with pytest.raises(pyspiel.SpielError, match="no seat"):
            call(seat)
    from open_spiel.python.observation import make_observation

    for iig in (None, pyspiel.IIGObservationType(perfect_recall=True)):
        observer = make_observation(game, iig)
        observer.set_from(state, 0)
        tensor = observer.tensor.copy()
        with pytest.raises(pyspiel.SpielError, match="no seat"):
            observer.set_from(state, seat)
        with pytest.raises(pyspiel.SpielError, match="no seat"):
            observer.string_from(state, seat)
        assert np.array_equal(observer.tensor, tensor)
    assert fingerprint(state) == before
    assert state.view(np.int64(1)) == state.view(1)


@pytest.mark.parametrize("value", [1.0, -0.25, float("nan"), 2, "0.5", None, True])
def test_resampling_refuses_a_sampler_that_gives_no_probability(value: Any) -> None:
    game = load(preset="five_up", players=2)
    state = first_node(game, NODES["a seat's move"])
    with pytest.raises(pyspiel.SpielError, match="probability_sampler"):
        state.resample_from_infostate(0, lambda: value)
    world = state.resample_from_infostate(0, lambda: 0.5)
    assert world.information_state_string(0) == state.information_state_string(0)


@pytest.mark.parametrize(
    ("player_id", "seed"),
    [(-1, 0), (4, 0), (True, 0), ("1", 0), (1, -1), (1, 2**64), (1, 2.5), (1, "7"), (1, True)],
)
def test_a_bot_refuses_a_seat_or_seed_that_is_not_one(player_id: Any, seed: Any) -> None:
    from allfives_env.core.errors import ArgumentError
    from allfives_openspiel.bots import AgentBot

    with pytest.raises(ArgumentError, match="player_id" if seed == 0 else "seed"):
        AgentBot(player_id, "random", seed=seed)
    assert AgentBot(np.int64(1), "random", seed=2**64 - 1).player_id() == 1
