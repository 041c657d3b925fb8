"""Scripted deals for every row of the preset table (RULES.md §2), preset by preset.

Each test plays a scripted deal and checks exact points, scores, legal actions or leaders. A test
of a preset whose row differs from ``pagat`` is written so that it fails if that row were played
as in ``pagat``; the ``pagat`` tests are the baseline. Expected numbers are worked out by hand
from RULES.md (the comments show the counts).

:data:`TABLE` maps every cell of the §2 table (row, preset) to the tests that cover it.

Two scripted "blocking lines" recur. Each puts all seven tiles of one value on the table with
every open end showing that value, so that the hand is blocked as soon as nothing can be drawn:

* :data:`ZERO_LINE` leads 0-0: counts 0, 2, 5, 4, 5, 4, 0, 5, 6, 0;
* :data:`SIX_LINE` leads 6-6 (so ``dominoes_cc`` may play it): counts 12, 12, 2, 3, 4, 9, 12,
  10, 11, 12.

Placed in turn, seat ``i % n`` plays the ``i``-th tile of a line (:func:`line_hands`). Blocked
hands need an empty boneyard (or only ``pyatyorka``'s stop tile), so those deals override
``hand_size`` to deal (nearly) all 28 tiles.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from conftest import play, scripted_deal, scripted_game

from allfives_env import (
    PRESETS,
    DealError,
    Game,
    HandEnd,
    IllegalActionError,
    Phase,
    Rules,
    Tile,
    hand_award,
    new_game,
)

# (row of the RULES.md §2 table, preset) → the tests that cover that cell.
TABLE: dict[tuple[str, str], tuple[str, ...]] = {
    ("deal", "pagat"): ("test_deal_sizes",),
    ("deal", "spruce"): ("test_deal_sizes",),
    ("deal", "dominoes_cc"): ("test_deal_sizes",),
    ("deal", "pyatyorka"): ("test_deal_sizes",),
    ("deal", "five_up"): ("test_deal_sizes",),
    ("leader", "pagat"): ("test_leader_lot_then_who_dominoed", "test_leader_after_block"),
    ("leader", "spruce"): ("test_leader_lot_then_who_dominoed", "test_leader_after_block"),
    ("leader", "dominoes_cc"): (
        "test_dominoes_cc_highest_double_leads",
        "test_dominoes_cc_heaviest_tile_leads_without_doubles",
        "test_dominoes_cc_leader_every_hand",
        "test_leader_after_block_dominoes_cc",
    ),
    ("leader", "pyatyorka"): (
        "test_leader_lot_then_who_dominoed",
        "test_leader_after_block",
        "test_pyatyorka_partnership_block_leader_is_one_of_the_winners",
        "test_pyatyorka_tied_block_leader_by_lot",
    ),
    ("leader", "five_up"): ("test_leader_lot_then_who_dominoed", "test_leader_after_block"),
    ("spinners", "pagat"): ("test_spinners_and_branches_by_preset", "test_pagat_worked_examples"),
    ("spinners", "spruce"): ("test_spinners_and_branches_by_preset",),
    ("spinners", "dominoes_cc"): ("test_spinners_and_branches_by_preset",),
    ("spinners", "pyatyorka"): ("test_spinners_and_branches_by_preset",),
    ("spinners", "five_up"): (
        "test_spinners_and_branches_by_preset",
        "test_five_up_every_double_is_a_spinner",
    ),
    ("branches", "pagat"): ("test_spinners_and_branches_by_preset", "test_pagat_worked_examples"),
    ("branches", "spruce"): ("test_spinners_and_branches_by_preset",),
    ("branches", "dominoes_cc"): ("test_spinners_and_branches_by_preset",),
    ("branches", "pyatyorka"): (
        "test_spinners_and_branches_by_preset",
        "test_pyatyorka_led_spinner_branches_open_at_once",
        "test_pyatyorka_placed_spinner_branches_open_at_once",
        "test_pyatyorka_worked_example_with_open_branches",
    ),
    ("branches", "five_up"): (
        "test_spinners_and_branches_by_preset",
        "test_five_up_every_double_is_a_spinner",
    ),
    ("boneyard", "pagat"): ("test_zero_line_block_by_preset", "test_stop_tile_draw_or_pass"),
    ("boneyard", "spruce"): ("test_zero_line_block_by_preset",),
    ("boneyard", "dominoes_cc"): ("test_three_player_tied_block_by_preset",),
    ("boneyard", "pyatyorka"): (
        "test_zero_line_block_by_preset",
        "test_stop_tile_draw_or_pass",
        "test_three_player_tied_block_by_preset",
        "test_pyatyorka_partnership_block_leader_is_one_of_the_winners",
    ),
    ("boneyard", "five_up"): ("test_zero_line_block_by_preset",),
    ("drawing", "pagat"): ("test_no_draw_while_able",),
    ("drawing", "spruce"): ("test_no_draw_while_able",),
    ("drawing", "dominoes_cc"): ("test_no_draw_while_able",),
    ("drawing", "pyatyorka"): ("test_no_draw_while_able",),
    ("drawing", "five_up"): ("test_five_up_may_draw_while_able", "test_five_up_draw_or_pass"),
    ("unit", "pagat"): ("test_spinners_and_branches_by_preset", "test_domino_award_by_preset"),
    ("unit", "spruce"): ("test_spinners_and_branches_by_preset",),
    ("unit", "dominoes_cc"): ("test_spinners_and_branches_by_preset",),
    ("unit", "pyatyorka"): ("test_spinners_and_branches_by_preset", "test_domino_award_by_preset"),
    ("unit", "five_up"): ("test_spinners_and_branches_by_preset", "test_domino_award_by_preset"),
    ("award", "pagat"): (
        "test_domino_award_by_preset",
        "test_blocked_award_by_preset",
        "test_three_player_tied_block_by_preset",
        "test_two_player_tied_block_by_preset",
    ),
    ("award", "spruce"): (
        "test_domino_award_by_preset",
        "test_blocked_award_by_preset",
        "test_spruce_scores_go_negative",
    ),
    ("award", "dominoes_cc"): (
        "test_domino_award_by_preset",
        "test_blocked_award_by_preset",
        "test_three_player_tied_block_by_preset",
        "test_two_player_tied_block_by_preset",
    ),
    ("award", "pyatyorka"): (
        "test_domino_award_by_preset",
        "test_blocked_award_by_preset",
        "test_zero_line_block_by_preset",
    ),
    ("award", "five_up"): (
        "test_domino_award_by_preset",
        "test_blocked_award_by_preset",
        "test_three_player_tied_block_by_preset",
    ),
    ("target", "pagat"): (
        "test_target_by_preset",
        "test_target_two_sides_at_once",
        "test_target_reached_by_the_blocking_placement",
    ),
    ("target", "spruce"): ("test_target_by_preset",),
    ("target", "dominoes_cc"): ("test_target_by_preset",),
    ("target", "pyatyorka"): (
        "test_target_by_preset",
        "test_target_reached_by_the_blocking_placement",
    ),
    ("target", "five_up"): (
        "test_five_up_exact_61_by_placement",
        "test_five_up_exact_61_by_award",
        "test_five_up_target_is_61",
        "test_target_two_sides_at_once",
        "test_target_reached_by_the_blocking_placement",
    ),
    ("four players", "pagat"): ("test_four_player_default_by_preset",),
    ("four players", "spruce"): ("test_four_player_default_by_preset",),
    ("four players", "dominoes_cc"): ("test_four_player_default_by_preset",),
    ("four players", "pyatyorka"): (
        "test_four_player_default_by_preset",
        "test_pyatyorka_seed_example_four_individual_players",
    ),
    ("four players", "five_up"): ("test_four_player_default_by_preset",),
}

ROWS = (
    "deal", "leader", "spinners", "branches", "boneyard", "drawing", "unit", "award", "target",
    "four players",
)  # fmt: skip


def test_table_names_existing_tests() -> None:
    assert {row for row, _ in TABLE} == set(ROWS)
    assert {(row, preset) for row in ROWS for preset in PRESETS} == set(TABLE)
    module = globals()
    for cell, names in TABLE.items():
        assert names, cell
        for name in names:
            assert name.startswith("test_") and callable(module.get(name)), (cell, name)


# ----------------------------------------------------------------------------------- helpers

PLAYERS = [
    pytest.param(2, True, id="2p"),
    pytest.param(3, True, id="3p"),
    pytest.param(4, True, id="4p"),
    pytest.param(4, False, id="solo4"),
]

ZERO_LINE = ("0-0", "0-2 W", "0-3 E", "2-1 W", "3-4 E", "1-0 W", "4-0 E", "0-5 E", "5-6 E", "6-0 E")
SIX_LINE = ("6-6", "6-0 W", "6-2 E", "0-1 W", "2-3 E", "1-6 W", "3-6 E", "6-4 E", "4-5 E", "5-6 E")


def line_hands(line: Sequence[str], rest: Sequence[Sequence[str]]) -> list[list[str]]:
    """Hands for ``line`` played in turn from seat 0, each followed by that seat's ``rest``."""
    n = len(rest)
    hands: list[list[str]] = [[] for _ in range(n)]
    for i, action in enumerate(line):
        hands[i % n].append(action.split()[0])
    return [[*h, *r] for h, r in zip(hands, rest, strict=True)]


