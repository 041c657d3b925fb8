"""Every worked example of RULES.md §3, move by move: the count and the score."""

from __future__ import annotations

import pytest
from conftest import scripted_deal, scripted_game

from allfives_env import Action, Game, HandEnd, Rules, round5


def _steps(game: Game, steps: list[tuple[str, int, int]]) -> None:
    for action, count, points in steps:
        result = game.apply(action)
        assert (action, game.count, result.points) == (action, count, points)


def example_1_to_3() -> Game:
    return scripted_game(
        "pagat",
        [
            ["6-4", "6-3", "1-5", "1-0", "2-6", "0-0", "3-3", "4-4", "5-5"],
            ["4-1", "1-1", "1-2", "2-2", "0-2", "2-3", "2-4", "2-5", "0-6"],
        ],
    )


def test_example_1() -> None:
    game = example_1_to_3()
    _steps(game, [("6-4", 10, 10), ("4-1 E", 7, 0), ("6-3 W", 4, 0)])


def test_example_2_first_double_is_the_spinner_and_branches_wait() -> None:
    game = example_1_to_3()
    _steps(game, [("6-4", 10, 10), ("4-1 E", 7, 0), ("6-3 W", 4, 0), ("1-1 E", 5, 5)])
    # A tile against the spinner may go only on its free straight side (E); N and S are closed.
    assert {a.slot for a in game.legal_actions() if a.tile == Action.parse("1-5 E").tile} == {1}
    assert game.why_illegal(Action.parse("1-5 N")) == "slot N is not open"
    _steps(game, [("1-5 E", 8, 0)])


def test_example_3_branches_and_an_ordinary_double() -> None:
    game = example_1_to_3()
    _steps(
        game,
        [
            ("6-4", 10, 10),
            ("4-1 E", 7, 0),
            ("6-3 W", 4, 0),
            ("1-1 E", 5, 5),
            ("1-5 E", 8, 0),
            ("1-2 N", 10, 10),
            ("1-0 S", 10, 10),
            ("2-2 N", 12, 0),
            ("2-6 N", 14, 0),
        ],
    )
    assert game.scores == (20, 15)


def test_example_4_led_spinner() -> None:
    game = scripted_game(
        "pagat",
        [
            ["5-5", "5-3", "5-6", "0-0", "1-1", "2-2", "3-3", "4-4", "6-6"],
            ["5-0", "0-2", "5-4", "1-2", "1-3", "1-4", "1-5", "1-6", "2-3"],
        ],
    )
    _steps(
        game,
        [
            ("5-5", 10, 10),
            ("5-0 E", 10, 10),  # the W side is free: the spinner still counts
            ("5-3 W", 3, 0),  # both straight sides covered: the spinner counts 0
            ("0-2 E", 5, 5),
            ("5-6 N", 11, 0),
            ("5-4 S", 15, 15),
        ],
    )
    assert game.scores == (10, 30)


def test_example_5_closed_double_counts_nothing() -> None:
    game = scripted_game(
        "pagat",
        [
            ["3-6", "6-2", "6-0", "5-0", "6-1", "0-0", "1-1", "2-2", "3-3"],
            ["6-6", "6-5", "5-5", "1-2", "1-3", "1-4", "1-5", "2-3", "2-4"],
        ],
    )
    _steps(game, [("3-6", 9, 0), ("6-6 E", 15, 15)])
    # now a 6-1 may go only on E
    assert [a for a in game.legal_actions() if a.tile == Action.parse("1-6 E").tile] == [
        Action.parse("1-6 E")
    ]
    _steps(
        game,
        [
            ("6-2 E", 5, 5),
            ("6-5 N", 10, 10),
            ("6-0 S", 10, 10),
            ("5-5 N", 15, 15),
            ("5-0 N", 5, 5),  # counting the closed 5-5 would wrongly give 15
        ],
    )
    assert game.scores == (20, 40)


@pytest.mark.parametrize(("b_holds", "award"), [("1-2", 5), ("1-1", 0)])
def test_example_6_two_player_domino(b_holds: str, award: int) -> None:
    game = scripted_game("pagat", [["4-6"], [b_holds]], hand_size=1)
    result = game.apply("4-6")  # A's last tile: a count of 10, then the domino
    assert result.points == 10
    assert result.hand is not None
    assert result.hand.end == HandEnd.DOMINO
    assert result.hand.award == (award, 0)
    assert game.scores == (10 + award, 0)


ROUND5 = [(0, 0), (1, 0), (2, 0), (3, 5), (7, 5), (8, 10), (12, 10), (13, 15), (17, 15), (21, 20),
          (23, 25), (28, 30)]  # fmt: skip


@pytest.mark.parametrize(("n", "rounded"), ROUND5)
def test_example_6_round5(n: int, rounded: int) -> None:
    assert round5(n) == rounded


def test_example_7_three_players_rounded_once() -> None:
    game = scripted_game("pagat", [["0-0"], ["6-1"], ["5-2"]], hand_size=1)
    result = game.apply("0-0")
    assert result.hand is not None and result.hand.award == (15, 0, 0)  # not 5 + 5


def test_example_8_five_up_count_20_on_58_scores_nothing() -> None:
    rules = Rules.preset("five_up", 2)
    hands = [["6-4", "6-6", "0-1", "0-2", "0-3"], ["4-4", "1-2", "1-3", "2-3", "0-0"]]
    game = Game(rules, deal=scripted_deal(rules, hands), scores=(56, 0))
    _steps(game, [("6-4", 10, 2), ("4-4 E", 14, 0)])  # side 0 is on 58
    result = game.apply("6-6 W")  # 12 + 8 = 20 → 4 points → 62 > 61: not scored
    assert (game.count, result.points, game.scores) == (20, 0, (58, 0))
    assert result.hand is None and not game.is_match_over  # play goes on
    assert game.current_player == 1


def test_example_8_five_up_count_15_on_58_wins_at_once() -> None:
    rules = Rules.preset("five_up", 2)
    hands = [["6-6", "0-1", "0-2", "0-4", "0-5"], ["6-3", "1-2", "1-3", "2-3", "0-0"]]
    game = Game(rules, deal=scripted_deal(rules, hands, leader=1), scores=(58, 0))
    _steps(game, [("6-3", 9, 0)])
    result = game.apply("6-6 W")  # 12 + 3 = 15 → 3 points → exactly 61
    assert (result.points, game.scores, game.winners) == (3, (61, 0), (0,))
    assert result.hand is not None and result.hand.end == HandEnd.TARGET
    assert game.is_match_over
