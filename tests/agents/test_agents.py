"""Agents: legal play in every preset, determinism, the world sampler, the registry."""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections import Counter

import pytest
from conftest import scripted_deal, with_hidden_tiles_reshuffled
from hypothesis import given, settings
from hypothesis import strategies as st

from agents import (
    Agent,
    GreedyAgent,
    HeuristicAgent,
    RandomAgent,
    SearchAgent,
    UnknownAgentError,
    known_agents,
    make_agent,
    sample_world,
)
from agents.heuristic import WIN
from agents.sampler import allowed_masks
from allfives_env import PRESETS, Game, Layout, Phase, PlayerView, Rules, Tile, leader_choice
from allfives_env.core.actions import DRAW_ID
from allfives_env.core.tiles import VALUES_MASK, mask_of
from allfives_env.envs.outlook import Position, reply_outlook, reply_risk


def all_agents() -> list[Agent]:
    return [RandomAgent(), GreedyAgent(), HeuristicAgent(), SearchAgent(sims=2)]


def positions(preset: str, n: int, seed: int, moves: int) -> list[Game]:
    """Copies of a randomly played match after each of its first ``moves`` actions."""
    rng = random.Random(seed)
    game = Game(Rules.preset(preset, n), rng)
    out: list[Game] = []
    while len(out) < moves and not game.is_match_over:
        if game.is_hand_over:
            game.deal(rng)
            continue
        out.append(game.clone())
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    return out


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("n", [2, 3, 4])
def test_agents_play_only_legal_actions(preset: str, n: int) -> None:
    rng = random.Random(f"legal {preset} {n}")
    game = Game(Rules.preset(preset, n), rng)
    agents = all_agents()
    seats = [agents[(s + n) % len(agents)] for s in range(n)]  # a different mix per count
    moves = 0
    while not game.is_match_over and moves < 160:
        if game.is_hand_over:
            game.deal(rng)
            continue
        seat = game.current_player
        assert seat is not None
        view = game.view(seat)
        for agent in agents:  # every agent answers every position
            action = agent.act(view, random.Random(moves))
            assert action in view.legal_actions, (agent.name, action, view.legal_actions)
            if agent.name in ("greedy", "heuristic") and view.legal_actions[0] < DRAW_ID:
                assert action < DRAW_ID  # never draws by choice (five_up's draw-when-able)
        game.apply(seats[seat].act(view, rng))
        moves += 1


@pytest.mark.parametrize("agent", all_agents(), ids=lambda a: a.name)
def test_agents_are_deterministic_under_a_seed(agent: Agent) -> None:
    for game in positions("pagat", 4, seed=7, moves=30)[::3]:
        view = game.view(game.current_player or 0)
        if not view.legal_actions:
            continue
        first = agent.act(view, random.Random(11))
        assert all(agent.act(view, random.Random(11)) == first for _ in range(2))


@pytest.mark.parametrize("agent", all_agents(), ids=lambda a: a.name)
def test_agents_do_not_see_hidden_tiles(agent: Agent) -> None:
    rng = random.Random(3)
    for game in positions("five_up", 3, seed=5, moves=24)[1::4]:
        seat = game.current_player
        assert seat is not None
        other = with_hidden_tiles_reshuffled(game, seat, rng)
        a, b = game.view(seat), other.view(seat)
        assert a == b
        assert agent.act(a, random.Random(1)) == agent.act(b, random.Random(1))


def test_search_returns_a_forced_action_at_once() -> None:
    for game in positions("pagat", 2, seed=1, moves=60):
        view = game.view(game.current_player or 0)
        if len(view.legal_actions) == 1:
            rng = random.Random(0)
            state = rng.getstate()
            assert SearchAgent(sims=50).act(view, rng) == view.legal_actions[0]
            assert rng.getstate() == state  # nothing was simulated
            return
    pytest.fail("no forced position found")


