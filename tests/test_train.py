"""train.py end to end: the smoke config, config errors, resume after an interruption."""

from __future__ import annotations

import io
import json
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

ROOT = Path(__file__).resolve().parent.parent
TRAIN = [sys.executable, str(ROOT / "train.py")]


def run_train(*args: str, runs: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TRAIN, "--runs", str(runs), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )


def policy_weights(path: Path) -> list[np.ndarray]:
    with zipfile.ZipFile(path) as z, np.load(io.BytesIO(z.read("allfives_policy.npz"))) as npz:
        return [npz[k] for k in sorted(npz.files) if k != "activation"]


def test_smoke_config_trains_evaluates_and_reports(tmp_path: Path) -> None:
    proc = run_train("--config", "configs/smoke.yaml", runs=tmp_path)
    assert proc.returncode == 0, proc.stderr
    run = tmp_path / "smoke"
    report = json.loads((run / "report.json").read_text())
    assert set(report["final_eval"]) == {"random", "greedy"}
    for res in report["final_eval"].values():
        assert 0.0 <= res["ci95"][0] <= res["win_rate"] <= res["ci95"][1] <= 1.0
    assert [h["step"] for h in report["history"]] == [0, 2048, 4096]
    shares = report["throughput"]["time_share"]
    assert set(shares) == {"env", "policy", "update", "eval"}
    assert abs(sum(shares.values()) - 1) < 1e-6
    assert (run / "learning_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert any((run / "tb").rglob("events.out.tfevents.*"))
    # the checkpoint is an agent of the registry, usable by eval and play
    from agents.registry import make_agent
    from allfives_env import Game, Rules

    agent = make_agent(str(run / "best.zip"))
    game = Game(Rules.preset("pagat", 2), __import__("random").Random(0))
    seat = game.current_player
    assert seat is not None
    assert agent.act(game.view(seat), __import__("random").Random(0)) in game.legal_actions()
    # running the finished run again does not restart it
    again = run_train("--config", "configs/smoke.yaml", runs=tmp_path)
    assert again.returncode == 0 and "is complete" in again.stdout


def test_an_interrupted_run_resumes_to_the_same_result(tmp_path: Path) -> None:
    args = [
        "--config", "configs/smoke.yaml", "--total_timesteps", "6144", "--n_envs", "2",
        "--eval_every", "100000", "--final_eval_matches", "2",
    ]  # fmt: skip
    straight = run_train(*args, "--name", "straight", runs=tmp_path)
    assert straight.returncode == 0, straight.stderr
    # the same run, stopped by Ctrl-C as soon as a resume point exists, then run again
    cmd = [*TRAIN, "--runs", str(tmp_path), *args, "--name", "broken"]
    proc = subprocess.Popen(
        cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    state = tmp_path / "broken" / "state.pkl"
    deadline = time.time() + 120
    while not state.exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    interrupted = proc.returncode == 130
    print("interrupted:", interrupted)
    if interrupted:
        assert "run the same command to continue" in err
    resumed = run_train(*args, "--name", "broken", runs=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    if interrupted:
        assert "resuming" in resumed.stdout
    a = policy_weights(tmp_path / "straight" / "resume.zip")
    b = policy_weights(tmp_path / "broken" / "resume.zip")
    assert len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def test_a_different_config_for_a_run_is_refused(tmp_path: Path) -> None:
    args = [
        "--config",
        "configs/smoke.yaml",
        "--total_timesteps",
        "1024",
        "--final_eval_matches",
        "0",
    ]
    assert run_train(*args, runs=tmp_path).returncode == 0
    proc = run_train(*args[:-4], "--total_timesteps", "2048", runs=tmp_path)
    assert proc.returncode == 2
    assert "different config" in proc.stderr and "--fresh" in proc.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--nonsense", "1"], "unrecognized"),
        (["--n_envs", "0"], "n_envs"),
        (["--n_envs", "two"], "n_envs"),
        (["--preset", "dominos"], "unknown preset"),
        (["--baselines", "greedy,nobody"], "unknown agent"),
        (["--episode", "game"], "episode"),
        (["--config", "no/such.yaml"], "cannot read config"),
    ],
)
def test_bad_config_fails_before_training(tmp_path: Path, args: list[str], message: str) -> None:
    proc = run_train(*args, runs=tmp_path, timeout=60)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in proc.stderr
    assert not any(tmp_path.iterdir())


def test_unknown_yaml_key_is_an_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("preset: pagat\nlearning_rat: 0.1\n")
    proc = run_train("--config", str(bad), runs=tmp_path / "runs", timeout=60)
    assert proc.returncode == 2 and "unknown config key 'learning_rat'" in proc.stderr


def test_every_config_field_has_a_docstring_and_configs_use_only_fields() -> None:
    sys.path.insert(0, str(ROOT))
    import train

    docs = train._field_docs()
    import dataclasses

    names = [f.name for f in dataclasses.fields(train.Config)]
    assert set(docs) == set(names) and all(docs.values())
    import yaml

    for path in (ROOT / "configs").glob("*.yaml"):
        keys = set(yaml.safe_load(path.read_text()) or {})
        assert keys <= set(names), (path.name, keys - set(names))
