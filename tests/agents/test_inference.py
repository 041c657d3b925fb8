"""Inference over the hidden tiles (:mod:`agents.inference`): which choices count, what they
weigh, and that only the view is read."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents.batch_search import BatchSearchAgent
from agents.inference import (
    DEFAULT_MODEL,
    Decision,
    PlayModel,
    decisions,
    log_weights,
    tile_sums,
    world_weights,
)
from allfives_env.core.actions import DRAW_ID, MAX_SLOTS
from allfives_env.core.game import Game
from allfives_env.core.layout import Layout
from allfives_env.core.rules import Rules
from allfives_env.core.tiles import Tile, mask_of


def played_game(rules: Rules, seed: int, moves: int) -> Game:
    """A seeded game after up to ``moves`` random actions of its first hand."""
    rng = random.Random(seed)
    game = Game(rules, random.Random(seed))
    for _ in range(moves):
        if game.current_player is None:
            break
        game.apply(rng.choice(game.legal_actions()))
    return game


@pytest.mark.parametrize("preset", ["pagat", "dominoes_cc", "five_up"])
def test_decisions_are_the_other_seats_free_choices_since_their_last_draw(preset: str) -> None:
    rules = Rules.preset(preset, 3)
    found_any = 0
    for seed in range(40):
        game = played_game(rules, seed, 25)
        if game.current_player is None:
            continue
        view = game.view(game.current_player)
        events = [(e.seat, int(e.action)) for e in view.events]
        found = decisions(view, DEFAULT_MODEL)
        found_any += len(found)
        for d in found:
            assert d.seat != view.seat
            assert d.sums.shape == (28,) and np.all(d.sums >= 0)
            # everything the seat placed since is public, and it drew nothing since
            placed = [a // MAX_SLOTS for s, a in events if s == d.seat and a < DRAW_ID]
            assert d.placed_since & ~mask_of(placed) == 0
            since = d.placed_since
            first = min(
                i
                for i, (s, a) in enumerate(events)
                if s == d.seat and a < DRAW_ID and since >> (a // MAX_SLOTS) & 1
            )
            assert (d.seat, DRAW_ID) not in events[first:]
            assert first == 0 or events[first - 1] != (d.seat, DRAW_ID)
        # one decision per counted placement, and none of the viewer's
        mine = sum(1 for d in found if d.seat == view.seat)
        assert mine == 0
    assert found_any > 5


def test_decisions_read_the_view_alone() -> None:
    """Two deals that look the same to the viewer give the same decisions and weights."""
    rules = Rules.preset("pagat", 2)
    game = played_game(rules, 3, 9)
    seat = game.current_player
    assert seat is not None
    view = game.view(seat)
    rng = random.Random(0)
    from agents.sampler import sample_world

    hands, bone = sample_world(view, rng)
    other = Game.from_view(view, hands, bone)
    twin = other.view(seat)
    a, b = decisions(view, DEFAULT_MODEL), decisions(twin, DEFAULT_MODEL)
    assert len(a) == len(b) > 0
    for x, y in zip(a, b, strict=True):
        assert x.seat == y.seat and x.placed_since == y.placed_since
        assert np.array_equal(x.sums, y.sums)


def test_a_world_where_the_points_were_declined_weighs_less() -> None:
    rules = Rules.preset("pagat", 2)
    layout = Layout()
    layout.lead(Tile.parse("1-4"), False)  # ends 1 and 4: 1-6 on the 1 makes 6 + 4 = 10
    model = PlayModel(points=1.0, pips=0.0, double=0.0)
    sums = tile_sums(rules, layout, model.theta())
    rich = max(range(28), key=lambda t: sums[t])  # the tile with the most points to score
    poor = min((t for t in range(28) if sums[t] > 0), key=lambda t: sums[t])
    assert sums[rich] > sums[poor] > 0
    d = Decision(seat=1, placed_since=1 << poor, sums=sums)
    hands = np.zeros((2, 2), np.int64)
    hands[0, 1] = 1 << rich  # world 0: he held the rich tile and played the poor one
    w = world_weights([d], hands)
    assert w[0] < w[1] and w.sum() == pytest.approx(2.0)
    assert np.array_equal(log_weights([], hands), np.zeros(2))
    assert np.array_equal(world_weights([], hands), np.ones(2))


def test_a_zero_scale_model_finds_nothing_and_search_accepts_infer() -> None:
    game = played_game(Rules.preset("pagat", 2), 5, 12)
    seat = game.current_player
    assert seat is not None
    view = game.view(seat)
    assert decisions(view, DEFAULT_MODEL.softened(0.0)) == []
    agent = BatchSearchAgent(8, infer=1.0)
    first = agent.evaluate(view, random.Random(1))
    assert agent.evaluate(view, random.Random(1)) == first  # same seed, same values
    assert sum(BatchSearchAgent(8).evaluate(view, random.Random(1))) != pytest.approx(0.0)
    for bad in (-1.0, True, "x", float("nan"), float("inf")):
        with pytest.raises(ValueError, match="infer"):
            BatchSearchAgent(8, infer=bad)  # type: ignore[arg-type]


def test_tile_sums_add_up_the_model_over_each_tiles_slots() -> None:
    from agents.inference import offered, placement_features

    rules = Rules.preset("pagat", 2)
    game = played_game(rules, 8, 6)
    theta = DEFAULT_MODEL.theta()
    layout = game.layout
    want = np.zeros(28)
    for t in range(28):
        if not layout.on_table >> t & 1:
            want[t] = sum(
                np.exp(theta @ placement_features(rules, layout, t, s)) for s in offered(layout, t)
            )
    assert want.sum() > 0
    np.testing.assert_allclose(tile_sums(rules, layout, theta), want, rtol=1e-12)
