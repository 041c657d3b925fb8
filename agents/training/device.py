"""Where a trainer's learner runs and how many cores the batched engine takes: the ``device``
and ``engine_threads`` settings, read the same way by every trainer.

- ``device``: ``auto`` (a GPU when torch sees one, else the CPU), ``cpu``, ``cuda`` (torch's
  current GPU) or ``cuda:N``. Asking for a GPU that torch does not see is a
  :class:`~agents.training.errors.ConfigError` (one line, exit status 2), before anything runs.
- ``engine_threads``: the threads of the batched engine's kernels; 0 (``auto``) takes the cores
  this process may use less those torch's threads take, at least 1, at most numba's limit
  (``NUMBA_NUM_THREADS``). The engine's results do not depend on its thread count, so a run may
  be resumed with another.

Every run is made deterministic where torch can (:func:`make_deterministic`): the same seed
on the same device and software gives the same weights, however busy the machine. Runs on
different devices differ in the last bits of their floating-point sums, so they are not
bit-identical to each other.
"""

from __future__ import annotations

import os
import re
from typing import Any

from agents.training.errors import ConfigError

DEVICE = re.compile(r"auto|cpu|cuda(:\d+)?")
"""The values ``device`` takes."""


def check_device_name(name: str, label: str = "config 'device'") -> None:
    """Refuse a ``device`` that is not ``auto``, ``cpu``, ``cuda`` or ``cuda:N``.

    Raises:
        ConfigError: naming ``label`` (the setting as the user wrote it).
    """
    if not DEVICE.fullmatch(name):
        raise ConfigError(f"{label} must be auto, cpu, cuda or cuda:N, not {name!r}")


def resolve_device(name: str, label: str = "config 'device'") -> Any:
    """The ``torch.device`` that ``name`` asks for: ``auto`` is the current GPU if torch sees one,
    else the CPU.

    Raises:
        ConfigError: for a malformed name, or a GPU torch does not see (one line, naming
            ``label``).
    """
    import torch as th

    check_device_name(name, label)
    if name == "auto":
        return th.device("cuda" if th.cuda.is_available() else "cpu")
    device = th.device(name)
    if device.type == "cuda":
        if not th.cuda.is_available():
            build = "a CPU build" if th.version.cuda is None else f"CUDA {th.version.cuda}"
            raise ConfigError(
                f"{label} is {name!r}, but torch ({th.__version__}, {build}) sees no GPU"
            )
        count = th.cuda.device_count()
        if device.index is not None and device.index >= count:
            raise ConfigError(f"{label} is {name!r}, but torch sees {count} GPU(s)")
    return device


def make_deterministic(device: Any) -> None:
    """Ask torch for its deterministic kernels (ops without one warn rather than stop the run),
    and on a GPU for cuBLAS's fixed workspace, set before the first GPU call.

    On the CPU too: with two or more torch threads, the default kernels of the PPO update gave
    weights that differed in the last bits from run to run of the same seed whenever another
    process shared the cores, and now and then on a quiet machine too (and so, over a long run,
    different policies); the deterministic ones give the same weights loaded or not, at no
    measurable cost.
    """
    import torch as th

    if device.type == "cuda":
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        th.backends.cudnn.benchmark = False
    th.use_deterministic_algorithms(True, warn_only=True)


def usable_cores() -> int:
    """The cores this process may run on (its affinity, where the system says)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def engine_thread_count(requested: int, torch_threads: int) -> int:
    """The batched engine's threads for ``engine_threads = requested`` (0: auto, see the
    module's docstring), beside ``torch_threads`` of torch's."""
    from allfives_env.vector import max_threads

    if requested > 0:
        return requested
    return max(1, min(max_threads(), usable_cores() - torch_threads))


def check_engine_threads(requested: int, label: str = "config 'engine_threads'") -> None:
    """Refuse an ``engine_threads`` below 0 or above numba's limit.

    Raises:
        ConfigError: naming ``label`` and the limit.
    """
    from allfives_env.vector import max_threads

    limit = max_threads()
    if not 0 <= requested <= limit:
        raise ConfigError(
            f"{label} must be from 0 (auto) to {limit} (NUMBA_NUM_THREADS), not {requested!r}"
        )