def fill(
    size: int, required: Sequence[Sequence[str]], avoid: Sequence[str] = ()
) -> list[list[str]]:
    """Hands of ``size`` tiles: each seat's ``required`` tiles, then unused tiles in id order.

    Tiles in ``avoid`` (and every required tile) are never used as filler.
    """
    used = {Tile.parse(t) for h in required for t in h} | {Tile.parse(t) for t in avoid}
    spare = [str(Tile(t)) for t in range(28) if Tile(t) not in used]
    hands = []
    for h in required:
        k = size - len(h)
        hands.append([*h, *spare[:k]])
        spare = spare[k:]
    return hands


def legal(game: Game) -> list[str]:
    """The legal actions as sorted text."""
    return sorted(str(a) for a in game.legal_actions())


def placements_of(game: Game, tile: str) -> list[str]:
    """The legal placements of ``tile``, as sorted text."""
    t = Tile.parse(tile)
    return sorted(str(a) for a in game.legal_actions() if a.tile == t)


def leader_for(preset: str) -> int | None:
    """The ``leader`` a first deal names: seat 0 where the rules choose by lot."""
    return None if preset == "dominoes_cc" else 0


def accepted_leaders(game: Game, hands: Sequence[Sequence[str]]) -> tuple[bool, list[int]]:
    """For the next deal of ``hands``: whether it may omit the leader, and the seats it may name.

    Each try is made on a clone of ``game``, which is between hands.
    """
    rules = game.rules

    def accepts(leader: int | None) -> bool:
        try:
            game.clone().deal(deal=scripted_deal(rules, hands, leader=leader))
        except DealError:
            return False
        return True

    return accepts(None), [s for s in range(rules.num_players) if accepts(s)]


def any_hands(rules: Rules) -> list[list[str]]:
    """A deal's hands: the tiles in id order, ``hand_size`` to a seat."""
    k = rules.hand_size
    return [[str(Tile(t)) for t in range(i * k, (i + 1) * k)] for i in range(rules.num_players)]


# ----------------------------------------------------------------------------------- deal

DEAL_SIZES = {  # RULES.md §1 "Deal" (pagat) and §2 "Deal 2/3/4"
    "pagat": (9, 7, 5),
    "spruce": (9, 7, 5),
    "dominoes_cc": (7, 6, 5),
    "pyatyorka": (7, 5, 5),
    "five_up": (5, 5, 5),
}


@pytest.mark.parametrize(("n", "partnerships"), PLAYERS)
@pytest.mark.parametrize("preset", PRESETS)
def test_deal_sizes(preset: str, n: int, partnerships: bool) -> None:
    size = DEAL_SIZES[preset][n - 2]
    rules = Rules.preset(preset, n, partnerships=partnerships)
    assert rules.hand_size == size
    assert rules.boneyard_size == 28 - n * size

    game = new_game(preset, n, seed=11, partnerships=partnerships)
    assert game.hand_sizes == (size,) * n
    assert game.boneyard_size == 28 - n * size

    # A scripted deal of the preset's size is accepted; one of pagat's size (where that differs)
    # is refused.
    hands = any_hands(rules)
    game = Game(rules, deal=scripted_deal(rules, hands, leader=leader_for(preset)))
    assert game.hand_sizes == (size,) * n
    assert game.boneyard_size == 28 - n * size
    pagat_size = DEAL_SIZES["pagat"][n - 2]
    if pagat_size != size:
        wrong = any_hands(rules.replace(hand_size=pagat_size))
        with pytest.raises(DealError):
            Game(rules, deal=scripted_deal(rules, wrong, leader=leader_for(preset)))


# ----------------------------------------------------------------------------------- leader

SINGLES = (["0-1"], ["0-2"], ["0-3"], ["0-4"])


@pytest.mark.parametrize(("n", "partnerships"), PLAYERS)
@pytest.mark.parametrize("preset", ["pagat", "spruce", "pyatyorka", "five_up"])
def test_leader_lot_then_who_dominoed(preset: str, n: int, partnerships: bool) -> None:
    """First hand: by lot (the deal must name any seat); later: the seat that dominoed."""
    rules = Rules.preset(preset, n, partnerships=partnerships, hand_size=1)
    hands = SINGLES[:n]
    with pytest.raises(DealError):
        Game(rules, deal=scripted_deal(rules, hands, leader=None))
    for seat in range(n):
        game = Game(rules, deal=scripted_deal(rules, hands, leader=seat))
        assert game.leader == game.current_player == seat
    # The last seat leads its only tile: a domino.
    last = n - 1
    game = Game(rules, deal=scripted_deal(rules, hands, leader=last))
    result = game.apply(hands[last][0])
    assert result.hand is not None and result.hand.end == HandEnd.DOMINO
    assert result.hand.domino_seat == last
    assert accepted_leaders(game, hands) == (True, [last])
    game.deal(deal=scripted_deal(rules, hands, leader=None))
    assert game.leader == game.current_player == last


DOUBLE_HOLDER = [
    pytest.param(2, True, 1, id="2p"),
    pytest.param(3, True, 2, id="3p"),
    pytest.param(4, True, 3, id="4p"),
    pytest.param(4, False, 1, id="solo4"),
]


@pytest.mark.parametrize("double", ["6-6", "5-5"])
@pytest.mark.parametrize(("n", "partnerships", "holder"), DOUBLE_HOLDER)
def test_dominoes_cc_highest_double_leads(
    n: int, partnerships: bool, holder: int, double: str
) -> None:
    """dominoes_cc: the holder of the highest double in any hand leads it (no lot).

    Seat 0 holds lower doubles and the heaviest other tiles; with ``5-5`` the 6-6 lies in the
    boneyard, so 5-5 is the highest double dealt.
    """
    rules = Rules.preset("dominoes_cc", n, partnerships=partnerships)
    required = [["4-4", "5-6", "4-6"] if s == 0 else [] for s in range(n)]
    required[holder] = [double]
    hands = fill(rules.hand_size, required, avoid=["6-6", "5-5"])
    game = Game(rules, deal=scripted_deal(rules, hands, leader=None))
    assert game.leader == game.current_player == holder
    assert game.required_lead == Tile.parse(double)
    assert legal(game) == [f"{double} W"]
    other = hands[holder][1]
    with pytest.raises(IllegalActionError):
        game.apply(other)
    with pytest.raises(DealError):  # the deal may name only the holder
        Game(rules, deal=scripted_deal(rules, hands, leader=0))
    Game(rules, deal=scripted_deal(rules, hands, leader=holder))
    # 6-6 led counts 12 (no score); 5-5 led counts 10.
    assert play(game, double) == [0 if double == "6-6" else 10]


