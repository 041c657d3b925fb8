"""The batched engine against the core, step by step: one truth for the rules.

For every preset and table (2, 3, 4 in partnerships, 4 each for himself) a batch of games is
stepped with seeded random legal actions (and greedy ones in some games), and every step is
replayed through a real :class:`~allfives_env.envs.aec.raw_env` per game, dealt the vector
game's own deals (its first hand through ``reset(options={"deal": ...})``, later hands through a
scripted ``random.Random`` whose shuffle and lot produce the vector game's next deal). At every
step the acting seat's observation, the mask, the state (every few steps), the observation of
another seat (now and then), rewards, scores, hand ends and awards, winners, terminations and
truncations must agree bit for bit. Finished episodes' records replay to the same result. The
smaller sets (double-two to double-five) are stepped the same way, with every family of action
features.

The settings (episode, forced actions, reward, action features, max_cycles, record) rotate over
the 20 tables so that each value is met several times.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

from allfives_env.core.deal import Deal
from allfives_env.core.records import replay
from allfives_env.core.rules import PRESETS, Rules
from allfives_env.core.tiles import TILES
from allfives_env.envs.aec import raw_env
from allfives_env.envs.spaces import Encoding
from allfives_env.vector import VectorGame, policy_rng
from allfives_env.vector.state import HAND_ENDS

NUM_GAMES = 24
STEPS = 2_100  # per table: 24 games x 2,100 steps = 50,400 compared steps

TABLES = [(p, n, partners) for p in PRESETS for n, partners in ((2, 1), (3, 1), (4, 1), (4, 0))]
assert NUM_GAMES * STEPS >= 50_000  # per preset and table

#: rules off the presets: every field's other values in the kernels' paths
OVERRIDES: list[tuple[str, int, bool, dict[str, Any]]] = [
    ("spruce", 3, True, {"exact_target": True, "target": 40, "unit": 5, "draw_when_able": True}),
    ("pagat", 4, False, {"leader": "highest_double", "spinners": "every", "stop_tiles": 2}),
    ("dominoes_cc", 2, True, {"hand_size": 3, "leader": "last_winner", "award": "net_fives"}),
    ("five_up", 4, True, {"leader": "last_winner", "award": "round_once", "exact_target": False}),
    ("pyatyorka", 4, False, {"hand_size": 1, "award": "pairwise_fives", "target": 30}),
]


def settings(c: int) -> dict[str, Any]:
    """The engine settings of table ``c``: the values rotate at different periods."""
    return {
        "episode": ("match", "hand")[c % 2],
        "forced_actions": ("explicit", "auto")[c // 2 % 2],
        "reward": ("win", "points", "points+win")[c % 3],
        "action_features": c % 4 == 1,
        "max_cycles": 40 if c % 5 == 3 else 10_000,
    }


class ScriptedRandom(random.Random):
    """A ``random.Random`` for ``random_deal`` that deals :attr:`next_deal`: its shuffle lays
    out the hands then the boneyard, and its lot picks the deal's leader."""

    def __init__(self, num_players: int):
        super().__init__(0)
        self.num_players = num_players
        self.next_deal: Deal | None = None

    def shuffle(self, x: Any) -> None:  # type: ignore[override]
        d = self.next_deal
        assert d is not None
        x[:] = [TILES[int(t)] for h in d.hands for t in h] + [TILES[int(t)] for t in d.boneyard]

    def randrange(self, n: int, *args: Any, **kwargs: Any) -> int:  # type: ignore[override]
        d = self.next_deal
        assert d is not None and d.leader is not None
        # lot among everyone (seats 0..n-1), or among a partnership's seats (w, w + 2)
        return d.leader if n == self.num_players else d.leader // 2


def bits(a: np.ndarray) -> np.ndarray:
    """A float32 array's bit patterns (so -0.0 and 0.0 differ)."""
    return np.ascontiguousarray(a, np.float32).view(np.uint32)


def check_finished(vg: VectorGame, e: raw_env, i: int) -> None:
    """A finished episode: its record replays to the reference game's result, and
    :meth:`VectorGame.game` stands where the reference does."""
    ref = e.game
    assert ref is not None
    g = vg.game(i)
    assert g.scores == ref.scores and g.winners == ref.winners
    assert g.hand_results == ref.hand_results
    result = replay(vg.record(i))
    assert result.scores == ref.scores and result.winners == ref.winners
    assert list(result.hands) == ref.hand_results


@pytest.mark.parametrize(
    "c", range(len(TABLES)), ids=[f"{p}-{n}p{'' if t else '-solo'}" for p, n, t in TABLES]
)
def test_vector_steps_like_raw_env(c: int) -> None:
    preset, n, partners = TABLES[c]
    steps_like_raw_env(Rules.preset(preset, n, partnerships=bool(partners)), c, STEPS, c % 3 == 0)


@pytest.mark.parametrize("k", range(len(OVERRIDES)), ids=[o[0] for o in OVERRIDES])
def test_vector_steps_like_raw_env_off_the_presets(k: int) -> None:
    preset, n, partners, fields = OVERRIDES[k]
    rules = Rules.preset(preset, n, partnerships=partners, **fields)
    steps_like_raw_env(rules, 7 * k + 1, 100, False)  # records hold preset rules only


#: (preset, players, partnerships, max_pip, hand_size, action features)
SMALL: list[tuple[str, int, bool, int, int, str]] = [
    ("pagat", 2, True, 2, 2, "outlook"),
    ("dominoes_cc", 2, True, 3, 4, "lookahead"),
    ("five_up", 3, True, 4, 4, "basic"),
    ("pyatyorka", 4, True, 5, 4, "outlook"),
    ("spruce", 4, False, 3, 2, "none"),
    ("pagat", 3, True, 5, 5, "lookahead"),
]


