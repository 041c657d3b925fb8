"""Where a number came from: the machine, the source and the libraries of a run.

:func:`machine` names the CPU (model and cores), the memory and any GPU torch sees;
:func:`source` the project's version and git commit (``dirty`` when the work tree differs from
it); :func:`versions` every library a trainer may use, as installed. A result file of the
training protocol holds all three beside the exact command, its config and its samples
(:mod:`agents.benchmark.sweep`), so a reader can tell how each number was made and run it
again. Nothing here reads a seed, a deal or a hand.
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
"""The folder that holds the project's packages (a git checkout, or site-packages)."""

LIBRARIES = (
    "allfives", "numpy", "numba", "torch", "gymnasium", "pettingzoo", "stable-baselines3",
    "sb3-contrib", "ray", "benchmarl", "torchrl", "tensordict", "open_spiel",
)  # fmt: skip
"""The distributions whose versions a result records (those installed)."""


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo`` where there is one, else the platform's)."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name":
                return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def memory_gib() -> float | None:
    """The machine's memory in GiB, where the OS says (``None`` otherwise)."""
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None
    return round(pages * size / 2**30, 1)


def gpus() -> list[str]:
    """The GPUs torch sees (names), or ``[]`` (none, or torch not installed)."""
    try:
        import torch
    except ImportError:
        return []
    if not torch.cuda.is_available():
        return []
    return [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]


def machine() -> dict[str, Any]:
    """The machine: CPU model, cores (``os.cpu_count()``) and those this process may use,
    memory, GPUs, OS and Python."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "memory_gib": memory_gib(),
        "gpus": gpus(),
        "os": platform.platform(),
        "python": sys.version.split()[0],
    }


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=20
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def source() -> dict[str, Any]:
    """The project's version, and where it is a git checkout its commit and whether the work
    tree differs from it (``dirty``: tracked files changed)."""
    try:
        version: str | None = importlib.metadata.version("allfives")
    except importlib.metadata.PackageNotFoundError:
        version = None
    commit = _git("rev-parse", "HEAD") if (ROOT / ".git").exists() else None
    dirty = None
    if commit is not None:
        status = _git("status", "--porcelain", "--untracked-files=no")
        dirty = None if status is None else bool(status)
    return {"version": version, "commit": commit, "dirty": dirty}


def versions() -> dict[str, str]:
    """The installed version of each of :data:`LIBRARIES` (those installed)."""
    out = {}
    for name in LIBRARIES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return out
