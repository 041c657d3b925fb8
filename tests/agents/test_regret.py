"""Regret per decision against a reference search: fixed positions, zero for the reference's own
picks, more for random play than for the heuristic, and only value searches as references."""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

from agents.eval.regret import Regret, agent_regret, played_positions, reference_values
from allfives_env.core.rules import Rules

RULES = Rules.preset("pagat", 2)


def test_positions_are_seeded_and_each_has_a_choice() -> None:
    a = played_positions(RULES, 30, seed=3)
    b = played_positions(RULES, 30, seed=3)
    assert len(a) == 30
    assert [(v.hand, v.legal_actions, v.scores) for v in a] == [
        (v.hand, v.legal_actions, v.scores) for v in b
    ]
    assert all(len(v.legal_actions) > 1 and v.current_player == v.seat for v in a)
    assert len({len(v.hand) for v in a}) > 3  # from the lead to the hand's end
    assert played_positions(RULES, 30, seed=4) != a


def test_regret_is_zero_for_the_references_own_picks_and_larger_for_random() -> None:
    views = played_positions(RULES, 60, seed=1)
    values = reference_values("batchsearch:worlds=16", views, seed=7)
    assert [len(v) for v in values] == [len(view.legal_actions) for view in views]
    own = agent_regret("batchsearch:worlds=16", views, values, seed=7)
    assert own.regrets == (0.0,) * 60 and own.best_share == 1.0
    other_seed = agent_regret("batchsearch:worlds=16", views, values, seed=8)
    heuristic = agent_regret("heuristic", views, values, seed=0)
    random_play = agent_regret("random", views, values, seed=0)
    assert all(r >= 0 for r in random_play.regrets + heuristic.regrets + other_seed.regrets)
    assert random_play.mean > 1.5 * heuristic.mean
    assert random_play.best_share < heuristic.best_share


def test_summary() -> None:
    r = Regret((0.0, 1.0, 2.0, 1.0))
    assert r.mean == 1.0 and r.best_share == 0.25
    assert r.half_width == pytest.approx(1.96 * (2 / 3) ** 0.5 / 2)


def test_only_a_value_search_is_a_reference() -> None:
    with pytest.raises(ValueError, match="teacher of values"):
        reference_values("heuristic", played_positions(RULES, 2, seed=0), seed=0)