def test_exact_target_takes_the_winning_score_not_the_larger_one() -> None:
    # five_up: side 0 has 60 of 61. Leading 5-0 (count 5 = 1) wins; 5-5 or 6-4 (count 10 = 2)
    # would pass 61 and score nothing. Greedy takes the larger count; the others must not.
    hands = [["5-5", "6-4", "0-5", "1-2", "2-4"], ["0-0", "1-1", "2-2", "3-3", "4-4"]]
    rules = Rules.preset("five_up", 2)
    game = Game(rules, deal=scripted_deal(rules, hands), scores=[60, 0])
    assert game.scores == (60, 0)
    view = game.view(0)
    assert str(GreedyAgent().act(view, random.Random(0))) in ("5-5 W", "4-6 W")
    for agent in (HeuristicAgent(), SearchAgent(sims=8)):
        assert str(agent.act(view, random.Random(0))) == "0-5 W", agent.name


@pytest.mark.parametrize(
    ("void", "threat_is_zero", "stuck_is_sure"),
    [(None, False, False), (5, True, True), (0, True, False)],
)
def test_the_threat_counts_only_tiles_the_opponent_may_hold(
    void: int | None, threat_is_zero: bool, stuck_is_sure: bool
) -> None:
    # 5-5 led (count 10): only 0-5 scores in reply (10); 1-5 … 6-5 make 11 … 16.
    layout = Layout()
    layout.lead(Tile.parse("5-5"))
    unseen = ((1 << 28) - 1) & ~layout.on_table
    voids = 0 if void is None else 1 << void
    pos = Position(Rules.preset("pagat", 2), 0, 0, layout, (0, 9), (0, 0), (0, voids), unseen)
    threat, stuck = reply_outlook(pos, layout, 1, WIN)
    assert (threat == 0) == threat_is_zero
    assert (stuck == 1) == stuck_is_sure


@pytest.mark.parametrize(
    ("score", "size", "void", "wins", "out"),
    [
        (245, 9, None, 9 / 27, 0.0),  # any score wins: only 0-5 scores, held with q = 9/27
        (0, 9, None, 0.0, 0.0),  # 10 points win nothing
        (245, 9, 0, 0.0, 0.0),  # he lacks 0s: not 0-5
        (245, 1, None, 1 / 27, 1 - (26 / 27) ** 6),  # one tile: it goes out if it has a 5
        (245, 1, 5, 0.0, 0.0),  # ... and he has none
    ],
)
def test_the_reply_risk_counts_winning_and_last_tiles_he_may_hold(
    score: int, size: int, void: int | None, wins: float, out: float
) -> None:
    # 5-5 led (count 10): 0-5 scores 10 in reply; 1-5 … 6-5 (six tiles with a 5 fit) score 0.
    layout = Layout()
    layout.lead(Tile.parse("5-5"))
    unseen = ((1 << 28) - 1) & ~layout.on_table
    voids = 0 if void is None else 1 << void
    rules = Rules.preset("pagat", 2)
    pos = Position(rules, 0, 0, layout, (0, size), (0, score), (0, voids), unseen)
    assert reply_risk(pos, layout, 1) == pytest.approx((wins, out), abs=1e-12)


# ------------------------------------------------------------------ the world sampler


