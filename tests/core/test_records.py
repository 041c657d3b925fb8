"""Game records (RULES.md §4): round trips through the engine, notation, and invalid records.

Every record here is a plain Python dict, as ``json.loads`` would give it. Deals are written out
tile by tile (hands, then the boneyard in draw order); positions deep inside a hand (a blocked
hand, a finished match) are found by seeded random legal play and saved with ``record_of``.
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
    PRESETS,
    TILES,
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

Obj = dict[str, Any]

# ============================================================================ helpers


def hand_entry(
    preset: str,
    n: int,
    hands: list[list[str]],
    boneyard_head: list[str] | tuple[str, ...] = (),
    leader: int | None = 0,
    actions: list[Any] | tuple[Any, ...] = (),
) -> Obj:
    """One hand of a record: ``hands`` as given (checked to be a legal deal here, so that a
    test's own typo cannot pass for an engine error), the boneyard starting with
    ``boneyard_head`` and going on with every other tile in ascending id order."""
    size = Rules.preset(preset, n).hand_size
    assert len(hands) == n and all(len(h) == size for h in hands), "bad test deal"
    named = [Tile.parse(t) for h in hands for t in h] + [Tile.parse(t) for t in boneyard_head]
    assert len(set(named)) == len(named), "bad test deal"
    rest = [str(t) for t in TILES if t not in named]
    entry: Obj = {"hands": [list(h) for h in hands], "boneyard": [*boneyard_head, *rest]}
    if leader is not None:
        entry["leader"] = leader
    entry["actions"] = list(actions)
    return entry


def record(preset: str, n: int, *hands: Obj, **rules: Any) -> Obj:
    """A record dict of ``preset`` for ``n`` players holding ``hands``."""
    return {
        "format": FORMAT,
        "rules": {"preset": preset, "num_players": n, **rules},
        "hands": list(hands),
    }


def run(obj: object) -> dict[str, Any]:
    """Parse and replay a decoded record; return RULES.md §4's output object."""
    return replay(parse_record(obj)).to_json()


def points_of(obj: object) -> list[float]:
    return run(obj)["points"]


# --- Deal A: RULES.md §3 worked examples 1-3 (pagat, 2 players; seat 0 leads).
A0 = ["6-4", "6-3", "1-5", "1-0", "2-6", "0-0", "3-3", "4-4", "5-5"]
A1 = ["4-1", "1-1", "1-2", "2-2", "0-2", "2-3", "2-4", "2-5", "0-6"]
A_ACTIONS = ["6-4", "4-1 E", "6-3 W", "1-1 E", "1-5 E", "1-2 N", "1-0 S", "2-2 N", "2-6 N"]
A_POINTS = [10, 0, 0, 5, 0, 10, 10, 0, 0]


def deal_a(actions: list[Any] | tuple[Any, ...] = (), preset: str = "pagat", **kw: Any) -> Obj:
    return hand_entry(preset, 2, [A0, A1], actions=actions, **kw)


def rec_a(actions: list[Any] | tuple[Any, ...] = (), **kw: Any) -> Obj:
    return record("pagat", 2, deal_a(actions, **kw))


# --- Deal B (pagat, 2 players): seat 1 holds no 6 and no 4, so after the lead 6-4 he must draw;
# the first tile drawn (2-2) does not fit, the second (5-6) does.
B0 = ["4-6", "6-6", "4-4", "0-4", "1-4", "2-4", "3-4", "4-5", "0-6"]
B1 = ["0-0", "0-1", "0-2", "0-3", "0-5", "1-1", "1-2", "1-3", "1-5"]


def rec_b(actions: list[Any], preset: str = "pagat") -> Obj:
    return record(preset, 2, hand_entry(preset, 2, [B0, B1], ["2-2", "5-6"], actions=actions))


# --- Deal C (4 players, 5 tiles each): seat 0 leads 6-6 (the highest double); seat 1 holds no 6
# and neither does the boneyard, so seat 1 draws the whole boneyard (8 tiles) and then passes.
C_HANDS = [
    ["6-6", "0-6", "1-6", "0-0", "0-1"],
    ["1-1", "1-2", "1-3", "1-4", "1-5"],
    ["2-6", "3-6", "2-2", "2-3", "2-4"],
    ["4-6", "5-6", "2-5", "3-3", "3-4"],
]


def rec_c(actions: list[Any], preset: str = "pagat", leader: int | None = 0) -> Obj:
    return record(preset, 4, hand_entry(preset, 4, C_HANDS, leader=leader, actions=actions))


# --- Deal D (five_up, 2 players, 5 tiles each): Deal A cut down.
D0 = ["6-4", "6-3", "1-5", "1-0", "2-6"]
D1 = ["4-1", "1-1", "1-2", "2-2", "0-2"]


def rec_d(actions: list[Any], preset: str = "five_up") -> Obj:
    return record(preset, 2, hand_entry(preset, 2, [D0, D1], actions=actions))


def play_random(
    rules: Rules,
    seed: int,
    *,
    stop: Callable[[Game, int], bool] = lambda g, steps: False,
) -> tuple[Game, list[float]]:
    """Seeded random legal play (leads mirrored at random); stop when ``stop(game, steps)``
    holds after an action, or when the match is over. Returns the game and every action's
    points."""
    rng = random.Random(seed)
    game = Game(rules, rng)
    points: list[float] = []
    steps = 0
    while not game.is_match_over:
        if game.is_hand_over:
            game.deal(rng)
        action = rng.choice(game.legal_actions())
        if game.phase == Phase.LEAD and not TILES[action >> 4].is_double and rng.random() < 0.5:
            action = ACTIONS[action + 1]  # the mirrored lead: same tile on slot E
        points.append(game.apply(action).points)
        steps += 1
        if stop(game, steps):
            break
    return game, points


def find_position(
    rules: Rules, want: Callable[[Game], bool], seeds: range = range(300)
) -> tuple[Game, list[float]]:
    """The first position reached by seeded random legal play where ``want(game)`` holds."""
    for seed in seeds:
        game, points = play_random(rules, seed, stop=lambda g, _s: want(g))
        if want(game):
            return game, points
    raise AssertionError(f"no position found for {rules.describe()}")


def ended(end: HandEnd, *, match_over: bool) -> Callable[[Game], bool]:
    """A predicate: the last hand has just ended by ``end`` (and the match is / is not over)."""

    def want(g: Game) -> bool:
        return (
            g.is_hand_over
            and g.is_match_over == match_over
            and bool(g.hand_results)
            and len(g.hand_results) == g.hand_number
            and g.hand_results[-1].end == end
        )

    return want


def record_dict(game: Game, extra: dict[str, Any] | None = None) -> Obj:
    """``record_of(game)`` as decoded JSON."""
    obj: Obj = json.loads(json.dumps(record_of(game, extra).to_json()))
    return obj


def assert_replays_live(game: Game, points: list[float], result: Any) -> None:
    """A replay result agrees with the live game in every public and private respect."""
    assert list(result.points) == points
    assert tuple(result.hands) == tuple(game.hand_results)
    assert tuple(result.scores) == tuple(game.scores)
    assert result.winners == game.winners
    g = result.game
    assert g is not None
    assert g.phase == game.phase
    assert g.current_player == game.current_player
    assert g.hand_number == game.hand_number
    assert [g.hand(s) for s in range(g.rules.num_players)] == [
        game.hand(s) for s in range(game.rules.num_players)
    ]
    assert g.boneyard == game.boneyard
    assert g.count == game.count
    assert g.layout.line() == game.layout.line()
    assert g.events == game.events
    assert g.drawn_tile == game.drawn_tile
    winner = result.to_json()["winner"]
    if game.winners is None:
        assert winner is None
    elif len(game.winners) == 1:
        assert winner == game.winners[0]
    else:
        assert winner == list(game.winners)


CONFIGS = [(p, n, True) for p in PRESETS for n in (2, 3, 4)] + [(p, 4, False) for p in PRESETS]
CONFIG_IDS = [f"{p}-{n}p{'' if ps else '-solo'}" for p, n, ps in CONFIGS]


def rules_of(preset: str, n: int, partnerships: bool) -> Rules:
    return Rules.preset(preset, n, partnerships=partnerships)


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
    rules = rules_of(preset, n, partnerships)
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
    rules = rules_of(preset, n, partnerships)
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
        game, _ = play_random(rules_of(preset, n, partnerships), 1)
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


# ============================================================================ invalid records


def _mutate(base: Callable[[], Obj], change: Callable[[Obj], object]) -> Callable[[], Obj]:
    def build() -> Obj:
        obj = base()
        change(obj)
        return obj

    return build


def _set_rules(**kv: Any) -> Callable[[Obj], None]:
    def change(obj: Obj) -> None:
        for key, value in kv.items():
            if value is _DELETE:
                del obj["rules"][key]
            else:
                obj["rules"][key] = value

    return change


_DELETE = object()


def _hand0(change: Callable[[Obj], object]) -> Callable[[Obj], None]:
    def apply(obj: Obj) -> None:
        change(obj["hands"][0])

    return apply


def _swap_into_hand(h: Obj) -> None:
    # seat 0's last tile becomes a second copy of seat 1's first tile
    h["hands"][0][-1] = h["hands"][1][0]


def _move_to_boneyard(h: Obj) -> None:
    h["boneyard"].append(h["hands"][0].pop())


def _take_from_boneyard(h: Obj) -> None:
    h["hands"][0].append(h["boneyard"].pop())


def _merge_hands(h: Obj) -> None:
    h["boneyard"] = h["hands"].pop() + h["boneyard"]


def _split_boneyard_hand(h: Obj) -> None:
    # a third hand out of the boneyard, in a 2-player record
    h["hands"].append(h["boneyard"][:9])
    h["boneyard"] = h["boneyard"][9:]


def _a_full() -> Obj:
    return rec_a(A_ACTIONS)


def _a_with(*actions: Any) -> Callable[[], Obj]:
    return lambda: rec_a(list(actions))


def _b_with(*actions: Any) -> Callable[[], Obj]:
    return lambda: rec_b(list(actions))


def _two_hands_first_unfinished() -> Obj:
    obj = rec_a(["6-4", "4-1 E", "6-3 W"])
    obj["hands"].append(deal_a())
    return obj


def _with_hand_key(key: str, value: Any) -> Callable[[], Obj]:
    def build() -> Obj:
        obj = rec_a(A_ACTIONS)
        if value is _DELETE:
            del obj["hands"][0][key]
        else:
            obj["hands"][0][key] = value
        return obj

    return build


# (id, builder, expected (hand, action, field))
INVALID: list[tuple[str, Callable[[], object], tuple[int | None, int | None, str | None]]] = [
    # --- the header
    ("not-an-object-list", lambda: [], (None, None, "record")),
    ("not-an-object-string", lambda: "pagat", (None, None, "record")),
    ("not-an-object-null", lambda: None, (None, None, "record")),
    ("not-an-object-number", lambda: 1, (None, None, "record")),
    ("format-missing", _mutate(_a_full, lambda o: o.pop("format")), (None, None, "format")),
    (
        "format-wrong-version",
        _mutate(_a_full, lambda o: o.update(format="allfives-record/2")),
        (None, None, "format"),
    ),
    (
        "format-wrong-case",
        _mutate(_a_full, lambda o: o.update(format="Allfives-Record/1")),
        (None, None, "format"),
    ),
    ("format-number", _mutate(_a_full, lambda o: o.update(format=1)), (None, None, "format")),
    ("rules-missing", _mutate(_a_full, lambda o: o.pop("rules")), (None, None, "rules")),
    (
        "rules-not-object",
        _mutate(_a_full, lambda o: o.update(rules="pagat")),
        (None, None, "rules"),
    ),
    ("rules-list", _mutate(_a_full, lambda o: o.update(rules=["pagat", 2])), (None, None, "rules")),
    (
        "preset-unknown",
        _mutate(_a_full, _set_rules(preset="muggins")),
        (None, None, "rules.preset"),
    ),
    ("preset-case", _mutate(_a_full, _set_rules(preset="Pagat")), (None, None, "rules.preset")),
    ("preset-number", _mutate(_a_full, _set_rules(preset=0)), (None, None, "rules.preset")),
    ("preset-missing", _mutate(_a_full, _set_rules(preset=_DELETE)), (None, None, "rules.preset")),
    (
        "num-players-1",
        _mutate(_a_full, _set_rules(num_players=1)),
        (None, None, "rules.num_players"),
    ),
    (
        "num-players-5",
        _mutate(_a_full, _set_rules(num_players=5)),
        (None, None, "rules.num_players"),
    ),
    (
        "num-players-string",
        _mutate(_a_full, _set_rules(num_players="2")),
        (None, None, "rules.num_players"),
    ),
    (
        "num-players-true",
        _mutate(_a_full, _set_rules(num_players=True)),
        (None, None, "rules.num_players"),
    ),
    (
        "num-players-null",
        _mutate(_a_full, _set_rules(num_players=None)),
        (None, None, "rules.num_players"),
    ),
    (
        "num-players-missing",
        _mutate(_a_full, _set_rules(num_players=_DELETE)),
        (None, None, "rules.num_players"),
    ),
    (
        "partnerships-string",
        _mutate(_a_full, _set_rules(partnerships="false")),
        (None, None, "rules.partnerships"),
    ),
    (
        "partnerships-zero",
        _mutate(_a_full, _set_rules(partnerships=0)),
        (None, None, "rules.partnerships"),
    ),
    (
        "partnerships-null",
        _mutate(_a_full, _set_rules(partnerships=None)),
        (None, None, "rules.partnerships"),
    ),
    (
        "rules-unknown-key-target",
        _mutate(_a_full, _set_rules(target=100)),
        (None, None, "rules.target"),
    ),
    (
        "rules-unknown-key-hand-size",
        _mutate(_a_full, _set_rules(hand_size=9)),
        (None, None, "rules.hand_size"),
    ),
    (
        "rules-unknown-key-players",
        _mutate(_a_full, _set_rules(players=["Ann", "Bob"])),
        (None, None, "rules.players"),
    ),
    ("hands-missing", _mutate(_a_full, lambda o: o.pop("hands")), (None, None, "hands")),
    ("hands-not-list", _mutate(_a_full, lambda o: o.update(hands={})), (None, None, "hands")),
    # --- the shape of a hand
    ("hand-not-object", _mutate(_a_full, lambda o: o.update(hands=[[A0, A1]])), (1, None, None)),
    ("hand-no-hands", _with_hand_key("hands", _DELETE), (1, None, None)),
    ("hand-no-boneyard", _with_hand_key("boneyard", _DELETE), (1, None, None)),
    ("hand-no-actions", _with_hand_key("actions", _DELETE), (1, None, None)),
    ("hand-actions-not-list", _with_hand_key("actions", "6-4"), (1, None, None)),
    ("hand-boneyard-not-list", _with_hand_key("boneyard", "0-3"), (1, None, None)),
    (
        "hand-seat-not-list",
        _mutate(_a_full, _hand0(lambda h: h["hands"].__setitem__(0, "6-4"))),
        (1, None, None),
    ),
    # --- the deal: not the 28 tiles exactly once
    ("deal-duplicate-across-hands", _mutate(_a_full, _hand0(_swap_into_hand)), (1, None, None)),
    (
        "deal-duplicate-in-boneyard",
        _mutate(_a_full, _hand0(lambda h: h["boneyard"].__setitem__(0, h["boneyard"][1]))),
        (1, None, None),
    ),
    (
        "deal-duplicate-halves-reversed",
        _mutate(_a_full, _hand0(lambda h: h["boneyard"].__setitem__(0, "4-6"))),
        (1, None, None),
    ),
    ("deal-missing-tile", _mutate(_a_full, _hand0(lambda h: h["boneyard"].pop())), (1, None, None)),
    (
        "deal-29-tiles",
        _mutate(_a_full, _hand0(lambda h: h["boneyard"].append("6-4"))),
        (1, None, None),
    ),
    ("deal-short-hand", _mutate(_a_full, _hand0(_move_to_boneyard)), (1, None, None)),
    ("deal-long-hand", _mutate(_a_full, _hand0(_take_from_boneyard)), (1, None, None)),
    ("deal-one-hand", _mutate(_a_full, _hand0(_merge_hands)), (1, None, None)),
    ("deal-three-hands", _mutate(_a_full, _hand0(_split_boneyard_hand)), (1, None, None)),
    ("deal-no-hands", _mutate(_a_full, _hand0(lambda h: h.update(hands=[]))), (1, None, None)),
    (
        "deal-tile-7-1",
        _mutate(_a_full, _hand0(lambda h: h["hands"][1].__setitem__(8, "7-1"))),
        (1, None, None),
    ),
    (
        "deal-tile-6-6-6",
        _mutate(_a_full, _hand0(lambda h: h["boneyard"].__setitem__(9, "6-6-6"))),
        (1, None, None),
    ),
    (
        "deal-tile-66",
        _mutate(_a_full, _hand0(lambda h: h["boneyard"].__setitem__(9, "66"))),
        (1, None, None),
    ),
    (
        "deal-tile-number",
        _mutate(_a_full, _hand0(lambda h: h["boneyard"].__setitem__(9, 27))),
        (1, None, None),
    ),
    (
        "deal-tile-spaced",
        _mutate(_a_full, _hand0(lambda h: h["boneyard"].__setitem__(9, "6 - 6"))),
        (1, None, None),
    ),
    # --- the leader
    ("leader-missing-by-lot", _mutate(_a_full, _hand0(lambda h: h.pop("leader"))), (1, None, None)),
    (
        "leader-null-by-lot",
        _mutate(_a_full, _hand0(lambda h: h.update(leader=None))),
        (1, None, None),
    ),
    (
        "leader-out-of-range",
        _mutate(_a_full, _hand0(lambda h: h.update(leader=2))),
        (1, None, None),
    ),
    ("leader-negative", _mutate(_a_full, _hand0(lambda h: h.update(leader=-1))), (1, None, None)),
    ("leader-string", _mutate(_a_full, _hand0(lambda h: h.update(leader="0"))), (1, None, None)),
    ("leader-true", _mutate(_a_full, _hand0(lambda h: h.update(leader=True))), (1, None, None)),
    (
        "leader-disagrees-highest-double",
        lambda: rec_c(["6-6"], preset="dominoes_cc", leader=1),
        (1, None, None),
    ),
    (
        "lead-not-the-highest-double",
        lambda: rec_c(["0-6"], preset="dominoes_cc", leader=None),
        (1, 1, None),
    ),
    # --- tiles and slots
    ("lead-tile-not-in-hand", _a_with("4-1"), (1, 1, None)),
    ("tile-not-in-hand", _a_with("6-4", "6-3 W"), (1, 2, None)),
    ("tile-already-played", _a_with("6-4", "4-1 E", "6-4 W"), (1, 3, None)),
    ("tile-on-table-by-opponent", _a_with("6-4", "4-1 E", "1-4 E"), (1, 3, None)),
    ("slot-branch-before-straight-sides", _a_with(*A_ACTIONS[:4], "1-5 N"), (1, 5, None)),
    ("slot-S-before-straight-sides", _a_with(*A_ACTIONS[:4], "1-5 S"), (1, 5, None)),
    ("slot-branch-no-spinner", _a_with("6-4", "4-1 N"), (1, 2, None)),
    ("slot-at-2-before-straight-sides", _a_with(*A_ACTIONS[:4], "1-5 @2"), (1, 5, None)),
    ("slot-at-4-pagat", _a_with("6-4", "4-1 @4"), (1, 2, None)),
    ("slot-at-15-pagat", _a_with("6-4", "4-1 @15"), (1, 2, None)),
    ("slot-covered-straight-side", _a_with(*A_ACTIONS[:4], "1-5 E", "1-2 W"), (1, 6, None)),
    ("slot-does-not-match", _a_with("6-4", "4-1 E", "6-3 E"), (1, 3, None)),
    ("slot-does-not-match-branch", _a_with(*A_ACTIONS[:5], "2-3 N"), (1, 6, None)),
    ("mirrored-slot-does-not-match", _a_with("4-6", "4-1 E"), (1, 2, None)),
    # --- draws and passes
    ("draw-with-a-placement", _a_with("6-4", "draw"), (1, 2, None)),
    ("leader-draws-pagat", _a_with("draw"), (1, 1, None)),
    ("leader-passes-pagat", _a_with("pass"), (1, 1, None)),
    ("leader-draws-five-up", lambda: rec_d(["draw"]), (1, 1, None)),
    ("leader-draws-five-up-4p", lambda: rec_c(["draw"], preset="five_up"), (1, 1, None)),
    ("leader-draws-pyatyorka", lambda: rec_c(["draw"], preset="pyatyorka"), (1, 1, None)),
    ("draw-empty-boneyard", lambda: rec_c(["6-6", *["draw"] * 9]), (1, 10, None)),
    (
        "draw-empty-boneyard-five-up",
        lambda: rec_c(["6-6", *["draw"] * 9], preset="five_up"),
        (1, 10, None),
    ),
    (
        "draw-stop-tile-pyatyorka",
        lambda: rec_c(["6-6", *["draw"] * 8], preset="pyatyorka"),
        (1, 9, None),
    ),
    ("pass-with-a-placement", _a_with("6-4", "pass"), (1, 2, None)),
    ("pass-with-a-placement-five-up", lambda: rec_d(["6-4", "pass"]), (1, 2, None)),
    ("pass-with-a-draw", _b_with("6-4", "pass"), (1, 2, None)),
    ("pass-after-a-draw", _b_with("6-4", "draw", "pass"), (1, 3, None)),
    ("pass-with-a-draw-4p", lambda: rec_c(["6-6", "draw", "draw", "pass"]), (1, 4, None)),
    ("pass-when-drawn-tile-fits", _b_with("6-4", "draw", "draw", "pass"), (1, 4, None)),
    ("draw-again-when-drawn-tile-fits", _b_with("6-4", "draw", "draw", "draw"), (1, 4, None)),
    ("place-another-tile-when-drawn-fits", _b_with("6-4", "draw", "draw", "0-0 W"), (1, 4, None)),
    ("place-the-nonfitting-drawn-tile", _b_with("6-4", "draw", "draw", "2-2 W"), (1, 4, None)),
    ("drawn-tile-on-wrong-slot", _b_with("6-4", "draw", "draw", "5-6 E"), (1, 4, None)),
    # --- hands in order
    ("hand-before-previous-ended", _two_hands_first_unfinished, (2, None, None)),
    (
        "hand-before-previous-ended-empty",
        lambda: record("pagat", 2, deal_a(), deal_a()),
        (2, None, None),
    ),
    # --- malformed action strings (the well-formed action would be legal at that point)
    ("action-two-spaces", _a_with("6-4", "4-1  E"), (1, 2, None)),
    ("action-lower-case-slot", _a_with("6-4", "4-1 e"), (1, 2, None)),
    ("action-unknown-slot", _a_with("6-4", "4-1 X"), (1, 2, None)),
    ("action-slot-word", _a_with("6-4", "4-1 East"), (1, 2, None)),
    ("action-at-16", _a_with("6-4", "4-1 @16"), (1, 2, None)),
    ("action-at-alone", _a_with("6-4", "4-1 @"), (1, 2, None)),
    ("action-at-leading-zero", _a_with("6-4", "4-1 @01"), (1, 2, None)),
    ("action-trailing-space", _a_with("6-4", "4-1 E "), (1, 2, None)),
    ("action-leading-space", _a_with("6-4", " 4-1 E"), (1, 2, None)),
    ("action-tab", _a_with("6-4", "4-1\tE"), (1, 2, None)),
    ("action-no-dash", _a_with("6-4", "41 E"), (1, 2, None)),
    ("action-en-dash", _a_with("6-4", "4–1 E"), (1, 2, None)),
    ("action-half-7", _a_with("6-4", "4-7 E"), (1, 2, None)),
    ("action-bare-tile-not-lead", _a_with("6-4", "4-1"), (1, 2, None)),
    ("action-Draw", _b_with("6-4", "Draw"), (1, 2, None)),
    ("action-DRAW", _b_with("6-4", "DRAW"), (1, 2, None)),
    ("action-draw-space", _b_with("6-4", "draw "), (1, 2, None)),
    ("action-Pass", lambda: rec_c(["6-6", *["draw"] * 8, "Pass"]), (1, 10, None)),
    ("action-empty", _a_with("6-4", ""), (1, 2, None)),
    ("lead-with-slot-W", _a_with("6-4 W"), (1, 1, None)),
    ("lead-with-slot-E", _a_with("4-6 E"), (1, 1, None)),
    ("lead-with-slot-at-0", _a_with("6-4 @0"), (1, 1, None)),
    ("lead-spaced", _a_with("6 - 4"), (1, 1, None)),
    ("lead-double-mirrored-slot", _a_with("0-0 E"), (1, 1, None)),
    ("action-number", _a_with("6-4", 5), (1, 2, None)),
    ("action-null", _a_with("6-4", None), (1, 2, None)),
    ("action-list", _a_with("6-4", ["4-1", "E"]), (1, 2, None)),
    ("action-object", _a_with("6-4", {"tile": "4-1", "slot": "E"}), (1, 2, None)),
    ("lead-number", _a_with(64), (1, 1, None)),
]


@pytest.mark.parametrize(
    ("build", "where"),
    [pytest.param(b, w, id=i) for i, b, w in INVALID],
)
def test_invalid_record(
    build: Callable[[], object], where: tuple[int | None, int | None, str | None]
) -> None:
    obj = build()
    with pytest.raises(RecordError) as info:
        replay(parse_record(obj))
    err = info.value
    assert (err.hand, err.action, err.field) == where, str(err)
    # The message starts with the position and gives a one-line reason.
    assert err.reason
    assert str(err).startswith(err.position + ": ")
    assert "\n" not in str(err)
    if where[2] is not None:
        assert err.position == where[2]
    elif where[1] is not None:
        assert err.position == f"hand {where[0]}, action {where[1]}"
    else:
        assert err.position == f"hand {where[0]}"
    # The same record through JSON text gives the same error.
    with pytest.raises(RecordError) as again:
        replay_text(json.dumps(obj))
    assert (again.value.hand, again.value.action, again.value.field) == where


def test_invalid_table_actions_are_legal_once_corrected() -> None:
    """The invalid records above differ from a valid one only at the position they name."""
    assert run(_a_with("6-4", "4-1 E")())["points"] == [10, 0]
    assert run(_b_with("6-4", "draw")())["points"] == [10, 0]
    assert run(rec_c(["6-6", *["draw"] * 8]))["points"] == [0] * 9
    assert run(rec_c(["6-6", *["draw"] * 8], preset="five_up"))["points"] == [0] * 9
    assert run(rec_c(["6-6", *["draw"] * 7], preset="pyatyorka"))["points"] == [0] * 8
    assert run(rec_c(["6-6", "draw", "draw"]))["points"] == [0] * 3
    assert run(rec_d(["6-4", "4-1 E"]))["points"] == [2, 0]
    assert run(_a_with(*A_ACTIONS[:5], "1-2 N")())["points"] == A_POINTS[:6]
    assert run(rec_c(["6-6"], preset="dominoes_cc", leader=None))["points"] == [0]


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("", "file"),
        ("{", "file"),
        ("{'format': 'allfives-record/1'}", "file"),
        ('{"format": "allfives-record/1",}', "file"),
        ("not json", "file"),
        ("[1, 2", "file"),
        ("[]", "record"),
        ("null", "record"),
        ('"allfives-record/1"', "record"),
    ],
)
def test_malformed_json(text: str, field: str, tmp_path: Any) -> None:
    with pytest.raises(RecordError) as err:
        replay_text(text)
    assert err.value.field == field
    assert "\n" not in str(err.value)
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RecordError) as err2:
        replay(load_record(path))
    assert err2.value.field == field


