"""The RLlib adapter, module, league and trainer (the ``[rllib]`` extra; skipped without it)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

import torch
from conftest import run_trainer, with_hidden_tiles_reshuffled
from ray.rllib.core.columns import Columns
from ray.rllib.core.distribution.torch.torch_distribution import TorchCategorical

from allfives_env.core.errors import IllegalActionError
from allfives_env.envs.settings import EnvConfigError
from allfives_rllib.env import AllFivesMultiAgentEnv
from allfives_rllib.module import MASKED, MaskedActorCritic

ROOT = Path(__file__).resolve().parents[2]
TRAIN = [sys.executable, str(ROOT / "train_rllib.py")]
TABLES = [("pagat", 2, None), ("pyatyorka", 3, None), ("pagat", 4, True), ("dominoes_cc", 4, None)]


def play(env: AllFivesMultiAgentEnv, seed: int, steps: int = 10_000) -> list[Any]:
    """A masked-random episode; every step's (obs, rewards, terminateds, truncateds)."""
    rng = random.Random(seed)
    obs, _ = env.reset(seed=seed)
    out: list[Any] = [(obs, {}, {}, {})]
    for _ in range(steps):
        (agent,) = obs
        legal = np.flatnonzero(obs[agent]["action_mask"])
        obs, rew, term, trunc, _ = env.step({agent: int(rng.choice(legal))})
        out.append((obs, rew, term, trunc))
        if term["__all__"] or trunc["__all__"]:
            break
    return out


@pytest.mark.parametrize(("preset", "n", "pairs"), TABLES)
def test_turn_based_masked_and_final_rewards_reach_every_agent(
    preset: str, n: int, pairs: bool | None
) -> None:
    env = AllFivesMultiAgentEnv(
        {"preset": preset, "num_players": n, "partnerships": pairs, "forced_actions": "auto"}
    )
    space = env.observation_spaces["player_0"]
    assert set(space.spaces) == {"observations", "action_mask"}
    steps = play(env, seed=n)
    for obs, _rew, term, _ in steps[:-1]:
        assert len(obs) == 1  # only the agent to act observes
        (agent,) = obs
        assert space.contains(obs[agent])
        assert obs[agent]["action_mask"].sum() >= 1
        assert not term.get("__all__", False)
    obs, rew, term, trunc = steps[-1]
    assert term["__all__"] and not trunc["__all__"]
    assert set(obs) == set(rew) == set(env.possible_agents)  # the end reaches every seat
    assert all(term[a] for a in env.possible_agents)
    rules = env.rules
    total = {a: sum(s[1].get(a, 0.0) for s in steps) for a in env.possible_agents}
    for i, a in enumerate(env.possible_agents):
        for j, b in enumerate(env.possible_agents):
            if rules.side_of(i) == rules.side_of(j):  # partners share their side's reward
                assert total[a] == pytest.approx(total[b])
    assert max(total.values()) > 0 > min(total.values())


