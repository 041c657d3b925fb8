"""The PettingZoo AEC environment: PettingZoo's own suite, masks, hidden information, rewards."""

from __future__ import annotations

import contextlib
import io
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import scripted_deal, with_hidden_tiles_reshuffled
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test

from allfives_env import (
    PRESETS,
    EnvConfigError,
    IllegalActionError,
    Rules,
    allfives_v0,
    allfives_v1,
    env,
    parallel_env,
    raw_env,
)
from allfives_env.envs.blocks import spaces_markdown
from allfives_env.envs.spaces import Encoding

TABLES = [(p, n, True) for p in PRESETS for n in (2, 3, 4)] + [(p, 4, False) for p in PRESETS]


def _make(preset: str, n: int, partnerships: bool, **kw: Any) -> Any:
    return env(rules=preset, num_players=n, partnerships=partnerships, **kw)


def masked_random(e: Any, rng: random.Random) -> int | None:
    obs, _, term, trunc, _ = e.last()
    if term or trunc:
        return None
    legal = np.flatnonzero(obs["action_mask"])
    return int(legal[rng.randrange(len(legal))])


# ------------------------------------------------------------------ PettingZoo's own tests


@pytest.mark.parametrize(("preset", "n", "partnerships"), TABLES)
def test_pettingzoo_api_seed_and_parallel(preset: str, n: int, partnerships: bool) -> None:
    api_test(_make(preset, n, partnerships), num_cycles=150)
    seed_test(lambda **kw: _make(preset, n, partnerships, **kw), num_cycles=100)
    parallel_api_test(parallel_env(rules=preset, num_players=n, partnerships=partnerships), 150)


@pytest.mark.parametrize("preset", PRESETS)
def test_pettingzoo_render(preset: str, capsys: pytest.CaptureFixture[str]) -> None:
    render_test(lambda **kw: env(rules=preset, num_players=3, **kw))


@pytest.mark.filterwarnings("ignore:.*AllFives-v0 is out of date:DeprecationWarning")
def test_registered_with_pettingzoo_and_gymnasium() -> None:
    import gymnasium
    import pettingzoo

    for version in ("v1", "v0"):
        e = pettingzoo.make("aec", f"allfives/allfives-{version}", num_players=3, rules="five_up")
        e.reset(seed=1)
        assert e.unwrapped.rules == Rules.preset("five_up", 3)
        g = gymnasium.make(f"allfives/AllFives-{version}", rules="pyatyorka")
        obs, info = g.reset(seed=2)
        assert obs.shape == g.observation_space.shape and "action_mask" in info


