"""Ray nodes on this machine (loopback), for the tests and the scaling tools
(``tools/teacher_scaling.py``, ``tools/rllib_scaling.py``): a free port, the environment of a
cluster with token authentication, one node or a cluster of several started and stopped alone
(never ``ray stop``, which stops every Ray instance on the machine). Ray's ``ray`` command must
be installed (the ``[rllib]`` extra)."""

from __future__ import annotations

import contextlib
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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


ENV = dict(os.environ, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(32))
"""Ray's token authentication, one token for the nodes and the driver (as on a real cluster)."""


def use_cluster_token() -> None:
    """Give this process :data:`ENV`'s token, so that it may join the nodes started here (a
    driver started before them, as the scaling tools are)."""
    for key in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN"):
        os.environ[key] = ENV[key]


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


@contextlib.contextmanager
def local_cluster(nodes: int, cpus: int = 1) -> Iterator[str]:
    """A cluster of ``nodes`` Ray nodes on loopback (:func:`ray_node`), ``cpus`` CPUs each;
    yields the head's address (``127.0.0.1:PORT``)."""
    port = free_port()
    address = f"127.0.0.1:{port}"
    common = ["--num-cpus", str(cpus), "--node-ip-address", "127.0.0.1", "--disable-usage-stats"]
    with contextlib.ExitStack() as stack:
        stack.enter_context(
            ray_node("--head", "--port", str(port), "--include-dashboard=false", *common)
        )
        for _ in range(nodes - 1):
            stack.enter_context(ray_node("--address", address, *common))
        yield address