HEAVIEST = [
    # 3-6 and 4-5 both have 9 pips: 3-6 (higher high half) leads.
    pytest.param([["4-5", "0-1"], ["3-6", "0-2"]], 1, "3-6", 9, id="2p-3-6-before-4-5"),
    pytest.param([["3-6", "0-1"], ["4-5", "0-2"]], 0, "3-6", 9, id="2p-3-6-seat0"),
    pytest.param([["4-6", "0-1"], ["5-6", "0-2"]], 1, "5-6", 11, id="2p-heaviest"),
    pytest.param(
        [["0-1", "0-2"], ["4-5", "1-2"], ["3-6", "1-3"]], 2, "3-6", 9, id="3p-3-6-before-4-5"
    ),
    pytest.param(
        [["4-5", "0-1"], ["0-2", "0-3"], ["1-2", "1-3"], ["3-6", "1-4"]],
        3,
        "3-6",
        9,
        id="4p-3-6-before-4-5",
    ),
    pytest.param(
        [["2-6", "0-1"], ["4-6", "0-3"], ["2-4", "1-2"], ["3-4", "1-4"]], 1, "4-6", 10, id="4p"
    ),
]


@pytest.mark.parametrize(("hands", "holder", "tile", "count"), HEAVIEST)
def test_dominoes_cc_heaviest_tile_leads_without_doubles(
    hands: list[list[str]], holder: int, tile: str, count: int
) -> None:
    """dominoes_cc, no double in any hand: the heaviest tile leads (equal pips: higher half)."""
    game = scripted_game("dominoes_cc", hands, leader=None, hand_size=2)
    assert game.leader == game.current_player == holder
    assert legal(game) == [f"{tile} W"]
    assert game.required_lead == Tile.parse(tile)
    for seat in range(len(hands)):
        if seat != holder:
            with pytest.raises(DealError):
                scripted_game("dominoes_cc", hands, leader=seat, hand_size=2)
    assert play(game, tile) == [count if count % 5 == 0 else 0]
    # Under pagat the same deal would need a leader chosen by lot.
    with pytest.raises(DealError):
        scripted_game("pagat", hands, leader=None, hand_size=2)


def test_dominoes_cc_leader_every_hand() -> None:
    """dominoes_cc: after a domino the highest double still leads, not the player who dominoed."""
    game = scripted_game("dominoes_cc", [["6-6"], ["1-2"]], leader=None, hand_size=1)
    result = game.apply("6-6")  # counts 12: nothing; domino: round5(3) = 5
    assert result.hand is not None and result.hand.end == HandEnd.DOMINO
    assert game.scores == (5, 0)
    hands = [["1-2"], ["5-5"]]
    assert accepted_leaders(game, hands) == (True, [1])
    game.deal(deal=scripted_deal(game.rules, hands, leader=None))
    assert game.leader == 1 and legal(game) == ["5-5 W"]


# --- Blocked hands on the SIX_LINE, for 2, 4 (partnerships) and 4 individual players.
#
# 2 players, 14 tiles each (no boneyard): seat 0 keeps 33 pips, seat 1 57; seat 1 scored 10
# with 6-4 E (count 10).
# 4 players, 7 tiles each (no boneyard): seats keep 7, 23, 22, 38 pips (side 0: 29, side 1:
# 61); seat 3 scored 10.
SIX_BLOCKS: dict[str, tuple[tuple[int, bool], list[list[str]]]] = {
    "2p": (
        (2, True),
        [
            ["0-0", "0-2", "0-3", "0-4", "0-5", "1-1", "1-2", "2-5", "3-4"],
            ["1-3", "1-4", "1-5", "2-2", "2-4", "3-3", "3-5", "4-4", "5-5"],
        ],
    ),
    "4p": (
        (4, True),
        [
            ["0-0", "0-2", "1-1", "0-3"],
            ["2-5", "1-5", "2-4", "2-2"],
            ["0-4", "1-2", "1-3", "1-4", "3-3"],
            ["3-4", "3-5", "4-4", "5-5", "0-5"],
        ],
    ),
    "solo4": (
        (4, False),
        [
            ["0-0", "0-2", "1-1", "0-3"],
            ["2-5", "1-5", "2-4", "2-2"],
            ["0-4", "1-2", "1-3", "1-4", "3-3"],
            ["3-4", "3-5", "4-4", "5-5", "0-5"],
        ],
    ),  # the same deal as "4p"
}

BLOCKED_AWARDS = [
    # 2 players, 33 v 57 pips.
    ("2p", "pagat", (55, 0), (55, 10)),  # round5(57)
    ("2p", "spruce", (-35, -55), (-35, -45)),  # -round5(33), -round5(57)
    ("2p", "dominoes_cc", (55, 0), (55, 10)),
    ("2p", "pyatyorka", (5, 0), (5, 10)),  # round5(57 - 33) / 5
    ("2p", "five_up", (5, 0), (5, 2)),  # round5(24) / 5; 6-4 E scored 10 / 5
    # 4 players in partnerships: side 0 (7 + 22 = 29) v side 1 (23 + 38 = 61).
    ("4p", "pagat", (60, 0), (60, 10)),  # round5(61), rounded once
    ("4p", "spruce", (-25, -65), (-25, -55)),  # -(5 + 20), -(25 + 40): per player
    ("4p", "dominoes_cc", (65, 0), (65, 10)),  # round5(23) + round5(38), per opponent
    ("4p", "pyatyorka", (6, 0), (6, 10)),  # round5(61 - 29) / 5
    ("4p", "five_up", (6, 0), (6, 2)),  # round5(32) / 5
    # 4 players each for himself: 7, 23, 22, 38 pips.
    ("solo4", "pagat", (85, 0, 0, 0), (85, 0, 0, 10)),  # round5(83)
    ("solo4", "spruce", (-5, -25, -20, -40), (-5, -25, -20, -30)),
    ("solo4", "dominoes_cc", (85, 0, 0, 0), (85, 0, 0, 10)),  # 25 + 20 + 40
    ("solo4", "pyatyorka", (15, 0, 0, 0), (15, 0, 0, 10)),  # round5(83 - 7) / 5
    # 7 v 22, 23, 38: 3 + 3 + 6; 22 v 23, 38: 0 + 3; 23 v 38: 3.
    ("solo4", "five_up", (12, 3, 3, 0), (12, 3, 3, 2)),
]


def six_block_game(key: str, preset: str) -> Game:
    (_, partnerships), rest = SIX_BLOCKS[key]
    hands = line_hands(SIX_LINE, rest)
    size = len(hands[0])
    assert all(len(h) == size for h in hands)
    return scripted_game(
        preset, hands, leader=leader_for(preset), hand_size=size, partnerships=partnerships
    )