def test_a_plain_import_registers_gymnasium_cheaply() -> None:
    code = (
        "import sys, allfives_env, gymnasium\n"
        "heavy = [m for m in ('torch', 'pettingzoo', 'agents') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "e = gymnasium.make('allfives/AllFives-v1')\n"
        "obs, info = e.reset(seed=3)\n"
        "from sb3_contrib.common.maskable.utils import get_action_masks\n"
        "assert (get_action_masks(e) == info['action_mask']).all()\n"
        "print('ok')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


def test_sb3_subprocess_vec_env_from_a_main_guarded_script(tmp_path: Path) -> None:
    script = tmp_path / "make_vec.py"
    script.write_text(
        "import allfives_env  # registers allfives/AllFives-v1\n"
        "from sb3_contrib.common.maskable.utils import get_action_masks\n"
        "from stable_baselines3.common.env_util import make_vec_env\n"
        "from stable_baselines3.common.vec_env import SubprocVecEnv\n"
        "if __name__ == '__main__':\n"
        "    venv = make_vec_env('allfives/AllFives-v1', n_envs=2, seed=0,\n"
        "                        vec_env_cls=SubprocVecEnv)\n"
        "    venv.reset()\n"
        "    masks = get_action_masks(venv)\n"
        "    actions = [int(m.nonzero()[0][0]) for m in masks]\n"
        "    venv.step(actions)\n"
        "    venv.close()\n"
        "    print('ok', masks.shape)\n"
    )
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0 and proc.stdout.startswith("ok (2, 114)"), proc.stderr


@pytest.mark.filterwarnings("ignore:.*AllFives-v0 is out of date:DeprecationWarning")
def test_version_0_keeps_its_four_player_default() -> None:
    import gymnasium

    for preset in PRESETS:
        v1 = raw_env(num_players=4, rules=preset).rules
        v0 = allfives_v0.raw_env(num_players=4, rules=preset).rules
        assert v0.partnerships is True and v1 == Rules.preset(preset, 4)
        assert allfives_v0.raw_env(num_players=4, rules=preset, partnerships=False).rules == (
            Rules.preset(preset, 4, partnerships=False)
        )
    g0 = gymnasium.make("allfives/AllFives-v0", num_players=4, rules="pyatyorka")
    g1 = gymnasium.make("allfives/AllFives-v1", num_players=4, rules="pyatyorka")
    assert g0.unwrapped.rules.num_sides == 2 and g1.unwrapped.rules.num_sides == 4


def test_metadata_and_module() -> None:
    assert allfives_v1.raw_env.metadata["name"] == "allfives_v1"
    assert allfives_v0.raw_env.metadata["name"] == "allfives_v0"
    e = raw_env(num_players=4)
    assert e.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
    assert e.action_space("player_0").n == 28 * 4 + 2
    assert raw_env(rules="five_up").action_space("player_0").n == 28 * 16 + 2


# ------------------------------------------------------------------ max_cycles


@pytest.mark.parametrize("max_cycles", [1, 5, 40])
def test_max_cycles_truncates_after_that_many_steps(max_cycles: int) -> None:
    # PettingZoo's max_cycles_test assumes every agent acts once per cycle; a turn-based game
    # does not, so the contract here is: max_cycles actions, then every agent is truncated.
    e = env(num_players=3, max_cycles=max_cycles)
    e.reset(seed=0)
    rng = random.Random(0)
    steps = 0
    for _agent in e.agent_iter():
        action = masked_random(e, rng)
        if action is not None:
            steps += 1
        e.step(action)
    assert steps == max_cycles
    par = parallel_env(num_players=3, max_cycles=max_cycles)
    par.reset(seed=0)
    for _ in range(max_cycles):
        assert par.agents
        actions = {
            a: int(np.flatnonzero(par.aec_env.infos[a]["action_mask"])[0])
            if np.any(par.aec_env.infos[a]["action_mask"])
            else 0
            for a in par.agents
        }
        _, _, terms, truncs, _ = par.step(actions)
    assert all(truncs.values()) and not any(terms.values())


# ------------------------------------------------------------------ masks and legality


@pytest.mark.parametrize(("preset", "n", "partnerships"), TABLES)
@pytest.mark.parametrize("forced", ["explicit", "auto"])
def test_mask_is_exactly_the_engines_legal_actions(
    preset: str, n: int, partnerships: bool, forced: str
) -> None:
    e = raw_env(rules=preset, num_players=n, partnerships=partnerships, forced_actions=forced)
    e.reset(seed=n)
    rng = random.Random(7)
    enc = e.encoding
    for _ in range(400):
        if not e.agents:
            break
        agent = e.agent_selection
        obs, _, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        game = e.game
        legal = {enc.to_env[a] for a in game.legal_actions()}
        assert set(np.flatnonzero(obs["action_mask"])) == legal
        assert np.array_equal(info["action_mask"], obs["action_mask"])
        for other in e.agents:
            if other != agent:
                assert not e.observe(other)["action_mask"].any()
                assert not e.infos[other]["action_mask"].any()
        if forced == "auto":
            assert legal - {enc.draw, enc.pass_}, "auto mode never leaves a forced draw or pass"
        # a few actions outside the mask are refused and change nothing
        before = (repr(game), e.agent_selection, dict(e._cumulative_rewards))
        for bad in rng.sample([a for a in range(enc.num_actions) if a not in legal], 3):
            with pytest.raises(IllegalActionError):
                e.step(bad)
            assert (repr(game), e.agent_selection, dict(e._cumulative_rewards)) == before
        e.step(rng.choice(sorted(legal)))


def test_forced_draw_then_drawn_tile_then_pass() -> None:
    rules = Rules.preset("pagat", 2, hand_size=4)
    hands = [["6-6", "0-0", "0-1", "0-2"], ["2-2", "2-3", "3-3", "3-4"]]
    bone = ["4-4", "1-6", "0-3"]
    deal = scripted_deal(rules, hands, bone)
    e = raw_env(rules=rules)
    e.reset(options={"deal": deal})
    enc = e.encoding

    def mask() -> set[str]:
        return {
            enc.action_name(a) for a in np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
        }

    e.step(enc.to_env[game_action(e, "6-6")])
    assert mask() == {"draw"}
    e.step(enc.draw)  # 4-4: no fit
    assert mask() == {"draw"}
    e.step(enc.draw)  # 1-6 fits: only its placements
    assert mask() == {"1-6 W", "1-6 E"}
    assert e.observe(e.agent_selection)["observation"][enc._o.phase + 2] == 1.0


def game_action(e: Any, text: str) -> int:
    from allfives_env import Action

    return int(Action.parse(text))


def test_only_pass_when_nothing_fits_and_the_boneyard_is_empty() -> None:
    rules = Rules.preset("pagat", 2, hand_size=14)
    hands = [
        [
            "0-0",
            "0-1",
            "0-2",
            "0-3",
            "0-4",
            "0-5",
            "0-6",
            "1-1",
            "1-2",
            "1-3",
            "1-4",
            "1-5",
            "1-6",
            "2-2",
        ],
        [
            "2-3",
            "2-4",
            "2-5",
            "2-6",
            "3-3",
            "3-4",
            "3-5",
            "3-6",
            "4-4",
            "4-5",
            "4-6",
            "5-5",
            "5-6",
            "6-6",
        ],
    ]
    e = raw_env(rules=rules)
    e.reset(options={"deal": scripted_deal(rules, hands)})
    enc = e.encoding
    e.step(enc.to_env[game_action(e, "0-0")])  # seat 1 holds no 0, nothing to draw
    assert set(np.flatnonzero(e.observe("player_1")["action_mask"])) == {enc.pass_}
    e.step(enc.pass_)
    assert e.agent_selection == "player_0"


def test_env_ids_are_seat_independent_and_round_trip() -> None:
    for preset in ("pagat", "five_up"):
        enc = Encoding(Rules.preset(preset, 4))
        for a in range(enc.num_actions):
            assert enc.to_env[enc.to_engine[a]] == a
        assert enc.num_actions == 28 * enc.num_slots + 2


# ------------------------------------------------------------------ hidden information


def _render_human(e: Any) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        e.render()
    return out.getvalue()


@pytest.mark.parametrize(
    ("preset", "n", "features"),
    [
        ("pagat", 2, True),
        ("five_up", 4, True),
        ("pyatyorka", 3, False),
        ("pagat", 4, "outlook"),
        ("dominoes_cc", 3, "outlook"),
        ("five_up", 2, "outlook"),
        ("pagat", 2, "lookahead"),
        ("spruce", 4, "lookahead"),
    ],
)
def test_no_leak_observations_masks_infos_renders(
    preset: str, n: int, features: bool | str
) -> None:
    rng = random.Random(preset)
    e = raw_env(rules=preset, num_players=n, render_mode="human", action_features=features)
    twin = raw_env(rules=preset, num_players=n, render_mode="human", action_features=features)
    pic = raw_env(rules=preset, num_players=n, render_mode="rgb_array")
    pic_twin = raw_env(rules=preset, num_players=n, render_mode="rgb_array")
    e.reset(seed=3)
    for _step in range(120):
        if not e.agents or e.terminations[e.agent_selection]:
            break
        game = e.game
        for seat, agent in enumerate(e.possible_agents):
            if seat == game.current_player and game.phase.name == "DRAWN":
                continue
            other = with_hidden_tiles_reshuffled(game, seat, rng)
            twin.reset(seed=0)
            twin.game = other
            twin._update()
            a, b = e.observe(agent), twin.observe(agent)
            assert np.array_equal(a["observation"], b["observation"])
            assert np.array_equal(a["action_mask"], b["action_mask"])
            assert np.array_equal(e.infos[agent]["action_mask"], twin.infos[agent]["action_mask"])
            assert _render_human(e) == _render_human(twin)
            if _step % 20 == 0:
                pic.game, pic_twin.game = game, other
                assert np.array_equal(pic.render(), pic_twin.render())
        e.step(masked_random(e, rng))


def test_observation_changes_with_own_hand_but_state_sees_everything() -> None:
    e = raw_env(num_players=2)
    e.reset(seed=5)
    rng = random.Random(1)
    seat = 0
    other = with_hidden_tiles_reshuffled(e.game, seat, rng)
    enc = e.encoding
    assert np.array_equal(enc.observe(e.game, seat), enc.observe(other, seat))
    assert not np.array_equal(enc.state(e.game), enc.state(other))
    assert e.state_space.contains(e.state())


# ------------------------------------------------------------------ rewards


def run_episode(e: Any, seed: int) -> dict[str, float]:
    e.reset(seed=seed)
    rng = random.Random(seed)
    total = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        _, reward, term, trunc, _ = e.last()
        total[agent] += reward
        e.step(masked_random(e, rng) if not (term or trunc) else None)
    return total


@pytest.mark.parametrize(("preset", "n", "partnerships"), TABLES)
def test_points_rewards_add_up_to_the_score_difference(
    preset: str, n: int, partnerships: bool
) -> None:
    e = raw_env(
        rules=preset, num_players=n, partnerships=partnerships, reward="points", episode="hand"
    )
    for seed in range(3):
        total = run_episode(e, seed)
        rules = e.rules
        scores = e.game.scores
        k = rules.num_sides
        for seat, agent in enumerate(e.possible_agents):
            side = rules.side_of(seat)
            others = (sum(scores) - scores[side]) / (k - 1)
            assert total[agent] == pytest.approx((scores[side] - others) / rules.target)
        per_side = {rules.side_of(s): total[a] for s, a in enumerate(e.possible_agents)}
        assert sum(per_side.values()) == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize(("preset", "n", "partnerships"), TABLES)
def test_win_rewards_are_zero_sum_and_equal_for_partners(
    preset: str, n: int, partnerships: bool
) -> None:
    e = raw_env(rules=preset, num_players=n, partnerships=partnerships, reward="win")
    total = run_episode(e, 11)
    rules = e.rules
    winners = e.game.winners
    assert winners is not None
    per_side: dict[int, float] = {}
    for seat, agent in enumerate(e.possible_agents):
        per_side.setdefault(rules.side_of(seat), total[agent])
        assert per_side[rules.side_of(seat)] == total[agent]  # partners equal
    assert sum(per_side.values()) == pytest.approx(0.0)
    assert all(per_side[w] > 0 for w in winners)


def test_points_plus_win_is_the_sum_of_both() -> None:
    a = run_episode(raw_env(num_players=3, reward="points"), 4)
    b = run_episode(raw_env(num_players=3, reward="win"), 4)
    c = run_episode(raw_env(num_players=3, reward="points+win"), 4)
    for agent in a:
        assert c[agent] == pytest.approx(a[agent] + b[agent])


def test_wrapped_env_penalizes_an_illegal_action() -> None:
    e = env(num_players=2)
    e.reset(seed=0)
    obs, *_ = e.last()
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    offender = e.agent_selection
    e.step(bad)
    assert all(e.terminations.values())
    assert e.rewards[offender] == -1
    assert all(r == 0 for a, r in e.rewards.items() if a != offender)


@pytest.mark.parametrize("bad", [-1, 114, 3.5, "0", None, True])
def test_raw_env_refuses_junk_actions(bad: Any) -> None:
    e = raw_env()
    e.reset(seed=0)
    before = repr(e.game)
    with pytest.raises(IllegalActionError):
        e.step(bad)
    assert repr(e.game) == before


def test_numpy_integers_are_accepted() -> None:
    e = raw_env()
    e.reset(seed=0)
    obs, *_ = e.last()
    e.step(np.int32(np.flatnonzero(obs["action_mask"])[0]))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"episode": "game"},
        {"reward": "score"},
        {"forced_actions": "never"},
        {"render_mode": "window"},
        {"max_cycles": 0},
        {"num_players": 5},
        {"rules": "dominoes"},
        {"rules": Rules.preset("pagat", 3), "num_players": 2},
        {"rules": 7},
    ],
)
def test_bad_arguments_are_clear_errors(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError) as err:
        raw_env(**kwargs)
    assert (
        isinstance(err.value, EnvConfigError)
        or "num_players" in str(err.value)
        or "preset" in str(err.value)
    )


