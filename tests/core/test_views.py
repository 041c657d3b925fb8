"""Views: what a seat may know, and nothing more; known voids."""

from __future__ import annotations

import random

import pytest
from conftest import play, scripted_deal, scripted_game, with_hidden_tiles_reshuffled

from allfives_env import PRESETS, DealError, Game, Phase, Rules, Tile


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("n", [2, 3, 4])
def test_a_view_does_not_change_with_tiles_the_seat_cannot_see(preset: str, n: int) -> None:
    rng = random.Random(f"{preset}{n}")
    game = Game(Rules.preset(preset, n), rng)
    checked = 0
    while not game.is_match_over and checked < 60:
        if game.is_hand_over:
            game.deal(rng)
            continue
        for seat in range(n):
            if seat == game.current_player and game.phase == Phase.DRAWN:
                continue  # his own drawn tile is his to know
            other = with_hidden_tiles_reshuffled(game, seat, rng)
            assert other.view(seat) == game.view(seat)
            assert other.render(seat) == game.render(seat)
            checked += 1
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])


def seat_1_has_no_six() -> Game:
    """Seat 0 leads 6-6; seat 1 must draw 5-5 (no fit), then 1-6 (fits)."""
    return scripted_game(
        "pagat",
        [
            ["6-6", "0-0", "0-1", "0-2", "0-3", "0-4", "0-5", "1-1", "1-2"],
            ["2-2", "2-3", "2-4", "2-5", "3-3", "3-4", "3-5", "4-4", "4-5"],
        ],
        boneyard=["5-5", "1-6"],
    )


def test_others_do_not_learn_whether_a_drawn_tile_fits() -> None:
    game = seat_1_has_no_six()
    play(game, "6-6")  # seat 1 has no 6
    assert [str(a) for a in game.legal_actions()] == ["draw"]
    play(game, "draw")  # 5-5 does not fit
    seen_by_0_after_miss = game.view(0)
    assert game.phase == Phase.PLAY
    play(game, "draw")  # 1-6 fits: seat 1 must place it
    assert game.phase == Phase.DRAWN
    v0 = game.view(0)
    v1 = game.view(1)
    assert v0.phase == Phase.PLAY and v0.drawn_tile is None and v0.legal_actions == ()
    assert v0.draws_this_turn == seen_by_0_after_miss.draws_this_turn + 1 == 2
    assert v1.phase == Phase.DRAWN and str(v1.drawn_tile) == "1-6"
    assert [str(a) for a in v1.legal_actions] == ["1-6 W", "1-6 E"]


def test_known_voids_from_draws_and_passes() -> None:
    game = seat_1_has_no_six()
    play(game, "6-6")
    assert game.known_voids(1) == []
    play(game, "draw")
    assert game.known_voids(1) == []  # the drawn tile is unseen: nothing is known yet
    play(game, "draw")  # the first drawn tile did not fit: seat 1 had no 6 and 5-5 has none
    assert game.known_voids(1) == []  # ...but the second drawn tile is unseen again
    play(game, "1-6 E")
    assert game.known_voids(1) == [6]  # he placed the tile he drew: he holds no 6
    assert game.view(0).voids_of(1) == [6]


def test_voids_after_a_long_draw() -> None:
    hands = [
        ["6-6", "0-0", "0-1", "0-2", "0-3", "0-4", "0-5"],
        ["2-2", "2-3", "2-4", "2-5", "3-3", "3-4", "3-5"],
    ]
    rules = Rules.preset("pyatyorka", 2)
    bone = ["1-1", "1-2", "1-3", "1-4", "1-5", "4-4", "4-5", "5-5", "1-6", "2-6"]
    bone += ["3-6", "4-6", "5-6", "0-6"]
    game = Game(rules, deal=scripted_deal(rules, hands, bone))
    play(game, "6-6")  # at once: W, E, N, S all show 6
    for _ in range(9):  # eight misses, then 1-6 fits
        play(game, "draw")
    assert game.phase == Phase.DRAWN
    play(game, "1-6 W")
    assert game.known_voids(1) == [6]  # the eight unseen misses may hold anything but a 6


@pytest.mark.parametrize("seat", [-1, 2, "0", None])
def test_view_of_a_bad_seat_is_refused(seat: object) -> None:
    game = Game("pagat", random.Random(0))
    with pytest.raises(ValueError, match="no seat"):
        game.view(seat)  # type: ignore[arg-type]


def test_a_view_is_a_snapshot() -> None:
    game = Game("pagat", random.Random(1))
    view = game.view(game.current_player or 0)
    view.layout.lead(0)
    assert game.layout.is_empty
    assert not any(isinstance(v, Game) for v in vars_of(view))


def vars_of(view: object) -> list[object]:
    return [getattr(view, f) for f in view.__slots__]  # type: ignore[attr-defined]


