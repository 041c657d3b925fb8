"""Scale out: a Ray cluster of two nodes on this machine (loopback), and runs across both, on
the batched engine's table and on the AEC env."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agents.training.local_cluster import ENV, local_cluster

pytest.importorskip("ray.rllib")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    with local_cluster(nodes=2) as address:
        yield address


@pytest.mark.parametrize("name", ["rllib_batched_smoke", "rllib_smoke"])
def test_env_runners_run_on_both_nodes_of_a_two_node_cluster(
    cluster: str, name: str, tmp_path: Path
) -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "train_rllib.py"), "--config", f"configs/{name}.yaml",
         "--address", cluster, "--num_env_runners", "2", "--runs", str(tmp_path),
         "--final_eval_matches", "0"],
        capture_output=True, text=True, timeout=300, cwd=ROOT, env=ENV,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads((tmp_path / "rllib" / name / "report.json").read_text())
    runners = report["env_runners"]
    assert len(runners) == 2
    assert len({r["node"] for r in runners}) == 2  # one env runner on each node
    assert all(r["env_steps"] > 0 for r in runners)  # and both sampled
    assert report["env_steps"] >= 1500