def batch_of(obs: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
    """One agent's observation dict as a batch of one, in tensors."""
    return {k: torch.as_tensor(v[None]) for k, v in obs.items()}


def test_observations_hold_nothing_the_seat_cannot_see() -> None:
    env = AllFivesMultiAgentEnv({"preset": "pagat", "num_players": 3, "action_features": "basic"})
    twin = AllFivesMultiAgentEnv({"preset": "pagat", "num_players": 3, "action_features": "basic"})
    rng = random.Random(7)
    obs, _ = env.reset(seed=7)
    twin.reset(seed=0)
    for _ in range(40):
        (agent,) = obs
        seat = int(agent[-1])
        twin.raw.game = with_hidden_tiles_reshuffled(env.raw.game, seat, rng)
        twin.raw._update()
        mine, theirs = env._obs(agent), twin._obs(agent)
        for key in mine:
            assert np.array_equal(mine[key], theirs[key]), key
        legal = np.flatnonzero(obs[agent]["action_mask"])
        obs, _, term, _, _ = env.step({agent: int(rng.choice(legal))})
        if term["__all__"]:
            break


def test_critic_state_is_an_extra_key_the_actor_never_reads() -> None:
    env = AllFivesMultiAgentEnv({"critic_state": True, "action_features": "basic"})
    obs, _ = env.reset(seed=1)
    (agent,) = obs
    assert np.array_equal(obs[agent]["state"], env.state())
    space = env.observation_spaces[agent]
    module = MaskedActorCritic(
        observation_space=space,
        action_space=env.action_spaces[agent],
        model_config={"critic_state": True, "actor_arch": [16], "critic_arch": [16]},
    )
    batch = batch_of(obs[agent])
    other = dict(batch, state=torch.rand_like(batch["state"]) * 5)
    a = module.forward_inference({Columns.OBS: batch})[Columns.ACTION_DIST_INPUTS]
    b = module.forward_inference({Columns.OBS: other})[Columns.ACTION_DIST_INPUTS]
    assert torch.equal(a, b)
    v1 = module.compute_values({Columns.OBS: batch})
    v2 = module.compute_values({Columns.OBS: other})
    assert not torch.equal(v1, v2)


def test_masked_logits_never_sample_an_illegal_action() -> None:
    env = AllFivesMultiAgentEnv({"action_features": "basic"})
    obs, _ = env.reset(seed=3)
    (agent,) = obs
    module = MaskedActorCritic(
        observation_space=env.observation_spaces[agent],
        action_space=env.action_spaces[agent],
        model_config={"actor_arch": [8]},
    )
    batch = batch_of(obs[agent])
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        logits = forward({Columns.OBS: batch})[Columns.ACTION_DIST_INPUTS]
        illegal = batch["action_mask"][0] == 0
        assert torch.all(logits[0][illegal] == MASKED)
        torch.manual_seed(0)
        drawn = TorchCategorical(logits=logits.detach().expand(20_000, -1)).sample()
        assert torch.all(batch["action_mask"][0][drawn] == 1)


def test_illegal_actions_and_wrong_agents_are_refused_and_change_nothing() -> None:
    env = AllFivesMultiAgentEnv()
    obs, _ = env.reset(seed=2)
    (agent,) = obs
    before = env.raw.game.render()
    illegal = int(np.flatnonzero(obs[agent]["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError):
        env.step({agent: illegal})
    with pytest.raises(EnvConfigError, match="exactly the agent to act"):
        env.step({"player_9": 0})
    assert env.raw.game.render() == before
    with pytest.raises(EnvConfigError, match="unknown env config key"):
        AllFivesMultiAgentEnv({"players": 2})


# ----------------------------------------------------------------------------- the trainer


def run_train(*args: str, runs: Path, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return run_trainer(TRAIN, runs, *args, timeout=timeout)


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A few RLlib iterations of ``configs/rllib_smoke.yaml`` (local, sampling in the driver)."""
    runs = tmp_path_factory.mktemp("rllib_runs")
    proc = run_train("--config", "configs/rllib_smoke.yaml", runs=runs)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (runs / "stderr.txt").write_text(proc.stderr)  # (beside the run folder, for the tests)
    return runs / "rllib" / "rllib_smoke"


def test_each_phase_says_what_it_is_doing_as_it_begins(smoke_run: Path) -> None:
    err = (smoke_run.parents[1] / "stderr.txt").read_text()
    said = [
        x.removeprefix("train_rllib.py: ")
        for x in err.splitlines()
        if x.startswith("train_rllib.py: ")
    ]
    starts = ["run 'rllib_smoke'", "starting Ray on this machine", "PPO: 1,500 env steps",
              "evaluating at step", "the final evaluation"]  # fmt: skip
    found = [next(i for i, x in enumerate(said) if x.startswith(s)) for s in starts]
    assert found == sorted(found) and found[0] == 0, said


def test_smoke_run_trains_grows_the_league_evaluates_and_reports(smoke_run: Path) -> None:
    report = json.loads((smoke_run / "report.json").read_text())
    assert report["env_steps"] >= 1500
    assert report["iterations"] >= 3
    assert len(report["league"]["snapshots"]) >= 2  # the untrained module and later ones
    assert set(report["final_eval"]) == {"random", "greedy"}
    assert report["history"] and all(h["results"] for h in report["history"])
    assert (smoke_run / "best" / "allfives.json").is_file()
    assert list((smoke_run / "tb").iterdir())


def test_a_checkpoint_is_an_agent_everywhere_a_spec_is(smoke_run: Path) -> None:
    from agents.eval.tournament import evaluate
    from agents.learned import CheckpointError
    from agents.registry import make_agent
    from allfives_env.core.rules import Rules

    agent = make_agent(f"rllib:{smoke_run}")
    assert agent.name == "rllib:rllib_smoke"
    res = evaluate(Rules.preset("pagat", 2), [f"rllib:{smoke_run}", "greedy"], 4, 0, 1)
    assert res.matches == 4
    with pytest.raises(CheckpointError, match="trained for"):
        agent.check_rules(Rules.preset("five_up", 2))  # type: ignore[attr-defined]
    with pytest.raises(CheckpointError, match="no RLlib checkpoint"):
        make_agent(f"rllib:{smoke_run}/nowhere")
    cli = subprocess.run(
        [sys.executable, "-m", "allfives_env", "eval", f"rllib:{smoke_run}", "random",
         "--matches", "2", "--processes", "1"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    assert "rllib:rllib_smoke" in cli.stdout


def test_play_and_demo_take_the_checkpoint(smoke_run: Path, tmp_path: Path) -> None:
    play = subprocess.run(
        [sys.executable, "-m", "allfives_env", "play", "--opponents", f"rllib:{smoke_run}",
         "--hands", "1", "--no-save", "--seed", "3"],
        input="1\n" * 500, capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert play.returncode == 0, play.stderr
    assert f"(rllib:{smoke_run})" in play.stdout and "final scores:" in play.stdout
    assert "Deprecation" not in play.stderr
    demo = subprocess.run(
        [sys.executable, "-m", "allfives_env", "demo", "--agents", f"rllib:{smoke_run}", "greedy",
         "--quiet"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert demo.returncode == 0, demo.stderr


def test_critic_state_trains_a_centralized_critic(tmp_path: Path) -> None:
    proc = run_train(
        "--config", "configs/rllib_smoke.yaml", "--critic_state", "--total_timesteps", "1000",
        "--final_eval_matches", "0", "--name", "mappo", runs=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads((tmp_path / "rllib" / "mappo" / "report.json").read_text())
    assert report["config"]["critic_state"] is True and report["env_steps"] >= 1000
    from agents.registry import make_agent

    make_agent(f"rllib:{tmp_path / 'rllib' / 'mappo'}")  # plays without the state


def test_rllibs_own_action_masking_module_reads_these_observations() -> None:
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    env = AllFivesMultiAgentEnv({"action_features": "basic"})
    obs, _ = env.reset(seed=4)
    (agent,) = obs
    module = ActionMaskingTorchRLModule(
        observation_space=env.observation_spaces[agent],
        action_space=env.action_spaces[agent],
        model_config={"fcnet_hiddens": [16]},
    )
    batch = batch_of(obs[agent])
    mask = batch["action_mask"][0].clone()
    logits = module.forward_exploration({Columns.OBS: batch})[Columns.ACTION_DIST_INPUTS]
    drawn = TorchCategorical(logits=logits.detach().expand(5_000, -1)).sample()
    assert torch.all(mask[drawn] == 1)


def test_the_agent_plays_the_trained_modules_actions(smoke_run: Path) -> None:
    from ray.rllib.core.rl_module.rl_module import RLModule

    from agents.registry import make_agent

    agent: Any = make_agent(f"rllib:{smoke_run / 'checkpoint'}")
    module = RLModule.from_checkpoint(
        str(smoke_run / "checkpoint" / "learner_group" / "learner" / "rl_module" / "main")
    )
    env = AllFivesMultiAgentEnv({"action_features": "basic"})
    obs, _ = env.reset(seed=11)
    (a,) = obs
    batch = batch_of(obs[a])
    want = module.forward_inference({Columns.OBS: batch})[Columns.ACTION_DIST_INPUTS]
    got = agent.logits(obs[a]["observations"][None], obs[a]["action_mask"][None])
    assert np.allclose(want.numpy(), got)


def test_resume_continues_the_run_and_keeps_the_league(tmp_path: Path) -> None:
    args = ["--config", "configs/rllib_smoke.yaml", "--total_timesteps", "1000"]
    first = run_train(*args, "--final_eval_matches", "0", runs=tmp_path)
    assert first.returncode == 0, first.stderr[-2000:]
    state = json.loads((tmp_path / "rllib" / "rllib_smoke" / "state.json").read_text())
    second = run_train(*args[:2], "--total_timesteps", "2000", "--final_eval_matches", "0",
                       runs=tmp_path)  # fmt: skip
    assert second.returncode == 0, second.stderr[-2000:]
    assert "resuming" in second.stdout
    after = json.loads((tmp_path / "rllib" / "rllib_smoke" / "state.json").read_text())
    assert after["step"] >= 2000 > state["step"]
    assert (
        after["league"]["snapshots"][: len(state["league"]["snapshots"])]
        == (state["league"]["snapshots"])
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--address", "nonsense"], "--address must be HOST:PORT"),
        (["--address", "127.0.0.1:1"], "no Ray cluster at '127.0.0.1:1'"),
        (["--num_env_runners", "-1"], "'num_env_runners' must be at least 0"),
        (["--eval_opponents", "nobody"], "unknown agent 'nobody'"),
        (["--colour", "red"], "Unrecognized options"),
        (["--device", "cuda:0"], "sees no GPU"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(
    tmp_path: Path, args: list[str], message: str
) -> None:
    if "cuda:0" in args and torch.cuda.is_available():
        pytest.skip("torch sees a GPU here")
    proc = run_train(*args, runs=tmp_path, timeout=60)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr
    assert not (tmp_path / "rllib").exists()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("colour: red\n", "unknown config key 'colour'"),
        ("imitation_refit_epochs: 5\n", "'imitation_refit_epochs' in .* is a train.py setting"),
        ("num_players: two\n", "'num_players' must be of type int"),
    ],
)
def test_bad_config_files_are_one_line_and_exit_2(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(text)
    proc = run_train("--config", str(path), runs=tmp_path, timeout=60)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1
    import re

    assert re.search(message, lines[0]), lines[0]


def test_ctrl_c_mid_training_saves_and_the_same_command_resumes(tmp_path: Path) -> None:
    import signal
    import time

    args = ["--config", "configs/rllib_smoke.yaml", "--total_timesteps", "1000000"]
    args += ["--checkpoint_every", "1", "--eval_every", "1000000", "--final_eval_matches", "0"]
    proc = subprocess.Popen(
        [*TRAIN, "--runs", str(tmp_path), *args],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    state = tmp_path / "rllib" / "rllib_smoke" / "state.json"
    deadline = time.monotonic() + 120
    while not state.exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-2000:]
    assert err.strip().splitlines()[-1].startswith("interrupted"), err[-2000:]
    stopped = json.loads(state.read_text())["step"]
    again = run_train(*args[:2], "--total_timesteps", str(stopped + 500), *args[4:],
                      runs=tmp_path)  # fmt: skip
    assert again.returncode == 0, again.stderr[-2000:]
    assert f"resuming {tmp_path / 'rllib' / 'rllib_smoke'} from step {stopped:,}" in again.stdout


def _folder(smoke_run: Path, tmp_path: Path) -> Path:
    """A copy of the smoke run's folder, in ``tmp_path``'s runs."""
    import shutil

    folder = tmp_path / "rllib" / "rllib_smoke"
    shutil.copytree(smoke_run, folder)
    return folder


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _cut_a_checkpoint_file(folder: Path) -> None:
    path = next(p for p in sorted((folder / "checkpoint").rglob("*.pkl")))
    path.write_bytes(path.read_bytes()[:10])


def _state_with_a_key_twice(folder: Path) -> None:
    state = folder / "state.json"
    state.write_text(state.read_text().replace('"step": ', '"step": 0, "step": ', 1))


@pytest.mark.parametrize(
    ("damage", "words"),
    [
        (
            lambda f: (f / "state.json").unlink(),
            "holds a run (checkpoint, best, report.json) but not state.json",
        ),
        (_state_with_a_key_twice, "state.json is damaged (duplicate key 'step')"),
        (lambda f: (f / "state.json").write_text("[1]"), "state.json is damaged (not an object)"),
        (_cut_a_checkpoint_file, "checkpoint is damaged"),
        (lambda f: shutil_rmtree(f / "checkpoint"), "checkpoint is missing"),
        (lambda f: (f / "best" / "allfives.json").write_text("{}"), "best is damaged"),
        (
            lambda f: (f / "config.yaml").open("a").write("num_envs: 32\n"),
            "holds 'num_envs', which train_rllib.py never writes",
        ),
        (
            lambda f: (f / "config.yaml").write_text(
                (f / "config.yaml").read_text().replace("eval_processes: 1", "eval_processes: 2")
            ),
            "config.yaml was edited (eval_processes changed)",
        ),
        (
            lambda f: (f / "notes.txt").write_text("my own"),
            "holds notes.txt, which no train_rllib.py run writes",
        ),
    ],
)
def test_a_rerun_checks_every_file_it_goes_on_from_before_writing(
    smoke_run: Path, tmp_path: Path, damage: Any, words: str
) -> None:
    folder = _folder(smoke_run, tmp_path)
    damage(folder)
    before = _files(folder)
    args = ["--total_timesteps", "3000", "--final_eval_matches", "0"]
    fresh = ["--fresh"] if "notes.txt" in words else []
    proc = run_train("--config", "configs/rllib_smoke.yaml", *args, *fresh, runs=tmp_path)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr[-3000:]
    assert words in lines[0] and "Traceback" not in proc.stderr, lines[0]
    assert _files(folder) == before


def shutil_rmtree(path: Path) -> None:
    import shutil

    shutil.rmtree(path)


def test_what_is_not_a_run_folder_is_refused_in_one_line(tmp_path: Path) -> None:
    mine = tmp_path / "rllib" / "rllib_smoke"
    mine.mkdir(parents=True)
    (mine / "notes.txt").write_text("my own")
    afile = tmp_path / "README.md"
    afile.write_text("# mine")
    twice = tmp_path / "twice.yaml"
    twice.write_text("name: twice\nseed: 1\nseed: 2\n")
    smoke = ["--config", "configs/rllib_smoke.yaml"]
    for args, runs, words in (
        ([*smoke, "--fresh"], tmp_path, "is not a train_rllib.py run folder"),
        (smoke, afile, "README.md is a file, not a folder: give --runs a folder"),
        (
            [*smoke, "--config", "configs/rllib_batched_smoke.yaml"],
            tmp_path,
            "--config given 2 times",
        ),
        (["--config", str(twice)], tmp_path, "key 'seed' given twice (line 3)"),
    ):
        proc = run_train(*args, runs=runs, timeout=60)
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 2 and len(lines) == 1 and words in lines[0], proc.stderr[-2000:]
    assert [p.name for p in mine.iterdir()] == ["notes.txt"] and afile.read_text() == "# mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md", "rllib", "twice.yaml"]