@pytest.mark.parametrize("preset", PRESETS)
def test_a_world_from_the_true_tiles_plays_like_the_game(preset: str) -> None:
    rng = random.Random(preset)
    game = Game(Rules.preset(preset, 3), rng)
    for _ in range(7):
        game.apply(game.legal_actions()[rng.randrange(len(game.legal_actions()))])
    if game.is_hand_over:
        return
    seat = game.current_player
    assert seat is not None
    view = game.view(seat)
    hidden = {s: game.hand(s) for s in range(3) if s != seat}
    world = Game.from_view(view, hidden, game.boneyard)
    assert world.legal_actions() == game.legal_actions()
    while not game.is_hand_over:
        legal = game.legal_actions()
        a = legal[rng.randrange(len(legal))]
        assert world.apply(a)[:3] == game.apply(a)[:3]
    assert world.scores == game.scores


def test_a_world_with_the_wrong_tiles_is_refused() -> None:
    game = Game("pagat", random.Random(2))
    seat = game.current_player
    assert seat is not None
    view = game.view(seat)
    other = 1 - seat
    with pytest.raises(DealError):
        Game.from_view(view, {other: game.hand(other)[:-1]}, game.boneyard)
    with pytest.raises(DealError):
        Game.from_view(view, {other: game.hand(seat)}, game.boneyard)


def test_a_world_must_respect_known_voids_and_the_required_lead() -> None:
    game = seat_1_has_no_six()
    play(game, "6-6", "draw")
    play(game, "draw", "1-6 E")  # seat 1 is now known to hold no 6
    view = game.view(0)
    unseen = [t for t in range(28) if view.unseen_mask >> t & 1]
    six = next(t for t in unseen if 6 in (Tile(t).low, Tile(t).high))
    others = [t for t in unseen if t != six]
    k = view.hand_sizes[1]
    with pytest.raises(DealError, match="known to hold none"):
        Game.from_view(view, {1: [six, *others[: k - 1]]}, others[k - 1 :])
    Game.from_view(view, {1: [six, *others[: k - 1]]}, others[k - 1 :], strict=False)
    cc = Game(Rules.preset("dominoes_cc", 2), random.Random(4))
    leader = cc.current_player
    assert leader is not None and cc.required_lead is not None
    lv = cc.view(1 - leader)  # the other seat's view: the leader's hand is hidden
    hidden = [t for t in range(28) if lv.unseen_mask >> t & 1 and t != cc.required_lead]
    size = lv.hand_sizes[leader]
    with pytest.raises(DealError, match="must hold"):
        Game.from_view(lv, {leader: hidden[:size]}, [*hidden[size:], cc.required_lead])


def test_game_arguments_get_typed_errors() -> None:
    import numpy as np

    from allfives_env import ArgumentError, Deal

    rules = Rules.preset("pagat", 2)
    with pytest.raises(ArgumentError, match=r"rng must be a random\.Random"):
        Game(rules, 7)  # type: ignore[arg-type]
    with pytest.raises(TypeError):  # ArgumentError is a TypeError too (and a ValueError)
        Game(rules, 7)  # type: ignore[arg-type]
    with pytest.raises(ArgumentError, match="rules must be a Rules"):
        Game(42)  # type: ignore[arg-type]
    game = Game(rules, random.Random(7))
    for bad in (-1, 2, 99, "0", 1.0, None, True):
        for method in (game.hand, game.hand_mask, game.played_mask, game.pips, game.known_voids):
            with pytest.raises(ArgumentError, match="no seat"):
                method(bad)  # type: ignore[arg-type]
        with pytest.raises(ArgumentError, match="no seat"):
            game.view(bad)  # type: ignore[arg-type]
    assert game.hand(np.int64(1)) == game.hand(1)
    assert game.view(np.int32(0)) == game.view(0)
    while not game.is_hand_over:
        game.apply(game.legal_actions()[0])
    if not game.is_match_over:
        with pytest.raises(ArgumentError, match="rng must be"):
            game.deal(8)  # type: ignore[arg-type]
        with pytest.raises(ArgumentError, match="deal must be a Deal"):
            game.deal(deal=[[1, 2]])  # type: ignore[arg-type]
        assert isinstance(game.deal(random.Random(8)), Deal)


def test_numpy_integers_are_actions_everywhere() -> None:
    import numpy as np

    game = Game(Rules.preset("pagat", 2), random.Random(3))
    legal = game.legal_actions()[0]
    as_numpy = np.int64(int(legal))
    assert game.is_legal(as_numpy) and game.why_illegal(as_numpy) is None
    assert game.apply(as_numpy).action == legal


def test_the_lead_has_one_notation() -> None:
    game = Game(Rules.preset("pagat", 2), random.Random(3))
    lead = game.legal_actions()[0]
    text = game.notation(lead)
    assert " " not in text and text == lead.lead_text()
    # apply and why_illegal read the record form and str(action) alike
    assert game.why_illegal(text) is None and game.why_illegal(str(lead)) is None
    assert game.why_illegal("draw") == game.why_illegal(int(game.legal_actions()[0]) * 0 + 448)
    message = ""
    try:
        game.apply("draw")
    except ValueError as e:
        message = str(e)
    assert "the leader must lead a tile, not draw" in message
    assert f"legal: {text}" in message  # the legal leads are written as a record writes them
    game.apply(text)
