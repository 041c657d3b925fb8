"""Property tests over random seeded games, for every preset × player count.

Each example plays random legal actions from a seed and checks, after every action: the set's
tiles are accounted for exactly once; the listed legal actions are exactly the accepted ones (plus
mirrored leads) and a refused action leaves the game untouched; the count agrees with a count
recomputed from scratch by the letter of RULES.md §1; scores move only by what was scored; known
voids are true; hands end within a bound. Then the game's record replays to the same result.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from allfives_env import (
    ACTIONS,
    PRESETS,
    Game,
    HandEnd,
    IllegalActionError,
    Rules,
    parse_record,
    record_of,
    replay,
)
from allfives_env.core.actions import DRAW_ID, MAX_SLOTS
from allfives_env.core.layout import Layout
from allfives_env.core.tiles import IS_DOUBLE, PIPS, TILES

CONFIGS = [(p, n, True) for p in PRESETS for n in (2, 3, 4)] + [(p, 4, False) for p in PRESETS]


def recount(layout: Layout) -> int:
    """The count of RULES.md §1, recomputed from the tiles on the table alone."""
    if layout.is_empty:
        return 0
    spinner_at = {where: k for k, where in enumerate(layout.sp_where)}
    total = 0
    # each spinner: sides covered = attached side + far side built on + started branches
    for k, (slot, idx) in enumerate(layout.sp_where):
        covered = 0
        if slot == -1:  # led: W and E are its straight sides
            covered += bool(layout.chains[0]) + bool(layout.chains[1])
        else:
            covered += 1 + (len(layout.chains[slot]) > idx + 1)
        covered += bool(layout.chains[2 + 2 * k]) + bool(layout.chains[3 + 2 * k])
        if covered < 2:
            total += 2 * layout.sp_value[k]
    for s in layout.open_slots:
        chain = layout.chains[s]
        if not chain:
            if s >= 2:
                continue  # an unstarted branch counts 0
            if IS_DOUBLE[layout.lead_tile]:
                continue  # the led spinner is counted on its own
            lead_w = layout.lead_west
            total += lead_w if s == 0 else PIPS[layout.lead_tile] - lead_w
            continue
        tile, _near, far = chain[-1]
        if (s, len(chain) - 1) in spinner_at:
            continue  # the spinner at this end is counted on its own
        total += 2 * far if IS_DOUBLE[tile] else far
    return total


def snapshot(game: Game) -> tuple[object, ...]:
    return (
        repr(game),
        [game.hand_mask(s) for s in range(game.rules.num_players)],
        game.boneyard,
        len(game.events),
        game.scores,
        [game.void_bits(s) for s in range(game.rules.num_players)],
        game.phase,
    )


def accepted(game: Game) -> set[int]:
    return {a for a in range(len(ACTIONS)) if game.is_legal(a)}


def check_tiles(game: Game) -> None:
    n = game.rules.num_players
    masks = [game.hand_mask(s) for s in range(n)]
    masks.append(sum(1 << t for t in game.boneyard))
    masks.append(game.layout.on_table)
    union = 0
    for m in masks:
        assert union & m == 0, "a tile is in two places"
        union |= m
    assert union == game.rules.tile_mask, "a tile is missing, or one from outside the set"
    for s in range(n):
        assert game.hand_sizes[s] == game.hand_mask(s).bit_count()
        assert game.pips(s) == sum(PIPS[t] for t in game.hand(s))


def check_voids(game: Game) -> None:
    for s in range(game.rules.num_players):
        for v in game.known_voids(s):
            assert all(v not in (t.low, t.high) for t in game.hand(s)), (s, v)


def check_legality(game: Game, rng: random.Random) -> None:
    legal = game.legal_actions()
    assert legal == sorted(legal) and len(set(legal)) == len(legal)
    acc = accepted(game)
    mirrored = set()
    if game.phase.name == "LEAD":
        mirrored = {a + 1 for a in legal if not IS_DOUBLE[a >> 4]}
    assert acc == set(legal) | mirrored
    for a in range(len(ACTIONS)):
        assert (game.why_illegal(a) is None) == (a in acc)
    # a few refused actions leave the game untouched
    refused = [a for a in range(len(ACTIONS)) if a not in acc]
    before = snapshot(game)
    for a in rng.sample(refused, min(3, len(refused))):
        with pytest.raises(IllegalActionError):
            game.apply(a)
        assert snapshot(game) == before
    # every listed action applies (on a copy)
    for a in legal:
        game.clone().apply(a)


def play_and_check(
    preset: str, n: int, partnerships: bool, seed: int, max_hands: int, **overrides: int
) -> Game:
    """Play random hands of the preset (with rules ``overrides``, such as a smaller set),
    checking every invariant after every action."""
    rules = Rules.preset(preset, n, partnerships=partnerships, **overrides)
    rng = random.Random(seed)
    game = Game(rules, rng)
    bound = 28 + 28 + n * 60
    hands = 0
    while True:
        steps = 0
        while not game.is_hand_over:
            check_tiles(game)
            check_voids(game)
            assert game.count == recount(game.layout)
            if steps % 4 == 0:
                check_legality(game, rng)
            scores = game.scores
            legal = game.legal_actions()
            action = legal[rng.randrange(len(legal))]
            count_before = game.count
            result = game.apply(action)
            steps += 1
            assert steps <= bound, "a hand did not end"
            assert game.count == recount(game.layout)
            # points: a placement scores count/unit when the count is a positive multiple of 5
            if action < DRAW_ID:
                c = game.count
                expect = c // rules.unit if c and c % 5 == 0 else 0
                assert result.points in (expect, 0)
                if result.points == 0 and expect:
                    assert rules.exact_target
                    assert scores[rules.side_of(result.player)] + expect > rules.target
            else:
                assert result.points == 0 and game.count == count_before
            delta = [b - a for a, b in zip(scores, game.scores, strict=True)]
            award = result.hand.award if result.hand else (0,) * rules.num_sides
            side = rules.side_of(result.player)
            for i, d in enumerate(delta):
                assert d == award[i] + (result.points if i == side else 0)
        hands += 1
        assert result.hand is not None
        check_award(rules, result.hand.end, result.hand.award)
        if game.is_match_over or hands >= max_hands:
            return game
        game.deal(rng)


def check_award(rules: Rules, end: HandEnd, award: tuple[float, ...]) -> None:
    if end == HandEnd.TARGET:
        assert all(a == 0 for a in award)
    elif rules.award == "lose_own":
        assert all(a <= 0 and a % 5 == 0 for a in award)
    elif rules.unit == 5 or rules.award == "net_fives":
        assert all(a >= 0 and a == int(a) for a in award)
    else:
        assert all(a >= 0 and (a * 2) % 5 == 0 for a in award)


def check_record(game: Game) -> None:
    rec = record_of(game)
    again = replay(parse_record(json.loads(json.dumps(rec.to_json()))))
    points = [e.points for h in game.hand_log for e in h.events]
    assert list(again.points) == points
    assert list(again.hands) == game.hand_results
    assert again.scores == game.scores
    assert again.winners == game.winners


@pytest.mark.parametrize(("preset", "n", "partnerships"), CONFIGS)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_random_hands_keep_every_invariant(
    preset: str, n: int, partnerships: bool, seed: int
) -> None:
    game = play_and_check(preset, n, partnerships, seed, max_hands=2)
    check_record(game)


@pytest.mark.parametrize(("preset", "n", "partnerships"), CONFIGS)
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_matches_end_and_replay(preset: str, n: int, partnerships: bool, seed: int) -> None:
    rules = Rules.preset(preset, n, partnerships=partnerships)
    rng = random.Random(seed)
    game = Game(rules, rng)
    for _ in range(100_000):
        if game.is_match_over:
            break
        if game.is_hand_over:
            game.deal(rng)
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    assert game.is_match_over and game.winners
    best = max(game.scores)
    if rules.exact_target:
        assert all(game.scores[w] == rules.target for w in game.winners)
    else:
        assert all(game.scores[w] == best >= rules.target for w in game.winners)
    check_record(game)


@pytest.mark.parametrize("preset", PRESETS)
def test_same_seed_same_game(preset: str) -> None:
    def run(seed: int) -> list[object]:
        rng = random.Random(seed)
        game = Game(Rules.preset(preset, 3), rng)
        out: list[object] = []
        while not game.is_match_over and len(out) < 400:
            if game.is_hand_over:
                game.deal(rng)
            legal = game.legal_actions()
            out.append(game.apply(legal[rng.randrange(len(legal))]))
        return out

    assert run(11) == run(11)
    assert run(11) != run(12)


def test_clone_is_independent() -> None:
    rng = random.Random(5)
    game = Game(Rules.preset("five_up", 4), rng)
    for _ in range(6):
        game.apply(game.legal_actions()[0])
    copy = game.clone()
    before = snapshot(game)
    while not copy.is_hand_over:
        copy.apply(copy.legal_actions()[-1])
    assert snapshot(game) == before
    assert copy.layout.chains != game.layout.chains


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), preset=st.sampled_from(PRESETS))
def test_placements_tried_on_a_scratch_leave_the_layout_as_it_was(seed: int, preset: str) -> None:
    """Every legal placement tried on a scratch copy, at every step of a random hand, leaves
    the layout's key (spinner positions included, which the pictures read) unchanged."""
    rng = random.Random(seed)
    game = Game(Rules.preset(preset, 2), rng)
    while not game.is_hand_over:
        lay = game.layout
        before = lay.key()
        for a in game.legal_actions():
            if a.is_placement and not lay.is_empty:
                lay.scratch().place(int(a.tile), int(a.slot))  # type: ignore[arg-type]
        assert lay.key() == before
        game.apply(rng.choice(game.legal_actions()))


