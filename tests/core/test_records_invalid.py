"""Invalid game records (RULES.md §4): each refused with a ``RecordError`` that names what is
wrong and where; positions deep inside a hand are found by seeded random legal play and saved
with ``record_of``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from allfives_env import (
    Game,
    HandEnd,
    RecordError,
    Rules,
    load_record,
    parse_record,
    record_of,
    replay,
    save_record,
)
from allfives_env.core.records import replay_text
from tests.core.record_examples import (
    A0,
    A1,
    A_ACTIONS,
    A_POINTS,
    Obj,
    deal_a,
    ended,
    find_position,
    play_random,
    rec_a,
    rec_b,
    rec_c,
    rec_d,
    record,
    record_dict,
    run,
)

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


def _extra(**kv: Any) -> Callable[[], Obj]:
    """Record A with the top-level keys ``kv`` beside its own."""
    return _mutate(_a_full, lambda o: o.update(kv))


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
    # --- the extra keys this project writes, checked where present (others are kept unread)
    ("players-string", _extra(players="Ann"), (None, None, "players")),
    ("players-null", _extra(players=None), (None, None, "players")),
    ("players-object", _extra(players={"0": "Ann", "1": "Bob"}), (None, None, "players")),
    ("players-too-few", _extra(players=["Ann"]), (None, None, "players")),
    ("players-too-many", _extra(players=["Ann", "Bob", "Cy"]), (None, None, "players")),
    ("players-empty", _extra(players=[]), (None, None, "players")),
    ("players-numbers", _extra(players=[1, 2]), (None, None, "players")),
    ("players-a-null", _extra(players=["Ann", None]), (None, None, "players")),
    (
        "players-two-for-four-seats",
        lambda: {**rec_c(["6-6"]), "players": ["a", "b"]},
        (None, None, "players"),
    ),
    ("seed-string", _extra(seed="7"), (None, None, "seed")),
    ("seed-float", _extra(seed=7.5), (None, None, "seed")),
    ("seed-whole-float", _extra(seed=7.0), (None, None, "seed")),
    ("seed-bool", _extra(seed=True), (None, None, "seed")),
    ("seed-null", _extra(seed=None), (None, None, "seed")),
    ("seed-list", _extra(seed=[7]), (None, None, "seed")),
    ("human-seat-out-of-range", _extra(human_seat=2), (None, None, "human_seat")),
    ("human-seat-negative", _extra(human_seat=-1), (None, None, "human_seat")),
    ("human-seat-bool", _extra(human_seat=False), (None, None, "human_seat")),
    ("human-seat-string", _extra(human_seat="0"), (None, None, "human_seat")),
    ("date-number", _extra(date=20240501), (None, None, "date")),
    ("source-list", _extra(source=["allfives serve"]), (None, None, "source")),
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


@pytest.mark.parametrize("preset", ["pagat", "five_up", "pyatyorka"])
@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_extra_keys_this_project_writes_read_back_in_every_table(preset: str, n: int) -> None:
    """``players``, ``seed``, ``human_seat``, ``date`` and ``source`` as ``allfives play``,
    ``allfives demo`` and the web page write them replay, whatever the table (a seed is the
    whole number ``--seed`` took: a negative one or one past 2**64 included)."""
    game, _ = play_random(Rules.preset(preset, n), n, stop=lambda g, steps: g.hand_number > 1)
    for seed in (0, 7, -3, 2**70):
        extra = {
            "players": [f"p{i}" for i in range(n)],
            "seed": seed,
            "human_seat": n - 1,
            "date": "2024-05-01T10:00:00",
            "source": "allfives serve",
            "comment": {"anything": [1, None]},  # not this project's: kept unread
        }
        obj = record_dict(game, extra)
        assert run(obj) == run(record_dict(game))
        assert parse_record(obj).extra == extra


def test_record_of_writes_no_extra_that_would_not_read_back() -> None:
    game, _ = play_random(Rules.preset("pagat", 3), 1, stop=lambda g, steps: steps > 5)
    for extra, field in [
        ({"players": ["a", "b"]}, "players"),
        ({"seed": "1"}, "seed"),
        ({"human_seat": 3}, "human_seat"),
        ({"hands": []}, "hands"),
        ({"format": "x"}, "format"),
        ({"start_scores": [0, 0, 0]}, "start_scores"),
    ]:
        with pytest.raises(RecordError) as err:
            record_of(game, extra)
        assert err.value.field == field
    written = json.dumps(record_of(game, {"players": ("a", "b", "c")}).to_json())
    assert parse_record(json.loads(written)).extra == {"players": ["a", "b", "c"]}
