"""The environments on a set smaller than double-six (``Rules.max_pip`` 2 to 5): PettingZoo's
and Gymnasium's own checks, action and observation sizes that shrink with the set, masks that
are the engine's legal actions, observations decoded back to the game, and nothing hidden shown.

A set of T tiles indexes its tile blocks and placement ids by a tile's rank in the set; value
one-hots have N + 1 entries; what the double-six layout divides by 28 is divided by T
(:mod:`allfives_env.envs.blocks`). The double-six arrays are pinned elsewhere (tests/envs,
and to the batched engine in tests/vector).
"""

from __future__ import annotations

import contextlib
import io
import random
from typing import Any

import numpy as np
import pytest
from conftest import with_hidden_tiles_reshuffled
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, seed_test

from allfives_env import AllFivesSingleAgentEnv, Game, Rules, env, parallel_env, raw_env
from allfives_env.core.tiles import SET_MASK, set_size, set_tiles, tiles_of
from allfives_env.envs.blocks import (
    LOOKAHEAD_SIZE,
    OUTLOOK_SIZE,
    SLOT_FEATURES,
    observation_blocks,
    offsets,
    spaces_markdown,
    tile_indices,
)
from allfives_env.envs.features import COUNT_NORM
from allfives_env.envs.outlook import Position, outlook
from allfives_env.envs.spaces import Encoding

SMALL = [
    # (preset, players, partnerships, max_pip, hand_size)
    ("pagat", 2, True, 2, 2),
    ("five_up", 2, True, 2, 3),
    ("pagat", 3, True, 3, 2),
    ("spruce", 2, True, 3, 4),
    ("dominoes_cc", 4, False, 3, 2),
    ("pyatyorka", 3, True, 4, 3),
    ("five_up", 4, True, 4, 3),
    ("pagat", 4, True, 5, 4),
    ("pyatyorka", 2, True, 5, 6),
]
IDS = [f"{p}-{n}p-double{m}-hand{h}" for p, n, _, m, h in SMALL]


def small_rules(preset: str, n: int, partnerships: bool, max_pip: int, hand: int) -> Rules:
    return Rules.preset(preset, n, partnerships=partnerships, max_pip=max_pip, hand_size=hand)


def expected_sizes(rules: Rules, features: bool | str = False) -> tuple[int, int, int]:
    """``(num_actions, obs_size, state_size)`` from the layout's formula, worked out by hand."""
    n, k, s = rules.num_players, rules.num_sides, rules.num_slots
    t, v = set_size(rules.max_pip), rules.max_pip + 1
    slots = (v + 5) * s
    tail = 1 + 5 + n + 2 + k + v * n + 3 + n + 1 + n  # count … leader
    obs = t + t + t * n + t + slots + tail
    if features is not False:
        obs += 2 * t * s
    if features in ("outlook", "lookahead"):
        obs += t * s * OUTLOOK_SIZE
    if features == "lookahead":
        obs += t * s * LOOKAHEAD_SIZE
    state = t * n + t + t + t + t * n + t + slots + tail
    return t * s + 2, obs, state


def masked_random(e: Any, rng: random.Random) -> int | None:
    obs, _, term, trunc, _ = e.last()
    if term or trunc:
        return None
    legal = np.flatnonzero(obs["action_mask"])
    return int(legal[rng.randrange(len(legal))])


# ------------------------------------------------------------------ PettingZoo and Gymnasium


@pytest.mark.parametrize(("preset", "n", "partnerships", "max_pip", "hand"), SMALL, ids=IDS)
def test_pettingzoo_api_seed_and_parallel_on_a_small_set(
    preset: str, n: int, partnerships: bool, max_pip: int, hand: int
) -> None:
    rules = small_rules(preset, n, partnerships, max_pip, hand)
    api_test(env(rules=rules), num_cycles=150)
    api_test(env(rules=rules, action_features="lookahead", forced_actions="auto"), num_cycles=60)
    seed_test(lambda **kw: env(rules=rules, **kw), num_cycles=100)
    parallel_api_test(parallel_env(rules=rules), 150)


@pytest.mark.parametrize(("preset", "n", "partnerships", "max_pip", "hand"), SMALL[::2])
def test_gymnasium_check_env_on_a_small_set(
    preset: str, n: int, partnerships: bool, max_pip: int, hand: int
) -> None:
    rules = small_rules(preset, n, partnerships, max_pip, hand)
    e = AllFivesSingleAgentEnv(rules=rules, opponents="heuristic")
    check_env(e, skip_render_check=True)
    assert e.observation_space.shape == (Encoding(rules).obs_size,)
    _, info = e.reset(seed=1)
    rng = random.Random(1)
    for _ in range(200):
        legal = np.flatnonzero(info["action_mask"])
        _, _, term, trunc, info = e.step(int(legal[rng.randrange(len(legal))]))
        if term or trunc:
            break


