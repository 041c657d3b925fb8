"""``tools/device_check.sh`` end to end at a toy size (``SMOKE=1``): every step runs, on the CPU
where torch sees no GPU, and its determinism and resume lines say what they checked."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]


def test_the_device_check_runs_every_step(tmp_path: Path) -> None:
    env = os.environ | {"SMOKE": "1", "PYTHON": sys.executable, "TMPDIR": str(tmp_path)}
    out = tmp_path / "check"
    done = subprocess.run(
        ["bash", str(ROOT / "tools" / "device_check.sh"), str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    log = (out / "check.log").read_text()
    for step in ("the machine", "the learner alone", "whole cycles", "the batched engine alone",
                 "a short train.py run", "determinism", "done"):  # fmt: skip
        assert f"== {step}" in log, step
    assert "| learner steps (imitation + PPO) | phase |" in log
    determinism = (out / "determinism.txt").read_text()
    assert "identical weights" in determinism and "DIFFERENT" not in determinism
    assert "resuming" in determinism and "after the resume on the CPU: 256" in determinism
    assert {p.name for p in out.iterdir()} >= {"learner.json", "cycles_cpu.json", "check.log"}