def check_world(view: PlayerView, hands: dict[int, list[int]], boneyard: list[int]) -> None:
    """``hands`` and ``boneyard`` agree with everything ``view`` shows."""
    n = view.rules.num_players
    assert sorted(hands) == [s for s in range(n) if s != view.seat]
    dealt = [t for h in hands.values() for t in h] + list(boneyard)
    assert len(dealt) == len(set(dealt))
    assert mask_of(dealt) == view.unseen_mask
    assert len(boneyard) == view.boneyard_size
    for s, h in hands.items():
        assert len(h) == view.hand_sizes[s]
        assert not mask_of(h) & VALUES_MASK[view.known_voids[s]], (s, h, view.known_voids)
    if view.phase == Phase.LEAD and view.required_lead is not None:
        assert view.required_lead in (
            view.hand if view.current_player == view.seat else hands[view.current_player or 0]
        )
    if view.rules.leader == "highest_double" and view.events:  # nobody held a better lead
        lead = view.events[0].action >> 4
        drew = {e.seat for e in view.events if e.action == DRAW_ID}
        for s, h in hands.items():
            for t in h if s not in drew else ():
                assert leader_choice(view.rules, None, [[lead], [t]]).tile == lead, (s, t)
    world = Game.from_view(view, hands, boneyard)
    seen = world.view(view.seat)
    assert seen.hand == view.hand
    assert seen.layout == view.layout
    assert seen.hand_sizes == view.hand_sizes
    assert seen.known_voids == view.known_voids
    assert seen.legal_actions == view.legal_actions
    assert seen.scores == view.scores
    for s, h in hands.items():
        assert world.hand_mask(s) == mask_of(h)


@settings(max_examples=120, deadline=None)
@given(
    preset=st.sampled_from(PRESETS),
    n=st.sampled_from([2, 3, 4]),
    seed=st.integers(0, 10**6),
    moves=st.integers(0, 80),
    seat=st.integers(0, 3),
    tries=st.sampled_from([0, 6]),
)
def test_sampled_worlds_agree_with_the_view(
    preset: str, n: int, seed: int, moves: int, seat: int, tries: int
) -> None:
    games = positions(preset, n, seed, moves + 1)
    view = games[-1].view(seat % n)
    rng = random.Random(seed)
    for _ in range(3):
        hands, boneyard = sample_world(view, rng, tries=tries)
        check_world(view, {s: list(h) for s, h in hands.items()}, list(boneyard))


def test_the_sampler_reads_only_the_view() -> None:
    rng = random.Random(9)
    checked = 0
    for preset, n in itertools.product(PRESETS, [2, 3, 4]):
        for game in positions(preset, n, seed=checked, moves=50)[5::9]:
            for seat in range(n):
                if seat == game.current_player and game.phase == Phase.DRAWN:
                    continue
                other = with_hidden_tiles_reshuffled(game, seat, rng)
                assert mask_of(game.hand(seat)) == mask_of(other.hand(seat))
                a, b = game.view(seat), other.view(seat)
                for tries in (0, 6):
                    assert sample_world(a, random.Random(4), tries=tries) == sample_world(
                        b, random.Random(4), tries=tries
                    )
                checked += 1
    assert checked > 100


def consistent_worlds(view: PlayerView, cap: int) -> set[tuple[frozenset[int], ...]]:
    """Every consistent world by its hands (other seats in order), or ``cap`` + 1 of them."""
    allowed = allowed_masks(view)
    others = sorted(allowed)
    worlds: set[tuple[frozenset[int], ...]] = set()

    def deal(i: int, left: frozenset[int], got: tuple[frozenset[int], ...]) -> None:
        if i == len(others):
            worlds.add(got)
            return
        ok = sorted(t for t in left if allowed[others[i]] >> t & 1)
        for h in itertools.combinations(ok, view.hand_sizes[others[i]]):
            if len(worlds) > cap:
                return
            deal(i + 1, left - set(h), (*got, frozenset(h)))

    deal(0, frozenset(t for t in range(28) if view.unseen_mask >> t & 1), ())
    return worlds


def constrained_view() -> tuple[PlayerView, set[tuple[frozenset[int], ...]]]:
    """A 4-player view in which two other seats have known voids, with few worlds."""
    for seed in range(300):
        for game in positions("pagat", 4, seed, 60):
            view = game.view(0)
            allowed = allowed_masks(view)
            voided = [s for s in allowed if allowed[s] != view.unseen_mask and view.hand_sizes[s]]
            if len(voided) >= 2 and view.unseen_mask.bit_count() <= 10:
                worlds = consistent_worlds(view, 200)
                if 10 <= len(worlds) <= 200:
                    return view, worlds
    raise AssertionError("no constrained position found")


