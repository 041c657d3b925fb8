"""A run's attempts at training, and the time each took: ``RUN/attempts.json``.

A sweep stopped between sessions (Ctrl-C, SIGTERM, a machine handed back) starts its run again
with the same command, and ``train.py`` and ``train_rllib.py`` go on from their last resume
point (BenchMARL's trainer from its ``resume.pt``): the run's training time is then the sum of
every attempt's, not the last one's. Each attempt is written to the ledger before its trainer
starts, its wall time again every
:data:`HEARTBEAT` seconds while it trains, and its wall and CPU time when it ends, however it
ends. An attempt killed outright (SIGKILL, a lost machine) keeps the wall time of its last
heartbeat (short by less than :data:`HEARTBEAT` seconds) and no CPU time (``null``): the run's
CPU time is then a lower bound, and the result says so (:func:`totals`). Each attempt also
records the CPU model it ran on (a run resumed in another session may have run on another
machine; a ledger of an earlier version has none).

A trainer that cannot resume (``restarts``: OpenSpiel's NFSP) trains from nothing in each
attempt, as does a policy trainer whose finished policy was not yet measured, so its run's
time is its last attempt's: :func:`run_attempt` is then given a fresh ledger.
"""

from __future__ import annotations

import json
import resource
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.benchmark.provenance import cpu_model
from agents.files import replace_whole
from allfives_env.core import strict_json

ATTEMPTS = "attempts.json"
HEARTBEAT = 30.0
"""Seconds between two writes of a training attempt's wall time so far."""
GRACE_SECONDS = 5.0
"""How long an interrupted trainer is left to stop on its own before it is told to."""
STOP_SECONDS = 60.0
"""How long a trainer told to stop (SIGTERM) may take before it is killed."""


class AttemptsError(ValueError):
    """A ledger that cannot be read or is not a ledger of attempts (one line)."""


def read_attempts(path: Path) -> list[dict[str, Any]]:
    """The attempts written so far (none if the file does not exist), read strictly: a list of
    ``{"wall_seconds": float >= 0, "cpu_seconds": float >= 0 or null, "cpu": "model"}``
    (``"cpu"`` absent from an earlier version's).

    Raises:
        AttemptsError: naming the file, if it cannot be read or holds anything else.
    """
    if not path.exists():
        return []
    try:
        data = strict_json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise AttemptsError(f"cannot read the training attempts {str(path)!r}: {e}") from None
    if not isinstance(data, list) or not all(_is_attempt(a) for a in data):
        raise AttemptsError(
            f"{str(path)!r} is not a list of training attempts "
            '({"wall_seconds": seconds, "cpu_seconds": seconds or null})'
        )
    return data


def _is_attempt(a: object) -> bool:
    def seconds(x: object) -> bool:
        return isinstance(x, (int, float)) and not isinstance(x, bool) and x >= 0

    return (
        isinstance(a, dict)
        and set(a) - {"cpu"} == {"wall_seconds", "cpu_seconds"}
        and isinstance(a.get("cpu", ""), str)
        and seconds(a["wall_seconds"])
        and (a["cpu_seconds"] is None or seconds(a["cpu_seconds"]))
    )


def _write(path: Path, attempts: Sequence[dict[str, Any]]) -> None:
    replace_whole(path, (json.dumps(list(attempts), indent=1) + "\n").encode("utf-8"))


def run_attempt(
    argv: Sequence[str], log_file: Path, ledger: Path, fresh: bool = False
) -> tuple[int, list[dict[str, Any]]]:
    """Run ``argv`` (its output appended to ``log_file``) as one more attempt in ``ledger``
    (started again if ``fresh``); return its exit status and every attempt so far.

    On Ctrl-C or SIGTERM (raised here as ``KeyboardInterrupt``) the trainer is left
    :data:`GRACE_SECONDS` to stop on its own (a Ctrl-C at the terminal reached it as well),
    then told to stop (SIGTERM: it stops at its next step, as on Ctrl-C), killed if it has not
    within :data:`STOP_SECONDS`; then the attempt's time is written and the interruption
    raised again.

    Raises:
        AttemptsError: if the ledger cannot be read (before anything runs).
    """
    attempts = [] if fresh else read_attempts(ledger)
    cpu_kind = cpu_model()
    attempts.append({"wall_seconds": 0.0, "cpu_seconds": None, "cpu": cpu_kind})
    _write(ledger, attempts)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    code = -1
    try:
        with log_file.open("ab") as out:
            child = subprocess.Popen(list(argv), stdout=out, stderr=subprocess.STDOUT)
            try:
                while True:
                    try:
                        code = child.wait(timeout=HEARTBEAT)
                        break
                    except subprocess.TimeoutExpired:
                        attempts[-1]["wall_seconds"] = round(time.monotonic() - start, 1)
                        _write(ledger, attempts)
            except BaseException:
                _stop(child)
                raise
    finally:
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        attempts[-1] = {
            "wall_seconds": round(time.monotonic() - start, 1),
            "cpu_seconds": round(cpu, 1),
            "cpu": cpu_kind,
        }
        _write(ledger, attempts)
    return code, attempts


def _stop(child: subprocess.Popen[bytes]) -> None:
    """Let the trainer stop on its own (a Ctrl-C at the terminal reached it too), else tell it
    to stop (SIGTERM), else kill it; return once it has exited."""
    for send, wait in ((None, GRACE_SECONDS), (child.terminate, STOP_SECONDS), (child.kill, None)):
        if child.poll() is not None:
            return
        if send is not None:
            send()
        try:
            child.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            pass


def totals(attempts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The run's wall and CPU seconds over its attempts, and how many attempts there were;
    ``cpu_seconds_complete`` is false where an attempt was killed before its CPU time could be
    read (the CPU seconds are then those of the other attempts: a lower bound);
    ``attempt_cpus`` lists the CPU models the attempts ran on, in order, each once (those that
    recorded one)."""
    cpus = [a["cpu"] for a in attempts if "cpu" in a]
    return {
        "wall_seconds": round(sum(a["wall_seconds"] for a in attempts), 1),
        "cpu_seconds": round(sum(a["cpu_seconds"] or 0.0 for a in attempts), 1),
        "cpu_seconds_complete": all(a["cpu_seconds"] is not None for a in attempts),
        "attempts": len(attempts),
        "attempt_cpus": list(dict.fromkeys(cpus)),
    }
