"""The match equity (:mod:`agents.equity`) and ``batchsearch:equity=true``.

The equity is a chance: symmetric, a half at equal scores, growing with the side's score and
falling with the other's. Its fit recovers a known model from samples drawn from it, and the
heuristic's matches give samples that make sense. The search values each rollout that ends a
hand by it, exactly as the same worlds played out in the core and valued by hand say, in 2
players and in 4-player partnerships, near the target (where rollouts end the match) and far
from it; rules without a fitted equity are refused in one line.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("numba")

from agents.batch_search import BatchSearchAgent
from agents.equity import EQUITIES, MatchEquity, equity_for, fit, hand_ends
from agents.errors import AgentError
from agents.sampler import sample_world
from allfives_env.core.game import Game
from allfives_env.core.rules import Rules
from tests.agents.test_batch_search import core_values

PAGAT_2 = Rules.preset("pagat", 2)
scores = st.integers(0, 49).map(lambda k: 5.0 * k)


@given(own=scores, other=scores, more=st.integers(1, 49))
def test_the_equity_is_a_symmetric_chance_that_grows_with_the_score(
    own: float, other: float, more: int
) -> None:
    for equity in EQUITIES.values():
        p = float(equity.win_probability(own, other, 250))
        assert 0 < p < 1
        assert p + float(equity.win_probability(other, own, 250)) == pytest.approx(1)
        higher = min(own + 5 * more, 245)
        if higher > own:
            assert float(equity.win_probability(higher, other, 250)) > p
    assert float(equity_for(PAGAT_2).win_probability(100, 100, 250)) == pytest.approx(0.5)


def test_a_lead_counts_for_more_near_the_target() -> None:
    equity = equity_for(PAGAT_2)
    early = float(equity.win_probability(50, 20, 250))
    late = float(equity.win_probability(240, 210, 250))
    assert late > early + 0.1


def test_the_fit_recovers_a_known_model() -> None:
    truth = MatchEquity(scale=1.2, offset=0.0, power=0.6)
    rng = np.random.default_rng(0)
    own = 5.0 * rng.integers(0, 50, 20_000).astype(np.float64)
    other = 5.0 * rng.integers(0, 50, 20_000).astype(np.float64)
    won = (rng.random(20_000) < truth.win_probability(own, other, 250)).astype(np.float64)
    got, ll = fit(own, other, won, 250)
    assert got.power == pytest.approx(0.6, abs=0.1)
    grid = 5.0 * np.arange(50)
    diff = got.win_probability(grid[:, None], grid[None, :], 250) - truth.win_probability(
        grid[:, None], grid[None, :], 250
    )
    assert np.abs(diff).max() < 0.05
    assert -0.7 < ll < 0


def test_the_heuristics_matches_give_sensible_samples() -> None:
    own, other, won = hand_ends(PAGAT_2, 200, 3)
    assert own.shape == other.shape == won.shape and own.size > 400
    assert ((own < 250) & (other < 250)).all()  # only hands that left the match going
    assert set(np.unique(won)) <= {0.0, 0.5, 1.0}
    ahead = own - other > 60
    assert won[ahead].mean() > 0.75 > 0.25 > won[own - other < -60].mean()
    again = hand_ends(PAGAT_2, 200, 3)
    assert all((a == b).all() for a, b in zip((own, other, won), again, strict=True))


@pytest.mark.parametrize(
    "rules",
    [PAGAT_2, Rules.preset("pagat", 4, partnerships=True)],
    ids=["pagat-2", "pagat-4-partners"],
)
@pytest.mark.parametrize("start", [0.0, 0.85])
def test_equity_rollouts_are_the_core_rollouts_valued_by_the_equity(
    rules: Rules, start: float
) -> None:
    """``start``: the sides' scores as a share of the target (0.85: rollouts end matches)."""
    agent = BatchSearchAgent(worlds=3, equity=True)
    rng = random.Random(5)
    checked = 0
    while checked < 12:
        base = [5.0 * round(start * rules.target / 5 + rng.randrange(3)) for _ in range(2)]
        g = Game(rules, random.Random(rng.randrange(2**31)), scores=base)
        for _ in range(rng.randrange(12)):
            g.apply(rng.choice(g.legal_actions()))
        seat = g.current_player
        if g.is_hand_over or seat is None or len(g.legal_actions()) < 2:
            continue
        view = g.view(seat)
        got = agent.evaluate(view, random.Random(checked))
        want = core_values(view, random.Random(checked), 3, equity=equity_for(rules))
        assert got == pytest.approx(want), (g.render(), view.legal_actions)
        checked += 1


def test_the_equity_reads_only_the_view() -> None:
    agent = BatchSearchAgent(worlds=8, equity=True)
    rng = random.Random(2)
    g = Game(PAGAT_2, rng, scores=[220, 215])
    g.apply(g.legal_actions()[0])
    view = g.view(g.current_player)  # type: ignore[arg-type]
    hands, bone = sample_world(view, rng)
    other = Game.from_view(view, hands, bone)  # the same view, other hidden tiles
    assert other.view(view.seat).legal_actions == view.legal_actions
    assert agent.evaluate(other.view(view.seat), random.Random(7)) == agent.evaluate(
        view, random.Random(7)
    )


@pytest.mark.parametrize(
    "rules",
    [
        Rules.preset("five_up", 3),
        Rules.preset("pagat", 4, partnerships=False),
        Rules.preset("five_up", 2),
    ],
    ids=["three-sides", "four-sides", "not-fitted"],
)
def test_rules_without_a_fitted_equity_are_refused(rules: Rules) -> None:
    with pytest.raises(AgentError, match="no match equity is fitted"):
        BatchSearchAgent(equity=True).check_rules(rules)


def test_an_equity_is_fitted_for_two_sides_only() -> None:
    with pytest.raises(AgentError, match="needs two sides, not 3"):
        hand_ends(Rules.preset("five_up", 3), 2, 0)
