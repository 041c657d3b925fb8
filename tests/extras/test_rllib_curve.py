"""The RLlib trainer's learning curve (``curve_points``), the budget its report states, and the
tabula-rasa table (no warm start, no baselines) — the ``[rllib]`` extra; skipped without it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray.rllib")

from conftest import run_trainer

from allfives_rllib.curve import Curve, point, read_index

ROOT = Path(__file__).resolve().parents[2]
TRAIN = [sys.executable, str(ROOT / "train_rllib.py")]
SMOKE = ["--config", "configs/rllib_batched_smoke.yaml"]
TABULA_RASA = [*SMOKE, "--imitation_samples", "0", "--baselines", "--baseline_prob", "0"]
"""The smoke table with no warm start and no baselines: the learner meets only itself."""


def run_train(*args: str, runs: Path, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return run_trainer(TRAIN, runs, *args, timeout=timeout)


@pytest.fixture(scope="module")
def curve_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The batched smoke run (a warm start of 512 samples, 1,536 env steps) with 2 points."""
    runs = tmp_path_factory.mktemp("rllib_curve")
    proc = run_train(*SMOKE, "--curve_points", "2", runs=runs)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return runs / "rllib" / "rllib_batched_smoke"


def test_the_curve_points_rise_to_the_reports_env_steps(curve_run: Path) -> None:
    report = json.loads((curve_run / "report.json").read_text())
    points = json.loads((curve_run / "curve" / "index.json").read_text())["points"]
    steps = [p["env_steps"] for p in points]
    assert len(steps) == 2 and steps == sorted(set(steps))
    assert steps[0] >= 1536 // 2 and steps[-1] == report["env_steps"] >= 1536
    assert [p["agent"] for p in points] == [f"rllib:curve/{s:012d}" for s in steps]
    assert report["curve"] == points
    assert report["imitation_samples"] == 512  # the warm start's samples, not env steps
    assert report["teacher_positions"] == 0  # the heuristic teacher searches nothing


def test_each_curve_point_is_an_agent(curve_run: Path) -> None:
    from agents.eval.tournament import evaluate
    from allfives_env.core.rules import Rules

    points = json.loads((curve_run / "curve" / "index.json").read_text())["points"]
    for p in points:
        spec = f"rllib:{curve_run / p['agent'].removeprefix('rllib:')}"
        res = evaluate(Rules.preset("pagat", 2), [spec, "random"], matches=2, seed=0)
        assert res.matches == 2


def test_a_tabula_rasa_run_resumes_keeping_its_points(tmp_path: Path) -> None:
    args = [*TABULA_RASA, "--curve_points", "2", "--final_eval_matches", "0"]
    first = run_train(*args, "--total_timesteps", "768", runs=tmp_path)
    assert first.returncode == 0, first.stderr[-2000:]
    folder = tmp_path / "rllib" / "rllib_batched_smoke"
    kept = read_index(folder)
    assert [p["env_steps"] for p in kept] == [512, 768]  # 384 and 768, at 256-step iterations
    saved = (folder / "curve" / "000000000768" / "allfives.json").read_bytes()
    second = run_train(*args, "--total_timesteps", "1536", runs=tmp_path)
    assert second.returncode == 0, second.stderr[-2000:]
    report = json.loads((folder / "report.json").read_text())
    assert report["curve"] == [*kept, point(report["env_steps"])]
    assert (folder / "curve" / "000000000768" / "allfives.json").read_bytes() == saved
    assert report["imitation_samples"] == report["teacher_positions"] == 0
    assert report["config"]["baselines"] == [] and len(report["league"]["snapshots"]) >= 2
    # a damaged index: one line, before anything is written
    (folder / "curve" / "index.json").write_text('{"points": [')
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    third = run_train(*args, "--total_timesteps", "2048", runs=tmp_path, timeout=60)
    lines = third.stderr.strip().splitlines()
    assert third.returncode == 2 and len(lines) == 1, third.stderr[-2000:]
    assert "curve/index.json is damaged" in lines[0] and "--fresh" in lines[0]
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize("value", ["-1", "1001"])
def test_curve_points_out_of_range_are_one_line_and_exit_2(tmp_path: Path, value: str) -> None:
    proc = run_train(*SMOKE, "--curve_points", value, runs=tmp_path, timeout=60)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert f"config 'curve_points' must be from 0 to 1000, not {value}" in lines[0]
    assert not (tmp_path / "rllib").exists()


def fake_point(run_dir: Path, steps: int) -> None:
    """A point folder that :func:`read_index` accepts (its spec, an empty module folder)."""
    from agents.learned import PolicySpec
    from allfives_env.core.rules import Rules
    from allfives_rllib.agent import MODULE_DIR, MODULE_ID

    folder = run_dir / "curve" / f"{steps:012d}"
    (folder / MODULE_DIR / MODULE_ID).mkdir(parents=True)
    spec = PolicySpec(Rules.preset("pagat", 2), "outlook").to_json()
    (folder / "allfives.json").write_text(json.dumps(spec))


def test_points_are_due_at_each_threshold_and_a_resume_drops_the_later_ones(
    tmp_path: Path,
) -> None:
    curve = Curve(tmp_path, total=1000, wanted=4, points=[])
    for steps in range(0, 1201, 100):  # iteration boundaries; thresholds 250, 500, 750, 1000
        if curve.due(steps):
            curve.points.append(point(steps))
    assert [p["env_steps"] for p in curve.points] == [300, 500, 800, 1000]
    curve.points = [point(300)]
    assert not curve.due(300) and not curve.due(400) and curve.due(500)
    assert not Curve(tmp_path, 1000, 0, []).due(1000)  # no curve asked for
    from allfives_rllib.curve import write_index

    for steps in (300, 600):
        fake_point(tmp_path, steps)
    write_index(tmp_path, [point(300), point(600)])
    (tmp_path / "curve" / "000000000700.tmp").mkdir()  # half written when the run stopped
    resumed = Curve.resume(tmp_path, 1000, 4, step=500)  # the checkpoint was at 500
    assert resumed.points == read_index(tmp_path) == [point(300)]
    assert sorted(p.name for p in (tmp_path / "curve").iterdir()) == ["000000000300", "index.json"]
    assert resumed.due(600)


def test_the_tabula_rasa_config_seats_only_the_learner() -> None:
    from allfives_rllib.config import ConfigError, load_yaml

    cfg = load_yaml(ROOT / "configs" / "rllib_tabula_rasa.yaml")
    cfg.check()
    assert cfg.engine == "batched" and cfg.imitation_samples == 0
    assert cfg.baselines == [] and cfg.baseline_prob == 0
    assert cfg.total_timesteps == 2_000_000 and cfg.curve_points == 10
    assert cfg.eval_opponents == ["greedy", "heuristic:hoard=true"]
    cfg.baseline_prob = 0.5
    with pytest.raises(ConfigError, match="'baselines' must be at least one agent unless"):
        cfg.check()
    cfg.baseline_prob, cfg.imitation_samples = 0.0, 512
    with pytest.raises(ConfigError, match="'imitation_samples' must be 0 with no baselines"):
        cfg.check()