def test_unreadable_files(tmp_path: Any) -> None:
    with pytest.raises(RecordError) as err:
        load_record(tmp_path / "missing.json")
    assert err.value.field == "file"
    with pytest.raises(RecordError) as err:
        load_record(tmp_path)  # a directory
    assert err.value.field == "file"
    latin = tmp_path / "latin1.json"
    latin.write_bytes(b'{"format": "allfives-record/1", "players": ["Jos\xe9"]}')
    with pytest.raises(RecordError) as err:
        load_record(latin)
    assert err.value.field == "file"


def test_deeply_nested_json_is_a_record_error(tmp_path: Any) -> None:
    text = "[" * 100_000
    with pytest.raises(RecordError):
        replay_text(text)
    path = tmp_path / "deep.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RecordError):
        load_record(path)


def test_unknown_rules_key_with_a_newline_is_one_line() -> None:
    obj = rec_a(A_ACTIONS)
    obj["rules"]["a\nb"] = 1
    with pytest.raises(RecordError) as err:
        run(obj)
    assert err.value.field is not None and err.value.field.startswith("rules")
    assert "\n" not in str(err.value)


# --- positions found by play: hand ends and match ends


def _append_action(obj: Obj, action: str) -> tuple[int, int]:
    """Append ``action`` to the last hand; return its (hand, action) position."""
    obj["hands"][-1]["actions"].append(action)
    return len(obj["hands"]), len(obj["hands"][-1]["actions"])