def test_the_exact_method_is_uniform() -> None:
    view, worlds = constrained_view()
    rng = random.Random(0)
    per_world = 30
    seen: Counter[tuple[frozenset[int], ...]] = Counter(
        tuple(
            frozenset(map(int, h)) for _, h in sorted(sample_world(view, rng, tries=0)[0].items())
        )
        for _ in range(per_world * len(worlds))
    )
    assert set(seen) == worlds
    chi2 = sum((seen[w] - per_world) ** 2 / per_world for w in worlds)
    dof = len(worlds) - 1
    assert chi2 < dof + 5 * (2 * dof) ** 0.5  # a uniform draw; about 5 sigma of slack


def test_a_contradictory_view_is_refused() -> None:
    view, _ = constrained_view()
    everything = (1 << 7) - 1
    bad = dataclasses.replace(view, known_voids=(0, everything, everything, everything))
    with pytest.raises(ValueError, match="no deal"):
        sample_world(bad, random.Random(0))


# ------------------------------------------------------------------ the registry


def test_the_registry_builds_the_new_agents() -> None:
    assert {"heuristic", "search"} <= set(known_agents())
    assert isinstance(make_agent("heuristic"), HeuristicAgent)
    agent = make_agent("search:sims=5")
    assert isinstance(agent, SearchAgent) and agent.sims == 5 and agent.time is None
    agent = make_agent("search:sims=7,time=0.5,rollout=heuristic")
    assert isinstance(agent, SearchAgent)
    assert (agent.sims, agent.time, agent.rollout) == (7, 0.5, "heuristic")


@pytest.mark.parametrize(
    "spec",
    ["search:depth=3", "search:sims=0", "search:sims=2.5", "search:time=-1",
     "search:rollout=fast", "heuristic:sims=3"],
)  # fmt: skip
def test_the_registry_rejects_bad_parameters(spec: str) -> None:
    with pytest.raises(UnknownAgentError):
        make_agent(spec)


def test_a_time_budget_stops_the_search() -> None:
    game = positions("pagat", 2, seed=2, moves=3)[-1]
    view = game.view(game.current_player or 0)
    assert len(view.legal_actions) > 1
    action = SearchAgent(sims=10**6, time=0.05).act(view, random.Random(0))
    assert action in view.legal_actions


@pytest.mark.parametrize(
    ("feature", "tile", "preset", "features"),
    [((), False, "five_up", "outlook"), ((16,), False, "five_up", "outlook"),
     ((16,), True, "five_up", "outlook"), ((), True, "pagat", "outlook"),
     ((16,), False, "five_up", "lookahead"), ((16,), True, "pagat", "lookahead")],
)  # fmt: skip
def test_the_numpy_scorer_computes_what_the_torch_network_does(
    feature: tuple[int, ...], tile: bool, preset: str, features: str
) -> None:
    """Checkpoints play the network in NumPy: its legal logits equal the trained module's,
    with and without the tile features and the lookahead block, on 4 slots and 16; the layout
    reads back from its weights file."""
    pytest.importorskip("torch")
    import numpy as np
    import torch as th

    from agents.numpy_networks import ScorerLayout, policy_from_npz
    from agents.training.torch_networks import ScorerNet
    from allfives_env.vector import VectorGame

    vg = VectorGame(Rules.preset(preset, 4), 32, action_features=features)
    vg.reset(seeds=2)
    for _ in range(9):
        vg.step(vg.greedy_actions())
        vg.reset_games(np.flatnonzero(vg.done))
    obs, masks = vg.observe().copy(), vg.masks() > 0
    th.manual_seed(0)
    layout = ScorerLayout.of(vg.encoding, tile)
    assert (layout.slots >= 0) == tile and (layout.lookahead >= 0) == (features == "lookahead")
    assert ScorerLayout.from_array(layout.to_array()) == layout
    net = ScorerNet(layout, [32, 32], [16], 8, 0, feature)
    with th.no_grad():
        want = net.logits(th.from_numpy(obs), th.from_numpy(masks)).numpy()
    policy = policy_from_npz(net.to_numpy().to_npz())
    got = policy.logits(obs)
    assert np.allclose(got[masks], want[masks], atol=1e-5)
    assert (want[~masks] == -1e9).all()


