"""A run folder's life (``train.py`` and ``train_rllib.py``): one process at a time, ``--fresh``,
the config it was started with and what a rerun may change, and a full disk said in one line
with nothing written before lost.

:func:`hold_run_folder` takes an operating-system lock (``filelock``) on ``.NAME.lock`` beside
the folder ``NAME``, for as long as the run lasts; a second run of the same folder is refused
at once, in one line that names the process holding it. The system drops the lock when that
process ends however it ends (Ctrl-C, ``kill -9``, a crash), so a lock left behind never stops a
resume. The lock file lives beside the folder, not in it, so that ``--fresh`` can delete the
folder while the lock is held.

A full disk (``ENOSPC``, a quota) is checked before a run starts (:func:`check_space`) and,
where it strikes mid-run, said in one line naming the folder and the space to free
(:func:`full_disk_message`), after the half-written ``.tmp`` files are removed
(:func:`remove_partial`); the files a run writes are replaced whole
(:func:`agents.files.replace_whole`), so the ones written before stay intact.

:func:`open_run_folder` takes only a folder the trainer made (:mod:`agents.training.ownership`):
``--fresh`` deletes nothing else, and a run writes into nothing else; a ``--runs`` (or
``--out``) that is a file, or a folder that cannot be made, is one line too.
"""

from __future__ import annotations

import dataclasses
import errno
import os
import shutil
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from agents.files import replace_whole
from agents.training.config import ConfigError
from agents.training.ownership import CONFIG, WAY_OUT, FolderKind, check_folder, write_marker

__all__ = [
    "FULL", "LEAST_SPACE", "MAY_CHANGE", "RETIRED", "WAY_OUT", "RunFolderBusy", "changed_fields",
    "check_same_config", "check_space", "full_disk_message", "hold_run_folder", "is_disk_full",
    "lock_file", "make_parent", "open_run_folder", "quiet_full_disk_in_threads",
    "remove_partial", "space_needed", "write_config",
]  # fmt: skip


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
    from filelock import FileLock, Timeout  # the [train] extra

    path = lock_file(folder)
    make_parent(folder)
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


def make_parent(folder: Path, option: str = "--runs") -> None:
    """Make the folder that holds ``folder`` (and its parents), where missing.

    Raises:
        ConfigError: if a path above ``folder`` is a file, or the folder cannot be made
            (``option`` names the flag that gave it).
        OSError: for a full disk (said in one line by the trainer).
    """
    parent = folder.parent
    for above in (parent, *parent.parents):
        if above.exists() or above.is_symlink():
            if not above.is_dir():
                raise ConfigError(f"{above} is a file, not a folder: give {option} a folder")
            break
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        if is_disk_full(e):
            raise
        raise ConfigError(f"cannot make the folder {parent} ({e.strerror or e})") from None


FULL = (errno.ENOSPC, errno.EDQUOT)
LEAST_SPACE = 20 * 2**20
"""The least free space a run starts with (a fresh one's first checkpoints, its logs)."""


def is_disk_full(e: BaseException | None) -> bool:
    """Whether ``e`` says the disk (or a quota) is full."""
    return isinstance(e, OSError) and e.errno in FULL


def space_needed(folder: Path) -> int:
    """Bytes a run in ``folder`` needs free to go on: twice what it holds (each resume point is
    written beside the last before replacing it), and at least :data:`LEAST_SPACE`."""
    held = 0
    if folder.is_dir():
        held = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
    return max(LEAST_SPACE, 2 * held)


def full_disk_message(folder: Path) -> str:
    """One line: the disk under ``folder`` is full, how much to free, and how to go on."""
    where = folder if folder.exists() else folder.parent
    free = shutil.disk_usage(where).free if where.exists() else 0
    return (
        f"the disk holding {folder} is full ({free / 2**20:.0f} MB free; the run needs about "
        f"{space_needed(folder) / 2**20:.0f} MB): free some space and run the same command to "
        "continue (what was saved is intact)"
    )


def check_space(folder: Path) -> None:
    """Refuse to start (or resume) a run without the space it needs.

    Raises:
        ConfigError: saying how much to free.
    """
    where = folder if folder.exists() else folder.parent
    if shutil.disk_usage(where).free < space_needed(folder):
        raise ConfigError(full_disk_message(folder))


def remove_partial(folder: Path) -> None:
    """Remove the half-written ``*.tmp`` files a full disk left in ``folder``."""
    if folder.is_dir():
        for f in folder.rglob("*.tmp"):
            f.unlink(missing_ok=True)