@pytest.mark.parametrize("action", ["pass", "draw", "0-0 W", "6-6"])
@pytest.mark.parametrize(
    ("preset", "n", "end"),
    [
        ("pagat", 2, HandEnd.DOMINO),
        ("pagat", 3, HandEnd.BLOCKED),
        ("pagat", 4, HandEnd.BLOCKED),
        ("five_up", 2, HandEnd.DOMINO),
        ("five_up", 3, HandEnd.BLOCKED),
        ("pyatyorka", 2, HandEnd.BLOCKED),
        ("spruce", 4, HandEnd.DOMINO),
        ("dominoes_cc", 3, HandEnd.BLOCKED),
    ],
)
def test_action_after_the_hand_ended(preset: str, n: int, end: HandEnd, action: str) -> None:
    game, _ = find_position(Rules.preset(preset, n), ended(end, match_over=False))
    obj = record_dict(game)
    assert run(obj)["hands"][-1]["end"] == end.value
    if end == HandEnd.BLOCKED:
        # The hand ends the moment it is blocked: its last action is no pass.
        assert obj["hands"][-1]["actions"][-1] != "pass"
    where = _append_action(obj, action)
    with pytest.raises(RecordError) as err:
        run(obj)
    assert (err.value.hand, err.value.action, err.value.field) == (*where, None)