# ------------------------------------------------------------------ ids and sizes


@pytest.mark.parametrize("max_pip", range(2, 7))
@pytest.mark.parametrize("preset", ["pagat", "five_up"])
def test_ids_and_sizes_shrink_with_the_set(max_pip: int, preset: str) -> None:
    for n, hand in ((2, 2), (3, 1), (4, 1)):
        rules = Rules.preset(preset, n, max_pip=max_pip, hand_size=hand)
        tiles = set_tiles(max_pip)
        for features in (False, True, "outlook", "lookahead"):
            enc = Encoding(rules, features)
            assert (enc.num_actions, enc.obs_size, enc.state_size) == expected_sizes(
                rules, features
            )
            assert sum(b.size for b in enc.blocks) == enc.obs_size
        s = rules.num_slots
        assert enc.num_tiles == len(tiles) and enc.index_tile == tuple(map(int, tiles))
        assert enc.tile_index == tile_indices(max_pip)
        assert [enc.tile_index[t] for t in enc.index_tile] == list(range(len(tiles)))
        assert all(enc.tile_index[t] == -1 for t in range(28) if not SET_MASK[max_pip] >> t & 1)
        assert (enc.draw, enc.pass_) == (len(tiles) * s, len(tiles) * s + 1)
        for a in range(enc.num_actions):
            assert enc.to_env[enc.to_engine[a]] == a
        for i, t in enumerate(tiles):
            for slot in range(s):
                assert enc.to_engine[i * s + slot] == t * 16 + slot
                assert enc.action_name(i * s + slot).startswith(str(t))
        e = raw_env(rules=rules, action_features="lookahead")
        obs_space = e.observation_space("player_0")
        assert obs_space["observation"].shape == (enc.obs_size,)
        assert obs_space["action_mask"].shape == (enc.num_actions,)
        assert e.action_space("player_0").n == enc.num_actions


def test_the_full_set_keeps_its_sizes() -> None:
    """The formula gives double-six's documented sizes: 114 actions and 222 entries for pagat
    with 2 players, the tables of docs/spaces.md."""
    rules = Rules.preset("pagat", 2)
    enc = Encoding(rules)
    assert (enc.num_actions, enc.obs_size) == (114, 222) == expected_sizes(rules)[:2]
    assert enc.state_size == expected_sizes(rules)[2]
    assert enc.tile_index == tuple(range(28)) == enc.index_tile
    assert SLOT_FEATURES == enc.slot_features == 12
    assert observation_blocks(2, 2, 4) == observation_blocks(2, 2, 4, False, 6)


def test_the_documentation_notes_the_smaller_sets() -> None:
    doc = spaces_markdown()
    assert "A smaller set (`Rules.max_pip` N = 2 to 5" in doc
    assert "`rank * S + s`, DRAW `T * S`, PASS" in doc


# ------------------------------------------------------------------ masks and observations


def decode(enc: Encoding, obs: np.ndarray, name: str, rows: int = 1) -> list[int]:
    """The tiles (ids) set in block ``name`` (row by row when ``rows`` > 1: a list of masks)."""
    a, b = enc.block_range(name)
    t = enc.num_tiles
    assert b - a == t * rows
    out = []
    for r in range(rows):
        out.append(
            sum(1 << enc.index_tile[i] for i in np.flatnonzero(obs[a + r * t : a + r * t + t]))
        )
    return out


def check_observation(enc: Encoding, game: Game, seat: int, obs: np.ndarray) -> None:
    """Every block of ``seat``'s observation says what the game says, by rank and by the set's
    divisors (T, N + 1)."""
    rules = game.rules
    n, t, v = rules.num_players, enc.num_tiles, rules.max_pip + 1
    seats = [(seat + r) % n for r in range(n)]
    assert decode(enc, obs, "hand") == [game.hand_mask(seat)]
    assert decode(enc, obs, "table") == [game.layout.on_table]
    assert decode(enc, obs, "played_by", n) == [game.played_masks[s] for s in seats]
    mine = game.current_player == seat and game.drawn_tile is not None
    assert decode(enc, obs, "drawn") == [1 << game.drawn_tile if mine else 0]  # type: ignore[operator]
    a, _ = enc.block_range("slots")
    sf = enc.slot_features
    assert sf == v + 5
    for slot in range(enc.num_slots):
        row = obs[a + slot * sf : a + slot * sf + sf]
        value = game.layout.value[slot]
        assert row[0] == (value >= 0)
        one_hot = [0.0] * v
        if value >= 0:
            one_hot[value] = 1.0
        assert list(row[1 : 1 + v]) == one_hot
    a, _ = enc.block_range("hand_sizes")
    assert list(obs[a : a + n]) == pytest.approx([game.hand_sizes[s] / t for s in seats])
    a, _ = enc.block_range("boneyard_size")
    assert obs[a] == pytest.approx(game.boneyard_size / t)
    a, _ = enc.block_range("voids")
    for r, s in enumerate(seats):
        bits = game.void_sets[s]
        assert bits < 1 << v  # a void is known only in a value of the set
        assert list(obs[a + r * v : a + r * v + v]) == [float(bits >> x & 1) for x in range(v)]
    a, _ = enc.block_range("draws_this_turn")
    draws = game.draws_this_turn if game.current_player is not None else 0
    assert obs[a] == pytest.approx(draws / t)


