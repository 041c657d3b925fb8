"""Scale out: a Ray cluster of two nodes on this machine (loopback), and a run across both."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("ray.rllib")

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


ENV = dict(os.environ, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(32))
"""Ray's token authentication, one token for the nodes and the driver (as on a real cluster)."""


@contextlib.contextmanager
def ray_node(*args: str) -> Iterator[None]:
    """One Ray node (``ray start --block``, its own temp dir), stopped alone when done.

    The node's processes fate-share with the ``ray start`` process, which stops them on
    SIGTERM: no ``ray stop``, which would stop every Ray instance on the machine.
    """
    ray = shutil.which("ray") or str(Path(sys.executable).parent / "ray")
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # short: Ray's socket paths are bounded
    log = Path(temp) / "start.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [ray, "start", "--block", "--temp-dir", temp, *args],
            stdout=out, stderr=subprocess.STDOUT, text=True, env=ENV,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while "will now block" not in log.read_text():  # the node is up
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.2)
        yield
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:  # pragma: no cover - a node that will not stop
            proc.kill()
            proc.wait()
        shutil.rmtree(temp, ignore_errors=True)


def test_env_runners_run_on_both_nodes_of_a_two_node_cluster(tmp_path: Path) -> None:
    port = free_port()
    common = ["--num-cpus", "1", "--node-ip-address", "127.0.0.1", "--disable-usage-stats"]
    address = f"127.0.0.1:{port}"
    with (
        ray_node("--head", "--port", str(port), "--include-dashboard=false", *common),
        ray_node("--address", address, *common),
    ):
        proc = subprocess.run(
            [sys.executable, str(ROOT / "train_rllib.py"), "--config", "configs/rllib_smoke.yaml",
             "--address", address, "--num_env_runners", "2", "--runs", str(tmp_path),
             "--final_eval_matches", "0"],
            capture_output=True, text=True, timeout=300, cwd=ROOT, env=ENV,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads((tmp_path / "rllib" / "rllib_smoke" / "report.json").read_text())
    runners = report["env_runners"]
    assert len(runners) == 2
    assert len({r["node"] for r in runners}) == 2  # one env runner on each node
    assert all(r["env_steps"] > 0 for r in runners)  # and both sampled
    assert report["env_steps"] >= 1500