@pytest.mark.parametrize(
    ("preset", "n", "end"),
    [
        ("pagat", 2, HandEnd.TARGET),
        ("pagat", 3, HandEnd.DOMINO),
        ("spruce", 2, HandEnd.TARGET),  # spruce hand ends only subtract
        ("five_up", 2, HandEnd.TARGET),
        ("five_up", 4, HandEnd.DOMINO),
        ("pyatyorka", 3, HandEnd.DOMINO),
        ("dominoes_cc", 2, HandEnd.DOMINO),
    ],
)
def test_action_or_hand_after_the_match_ended(preset: str, n: int, end: HandEnd) -> None:
    game, _ = find_position(Rules.preset(preset, n), ended(end, match_over=True))
    obj = record_dict(game)
    out = run(obj)
    assert out["winner"] is not None and out["hands"][-1]["end"] == end.value
    # Another action in the last hand.
    for action in ("pass", "draw", "0-0 W"):
        bad = copy.deepcopy(obj)
        where = _append_action(bad, action)
        with pytest.raises(RecordError) as err:
            run(bad)
        assert (err.value.hand, err.value.action, err.value.field) == (*where, None)
    # Another hand, even a well-formed one (the first hand's deal again), with or without actions.
    for actions in ([], obj["hands"][0]["actions"][:1]):
        bad = copy.deepcopy(obj)
        bad["hands"].append({**obj["hands"][0], "actions": actions})
        with pytest.raises(RecordError) as err:
            run(bad)
        assert (err.value.hand, err.value.action, err.value.field) == (
            len(bad["hands"]),
            None,
            None,
        )


