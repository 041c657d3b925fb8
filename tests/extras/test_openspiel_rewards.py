"""Every OpenSpiel RL learner, stepped as ``python -m allfives_openspiel.train`` steps it, is
handed exactly its seat's return (the ``[openspiel]`` extra; skipped without it)."""

from __future__ import annotations

import random
from typing import Any, NamedTuple

import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python import rl_environment  # noqa: E402

import allfives_openspiel  # noqa: E402,F401  (registers python_allfives)
from allfives_openspiel.seat_rewards import SeatRewardEnvironment  # noqa: E402
from allfives_openspiel.train import play_episode  # noqa: E402


class Output(NamedTuple):
    action: int | None


class Recorder:
    """A learner that plays a random legal action and adds up the rewards it is handed."""

    def __init__(self, player: int, rng: random.Random) -> None:
        self.player, self.rng, self.handed, self.positive = player, rng, 0.0, 0.0

    def step(self, time_step: Any) -> Output:
        if time_step.rewards is not None:
            reward = time_step.rewards[self.player]
            self.handed += reward
            self.positive += max(reward, 0.0)
        if time_step.last():
            return Output(None)
        legal = time_step.observations["legal_actions"][self.player]
        return Output(self.rng.choice(legal))


def handed(env_class: type, game_string: str, episodes: int, seed: int) -> list[tuple[float, ...]]:
    """(handed, return) per seat and episode."""
    game = pyspiel.load_game(game_string)
    sampler = rl_environment.ChanceEventSampler(seed=seed)
    obs = rl_environment.ObservationType.OBSERVATION
    if env_class is SeatRewardEnvironment:
        env = env_class(game, observation_type=obs, seed=seed)
    else:
        env = env_class(game, observation_type=obs, chance_event_sampler=sampler)
    rng = random.Random(seed)
    out = []
    for _ in range(episodes):
        learners = [Recorder(p, rng) for p in range(game.num_players())]
        play_episode(env, learners)
        returns = env.get_state.returns()
        out += [(learner.handed, returns[p]) for p, learner in enumerate(learners)]
    return out


@pytest.mark.parametrize(
    "game_string",
    [
        "python_allfives(preset=pagat,players=2,episode=hand)",
        "python_allfives(preset=five_up,players=2,episode=match)",
        "python_allfives(preset=pyatyorka,players=3,episode=hand)",
        "python_allfives(preset=pagat,players=4,episode=hand)",
        "python_allfives(preset=spruce,players=2,episode=hand,rewards=terminal)",
    ],
)
def test_each_learner_is_handed_its_seats_return(game_string: str) -> None:
    episodes = 3 if "match" in game_string else 20
    pairs = handed(SeatRewardEnvironment, game_string, episodes, seed=7)
    for got, want in pairs:
        assert got == pytest.approx(want, abs=1e-9)
    assert any(want != 0 for _, want in pairs)


def test_openspiels_own_environment_loses_a_seats_own_scoring() -> None:
    """Why the wrapper exists: with OpenSpiel's environment the same loop hands the learners
    little of what they earned."""
    game_string = "python_allfives(preset=pagat,players=2,episode=hand)"
    plain = handed(rl_environment.Environment, game_string, 20, seed=7)
    assert any(abs(got - want) > 1 for got, want in plain)


def test_the_environments_chance_follows_its_seed() -> None:
    """OpenSpiel's ``Environment(game, seed=...)`` ignores the seed (a game setting, unused for
    a game object); ours seeds its chance with it, in any process."""
    import subprocess
    import sys

    code = (
        "import pyspiel, allfives_openspiel, random\n"
        "from allfives_openspiel.seat_rewards import SeatRewardEnvironment\n"
        "from allfives_openspiel.train import play_episode\n"
        "from test_openspiel_rewards import Recorder\n"
        "g = pyspiel.load_game('python_allfives(preset=pagat,players=2,episode=hand)')\n"
        "env = SeatRewardEnvironment(g, seed=11)\n"
        "rng = random.Random(0)\n"
        "print([play_episode(env, [Recorder(p, rng) for p in range(2)]) for _ in range(5)])\n"
    )
    here = str(__import__("pathlib").Path(__file__).parent)
    runs = {
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=here
        ).stdout
        for _ in range(2)
    }
    assert len(runs) == 1
