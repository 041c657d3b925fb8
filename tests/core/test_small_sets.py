"""The set as a rule: ``max_pip`` plays the double-N set (N = 2 to 6) in the core game and in
records, and every layer laid out for the 28 tiles refuses a smaller set in one line.

The property test plays random hands on every set size with every preset and checks the same
invariants as the full set's (tests/core/test_properties.py): the set's tiles accounted for
exactly once, the legal actions, the count, the scores, the voids, the records.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from allfives_env import PRESETS, Game, Rules, parse_record, record_of, replay
from allfives_env.core.deal import Deal
from allfives_env.core.errors import DealError, RecordError, RulesError
from allfives_env.core.tiles import HIGH, NUM_TILES, SET_MASK, TILES, set_size, set_tiles
from tests.core.test_properties import check_record, play_and_check


@pytest.mark.parametrize("n", range(2, 7))
def test_the_double_n_set(n: int) -> None:
    tiles = set_tiles(n)
    assert len(tiles) == set_size(n) == (n + 1) * (n + 2) // 2
    assert all(t.high <= n for t in tiles)
    assert sum(1 << t for t in tiles) == SET_MASK[n]
    assert {str(t) for t in tiles} == {f"{a}-{b}" for a in range(n + 1) for b in range(a, n + 1)}
    rules = Rules.preset("pagat", 2, max_pip=n, hand_size=1)
    assert rules.num_tiles == len(tiles) and rules.tiles == tiles
    assert rules.boneyard_size == len(tiles) - 2
    assert set_size(6) == NUM_TILES and Rules.preset("pagat").tiles == TILES


def test_the_default_is_the_full_set_and_a_smaller_one_is_an_override() -> None:
    assert Rules.preset("pagat").max_pip == 6
    small = Rules.preset("pagat", 2, max_pip=3, hand_size=3)
    assert small.overrides() == {"hand_size": 3, "max_pip": 3}
    assert "max_pip=3" in small.describe()


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"max_pip": 1, "hand_size": 1}, "'max_pip' must be an int from 2 to 6"),
        ({"max_pip": 7}, "'max_pip' must be an int from 2 to 6"),
        ({"max_pip": True}, "'max_pip' must be an int from 2 to 6"),
        ({"max_pip": 3.0}, "'max_pip' must be an int from 2 to 6"),
        # the preset's 9 tiles a hand do not fit in the double-three set's 10
        ({"max_pip": 3}, "'hand_size' must be an int from 1 to 5 (the double-3 set's 10 tiles"),
        ({"max_pip": 2, "hand_size": 4}, "'hand_size' must be an int from 1 to 3"),
        ({"max_pip": 2, "hand_size": 3, "stop_tiles": 6}, "'stop_tiles' must be an int from 0"),
    ],
)
def test_a_set_too_small_is_refused_in_one_line(overrides: dict[str, object], message: str) -> None:
    with pytest.raises(RulesError) as info:
        Rules.preset("pagat", 2, **overrides)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_a_full_hand_of_a_small_set_deals_every_tile() -> None:
    rules = Rules.preset("pagat", 3, max_pip=3, hand_size=3)  # 9 of the 10 tiles dealt
    game = Game(rules, random.Random(0))
    dealt = [t for s in range(3) for t in game.hand(s)] + game.boneyard
    assert sorted(dealt) == list(set_tiles(3))


SETTINGS = st.tuples(
    st.integers(2, 6),
    st.sampled_from(PRESETS),
    st.sampled_from([(2, True), (3, True), (4, True), (4, False)]),
    st.integers(1, 5),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setting=SETTINGS, seed=st.integers(0, 2**32 - 1))
def test_random_hands_on_every_set_keep_every_invariant(
    setting: tuple[int, str, tuple[int, bool], int], seed: int
) -> None:
    n, preset, (players, partnerships), hand = setting
    hand = min(hand, set_size(n) // players)
    game = play_and_check(
        preset, players, partnerships, seed, max_hands=2, max_pip=n, hand_size=hand
    )
    for log in game.hand_log:
        assert {int(t) for h in log.deal.hands for t in h} | set(map(int, log.deal.boneyard)) == {
            int(t) for t in set_tiles(n)
        }
    if n < 6:  # a record of the double-six set holds the preset's hand size only
        check_record(game)


@pytest.mark.parametrize("preset", PRESETS)
def test_the_smallest_set_scores(preset: str) -> None:
    """A hand of the double-two set can score (a placement or the award): a positive target
    is reachable on every set, so the rules need not refuse one."""
    rules = Rules.preset(preset, 2, max_pip=2, hand_size=2)
    rng = random.Random(0)
    scored = False
    for _ in range(2000):
        game = Game(rules, rng)
        while not game.is_hand_over:
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
        scored = scored or any(s > 0 for s in game.scores)
        if scored:
            break
    assert scored


def small_record() -> dict[str, object]:
    rules = Rules.preset("five_up", 2, max_pip=3, hand_size=3, target=11)
    rng = random.Random(4)
    game = Game(rules, rng)
    while not game.is_match_over:
        if game.is_hand_over:
            game.deal(rng)
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    return record_of(game).to_json()


def test_a_record_names_the_set_and_replays() -> None:
    obj = small_record()
    assert obj["rules"] == {
        "preset": "five_up",
        "num_players": 2,
        "max_pip": 3,
        "hand_size": 3,
        "target": 11,
    }
    result = replay(parse_record(json.loads(json.dumps(obj))))
    assert result.winners is not None and result.game is not None
    assert result.game.rules.max_pip == 3


def test_a_record_of_the_full_set_is_the_specs() -> None:
    game = Game(Rules.preset("pagat", 2), random.Random(1))
    assert record_of(game).to_json()["rules"] == {"preset": "pagat", "num_players": 2}


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"max_pip": 9}, "rules", "'max_pip' must be an int from 2 to 6"),
        ({"max_pip": "3"}, "rules.max_pip", "must be a whole number"),
        ({"hand_size": 6}, "rules", "'hand_size' must be an int from 1 to 5"),
        # the double-six set's record is the spec's: no hand size or target
        ({"max_pip": 6}, "rules.hand_size", "unknown key 'hand_size'"),
    ],
)
def test_a_bad_set_in_a_record_is_a_record_error(
    change: dict[str, object], field: str, message: str
) -> None:
    obj = small_record()
    rules = obj["rules"]
    assert isinstance(rules, dict)
    rules.update(change)
    with pytest.raises(RecordError) as info:
        replay(parse_record(obj))
    assert info.value.field == field and message in str(info.value)


def test_a_tile_outside_the_set_is_refused() -> None:
    obj = small_record()
    hands = obj["hands"]
    assert isinstance(hands, list)
    hands[0]["boneyard"][0] = "5-6"
    with pytest.raises(RecordError, match="5-6 is not in the double-3 set"):
        replay(parse_record(obj))
    rules = Rules.preset("pagat", 2, max_pip=2, hand_size=2)
    big = [t for t in TILES if HIGH[t] > 2][:6]
    with pytest.raises(DealError, match="not in the double-2 set"):
        Game(rules, deal=Deal.of([big[:2], big[2:4]], big[4:6], leader=0))


def test_replay_cli_plays_a_small_set(tmp_path: Path) -> None:
    path = tmp_path / "small.json"
    obj = small_record()
    path.write_text(json.dumps(obj))
    out = subprocess.run(
        [sys.executable, "-m", "allfives_env", "replay", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == replay(parse_record(obj)).to_json()