def check_state(enc: Encoding, game: Game) -> None:
    """The state's hands and boneyard blocks, by rank, and the boneyard's order / T."""
    n, t = game.rules.num_players, enc.num_tiles
    state = enc.state(game)
    assert state.shape == (enc.state_size,)
    sizes = {b.name: b.size for b in enc.state_blocks_}
    starts = offsets(enc.state_blocks_)
    assert sizes["hands"] == t * n and sizes["boneyard"] == sizes["boneyard_order"] == t
    a = starts["hands"]
    for s in range(n):
        got = sum(1 << enc.index_tile[i] for i in np.flatnonzero(state[a + s * t : a + s * t + t]))
        assert got == game.hand_mask(s)
    a, o = starts["boneyard"], starts["boneyard_order"]
    for place, tile in enumerate(game.boneyard):
        rank = enc.tile_index[tile]
        assert state[a + rank] == 1.0 and state[o + rank] == pytest.approx((place + 1) / t)
    assert state[a : a + t].sum() == len(game.boneyard)


@pytest.mark.parametrize(("preset", "n", "partnerships", "max_pip", "hand"), SMALL, ids=IDS)
@pytest.mark.parametrize("forced", ["explicit", "auto"])
def test_masks_are_the_engines_legal_actions_and_observations_the_game(
    preset: str, n: int, partnerships: bool, max_pip: int, hand: int, forced: str
) -> None:
    rules = small_rules(preset, n, partnerships, max_pip, hand)
    e = raw_env(rules=rules, forced_actions=forced, episode="match", action_features="outlook")
    e.reset(seed=max_pip)
    rng = random.Random(n)
    enc = e.encoding
    low, high = enc.observation_bounds()
    checked = 0
    for _ in range(300):
        if not e.agents:
            break
        obs, _, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        game = e.game
        seat = game.current_player
        mask = obs["action_mask"]
        assert mask.shape == (enc.num_actions,)
        assert {enc.to_engine[a] for a in np.flatnonzero(mask)} == set(game.legal_actions())
        assert np.array_equal(info["action_mask"], mask)
        for other in range(n):
            if other != seat:
                assert not enc.mask(game, other).any()
            view = enc.observe(game, other)
            assert ((low <= view) & (view <= high)).all()
            check_observation(enc, game, other, view)
        check_state(enc, game)
        assert e.state_space.contains(e.state())
        checked += 1
        e.step(masked_random(e, rng))
    assert checked > 20


@pytest.mark.parametrize(("preset", "n", "partnerships", "max_pip", "hand"), SMALL[1::2])
def test_action_features_sit_at_the_placements_ids(
    preset: str, n: int, partnerships: bool, max_pip: int, hand: int
) -> None:
    """The per-action blocks are indexed like the action ids (a tile's rank · S + slot): the
    outlook entries of each legal placement are :func:`outlook`'s, and nothing else is set."""
    rules = small_rules(preset, n, partnerships, max_pip, hand)
    enc = Encoding(rules, "lookahead")
    rng = random.Random(max_pip)
    game = Game(rules, rng)
    per = enc.num_tiles * enc.num_slots
    names = ("action_points", "action_replies", "action_outlook", "action_lookahead")
    widths = (1, 1, OUTLOOK_SIZE, LOOKAHEAD_SIZE)
    for _ in range(60):
        if game.is_hand_over:
            game.deal(rng)
            continue
        seat = game.current_player
        assert seat is not None
        obs = enc.observe(game, seat)
        legal = {enc.to_env[a] for a in game.legal_actions() if a < 448}
        rows = {}
        for name, width in zip(names, widths, strict=True):
            a, b = enc.block_range(name)
            rows[name] = obs[a:b].reshape(per, width)
            assert set(np.flatnonzero(rows[name].any(axis=1))) <= legal
        pos = Position.of_game(game, seat)
        outlooks = rows["action_outlook"]
        for a in game.legal_actions():
            if a >= 448:
                continue
            o = outlook(pos, a, COUNT_NORM, COUNT_NORM)
            row = outlooks[enc.to_env[a]]
            assert row[0] == pytest.approx(min(o.now / COUNT_NORM, 1.0))
            assert row[7] == pytest.approx(o.variety / (max_pip + 1))
            assert row[8] == float(o.double)
        legal_list = game.legal_actions()
        game.apply(legal_list[rng.randrange(len(legal_list))])


