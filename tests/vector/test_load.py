"""``VectorGame.load``: a core game's position, set into the batch, plays on exactly as the core.

Positions are taken from seeded random games under every preset and table, and from worlds
sampled from a seat's view (:meth:`Game.from_view`, as a search builds them). Each is loaded
into a game of the batch, and both are then played to the hand's end with the same random legal
actions: at every step the acting seat's observation (outlook features included), the mask, the
global state, the scores and the hand's end must agree bit for bit, and ``VectorGame.game``
must stand where the core game does.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("numba")

from agents.sampler import sample_world
from allfives_env.core.game import Game
from allfives_env.core.rules import Rules
from allfives_env.envs.spaces import Encoding
from allfives_env.vector import VectorGame
from allfives_env.vector.errors import VectorConfigError
from tests.vector_mirror import IDS, TABLES


def positions(rules: Rules, seed: int, count: int) -> list[Game]:
    """``count`` positions in play: random games stopped at random points, half of them
    replaced by a world sampled from the acting seat's view."""
    rng = random.Random(seed)
    out: list[Game] = []
    while len(out) < count:
        g = Game(rules, rng)
        stop = rng.randrange(40)
        for _ in range(stop):
            if g.is_hand_over:
                break
            g.apply(rng.choice(g.legal_actions()))
        if g.is_hand_over:
            continue
        if rng.random() < 0.5:
            view = g.view(g.current_player)  # type: ignore[arg-type]
            hands, bone = sample_world(view, rng)
            g = Game.from_view(view, hands, bone)
        out.append(g)
    return out


def same_step(vg: VectorGame, i: int, g: Game, enc: Encoding) -> None:
    seat = g.current_player
    assert seat is not None and int(vg.current_player[i]) == seat
    obs = vg.observe()[i]
    assert (obs.view(np.uint32) == enc.observe(g, seat).view(np.uint32)).all()
    assert (vg.masks()[i] == enc.mask(g, seat)).all()
    assert (vg.state()[i].view(np.uint32) == enc.state(g).view(np.uint32)).all()
    assert tuple(vg.scores[i, : g.rules.num_sides]) == pytest.approx(g.scores)


@pytest.mark.parametrize("c", range(len(TABLES)), ids=IDS)
def test_loaded_positions_play_on_like_the_core(c: int) -> None:
    preset, n, partners = TABLES[c]
    rules = Rules.preset(preset, n, partnerships=bool(partners))
    enc = Encoding(rules, "outlook")
    vg = VectorGame(rules, 3, episode="hand", action_features="outlook")
    vg.reset(c)
    rng = random.Random(100 + c)
    for k, g in enumerate(positions(rules, c, 30)):
        i = k % 3
        vg.load(i, g)
        assert not vg.hand_start[i].any()  # every position is in a match's first hand
        g = g.clone()
        while True:
            same_step(vg, i, g, enc)
            a = rng.choice(np.flatnonzero(enc.mask(g, g.current_player)).tolist())  # type: ignore[arg-type]
            acts = np.full(3, -1, np.int64)
            acts[i] = a
            _, terminated, _ = vg.step(acts)
            g.apply(enc.to_engine[a])
            if g.is_hand_over:
                assert terminated[i]
                break
            assert not terminated[i]
            assert vg.game(i).render() == g.render()
        assert tuple(vg.scores[i, : rules.num_sides]) == pytest.approx(g.scores)
        assert vg.game(i).hand_results == g.hand_results
        assert vg.game(i).winners == g.winners


def test_load_refuses_what_it_cannot_hold() -> None:
    rules = Rules.preset("pagat", 2)
    vg = VectorGame(rules, 2)
    with pytest.raises(Exception, match="reset"):
        vg.load(0, Game(rules, random.Random(1)))
    vg.reset(0)
    before = vg.st.copy()
    with pytest.raises(VectorConfigError, match="index"):
        vg.load(2, Game(rules, random.Random(1)))
    with pytest.raises(VectorConfigError, match="core Game"):
        vg.load(0, "game")  # type: ignore[arg-type]
    with pytest.raises(VectorConfigError, match="played under"):
        vg.load(0, Game(Rules.preset("five_up", 2), random.Random(1)))
    over = Game(rules, random.Random(1))
    while not over.is_hand_over:
        over.apply(over.legal_actions()[0])
    with pytest.raises(VectorConfigError, match="hand is over"):
        vg.load(0, over)
    rec = VectorGame(rules, 1, record=True)
    rec.reset(0)
    with pytest.raises(VectorConfigError, match="record"):
        rec.load(0, Game(rules, random.Random(1)))
    assert (vg.st == before).all()


def test_loaded_game_is_a_copy_and_reset_forgets_it() -> None:
    rules = Rules.preset("pagat", 2)
    vg = VectorGame(rules, 1)
    vg.reset(0)
    g = Game(rules, random.Random(5))
    g.apply(g.legal_actions()[0])
    snapshot = repr(g), g.view(g.current_player)  # type: ignore[arg-type]
    vg.load(0, g)
    vg.step(vg.greedy_actions())
    assert (repr(g), g.view(g.current_player)) == snapshot  # type: ignore[arg-type]
    assert vg.deal(0) == g.hand_log[-1].deal
    vg.reset_games([0], [9])
    fresh = VectorGame(rules, 1)
    fresh.reset([9])
    assert vg.deal(0) == fresh.deal(0)


