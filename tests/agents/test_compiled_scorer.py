"""The compiled scorer (:mod:`agents.compiled_scorer`) against ``ScorerPolicy.logits``.

Random networks of every input kind (basic, outlook and lookahead features; tile features; a
fused first layer) play random positions of every preset and table on the batched engine. In
every position with a choice to make, the compiled logit of every legal action must equal the
NumPy policy's on the whole observation (up to float32 rounding), and the compiled choice must
be the masked argmax of those logits, or the one the masked softmax samples with the same
uniform; a game with one legal action takes it, a finished game gets -1.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import numpy as np
import pytest

pytest.importorskip("numba")

from vector_mirror import IDS, TABLES

from agents.learned import LearnedAgent, PolicySpec
from agents.numpy_networks import ScorerLayout, ScorerPolicy
from allfives_env.core.rules import Rules
from allfives_env.vector import VectorGame, policy_rng
from allfives_env.vector.state import LIVE, STATUS

Layer = tuple[np.ndarray, np.ndarray]


def layer(rng: np.random.Generator, n_in: int, n_out: int, scale: float = 1.0) -> Layer:
    w = rng.normal(0, scale / np.sqrt(n_in), (n_out, n_in)).astype(np.float32)
    return w, rng.normal(0, 0.1, n_out).astype(np.float32)


def random_scorer(
    lay: ScorerLayout, seed: int, feature: tuple[int, ...] = (), fuse: bool = False
) -> ScorerPolicy:
    """A scorer with random weights large enough that its logits differ."""
    rng = np.random.default_rng(seed)
    hidden, context = 32, 16
    trunk = [layer(rng, lay.global_size, hidden), layer(rng, hidden, hidden)]
    sizes = [lay.feature_size, *feature, context]
    layers = [layer(rng, a, b, 2.0) for a, b in itertools.pairwise(sizes)]
    return ScorerPolicy(
        lay,
        trunk,
        layer(rng, hidden, context, 2.0),
        layers,
        layer(rng, hidden, lay.num_actions, 2.0),
        layer(rng, hidden, sizes[1]) if fuse else None,
    )


def positions(vg: VectorGame, steps: int, seed: int) -> Iterator[np.ndarray]:
    """Step ``vg``'s games with random moves, yielding before each step the games with a
    seat to act."""
    prng = policy_rng(seed, vg.num_games)
    vg.reset(seed)
    for _ in range(steps):
        yield np.flatnonzero((vg.st[:, STATUS] == LIVE) & (vg.current_player >= 0))
        vg.step(vg.random_actions(prng))


def check(vg: VectorGame, policy: ScorerPolicy, steps: int, seed: int) -> int:
    """Compare the compiled logits and choices with the NumPy policy over ``steps`` steps;
    return how many positions had a choice to make."""
    from agents.compiled_scorer import legal_logits, scorer_actions

    agent = LearnedAgent(PolicySpec(vg.rules, vg.encoding.action_features), policy)
    choices = 0
    prng = policy_rng(seed + 1, vg.num_games)
    for live in positions(vg, steps, seed):
        if not live.size:
            continue
        obs = vg.observe_games(live, vg.current_player[live])
        want = policy.logits(obs).astype(np.float64)
        mask = vg.masks()[live]
        counts, masks, only, need, _, acts, logits = legal_logits(vg, live, policy)
        assert np.array_equal(only, np.where(counts == 1, mask.argmax(axis=1), -1))
        assert np.array_equal(masks, mask)
        assert np.array_equal(counts, mask.sum(axis=1))
        rows = np.repeat(need, counts[need])
        assert np.array_equal(acts, np.flatnonzero(mask[need]) % mask.shape[1])
        np.testing.assert_allclose(logits, want[rows, acts], rtol=1e-4, atol=1e-4)
        choices += need.size
        # the choice: the masked argmax, where no other legal logit is within rounding of it
        z = np.where(mask > 0, want, -np.inf)
        got = scorer_actions(vg, live, policy)
        top = np.sort(z, axis=1)
        clear = (top[:, -1] - top[:, -2] > 1e-3) | (counts == 1)
        assert np.array_equal(got[clear], z.argmax(axis=1)[clear])
        assert np.all(got[counts == 0] == -1)
        # sampled: the agent's uniforms, against the softmax over the NumPy logits
        state = prng.copy()
        sampled = LearnedAgent(agent.spec, policy, sample=True).act_batch(vg, live, prng)
        from allfives_env.vector.agents import draw_bits

        u = ((draw_bits(state, live) >> np.uint64(11)).astype(np.float64) + 0.5) / 2.0**53
        p = np.exp(z - z.max(axis=1, keepdims=True))
        c = np.cumsum(p, axis=1) / p.sum(axis=1, keepdims=True)
        want_s = (c < u[:, None]).sum(axis=1)
        far = np.abs(c - u[:, None]).min(axis=1) > 1e-4
        assert np.array_equal(sampled[far & (counts > 0)], want_s[far & (counts > 0)])
    return choices


@pytest.mark.parametrize(("preset", "players", "partners"), TABLES, ids=IDS)
def test_compiled_scorer_matches_numpy_on_every_table(
    preset: str, players: int, partners: int
) -> None:
    rules = Rules.preset(preset, players, partnerships=bool(partners))
    vg = VectorGame(rules, 24, episode="match", action_features="outlook")
    lay = ScorerLayout.of(vg.encoding, tile_features=True)
    assert check(vg, random_scorer(lay, players), 30, 7) > 100


@pytest.mark.parametrize(
    ("features", "tile", "feature", "fuse"),
    [
        (True, False, (), False),
        ("outlook", False, (24,), False),
        ("outlook", False, (), True),
        ("lookahead", True, (24,), False),
    ],
    ids=["basic", "outlook-deep", "fused", "lookahead-tiles"],
)
def test_compiled_scorer_matches_numpy_for_every_input_kind(
    features: bool | str, tile: bool, feature: tuple[int, ...], fuse: bool
) -> None:
    vg = VectorGame(Rules.preset("pagat", 2), 32, episode="hand", action_features=features)
    lay = ScorerLayout.of(vg.encoding, tile_features=tile)
    assert check(vg, random_scorer(lay, 3, feature, fuse), 25, 11) > 100


def test_compiled_scorer_answers_without_the_network_where_there_is_no_choice() -> None:
    from agents.compiled_scorer import scorer_actions

    rules = Rules.preset("pagat", 2)
    vg = VectorGame(rules, 64, episode="hand", action_features="outlook")
    policy = random_scorer(ScorerLayout.of(vg.encoding), 5)
    forced = finished = 0
    for live in positions(vg, 80, 3):
        everyone = np.arange(vg.num_games, dtype=np.int64)
        mask = vg.masks()
        got = scorer_actions(vg, everyone, policy)
        one = mask.sum(axis=1) == 1
        assert np.array_equal(got[one], mask[one].argmax(axis=1))
        assert np.all(got[mask.sum(axis=1) == 0] == -1)
        forced += int(one.sum())
        finished += int(vg.num_games - live.size)
        assert scorer_actions(vg, np.zeros(0, np.int64), policy).shape == (0,)
    assert forced > 50 and finished > 50