# ------------------------------------------------------------------ hidden information


def _render_human(e: Any) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        e.render()
    return out.getvalue()


@pytest.mark.parametrize(("preset", "n", "partnerships", "max_pip", "hand"), SMALL, ids=IDS)
def test_an_observation_never_depends_on_hidden_tiles(
    preset: str, n: int, partnerships: bool, max_pip: int, hand: int
) -> None:
    """Every tile a seat cannot see dealt anew among the other hands and the boneyard: its
    observation (with every per-action block), mask and public renders do not change."""
    rules = small_rules(preset, n, partnerships, max_pip, hand)
    rng = random.Random(preset + str(max_pip))
    kw: dict[str, Any] = {"rules": rules, "action_features": "lookahead", "episode": "match"}
    e, twin = raw_env(render_mode="human", **kw), raw_env(render_mode="human", **kw)
    pic = raw_env(rules=rules, render_mode="rgb_array")
    pic_twin = raw_env(rules=rules, render_mode="rgb_array")
    e.reset(seed=3)
    differ = 0
    for step in range(150):
        if not e.agents or e.terminations[e.agent_selection]:
            break
        game = e.game
        for seat, agent in enumerate(e.possible_agents):
            if seat == game.current_player and game.phase.name == "DRAWN":
                continue
            other = with_hidden_tiles_reshuffled(game, seat, rng)
            differ += any(other.hand_mask(s) != game.hand_mask(s) for s in range(n))
            twin.reset(seed=0)
            twin.game = other
            twin._update()
            a, b = e.observe(agent), twin.observe(agent)
            assert np.array_equal(a["observation"], b["observation"])
            assert np.array_equal(a["action_mask"], b["action_mask"])
            assert np.array_equal(e.encoding.observe_view(game.view(seat)), a["observation"])
            assert _render_human(e) == _render_human(twin)
            if step % 25 == 0:
                pic.game, pic_twin.game = game, other
                assert np.array_equal(pic.render(), pic_twin.render())
        e.step(masked_random(e, rng))
    if rules.boneyard_size or n > 2:  # the hidden tiles have somewhere else to go
        assert differ  # the check has teeth: the hidden tiles did move


def test_the_state_sees_every_hand_of_a_small_set() -> None:
    rules = Rules.preset("pagat", 2, max_pip=3, hand_size=3)
    e = raw_env(rules=rules)
    e.reset(seed=5)
    game = e.game
    other = with_hidden_tiles_reshuffled(game, 0, random.Random(1))
    assert tiles_of(other.hand_mask(1)) != tiles_of(game.hand_mask(1))
    enc = e.encoding
    assert np.array_equal(enc.observe(game, 0), enc.observe(other, 0))
    assert not np.array_equal(enc.state(game), enc.state(other))


# ------------------------------------------------------------------ agents


@pytest.mark.parametrize("spec", ["random", "greedy", "heuristic", "search:sims=8"])
def test_agents_that_read_a_view_play_a_small_set(spec: str) -> None:
    from agents.registry import agent_for

    rules = Rules.preset("pagat", 3, max_pip=3, hand_size=2)
    agent = agent_for(spec, rules)
    rng = random.Random(spec)
    for _ in range(3):
        game = Game(rules, rng)
        while not game.is_hand_over:
            seat = game.current_player
            assert seat is not None
            action = agent.act(game.view(seat), rng)
            assert action in game.legal_actions()
            game.apply(action)


def test_what_is_laid_out_for_28_tiles_refuses_a_small_set_in_one_line(tmp_path: Any) -> None:
    """The scorer's tile features and a checkpoint trained on double-six each refuse a smaller
    set in one line (the batched engine and batchsearch play every set: tests/vector,
    tests/agents/test_batch_search.py)."""
    from conftest import fake_checkpoint

    from agents.errors import AgentError
    from agents.numpy_networks import ScorerLayout
    from agents.registry import agent_for
    from allfives_env.core.errors import RulesError

    small = Rules.preset("pagat", 2, max_pip=4, hand_size=4)
    refusals: list[str] = []
    with pytest.raises(RulesError) as info:
        ScorerLayout.of(Encoding(small, True), tile_features=True)
    refusals.append(str(info.value))
    assert ScorerLayout.of(Encoding(small, True)).placements == 15 * 4  # no tile features: any set
    path = tmp_path / "policy.zip"
    fake_checkpoint(path, Rules.preset("pagat", 2))
    with pytest.raises(AgentError) as agent_info:
        agent_for(str(path), small)
    refusals.append(str(agent_info.value))
    for text in refusals:
        assert "\n" not in text
    assert "double-six set only, not the double-4 set" in refusals[0]
    assert "max_pip=4" in refusals[1]
