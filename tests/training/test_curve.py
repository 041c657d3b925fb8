"""train.py's learning curve (``curve_points``), the budget its report says, and the tabula-rasa
config (no warm start, no baselines: the learner meets only its own snapshots)."""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import run_trainer

pytest.importorskip("sb3_contrib")

ROOT = Path(__file__).resolve().parents[2]
TRAIN = [sys.executable, str(ROOT / "train.py")]

#: configs/tabula_rasa.yaml in miniature: rollouts of 8 games × 32 steps, a tiny network, a
#: 4-match evaluation at the start and at the end
TINY_TABULA_RASA = [
    "--config", "configs/tabula_rasa.yaml", "--num_envs", "8", "--num_steps", "32",
    "--num_minibatches", "4", "--update_epochs", "1", "--actor_arch", "16", "--critic_arch",
    "16", "--context_dim", "4", "--snapshot_every", "256", "--eval_every", "100000",
    "--eval_matches", "4", "--eval_processes", "1", "--no_progress", "--curve_points", "3",
]  # fmt: skip


def test_the_curve_keeps_playable_policies_and_the_report_says_the_budget(
    tmp_path: Path,
) -> None:
    from agents.eval.tournament import evaluate
    from allfives_env import Rules

    proc = run_trainer(TRAIN, tmp_path, *TINY_TABULA_RASA, "--total_timesteps", "768")
    assert proc.returncode == 0, proc.stderr[-2000:]
    run = tmp_path / "tabula_rasa"
    index = json.loads((run / "curve" / "index.json").read_text())
    points = index["points"]
    assert [p["env_steps"] for p in points] == [256, 512, 768]  # thresholds 256, 512, 768
    assert [p["agent"] for p in points] == [f"curve/{s:012d}.zip" for s in (256, 512, 768)]
    report = json.loads((run / "report.json").read_text())
    assert report["env_steps"] == points[-1]["env_steps"] == report["steps"]["ppo"] == 768
    assert report["imitation_samples"] == 0 and report["teacher_positions"] == 0
    assert report["curve"] == points
    assert report["config"]["baselines"] == [] and report["config"]["baseline_prob"] == 0.0
    # the last point is the final weights; every point is an agent, played by its path
    assert (run / points[-1]["agent"]).read_bytes() == (run / "latest.zip").read_bytes()
    rules = Rules.preset("pagat", 2)
    for p in points:
        result = evaluate(rules, [str(run / p["agent"]), "random"], matches=2, seed=0)
        assert result.matches == 2
    # a longer total resumes the run: its points are kept, the next threshold (of 427, 854,
    # 1280) computed from step 768, in a folder that holds curve/
    longer = run_trainer(TRAIN, tmp_path, *TINY_TABULA_RASA, "--total_timesteps", "1280")
    assert longer.returncode == 0, longer.stderr[-2000:]
    assert "resuming" in longer.stdout
    points = json.loads((run / "curve" / "index.json").read_text())["points"]
    assert [p["env_steps"] for p in points] == [256, 512, 768, 1024, 1280]
    report = json.loads((run / "report.json").read_text())
    assert report["env_steps"] == 1280 and report["curve"] == points
    assert sorted(f.name for f in (run / "curve").iterdir()) == sorted(
        ["index.json", *(Path(p["agent"]).name for p in points)]
    )


def test_the_curves_thresholds() -> None:
    from agents.training.curve import crossed as curve_reached
    from agents.training.curve import due as curve_due

    # 2,000 steps in 3 points: thresholds 667, 1334, 2000, each saved at the first update at or
    # after it (updates of 512 steps: 1024, 1536, 2048)
    updates = range(0, 2048 + 1, 512)
    saved = [b for a, b in itertools.pairwise(updates) if curve_due(a, b, 2000, 3)]
    assert saved == [1024, 1536, 2048]
    assert [curve_reached(s, 2000, 3) for s in (0, 666, 667, 1333, 1334, 1999, 2000, 9000)] == [
        0, 0, 1, 1, 2, 2, 3, 3,
    ]  # fmt: skip
    # an update that crosses two thresholds saves one point; none past the last
    assert curve_due(0, 1400, 2000, 3) and not curve_due(2000, 2512, 2000, 3)
    # a resumed run goes on from its own step (here under a longer total)
    assert not curve_due(768, 800, 1280, 3) and curve_due(768, 1024, 1280, 3)
    assert curve_reached(500, 1000, 0) == 0 and curve_reached(500, 0, 3) == 0


