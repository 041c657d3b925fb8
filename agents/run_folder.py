"""A run folder belongs to one process at a time (``train.py`` and ``train_rllib.py``).

:func:`hold_run_folder` takes an operating-system lock (``filelock``) on ``.NAME.lock`` beside
the folder ``NAME``, for as long as the run lasts; a second run of the same folder is refused
at once, in one line that names the process holding it. The system drops the lock when that
process ends however it ends (Ctrl-C, ``kill -9``, a crash), so a lock left behind never stops a
resume. The lock file lives beside the folder, not in it, so that ``--fresh`` can delete the
folder while the lock is held.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from agents.train_config import ConfigError


class RunFolderBusy(ConfigError):
    """The run folder is held by another process (the trainer prints this one line)."""


def lock_file(folder: Path) -> Path:
    """The lock file of run folder ``folder``: ``.NAME.lock`` beside it."""
    return folder.parent / f".{folder.name}.lock"


def _holder(path: Path) -> str:
    """Who holds the lock at ``path``, as its holder wrote it (best effort)."""
    try:
        pid = path.read_text(encoding="utf-8").strip()
    except OSError:
        return "another process"
    return f"process {pid}" if pid.isdigit() else "another process"


@contextmanager
def hold_run_folder(folder: Path) -> Iterator[None]:
    """Hold ``folder`` for this process while the block runs.

    Raises:
        RunFolderBusy: if another process holds it (nothing is touched).
        OSError: if the lock file cannot be made (a folder that cannot be written).
    """
    path = lock_file(folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(path))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise RunFolderBusy(
            f"{folder} is in use by {_holder(path)}: a run folder belongs to one run at a time "
            "(wait for it to end, stop it, or give this run another --name)"
        ) from None
    try:
        with open(path, "r+", encoding="utf-8") as f:  # for the next one to name us
            f.write(str(os.getpid()))
            f.truncate()
        yield
    finally:
        lock.release()
