"""Scale out: a Ray cluster of two nodes on this machine (loopback), and a run across both."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
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


def ray_cli(*args: str) -> subprocess.CompletedProcess[str]:
    ray = shutil.which("ray") or str(Path(sys.executable).parent / "ray")
    return subprocess.run([ray, *args], capture_output=True, text=True, timeout=120, env=ENV)


def test_env_runners_run_on_both_nodes_of_a_two_node_cluster(tmp_path: Path) -> None:
    port = free_port()
    common = ["--num-cpus", "1", "--node-ip-address", "127.0.0.1", "--disable-usage-stats"]
    head = ray_cli("start", "--head", "--port", str(port), "--include-dashboard=false", *common)
    assert head.returncode == 0, head.stderr[-2000:]
    try:
        worker = ray_cli("start", "--address", f"127.0.0.1:{port}", *common)
        assert worker.returncode == 0, worker.stderr[-2000:]
        proc = subprocess.run(
            [sys.executable, str(ROOT / "train_rllib.py"), "--config", "configs/rllib_smoke.yaml",
             "--address", f"127.0.0.1:{port}", "--num_env_runners", "2", "--runs", str(tmp_path),
             "--final_eval_matches", "0"],
            capture_output=True, text=True, timeout=300, cwd=ROOT, env=ENV,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr[-3000:]
    finally:
        ray_cli("stop", "--force")
    report = json.loads((tmp_path / "rllib" / "rllib_smoke" / "report.json").read_text())
    runners = report["env_runners"]
    assert len(runners) == 2
    assert len({r["node"] for r in runners}) == 2  # one env runner on each node
    assert all(r["env_steps"] > 0 for r in runners)  # and both sampled
    assert report["env_steps"] >= 1500