def test_a_fused_checkpoint_of_earlier_versions_still_plays() -> None:
    """allfives 0.11–0.14 trained ``fused_features`` networks (the trunk's output also enters
    the per-placement network's first layer): their checkpoints still read, pass the weights'
    check and play what the fuse layer says."""
    import dataclasses

    import numpy as np

    from agents.numpy_networks import ScorerLayout, ScorerPolicy, check_weights, policy_from_npz
    from allfives_env.envs.spaces import Encoding

    rng = np.random.default_rng(0)
    enc = Encoding(Rules.preset("pagat", 2), "outlook")
    layout = ScorerLayout.of(enc, False)

    def layer(n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
        return rng.normal(size=(n, m)).astype(np.float32), np.zeros(n, np.float32)

    plain = ScorerPolicy(
        layout, [layer(16, layout.global_size)], layer(8, 16),
        [layer(8, layout.feature_size)], layer(enc.num_actions, 16),
    )  # fmt: skip
    fused = policy_from_npz(dataclasses.replace(plain, fuse=layer(8, 16)).to_npz())
    assert isinstance(fused, ScorerPolicy) and fused.fuse is not None
    check_weights(fused, enc.obs_size, enc.num_actions)
    obs = rng.random((3, enc.obs_size)).astype(np.float32)
    assert not np.allclose(fused.logits(obs), plain.logits(obs))


@pytest.mark.parametrize("preset", ["pagat", "five_up"])
def test_tile_features_say_which_tile_goes_where(preset: str) -> None:
    """Each legal placement's tile features: the tile's pips, the pips it leaves open on its
    slot (what the layout shows there once it is placed; both halves on the lead), the slot,
    and that slot's observation entries."""
    import numpy as np

    from agents.numpy_networks import TILE_PIPS, ScorerLayout
    from allfives_env.core.actions import Action
    from allfives_env.envs.blocks import SLOT_FEATURES
    from allfives_env.envs.spaces import Encoding

    rules = Rules.preset(preset, 2)
    enc = Encoding(rules, "outlook")
    layout = ScorerLayout.of(enc, tile_features=True)
    s = layout.num_slots
    assert s == rules.num_slots and layout.feature_size == 2 + 12 + 7 + 7 + s + SLOT_FEATURES
    checked = leads = 0
    for seed in range(4):
        for game in positions(preset, 2, seed, 80):
            if game.current_player is None:
                continue
            view = game.view(game.current_player)
            x = enc.observe_view(view)
            feats = layout.features(x)
            for a in view.legal_actions:
                tile, slot = Action(a).tile, Action(a).slot
                if tile is None or slot is None:
                    continue
                f = feats[enc.to_env[a]][-(7 + 7 + s + SLOT_FEATURES) :]
                pips, opened, hot, entries = np.split(f, [7, 14, 14 + s])
                assert (pips == TILE_PIPS[tile]).all()
                assert (hot == np.eye(s)[slot]).all()
                start = layout.slots + slot * SLOT_FEATURES
                assert (entries == x[start : start + SLOT_FEATURES]).all()
                if view.layout.is_empty:
                    leads += 1
                    assert (opened == TILE_PIPS[tile]).all()
                else:
                    after = view.layout.clone()
                    after.place(tile, slot)
                    assert (opened == np.eye(7)[after.value[slot]]).all()
                checked += 1
    assert checked >= 200 and leads > 0


@pytest.mark.parametrize("preset", ["pagat", "pyatyorka", "dominoes_cc"])
def test_hoarding_changes_nothing_where_drawing_while_able_is_not_allowed(preset: str) -> None:
    for g in positions(preset, 2, 31, 40):
        seat = g.current_player
        assert seat is not None
        view = g.view(seat)
        assert HeuristicAgent(hoard=True).act(view, random.Random(0)) == HeuristicAgent().act(
            view, random.Random(0)
        )
        plain = SearchAgent(sims=3).evaluate(view, random.Random(5))
        assert SearchAgent(sims=3, hoard=True).evaluate(view, random.Random(5)) == plain


def test_the_hoarding_heuristic_draws_the_boneyard_dry_then_places() -> None:
    # five_up: seat 0 leads 5-5; seat 1 may place 0-5 or draw (drawing while able is allowed)
    hands = [["5-5", "6-4", "1-2", "2-4", "3-3"], ["0-5", "1-1", "2-2", "0-0", "4-4"]]
    rules = Rules.preset("five_up", 2)
    game = Game(rules, deal=scripted_deal(rules, hands))
    game.apply(next(a for a in game.legal_actions() if str(a).startswith("5-5")))
    assert game.current_player == 1 and game.boneyard_size == 18
    hoarder = HeuristicAgent(hoard=True)
    assert str(HeuristicAgent().act(game.view(1), random.Random(0))) != "draw"
    while game.boneyard_size:
        legal = game.legal_actions()
        assert any(a == DRAW_ID for a in legal) and any(a < DRAW_ID for a in legal)
        action = hoarder.act(game.view(1), random.Random(0))
        assert action == DRAW_ID
        game.apply(action)
        assert game.current_player == 1
    assert len(game.view(1).hand) == 23
    assert hoarder.act(game.view(1), random.Random(0)) < DRAW_ID  # nothing left to draw


def test_the_hoarding_heuristic_places_a_decisive_tile() -> None:
    # as above, but 0-5 on the 5-5 spinner scores 2 and side 1 has 59 of 61: it wins at once
    hands = [["5-5", "6-4", "1-2", "2-4", "3-3"], ["0-5", "1-1", "2-2", "0-0", "4-4"]]
    rules = Rules.preset("five_up", 2)
    game = Game(rules, deal=scripted_deal(rules, hands), scores=[0, 59])
    game.apply(next(a for a in game.legal_actions() if str(a).startswith("5-5")))
    action = HeuristicAgent(hoard=True).act(game.view(1), random.Random(0))
    assert str(action).startswith("0-5")
    game.apply(action)
    assert game.is_match_over and game.winners == (1,)


def test_hoarding_rollouts_draw_where_the_rules_allow_it() -> None:
    from agents.search import greedy_step, hoarding_greedy_step

    hands = [["5-5", "6-4", "1-2", "2-4", "3-3"], ["0-5", "1-1", "2-2", "0-0", "4-4"]]
    rules = Rules.preset("five_up", 2)
    game = Game(rules, deal=scripted_deal(rules, hands))
    game.apply(next(a for a in game.legal_actions() if str(a).startswith("5-5")))
    assert greedy_step(game, random.Random(0)) < DRAW_ID
    assert hoarding_greedy_step(game, random.Random(0)) == DRAW_ID
    # the search weighs DRAW among its candidates, with or without hoarding rollouts
    view = game.view(1)
    assert len(SearchAgent(sims=2, hoard=True).evaluate(view, random.Random(0))) == len(
        view.legal_actions
    )


@pytest.mark.parametrize("spec", ["heuristic:hoard=1", "search:hoard=yes"])
def test_hoard_must_be_true_or_false(spec: str) -> None:
    with pytest.raises(UnknownAgentError, match="hoard must be true or false"):
        make_agent(spec)