def test_target_reached_by_the_last_tile_ends_as_target() -> None:
    """RULES.md §1 Match: a placement that reaches the target ends the hand as ``target``."""
    game, points = find_position(Rules.preset("pagat", 2), ended(HandEnd.TARGET, match_over=True))
    obj = record_dict(game)
    out = run(obj)
    assert out["hands"][-1] == {"end": "target", "award": [0, 0]}
    assert out["points"] == points and out["points"][-1] > 0
    assert max(out["scores"]) >= 250


def test_replay_takes_a_record_a_path_or_decoded_json(tmp_path: Any) -> None:
    from allfives_env import ArgumentError

    game, _ = play_random(Rules.preset("pagat", 2), 4)
    rec = record_of(game)
    path = tmp_path / "match.json"
    save_record(rec, path)
    expected = replay(rec).to_json()
    assert replay(str(path)).to_json() == expected
    assert replay(path).to_json() == expected
    assert replay(json.loads(path.read_text())).to_json() == expected
    with pytest.raises(RecordError, match="cannot read"):
        replay(str(tmp_path / "missing.json"))
    for bad in (42, None, [rec]):
        with pytest.raises(ArgumentError, match="replay takes a Record"):
            replay(bad)  # type: ignore[arg-type]


def test_duplicate_json_keys_are_refused() -> None:
    text = json.dumps(record_dict(play_random(Rules.preset("pagat", 2), 4)[0]))
    twice = text.replace('"format": ', '"format": "allfives-record/1", "format": ', 1)
    with pytest.raises(RecordError, match="duplicate key 'format'") as err:
        replay_text(twice)
    assert err.value.field == "file"
    nested = text.replace('"preset": ', '"preset": "pagat", "preset": ', 1)
    with pytest.raises(RecordError, match="duplicate key 'preset'"):
        replay_text(nested)


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda o: o.pop("format"), "missing"),
        (lambda o: o.update(format=""), "empty; must be 'allfives-record/1'"),
        (lambda o: o.update(format="allfives-record/2"), "not 'allfives-record/2'"),
    ],
)
def test_format_errors_say_what_is_wrong(
    change: Callable[[dict[str, Any]], Any], reason: str
) -> None:
    obj = record_dict(play_random(Rules.preset("pagat", 2), 4)[0])
    change(obj)
    with pytest.raises(RecordError) as err:
        parse_record(obj)
    assert err.value.field == "format" and err.value.reason.endswith(reason)


def test_draws_stacked_as_they_happen_replay_from_the_record() -> None:
    """The boneyard's order may be decided draw by draw (OpenSpiel's chance nodes): the logged
    deal follows, so the record replays the same hand."""
    import random as _random

    from allfives_env.core.actions import DRAW_ID
    from allfives_env.core.errors import DealError

    rng = _random.Random(5)
    for seed in range(30):
        game = Game(Rules.preset("pagat", 2), _random.Random(seed))
        while not game.is_match_over and game.hand_number < 3:
            if game.current_player is None:
                game.deal(rng)
                continue
            action = rng.choice(game.legal_actions())
            if action == DRAW_ID:
                game.stack_next_draw(rng.choice(game.boneyard))
            game.apply(action)
        result = replay(record_of(game))
        assert result.scores == game.scores
        assert [h.pips for h in result.hands] == [h.pips for h in game.hand_results]
    with pytest.raises(DealError, match="not in the boneyard"):
        game = Game(Rules.preset("pagat", 2), _random.Random(1))
        game.stack_next_draw(game.hand(0)[0])