# ------------------------------------------------------------------ episodes, auto mode


def test_hand_episode_ends_with_the_hand_and_match_episode_deals_on() -> None:
    hand = raw_env(episode="hand")
    run_episode(hand, 3)
    assert hand.game.is_hand_over and hand.game.hand_number == 1
    match = raw_env(episode="match")
    run_episode(match, 3)
    assert match.game.is_match_over and match.game.hand_number > 1


def test_auto_mode_takes_forced_draws_itself() -> None:
    e = raw_env(forced_actions="auto", num_players=2)
    e.reset(seed=2)
    draws_seen = 0
    rng = random.Random(0)
    while e.agents and not e.terminations[e.agent_selection]:
        before = e.game.boneyard_size
        e.step(masked_random(e, rng))
        draws_seen += before - e.game.boneyard_size
    assert draws_seen > 0


# ------------------------------------------------------------------ docs from code


def test_docs_spaces_md_matches_the_code() -> None:
    from pathlib import Path

    doc = Path(__file__).resolve().parents[2] / "docs" / "spaces.md"
    assert doc.read_text(encoding="utf-8") == spaces_markdown(), (
        "docs/spaces.md is stale: python -m allfives_env.envs.spaces > docs/spaces.md"
    )


def test_observation_layout_matches_the_space() -> None:
    for preset, n, partnerships in TABLES:
        e = raw_env(rules=preset, num_players=n, partnerships=partnerships)
        enc = e.encoding
        assert e.observation_space("player_0")["observation"].shape == (enc.obs_size,)
        assert sum(b.size for b in enc.blocks) == enc.obs_size