def test_teacher_positions_count_a_search_teachers_labels() -> None:
    from agents.training.evaluation import teacher_positions
    from agents.training.selfplay_config import Config

    assert teacher_positions(Config(imitation_teacher="heuristic"), 4096) == 0
    assert teacher_positions(Config(imitation_teacher="batchsearch:worlds=2"), 4096) == 4096
    values = Config(imitation_teacher="batchsearch:worlds=2", imitation_targets="values")
    assert teacher_positions(values, 2048) == 2048 and teacher_positions(values, 0) == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--curve_points", "-1"], "'curve_points' must be from 0 to 1000, not -1"),
        (["--curve_points", "1001"], "'curve_points' must be from 0 to 1000"),
        (["--curve_points", "2", "--total_timesteps", "0", "--imitation_samples", "1024"],
         "0 when total_timesteps is 0"),
    ],
)  # fmt: skip
def test_a_bad_curve_points_is_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    proc = run_trainer(TRAIN, tmp_path, "--config", "configs/tabula_rasa.yaml", *args, timeout=60)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and message in lines[0], proc.stderr
    assert not any(tmp_path.iterdir())


def test_train_py_trains_on_a_small_set_and_its_curve_is_measured_exactly(
    tmp_path: Path,
) -> None:
    from agents.exact.policy import policy_of_agent
    from agents.exact.solver import Solver
    from agents.exact.tree import build_tree
    from agents.learned import load_learned
    from allfives_env import Rules

    tiny = ["--max_pip", "2", "--hand_size", "2", "--episode", "hand", "--reward", "points"]
    proc = run_trainer(TRAIN, tmp_path, *TINY_TABULA_RASA, *tiny, "--total_timesteps", "512")
    assert proc.returncode == 0, proc.stderr[-2000:]
    run = tmp_path / "tabula_rasa"
    rules = Rules.preset("pagat", 2, max_pip=2, hand_size=2)
    report = json.loads((run / "report.json").read_text())
    assert report["config"]["max_pip"] == 2 and report["env_steps"] == 512
    solver = Solver(build_tree(rules))
    for p in json.loads((run / "curve" / "index.json").read_text())["points"]:
        agent = load_learned(str(run / p["agent"]), sample=True)
        agent.check_rules(rules)
        assert 0 < solver.nash_conv(policy_of_agent(solver.tree, agent)) < 10


def test_rllib_s_aec_env_plays_a_small_set_from_its_config() -> None:
    """The AEC engine's env config carries a smaller set's rules whole (the batched engine's
    table always did; the next test trains on it)."""
    pytest.importorskip("ray")
    from allfives_rllib.config import RLlibConfig
    from allfives_rllib.env import AllFivesMultiAgentEnv

    cfg = RLlibConfig(engine="aec", max_pip=2, hand_size=2, episode="hand")
    env = AllFivesMultiAgentEnv(cfg.env_config())
    assert env.rules.max_pip == 2 and env.rules.hand_size == 2
    obs, _ = env.reset(seed=1)
    done = False
    while not done:
        agent = next(iter(obs))
        legal = np.flatnonzero(obs[agent]["action_mask"])
        obs, _, terminated, _, _ = env.step({agent: int(legal[0])})
        done = terminated["__all__"]
    default = RLlibConfig(engine="aec").env_config()
    assert default["preset"] == "pagat" and "rules" not in default


@pytest.mark.parametrize("engine", ["batched"])
def test_rllib_trains_on_a_small_set_and_is_measured_exactly(tmp_path: Path, engine: str) -> None:
    """RLlib's PPO on the tiny game, its policy measured by the exact solver."""
    pytest.importorskip("ray")
    from agents.exact.policy import policy_of_agent
    from agents.exact.solver import Solver
    from agents.exact.tree import build_tree
    from agents.registry import make_agent
    from allfives_env import Rules

    config = f"configs/{'rllib_batched_smoke' if engine == 'batched' else 'rllib_smoke'}.yaml"
    rllib = [sys.executable, str(ROOT / "train_rllib.py"), "--config", config]
    tiny = ["--max_pip", "2", "--hand_size", "2", "--episode", "hand", "--name", "tiny"]
    out = run_trainer(rllib, tmp_path, *tiny, "--total_timesteps", "512", timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    agent = make_agent(f"rllib:{tmp_path / 'rllib' / 'tiny'}")
    rules = Rules.preset("pagat", 2, max_pip=2, hand_size=2)
    agent.check_rules(rules)
    solver = Solver(build_tree(rules))
    assert 0 <= solver.nash_conv(policy_of_agent(solver.tree, agent)) < 10
