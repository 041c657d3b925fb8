"""Joining a Ray cluster by its address, for ``train_rllib.py`` and ``train.py``'s search teacher.

A command given ``--address HOST:PORT`` refuses, in one line (a :class:`ConfigError`, exit
status 2), an address that is not ``HOST:PORT`` or has nothing listening behind it, before Ray
would try for a minute (:func:`check_address`), and Ray itself not installed
(:func:`require_ray`). :func:`join` then joins the cluster (or, without an address, starts Ray
here); its workers import the project from :data:`SOURCE` (the same source checkout on every
node, or the project installed there). Ray (the ``[rllib]`` extra) is imported only by
:func:`join`.
"""

from __future__ import annotations

import logging
import signal
import socket
import threading
from pathlib import Path

from agents.training.config import ConfigError
from agents.training.entry import missing_extras

SOURCE = Path(__file__).resolve().parents[2]
"""The folder that holds the project's packages: the workers of a cluster joined by address
import them from there."""


def require_ray(what: str) -> None:
    """Refuse ``what`` (``--address``...) when Ray is not installed.

    Raises:
        ConfigError: naming the ``[rllib]`` extra and its install command.
    """
    message = missing_extras(("ray",), "rllib", what)
    if message is not None:
        raise ConfigError(message)


def check_address(address: str) -> None:
    """Refuse an address with no Ray cluster behind it (before Ray tries for a minute).

    Raises:
        ConfigError: if it is not HOST:PORT, or nothing listens there.
    """
    host, colon, port = address.rpartition(":")
    if address == "auto":
        return
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"--address must be HOST:PORT of a Ray head node, not {address!r}")
    try:
        with socket.create_connection((host, int(port)), timeout=5):
            pass
    except OSError as e:
        raise ConfigError(
            f"no Ray cluster at {address!r} ({e.strerror or e}); start one with "
            f"'ray start --head' or leave out --address"
        ) from None


def join(address: str | None) -> bool:
    """Join the Ray cluster at ``address`` (checked first, :func:`check_address`), its workers
    importing the project from :data:`SOURCE`, or with no address start Ray in this process;
    if Ray is already initialized in this process, use that one instead. This process keeps
    its own SIGINT and SIGTERM handlers (``ray.init`` would replace SIGTERM's, and the
    trainers' Ctrl-C and SIGTERM would no longer stop them cleanly). Returns whether this call
    initialized Ray (the caller then shuts it down).

    Raises:
        ConfigError: as :func:`check_address`.
    """
    import ray

    if ray.is_initialized():
        return False
    if address is not None:
        check_address(address)
    kept = [(s, signal.getsignal(s)) for s in (signal.SIGINT, signal.SIGTERM)]
    try:
        ray.init(
            address=address,
            runtime_env={"env_vars": {"PYTHONPATH": str(SOURCE)}} if address else None,
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.ERROR,
        )
    finally:
        if threading.current_thread() is threading.main_thread():
            for signum, handler in kept:
                if handler is not None:
                    signal.signal(signum, handler)
    return True
