"""The search teacher on a Ray cluster: two nodes on this machine (loopback, one CPU each).

Its targets and values are bit-identical to those valued in one process, its actors run on both
nodes, ``train.py`` trains with ``--address`` (which its config does not keep), and
``offline_fit.py collect`` given ``--address`` saves the values it saves without it. An
``--address`` with no cluster behind it, with a teacher that is not a value search, or without
Ray installed is one line before anything runs.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.training.local_cluster import ENV, free_port, local_cluster

pytest.importorskip("ray")
pytest.importorskip("numba")

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
SPEC = "batchsearch:worlds=3"
GAMES = 24

DRIVER = """
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from training.test_teacher_cluster import valued
arrays, nodes = valued(sys.argv[2])
np.savez(sys.argv[3], **arrays)
print(json.dumps(nodes))
"""
"""Run in a process of its own on the cluster (Ray's token is the cluster's, not this one's)."""

TINY = """\
name: tiny
preset: pagat
num_players: 2
actor_arch: [16]
critic_arch: [16]
context_dim: 4
feature_arch: [8]
num_envs: 4
num_steps: 8
num_minibatches: 2
imitation_teacher: "batchsearch:worlds=2"
imitation_targets: values
imitation_samples: 64
total_timesteps: 0
eval_matches: 2
eval_opponents: [random]
final_eval_matches: 0
"""


def valued(address: str | None) -> tuple[dict[str, Any], list[str]]:
    """The teacher's choices, targets and values of ``GAMES`` positions a few random moves in
    (on the cluster at ``address``, or in this process), and the nodes of its actors."""
    from agents.training.teacher import SearchTeacher
    from allfives_env.core.rules import Rules
    from allfives_env.vector.engine import VectorGame, policy_rng

    vg = VectorGame(Rules.preset("pagat", 2), GAMES, forced_actions="auto")
    vg.reset(3)
    rng = policy_rng(9, GAMES)
    for _ in range(5):
        vg.step(vg.random_actions(rng))
    with SearchTeacher(SPEC, temperature=1.5, address=address) as teacher:
        choice, probs, values = teacher.valued(vg, np.arange(GAMES), policy_rng(5, GAMES))
        return {"choice": choice, "probs": probs, "values": values}, teacher.nodes


def run(args: list[str], cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=ENV, capture_output=True, text=True,
        timeout=timeout,
    )  # fmt: skip


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    with local_cluster(nodes=2) as address:
        yield address


def test_the_teacher_on_two_nodes_values_as_one_process_does(cluster: str, tmp_path: Path) -> None:
    done = run(["-c", DRIVER, str(TESTS), cluster, str(tmp_path / "cluster.npz")], ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    nodes = json.loads(done.stdout.splitlines()[-1])
    assert len(nodes) == 2 and len(set(nodes)) == 2  # one actor on each node
    local, none = valued(None)
    assert none == []
    with np.load(tmp_path / "cluster.npz") as remote:
        for key, array in local.items():
            assert remote[key].dtype == array.dtype
            assert np.array_equal(remote[key], array, equal_nan=True), key
    assert np.isnan(local["values"]).any()  # the illegal actions' NaNs were compared too


def test_train_and_collect_take_an_address(cluster: str, tmp_path: Path) -> None:
    config = tmp_path / "tiny.yaml"
    config.write_text(TINY, encoding="utf-8")
    train = run([str(ROOT / "train.py"), "--config", str(config), "--runs", "runs",
                 "--no_progress", "--address", cluster], tmp_path)  # fmt: skip
    assert train.returncode == 0, train.stderr[-3000:]
    run_folder = tmp_path / "runs" / "tiny"
    assert json.loads((run_folder / "report.json").read_text())["steps"]["imitation"] == 64
    assert "address" not in (run_folder / "config.yaml").read_text()  # not part of the run
    for where, address in (("here", []), ("cluster", ["--address", cluster])):
        collect = run([str(ROOT / "tools" / "offline_fit.py"), "collect", f"{where}.npz",
                       "--rollouts", "1", "--config", str(config), *address], tmp_path)  # fmt: skip
        assert collect.returncode == 0, collect.stderr[-3000:]
    with np.load(tmp_path / "here.npz") as here, np.load(tmp_path / "cluster.npz") as there:
        for key in ("obs", "masks", "values"):
            assert np.array_equal(here[key], there[key], equal_nan=True), key


def test_train_py_refuses_an_address_with_no_cluster_in_one_line(tmp_path: Path) -> None:
    config = tmp_path / "tiny.yaml"
    config.write_text(TINY, encoding="utf-8")
    address = f"127.0.0.1:{free_port()}"  # nothing listens there
    done = run([str(ROOT / "train.py"), "--config", str(config), "--runs", "runs", "--address",
                address], tmp_path, timeout=60)  # fmt: skip
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert lines[0].startswith(f"train.py: error: no Ray cluster at {address!r}")
    assert not (tmp_path / "runs").exists()  # before anything ran


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--address", "nowhere"], "--address must be HOST:PORT of a Ray head node"),
        (["--address", "127.0.0.1:1", "--imitation_targets", "choice"], "has none"),
        (["--address", "127.0.0.1:1", "--imitation_samples", "0", "--total_timesteps", "64"],
         "has none"),
    ],
)  # fmt: skip
def test_a_useless_or_malformed_address_is_refused(
    tmp_path: Path, args: list[str], message: str
) -> None:
    from agents.training.config import ConfigError
    from agents.training.selfplay_config import parse_args

    config = tmp_path / "tiny.yaml"
    config.write_text(TINY, encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        parse_args(["--config", str(config), *args])


def test_an_address_without_ray_installed_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    from agents.training.config import ConfigError
    from agents.training.selfplay_config import parse_args

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "ray" else find_spec(name)
    )
    config = tmp_path / "tiny.yaml"
    config.write_text(TINY, encoding="utf-8")
    with pytest.raises(ConfigError, match=r"--address needs the \[rllib\] extra \(missing: ray\)"):
        parse_args(["--config", str(config), "--address", "127.0.0.1:1"])


def test_the_teacher_refuses_an_address_with_no_cluster_at_once() -> None:
    from agents.training.config import ConfigError
    from agents.training.teacher import SearchTeacher

    with pytest.raises(ConfigError, match="no Ray cluster at"):
        SearchTeacher(SPEC, address=f"127.0.0.1:{free_port()}")
