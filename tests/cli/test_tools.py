"""The measuring tools in ``tools/``: ``offline_fit.py`` end to end on a tiny table, and their
answers to bad input (one usage line, exit status 2, nothing written)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

th = pytest.importorskip("torch")
pytest.importorskip("numba")

ROOT = Path(__file__).resolve().parents[2]
OFFLINE_FIT = [sys.executable, str(ROOT / "tools" / "offline_fit.py")]

TINY = """\
name: tiny
preset: pagat
num_players: 2
action_features: {features}
start_scores: 0.5
actor_arch: [16]
critic_arch: [16]
context_dim: 4
feature_arch: [8]
num_envs: 4
num_steps: 8
num_minibatches: 2
imitation_teacher: "batchsearch:worlds=2"
imitation_targets: values
teacher_processes: 1
total_timesteps: 0
"""


def load_tool(name: str) -> Any:
    """The module of ``tools/NAME.py``, imported from its file."""
    spec = importlib.util.spec_from_file_location(f"tools_{name}", ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def tool(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=600)


def tiny_config(tmp_path: Path, features: str = "lookahead") -> Path:
    path = tmp_path / f"tiny_{features}.yaml"
    path.write_text(TINY.format(features=features), encoding="utf-8")
    return path


def test_offline_fit_collects_values_and_fits_a_network_judged_elsewhere(tmp_path: Path) -> None:
    from agents.learned import read_checkpoint

    cfg = str(tiny_config(tmp_path))
    for name, rollouts, seed in (("a.npz", "2", "1"), ("b.npz", "1", "2")):
        done = tool([*OFFLINE_FIT, "collect", name, "--rollouts", rollouts, "--seed", seed,
                     "--config", cfg], tmp_path)  # fmt: skip
        assert done.returncode == 0, done.stderr
    with np.load(tmp_path / "a.npz") as z:
        obs, masks, values = z["obs"], z["masks"], z["values"]
    assert obs.shape[:2] == masks.shape[:2] == values.shape[:2] == (16, 4)
    assert (np.isnan(values) == (masks == 0)).all()  # a value for every legal action alone
    again = tool([*OFFLINE_FIT, "collect", "c.npz", "--rollouts", "2", "--seed", "1",
                  "--config", cfg], tmp_path)  # fmt: skip
    assert again.returncode == 0
    with np.load(tmp_path / "c.npz") as z:
        assert np.array_equal(z["values"], values, equal_nan=True)  # the seed decides
    fit = tool([*OFFLINE_FIT, "fit", "a.npz", "--config", cfg, "--judge", "b.npz", "--epochs",
                "2", "--out", "fit.zip"], tmp_path)  # fmt: skip
    assert fit.returncode == 0, fit.stderr
    lines = fit.stdout.splitlines()
    assert lines[0] == "48 training positions, 16 held out"
    assert [x.split(":")[0] for x in lines[2:5]] == ["training", "held out", "held out of b.npz"]
    assert all("regret" in x for x in lines[2:5])
    spec, _ = read_checkpoint(tmp_path / "fit.zip")
    assert spec.action_features == "lookahead"
    # a share of the training games (2 of 3), the same held-out games
    part = tool([*OFFLINE_FIT, "fit", "a.npz", "--config", cfg, "--epochs", "1", "--fraction",
                 "0.5"], tmp_path)  # fmt: skip
    assert part.returncode == 0, part.stderr
    assert part.stdout.splitlines()[0] == "32 training positions, 16 held out"
    # two networks, with weight decay: each alone, then both together
    two = tool([*OFFLINE_FIT, "fit", "a.npz", "--config", cfg, "--epochs", "1", "--ensemble",
                "2", "--weight_decay", "0.01"], tmp_path)  # fmt: skip
    assert two.returncode == 0, two.stderr
    lines = two.stdout.splitlines()
    assert [x.split(",")[0].strip() for x in lines[1:6]] == [
        "network 1 fitted", "alone", "network 2 fitted", "alone", "the first 2"
    ]  # fmt: skip
    assert lines[6].startswith("training: regret") and lines[7].startswith("held out: regret")


def test_offline_fit_refuses_bad_input_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = str(tiny_config(tmp_path))
    other = str(tiny_config(tmp_path, "outlook"))
    assert tool([*OFFLINE_FIT, "collect", "a.npz", "--rollouts", "1", "--config", cfg],
                tmp_path).returncode == 0  # fmt: skip
    (tmp_path / "junk.npz").write_bytes(b"not a file collect wrote")
    whole = (tmp_path / "a.npz").read_bytes()
    (tmp_path / "truncated.npz").write_bytes(whole[: len(whole) // 2])
    np.save(tmp_path / "array.npy", np.zeros(3))
    (tmp_path / "array.npy").rename(tmp_path / "array.npz")
    (tmp_path / "kept.zip").write_bytes(b"a checkpoint of mine")
    cases = [
        (["collect", "x.npz", "--rollouts", "0", "--config", cfg], "--rollouts must be"),
        (["collect", "nowhere/x.npz", "--config", cfg], "no folder 'nowhere'"),
        (["collect", "a.npz", "--config", cfg], "OUT a.npz already exists"),
        (["collect", "x.txt", "--config", cfg], "OUT x.txt: the file name must end in .npz"),
        (["fit", "a.npz", "--config", cfg, "--out", "a.npz"], "must end in .zip"),
        (["fit", "a.npz", "--config", cfg, "--out", "kept.zip"], "--out kept.zip already exists"),
        (["fit", "a.npz", "--config", cfg, "--out", "nowhere/k.zip"], "no folder 'nowhere'"),
        (["fit", "truncated.npz", "--config", cfg], "cannot read truncated.npz"),
        (["fit", "array.npz", "--config", cfg], "cannot read array.npz"),
        (["fit", "missing.npz", "--config", cfg], "cannot read missing.npz"),
        (["fit", "junk.npz", "--config", cfg], "cannot read junk.npz"),
        (["fit", "a.npz", "--config", other], "another config's observations"),
        (["fit", "a.npz", "--config", cfg, "--judge", "missing.npz"], "cannot read missing"),
        (["fit", "a.npz", "--config", cfg, "--epochs", "0"], "--epochs must be"),
        (["fit", "a.npz", "--config", cfg, "--fraction", "0"], "--fraction must be"),
        (["fit", "a.npz", "--config", cfg, "--fraction", "1.5"], "--fraction must be"),
        (["fit", "a.npz", "--config", cfg, "--ensemble", "0"], "--ensemble must be"),
        (["fit", "a.npz", "--config", cfg, "--weight_decay", "-1"], "--weight_decay must be"),
        (["fit", "a.npz", "--config", cfg, "--weight_decay", "nan"], "--weight_decay must be"),
        (["fit", "a.npz", "--config", cfg, "--device", "tpu"], "must be auto, cpu, cuda"),
    ]
    if not th.cuda.is_available():
        cases.append((["fit", "a.npz", "--config", cfg, "--device", "cuda"], "sees no GPU"))
    # in this process (the script's entry point ran above): its usage line and error, exit 2
    offline_fit = load_tool("offline_fit")
    monkeypatch.chdir(tmp_path)
    for args, message in cases:
        monkeypatch.setattr(sys, "argv", ["offline_fit.py", *args])
        with pytest.raises(SystemExit) as stopped:
            offline_fit.main()
        err = capsys.readouterr().err
        assert stopped.value.code == 2, (args, err)
        assert message in err and "Traceback" not in err, (args, err)
        assert len(err.strip().splitlines()) <= 2, err  # usage, error
    assert sorted(p.name for p in tmp_path.glob("*.npz")) == [
        "a.npz", "array.npz", "junk.npz", "truncated.npz"
    ]  # fmt: skip
    assert (tmp_path / "kept.zip").read_bytes() == b"a checkpoint of mine"
    assert (tmp_path / "a.npz").read_bytes() == whole


def test_action_regret_refuses_a_negative_max_moves(tmp_path: Path) -> None:
    done = tool([sys.executable, str(ROOT / "tools" / "action_regret.py"), "heuristic",
                 "--max-moves", "-1"], tmp_path)  # fmt: skip
    assert done.returncode == 2 and "--max-moves must be 0 or more" in done.stderr
    assert "Traceback" not in done.stderr


def test_value_error_measures_a_value_network_and_refuses_bad_input(tmp_path: Path) -> None:
    from allfives_env.core.rules import Rules
    from tests.agents.test_value_search import random_value, value_checkpoint

    rules = Rules.preset("pagat", 2)
    path = value_checkpoint(tmp_path / "v.zip", rules, random_value(rules))
    script = str(ROOT / "tools" / "value_error.py")
    done = tool([sys.executable, script, str(path), "--positions", "4", "--reference",
                 "batchsearch:worlds=4"], tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "| all | 4 |" in done.stdout
    bare = value_checkpoint(tmp_path / "bare.zip", rules, None)
    for args, message in (
        ([str(bare)], "holds no value network"),
        ([str(path), "--reference", "heuristic"], "a teacher of values must be"),
        ([str(path), "--positions", "0"], "positions"),
        ([str(path), "--max-moves", "-1"], "--max-moves must be 0 or more"),
    ):
        done = tool([sys.executable, script, *args], tmp_path)
        assert done.returncode == 2 and message in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr


def test_fit_equity_fits_and_refuses_bad_input(tmp_path: Path) -> None:
    script = str(ROOT / "tools" / "fit_equity.py")
    done = tool([sys.executable, script, "--matches", "300", "--seed", "1"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "fit: MatchEquity(" in done.stdout and "| 0.9–1.0 |" in done.stdout
    for args, message in (
        (["--preset", "five_up", "--players", "3"], "needs two sides, not 3"),
        (["--matches", "0"], "matches must be"),
        (["--preset", "nope"], "unknown preset"),
    ):
        done = tool([sys.executable, script, *args], tmp_path)
        assert done.returncode == 2 and message in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr


def test_compare_curves_checks_its_output_and_its_reports_first(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    script = [sys.executable, str(ROOT / "tools" / "compare_curves.py")]
    point = {"step": 100, "results": {"heuristic": {"win_rate": 0.4, "ci95": [0.3, 0.5]}}}
    (tmp_path / "a.json").write_text(json.dumps({"history": [point]}))
    done = tool([*script, "out.png", "a=a.json", "--opponent", "heuristic"], tmp_path)
    assert done.returncode == 0, done.stderr
    drawn = (tmp_path / "out.png").read_bytes()
    assert drawn[:4] == b"\x89PNG"
    (tmp_path / "dup.json").write_text('{"history": [], "history": []}')
    bad = {"history": [{**point, "results": {"heuristic": {"win_rate": "0.4"}}}]}
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    for args, message in (
        (["out.png", "a=a.json"], "OUT out.png already exists"),
        (["out.txt", "a=a.json"], "OUT out.txt: the file name must end in .png"),
        (["new.png", "a=dup.json"], "duplicate key 'history'"),
        (["new.png", "a=bad.json", "--opponent", "heuristic"], "bad.json: history[0]"),
        (["new.png", "a=missing.json"], "cannot read missing.json"),
        (["new.png", "a.json"], "is not LABEL=REPORT"),
    ):
        done = tool([*script, *args], tmp_path)
        assert done.returncode == 2 and message in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr
    assert (tmp_path / "out.png").read_bytes() == drawn
    assert not (tmp_path / "new.png").exists() and not (tmp_path / "out.txt").exists()
    forced = tool([*script, "out.png", "a=a.json", "--opponent", "heuristic", "--force"], tmp_path)
    assert forced.returncode == 0, forced.stderr