@pytest.mark.parametrize(("key", "preset", "award", "scores"), BLOCKED_AWARDS)
def test_blocked_award_by_preset(
    key: str, preset: str, award: tuple[float, ...], scores: tuple[float, ...]
) -> None:
    game = six_block_game(key, preset)
    assert game.leader == 0
    unit = 5 if preset == "five_up" else 1
    points = play(game, *SIX_LINE[:-1])
    assert points == [0, 0, 0, 0, 0, 0, 0, 10 // unit, 0]
    result = game.apply(SIX_LINE[-1])
    assert result.points == 0
    assert result.hand is not None
    assert result.hand.end == HandEnd.BLOCKED
    assert result.hand.award == award
    assert game.scores == scores
    assert game.phase == Phase.HAND_OVER


# Who may lead the hand after the blocks above: (omit the leader?, seats it may name).
LEADER_AFTER_BLOCK = [
    ("2p", "pagat", (False, [0, 1])),  # by lot: the deal must name a seat, any seat
    ("4p", "pagat", (False, [0, 1, 2, 3])),
    ("solo4", "pagat", (False, [0, 1, 2, 3])),
    ("2p", "spruce", (False, [0, 1])),
    ("4p", "spruce", (False, [0, 1, 2, 3])),
    ("solo4", "spruce", (False, [0, 1, 2, 3])),
    ("2p", "five_up", (False, [0, 1])),
    ("4p", "five_up", (False, [0, 1, 2, 3])),
    ("solo4", "five_up", (False, [0, 1, 2, 3])),
    ("2p", "pyatyorka", (True, [0])),  # the winner of the blocked hand
    ("4p", "pyatyorka", (False, [0, 2])),  # one of the winning partners, by lot
    ("solo4", "pyatyorka", (True, [0])),
]


@pytest.mark.parametrize(("key", "preset", "expected"), LEADER_AFTER_BLOCK)
def test_leader_after_block(key: str, preset: str, expected: tuple[bool, list[int]]) -> None:
    game = six_block_game(key, preset)
    play(game, *SIX_LINE)
    assert game.phase == Phase.HAND_OVER
    hands = any_hands(game.rules)
    assert accepted_leaders(game, hands) == expected


@pytest.mark.parametrize("key", ["2p", "4p", "solo4"])
def test_leader_after_block_dominoes_cc(key: str) -> None:
    game = six_block_game(key, "dominoes_cc")
    play(game, *SIX_LINE)
    hands = any_hands(game.rules)  # the last seat holds 6-6
    last = game.rules.num_players - 1
    assert accepted_leaders(game, hands) == (True, [last])


def test_pyatyorka_partnership_block_leader_is_one_of_the_winners() -> None:
    """pyatyorka, 4 players, 6 tiles each: seat 2 draws the 3 drawable tiles, the 4th (5-5) is the
    stop tile, and the hand is blocked. Side 1 (seats 1+3) wins; one of them leads by lot."""
    rest = [
        ["0-5", "1-4", "1-5"],  # seat 0: 16 pips
        ["0-0", "0-2", "1-1"],  # seat 1: 4
        ["2-2", "2-4", "2-5", "3-3"],  # seat 2: 23, then draws 3-4, 3-5, 4-4: 46
        ["0-3", "0-4", "1-2", "1-3"],  # seat 3: 14
    ]
    hands = line_hands(SIX_LINE, rest)
    boneyard = ["3-4", "3-5", "4-4", "5-5"]
    for preset, award, scores, leaders in [
        # side 1 (4 + 14 = 18) v side 0 (16 + 46 = 62): round5(62 - 18) / 5 = 9
        ("pyatyorka", (0, 9), (0, 19), (False, [1, 3])),
        # pagat: 5-5 is drawn too (side 0: 72): round5(72) = 70; next leader by lot
        ("pagat", (0, 70), (0, 80), (False, [0, 1, 2, 3])),
    ]:
        game = scripted_game(preset, hands, boneyard, leader=0, hand_size=6, partnerships=True)
        assert play(game, *SIX_LINE) == [0, 0, 0, 0, 0, 0, 0, 10, 0, 0]
        drawn = []
        while not game.is_hand_over:
            assert game.current_player == 2 and legal(game) == ["draw"]
            drawn.append(str(game.apply("draw").drawn))
        assert drawn == (["3-4", "3-5", "4-4"] if preset == "pyatyorka" else boneyard)
        result = game.hand_results[-1]
        assert result.end == HandEnd.BLOCKED
        assert result.award == award
        assert result.winner == 1
        assert game.scores == scores
        assert game.boneyard_size == (1 if preset == "pyatyorka" else 0)
        assert accepted_leaders(game, any_hands(game.rules)) == leaders


# --- Three players, SIX_LINE, 9 tiles each: the boneyard holds only 2-2. Seats 0 and 2 tie on 23
# pips (5 and 6 tiles); seat 1 keeps 40 (+ 4 if he draws 2-2, with 7 tiles). Seat 1 scored 10.
THREE_TIE_REST = [
    ["5-5", "4-4", "0-3", "0-2", "0-0"],
    ["1-5", "2-4", "2-5", "3-3", "3-4", "3-5"],
    ["1-1", "1-2", "1-3", "0-4", "0-5", "1-4"],
]
THREE_TIED = [
    # Exactly two tied for lowest: each gets half of round5(44) = 22.5.
    ("pagat", True, (22.5, 0, 22.5), (22.5, 10, 22.5), None),
    # Each loses round5(own pips): 25, 45, 25.
    ("spruce", True, (-25, -45, -25), (-25, -35, -25), None),
    # Equal pips, fewer tiles wins: seat 0 (5 tiles) scores round5(44) + round5(23) = 70.
    ("dominoes_cc", True, (70, 0, 0), (70, 10, 0), 0),
    # The stop tile 2-2 is not drawn: blocked at once; a tie for lowest scores nothing.
    ("pyatyorka", False, (0, 0, 0), (0, 10, 0), None),
    # 23 = 23 score nothing against each other; each scores round5(44 - 23) / 5 = 4 v seat 1.
    ("five_up", True, (4, 0, 4), (4, 2, 4), None),
]


@pytest.mark.parametrize(("preset", "draws", "award", "scores", "winner"), THREE_TIED)
def test_three_player_tied_block_by_preset(
    preset: str,
    draws: bool,
    award: tuple[float, ...],
    scores: tuple[float, ...],
    winner: int | None,
) -> None:
    hands = line_hands(SIX_LINE, THREE_TIE_REST)
    game = scripted_game(preset, hands, ["2-2"], leader=leader_for(preset), hand_size=9)
    assert game.boneyard_size == 1
    unit = 5 if preset == "five_up" else 1
    assert play(game, *SIX_LINE) == [0, 0, 0, 0, 0, 0, 0, 10 // unit, 0, 0]
    if draws:  # the last tile of the boneyard may be drawn; the hand is blocked after it
        assert not game.is_hand_over
        assert game.current_player == 1 and legal(game) == ["draw"]
        result = game.apply("draw")
        assert str(result.drawn) == "2-2"
        assert game.boneyard_size == 0
    else:  # pyatyorka: the only tile left is the stop tile, so the last placement blocked
        assert game.is_hand_over
        assert [str(t) for t in game.boneyard] == ["2-2"]
    hand = game.hand_results[-1]
    assert hand.end == HandEnd.BLOCKED
    assert hand.pips == ((23, 44, 23) if draws else (23, 40, 23))
    assert hand.award == award
    assert game.scores == scores
    if preset != "spruce":
        assert hand.winner == winner


def test_pyatyorka_tied_block_leader_by_lot() -> None:
    hands = line_hands(SIX_LINE, THREE_TIE_REST)
    game = scripted_game("pyatyorka", hands, ["2-2"], leader=0, hand_size=9)
    play(game, *SIX_LINE)
    assert game.hand_results[-1].winner is None
    assert accepted_leaders(game, any_hands(game.rules)) == (False, [0, 1, 2])


# --- Two players, SIX_LINE with passes, 14 tiles each: seat 0 holds every 6, seat 1 passes three
# times. Both keep 45 pips: seat 0 in 7 tiles, seat 1 in 11. Seat 0 scored 10 (6-4 E).
TWO_TIE_HANDS = [
    # every 6, then 45 pips in 7 tiles
    [*(f"{v}-6" for v in range(7)), "5-5", "4-4", "3-5", "3-4", "2-5", "1-4", "0-0"],
    # the three tiles seat 1 places, then 45 pips in 11 tiles
    [
        "0-1",
        "2-3",
        "4-5",
        *(f"0-{v}" for v in range(2, 6)),
        "1-1",
        "1-2",
        "1-3",
        "1-5",
        "2-2",
        "2-4",
        "3-3",
    ],
]
TWO_TIE_ACTIONS = (
    "6-6", "pass", "6-0 W", "0-1 W", "1-6 W", "pass", "6-2 E", "2-3 E", "3-6 E", "pass", "6-4 E",
    "4-5 E", "5-6 E",
)  # fmt: skip
# counts 12, -, 12, 13, 18, -, 8, 9, 12, -, 10, 11, 12
TWO_TIED = [
    ("pagat", (0, 0), (10, 0), None),  # two sides tied: nobody scores
    ("spruce", (-45, -45), (-35, -45), None),
    ("dominoes_cc", (45, 0), (55, 0), 0),  # fewer tiles wins: round5(45)
    ("pyatyorka", (0, 0), (10, 0), None),
    ("five_up", (0, 0), (2, 0), None),
]


@pytest.mark.parametrize(("preset", "award", "scores", "winner"), TWO_TIED)
def test_two_player_tied_block_by_preset(
    preset: str, award: tuple[int, ...], scores: tuple[int, ...], winner: int | None
) -> None:
    game = scripted_game(preset, TWO_TIE_HANDS, leader=leader_for(preset), hand_size=14)
    assert game.leader == 0
    unit = 5 if preset == "five_up" else 1
    points = []
    for action in TWO_TIE_ACTIONS:
        if action == "pass":
            assert game.current_player == 1 and legal(game) == ["pass"]
        points.append(game.apply(action).points)
    assert points == [0] * 10 + [10 // unit, 0, 0]
    hand = game.hand_results[-1]
    assert hand.end == HandEnd.BLOCKED
    assert hand.pips == (45, 45)
    assert game.hand_sizes == (7, 11)
    assert hand.award == award
    assert game.scores == scores
    if preset != "spruce":
        assert hand.winner == winner


# --- Three players, ZERO_LINE, 9 tiles each, boneyard 6-6: seat 0 keeps 20 pips, seat 1 40 (52
# after drawing 6-6), seat 2 54. Line points: seat 2 scored 5 (0-3 E), seat 1 5 + 5.
ZERO_REST = [
    ["1-1", "1-3", "2-2", "1-4", "2-3"],
    ["1-5", "1-6", "2-4", "2-5", "2-6", "3-3"],
    ["3-5", "3-6", "4-4", "4-5", "4-6", "5-5"],
]
ZERO_BLOCKED = [
    ("pagat", True, (105, 0, 0), (105, 10, 5)),  # round5(52 + 54)
    ("spruce", True, (-20, -50, -55), (-20, -40, -50)),
    # Stop tile: blocked at once, seat 1 keeps 40: round5(40 + 54 - 20) / 5 = 15.
    ("pyatyorka", False, (15, 0, 0), (15, 10, 5)),
    # 20 v 52: round5(32)/5 = 6; 20 v 54: round5(34)/5 = 7; 52 v 54: round5(2)/5 = 0.
    ("five_up", True, (13, 0, 0), (13, 2, 1)),
]


@pytest.mark.parametrize(("preset", "draws", "award", "scores"), ZERO_BLOCKED)
def test_zero_line_block_by_preset(
    preset: str, draws: bool, award: tuple[int, ...], scores: tuple[int, ...]
) -> None:
    hands = line_hands(ZERO_LINE, ZERO_REST)
    game = scripted_game(preset, hands, ["6-6"], leader=0, hand_size=9)
    unit = 5 if preset == "five_up" else 1
    points = play(game, *ZERO_LINE)
    assert points == [0, 0, 5 // unit, 0, 5 // unit, 0, 0, 5 // unit, 0, 0]
    if draws:
        assert game.current_player == 1 and legal(game) == ["draw"]
        assert str(game.apply("draw").drawn) == "6-6"
    assert game.is_hand_over
    hand = game.hand_results[-1]
    assert hand.end == HandEnd.BLOCKED
    assert hand.award == award
    if preset != "spruce":
        assert hand.winner == 0
    assert game.scores == scores
    assert game.boneyard_size == (0 if draws else 1)
    if preset == "pyatyorka":  # a won block by one player: the winner leads next
        assert accepted_leaders(game, any_hands(game.rules)) == (True, [0])


# ----------------------------------------------------------------------------------- boneyard


@pytest.mark.parametrize("preset", ["pagat", "pyatyorka"])
def test_stop_tile_draw_or_pass(preset: str) -> None:
    """2 players, 13 tiles each, boneyard 0-0 then 4-4. Seat 0 holds every 5 and 6; seat 1 none.

    pyatyorka: after drawing 0-0 only the stop tile is left, so seat 1 must pass. pagat: he draws
    4-4 too, and passes only once the boneyard is empty.
    """
    fives_sixes = [str(Tile(t)) for t in range(28) if {5, 6} & {Tile(t).low, Tile(t).high}]
    low = [
        str(Tile(t)) for t in range(28) if Tile(t).high <= 4 and str(Tile(t)) not in ("0-0", "4-4")
    ]
    assert len(fives_sixes) == len(low) == 13
    game = scripted_game(preset, [fives_sixes, low], ["0-0", "4-4"], leader=0, hand_size=13)
    assert play(game, "5-6") == [0]  # counts 11
    assert legal(game) == ["draw"]
    assert str(game.apply("draw").drawn) == "0-0"
    if preset == "pyatyorka":
        assert game.boneyard_size == 1 and not game.can_draw
        assert legal(game) == ["pass"]
        with pytest.raises(IllegalActionError):
            game.apply("draw")
    else:
        assert legal(game) == ["draw"]
        assert str(game.apply("draw").drawn) == "4-4"
        assert game.boneyard_size == 0
        assert legal(game) == ["pass"]
    game.apply("pass")
    assert game.current_player == 0 and not game.is_hand_over
    play(game, "6-6 E")  # counts 5 + 12 = 17; seat 1 still has nothing to place or draw
    assert legal(game) == ["pass"]


# ----------------------------------------------------------------------------------- drawing

NO_DRAW_HANDS = [
    ["5-5", "0-5", "0-0", "0-1", "0-2", "0-3", "0-4", "0-6", "1-1"],
    ["1-3", "1-4", "1-6", "2-2", "2-3", "2-4", "2-6", "3-3", "3-4"],
]


@pytest.mark.parametrize("preset", ["pagat", "spruce", "dominoes_cc", "pyatyorka"])
def test_no_draw_while_able(preset: str) -> None:
    """Seat 1 holds no 5: he draws 1-2 (no fit), then 3-5, which he must place at once."""
    rules = Rules.preset(preset, 2)
    hands = [h[: rules.hand_size] for h in NO_DRAW_HANDS]
    game = Game(rules, deal=scripted_deal(rules, hands, ["1-2", "3-5"], leader_for(preset)))
    assert play(game, "5-5") == [10]
    assert legal(game) == ["draw"]
    with pytest.raises(IllegalActionError):
        game.apply("pass")
    assert str(game.apply("draw").drawn) == "1-2"
    assert game.phase == Phase.PLAY and legal(game) == ["draw"]
    assert str(game.apply("draw").drawn) == "3-5"
    assert game.phase == Phase.DRAWN
    slots = ["E", "N", "S", "W"] if preset == "pyatyorka" else ["E", "W"]
    assert legal(game) == [f"3-5 {s}" for s in slots]
    with pytest.raises(IllegalActionError):
        game.apply("draw")
    assert play(game, "3-5 E") == [0]  # 10 + 3 = 13
    # Seat 0 can place (0-5 W), so he may not draw.
    assert "draw" not in legal(game)
    assert "0-5 W" in legal(game)
    with pytest.raises(IllegalActionError):
        game.apply("draw")


def test_five_up_may_draw_while_able() -> None:
    """five_up: DRAW is offered with the placements; after a draw (fitting or not) the player may
    place any legal tile or draw again."""
    hands = [["5-5", "0-1", "0-2", "0-3", "0-4"], ["0-5", "1-3", "1-4", "1-6", "2-2"]]
    game = scripted_game("five_up", hands, ["1-2", "3-5", "2-3"], leader=0)
    assert play(game, "5-5") == [2]  # 10 → 2
    assert legal(game) == ["0-5 E", "0-5 W", "draw"]
    assert str(game.apply("draw").drawn) == "1-2"  # does not fit
    assert game.phase == Phase.PLAY
    assert legal(game) == ["0-5 E", "0-5 W", "draw"]
    assert str(game.apply("draw").drawn) == "3-5"  # fits, but need not be placed
    assert game.phase == Phase.PLAY
    assert legal(game) == ["0-5 E", "0-5 W", "3-5 E", "3-5 W", "draw"]
    assert play(game, "0-5 E") == [2]  # 10 + 0 = 10 → 2
    assert game.scores == (2, 2)
    assert legal(game) == ["0-1 E", "0-2 E", "0-3 E", "0-4 E", "draw"]


def test_five_up_draw_or_pass() -> None:
    """five_up with nothing to place: only DRAW while the boneyard holds tiles, then PASS.

    Seat 0 holds every 0 and leads 0-0; seat 1 and the boneyard hold no 0 at all.
    """
    zeros = [f"0-{v}" for v in range(7)]
    others = [str(Tile(t)) for t in range(28) if Tile(t).low > 0]
    game = scripted_game("five_up", [zeros, others[:7]], leader=0, hand_size=7)
    assert play(game, "0-0") == [0]
    for t in others[7:]:
        assert legal(game) == ["draw"]
        assert str(game.apply("draw").drawn) == t
    assert game.boneyard_size == 0 and not game.is_hand_over
    assert legal(game) == ["pass"]
    game.apply("pass")
    assert game.current_player == 0
    assert "draw" not in legal(game)


# ----------------------------------------------------------------------------------- spinners,
# branches, unit


def test_pagat_worked_examples() -> None:
    """RULES.md §3 examples 1–3 (pagat): the first double is the spinner; its branches open only
    once both straight sides are covered; later doubles are ordinary."""
    hands = [
        ["6-4", "6-3", "1-5", "1-0", "2-6", "0-0", "3-3", "4-4", "5-5"],
        ["4-1", "1-1", "1-2", "2-2", "0-2", "2-3", "2-4", "2-5", "0-6"],
    ]
    game = scripted_game("pagat", hands)
    assert play(game, "6-4", "4-1 E", "6-3 W", "1-1 E") == [10, 0, 0, 5]
    assert placements_of(game, "1-5") == ["1-5 E"]  # N and S closed
    assert placements_of(game, "0-1") == ["0-1 E"]
    assert play(game, "1-5 E") == [0]  # 3 + 5 = 8
    assert placements_of(game, "1-2") == ["1-2 N", "1-2 S"]
    assert play(game, "1-2 N", "1-0 S", "2-2 N") == [10, 10, 0]
    assert placements_of(game, "2-6") == ["2-6 N"]  # the 2-2 is an ordinary double
    assert play(game, "2-6 N") == [0]
    assert game.count == 14


def test_pyatyorka_worked_example_with_open_branches() -> None:
    """The same deal under pyatyorka: the 1-1 spinner opens N and S at once; the counts agree."""
    hands = [
        ["6-4", "6-3", "1-5", "1-0", "2-6", "0-0", "3-3"],
        ["4-1", "1-1", "1-2", "2-2", "0-2", "2-3", "2-4"],
    ]
    game = scripted_game("pyatyorka", hands)
    assert play(game, "6-4", "4-1 E", "6-3 W", "1-1 E") == [10, 0, 0, 5]
    assert placements_of(game, "1-5") == ["1-5 E", "1-5 N", "1-5 S"]
    assert play(game, "1-5 E") == [0]  # the spinner's second side: 3 + 5 = 8
    assert play(game, "1-2 N", "1-0 S", "2-2 N", "2-6 N") == [10, 10, 0, 0]


# Example 4 of RULES.md §3, then a second double: 3-3 on W, covered by 3-1.
EXAMPLE4 = ("5-5", "5-0 E", "5-3 W", "0-2 E", "5-6 N", "5-4 S", "3-3 W", "3-1 W")
# counts 10, 10, 3, 5, 11, 15, 18 (6 + 2 + 6 + 4), 13 (1 + 2 + 6 + 4)
EXAMPLE4_HANDS = [["5-5", "5-3", "5-6", "3-3", "2-3"], ["5-0", "0-2", "5-4", "3-1"]]


@pytest.mark.parametrize("preset", PRESETS)
def test_spinners_and_branches_by_preset(preset: str) -> None:
    rules = Rules.preset(preset, 2)
    hands = fill(rules.hand_size, EXAMPLE4_HANDS, avoid=["6-6"])  # 5-5 is the highest double
    game = Game(rules, deal=scripted_deal(rules, hands, leader=leader_for(preset)))
    unit = 5 if preset == "five_up" else 1
    assert play(game, *EXAMPLE4[:2]) == [10 // unit, 10 // unit]
    # A led spinner with one straight side covered: its branches open only in pyatyorka.
    at_once = preset == "pyatyorka"
    assert placements_of(game, "5-3") == (["3-5 N", "3-5 S", "3-5 W"] if at_once else ["3-5 W"])
    assert play(game, *EXAMPLE4[2:6]) == [0, 5 // unit, 0, 15 // unit]
    assert play(game, EXAMPLE4[6]) == [0]
    assert game.count == 18
    assert placements_of(game, "1-3") == ["1-3 W"]  # 3-3 has one straight side covered
    assert play(game, EXAMPLE4[7]) == [0]
    assert game.count == 13
    if preset == "five_up":
        # 3-3 is the second spinner: its branches are slots @4 and @5, open now.
        assert placements_of(game, "2-3") == ["2-3 @4", "2-3 @5", "2-3 E"]
        assert play(game, "2-3 @4") == [3]  # 1 + 2 + 6 + 4 + 2 = 15
    else:
        # 3-3 is an ordinary double, now closed; no slot beyond N and S exists.
        assert placements_of(game, "2-3") == ["2-3 E"]
        with pytest.raises(IllegalActionError):
            game.apply("2-3 @4")
        assert play(game, "2-3 E") == [0]  # 1 + 3 + 6 + 4 = 14


def test_five_up_every_double_is_a_spinner() -> None:
    """five_up: 6-6 (spinner 0, slots N = @2 and S = @3) and 5-5 (spinner 1, slots @4, @5); each
    opens its branches once both its straight sides are covered."""
    hands = [["3-6", "6-1", "5-5", "5-1", "0-0"], ["6-6", "6-5", "5-0", "5-4", "1-1"]]
    game = scripted_game("five_up", hands)
    assert play(game, "3-6", "6-6 E") == [0, 3]  # 9; 3 + 12 = 15
    assert placements_of(game, "6-1") == ["1-6 E"]  # 6-6's branches still closed
    assert play(game, "6-1 E") == [0]  # 3 + 1 = 4
    assert placements_of(game, "6-5") == ["5-6 N", "5-6 S"]
    assert play(game, "6-5 @2") == [0]  # 3 + 1 + 5 = 9 (N is slot @2)
    assert play(game, "5-5 N") == [0]  # a spinner at the N end: 3 + 1 + 10 = 14
    assert placements_of(game, "5-0") == ["0-5 N"]  # 5-5's far side only
    assert play(game, "5-0 N") == [0]  # 5-5 now counts 0: 3 + 1 + 0 = 4
    assert placements_of(game, "5-1") == ["1-5 @4", "1-5 @5", "1-5 E"]
    assert play(game, "5-1 @4") == [1]  # 3 + 1 + 0 + 1 = 5
    assert placements_of(game, "5-4") == ["4-5 @5"]
    assert play(game, "5-4 @5") == [0]  # 3 + 1 + 0 + 1 + 4 = 9
    assert game.scores == (1, 3)


def test_pyatyorka_led_spinner_branches_open_at_once() -> None:
    """pyatyorka: a led spinner is open on all four sides and counts 2·v until any two sides are
    covered (here N and E), then 0."""
    hands = [
        ["5-5", "5-3", "5-6", "0-0", "0-1", "1-1", "1-2"],
        ["5-0", "0-2", "5-4", "2-2", "2-3", "2-4", "3-3"],
    ]
    game = scripted_game("pyatyorka", hands)
    assert play(game, "5-5") == [10]
    assert placements_of(game, "5-0") == ["0-5 E", "0-5 N", "0-5 S", "0-5 W"]
    assert play(game, "5-0 N") == [10]  # one side covered: 10 + 0
    assert play(game, "5-3 E") == [0]  # two sides covered: the spinner counts 0; 3 + 0
    assert game.count == 3
    assert play(game, "0-2 N") == [5]  # 3 + 2
    assert placements_of(game, "5-6") == ["5-6 S", "5-6 W"]
    assert play(game, "5-6 W", "5-4 S") == [0, 15]  # 6 + 3 + 2 = 11; 6 + 3 + 2 + 4
    # The same N placement is refused under pagat.
    extra = (["6-6", "4-4"], ["4-6", "3-4"])
    game = scripted_game("pagat", [[*h, *x] for h, x in zip(hands, extra, strict=True)])
    play(game, "5-5")
    assert placements_of(game, "5-0") == ["0-5 E", "0-5 W"]
    with pytest.raises(IllegalActionError):
        game.apply("5-0 N")


def test_pyatyorka_placed_spinner_branches_open_at_once() -> None:
    """pyatyorka: a spinner placed at the E end is covered on one side already; covering N as
    well closes it."""
    hands = [
        ["6-4", "4-1", "4-0", "0-0", "0-1", "1-1", "1-2"],
        ["4-4", "4-3", "2-2", "2-3", "0-2", "0-3", "3-3"],
    ]
    game = scripted_game("pyatyorka", hands)
    assert play(game, "6-4", "4-4 E") == [10, 0]  # 10; 6 + 8 = 14
    assert placements_of(game, "4-1") == ["1-4 E", "1-4 N", "1-4 S"]
    assert play(game, "4-1 N") == [0]  # attached side + N covered: 6 + 1 = 7
    assert game.count == 7
    assert play(game, "4-3 S", "4-0 E") == [10, 10]  # 6 + 1 + 3; 6 + 1 + 3 + 0


# ----------------------------------------------------------------------------------- awards

DOMINO_AWARDS = [
    # One tile each: seat 0 leads 5-5 (count 10) and dominoes. Seats 1 and 3 (or 1 and 2) hold
    # 6-1 and 5-2 (7 pips each); seat 2 of 4 holds 6-6 (12; dominoes_cc: 4-6, 10).
    ("pagat", 2, True, (5, 0), (15, 0)),  # round5(7)
    ("pagat", 3, True, (15, 0, 0), (25, 0, 0)),  # RULES.md §3 example 7: round5(14)
    ("pagat", 4, True, (15, 0), (25, 0)),
    ("pagat", 4, False, (25, 0, 0, 0), (35, 0, 0, 0)),  # round5(7 + 12 + 7)
    ("spruce", 2, True, (0, -5), (10, -5)),
    ("spruce", 3, True, (0, -5, -5), (10, -5, -5)),
    ("spruce", 4, True, (-10, -10), (0, -10)),  # -round5(12); -(5 + 5)
    ("spruce", 4, False, (0, -5, -10, -5), (10, -5, -10, -5)),
    ("dominoes_cc", 2, True, (5, 0), (15, 0)),
    ("dominoes_cc", 3, True, (10, 0, 0), (20, 0, 0)),  # 5 + 5, not round5(14)
    ("dominoes_cc", 4, True, (10, 0), (20, 0)),
    ("dominoes_cc", 4, False, (20, 0, 0, 0), (30, 0, 0, 0)),  # 5 + 10 + 5
    ("pyatyorka", 2, True, (1, 0), (11, 0)),  # round5(7) / 5
    ("pyatyorka", 3, True, (3, 0, 0), (13, 0, 0)),  # round5(14) / 5
    ("pyatyorka", 4, True, (3, 0), (13, 0)),  # the partner's 12 is not subtracted
    ("pyatyorka", 4, False, (5, 0, 0, 0), (15, 0, 0, 0)),  # round5(26) / 5
    ("five_up", 2, True, (1, 0), (3, 0)),
    ("five_up", 3, True, (3, 0, 0), (5, 0, 0)),
    ("five_up", 4, True, (0, 0), (2, 0)),  # round5(14 - 12) / 5 = 0
    ("five_up", 4, False, (5, 0, 0, 0), (7, 0, 0, 0)),  # no partner: round5(26) / 5
]


@pytest.mark.parametrize(("preset", "n", "partnerships", "award", "scores"), DOMINO_AWARDS)
def test_domino_award_by_preset(
    preset: str,
    n: int,
    partnerships: bool,
    award: tuple[int, ...],
    scores: tuple[int, ...],
) -> None:
    others = {2: [["6-1"]], 3: [["6-1"], ["5-2"]], 4: [["6-1"], ["6-6"], ["5-2"]]}[n]
    if preset == "dominoes_cc" and n == 4:  # 6-6 would lead: seat 2 holds 4-6 (10) instead
        others = [["6-1"], ["4-6"], ["5-2"]]
    hands = [["5-5"], *others]
    game = scripted_game(
        preset, hands, leader=leader_for(preset), hand_size=1, partnerships=partnerships
    )
    result = game.apply("5-5")
    assert result.points == (2 if preset == "five_up" else 10)
    assert result.hand is not None
    assert result.hand.end == HandEnd.DOMINO
    assert result.hand.domino_seat == 0
    assert result.hand.award == award
    assert game.scores == scores


def test_spruce_scores_go_negative() -> None:
    """spruce: the hand's losses are taken even below zero, hand after hand."""
    game = scripted_game("spruce", [["0-1"], ["6-6"]], leader=0, hand_size=1)
    game.apply("0-1")  # counts 1; seat 1 loses round5(12) = 10
    assert game.scores == (0, -10)
    game.deal(deal=scripted_deal(game.rules, [["0-2"], ["5-6"]], leader=None))
    game.apply("0-2")  # seat 1 loses round5(11) = 10
    assert game.scores == (0, -20)
    assert game.hand_results[-1].award == (0, -10)


# ----------------------------------------------------------------------------------- target

TARGETS = [
    # One tile each; seat 0 leads 5-5 (10 pips, 2 fives) and dominoes every hand. The others
    # hold 0-0, 0-1, 0-2. Columns: hands played, final scores, how the last hand ended.
    ("pagat", 2, True, 25, (250, 0), "target"),
    ("pagat", 3, True, 20, (200, 0, 0), "target"),
    ("pagat", 4, True, 20, (200, 0), "target"),  # award round5(0 + 2) = 0
    ("pagat", 4, False, 14, (205, 0, 0, 0), "target"),  # 15 a hand: round5(0 + 1 + 2) = 5
    ("spruce", 2, True, 25, (250, 0), "target"),
    ("spruce", 3, True, 20, (200, 0, 0), "target"),
    ("spruce", 4, True, 20, (200, 0), "target"),
    ("spruce", 4, False, 20, (200, 0, 0, 0), "target"),  # losses round5(1), round5(2): none
    ("dominoes_cc", 2, True, 15, (150, 0), "target"),
    ("dominoes_cc", 3, True, 15, (150, 0, 0), "target"),
    ("dominoes_cc", 4, True, 15, (150, 0), "target"),
    ("dominoes_cc", 4, False, 15, (150, 0, 0, 0), "target"),  # 0 + 0 + 0 per opponent
    ("pyatyorka", 2, True, 25, (250, 0), "target"),
    ("pyatyorka", 3, True, 25, (250, 0, 0), "target"),
    ("pyatyorka", 4, True, 25, (250, 0), "target"),
    ("pyatyorka", 4, False, 23, (252, 0, 0, 0), "target"),  # 11 a hand: round5(3) / 5 = 1
    # five_up, 3 fives a hand: 60 after 20 hands; then 5-5 would make 62 and is not scored, and
    # the award (round5(3) / 5 = 1) makes exactly 61.
    ("five_up", 4, False, 21, (61, 0, 0, 0), "domino"),
]


@pytest.mark.parametrize(("preset", "n", "partnerships", "hands", "scores", "end"), TARGETS)
def test_target_by_preset(
    preset: str, n: int, partnerships: bool, hands: int, scores: tuple[int, ...], end: str
) -> None:
    rules = Rules.preset(preset, n, partnerships=partnerships, hand_size=1)
    deal_hands = [["5-5"], ["0-0"], ["0-1"], ["0-2"]][:n]
    game = Game(rules, deal=scripted_deal(rules, deal_hands, leader=leader_for(preset)))
    played = 0
    while True:
        played += 1
        assert played <= 40
        result = game.apply("5-5")
        if game.is_match_over:
            break
        game.deal(deal=scripted_deal(rules, deal_hands, leader=None))
    assert played == hands
    assert game.scores == scores
    assert game.winners == (0,)
    assert result.winners == (0,)
    assert result.hand is not None and result.hand.end == end
    if end == "target":
        assert result.hand.award == (0,) * rules.num_sides
    with pytest.raises(DealError):
        game.deal(deal=scripted_deal(rules, deal_hands, leader=None))


def test_five_up_target_is_61() -> None:
    for n in (2, 3, 4):
        rules = Rules.preset("five_up", n)
        assert (rules.target, rules.exact_target, rules.unit) == (61, True, 5)


# Spec example 8: 6-6 led; 6-4 E; 4-4 E (a spinner: 12 + 8 = 20 → 4 fives); 4-3 E (12 + 3 = 15);
# 4-0 @4 on 4-4's branch (12 + 3 + 0 = 15 → 3 fives).
EXACT_HANDS = [["6-6", "4-4", "4-0"], ["6-4", "4-3", "1-2"]]


def test_five_up_exact_61_by_placement() -> None:
    rules = Rules.preset("five_up", 2, hand_size=3)
    game = Game(rules, deal=scripted_deal(rules, EXACT_HANDS, leader=0), scores=[58, 0])
    assert play(game, "6-6", "6-4 E") == [0, 0]
    result = game.apply("4-4 E")  # 58 + 4 = 62 > 61: not scored, play goes on
    assert result.points == 0 and result.hand is None
    assert game.scores == (58, 0)
    assert game.current_player == 1 and game.phase == Phase.PLAY
    assert play(game, "4-3 E") == [3]
    assert legal(game) == ["0-4 @4", "0-4 @5", "draw"]
    result = game.apply("4-0 @4")  # 58 + 3 = 61: wins at once, though it is his last tile
    assert result.points == 3
    assert game.scores == (61, 3)
    assert result.winners == (0,) and game.is_match_over
    assert result.hand is not None
    assert result.hand.end == HandEnd.TARGET
    assert result.hand.award == (0, 0)
    # Under pagat's rule (at or above the target) the refused 4 would have won the match.


# Hand H: 6-4 (10 → 2); 6-6 W (12 + 4 = 16); 4-4 E (12 + 8 = 20 → 4); 6-5 W (5 + 8 = 13);
# 6-2 N (5 + 8 + 2 = 15 → 3): 9 fives to seat 0, who dominoes; seat 1 keeps 5-5 (award 2).
H_HANDS = [["6-4", "4-4", "2-6"], ["6-6", "5-6", "5-5"]]
H_ACTIONS = ("6-4", "6-6 W", "4-4 E", "5-6 W", "2-6 N")


@pytest.mark.parametrize(
    ("start", "award", "final", "over"),
    [
        (50, (2, 0), (61, 0), True),  # 59 + 2 = 61: the award wins the match
        (51, (0, 0), (60, 0), False),  # 60 + 2 = 62: the whole award is not scored
        (40, (2, 0), (51, 0), False),
    ],
)
def test_five_up_exact_61_by_award(
    start: int, award: tuple[int, int], final: tuple[int, int], over: bool
) -> None:
    rules = Rules.preset("five_up", 2, hand_size=3)
    game = Game(rules, deal=scripted_deal(rules, H_HANDS, leader=0), scores=[start, 0])
    points = play(game, *H_ACTIONS)
    assert points == [2, 0, 4, 0, 3]
    hand = game.hand_results[-1]
    assert hand.end == HandEnd.DOMINO
    assert hand.award == award
    assert game.scores == final
    assert game.is_match_over == over
    assert game.winners == ((0,) if over else None)


TWO_AT_ONCE = [
    # pagat: seats 0 and 2 tie and each get 22.5; both pass 200; the higher total wins.
    ("pagat", [190, 0, 185], (22.5, 0, 22.5), (212.5, 10, 207.5), (0,)),
    ("pagat", [180, 0, 170], (22.5, 0, 22.5), (202.5, 10, 192.5), (0,)),
    ("pagat", [180, 0, 180], (22.5, 0, 22.5), (202.5, 10, 202.5), (0, 2)),  # equal: shared
    # five_up: 4 fives each against seat 1; exactly 61 for both shares the win ...
    ("five_up", [57, 0, 57], (4, 0, 4), (61, 2, 61), (0, 2)),
    # ... and a side that would pass 61 has its whole award refused.
    ("five_up", [57, 0, 58], (4, 0, 0), (61, 2, 58), (0,)),
    ("five_up", [50, 0, 57], (4, 0, 4), (54, 2, 61), (2,)),
]


@pytest.mark.parametrize(("preset", "start", "award", "scores", "winners"), TWO_AT_ONCE)
def test_target_two_sides_at_once(
    preset: str,
    start: list[float],
    award: tuple[float, ...],
    scores: tuple[float, ...],
    winners: tuple[int, ...],
) -> None:
    """The three-player tied block above, from given scores: one hand award, two sides."""
    rules = Rules.preset(preset, 3, hand_size=9)
    hands = line_hands(SIX_LINE, THREE_TIE_REST)
    game = Game(rules, deal=scripted_deal(rules, hands, ["2-2"], leader=0), scores=start)
    play(game, *SIX_LINE, "draw")
    hand = game.hand_results[-1]
    assert hand.end == HandEnd.BLOCKED
    assert hand.award == award
    assert game.scores == scores
    assert game.is_match_over
    assert game.winners == winners


# Lead 5-5, then every 5 with every end showing 5: counts 10, 10, 2, 3, 4, 8, 10, 9, 11, 10. The
# last placement (seat 1, 6-5 E) both scores 10 and blocks the hand.
FIVE_LINE = ("5-5", "5-0 W", "5-2 E", "0-1 W", "2-3 E", "1-5 W", "3-5 E", "5-4 E", "4-6 E", "6-5 E")


@pytest.mark.parametrize(("preset", "start"), [("pagat", 235), ("pyatyorka", 235), ("five_up", 57)])
def test_target_reached_by_the_blocking_placement(preset: str, start: int) -> None:
    """2 players, 14 tiles each: seat 1 reaches the target with the placement that blocks the
    hand; the match ends at once, the hand's end is ``target`` and no hand award is made."""
    rules = Rules.preset(preset, 2, hand_size=14)
    hands = fill(14, line_hands(FIVE_LINE, [[], []]))
    game = Game(rules, deal=scripted_deal(rules, hands, leader=0), scores=[0, start])
    unit = 5 if preset == "five_up" else 1
    ten = 10 // unit
    assert play(game, *FIVE_LINE) == [ten, ten, 0, 0, 0, 0, ten, 0, 0, ten]
    # 235 + 10 + 10 = 255 (target 250); five_up: 57 + 2 + 2 = 61.
    assert game.scores == (2 * ten, start + 2 * ten)
    assert game.is_match_over and game.winners == (1,)
    hand = game.hand_results[-1]
    assert hand.end == HandEnd.TARGET
    assert hand.award == (0, 0)
    # The same hand from 0: blocked, and the lower side (seat 0) takes the award.
    game = Game(rules, deal=scripted_deal(rules, hands, leader=0))
    play(game, *FIVE_LINE)
    assert game.hand_results[-1].end == HandEnd.BLOCKED
    assert game.hand_results[-1].winner == 0


# ============================================================================ four players

FOUR_PLAYER_DEFAULT = {
    "pagat": True,
    "spruce": True,
    "dominoes_cc": False,  # seed 002 speaks only of individual players
    "pyatyorka": False,  # seed 003 plays individually and merely allows pair play
    "five_up": True,
}


@pytest.mark.parametrize("preset", PRESETS)
def test_four_player_default_by_preset(preset: str) -> None:
    pairs = FOUR_PLAYER_DEFAULT[preset]
    rules = Rules.preset(preset, 4)
    assert rules.partnerships is pairs
    assert rules.num_sides == (2 if pairs else 4)
    assert [rules.side_of(s) for s in range(4)] == ([0, 1, 0, 1] if pairs else [0, 1, 2, 3])
    # either way can be asked for; with 2-3 players the flag changes nothing
    assert Rules.preset(preset, 4, partnerships=not pairs).num_sides == (4 if pairs else 2)
    for n in (2, 3):
        assert Rules.preset(preset, n, partnerships=False) == Rules.preset(preset, n)
        assert Rules.preset(preset, n).num_sides == n


def test_pyatyorka_seed_example_four_individual_players() -> None:
    """Seed 003's blocked hand: the winner holds 2 pips, his three opponents 7, 10 and 12:
    7 + 10 + 12 - 2 = 27 → 25 → 5 points, to the single winner, under pyatyorka's default
    rules for 4 players (each for himself)."""
    rules = Rules.preset("pyatyorka", 4)
    assert not rules.partnerships and rules.num_sides == 4
    award = hand_award(rules, None, [7, 2, 10, 12], [1, 1, 2, 2])
    assert award.points == [0, 5, 0, 0] and award.winner == 1
    # in partnerships (which the seed allows) the same pips are side 0: 7 + 10 = 17 v side 1:
    # 2 + 12 = 14, and side 1 wins round5(17 - 14) / 5 = 1
    pairs = hand_award(
        Rules.preset("pyatyorka", 4, partnerships=True), None, [7, 2, 10, 12], [1] * 4
    )
    assert pairs.points == [0, 1] and pairs.winner == 1