def test_tile_and_slot_tables() -> None:
    assert [str(t) for t in TILES[:8]] == ["0-0", "0-1", "0-2", "0-3", "0-4", "0-5", "0-6", "1-1"]
    assert str(TILES[27]) == "6-6" and MAX_SLOTS == 16


def action_forms(game: Game, rng: random.Random) -> list[object]:
    """Every form an action can take, for a sample of actions: the Action, its int id, NumPy
    integers, its text (``str``), the record notation, plus things that are not actions."""
    ids = rng.sample(range(len(ACTIONS)), 12) + [int(a) for a in game.legal_actions()[:4]]
    forms: list[object] = []
    for a in ids:
        action = ACTIONS[a]
        forms += [action, int(a), np.int64(a), np.int32(a), np.uint16(a), str(action)]
        if game.current_player is not None:
            forms.append(game.notation(a))
    if game.phase.name == "LEAD":  # the bare lead in both orientations
        for t in game.hand(game.current_player or 0)[:3]:
            forms += [f"{t.low}-{t.high}", f"{t.high}-{t.low}"]
    forms += ["draw", "pass", "0-0 W", "6-4", " draw", "DRAW", "4-1 X", "", "7-7 E"]
    forms += [-1, 450, 10**6, np.int64(-3), 40.0, 40.9, None, True, False, b"draw", [1]]
    return forms


@pytest.mark.parametrize(("preset", "n", "partnerships"), CONFIGS)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_why_illegal_agrees_with_apply_for_every_action_form(
    preset: str, n: int, partnerships: bool, seed: int
) -> None:
    rng = random.Random(seed)
    game = Game(Rules.preset(preset, n, partnerships=partnerships), rng)
    for _ in range(40):
        if game.is_match_over:
            break
        if game.is_hand_over:
            game.deal(rng)
        for form in action_forms(game, rng):
            why = game.why_illegal(form)
            assert game.is_legal(form) == (why is None), (form, why)
            trial = game.clone()
            before = snapshot(trial)
            try:
                trial.apply(form)
            except IllegalActionError as e:
                assert why is not None, (form, str(e))
                assert snapshot(trial) == before, form
                assert why in str(e)
            else:
                assert why is None, (form, why)
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