def test_copies_play_on_like_their_source() -> None:
    rules = Rules.preset("spruce", 3)
    vg = VectorGame(rules, 4, episode="hand")
    vg.reset(1)
    g = positions(rules, 4, 1)[0]
    vg.load(0, g)
    vg.copy_games(0, [1, 3])
    assert (vg.observe()[1] == vg.observe()[0]).all() and (vg.st[3] == vg.st[0]).all()
    for _ in range(200):
        if vg.done[[0, 1, 3]].all():
            break
        acts = vg.greedy_actions()
        acts[2] = -1
        vg.step(acts)
    assert (vg.st[1] == vg.st[0]).all() and (vg.scores[3] == vg.scores[0]).all()
    assert vg.game(3).render() == vg.game(0).render()
    before = vg.st.copy()
    for args, message in [
        ((0, [0, 1]), "also a source"),
        ((4, [1]), "out of range"),
        ((0, [5]), "out of range"),
        ((0, [1, 1]), "repeated"),
        (([0, 1], [2]), "one source per target"),
        ((0, [[1]]), "must be ints"),
        (("0", [1]), "must be ints"),
        ((True, [1]), "must be ints"),
    ]:
        with pytest.raises(VectorConfigError, match=message):
            vg.copy_games(*args)  # type: ignore[arg-type]
    assert (vg.st == before).all()


@pytest.mark.parametrize("c", range(0, len(TABLES), 3), ids=IDS[::3])
def test_a_redealt_world_is_the_world_loaded(c: int) -> None:
    """A world loaded, copied and redealt as another world of the same view is, row for row,
    that other world loaded; and it plays on as the core does."""
    from agents.sampler import sample_world
    from allfives_env.core.tiles import mask_of

    preset, n, partners = TABLES[c]
    rules = Rules.preset(preset, n, partnerships=bool(partners))
    vg = VectorGame(rules, 3, episode="hand")
    vg.reset(c)
    rng = random.Random(c)
    for g in positions(rules, 300 + c, 6):
        seat = g.current_player
        assert seat is not None
        view = g.view(seat)
        worlds = [sample_world(view, rng) for _ in range(2)]
        games = [Game.from_view(view, hands, bone) for hands, bone in worlds]
        vg.load(0, games[0])
        vg.load(2, games[1])
        vg.copy_games(0, [1])
        hands, bone = worlds[1]
        masks = [[mask_of(view.hand if s == seat else hands[s]) for s in range(n)]]
        vg.redeal([1], np.array(masks), np.array([bone], np.int64).reshape(1, len(bone)))
        assert (vg.st[1] == vg.st[2]).all()
        assert vg.deal(1) == games[1].hand_log[-1].deal
        world = games[1].clone()
        while not world.is_hand_over:
            acts = np.full(3, -1, np.int64)
            acts[1] = vg.encoding.to_env[world.legal_actions()[-1]]
            vg.step(acts)
            world.apply(world.legal_actions()[-1])
            assert vg.game(1).render() == world.render()
        assert tuple(vg.scores[1]) == pytest.approx(world.scores)


def test_redeal_refuses_what_is_not_a_world() -> None:
    from allfives_env.core.tiles import mask_of

    rules = Rules.preset("pagat", 2)
    vg = VectorGame(rules, 2, episode="hand")
    vg.reset(0)
    g = positions(rules, 1, 1)[0]
    seat = g.current_player
    assert seat is not None
    vg.load(0, g)
    hands = np.array([[g.hand_mask(s) for s in range(2)]], np.int64)
    bone = np.array([[int(t) for t in g.boneyard]], np.int64)
    before = vg.st.copy()
    other = 1 - seat
    swapped = hands.copy()
    swapped[0, other] = mask_of(g.boneyard[: g.hand_sizes[other]])
    swapped_bone = np.array(
        [[int(t) for t in g.hand(other)] + [int(t) for t in g.boneyard][g.hand_sizes[other] :]]
    )
    moved = hands.copy()
    moved[0, seat] = hands[0, other]
    for args, message in [
        (([1], hands, bone), "just set by load"),
        (([0], hands[:, :1], bone), "rows of 2 tile masks"),
        (([0], hands, bone[:, 1:]), "length"),
        (([0], moved, bone), "stay his own"),
        (([0], swapped, bone), "tiles off the table"),
        (([0], hands, np.full_like(bone, 99)), "not a tile"),
        (([0, 0], np.repeat(hands, 2, axis=0), np.repeat(bone, 2, axis=0)), "repeated"),
    ]:
        with pytest.raises(VectorConfigError, match=message):
            vg.redeal(*args)
    assert (vg.st == before).all()
    if g.hand_sizes[other] <= len(g.boneyard):
        vg.redeal([0], swapped, swapped_bone)  # the hidden tiles exchanged: a world still
    vg.step(vg.greedy_actions() * np.array([1, 0]) - np.array([0, 1]))
    with pytest.raises(VectorConfigError, match="just set by load"):
        vg.redeal([0], hands, bone)
