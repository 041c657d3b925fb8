"""The batched engine's API: seeds and threads, refused input, the compiled policies, records."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba")

from agents.greedy import GreedyAgent
from allfives_env.core.errors import IllegalActionError
from allfives_env.core.game import Game
from allfives_env.core.records import replay, save_record
from allfives_env.core.rules import PRESETS, Rules
from allfives_env.envs.settings import ResetRequiredError
from allfives_env.envs.spaces import Encoding
from allfives_env.vector import (
    ActionArrayError,
    VectorActionError,
    VectorConfigError,
    VectorGame,
    get_num_threads,
    policy_rng,
    set_num_threads,
)

TABLES = [(p, n, t) for p in PRESETS for n, t in ((2, True), (3, True), (4, True), (4, False))]


def run(vg: VectorGame, steps: int, policy_seed: int) -> list[np.ndarray]:
    """Step ``vg`` with random actions (a per-game policy generator), resetting finished games
    from their own generators; return everything it showed, step by step."""
    prng = policy_rng(policy_seed, vg.num_games)
    seen: list[np.ndarray] = []
    for _ in range(steps):
        seen += [vg.observe(), vg.masks(), vg.state()]
        rewards, terminated, truncated = vg.step(vg.random_actions(prng))
        seen += [rewards, terminated, truncated, vg.scores]
        done = np.flatnonzero(terminated | truncated)
        if done.size:
            vg.reset_games(done)
    return seen


def snapshot(vg: VectorGame) -> list[np.ndarray]:
    arrays = [vg.st, vg.scores_, vg.hand_start, vg.award, vg.rng, vg.log, vg.prev, vg.prev_log]
    return [a.copy() for a in arrays]


# ---------------------------------------------------------------------- seeds and threads


def test_a_game_depends_on_its_seed_alone_whatever_the_batch() -> None:
    rules = Rules.preset("pyatyorka", 4, partnerships=True)  # lot, last winner, stop tile
    seeds = np.arange(64) * 7 + 3
    big = VectorGame(rules, 64, forced_actions="auto")
    big.reset(seeds)
    prng_big = policy_rng(seeds)
    small = [VectorGame(rules, 1, forced_actions="auto") for _ in (5, 40)]
    for vg, i in zip(small, (5, 40), strict=True):
        vg.reset(seeds[i : i + 1])
    prng_small = [policy_rng(seeds[i : i + 1]) for i in (5, 40)]
    for _ in range(400):
        masks = big.masks()
        obs = big.observe()
        acts = big.random_actions(prng_big, masks=masks)
        for vg, p, i in zip(small, prng_small, (5, 40), strict=True):
            assert np.array_equal(vg.observe()[0], obs[i])
            assert np.array_equal(vg.masks()[0], masks[i])
            assert vg.random_actions(p)[0] == acts[i]
        rewards, terminated, truncated = big.step(acts)
        for vg, i in zip(small, (5, 40), strict=True):
            r, te, tr = vg.step(acts[i : i + 1])
            assert np.array_equal(r[0], rewards[i]) and te[0] == terminated[i]
            assert vg.deal(0) == big.deal(i)
            if te[0] or tr[0]:
                vg.reset_games([0])
        done = np.flatnonzero(terminated | truncated)
        if done.size:
            big.reset_games(done)
    assert big.hand_number[5] > 1 or big.hand_number[40] > 1


def test_one_seed_gives_game_i_the_same_deal_whatever_the_batch() -> None:
    rules = Rules.preset("pagat", 3)
    a, b = VectorGame(rules, 8), VectorGame(rules, 64)
    a.reset(11)
    b.reset(11)
    assert [a.deal(i) for i in range(8)] == [b.deal(i) for i in range(8)]
    assert len({b.deal(i) for i in range(64)}) == 64


def test_thread_count_changes_nothing() -> None:
    rules = Rules.preset("five_up", 4)
    before = get_num_threads()
    try:
        results = []
        for threads in (1, min(2, before) if before > 1 else 1):
            set_num_threads(threads)
            vg = VectorGame(rules, 128, action_features=True, episode="hand", reward="points+win")
            vg.reset(5)
            results.append(run(vg, 120, 6))
    finally:
        set_num_threads(before)
    assert all(np.array_equal(x, y) for x, y in zip(*results, strict=True))


# ---------------------------------------------------------------------- refused input


@pytest.fixture
def vg() -> VectorGame:
    g = VectorGame(Rules.preset("pagat", 2), 6, episode="hand", forced_actions="auto")
    g.reset(3)
    run(g, 5, 1)
    return g


def test_an_illegal_action_names_the_game_and_changes_no_game(vg: VectorGame) -> None:
    acts = vg.greedy_actions()
    legal = vg.legal_actions(4)
    bad = next(a for a in range(vg.num_actions) if a not in legal)
    acts[4] = bad
    acts[5] = bad if bad not in vg.legal_actions(5) else acts[5]
    before = snapshot(vg)
    with pytest.raises(VectorActionError) as err:
        vg.step(acts)
    e = err.value
    assert isinstance(e, IllegalActionError) and isinstance(e, ValueError)
    assert e.game == 4 and e.action == bad and list(e.legal) == legal
    assert "game 4" in str(e) and str(bad) in str(e) and "no game was stepped" in str(e)
    assert all(np.array_equal(x, y) for x, y in zip(before, snapshot(vg), strict=True))


@pytest.mark.parametrize("value", [-2, 10**6, 28 * 4 + 2])
def test_an_action_out_of_range_is_refused(vg: VectorGame, value: int) -> None:
    acts = vg.greedy_actions()
    acts[0] = value
    before = snapshot(vg)
    with pytest.raises(VectorActionError, match="game 0"):
        vg.step(acts)
    assert all(np.array_equal(x, y) for x, y in zip(before, snapshot(vg), strict=True))


@pytest.mark.parametrize(
    "actions",
    [
        np.zeros(5, np.int64),
        np.zeros((6, 1), np.int64),
        np.zeros(6),
        np.zeros(6, bool),
        np.full(6, 2**64 - 1, np.uint64),  # would wrap to -1, "leave the game"
        "x",
    ],
)
def test_a_malformed_action_array_is_refused(vg: VectorGame, actions: object) -> None:
    before = snapshot(vg)
    with pytest.raises(ActionArrayError):
        vg.step(actions)  # type: ignore[arg-type]
    assert all(np.array_equal(x, y) for x, y in zip(before, snapshot(vg), strict=True))


def test_a_done_game_must_be_reset_or_skipped() -> None:
    vg = VectorGame(Rules.preset("five_up", 2), 3, episode="hand")
    vg.reset(1)
    while not vg.done[1]:
        acts = vg.greedy_actions()
        acts[vg.done] = -1
        vg.step(acts)
    acts = vg.greedy_actions()
    assert acts[1] == -1 and vg.current_player[1] == -1 and not vg.masks()[1].any()
    acts[1] = 0
    before = snapshot(vg)
    with pytest.raises(VectorActionError, match="game 1 is done"):
        vg.step(acts)
    assert all(np.array_equal(x, y) for x, y in zip(before, snapshot(vg), strict=True))
    acts[1] = -1
    acts[vg.done] = -1
    rewards, terminated, _ = vg.step(acts)  # -1 leaves a game as it is
    assert terminated[1] and not rewards[1].any()
    vg.reset_games([1])
    assert not vg.done[1] and vg.hand_number[1] == 1


def test_bad_arguments_are_refused() -> None:
    rules = Rules.preset("pagat", 2)
    fresh = VectorGame(rules, 2)
    with pytest.raises(ResetRequiredError):
        fresh.observe()
    with pytest.raises(VectorConfigError):
        fresh.reset([1, -1])
    with pytest.raises(VectorConfigError):
        fresh.reset([1, 2, 3])
    with pytest.raises(VectorConfigError):
        fresh.reset(-1)
    fresh.reset([1, 2])
    with pytest.raises(VectorConfigError):
        fresh.reset_games([0, 0])
    with pytest.raises(VectorConfigError):
        fresh.reset_games([2])
    with pytest.raises(VectorConfigError):
        fresh.observe_seat([0, 2])
    with pytest.raises(VectorConfigError):
        fresh.record(0)
    with pytest.raises(VectorConfigError):
        fresh.observe(out=np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError):
        VectorGame(rules, 2, reward="wins")
    with pytest.raises(ValueError, match="action_features must be"):
        VectorGame(rules, 2, action_features="outlooks")


BAD_SEEDS = [
    2**64,
    -1,
    np.int64(-3),
    2.5,
    True,
    np.True_,
    "7",
    None,
    b"\x01",
]
BAD_SEED_LISTS = [
    [1, 2, 3],  # one too many
    [1],
    [2**64, 1],
    [1, -1],
    [True, False],
    [1.5, 2],
    ["1", "2"],
    [None, 1],
    np.array([1, 2, 3]),
    np.array([1.0, 2.0]),
    np.array([[1, 2]]),
    np.array([-1, 1]),
    np.array([True, False]),
    np.array(["1", "2"]),
    {1, 2},
    "12",
]


@pytest.mark.parametrize("seeds", BAD_SEEDS + BAD_SEED_LISTS, ids=repr)
def test_a_bad_seed_is_one_typed_error_naming_it_and_changes_no_game(seeds: object) -> None:
    """``reset``, ``reset_games``, ``policy_rng`` and ``derive_seeds`` take the environments'
    seeds (ints from 0 to 2**64 - 1), one or a list; anything else is a ``VectorConfigError``
    that names the call, never an ``OverflowError`` or a seed read some other way."""
    from allfives_env.vector.rng import derive_seeds

    vg = VectorGame(Rules.preset("pagat", 2), 2)
    vg.reset(5)
    before = snapshot(vg)
    with pytest.raises(VectorConfigError, match=r"^reset: .*seed"):
        vg.reset(seeds)  # type: ignore[arg-type]
    if seeds is not None and not isinstance(seeds, int | np.integer):  # (None: their own)
        with pytest.raises(VectorConfigError, match=r"^reset_games: .*seed"):
            vg.reset_games([0, 1], seeds)  # type: ignore[arg-type]
    assert all(np.array_equal(x, y) for x, y in zip(before, snapshot(vg), strict=True))
    with pytest.raises(VectorConfigError, match=r"^policy_rng: .*seed"):
        policy_rng(seeds, 2)  # type: ignore[arg-type]
    if not isinstance(seeds, list | np.ndarray | set | str):
        with pytest.raises(VectorConfigError, match=r"^derive_seeds: .*seed"):
            derive_seeds(seeds, 2)  # type: ignore[arg-type]


def test_every_seed_from_0_to_2_to_the_64_is_taken_in_every_form() -> None:
    vg = VectorGame(Rules.preset("pagat", 2), 2)
    for seeds in (0, 2**64 - 1, np.uint64(2**64 - 1), [0, 2**64 - 1], np.array([3, 4]),
                  np.array([2**64 - 1, 0], np.uint64), (7, 8), range(2)):  # fmt: skip
        vg.reset(seeds)  # type: ignore[arg-type]
        vg.reset_games([1], [2**64 - 1])
    assert np.array_equal(policy_rng([3, 4]), policy_rng(np.array([3, 4], np.uint64)))
    assert np.array_equal(policy_rng(7, 3), policy_rng(np.int64(7), 3))
    for bad in (-1, 2.0, True, "3"):
        with pytest.raises(VectorConfigError, match="num_games"):
            policy_rng(7, bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("index", [-1, 6, True, 1.0, "0", None, np.int64(-2)], ids=repr)
def test_a_game_index_that_is_no_game_is_refused_by_every_method_that_takes_one(
    vg: VectorGame, index: object
) -> None:
    """A negative index does not count from the end (that would be another game, silently)."""
    recording = VectorGame(Rules.preset("pagat", 2), 6, record=True)
    recording.reset(1)
    calls = {
        "legal_actions": vg.legal_actions,
        "deal": vg.deal,
        "game": vg.game,
        "view": vg.view,
        "hand_actions": vg.hand_actions,
        "describe": vg.describe,
        "record": recording.record,
    }
    before = snapshot(vg)
    for name, call in calls.items():
        with pytest.raises(VectorConfigError, match=f"^{name}: game index must be in 0-5"):
            call(index)
    assert vg.legal_actions(np.int64(5)) == vg.legal_actions(5)
    assert all(np.array_equal(x, y) for x, y in zip(before, snapshot(vg), strict=True))


# ---------------------------------------------------------------------- policies


@pytest.mark.parametrize("preset", PRESETS)
def test_compiled_greedy_picks_what_the_greedy_agent_picks(preset: str) -> None:
    agent = GreedyAgent()
    rng = random.Random(0)
    compared = 0
    for _, n, partners in (t for t in TABLES if t[0] == preset):
        rules = Rules.preset(preset, n, partnerships=partners)
        enc = Encoding(rules)
        vg = VectorGame(rules, 16, episode="hand")
        vg.reset(n * 10 + partners)
        games = [vg.game(i) for i in range(16)]
        prng = policy_rng(n, 16)
        for step in range(60):
            greedy = vg.greedy_actions()
            for i, g in enumerate(games):
                seat = g.current_player
                assert seat is not None
                want = agent.act(g.view(seat), rng)
                assert greedy[i] == enc.to_env[want], (vg.describe(i), g.legal_actions())
                compared += 1
            acts = vg.random_actions(prng) if step % 2 else greedy
            _, terminated, _ = vg.step(acts)
            for i, g in enumerate(games):
                g.apply(enc.to_engine[acts[i]])
            for i in np.flatnonzero(terminated):
                vg.reset_games([i])
                games[i] = vg.game(i)
    assert compared == 60 * 16 * 4  # positions: 4 tables, 16 games, 60 steps


def test_views_come_from_the_core_game_of_the_position() -> None:
    rules = Rules.preset("dominoes_cc", 3)
    vg = VectorGame(rules, 4, forced_actions="auto")
    vg.reset(8)
    run(vg, 30, 9)
    enc = Encoding(rules)
    for i in range(4):
        view = vg.view(i)
        assert view.seat == vg.current_player[i] and view.scores == tuple(vg.scores[i])
        assert [enc.to_env[a] for a in view.legal_actions] == vg.legal_actions(i)
        assert np.array_equal(enc.observe_view(view), vg.observe()[i])
        other = (view.seat + 1) % 3
        assert np.array_equal(enc.observe_view(vg.view(i, other)), vg.observe_seat([other] * 4)[i])


def test_random_actions_are_uniform_over_the_mask() -> None:
    vg = VectorGame(Rules.preset("pagat", 2), 1)
    vg.reset([9])
    legal = vg.legal_actions(0)
    counts = dict.fromkeys(legal, 0)
    prng = policy_rng([4])
    for _ in range(4000):
        counts[int(vg.random_actions(prng)[0])] += 1
    expected = 4000 / len(legal)
    assert all(abs(c - expected) < 0.25 * expected for c in counts.values()), counts


# ---------------------------------------------------------------------- records


def test_records_replay_through_the_core_and_the_command_line(tmp_path: Path) -> None:
    command = shutil.which("allfives", path=str(Path(sys.executable).parent))
    base = [command] if command else [sys.executable, "-m", "allfives_env"]
    for c, preset in enumerate(PRESETS):
        rules = Rules.preset(preset, 2 + c % 3, partnerships=c % 2 == 0)
        vg = VectorGame(rules, 8, record=True, forced_actions=("explicit", "auto")[c % 2])
        vg.reset(c)
        prng = policy_rng(c, 8)
        while not vg.done.any():
            acts = vg.greedy_actions() if c % 2 else vg.random_actions(prng)
            vg.step(acts)
        i = int(np.flatnonzero(vg.done)[0])
        record = vg.record(i)
        result = replay(record)
        assert result.scores == tuple(vg.scores[i])
        assert result.winners == tuple(np.flatnonzero(vg.winners[i]))
        assert len(record.hands) == vg.hand_number[i]
        path = tmp_path / f"{preset}.json"
        save_record(record, path)
        out = subprocess.run([*base, "replay", str(path)], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout) == result.to_json()
        # a record mid-match, of a game still live, replays too
        live = int(np.flatnonzero(~vg.done)[0])
        g = replay(vg.record(live)).game
        assert isinstance(g, Game) and g.scores == tuple(vg.scores[live])


@pytest.mark.parametrize(("preset", "n", "partners"), TABLES)
def test_matches_begun_at_given_scores_play_as_the_core_game_does(
    preset: str, n: int, partners: bool
) -> None:
    """``reset`` and ``reset_games`` with ``scores``: each game plays on, bit for bit, as a core
    ``Game`` dealt the same hand from the same scores (observations, scores, the match's end
    and its winners)."""
    rules = Rules.preset(preset, n, partnerships=partners)
    k, num = rules.num_sides, 6
    vg = VectorGame(rules, num, episode="match", action_features="lookahead")
    enc = Encoding(rules, action_features="lookahead")
    rng = np.random.default_rng(7)
    near = rules.target - 1 - rng.integers(0, 40 // rules.unit, (num, k))
    vg.reset(3, scores=near)
    games = [Game(rules, deal=vg.deal(i), scores=[int(x) for x in near[i]]) for i in range(num)]
    assert np.array_equal(vg.scores, near)
    prng = policy_rng(5, num)
    ended = np.zeros(num, bool)
    restarted = False
    for _ in range(400):
        obs = vg.observe()
        for i, g in enumerate(games):
            if not ended[i]:
                assert np.array_equal(obs[i], enc.observe(g, g.current_player or 0)), i
        actions = vg.random_actions(prng)
        actions[ended] = -1
        _, terminated, _ = vg.step(actions)
        for i, g in enumerate(games):
            if ended[i]:
                continue
            g.apply(vg.encoding.to_engine[int(actions[i])])
            if g.is_hand_over and not g.is_match_over:
                g.deal(deal=vg.deal(i))
            assert vg.scores[i].tolist() == list(g.scores)
            assert bool(terminated[i]) == g.is_match_over
            if g.is_match_over:
                assert vg.winners[i].tolist() == [s in (g.winners or ()) for s in range(k)]
                ended[i] = True
        if ended.all() and not restarted:  # again, from other scores, on games 0 and 2
            later = rules.target - 1 - rng.integers(0, 60 // rules.unit, (2, k))
            vg.reset_games([0, 2], scores=later)
            for j, i in enumerate((0, 2)):
                games[i] = Game(rules, deal=vg.deal(i), scores=[int(x) for x in later[j]])
            ended[[0, 2]] = False
            restarted = True
        elif ended.all():
            break
    assert restarted and ended.all()


def test_bad_start_scores_are_refused_and_change_nothing() -> None:
    rules = Rules.preset("five_up", 2)
    vg = VectorGame(rules, 3)
    vg.reset(1)
    before = vg.observe().copy()
    for bad in ([[0, 0]] * 2, [[61, 0]] * 3, [[0, 0, 0]] * 3, "high", [[True, 0]] * 3,
                [[float("nan"), 0]] * 3):  # fmt: skip
        with pytest.raises(VectorConfigError, match="scores"):
            vg.reset(2, scores=bad)
        with pytest.raises(VectorConfigError, match="scores"):
            vg.reset_games([0, 1, 2], scores=bad)
    assert np.array_equal(vg.observe(), before)


def test_each_column_constant_is_its_own_row_of_the_one_table() -> None:
    """``st``'s columns are made one line each (name, size, meaning): the constants and
    ``COLUMNS`` are one truth, back to back, the layout's last."""
    from allfives_env.vector import state

    at = 0
    for name, (start, size, meaning) in state.COLUMNS.items():
        assert getattr(state, name) == start == at and size >= 1 and meaning, name
        at += size
    assert at == state.WIDTH == state.LAYOUT_END
    assert state.LAYOUT_START == state.COUNT and state.COLUMNS["PIPS_COL"][0] == state.PIPS_COL