def _brute_features(game: Any, seat: int, s: int) -> tuple[list[float], list[float]]:
    """action_points and action_replies by brute force: place, then try every reply."""
    from allfives_env.core.tiles import ALL_TILES_MASK, tiles_of

    points = [0.0] * (28 * s)
    replies = [0.0] * (28 * s)
    if game.current_player != seat:
        return points, replies
    nxt = (seat + 1) % game.rules.num_players
    unseen = ALL_TILES_MASK & ~game.hand_mask(seat) & ~game.layout.on_table
    for a in game.legal_actions():
        if a >= 448:
            continue
        world = game.layout.clone()
        count = world.lead(a >> 4, a & 15 == 1) if world.is_empty else world.place(a >> 4, a & 15)
        unit = game.rules.unit
        side = game.rules.side_of(seat)
        room = game.rules.target - game.scores[side] if game.rules.exact_target else 10**9
        i = (a >> 4) * s + (a & 15)
        if count and count % 5 == 0 and count // unit <= room:
            points[i] = min(count / 60, 1.0)
        best = 0
        for t in tiles_of(unseen):
            if any(t.low == v or t.high == v for v in game.known_voids(nxt)):
                continue
            for slot in world.open_slots:
                if world.fits(t, slot):
                    c = world.clone().place(t, slot)
                    if c > best and c % 5 == 0:
                        best = c
        replies[i] = min(best / 60, 1.0)
    return points, replies


