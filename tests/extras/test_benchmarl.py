"""The BenchMARL adapter: the TorchRL env, the task, training and the ``benchmarl:`` agent (the
``[benchmarl]`` extra; skipped without it)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("benchmarl")

import torch
from conftest import with_hidden_tiles_reshuffled
from policy_folders import check_fresh_deletes_only_its_own
from tensordict import TensorDict
from torchrl.envs.utils import check_env_specs

from agents.eval.tournament import evaluate
from agents.learned import CheckpointError
from agents.registry import make_agent
from allfives_benchmarl.agent import BenchMARLAgent
from allfives_benchmarl.env import GROUP, AllFivesTorchEnv
from allfives_benchmarl.policy_file import load_policy
from allfives_benchmarl.task import PRESETS, AllFivesTask
from allfives_benchmarl.train import Args, algorithm_config, main
from allfives_env import Rules
from allfives_env.envs.settings import EnvConfigError
from allfives_env.vector.errors import VectorActionError

SMOKE = [
    "--frames", "1024", "--frames_per_batch", "512", "--envs", "32", "--minibatch_size", "256",
    "--epochs", "1", "--hidden", "32",
]  # fmt: skip


def random_step(env: AllFivesTorchEnv, rng: np.random.Generator) -> Any:
    """One step of masked-random actions for every seat (WAIT for those not to act)."""
    mask = env.action_masks()
    actions = np.zeros(mask.shape[:2], np.int64)
    for i, s in np.ndindex(*mask.shape[:2]):
        actions[i, s] = rng.choice(np.flatnonzero(mask[i, s]))
    td = TensorDict(
        {GROUP: TensorDict({"action": torch.as_tensor(actions)}, batch_size=mask.shape[:2])},
        batch_size=mask.shape[:1],
    )
    return env.step(td)["next"]


@pytest.mark.parametrize("task", sorted(PRESETS))
def test_every_tasks_env_specs_hold(task: str) -> None:
    """A task for every preset and player count; in partnerships a group per team."""
    config = PRESETS[task]
    env = AllFivesTask.__members__[task].get_task().get_env_fun(4, False, 0, "cpu")()
    check_env_specs(env)
    table = config.table()
    if table.num_sides < table.num_players:
        assert env.group_map == {
            "team_0": ["player_0", "player_2"], "team_1": ["player_1", "player_3"]
        }  # fmt: skip
    else:
        assert list(env.group_map) == [GROUP]


def test_a_small_set_trains_and_its_policy_is_measured_exactly(tmp_path: Path) -> None:
    """A task on the double-two set: arrays that shrink with the set, MAPPO trains there, and
    its exported actor plays that set alone and is read by the exact solver."""
    from agents.exact.policy import policy_of_agent
    from agents.exact.solver import Solver
    from agents.exact.tree import build_tree

    tiny = Rules.preset("pagat", 2, max_pip=2, hand_size=2)
    config = {"max_pip": 2, "hand_size": 2, "episode": "hand", "reward": "points"}
    env = AllFivesTask.PAGAT_2P.get_task(config).get_env_fun(4, False, 0, "cpu")()
    check_env_specs(env)
    assert env.rules == tiny and env.num_env_actions == 6 * tiny.num_slots + 3
    out = tmp_path / "tiny"
    main([*SMOKE, "--max_pip", "2", "--hand_size", "2", "--episode", "hand", "--out", str(out)])
    agent = make_agent(f"benchmarl:{out}")
    agent.check_rules(tiny)
    with pytest.raises(CheckpointError):
        agent.check_rules(Rules.preset("pagat", 2))
    solver = Solver(build_tree(tiny))
    assert 0 < solver.nash_conv(policy_of_agent(solver.tree, agent)) < 10


def test_a_team_is_rewarded_with_its_sides_reward() -> None:
    """In partnerships each seat's reward is its team's: the two members of a group always get
    the same reward, the two groups opposite ones (what a mixer sums)."""
    env = AllFivesTorchEnv(6, "pagat", num_players=4, reward="points", seed=3)
    torch.manual_seed(0)
    data = env.rollout(300, break_when_any_done=False)
    team0, team1 = data["next", "team_0", "reward"], data["next", "team_1", "reward"]
    assert torch.equal(team0[:, :, 0], team0[:, :, 1]) and torch.equal(team0, -team1)
    assert bool(team0.abs().sum() > 0)
    with pytest.raises(EnvConfigError, match="teams=True needs partnerships"):
        AllFivesTorchEnv(2, "dominoes_cc", num_players=4, teams=True)
    one = AllFivesTorchEnv(2, "pagat", num_players=4, teams=False)
    assert list(one.group_map) == [GROUP]


def test_masks_are_the_engines_legal_actions_and_wait_for_the_rest() -> None:
    env = AllFivesTorchEnv(8, "pagat", num_players=3, seed=1)
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(60):
        mask = env.action_masks()
        vg = env.vg
        for i in range(env.num_envs):
            to_act = int(vg.current_player[i])
            for s in range(env.num_players):
                legal = np.flatnonzero(mask[i, s]).tolist()
                if s == to_act and not vg.done[i]:
                    assert legal == vg.legal_actions(i)
                else:
                    assert legal == [env.wait]
        random_step(env, rng)


def test_observations_hide_what_the_seat_cannot_see() -> None:
    env = AllFivesTorchEnv(4, "pagat", num_players=3, seed=2)
    env.reset()
    rng = np.random.default_rng(1)
    shuffle = random.Random(3)
    changed = 0
    for step in range(40):
        random_step(env, rng)
        if step % 10:
            continue
        vg = env.vg
        before, masks, state = env.observations(), env.action_masks(), vg.state()
        for i in range(env.num_envs):
            if vg.done[i]:
                continue
            for seat in range(env.num_players):
                game = vg.game(i)
                twin = with_hidden_tiles_reshuffled(game, seat, shuffle)
                vg.load(i, twin)
                changed += not np.array_equal(vg.state()[i], state[i])
                np.testing.assert_array_equal(env.observations()[i, seat], before[i, seat])
                np.testing.assert_array_equal(env.action_masks()[i, seat], masks[i, seat])
                vg.load(i, game)
    assert changed  # the hidden tiles did move


def test_only_the_seat_to_act_acts_and_a_bad_action_is_refused() -> None:
    env = AllFivesTorchEnv(2, "pagat", num_players=2, seed=3)
    td = env.reset()
    seats = env.vg.current_player.copy()
    mask = td[GROUP, "action_mask"]
    actions = torch.full((2, 2), env.wait, dtype=torch.int64)
    for i, s in enumerate(seats):
        actions[i, s] = int(mask[i, s].nonzero()[0, 0])
        actions[i, 1 - s] = 0  # ignored: not to act
    stepped = env.step(td.set((GROUP, "action"), actions))["next"]
    assert stepped[GROUP, "reward"].shape == (2, 2, 1)
    before = env.observations()
    wait = torch.full((2, 2), env.wait, dtype=torch.int64)
    with pytest.raises(VectorActionError, match="is to act"):
        env.step(stepped.clone().set((GROUP, "action"), wait))
    np.testing.assert_array_equal(env.observations(), before)  # no game moved


def test_same_seed_same_games_and_bad_config_refused() -> None:
    a, b = (AllFivesTorchEnv(4, "pagat", seed=7) for _ in range(2))
    torch.manual_seed(0)
    ra = a.rollout(50, break_when_any_done=False)
    torch.manual_seed(0)
    rb = b.rollout(50, break_when_any_done=False)
    assert (ra == rb).all()
    with pytest.raises(EnvConfigError):
        AllFivesTask.PAGAT_2P.get_task({"rules": "pagat", "colour": "red"})


def test_a_centralised_critic_is_one_per_seat() -> None:
    """A shared centralised critic gives every seat the same value: zero-sum seats need one
    each; decentralised critics read their own seat and may share."""
    for algorithm, shared in (("mappo", False), ("ippo", True), ("isac", True)):
        config = algorithm_config(Args(algorithm=algorithm))  # type: ignore[arg-type]
        assert config.share_param_critic is shared, algorithm
    # a team's critic is shared by its members, who have one reward
    team = algorithm_config(Args(algorithm="mappo", task="PAGAT_4P"))
    assert team.share_param_critic is True


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """MAPPO and IPPO at smoke size, and MAPPO again with the same seed."""
    root = tmp_path_factory.mktemp("benchmarl")
    out = {}
    for name, algorithm in (("mappo", "mappo"), ("ippo", "ippo"), ("again", "mappo")):
        out[name] = root / name
        argv = ["--algorithm", algorithm, "--seed", "5", "--out", str(out[name]), *SMOKE]
        assert main(argv) == 0
    return out


def test_mappo_and_ippo_train_and_play_as_agents(trained: dict[str, Path]) -> None:
    rules = Rules.preset("pagat", 2)
    for name in ("mappo", "ippo"):
        report = json.loads((trained[name] / "report.json").read_text(encoding="utf-8"))
        assert report["frames"] == report["env_steps"] == 1024 and report["curve"] == []
        agent = make_agent(f"benchmarl:{trained[name]}")
        assert isinstance(agent, BenchMARLAgent) and agent.net.algorithm == name
        result = evaluate(rules, [f"benchmarl:{trained[name]}", "random"], matches=4, seed=0)
        assert result.matches == 4


@pytest.mark.parametrize("algorithm", ["masac", "isac", "iql"])
def test_off_policy_algorithms_train_and_play(algorithm: str, tmp_path: Path) -> None:
    out = tmp_path / algorithm
    assert main(["--algorithm", algorithm, "--out", str(out), *SMOKE]) == 0
    agent = make_agent(f"benchmarl:{out}")
    assert isinstance(agent, BenchMARLAgent) and agent.net.algorithm == algorithm
    assert agent.net.out_key == ("action_value" if algorithm == "iql" else "logits")
    result = evaluate(Rules.preset("pagat", 2), [f"benchmarl:{out}", "random"], matches=2, seed=0)
    assert result.matches == 2


@pytest.mark.parametrize("algorithm", ["qmix", "vdn"])
def test_mixers_train_on_teams_and_play_either_side(algorithm: str, tmp_path: Path) -> None:
    out = tmp_path / algorithm
    assert main(["--algorithm", algorithm, "--task", "PAGAT_4P", "--out", str(out), *SMOKE]) == 0
    agent = make_agent(f"benchmarl:{out}")
    assert isinstance(agent, BenchMARLAgent) and agent.net.group == "team_0"
    assert agent.net.n_agents == 2
    rules = Rules.preset("pagat", 4)
    for seats in ([f"benchmarl:{out}", "random"], ["random", f"benchmarl:{out}"]):
        assert evaluate(rules, seats, matches=2, seed=0).matches == 2


def test_same_seed_trains_the_same_weights(trained: dict[str, Path]) -> None:
    first, again = (load_policy(trained[k])[2].state_dict() for k in ("mappo", "again"))
    assert first.keys() == again.keys()
    for k, v in first.items():
        if isinstance(v, torch.Tensor):
            assert torch.equal(v, again[k]), k


def test_agent_plays_the_actors_masked_argmax_from_its_own_view(trained: dict[str, Path]) -> None:
    agent = make_agent(f"benchmarl:{trained['ippo']}")
    assert isinstance(agent, BenchMARLAgent)
    env = AllFivesTorchEnv(6, "pagat", num_players=2, seed=4)
    td = env.reset()
    rng = np.random.default_rng(2)
    for _ in range(5):
        out = agent.model(td.select((GROUP, "observation")).clone())[GROUP, agent.net.out_key]
        for i in range(env.num_envs):
            seat = int(env.vg.current_player[i])
            view = env.vg.view(i, seat)
            np.testing.assert_array_equal(
                agent.encoding.observe_view(view), td[GROUP, "observation"][i, seat].numpy()
            )
            legal = view.legal_actions
            if len(legal) > 1:
                z = out[i, seat].detach().masked_fill(~td[GROUP, "action_mask"][i, seat], -1e9)
                chosen = agent.act(view, random.Random(0))
                assert agent.encoding.to_env[chosen] == int(z.argmax())
        td = random_step(env, rng)
    with pytest.raises(CheckpointError):
        agent.check_rules(Rules.preset("pagat", 3))


def test_bad_input_is_one_line_and_status_2(
    trained: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    for argv in (
        ["--frames", "0"],
        ["--algorithm", "dqn"],
        ["--algorithm", "qmix"],  # the group's summed reward is zero here
        ["--algorithm", "vdn", "--task", "DOMINOES_CC_4P"],  # each for himself
        ["--task", "PAGAT_5P"],
        ["--max_pip", "2"],  # the preset's 9 tiles a hand do not fit the double-two set
        ["--envs", "3", "--frames_per_batch", "512"],
        ["--out", str(trained["mappo"])],  # already holds a policy
        *([] if torch.cuda.is_available() else [["--device", "cuda"]]),  # a GPU torch lacks
        ["--device", "gpu"],
        ["--engine_threads", "-1"],
    ):
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "error" in err, argv
    with pytest.raises(CheckpointError):
        make_agent(f"benchmarl:{trained['mappo'] / 'benchmarl'}")


def test_fresh_deletes_only_a_policy_folder_this_trainer_made(
    trained: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    check_fresh_deletes_only_its_own(
        main, "python -m allfives_benchmarl.train", trained["mappo"], SMOKE, tmp_path, capsys
    )
