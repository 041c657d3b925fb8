"""The vectorized front ends: the Gymnasium VectorEnv and SB3 VecEnv of the single-agent game,
and the batched multi-agent API. Each is checked against the core: observations and masks
equal the encoder's on a core Game in the same position, rewards add up to the scores."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

from allfives_env import Rules
from allfives_env.envs.settings import EnvConfigError, ResetRequiredError
from allfives_env.envs.spaces import Encoding
from allfives_env.vector.errors import VectorActionError
from allfives_env.vector.multi_agent import AllFivesMultiAgentVectorEnv
from allfives_env.vector.single_agent import AllFivesVectorEnv, LearnerBatch


def first_legal(masks: np.ndarray) -> np.ndarray:
    return masks.argmax(axis=1)


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return (rng.random(masks.shape) * masks).argmax(axis=1)


@pytest.mark.parametrize(
    ("preset", "n", "opponents"),
    [
        ("pagat", 2, "greedy"),
        ("five_up", 4, "random"),
        ("pyatyorka", 3, ["random", "greedy", "heuristic"]),
    ],
)
def test_the_learner_sees_what_the_encoder_shows(preset: str, n: int, opponents: Any) -> None:
    batch = LearnerBatch(6, preset, num_players=n, opponents=opponents, reward="points+win")
    enc = Encoding(batch.rules)
    result = batch.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(40):
        for i in range(batch.num_envs):
            game = batch.vg.game(i)
            seat = int(batch.seats[i])
            assert game.current_player == seat  # every game waits for the learner
            assert np.array_equal(result.obs[i], enc.observe(game, seat))
            assert np.array_equal(result.masks[i], enc.mask(game, seat))
        result = batch.step(random_legal(result.masks, rng))


def test_rewards_add_up_to_the_learners_final_score_difference() -> None:
    rules = Rules.preset("pagat", 2)
    batch = LearnerBatch(16, rules, opponents="greedy", reward="points")
    result = batch.reset(seed=5)
    totals = np.zeros(16)
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(2000):
        result = batch.step(random_legal(result.masks, rng))
        totals += result.rewards
        for i in np.flatnonzero(result.terminated):
            seat = result.final_seats[i]
            mine = result.final_scores[i, seat]
            theirs = result.final_scores[i, 1 - seat]
            assert totals[i] == pytest.approx((mine - theirs) / rules.target, abs=1e-4)
            totals[i] = 0
            ended += 1
        if ended >= 30:
            break
    assert ended >= 30


def test_win_rewards_and_final_won() -> None:
    batch = LearnerBatch(32, "pagat", opponents="random", reward="win")
    result = batch.reset(seed=2)
    totals = np.zeros(32)
    wins = losses = 0
    for _ in range(3000):
        result = batch.step(first_legal(result.masks))
        totals += result.rewards
        for i in np.flatnonzero(result.terminated):
            assert totals[i] == (1.0 if result.final_won[i] else -1.0)
            wins += int(result.final_won[i])
            losses += int(not result.final_won[i])
            totals[i] = 0
        if wins + losses >= 60:
            break
    assert wins + losses >= 60 and wins and losses


def test_the_same_seed_plays_the_same_games_whatever_the_batch() -> None:
    def trajectory(num_envs: int) -> list[tuple[float, ...]]:
        batch = LearnerBatch(
            num_envs, "pagat", num_players=3, opponents=["greedy", "random", "random"]
        )
        result = batch.reset(seed=9)
        out = []
        for _ in range(150):
            out.append((float(result.obs[2].sum()), float(result.rewards[2]), int(batch.seats[2])))
            result = batch.step(first_legal(result.masks))
        return out

    assert trajectory(4) == trajectory(12)


def test_bad_input_and_errors_inside_a_step() -> None:
    batch = LearnerBatch(4, "pagat", opponents="greedy")
    with pytest.raises(ResetRequiredError):
        batch.step(np.zeros(4, np.int64))
    result = batch.reset(seed=1)
    bad = first_legal(result.masks)
    bad[2] = int(np.flatnonzero(result.masks[2] == 0)[0])
    before = batch.vg.observe().copy()
    with pytest.raises(VectorActionError, match="game 2"):
        batch.step(bad)
    assert np.array_equal(batch.vg.observe(), before)

    class Crashes:
        name = "crashes"

        def act(self, view: Any, rng: Any) -> Any:
            raise RuntimeError("the opponent crashed")

    broken = LearnerBatch(4, "pagat", opponents=Crashes(), learner_seat=0)
    with pytest.raises(RuntimeError, match="crashed"):  # seat 1 leads somewhere at once
        broken.reset(seed=4)
    with pytest.raises(ResetRequiredError):
        broken.step(np.zeros(4, np.int64))


@pytest.mark.parametrize("seed", [2**64, -1, np.int64(-1), 2.5, True, "7", [1, 2, 3]], ids=repr)
def test_every_vector_front_end_refuses_a_bad_seed_and_changes_nothing(seed: Any) -> None:
    """The engine's own entry points and every front end over it take the same seeds (ints
    from 0 to 2**64 - 1; ``None``: the next one); a bad one is one typed error naming it."""
    pytest.importorskip("stable_baselines3")
    from allfives_env.vector import VectorConfigError, VectorGame
    from allfives_env.vector.sb3 import AllFivesVecEnv

    gym_env = AllFivesVectorEnv(2, opponents="greedy")
    obs, _ = gym_env.reset(seed=3)
    batch = LearnerBatch(2, "pagat", opponents="greedy")
    multi = AllFivesMultiAgentVectorEnv(2, "pagat")
    multi.reset(seed=3)
    sb3 = AllFivesVecEnv(2, opponents="greedy")
    for call in (
        lambda: gym_env.reset(seed=seed),
        lambda: batch.reset(seed),
        lambda: multi.reset(seed),
        lambda: sb3.seed(seed),
        lambda: AllFivesVecEnv(2, seed=seed),
    ):
        with pytest.raises(EnvConfigError, match="seed"):
            call()
    with pytest.raises(VectorConfigError, match="seed"):
        VectorGame(Rules.preset("pagat", 2), 2).reset(seed)
    assert np.array_equal(gym_env.reset(seed=3)[0], obs)


def test_sb3_step_wait_without_step_async_is_a_typed_error() -> None:
    pytest.importorskip("stable_baselines3")
    from allfives_env.vector.sb3 import AllFivesVecEnv

    venv = AllFivesVecEnv(2, opponents="greedy", seed=1)
    obs = venv.reset()
    with pytest.raises(ResetRequiredError, match="step_async"):
        venv.step_wait()
    venv.step_async(first_legal(venv.action_masks()))
    venv.step_wait()
    with pytest.raises(ResetRequiredError, match="step_async"):  # once per step_async
        venv.step_wait()
    assert obs.shape == (2, 222)


def test_gymnasium_vector_env_same_step_autoreset() -> None:
    envs = AllFivesVectorEnv(8, opponents="greedy", reward="win")
    obs, infos = envs.reset(seed=0)
    assert obs.shape == (8, 222) and envs.observation_space.shape == (8, 222)
    ended = 0
    for _ in range(400):
        obs, rewards, terminated, truncated, infos = envs.step(first_legal(envs.action_masks()))
        assert obs.shape == (8, 222) and rewards.shape == (8,)
        if terminated.any():
            assert infos["_final_obs"].tolist() == (terminated | truncated).tolist()
            assert infos["final_obs"][terminated].any(axis=1).all()
            ended += int(terminated.sum())
    assert ended > 0


def test_sb3_vec_env_trains_maskable_ppo() -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    from allfives_env.vector.sb3 import AllFivesVecEnv

    venv = AllFivesVecEnv(16, opponents="random", reward="points+win", seed=0)
    venv.reset()
    assert get_action_masks(venv).shape == (16, 114)
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=256, n_epochs=1, seed=0)
    model.learn(1024)
    assert model.num_timesteps >= 1024


def test_multi_agent_batch_rewards_are_zero_sum_and_state_is_full() -> None:
    env = AllFivesMultiAgentVectorEnv(8, "pagat", num_players=4, reward="points+win")
    obs, masks, seats = env.reset(seed=4)
    enc = Encoding(env.rules)
    rng = np.random.default_rng(2)
    for step in range(300):
        if step % 50 == 0:
            for i in range(8):
                game = env.vg.game(i)
                assert game.current_player == seats[i]
                assert np.array_equal(obs[i], enc.observe(game, int(seats[i])))
                assert np.array_equal(env.state()[i], enc.state(game))
        obs, masks, seats, rewards, _, _ = env.step(random_legal(masks, rng))
        assert rewards.shape == (8, 4)
        assert np.allclose(rewards[:, 0], rewards[:, 2]) and np.allclose(
            rewards[:, 1], rewards[:, 3]
        )
        assert np.allclose(rewards[:, 0] + rewards[:, 1], 0)


def test_observe_games_is_observe_seat_for_some_games() -> None:
    from allfives_env.vector import VectorGame

    vg = VectorGame(Rules.preset("five_up", 3), 10, action_features="outlook")
    vg.reset(seeds=3)
    rng = np.random.default_rng(5)
    for _ in range(20):
        vg.step(random_legal(vg.masks(), rng))
        vg.reset_games(np.flatnonzero(vg.done))
    seats = rng.integers(0, 3, 10)
    games = np.array([7, 2, 9])
    assert np.array_equal(vg.observe_games(games, seats[games]), vg.observe_seat(seats)[games])
    from allfives_env.vector.errors import VectorConfigError

    with pytest.raises(VectorConfigError, match="listed twice"):
        vg.observe_games(np.array([2, 7, 2]), seats[[2, 7, 2]])


@pytest.mark.parametrize(("preset", "share"), [("pagat", 0.5), ("five_up", 1.0)])
def test_matches_may_begin_at_random_scores_drawn_from_the_seed(preset: str, share: float) -> None:
    """``start_scores``: about that share of the matches begins at scores below the target, in
    steps of 5 pips, the same from the same seed; the games play on as the encoder shows."""
    rules = Rules.preset(preset, 2)
    step = 5 // rules.unit

    def begin(seed: int) -> tuple[LearnerBatch, Any, np.ndarray]:
        batch = LearnerBatch(256, rules, opponents="greedy", start_scores=share)
        result = batch.reset(seed=seed)
        return batch, result, batch.vg.hand_start[:, : rules.num_sides].copy()

    batch, result, starts = begin(4)
    assert np.array_equal(starts, begin(4)[2]) and not np.array_equal(starts, begin(5)[2])
    assert ((starts >= 0) & (starts < rules.target) & (starts % step == 0)).all()
    assert abs((starts > 0).any(axis=1).mean() - share) < 0.1
    assert starts.max() >= rules.target - 5 * step
    enc = Encoding(batch.rules)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(60):
        result = batch.step(random_legal(result.masks, rng))
        ended += int(result.terminated.sum())
    assert ended
    for i in range(0, batch.num_envs, 7):
        seat = int(batch.seats[i])
        assert np.array_equal(result.obs[i], enc.observe(batch.vg.game(i), seat))


def test_start_scores_out_of_range_are_refused() -> None:
    for bad in (-0.1, 1.5, "half", True):
        with pytest.raises(EnvConfigError, match="start_scores"):
            LearnerBatch(2, "pagat", start_scores=bad)  # type: ignore[arg-type]


def test_waiting_games_do_not_move_and_keep_what_came_before_their_first_turn() -> None:
    from allfives_env.core.errors import ArgumentError

    batch = LearnerBatch(6, "pagat", opponents="greedy", reward="points", learner_seat=1)
    first = batch.reset(3)
    wait = np.array([True, False, True, False, False, False])
    before = batch.vg.observe().copy()
    acts = first.masks.argmax(axis=1).astype(np.int64)
    kept = acts.copy()
    step = batch.step(acts, wait=wait)
    assert np.array_equal(acts, kept)  # the caller's array untouched
    assert np.array_equal(step.obs[wait], before[wait]) and (step.rewards[wait] == 0).all()
    # a waiting game's first real step is the step it would have taken at once, with what the
    # opponent scored before seat 1's first turn
    again = batch.step(acts, wait=~wait)
    reference = LearnerBatch(6, "pagat", opponents="greedy", reward="points", learner_seat=1)
    reference.reset(3)
    at_once = reference.step(acts)
    assert np.array_equal(again.rewards[wait], at_once.rewards[wait])
    assert np.array_equal(again.obs[wait], at_once.obs[wait])
    assert np.array_equal(step.rewards[~wait], at_once.rewards[~wait])
    with pytest.raises(ArgumentError, match="wait must be 6 bools"):
        batch.step(acts, wait=[1, 0, 1, 0, 0, 0])
    with pytest.raises(ArgumentError, match="wait must be 6 bools"):
        batch.step(acts, wait=np.zeros(5, bool))