@pytest.mark.parametrize("preset", PRESETS)
def test_action_features_match_brute_force(preset: str) -> None:
    rng = random.Random(preset)
    for n in (2, 3, 4):
        enc = Encoding(Rules.preset(preset, n), action_features=True)
        from allfives_env import Game

        game = Game(Rules.preset(preset, n), rng)
        a0, a1 = enc.block_range("action_points")
        r0, r1 = enc.block_range("action_replies")
        while not game.is_hand_over:
            seat = game.current_player
            obs = enc.observe(game, seat)
            points, replies = _brute_features(game, seat, enc.num_slots)
            assert np.allclose(obs[a0:a1], points) and np.allclose(obs[r0:r1], replies)
            other = (seat + 1) % n
            assert not enc.observe(game, other)[a0:r1].any()
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])


@pytest.mark.parametrize("preset", PRESETS)
def test_observe_view_is_observe(preset: str) -> None:
    from allfives_env import Game

    rng = random.Random(preset)
    for n in (2, 3, 4):
        rules = Rules.preset(preset, n)
        enc = Encoding(rules, action_features=True)
        game = Game(rules, rng)
        for _ in range(300):
            if game.is_match_over:
                break
            if game.is_hand_over:
                game.deal(rng)
                continue
            for seat in range(n):
                assert np.array_equal(enc.observe(game, seat), enc.observe_view(game.view(seat)))
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])