def small_rules(k: int) -> tuple[Rules, str]:
    preset, n, partners, max_pip, hand, features = SMALL[k]
    rules = Rules.preset(preset, n, partnerships=partners, max_pip=max_pip, hand_size=hand)
    return rules, features


@pytest.mark.parametrize("k", range(len(SMALL)), ids=[f"{s[0]}-{s[1]}p-d{s[3]}" for s in SMALL])
def test_vector_steps_like_raw_env_on_small_sets(k: int) -> None:
    rules, features = small_rules(k)
    overrides: dict[str, Any] = {"action_features": features}
    steps_like_raw_env(rules, 11 * k + 3, 200, k % 2 == 0, overrides)


def test_small_set_arrays_shrink_with_the_set() -> None:
    rules, _ = small_rules(1)  # double-three: 10 tiles
    vg = VectorGame(rules, 4)
    vg.reset(3)
    enc = Encoding(rules)
    assert vg.num_actions == enc.num_actions == 10 * rules.num_slots + 2
    assert vg.observe().shape == (4, enc.obs_size)
    assert vg.masks().shape == (4, enc.num_actions)
    for i in range(4):
        deal = vg.deal(i)
        dealt = [t for h in deal.hands for t in h] + list(deal.boneyard)
        assert sorted(dealt) == sorted(rules.tiles)


def steps_like_raw_env(
    rules: Rules, c: int, steps: int, record: bool, overrides: dict[str, Any] | None = None
) -> None:
    """Step a batch under ``rules`` and the settings of table ``c`` (with ``overrides``),
    comparing each step."""
    n = rules.num_players
    kw = settings(c) | (overrides or {})
    vg = VectorGame(rules, NUM_GAMES, record=record, **kw)
    vg.reset(np.arange(NUM_GAMES) + 1000 * c)
    enc = Encoding(rules, kw["action_features"])
    envs: list[raw_env] = []
    for i in range(NUM_GAMES):
        e = raw_env(rules=rules, **kw)
        e.reset(options={"deal": vg.deal(i)})
        e._rng = ScriptedRandom(n)
        envs.append(e)
    prng = policy_rng(c, NUM_GAMES)
    next_seed = 10_000 * (c + 1)
    stepped = ended_hands = finished = 0
    for step in range(steps):
        obs, masks, cur = vg.observe(), vg.masks(), vg.current_player
        state = vg.state() if step % 3 == 0 else None
        other = (cur + 1 + step % (n - 1)) % n
        others = vg.observe_seat(other) if step % 7 == 0 else None
        for i, e in enumerate(envs):
            agent = e.agent_selection
            assert e.possible_agents[cur[i]] == agent, vg.describe(i)
            seen = e.observe(agent)
            assert np.array_equal(seen["action_mask"], masks[i]), vg.describe(i)
            assert np.array_equal(bits(seen["observation"]), bits(obs[i])), vg.describe(i)
            if state is not None:
                assert np.array_equal(bits(e.state()), bits(state[i])), vg.describe(i)
            if others is not None:
                seen = e.observe(e.possible_agents[other[i]])
                assert np.array_equal(bits(seen["observation"]), bits(others[i]))
        if step % 50 == 25:  # the core game of the vector game's position
            g = vg.game(step % NUM_GAMES)
            seat = g.current_player
            assert seat is not None
            assert np.array_equal(bits(enc.observe(g, seat)), bits(obs[step % NUM_GAMES]))
        actions = vg.random_actions(prng, masks=masks)
        greedy = vg.greedy_actions()
        actions[::3] = greedy[::3]
        results_before = [len(e.game.hand_results) for e in envs]  # type: ignore[union-attr]
        rewards, terminated, truncated = vg.step(actions)
        stepped += NUM_GAMES
        hand_end, award, winner = vg.hand_end, vg.hand_award, vg.hand_winner
        scores, winners = vg.scores, vg.winners
        for i, e in enumerate(envs):
            e._rng.next_deal = vg.deal(i)  # type: ignore[attr-defined]
            e.step(int(actions[i]))
            ref = e.game
            assert ref is not None
            want = np.array([e.rewards[a] for a in e.possible_agents], np.float32)
            assert np.array_equal(bits(want), bits(rewards[i])), (vg.describe(i), want, rewards[i])
            assert tuple(scores[i]) == ref.scores, vg.describe(i)
            results = ref.hand_results
            if hand_end[i]:
                assert len(results) == results_before[i] + 1, vg.describe(i)
                last = results[-1]
                assert HAND_ENDS[hand_end[i]] == last.end.value
                assert tuple(award[i]) == last.award
                assert (None if winner[i] < 0 else winner[i]) == last.winner
                ended_hands += 1
            else:
                assert len(results) == results_before[i], vg.describe(i)
            want_winners = ref.winners or ()
            assert tuple(np.flatnonzero(winners[i])) == tuple(want_winners)
            assert all(e.terminations.values()) == terminated[i], vg.describe(i)
            assert all(e.truncations.values()) == truncated[i], vg.describe(i)
            if terminated[i] or truncated[i]:
                finished += 1
                if record:
                    check_finished(vg, e, i)
                next_seed += 1
                vg.reset_games([i], [next_seed])
                e.reset(options={"deal": vg.deal(i)})
    assert stepped == NUM_GAMES * steps
    assert ended_hands > 0 and finished > 0
