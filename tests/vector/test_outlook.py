"""The batched engine's outlook and lookahead features against the reference encoder, bit for bit.

For every preset and table (2, 3, 4 in partnerships, 4 each for himself) a batch of games is
stepped with seeded random legal actions (greedy ones in every third game, so matches run to
their end, five_up's exact target included), and each game is mirrored by a core
:class:`~allfives_env.core.game.Game` dealt the vector game's deals. At every step the acting
seat's observation must equal ``Encoding(rules, action_features="lookahead").observe`` of the
mirror bit for bit (the other seats' now and then), over more than 10,000 steps per table: the
``lookahead`` set holds the ``outlook`` set's blocks and ``action_lookahead`` after them.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

pytest.importorskip("numba")

from vector_mirror import IDS, TABLES, follow, mirror

from allfives_env.core.events import Phase
from allfives_env.core.rules import Rules
from allfives_env.envs.blocks import LOOKAHEAD_SIZE, OUTLOOK_SIZE
from allfives_env.envs.spaces import Encoding
from allfives_env.vector import VectorGame, policy_rng
from allfives_env.vector.kernels import outlook as outlook_kernels

NUM_GAMES = 16
STEPS = 640  # 16 games x 640 steps = 10,240 compared steps per table


def bits(a: np.ndarray) -> np.ndarray:
    """A float32 array's bit patterns (so -0.0 and 0.0 differ)."""
    return np.ascontiguousarray(a, np.float32).view(np.uint32)


def run(rules: Rules, num_games: int, steps: int, seed: int, episode: str) -> Counter[str]:
    """Step ``num_games`` games ``steps`` times under ``rules``, comparing every observation
    with the reference; return what was met (phases, flags seen in the outlook block)."""
    n = rules.num_players
    vg = VectorGame(rules, num_games, action_features="lookahead", episode=episode, max_cycles=None)
    enc = Encoding(rules, action_features="lookahead")
    assert vg.obs_size == enc.obs_size
    start, end = enc.block_range("action_outlook")
    ahead_start, ahead_end = enc.block_range("action_lookahead")
    vg.reset(np.arange(num_games) + 1000 * seed)
    games = [mirror(vg, i) for i in range(num_games)]
    prng = policy_rng(seed, num_games)
    next_seed = 10_000 * (seed + 1)
    met: Counter[str] = Counter()
    for step in range(steps):
        obs, masks, cur = vg.observe(), vg.masks(), vg.current_player
        other = (cur + 1 + step % (n - 1)) % n
        others = vg.observe_seat(other) if step % 7 == 0 else None
        for i, g in enumerate(games):
            seat = g.current_player
            assert seat == cur[i], vg.describe(i)
            want = enc.observe(g, seat)
            assert np.array_equal(bits(want), bits(obs[i])), (vg.describe(i), step)
            if others is not None:
                want = enc.observe(g, int(other[i]))
                assert np.array_equal(bits(want), bits(others[i])), (vg.describe(i), step)
            block = obs[i, start:end].reshape(-1, OUTLOOK_SIZE)
            met[g.phase.name] += 1
            met["placements"] += int(np.count_nonzero(block.any(axis=1)))
            met["wins"] += int(block[:, 1].any())
            met["last_tile"] += int(block[:, 2].any())
            met["assist"] += int(block[:, 10].any())
            ahead = obs[i, ahead_start:ahead_end].reshape(-1, LOOKAHEAD_SIZE)
            met["opp_wins"] += int(ahead[:, 0].any())
            met["opp_out"] += int(ahead[:, 1].any())
            target = rules.target
            if rules.exact_target and target - g.scores[rules.side_of(seat)] <= 10:
                met["near_exact_target"] += 1
        actions = vg.random_actions(prng, masks=masks)
        actions[::3] = vg.greedy_actions()[::3]
        _, terminated, truncated = vg.step(actions)
        next_seed = follow(vg, games, actions, terminated | truncated, next_seed, met)
    return met


@pytest.mark.parametrize("c", range(len(TABLES)), ids=IDS)
def test_outlook_observations_equal_the_encoders(c: int) -> None:
    preset, n, partners = TABLES[c]
    rules = Rules.preset(preset, n, partnerships=bool(partners))
    episode = "hand" if c % 4 == 3 else "match"
    met = run(rules, NUM_GAMES, STEPS, c, episode)
    assert NUM_GAMES * STEPS >= 10_000
    assert met[Phase.LEAD.name] and met[Phase.PLAY.name]
    # a drawn tile to place (under draw_when_able a draw leaves the seat in plain play)
    assert bool(met[Phase.DRAWN.name]) != rules.draw_when_able
    assert met["placements"] and met["last_tile"] and met["episodes"] and met["opp_out"]
    if rules.num_players == 4 and rules.partnerships:
        assert met["assist"]
    else:
        assert not met["assist"]
    if episode == "match" and not (rules.num_players == 4 and not rules.partnerships):
        assert met["opp_wins"]
    if rules.exact_target and episode == "match":
        assert met["near_exact_target"] and met["wins"]


def test_the_parallel_build_writes_the_same_outlook() -> None:
    # 96 games: the parallel build of the observation kernel (the tests above run the serial)
    met = run(Rules.preset("five_up", 4), 96, 40, 99, "match")
    assert met["placements"]


def test_outlook_block_constants_follow_the_reference() -> None:
    from allfives_env.envs import features

    assert outlook_kernels.OUTLOOK_SIZE == OUTLOOK_SIZE
    assert outlook_kernels.LOOKAHEAD_SIZE == LOOKAHEAD_SIZE
    assert outlook_kernels.OUTLOOK_WIN == features.OUTLOOK_WIN
    assert outlook_kernels.COUNT_NORM == features.COUNT_NORM


def test_outlook_features_leave_the_basic_ones_alone() -> None:
    rules = Rules.preset("pagat", 4)
    basic = VectorGame(rules, 4, action_features=True)
    full = VectorGame(rules, 4, action_features="outlook")
    named = VectorGame(rules, 4, action_features="basic")
    ahead = VectorGame(rules, 4, action_features="lookahead")
    for vg in (basic, full, named, ahead):
        vg.reset(5)
    size = basic.obs_size
    assert full.obs_size == size + 28 * 4 * OUTLOOK_SIZE and named.obs_size == size
    assert ahead.obs_size == full.obs_size + 28 * 4 * LOOKAHEAD_SIZE
    for _ in range(30):
        a = basic.greedy_actions()
        assert np.array_equal(bits(basic.observe()), bits(full.observe()[:, :size]))
        assert np.array_equal(bits(basic.observe()), bits(named.observe()))
        assert np.array_equal(bits(full.observe()), bits(ahead.observe()[:, : full.obs_size]))
        for vg in (basic, full, named, ahead):
            vg.step(a)


def test_unknown_feature_sets_are_refused() -> None:
    rules = Rules.preset("pagat", 2)
    for bad in ("outlooks", 1, None):
        with pytest.raises(ValueError, match="action_features must be"):
            VectorGame(rules, 2, action_features=bad)  # type: ignore[arg-type]
