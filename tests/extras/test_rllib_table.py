"""RLlib on the batched engine: the table as a next-step-autoreset vector env, and train.py's
network as an RLlib module."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from agents.learned import PolicySpec
from agents.training.table import Pool
from allfives_env.core.rules import Rules
from allfives_env.envs.settings import EnvConfigError
from allfives_env.vector.single_agent import LearnerBatch
from allfives_rllib.vector_env import TableSettings, TableVectorEnv

N = 8


def table_config(rules: Rules, **extra: Any) -> dict[str, Any]:
    return {
        "rules": dataclasses.asdict(rules), "num_envs": N, "action_features": "outlook",
        "reward": "points+win", "baselines": ["heuristic", "greedy"], **extra,
    }  # fmt: skip


def table_and_module(rules: Rules, **model: Any) -> tuple[TableVectorEnv, Any]:
    """A table with the critic's state, and a fresh scorer module for it (``model``: its
    ``model_config`` beside the spec)."""
    from allfives_rllib.scorer_module import ScorerModule

    env = TableVectorEnv(table_config(rules, critic_state=True))
    module = ScorerModule(
        observation_space=env.single_observation_space,
        action_space=env.single_action_space,
        model_config={"spec": PolicySpec(rules, "outlook").to_json(), **model},
    )
    return env, module


def first_legal(masks: np.ndarray) -> np.ndarray:
    return np.asarray(masks > 0).argmax(axis=1).astype(np.int64)


@pytest.mark.parametrize(
    ("preset", "players"), [("pagat", 2), ("five_up", 3), ("pagat", 4), ("pyatyorka", 4)]
)
def test_next_step_autoreset_plays_each_game_as_the_same_step_batch(
    preset: str, players: int
) -> None:
    """Game by game, the table env's decisions, rewards and episode ends are the same-step
    batch's, with one reset step (reward 0, the action ignored) after every episode's end."""
    rules = Rules.preset(preset, players)
    env = TableVectorEnv(table_config(rules, episode="hand"))
    ref = LearnerBatch(
        N, rules, episode="hand", reward="points+win", action_features="outlook",
        opponents="random",
    )  # fmt: skip
    pool = Pool(TableSettings(["heuristic", "greedy"], 1.0, 8), PolicySpec(rules, "outlook"))
    ref.set_lineup(pool.agents, pool.pick)
    got: list[list[Any]] = [[] for _ in range(N)]
    want: list[list[Any]] = [[] for _ in range(N)]
    obs, _ = env.reset(seed=5)
    r = ref.reset(5)
    assert np.array_equal(obs["observations"], r.obs)
    waiting = np.zeros(N, bool)
    rng = np.random.default_rng(0)
    for _ in range(120):
        acts = first_legal(obs["action_mask"])
        acts[waiting] = rng.integers(0, env.single_action_space.n, int(waiting.sum()))  # ignored
        for i in np.flatnonzero(~waiting):
            got[i].append(("act", obs["observations"][i].tobytes(), int(acts[i])))
        obs, rew, term, trunc, _ = env.step(acts)
        for i in range(N):
            if waiting[i]:
                assert rew[i] == 0.0 and not term[i]
                got[i].append(("first", obs["observations"][i].tobytes()))
            else:
                got[i].append(("reward", float(rew[i]), bool(term[i])))
                if term[i]:
                    got[i].append(("last", obs["observations"][i].tobytes()))
                    assert not obs["action_mask"][i].any()
        waiting = term | trunc
    # the same decisions through the same-step batch, as many as each game made above
    decisions = [sum(1 for e in g if e[0] == "act") for g in got]
    obs_now, masks_now = r.obs, r.masks
    for _ in range(max(decisions)):
        acts = first_legal(masks_now)
        for i in range(N):
            if len(want[i]) < len(got[i]):
                want[i].append(("act", obs_now[i].tobytes(), int(acts[i])))
        s = ref.step(acts)
        for i in range(N):
            if len(want[i]) < len(got[i]):
                want[i].append(("reward", float(s.rewards[i]), bool(s.terminated[i])))
                if s.terminated[i]:
                    want[i].append(("last", s.final_obs[i].tobytes()))
                    want[i].append(("first", s.obs[i].tobytes()))
        obs_now, masks_now = s.obs, s.masks
    for i in range(N):
        assert got[i] == want[i][: len(got[i])], f"game {i}"
    assert sum(e[0] == "last" for g in got for e in g) >= N  # episodes did end


def test_the_state_is_the_critics_alone_and_the_mask_is_the_legal_actions() -> None:
    rules = Rules.preset("pagat", 2)
    env = TableVectorEnv(table_config(rules, critic_state=True))
    obs, _ = env.reset(seed=1)
    assert set(obs) == {"observations", "action_mask", "state"}
    assert obs["state"].shape == (N, env.state_size)
    assert np.array_equal(obs["action_mask"] > 0, env.batch.masks() > 0)
    for key, space in env.single_observation_space.spaces.items():
        assert space.contains(obs[key][0]), key


def test_a_snapshot_takes_seats_at_the_table() -> None:
    pytest.importorskip("torch")
    from allfives_rllib.scorer_module import ScorerModule

    rules = Rules.preset("pagat", 2)
    env = TableVectorEnv(table_config(rules, baseline_prob=0.0))
    module = ScorerModule(
        observation_space=env.single_observation_space,
        action_space=env.single_action_space,
        model_config={"spec": PolicySpec(rules, "outlook").to_json(), "actor_arch": [16]},
    )
    env.add_snapshot(module.to_numpy())
    obs, _ = env.reset(seed=2)
    for _ in range(30):
        obs, *_ = env.step(first_legal(obs["action_mask"]))
    seated = env.batch.table[env.batch.table >= 0]
    assert (seated == len(env.pool.baselines)).all()  # baseline_prob 0: the snapshot alone


def test_a_bad_config_is_one_error() -> None:
    with pytest.raises(EnvConfigError, match="rules"):
        TableVectorEnv({"num_envs": 4})


def test_the_module_scores_legal_actions_only_and_matches_its_numpy_twin() -> None:
    torch = pytest.importorskip("torch")
    from ray.rllib.core.columns import Columns

    env, module = table_and_module(
        Rules.preset("pagat", 2), actor_arch=[32, 32], critic_arch=[32], context_dim=8,
        critic_state=True,
    )  # fmt: skip
    obs, _ = env.reset(seed=3)
    batch = {Columns.OBS: {k: torch.as_tensor(v) for k, v in obs.items()}}
    logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].detach().numpy()
    legal = obs["action_mask"] > 0
    assert (logits[~legal] <= -1e8).all() and (logits[legal] > -1e8).all()
    twin = module.to_numpy().logits(obs["observations"])
    assert np.allclose(logits[legal], twin[legal], atol=1e-4)
    values = module.compute_values(batch)
    assert values.shape == (N,)


# ----------------------------------------------------------------------------- the trainer

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ["--config", "configs/rllib_batched_smoke.yaml"]


def run_train(*args: str, runs: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "train_rllib.py"), "--runs", str(runs), *args],
        capture_output=True, text=True, timeout=timeout, cwd=ROOT,
    )  # fmt: skip


@pytest.fixture(scope="module")
def batched_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs = tmp_path_factory.mktemp("rllib_batched")
    proc = run_train(*SMOKE, runs=runs)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return runs / "rllib" / "rllib_batched_smoke"


def test_the_batched_trainer_warms_up_trains_seats_snapshots_and_reports(
    batched_run: Path,
) -> None:
    report = json.loads((batched_run / "report.json").read_text())
    assert report["config"]["engine"] == "batched"
    assert report["env_steps"] >= 1536
    snapshots = report["league"]["snapshots"]
    assert len(snapshots) >= 3  # the warm-started network, then one every 512 steps
    assert all((batched_run / "snapshots" / name).is_file() for name in snapshots)
    assert sum(r["env_steps"] for r in report["env_runners"]) >= 1536
    assert set(report["final_eval"]) == {"random", "greedy"}
    # the warm start taught the network the imitation teacher's game: it beats random
    first = report["history"][0]
    assert first["results"]["random"]["win_rate"] >= 0.5


def test_the_batched_checkpoint_is_an_agent(batched_run: Path) -> None:
    from agents.registry import make_agent

    for folder in (batched_run, batched_run / "checkpoint"):
        agent = make_agent(f"rllib:{folder}")
        assert agent.name == "rllib:rllib_batched_smoke"
    cli = subprocess.run(
        [sys.executable, "-m", "allfives_env", "eval", f"rllib:{batched_run}/checkpoint",
         "greedy", "--matches", "2", "--processes", "1"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert cli.returncode == 0, cli.stderr


def test_a_batched_run_resumes_with_its_snapshots(tmp_path: Path) -> None:
    args = [*SMOKE, "--total_timesteps", "512", "--final_eval_matches", "0"]
    first = run_train(*args, runs=tmp_path)
    assert first.returncode == 0, first.stderr[-2000:]
    folder = tmp_path / "rllib" / "rllib_batched_smoke"
    state = json.loads((folder / "state.json").read_text())
    args[args.index("--total_timesteps") + 1] = "1280"
    second = run_train(*args, runs=tmp_path)
    assert second.returncode == 0, second.stderr[-2000:]
    resuming = f"resuming {folder} from step {state['step']:,} of 1,280, after its warm start "
    assert resuming + "(512 imitation samples)" in second.stdout, second.stdout
    after = json.loads((folder / "state.json").read_text())
    assert after["step"] >= 1280 > state["step"]
    kept = state["league"]["snapshots"]
    assert after["league"]["snapshots"][: len(kept)] == kept
    assert len(after["league"]["snapshots"]) > len(kept)
    # a snapshot the league seats, lost: one line, before anything is written
    (folder / "snapshots" / kept[0]).unlink()
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    args[args.index("--total_timesteps") + 1] = "2048"
    third = run_train(*args, runs=tmp_path)
    lines = third.stderr.strip().splitlines()
    assert third.returncode == 2 and len(lines) == 1, third.stderr[-2000:]
    assert f"snapshots/{kept[0]} is missing" in lines[0] and "--fresh" in lines[0]
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--engine", "pettingzoo"], "'engine' must be one of batched, aec"),
        (["--action_features", "basic"], "'action_features' must be outlook or lookahead"),
        (["--baselines", "nobody"], "config 'baselines': unknown agent 'nobody'"),
        (["--baseline_prob", "1.5"], "'baseline_prob' must be"),
        (["--num_env_runners", "64"], "'train_batch_size' must be at least one step"),
    ],
)
def test_bad_batched_settings_are_one_line_and_exit_2(
    tmp_path: Path, args: list[str], message: str
) -> None:
    proc = run_train(*SMOKE, *args, runs=tmp_path, timeout=60)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr
    assert not (tmp_path / "rllib").exists()


def test_the_actor_never_reads_the_state() -> None:
    torch = pytest.importorskip("torch")
    from ray.rllib.core.columns import Columns

    env, module = table_and_module(
        Rules.preset("pagat", 4), actor_arch=[16], critic_arch=[16], context_dim=4,
        critic_state=True,
    )  # fmt: skip
    obs, _ = env.reset(seed=4)
    batch = {Columns.OBS: {k: torch.as_tensor(v) for k, v in obs.items()}}
    logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
    values = module.compute_values(batch)
    noisy = dict(batch[Columns.OBS], state=torch.rand_like(batch[Columns.OBS]["state"]))
    logits2 = module.forward_inference({Columns.OBS: noisy})[Columns.ACTION_DIST_INPUTS]
    assert torch.equal(logits, logits2)
    assert not torch.equal(values, module.compute_values({Columns.OBS: noisy}))


def test_the_table_module_id_is_rllibs_single_agent_default() -> None:
    from ray.rllib.core import DEFAULT_MODULE_ID

    from allfives_rllib.agent import TABLE_MODULE_ID

    assert TABLE_MODULE_ID == DEFAULT_MODULE_ID


def test_actions_that_are_not_integers_are_refused_not_truncated() -> None:
    from allfives_env.vector.errors import ActionArrayError

    env = TableVectorEnv(table_config(Rules.preset("pagat", 2)))
    obs, _ = env.reset(seed=6)
    before = obs["observations"].copy()
    with pytest.raises(ActionArrayError, match="integers"):
        env.step(first_legal(obs["action_mask"]) + 0.9)
    obs, *_ = env.step(first_legal(obs["action_mask"]))  # nothing had moved: still legal
    assert not np.array_equal(obs["observations"], before)


def test_the_env_runner_plays_and_values_its_rollout_as_train_py_does(tmp_path: Path) -> None:
    """RLlib's env runner on the table (arrays, no episodes) and ``train.py``'s learner, from
    the same seeds and weights: the same positions, actions, log-probabilities, critic's
    state, advantages and returns, step for step."""
    import torch as th

    from agents.training.learner import Learner
    from agents.training.run import Run
    from agents.training.selfplay_config import Config
    from allfives_rllib.algorithm import batched_config
    from allfives_rllib.config import RLlibConfig
    from allfives_rllib.table_runner import TableEnvRunner, train_batch

    shared: dict[str, Any] = dict(
        num_players=3, preset="five_up", critic_state=True, actor_arch=[16], critic_arch=[16],
        context_dim=4, baselines=["heuristic", "greedy"], num_steps=6, seed=5,
    )  # fmt: skip
    cfg = RLlibConfig(**shared, num_envs_per_env_runner=N, train_batch_size=6 * N)
    runner = TableEnvRunner(config=batched_config(cfg))
    learner = Learner.at_new_table(
        Config(**shared, num_envs=N, progress=False), Run(Config(), tmp_path)
    )
    runner.module.net.load_state_dict(learner.net.state_dict())
    learner.batch.reset(5)
    th.manual_seed(11)
    [fragment] = runner.sample()
    th.manual_seed(11)
    learner.collect(imitation=False)
    adv, returns = learner.advantages()
    ro, size = learner.rollout, 6 * N
    expected = {
        "observations": ro.obs.reshape(size, -1), "action_mask": ro.masks.reshape(size, -1),
        "state": ro.privileged.reshape(size, -1), "actions": ro.actions.reshape(size),
        "logp": ro.logprobs.reshape(size), "values": ro.values.reshape(size),
        "advantages": adv.reshape(size), "returns": returns.reshape(size),
    }  # fmt: skip
    for key, want in expected.items():
        np.testing.assert_array_equal(fragment[key], want.numpy(), err_msg=key)
    assert fragment["state"].shape[1] > 0
    assert (fragment["returns"] != fragment["values"]).any()  # rewards reached the targets
    # the next rollout goes on where this one stopped, as train.py's does
    th.manual_seed(12)
    [again] = runner.sample()
    th.manual_seed(12)
    learner.collect(imitation=False)
    np.testing.assert_array_equal(again["actions"], learner.rollout.actions.reshape(size).numpy())
    # two fragments join into one batch, the advantages standardized over it
    batch = train_batch([fragment, again], "default_policy").policy_batches["default_policy"]
    assert len(batch) == 2 * size
    assert abs(float(batch["advantages"].mean())) < 1e-5
    assert abs(float(batch["advantages"].std()) - 1) < 1e-3


def test_a_remote_env_runners_arrays_pack_and_unpack_exactly() -> None:
    from allfives_rllib.table_runner import pack, unpack

    rng = np.random.default_rng(0)
    array = np.where(rng.random((6, 5, 7)) < 0.1, rng.standard_normal((6, 5, 7)), 0.0)
    array = array.astype(np.float32)
    packed = pack(array)
    assert len(packed["values"]) == np.count_nonzero(array) > 0
    back = unpack(packed)
    assert back.dtype == array.dtype and np.array_equal(back, array)
    assert unpack(array) is array  # an array not packed passes as it is
    assert np.array_equal(unpack(pack(np.zeros((3, 0), np.float32))), np.zeros((3, 0)))