def quiet_full_disk_in_threads() -> None:
    """Let a thread that meets a full disk (TensorBoard's writer) end without its traceback:
    the main thread meets it too, and says it in one line."""
    threading.excepthook = _skipping_full_disk(threading.excepthook)
    sys.unraisablehook = _skipping_full_disk(sys.unraisablehook)


Args = TypeVar("Args")


def _skipping_full_disk(previous: Callable[[Args], object]) -> Callable[[Args], None]:
    """``previous``, but silent for a full disk's error."""

    def hook(args: Args) -> None:
        if not is_disk_full(getattr(args, "exc_value", None)):
            previous(args)

    return hook


MAY_CHANGE = (
    "total_timesteps", "progress", "eval_processes", "teacher_processes", "device",
    "engine_threads",
)  # fmt: skip
"""Config fields a rerun of a run folder may change: how long it trains, where its learner runs
(a run goes on on another device: its resume point loads on any), and what cannot change its
results (the progress bar, the evaluator's, the teacher's and the engine's process and thread
counts, whose results do not depend on them)."""

RETIRED = {"fused_features": False, "imitation_replay": 0, "latest_prob": 0.5}
"""Fields of earlier versions' configs, each with the one value that this version still trains
the same way (a run started with another value cannot be continued)."""


def changed_fields(saved: Mapping[str, Any], now: Mapping[str, Any]) -> list[str]:
    """The fields whose values in ``now`` differ from the run's ``saved`` config, bar
    :data:`MAY_CHANGE`; a :data:`RETIRED` field counts when it was saved with another value
    than the one this version trains with."""
    changed = [k for k, v in now.items() if k not in MAY_CHANGE and saved.get(k) != v]
    changed += [k for k, v in saved.items() if k in RETIRED and k not in now and v != RETIRED[k]]
    return sorted(changed)


def check_same_config(
    folder: Path, saved: Mapping[str, Any], now: Mapping[str, Any], may_grow: Iterable[str] = ()
) -> None:
    """Refuse to continue the run in ``folder``, started with the config ``saved``, under
    ``now`` if a field differs (:func:`changed_fields`; ``may_grow``: more fields this run may
    change).

    Raises:
        ConfigError: naming the changed fields and the way out.
    """
    diff = [k for k in changed_fields(saved, now) if k not in may_grow]
    if diff:
        changed = ", ".join(diff)
        raise ConfigError(f"{folder} was started with a different config ({changed}); {WAY_OUT}")


def write_config(folder: Path, cfg: Any, kind: FolderKind) -> None:
    """Make ``folder`` (with the space a run needs: :func:`check_space`) and write the dataclass
    ``cfg`` into it as ``config.yaml``, replaced whole, after the marker that records it
    (:func:`agents.training.ownership.write_marker`: the folder is ``kind``'s trainer's).

    Raises:
        ConfigError: if the disk lacks the space.
    """
    import yaml  # the [train] extra

    check_space(folder)  # a full disk: one line, before anything is written
    quiet_full_disk_in_threads()
    folder.mkdir(parents=True, exist_ok=True)
    config = dataclasses.asdict(cfg)
    text = yaml.safe_dump(config, sort_keys=False).encode("utf-8")
    write_marker(folder, kind, config, text)
    replace_whole(folder / CONFIG, text)


@contextmanager
def open_run_folder(
    folder: Path, fresh: bool, kind: FolderKind, option: str = "--runs"
) -> Iterator[bool]:
    """Hold ``folder`` for this run (:func:`hold_run_folder`) and check that it is ``kind``'s
    (:func:`agents.training.ownership.check_folder`); with ``fresh``, delete it first. Yields
    whether it holds a run (after ``fresh``, never).

    Raises:
        ConfigError: if a path above it is a file (``option`` names the flag that gave it),
            or the folder is not the trainer's (nothing is touched).
        RunFolderBusy: if another process holds it (nothing is touched).
    """
    make_parent(folder, option)
    if lock_file(folder).exists():  # a run holds it: that is what to say first
        with hold_run_folder(folder):
            pass
    check_folder(folder, kind, fresh)  # a folder not the trainer's: no lock file beside it
    with hold_run_folder(folder):
        held = check_folder(folder, kind, fresh)
        if fresh and held:
            shutil.rmtree(folder)
            held = False
        yield held
