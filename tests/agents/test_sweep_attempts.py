"""A run's training attempts: every attempt's time is kept, however it ended, so that a run
resumed across sessions reports the time of all of it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agents.benchmark.attempts import AttemptsError, read_attempts, run_attempt, totals
from agents.benchmark.provenance import cpu_model

ROOT = Path(__file__).resolve().parents[2]

SWEEP = """
import signal, sys
from pathlib import Path
from agents.benchmark import attempts
from allfives_cli.sweep import _terminated
signal.signal(signal.SIGTERM, _terminated)
attempts.HEARTBEAT = 0.2
attempts.GRACE_SECONDS = 0.2
trainer = "import os, time; open(r'{pid}', 'w').write(str(os.getpid())); time.sleep(120)"
try:
    attempts.run_attempt([sys.executable, "-c", trainer], Path(r"{log}"), Path(r"{ledger}"))
except KeyboardInterrupt:
    sys.exit(130)
"""


def _quick(seconds: float = 0.0, code: int = 0) -> list[str]:
    return [sys.executable, "-c", f"import time, sys; time.sleep({seconds}); sys.exit({code})"]


def test_attempts_add_up_and_a_fresh_start_forgets_them(tmp_path: Path) -> None:
    ledger, log = tmp_path / "attempts.json", tmp_path / "train.log"
    code, first = run_attempt(_quick(0.3), log, ledger)
    assert code == 0 and len(first) == 1 and first[0]["wall_seconds"] >= 0.3
    code, both = run_attempt(_quick(0.0, 3), log, ledger)
    assert code == 3 and len(both) == 2 and read_attempts(ledger) == both
    t = totals(both)
    assert t["attempts"] == 2 and t["cpu_seconds_complete"]
    assert [a["cpu"] for a in both] == [cpu_model()] * 2 and t["attempt_cpus"] == [cpu_model()]
    assert t["wall_seconds"] == pytest.approx(sum(a["wall_seconds"] for a in both), abs=0.11)
    _, again = run_attempt(_quick(), log, ledger, fresh=True)
    assert len(again) == 1


def test_an_earlier_ledger_without_cpu_models_is_read_and_added_to(tmp_path: Path) -> None:
    ledger = tmp_path / "attempts.json"
    ledger.write_text('[{"wall_seconds": 5, "cpu_seconds": 4}]', encoding="utf-8")
    _, both = run_attempt(_quick(), tmp_path / "train.log", ledger)
    assert "cpu" not in both[0] and both[1]["cpu"] == cpu_model()
    assert totals(both)["attempt_cpus"] == [cpu_model()]
    assert totals(both[:1])["attempt_cpus"] == []


def _sweep(tmp_path: Path) -> tuple[subprocess.Popen[bytes], Path, Path]:
    pid, ledger = tmp_path / "trainer.pid", tmp_path / "attempts.json"
    script = SWEEP.format(pid=pid, log=tmp_path / "train.log", ledger=ledger)
    sweep = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT)
    deadline = time.monotonic() + 60
    while not (pid.exists() and ledger.exists() and read_attempts(ledger)[0]["wall_seconds"]):
        assert time.monotonic() < deadline and sweep.poll() is None
        time.sleep(0.05)
    return sweep, pid, ledger


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_terminated_sweep_stops_its_trainer_and_writes_the_attempts_time(
    tmp_path: Path,
) -> None:
    sweep, pid, ledger = _sweep(tmp_path)
    sweep.send_signal(signal.SIGTERM)
    assert sweep.wait(timeout=60) == 130
    assert _gone(int(pid.read_text()))  # the trainer did not outlive its sweep
    (attempt,) = read_attempts(ledger)
    assert attempt["wall_seconds"] > 0 and attempt["cpu_seconds"] is not None


def test_a_killed_sweep_keeps_the_wall_time_of_its_last_heartbeat(tmp_path: Path) -> None:
    sweep, pid, ledger = _sweep(tmp_path)
    sweep.kill()
    sweep.wait(timeout=60)
    os.kill(int(pid.read_text()), signal.SIGKILL)  # the orphaned trainer
    (attempt,) = read_attempts(ledger)
    assert attempt["wall_seconds"] > 0 and attempt["cpu_seconds"] is None
    _, both = run_attempt(_quick(), tmp_path / "train.log", ledger)
    t = totals(both)
    assert t["attempts"] == 2 and not t["cpu_seconds_complete"]


@pytest.mark.parametrize(
    "text",
    ["{", "{}", "[1]", '[{"wall_seconds": -1, "cpu_seconds": 1}]',
     '[{"wall_seconds": 1, "cpu_seconds": 1, "x": 0}]',
     '[{"wall_seconds": true, "cpu_seconds": 1}]',
     '[{"wall_seconds": NaN, "cpu_seconds": 1}]',
     '[{"wall_seconds": 1, "cpu_seconds": 1, "cpu": 3}]'],
)  # fmt: skip
def test_a_damaged_ledger_is_refused_before_anything_runs(tmp_path: Path, text: str) -> None:
    ledger, marker = tmp_path / "attempts.json", tmp_path / "ran"
    ledger.write_text(text, encoding="utf-8")
    touch = [sys.executable, "-c", f"open(r'{marker}', 'w').close()"]
    with pytest.raises(AttemptsError, match="attempts"):
        run_attempt(touch, tmp_path / "train.log", ledger)
    assert not marker.exists() and ledger.read_text(encoding="utf-8") == text
