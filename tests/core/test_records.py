"""Game records (RULES.md §4): round trips through the engine and the notation.

Every record here is a plain Python dict, as ``json.loads`` would give it (the deals are in
:mod:`tests.core.record_examples`).
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from allfives_env import (
    ACTIONS,
    Game,
    HandEnd,
    Phase,
    RecordError,
    Rules,
    Tile,
    load_record,
    parse_record,
    record_of,
    replay,
    save_record,
)
from allfives_env.core.records import FORMAT, replay_text
from tests.core.record_examples import (
    A_ACTIONS,
    A_POINTS,
    CONFIG_IDS,
    CONFIGS,
    Obj,
    assert_replays_live,
    ended,
    find_position,
    hand_entry,
    play_random,
    points_of,
    preset_rules,
    rec_a,
    rec_b,
    rec_c,
    rec_d,
    record,
    record_dict,
    run,
)

# ============================================================================ round trips


def _stop_mid_hand(seed: int) -> Callable[[Game, int], bool]:
    k = random.Random(seed * 7919).randrange(1, 120)
    return lambda g, steps: steps >= k and not g.is_hand_over


def _stop_between_hands(hands: int) -> Callable[[Game, int], bool]:
    return lambda g, steps: g.is_hand_over and not g.is_match_over and g.hand_number >= hands


STOPS: dict[str, Callable[[int], Callable[[Game, int], bool]]] = {
    "whole-match": lambda seed: lambda g, steps: False,
    "mid-hand": _stop_mid_hand,
    "mid-match": lambda seed: _stop_between_hands(1 + seed % 3),
}


@pytest.mark.parametrize("mode", list(STOPS))
@pytest.mark.parametrize(("preset", "n", "partnerships"), CONFIGS, ids=CONFIG_IDS)
def test_round_trip_through_json(preset: str, n: int, partnerships: bool, mode: str) -> None:
    rules = preset_rules(preset, n, partnerships)
    checked = 0
    for seed in (1, 2, 3):
        game, points = play_random(rules, seed, stop=STOPS[mode](seed))
        if mode == "whole-match":
            assert game.is_match_over
        elif mode == "mid-hand":
            assert not game.is_hand_over
        elif not game.is_hand_over or game.is_match_over:  # the match ended before the stop
            continue
        rec = record_of(game, {"players": [f"p{i}" for i in range(n)], "date": "2024-01-01"})
        text = json.dumps(rec.to_json())
        obj = json.loads(text)
        assert obj["format"] == FORMAT
        assert obj["players"] == [f"p{i}" for i in range(n)]
        parsed = parse_record(obj)
        assert parsed.to_json() == obj  # the record is stable under a second round
        result = replay(parsed)
        assert_replays_live(game, points, result)
        # The §4 output object survives JSON too.
        assert json.loads(json.dumps(result.to_json())) == result.to_json()
        assert replay_text(text) == result.to_json()
        checked += 1
    assert checked >= 2


@pytest.mark.parametrize(("preset", "n", "partnerships"), CONFIGS, ids=CONFIG_IDS)
def test_round_trip_through_files(preset: str, n: int, partnerships: bool, tmp_path: Any) -> None:
    rules = preset_rules(preset, n, partnerships)
    for seed, stop in (
        (3, STOPS["whole-match"](3)),
        (4, STOPS["mid-hand"](4)),
        (5, _stop_between_hands(2)),
    ):
        game, points = play_random(rules, seed, stop=stop)
        path = tmp_path / f"{seed}.json"
        save_record(record_of(game), path)
        json.loads(path.read_text(encoding="utf-8"))  # the file is plain JSON
        assert_replays_live(game, points, replay(load_record(path)))
        assert_replays_live(game, points, replay(load_record(str(path))))


def test_round_trips_cover_every_hand_end_and_mirrored_leads() -> None:
    """The random games above are not all alike: each way a hand ends, and both lead forms."""
    ends: set[HandEnd] = set()
    mirrored = plain = 0
    for preset, n, partnerships in CONFIGS:
        game, _ = play_random(preset_rules(preset, n, partnerships), 1)
        ends.update(h.end for h in game.hand_results)
        for h in record_dict(game)["hands"]:
            lead = h["actions"][0]
            a, b = lead.split("-")
            mirrored += a > b
            plain += a < b
    assert ends == {HandEnd.DOMINO, HandEnd.BLOCKED, HandEnd.TARGET}
    assert mirrored and plain


def test_record_of_a_fresh_deal_replays_with_no_actions() -> None:
    game = Game(Rules.preset("pagat", 3), random.Random(9))
    obj = record_dict(game)
    assert obj["hands"][0]["actions"] == []
    assert obj["hands"][0]["leader"] == game.leader
    result = replay(parse_record(obj))
    assert_replays_live(game, [], result)
    assert result.to_json() == {"points": [], "hands": [], "scores": [0, 0, 0], "winner": None}


def test_a_record_may_stop_with_a_drawn_tile_pending() -> None:
    result = replay(parse_record(rec_b(["6-4", "draw", "draw"])))
    assert result.game is not None
    assert result.game.phase == Phase.DRAWN
    assert result.game.drawn_tile == Tile.parse("5-6")
    assert result.to_json() == {
        "points": [10, 0, 0],
        "hands": [],
        "scores": [10, 0],
        "winner": None,
    }


def test_a_record_of_no_hands_is_an_empty_result() -> None:
    assert run(record("pagat", 4)) == {"points": [], "hands": [], "scores": [0, 0], "winner": None}
    assert run(record("five_up", 4, partnerships=False))["scores"] == [0, 0, 0, 0]


def test_record_of_refuses_rules_that_are_not_a_preset() -> None:
    game = Game(Rules.preset("pagat", 2, target=100), random.Random(0))
    with pytest.raises(RecordError) as err:
        record_of(game)
    assert err.value.field == "rules"


# ============================================================================ notation


def test_worked_example_as_a_record() -> None:
    assert points_of(rec_a(A_ACTIONS)) == A_POINTS


def test_mirrored_lead_is_legal_and_scores_the_same() -> None:
    # "4-6" lays the lead with 4 facing W: every later W/E is swapped.
    mirrored = ["4-6", "4-1 W", "6-3 E", "1-1 W", "1-5 W", "1-2 N", "1-0 S", "2-2 N", "2-6 N"]
    assert points_of(rec_a(mirrored)) == A_POINTS
    assert run(rec_a(mirrored)) == run(rec_a(A_ACTIONS))
    # The same swap with the original slots no longer fits.
    with pytest.raises(RecordError) as err:
        run(rec_a(["4-6", "4-1 E"]))
    assert (err.value.hand, err.value.action) == (1, 2)


def test_mirrored_lead_survives_record_of() -> None:
    game = Game(
        Rules.preset("pagat", 2),
        deal=parse_record(rec_a()).hands[0].deal,
    )
    game.apply(ACTIONS[int(Tile.parse("4-6")) * 16 + 1])  # 4-6 led on E: 6 faces W
    game.apply("4-1 E")
    obj = record_dict(game)
    assert obj["hands"][0]["actions"] == ["6-4", "1-4 E"]
    game2 = Game(Rules.preset("pagat", 2), deal=parse_record(rec_a()).hands[0].deal)
    game2.apply(ACTIONS[int(Tile.parse("4-6")) * 16])  # 4-6 led on W: 4 faces W
    assert record_dict(game2)["hands"][0]["actions"] == ["4-6"]


def test_placement_halves_in_either_order() -> None:
    flipped = ["6-4", "1-4 E", "3-6 W", "1-1 E", "5-1 E", "2-1 N", "0-1 S", "2-2 N", "6-2 N"]
    assert points_of(rec_a(flipped)) == A_POINTS


def test_deal_halves_in_either_order() -> None:
    def flip(t: str) -> str:
        return t[::-1]

    obj = rec_a(A_ACTIONS)
    h = obj["hands"][0]
    h["hands"] = [[flip(t) for t in hand] for hand in h["hands"]]
    h["boneyard"] = [flip(t) for t in h["boneyard"]]
    assert points_of(obj) == A_POINTS


@pytest.mark.parametrize(("n_slot", "s_slot"), [("N", "S"), ("@2", "@3"), ("@2", "S"), ("N", "@3")])
def test_branch_slots_by_number(n_slot: str, s_slot: str) -> None:
    actions = [*A_ACTIONS[:5], f"1-2 {n_slot}", f"1-0 {s_slot}", f"2-2 {n_slot}", "2-6 N"]
    assert points_of(rec_a(actions)) == A_POINTS


def test_line_slots_by_number() -> None:
    actions = ["6-4", "4-1 @1", "6-3 @0", *A_ACTIONS[3:]]
    assert points_of(rec_a(actions)) == A_POINTS


def test_five_up_branch_slots_by_number() -> None:
    # Five-Up scores in fives: counts 10, 7, 4, 5, 8, 10, 10 → 2, 0, 0, 1, 0, 2, 2.
    base = ["6-4", "4-1 E", "6-3 W", "1-1 E", "1-5 E"]
    with_letters = run(rec_d([*base, "1-2 N", "1-0 S"]))
    with_numbers = run(rec_d([*base, "1-2 @2", "1-0 @3"]))
    assert with_letters == with_numbers
    assert with_letters["points"] == [2, 0, 0, 1, 0, 2, 2]


def test_extra_top_level_keys_are_ignored() -> None:
    plain = rec_a(A_ACTIONS)
    extra = {
        "players": ["Ann", "Bob"],
        "date": "2024-05-01",
        "comment": {"nested": [1, 2, 3]},
        "version": 7,
        **plain,
    }
    assert run(extra) == run(plain)
    assert parse_record(extra).extra == {
        "players": ["Ann", "Bob"],
        "date": "2024-05-01",
        "comment": {"nested": [1, 2, 3]},
        "version": 7,
    }


def test_extra_keys_in_a_hand_are_ignored() -> None:
    obj = rec_a(A_ACTIONS)
    obj["hands"][0]["note"] = "first hand"
    assert run(obj) == run(rec_a(A_ACTIONS))


@pytest.mark.parametrize("n", [2, 3])
def test_partnerships_false_changes_nothing_below_four_players(n: int) -> None:
    game, _ = play_random(Rules.preset("pagat", n), 11)
    obj = record_dict(game)
    solo = copy.deepcopy(obj)
    solo["rules"]["partnerships"] = False
    assert run(solo) == run(obj)
    explicit = copy.deepcopy(obj)
    explicit["rules"]["partnerships"] = True
    assert run(explicit) == run(obj)


def test_partnerships_flag_with_four_players() -> None:
    game, _ = play_random(Rules.preset("pagat", 4), 11)
    obj = record_dict(game)
    assert obj["rules"]["partnerships"] is True  # four players: always written out
    assert len(run(obj)["scores"]) == 2
    implicit = copy.deepcopy(obj)
    del implicit["rules"]["partnerships"]  # left out: pagat's default, partnerships
    assert run(implicit) == run(obj)
    solo, _ = play_random(Rules.preset("pagat", 4, partnerships=False), 11)
    solo_obj = record_dict(solo)
    assert solo_obj["rules"]["partnerships"] is False
    assert len(run(solo_obj)["scores"]) == 4


@pytest.mark.parametrize(
    ("preset", "pairs"),
    [("dominoes_cc", False), ("pyatyorka", False), ("five_up", True), ("spruce", True)],
)
def test_a_record_without_partnerships_takes_the_presets_default(preset: str, pairs: bool) -> None:
    game, _ = play_random(Rules.preset(preset, 4, partnerships=pairs), 5)
    obj = record_dict(game)
    assert obj["rules"]["partnerships"] is pairs
    implicit = copy.deepcopy(obj)
    del implicit["rules"]["partnerships"]
    assert parse_record(implicit).rules == Rules.preset(preset, 4)
    assert run(implicit) == run(obj)
    assert len(run(implicit)["scores"]) == (2 if pairs else 4)
    # the other reading, asked for explicitly, is the other game
    other = copy.deepcopy(obj)
    other["rules"]["partnerships"] = not pairs
    assert parse_record(other).rules.num_sides == (4 if pairs else 2)


def test_five_up_may_draw_with_a_placement_available() -> None:
    # Seat 1 holds 4-1, which fits, and draws twice anyway; pagat refuses the same draw.
    assert run(rec_d(["6-4", "draw", "draw", "4-1 E"]))["points"] == [2, 0, 0, 0]
    with pytest.raises(RecordError) as err:
        run(rec_a(["6-4", "draw"]))
    assert (err.value.hand, err.value.action) == (1, 2)


def test_forced_draws_and_passes() -> None:
    # pagat, 4 players: the whole boneyard (8) is drawn, then a pass.
    assert run(rec_c(["6-6", *["draw"] * 8, "pass"]))["points"] == [0] * 10
    # pyatyorka: the stop tile stays, so 7 draws, then a pass.
    assert run(rec_c(["6-6", *["draw"] * 7, "pass"], preset="pyatyorka"))["points"] == [0] * 9
    # The drawn tile that fits is placed.
    assert run(rec_b(["6-4", "draw", "draw", "5-6 W"]))["points"] == [10, 0, 0, 0]


def test_dominoes_cc_leader_is_decided_by_the_highest_double() -> None:
    assert run(rec_c(["6-6"], preset="dominoes_cc", leader=None))["points"] == [0]
    # RULES.md lists only a *disagreeing* leader as invalid; one that agrees is accepted.
    assert run(rec_c(["6-6"], preset="dominoes_cc", leader=0))["points"] == [0]


def test_dominoes_cc_without_doubles_the_heaviest_tile_leads() -> None:
    # 3 players, 6 tiles each; every double, 5-6 and 4-6 are in the boneyard, so the heaviest
    # tiles in hand are 3-6 and 4-5 (9 pips each): 3-6 has the higher high half and leads.
    hands = [
        ["4-5", "0-1", "0-2", "0-3", "0-4", "0-5"],
        ["0-6", "1-2", "1-3", "1-4", "1-5", "1-6"],
        ["3-6", "2-3", "2-4", "2-5", "2-6", "3-4"],
    ]
    doubles = [f"{v}-{v}" for v in range(7)]
    head = [*doubles, "5-6", "4-6"]

    def rec(leader: int | None, lead: str) -> Obj:
        return record("dominoes_cc", 3, hand_entry("dominoes_cc", 3, hands, head, leader, [lead]))

    assert run(rec(None, "3-6"))["points"] == [0]
    assert run(rec(None, "6-3"))["points"] == [0]  # the mirrored form of the same tile
    with pytest.raises(RecordError) as err:
        run(rec(0, "4-5"))
    assert (err.value.hand, err.value.action) == (1, None)
    with pytest.raises(RecordError) as err:
        run(rec(None, "2-6"))
    assert (err.value.hand, err.value.action) == (1, 1)


def test_domino_winner_leads_the_next_hand() -> None:
    game, _ = find_position(Rules.preset("pagat", 3), ended(HandEnd.DOMINO, match_over=False))
    seat = game.hand_results[-1].domino_seat
    assert seat is not None
    obj = record_dict(game)
    deal2 = {k: v for k, v in obj["hands"][0].items() if k in ("hands", "boneyard")}
    # Omitted (the rules decide it) or agreeing: accepted.
    for leader in (None, seat):
        ok = copy.deepcopy(obj)
        ok["hands"].append(
            {**deal2, **({} if leader is None else {"leader": leader}), "actions": []}
        )
        result = replay(parse_record(ok))
        assert result.game is not None and result.game.leader == seat
    # Anyone else: rejected, at the hand.
    for other in {0, 1, 2} - {seat}:
        bad = copy.deepcopy(obj)
        bad["hands"].append({**deal2, "leader": other, "actions": []})
        with pytest.raises(RecordError) as err:
            run(bad)
        assert (err.value.hand, err.value.action, err.value.field) == (
            len(obj["hands"]) + 1,
            None,
            None,
        )


@pytest.mark.parametrize(
    "change",
    [
        lambda h: h["boneyard"].pop(),
        lambda h: h["boneyard"].append(h["boneyard"][0]),
        lambda h: h["boneyard"].append(h["hands"][0].pop()),
        lambda h: h["hands"].pop(),
        lambda h: h["hands"][0].__setitem__(0, "7-1"),
        lambda h: h.pop("actions"),
    ],
    ids=["missing-tile", "duplicate", "short-hand", "one-hand", "tile-7-1", "no-actions"],
)
def test_deal_error_in_a_later_hand(change: Callable[[Obj], object]) -> None:
    game, _ = find_position(Rules.preset("pagat", 3), ended(HandEnd.DOMINO, match_over=False))
    obj = record_dict(game)
    nxt = {k: copy.deepcopy(v) for k, v in obj["hands"][0].items() if k in ("hands", "boneyard")}
    nxt["actions"] = []
    good = copy.deepcopy(obj)
    good["hands"].append(copy.deepcopy(nxt))
    run(good)  # the unchanged next hand is fine
    change(nxt)
    obj["hands"].append(nxt)
    with pytest.raises(RecordError) as err:
        run(obj)
    assert (err.value.hand, err.value.action, err.value.field) == (len(obj["hands"]), None, None)


def test_after_a_blocked_hand_the_leader_is_by_lot_again() -> None:
    game, _ = find_position(Rules.preset("pagat", 2), ended(HandEnd.BLOCKED, match_over=False))
    obj = record_dict(game)
    k = len(obj["hands"]) + 1
    deal2 = {k2: v for k2, v in obj["hands"][0].items() if k2 in ("hands", "boneyard")}
    for leader in (0, 1):
        ok = copy.deepcopy(obj)
        ok["hands"].append({**deal2, "leader": leader, "actions": []})
        result = replay(parse_record(ok))
        assert result.game is not None and result.game.leader == leader
    bad = copy.deepcopy(obj)
    bad["hands"].append({**deal2, "actions": []})
    with pytest.raises(RecordError) as err:
        run(bad)
    assert (err.value.hand, err.value.action) == (k, None)


def test_pyatyorka_partnership_block_winner_leads_by_lot_between_partners() -> None:
    rules = Rules.preset("pyatyorka", 4, partnerships=True)

    def want(g: Game) -> bool:
        return ended(HandEnd.BLOCKED, match_over=False)(g) and g.hand_results[-1].winner is not None

    game, _ = find_position(rules, want)
    side = game.hand_results[-1].winner
    assert side is not None
    obj = record_dict(game)
    k = len(obj["hands"]) + 1
    deal2 = {k2: v for k2, v in obj["hands"][-1].items() if k2 in ("hands", "boneyard")}
    for seat in range(4):
        attempt = copy.deepcopy(obj)
        attempt["hands"].append({**deal2, "leader": seat, "actions": []})
        if seat % 2 == side:
            result = replay(parse_record(attempt))
            assert result.game is not None and result.game.leader == seat
        else:
            with pytest.raises(RecordError) as err:
                run(attempt)
            assert (err.value.hand, err.value.action) == (k, None)
    missing = copy.deepcopy(obj)
    missing["hands"].append({**deal2, "actions": []})
    with pytest.raises(RecordError) as err:
        run(missing)
    assert (err.value.hand, err.value.action) == (k, None)
