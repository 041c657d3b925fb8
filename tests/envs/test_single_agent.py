"""The Gymnasium single-agent environment, and a MaskablePPO smoke run on it."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from agents import GreedyAgent, RandomAgent
from allfives_env import PRESETS, AllFivesSingleAgentEnv, EnvConfigError, IllegalActionError


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("n", [2, 4])
def test_gymnasium_check_env(preset: str, n: int) -> None:
    check_env(AllFivesSingleAgentEnv(num_players=n, rules=preset), skip_render_check=True)


def play(e: AllFivesSingleAgentEnv, seed: int) -> tuple[float, dict[str, Any], int]:
    _, info = e.reset(seed=seed)
    rng = random.Random(seed)
    total = 0.0
    steps = 0
    while True:
        assert np.array_equal(e.action_masks(), info["action_mask"])
        legal = np.flatnonzero(e.action_masks())
        _, reward, term, trunc, info = e.step(int(legal[rng.randrange(len(legal))]))
        total += reward
        steps += 1
        if term or trunc:
            return total, info, steps


@pytest.mark.parametrize("n", [2, 3, 4])
def test_learner_gets_its_sides_win_reward(n: int) -> None:
    e = AllFivesSingleAgentEnv(num_players=n, opponents="greedy")
    for seed in range(3):
        total, info, _ = play(e, seed)
        winners = info["winners"]
        side = e.rules.side_of(e.seat)
        assert (total > 0) == (side in winners)


def test_points_reward_sums_to_the_final_score_difference() -> None:
    e = AllFivesSingleAgentEnv(num_players=2, reward="points", episode="hand")
    for seed in range(5):
        total, info, _ = play(e, seed)
        scores = info["scores"]
        mine = scores[e.seat]
        assert total == pytest.approx((mine - scores[1 - e.seat]) / e.rules.target)


def test_seeded_episodes_repeat() -> None:
    a = AllFivesSingleAgentEnv(num_players=3, opponents=[RandomAgent(), GreedyAgent()])
    b = AllFivesSingleAgentEnv(num_players=3, opponents=[RandomAgent(), GreedyAgent()])
    assert play(a, 9)[::2] == play(b, 9)[::2]
    assert a.seat == b.seat


def test_partner_is_played_by_the_opponents_too() -> None:
    seen: list[int] = []

    def policy(obs: dict[str, Any]) -> int:
        seen.append(1)
        return int(np.flatnonzero(obs["action_mask"])[0])

    e = AllFivesSingleAgentEnv(num_players=4, opponents=policy, learner_seat=0)
    play(e, 1)
    assert seen  # callables receive the seat's observation dict
    assert e.seat == 0


def test_opponents_by_seat_and_learner_seat_rules() -> None:
    e = AllFivesSingleAgentEnv(num_players=3, opponents={1: "greedy", 2: "random"}, learner_seat=0)
    play(e, 2)
    with pytest.raises(EnvConfigError):
        AllFivesSingleAgentEnv(num_players=3, opponents=["random"])
    with pytest.raises(EnvConfigError):
        AllFivesSingleAgentEnv(num_players=2, learner_seat=2)
    with pytest.raises(ValueError, match="unknown agent"):
        AllFivesSingleAgentEnv(opponents="nobody")


def test_illegal_action_penalized_or_raised() -> None:
    e = AllFivesSingleAgentEnv()
    e.reset(seed=0)
    bad = int(np.flatnonzero(e.action_masks() == 0)[0])
    _, reward, term, _, info = e.step(bad)
    assert (reward, term, info.get("illegal_action")) == (-1.0, True, True)
    strict = AllFivesSingleAgentEnv(illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError):
        strict.step(bad)


def test_maskable_ppo_smoke() -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib")
    env = AllFivesSingleAgentEnv(num_players=2, reward="points+win", episode="hand")
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=64, seed=0, verbose=0)
    model.learn(total_timesteps=2048)
    obs, _ = env.reset(seed=3)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)] == 1


def test_after_an_error_inside_step_the_next_step_asks_for_reset() -> None:
    from allfives_env.envs.settings import ResetRequiredError

    class Faulty:
        name = "faulty"

        def __init__(self) -> None:
            self.calls = 0

        def act(self, view: Any, rng: random.Random) -> Any:
            self.calls += 1
            if self.calls == 2:
                raise RuntimeError("the opponent crashed")
            return view.legal_actions[0]

    e = AllFivesSingleAgentEnv(opponents=Faulty(), learner_seat=0, rules="pagat")
    e.reset(seed=1)
    crashed = False
    for _ in range(40):
        legal = np.flatnonzero(e.action_masks())
        try:
            _, _, term, _, _ = e.step(int(legal[0]))
        except RuntimeError as err:
            assert "crashed" in str(err)
            crashed = True
            break
        if term:
            e.reset()
    assert crashed
    with pytest.raises(ResetRequiredError, match="reset"):
        e.step(int(np.flatnonzero(e.action_masks())[0]))
    e.reset(seed=2)  # reset makes it usable again
    e.step(int(np.flatnonzero(e.action_masks())[0]))


def test_a_step_before_reset_asks_for_reset() -> None:
    from allfives_env.envs.settings import ResetRequiredError

    with pytest.raises(ResetRequiredError):
        AllFivesSingleAgentEnv().step(0)


@pytest.mark.parametrize("action", [40.9, "40", None, 40.0, True, [40]])
def test_non_integer_actions_are_refused(action: Any) -> None:
    from allfives_env import ArgumentError

    e = AllFivesSingleAgentEnv(illegal_action="penalize")
    e.reset(seed=4)
    before = e.action_masks().copy()
    with pytest.raises(ArgumentError, match="an action is an integer action id"):
        e.step(action)
    assert np.array_equal(e.action_masks(), before)
    legal = int(np.flatnonzero(before)[0])
    e.step(np.int64(legal))  # NumPy integers are actions


@pytest.mark.parametrize(
    ("opponents", "learner", "message"),
    [
        ({5: "random"}, "random", "no seat 5"),
        ({-1: "random", 0: "random", 1: "random"}, "random", "no seat -1"),
        ({1: "random"}, "random", "no opponent for seat 0"),
        ({0: "random"}, 0, "no opponent for seat 1"),
        ("nobody", "random", "opponent 'nobody'"),
    ],
)
def test_bad_opponents_are_refused_at_construction(
    opponents: Any, learner: Any, message: str
) -> None:
    with pytest.raises(EnvConfigError, match=message):
        AllFivesSingleAgentEnv(opponents=opponents, learner_seat=learner)


def test_single_agent_reset_takes_numpy_seeds_and_refuses_bad_ones() -> None:
    e = AllFivesSingleAgentEnv()
    a, _ = e.reset(seed=np.int64(3))
    b, _ = e.reset(seed=3)
    assert np.array_equal(a, b)
    for bad in (-1, 3.5, "3"):
        with pytest.raises(EnvConfigError, match="seed"):
            e.reset(seed=bad)  # type: ignore[arg-type]
    with pytest.raises(EnvConfigError, match="unknown reset option 'scroes'"):
        e.reset(seed=1, options={"scroes": [0, 0]})


def test_a_step_after_the_episode_ended_is_a_typed_error() -> None:
    """``EpisodeOverError``: a ``ResetRequiredError`` (as before) and a ``ValueError``."""
    from allfives_env.envs.settings import EpisodeOverError, ResetRequiredError

    e = AllFivesSingleAgentEnv(opponents=["greedy"], episode="hand", rules="five_up")
    e.reset(seed=2)
    done = False
    while not done:
        _, _, terminated, truncated, _ = e.step(int(np.flatnonzero(e.action_masks())[0]))
        done = terminated or truncated
    with pytest.raises(EpisodeOverError, match="episode is over") as err:
        e.step(0)
    assert isinstance(err.value, ValueError) and isinstance(err.value, ResetRequiredError)
