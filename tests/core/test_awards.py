"""Table-driven tests of the end-of-hand awards (RULES.md §1 "Hand award", §2 "Hand award" row).

Every expected value below was worked out by hand from the text of RULES.md, not from the code:
``round5(n) = 5 * floor((n + 2) / 5)``; a side's pips are its players' pips added (partnerships:
seats 0+2 and 1+3); the award is in the preset's unit (``pyatyorka``'s and ``five_up``'s awards are
divided by 5).

Columns of the award tables: the case id, the preset (which fixes the award rule), the players,
``partnerships``, the domino seat (``None``: blocked), each seat's remaining pips and tiles, then
the expected points per side and the expected hand winner (a side, or ``None`` for nobody).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from allfives_env import Rules, hand_award, round5

# The hand winner is not asserted where RULES.md leaves it open (``spruce`` has no award winner
# after a block; §1 still calls the lowest side the winner, but nothing observable follows).
ANY = object()


# ----------------------------------------------------------------------------------- round5


@pytest.mark.parametrize(
    ("n", "expected"),
    [
        # RULES.md §3 example 6: 0,1,2 → 0; 3…7 → 5; 8…12 → 10; 13…17 → 15; 21 → 20; 23 → 25;
        # 28 → 30. Remainder 1–2 rounds down, 3–4 up.
        (0, 0),
        (1, 0),
        (2, 0),
        (3, 5),
        (4, 5),
        (5, 5),
        (6, 5),
        (7, 5),
        (8, 10),
        (10, 10),
        (12, 10),
        (13, 15),
        (15, 15),
        (17, 15),
        (18, 20),
        (21, 20),
        (22, 20),
        (23, 25),
        (27, 25),
        (28, 30),
        (66, 65),
        (74, 75),
        (81, 80),
        (165, 165),
        (168, 170),
        # The formula applied below zero (remainders still 1–2 down, 3–4 up).
        (-3, -5),
        (-9, -10),
    ],
)
def test_round5(n: int, expected: int) -> None:
    assert round5(n) == expected


def test_round5_is_a_multiple_of_5_nearest_to_n() -> None:
    for n in range(0, 200):
        r = round5(n)
        assert r % 5 == 0
        assert abs(r - n) <= 2


# ----------------------------------------------------------------------------------- awards

P2, P3, P4, SOLO4 = (2, True), (3, True), (4, True), (4, False)


def _case(
    case_id: str,
    preset: str,
    players: tuple[int, bool],
    domino: int | None,
    pips: list[int],
    expected: list[Any],
    winner: Any,
    tiles: list[int] | None = None,
) -> Any:
    """One table row; ``tiles`` defaults to one tile per seat holding pips (0 for the domino)."""
    if tiles is None:
        tiles = [0 if seat == domino else 1 for seat in range(len(pips))]
    return pytest.param(preset, players, domino, pips, tiles, expected, winner, id=case_id)


ROUND_ONCE = [  # pagat: round5(all opponents' pips added), once; the winner's side's pips ignored
    _case("2p-domino-ex6-1-2", "pagat", P2, 0, [0, 3], [5, 0], 0),
    _case("2p-domino-ex6-1-1", "pagat", P2, 0, [0, 2], [0, 0], 0),
    _case("2p-domino-seat1", "pagat", P2, 1, [23, 0], [0, 25], 1),
    _case("2p-blocked-low-wins", "pagat", P2, None, [10, 12], [10, 0], 0),
    _case("2p-blocked-seat1-low", "pagat", P2, None, [13, 8], [0, 15], 1),
    _case("2p-blocked-tie", "pagat", P2, None, [9, 9], [0, 0], None),
    _case("3p-domino-ex7", "pagat", P3, 0, [0, 7, 7], [15, 0, 0], 0),
    _case("3p-domino-seat2", "pagat", P3, 2, [4, 4, 0], [0, 0, 10], 2),
    _case("3p-blocked-low-wins", "pagat", P3, None, [4, 9, 13], [20, 0, 0], 0),
    _case("3p-blocked-two-tie-2.5", "pagat", P3, None, [4, 4, 5], [2.5, 2.5, 0], None),
    _case("3p-blocked-two-tie-7.5", "pagat", P3, None, [5, 13, 5], [7.5, 0, 7.5], None),
    _case("3p-blocked-two-tie-whole", "pagat", P3, None, [3, 8, 3], [5, 0, 5], None),
    _case("3p-blocked-two-tie-zero", "pagat", P3, None, [1, 1, 2], [0, 0, 0], None),
    _case("3p-blocked-tie-not-lowest", "pagat", P3, None, [4, 9, 9], [20, 0, 0], 0),
    _case("3p-blocked-three-tie", "pagat", P3, None, [6, 6, 6], [0, 0, 0], None),
    _case("4p-domino-partner-ignored", "pagat", P4, 0, [0, 7, 9, 7], [15, 0], 0),
    _case("4p-domino-seat3", "pagat", P4, 3, [4, 6, 5, 0], [0, 10], 1),
    _case("4p-blocked-side-sum", "pagat", P4, None, [3, 5, 4, 6], [10, 0], 0),
    _case("4p-blocked-side-not-player", "pagat", P4, None, [6, 1, 6, 12], [15, 0], 0),
    _case("4p-blocked-sides-tie", "pagat", P4, None, [3, 5, 4, 2], [0, 0], None),
    _case("solo4-domino", "pagat", SOLO4, 2, [3, 7, 0, 8], [0, 0, 20, 0], 2),
    _case("solo4-blocked-low-wins", "pagat", SOLO4, None, [2, 9, 8, 13], [30, 0, 0, 0], 0),
    _case("solo4-two-tie", "pagat", SOLO4, None, [4, 4, 9, 13], [10, 10, 0, 0], None),
    _case("solo4-two-tie-half", "pagat", SOLO4, None, [4, 9, 4, 14], [12.5, 0, 12.5, 0], None),
    _case("solo4-tie-not-lowest", "pagat", SOLO4, None, [2, 6, 6, 9], [20, 0, 0, 0], 0),
    _case("solo4-three-tie", "pagat", SOLO4, None, [4, 4, 4, 13], [0, 0, 0, 0], None),
    _case("solo4-four-tie", "pagat", SOLO4, None, [5, 5, 5, 5], [0, 0, 0, 0], None),
]

LOSE_OWN = [  # spruce: no award; every player loses round5(own pips), rounded per player
    _case("2p-domino", "spruce", P2, 0, [0, 7], [0, -5], 0),
    _case("2p-domino-small", "spruce", P2, 1, [2, 0], [0, 0], 1),
    _case("2p-blocked", "spruce", P2, None, [8, 13], [-10, -15], ANY),
    _case("2p-blocked-tie", "spruce", P2, None, [9, 9], [-10, -10], ANY),
    _case("3p-domino", "spruce", P3, 1, [7, 0, 2], [-5, 0, 0], 1),
    _case("3p-blocked", "spruce", P3, None, [3, 8, 12], [-5, -10, -10], ANY),
    # Per player, not per side: -(5 + 5) and -(0 + 5), where round5(14) would give -15.
    _case("4p-domino-per-player", "spruce", P4, 0, [0, 7, 3, 7], [-5, -10], 0),
    _case("4p-blocked-per-player", "spruce", P4, None, [8, 8, 8, 8], [-20, -20], ANY),
    _case("4p-blocked-winner-loses-too", "spruce", P4, None, [1, 13, 4, 2], [-5, -15], ANY),
    _case("solo4-domino", "spruce", SOLO4, 3, [3, 7, 12, 0], [-5, -5, -10, 0], 3),
    _case("solo4-blocked", "spruce", SOLO4, None, [1, 2, 3, 4], [0, 0, -5, -5], ANY),
]

ROUND_EACH = [  # dominoes_cc: sum of round5(each opponent's pips); ties: fewer tiles, else nobody
    _case("2p-domino", "dominoes_cc", P2, 0, [0, 13], [15, 0], 0),
    _case("2p-blocked", "dominoes_cc", P2, None, [6, 13], [15, 0], 0),
    _case("2p-tie-fewer-tiles", "dominoes_cc", P2, None, [9, 9], [0, 10], 1, tiles=[3, 2]),
    _case("2p-tie-same-tiles", "dominoes_cc", P2, None, [9, 9], [0, 0], None, tiles=[2, 2]),
    _case("3p-domino-7-7", "dominoes_cc", P3, 0, [0, 7, 7], [10, 0, 0], 0),
    _case("3p-domino-8-8", "dominoes_cc", P3, 2, [8, 8, 0], [0, 0, 20], 2),
    _case("3p-blocked", "dominoes_cc", P3, None, [4, 8, 8], [20, 0, 0], 0),
    _case(
        "3p-tie-fewer-tiles", "dominoes_cc", P3, None, [5, 5, 13], [0, 20, 0], 1, tiles=[2, 1, 3]
    ),
    _case(
        "3p-tie-same-tiles", "dominoes_cc", P3, None, [5, 5, 13], [0, 0, 0], None, tiles=[2, 2, 3]
    ),
    _case(
        "3p-three-tie-one-fewest",
        "dominoes_cc",
        P3,
        None,
        [6, 6, 6],
        [10, 0, 0],
        0,
        tiles=[1, 2, 3],
    ),
    _case(
        "3p-three-tie-two-fewest",
        "dominoes_cc",
        P3,
        None,
        [6, 6, 6],
        [0, 0, 0],
        None,
        tiles=[1, 1, 3],
    ),
    _case("3p-tie-not-lowest", "dominoes_cc", P3, None, [4, 9, 9], [20, 0, 0], 0, tiles=[2, 1, 1]),
    _case("4p-domino-per-opponent", "dominoes_cc", P4, 0, [0, 7, 9, 7], [10, 0], 0),
    _case("4p-blocked-per-opponent", "dominoes_cc", P4, None, [3, 4, 5, 8], [15, 0], 0),
    # Sides 8 v 8 pips; tiles 1+2 = 3 v 1+1 = 2: side 1 wins round5(3) + round5(5).
    _case(
        "4p-tie-fewer-tiles", "dominoes_cc", P4, None, [3, 4, 5, 4], [0, 10], 1, tiles=[1, 1, 2, 1]
    ),
    _case(
        "4p-tie-same-tiles", "dominoes_cc", P4, None, [3, 4, 5, 4], [0, 0], None, tiles=[1, 1, 1, 1]
    ),
    _case("solo4-domino", "dominoes_cc", SOLO4, 1, [3, 0, 3, 3], [0, 15, 0, 0], 1),
    _case(
        "solo4-tie-fewer-tiles",
        "dominoes_cc",
        SOLO4,
        None,
        [2, 2, 9, 9],
        [0, 20, 0, 0],
        1,
        tiles=[2, 1, 3, 3],
    ),
    _case(
        "solo4-tie-same-tiles",
        "dominoes_cc",
        SOLO4,
        None,
        [2, 2, 9, 9],
        [0, 0, 0, 0],
        None,
        tiles=[1, 1, 3, 3],
    ),
]

NET_FIVES = [  # pyatyorka: round5(opponents' pips − (blocked only) own pips) / 5; tie: nobody
    _case("seed-example", "pyatyorka", SOLO4, None, [2, 7, 10, 12], [5, 0, 0, 0], 0),
    _case("2p-domino", "pyatyorka", P2, 0, [0, 13], [3, 0], 0),
    _case("2p-blocked-own-subtracted", "pyatyorka", P2, None, [6, 13], [1, 0], 0),
    _case("2p-blocked-wins-nothing", "pyatyorka", P2, None, [8, 9], [0, 0], 0),
    _case("2p-blocked-tie", "pyatyorka", P2, None, [9, 9], [0, 0], None),
    _case("3p-domino", "pyatyorka", P3, 1, [7, 0, 7], [0, 3, 0], 1),
    _case("3p-blocked", "pyatyorka", P3, None, [4, 9, 13], [4, 0, 0], 0),
    _case("3p-blocked-two-tie", "pyatyorka", P3, None, [5, 5, 13], [0, 0, 0], None),
    _case("3p-blocked-three-tie", "pyatyorka", P3, None, [6, 6, 6], [0, 0, 0], None),
    # A domino subtracts nothing, not even the partner's 9 pips.
    _case("4p-domino-partner-kept", "pyatyorka", P4, 0, [0, 7, 9, 7], [3, 0], 0),
    _case("4p-blocked-side-own", "pyatyorka", P4, None, [3, 10, 4, 11], [3, 0], 0),
    _case("4p-blocked-sides-tie", "pyatyorka", P4, None, [3, 5, 4, 2], [0, 0], None),
    _case("solo4-domino", "pyatyorka", SOLO4, 3, [4, 5, 6, 0], [0, 0, 0, 3], 3),
    _case("solo4-blocked-two-tie", "pyatyorka", SOLO4, None, [2, 2, 9, 9], [0, 0, 0, 0], None),
]

PAIRWISE_FIVES = [  # five_up: domino minus partner (≥ 0) / 5; blocked: pairwise differences
    _case("2p-domino", "five_up", P2, 0, [0, 13], [3, 0], 0),
    _case("2p-blocked", "five_up", P2, None, [6, 13], [1, 0], 0),
    _case("2p-blocked-small-diff", "five_up", P2, None, [8, 9], [0, 0], 0),
    _case("2p-blocked-tie", "five_up", P2, None, [9, 9], [0, 0], None),
    _case("3p-domino", "five_up", P3, 0, [0, 7, 7], [3, 0, 0], 0),
    # 4 v 9: round5(5)/5 = 1; 4 v 21: round5(17)/5 = 3; 9 v 21: round5(12)/5 = 2.
    _case("3p-blocked-pairwise", "five_up", P3, None, [4, 9, 21], [4, 2, 0], 0),
    _case("3p-blocked-pairwise-order", "five_up", P3, None, [21, 9, 4], [0, 2, 4], 2),
    # Equal counts score nothing against each other; both score against the higher side.
    _case("3p-blocked-low-tie", "five_up", P3, None, [5, 5, 13], [2, 2, 0], None),
    _case("3p-blocked-high-tie", "five_up", P3, None, [4, 9, 9], [2, 0, 0], 0),
    _case("3p-blocked-all-equal", "five_up", P3, None, [6, 6, 6], [0, 0, 0], None),
    _case("4p-domino-minus-partner", "five_up", P4, 0, [0, 7, 2, 7], [2, 0], 0),
    _case("4p-domino-floored", "five_up", P4, 0, [0, 1, 12, 2], [0, 0], 0),
    _case("4p-domino-seat1", "five_up", P4, 1, [5, 0, 4, 3], [0, 1], 1),
    _case("4p-blocked", "five_up", P4, None, [3, 10, 4, 11], [3, 0], 0),
    _case("4p-blocked-tie", "five_up", P4, None, [3, 4, 5, 4], [0, 0], None),
    _case("solo4-domino", "five_up", SOLO4, 2, [3, 7, 0, 8], [0, 0, 4, 0], 2),
    # s0: 1 + 1 + 3; s1: 1 + 2; s2: 1; s3: 0 (differences 3, 7, 14, 4, 11, 7).
    _case("solo4-blocked-pairwise", "five_up", SOLO4, None, [2, 5, 9, 16], [5, 3, 1, 0], 0),
    _case("solo4-blocked-low-tie", "five_up", SOLO4, None, [3, 3, 10, 10], [2, 2, 0, 0], None),
]

AWARD_RULE_OF_PRESET = {
    "pagat": "round_once",
    "spruce": "lose_own",
    "dominoes_cc": "round_each",
    "pyatyorka": "net_fives",
    "five_up": "pairwise_fives",
}


@pytest.mark.parametrize(("preset", "rule"), AWARD_RULE_OF_PRESET.items())
def test_presets_use_their_award_rule(preset: str, rule: str) -> None:
    for n in (2, 3, 4):
        assert Rules.preset(preset, n).award == rule


def _check(
    preset: str,
    players: tuple[int, bool],
    domino: int | None,
    pips: Sequence[int],
    tiles: Sequence[int],
    expected: list[Any],
    winner: Any,
) -> None:
    n, partnerships = players
    rules = Rules.preset(preset, n, partnerships=partnerships)
    assert len(pips) == n
    award = hand_award(rules, domino, list(pips), list(tiles))
    assert list(award.points) == expected
    assert len(award.points) == rules.num_sides
    if winner is not ANY:
        assert award.winner == winner


ARGS = ("preset", "players", "domino", "pips", "tiles", "expected", "winner")


@pytest.mark.parametrize(ARGS, [*ROUND_ONCE, *LOSE_OWN, *ROUND_EACH, *NET_FIVES, *PAIRWISE_FIVES])
def test_hand_award(
    preset: str,
    players: tuple[int, bool],
    domino: int | None,
    pips: list[int],
    tiles: list[int],
    expected: list[Any],
    winner: Any,
) -> None:
    _check(preset, players, domino, pips, tiles, expected, winner)


def test_half_points_are_kept_exactly() -> None:
    """Pagat, three players, exactly two tied for lowest: 2.5 is a real score, not 2 or 3."""
    award = hand_award(Rules.preset("pagat", 3), None, [4, 4, 5], [1, 1, 1])
    assert award.points[0] == award.points[1] == 2.5
    assert award.points[2] == 0


def test_every_award_rule_and_player_count_is_covered() -> None:
    tables = {
        "round_once": ROUND_ONCE,
        "lose_own": LOSE_OWN,
        "round_each": ROUND_EACH,
        "net_fives": NET_FIVES,
        "pairwise_fives": PAIRWISE_FIVES,
    }
    for rule, table in tables.items():
        seen = {(p.values[1], p.values[2] is None) for p in table}
        for players in (P2, P3, P4, SOLO4):
            assert (players, False) in seen, (rule, players, "domino")
            assert (players, True) in seen, (rule, players, "blocked")