def test_aec_reset_checks_its_arguments() -> None:
    e = raw_env()
    e.reset(seed=np.int64(3))
    first = e.observe(e.agent_selection)["observation"].copy()
    e.reset(seed=3)
    assert np.array_equal(first, e.observe(e.agent_selection)["observation"])
    for bad in (-1, 2.5, "7", True):
        with pytest.raises(EnvConfigError, match="seed"):
            e.reset(seed=bad)  # type: ignore[arg-type]
    with pytest.raises(EnvConfigError, match="options must be a dict"):
        e.reset(options="str")  # type: ignore[arg-type]
    with pytest.raises(EnvConfigError, match="unknown reset option 'scroes'"):
        e.reset(options={"scroes": [0, 0]})
    e.reset(options={"options": 1})  # PettingZoo's api_test probes reset with this key


def test_aec_step_before_reset_asks_for_reset() -> None:
    from allfives_env.envs.settings import ResetRequiredError

    e = raw_env()
    for call in (lambda: e.step(0), lambda: e.observe("player_0"), e.state):
        with pytest.raises(ResetRequiredError, match="reset"):
            call()


@pytest.mark.parametrize(("preset", "n"), [("pagat", 2), ("pagat", 4), ("five_up", 3)])
def test_outlook_features_are_the_heuristics_quantities(preset: str, n: int) -> None:
    """``action_outlook`` holds exactly the outlook the heuristic weighs (scaled), for every
    legal placement, and zeros elsewhere."""
    from allfives_env.envs.blocks import OUTLOOK_SIZE
    from allfives_env.envs.features import OUTLOOK_WIN
    from allfives_env.envs.outlook import Position, outlook

    rules = Rules.preset(preset, n)
    enc = Encoding(rules, action_features="outlook")
    start, end = enc.block_range("action_outlook")
    rng = random.Random(9)
    e = raw_env(rules=rules)
    e.reset(seed=4)
    checked = 0
    for _ in range(60):
        if not e.agents or e.terminations[e.agent_selection]:
            break
        game = e.game
        seat = game.current_player
        block = enc.observe(game, seat)[start:end].reshape(-1, OUTLOOK_SIZE)
        pos = Position.of_game(game)
        legal = {enc.to_env[a]: a for a in game.legal_actions() if a.is_placement}
        for env_id in range(len(block)):
            if env_id not in legal:
                assert not block[env_id].any()
                continue
            o = outlook(pos, legal[env_id], OUTLOOK_WIN, OUTLOOK_WIN)
            row = block[env_id]
            assert row[0] == np.float32(min(o.now / 60, 1.0))
            assert row[3] == np.float32(min(o.threat / 60, 1.0))
            assert row[4] == np.float32(o.opp_stuck) and row[11] == np.float32(o.partner_stuck)
            assert row[6] == np.float32(min(o.kept_pips / 60, 1.0))
            assert row[7] == np.float32(o.variety / 7) and row[8] == float(o.double)
            checked += 1
        e.step(masked_random(e, rng))
    assert checked > 40


@pytest.mark.parametrize(("preset", "n"), [("pagat", 2), ("pagat", 4), ("five_up", 3)])
def test_lookahead_features_are_the_reply_risk_and_public(preset: str, n: int) -> None:
    """``action_lookahead`` holds the next seat's reply risk on each legal placement's layout
    (0 after a placement that wins or plays out the hand, and off the legal ones); near the
    target, with the hidden tiles dealt otherwise, every seat's block is unchanged."""
    from allfives_env.core.actions import SLOT_OF, TILE_OF
    from allfives_env.envs.blocks import LOOKAHEAD_SIZE
    from allfives_env.envs.outlook import Position, after, reply_risk, wins_match

    rules = Rules.preset(preset, n)
    enc = Encoding(rules, action_features="lookahead")
    start, end = enc.block_range("action_lookahead")
    rng = random.Random(11)
    e = raw_env(rules=rules)
    near = [rules.target - 10 // rules.unit] * rules.num_sides  # a count of 10 ends the match
    e.reset(seed=6, options={"scores": near})
    risky = 0
    for _ in range(40):
        if not e.agents or e.terminations[e.agent_selection]:
            break
        game = e.game
        seat = game.current_player
        block = enc.observe(game, seat)[start:end].reshape(-1, LOOKAHEAD_SIZE)
        pos = Position.of_game(game)
        legal = {enc.to_env[a]: a for a in game.legal_actions() if a.is_placement}
        for env_id in range(len(block)):
            a = legal.get(env_id)
            if a is None:
                assert not block[env_id].any()
                continue
            rest = pos.hand & ~(1 << TILE_OF[a])
            count = pos.layout.count_after(TILE_OF[a], SLOT_OF[a])
            if not rest or wins_match(rules, pos.scores, rules.side_of(seat), count):
                assert not block[env_id].any()
                continue
            want = reply_risk(pos, after(pos.layout, a), (seat + 1) % n)
            assert tuple(block[env_id]) == tuple(np.float32(w) for w in want)
            risky += int(block[env_id, 0] > 0)
        for s in range(n):
            other = with_hidden_tiles_reshuffled(game, s, rng)
            assert np.array_equal(enc.observe(game, s), enc.observe(other, s))
        e.step(masked_random(e, rng))
    assert risky > 0


# ------------------------------------------------------------------ steps that cannot be taken


def _play_to_the_end(e: Any, rng: random.Random) -> None:
    """Masked random actions, then None for the agents that are done, until none is left."""
    while e.agents:
        e.step(masked_random(e, rng))


def _position(e: Any) -> tuple[Any, ...]:
    raw = e.unwrapped
    game = raw.game
    return (
        list(raw.agents),
        raw.agent_selection,
        dict(raw.terminations),
        dict(raw._cumulative_rewards),
        game.scores,
        len(game.hand_log),
        [str(a) for a in game.events],
        None if game.current_player is None else game.hand(game.current_player),
    )


def test_a_step_after_every_agent_is_done_is_a_typed_error_that_changes_nothing() -> None:
    from allfives_env.envs.settings import EpisodeOverError, ResetRequiredError

    e = raw_env(rules="five_up", episode="hand")
    e.reset(seed=1)
    _play_to_the_end(e, random.Random(1))
    before = _position(e)
    for action in (0, None, np.int64(3)):
        with pytest.raises(EpisodeOverError, match="no agent is left to act") as err:
            e.step(action)
        assert isinstance(err.value, ValueError) and isinstance(err.value, ResetRequiredError)
    with pytest.raises(EpisodeOverError, match="no agent is left"):
        e.last()
    assert _position(e) == before
    e.reset(seed=2)  # and the env plays on
    assert e.agents


def test_a_done_agent_takes_none_only_and_a_refused_action_changes_nothing() -> None:
    e = raw_env(rules="five_up", episode="hand", max_cycles=3)
    e.reset(seed=1)
    rng = random.Random(1)
    for _ in range(3):
        e.step(masked_random(e, rng))
    assert all(e.truncations.values()) and e.agents
    before = _position(e)
    for action in (0, np.int64(0), 1.5, "pass"):
        with pytest.raises(IllegalActionError, match="only action it may take is None"):
            e.step(action)  # type: ignore[arg-type]
    assert _position(e) == before
    _play_to_the_end(e, rng)  # None for each, as PettingZoo's loop gives
    assert not e.agents


@pytest.mark.parametrize("action", [1.5, np.float64(2), "3", None, True, np.True_, -1, 10**6])
def test_the_wrapped_env_refuses_an_action_outside_the_space_with_a_typed_error(
    action: Any,
) -> None:
    """PettingZoo's ``AssertOutOfBoundsWrapper`` asserts; here it is an ``ActionSpaceError``
    (an ``IllegalActionError`` and an ``AssertionError`` both, also under ``python -O``)."""
    from allfives_env.envs.settings import ActionSpaceError

    e = env(rules="five_up")
    e.reset(seed=3)
    before = _position(e)
    with pytest.raises(ActionSpaceError, match="not in its action space") as err:
        e.step(action)
    assert isinstance(err.value, AssertionError) and isinstance(err.value, IllegalActionError)
    assert err.value.legal == tuple(np.flatnonzero(e.last()[0]["action_mask"]))
    assert _position(e) == before
    assert not e.unwrapped.action_space("player_0").contains(action)


def test_the_wrapped_env_keeps_pettingzoos_rules_for_done_agents(
    caplog: pytest.LogCaptureFixture,
) -> None:
    e = env(rules="five_up", episode="hand", max_cycles=2)
    e.reset(seed=3)
    rng = random.Random(3)
    for _ in range(2):
        e.step(masked_random(e, rng))
    before = _position(e)
    with pytest.raises(IllegalActionError, match="only action it may take is None"):
        e.step(0)
    assert _position(e) == before
    _play_to_the_end(e, rng)
    done = _position(e)
    e.step(0)  # PettingZoo's OrderEnforcingWrapper logs a warning and does nothing
    assert "Should reset() first" in caplog.text and _position(e) == done


def _parallel_actions(p: Any) -> dict[str, int]:
    acting = p.aec_env.agent_selection
    return {acting: int(np.flatnonzero(p.aec_env.infos[acting]["action_mask"])[0])}


def test_parallel_step_refuses_actions_it_cannot_take_and_changes_nothing() -> None:
    from allfives_env.envs.parallel import ActionsError
    from allfives_env.envs.settings import EpisodeOverError, ResetRequiredError, UnknownAgentError

    p = parallel_env(rules="five_up", episode="hand")
    with pytest.raises(ResetRequiredError, match="reset"):
        p.step({})
    p.reset(seed=4)
    acting = p.aec_env.agent_selection
    other = next(a for a in p.agents if a != acting)
    before = _position(p.aec_env)
    refused: list[tuple[Any, type[Exception], str]] = [
        ({}, ActionsError, f"actions missing for agents {acting}"),
        ({other: 0}, ActionsError, f"actions missing for agents {acting}"),
        ({**_parallel_actions(p), "nobody": 0}, UnknownAgentError, "nobody"),
        ({**_parallel_actions(p), 3: 0}, UnknownAgentError, "3"),
        ("player_0", ActionsError, "must be a dict"),
        (None, ActionsError, "must be a dict"),
        ([0, 0], ActionsError, "must be a dict"),
        ({acting: 1.5}, IllegalActionError, "not in its action space"),
        ({acting: None}, IllegalActionError, "not in its action space"),
    ]
    for actions, error, message in refused:
        with pytest.raises(error, match=message) as err:
            p.step(actions)
        assert isinstance(err.value, ValueError)
        assert _position(p.aec_env) == before
    steps = 0
    while p.agents:  # the acting agent's action alone is enough (a NumPy int too)
        action = _parallel_actions(p)
        out = p.step({a: np.int64(x) for a, x in action.items()} if steps % 2 else action)
        assert len(out) == 5
        steps += 1
    done = _position(p.aec_env)
    for actions in ({}, {"player_0": 0}, {"player_0": None, "player_1": None}):
        with pytest.raises(EpisodeOverError, match="no agent is left to act"):
            p.step(actions)
    assert _position(p.aec_env) == done
    p.reset(seed=5)
    assert p.agents == p.possible_agents


def test_v0_parallel_env_is_checked_as_v1s() -> None:
    from allfives_env.envs.parallel import ActionsError

    p = allfives_v0.parallel_env()
    p.reset(seed=0)
    with pytest.raises(ActionsError, match="actions missing"):
        p.step({})
