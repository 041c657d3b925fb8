"""Files the project writes: written whole, and a file the user named never lost.

Every command that writes a file whose path the user gives (``--save``, ``--json``, ``--png``,
``--out``, ``--write``...) checks it with :func:`check_output` before any work: a path that
cannot be written, or whose format the suffix cannot give, is refused at once, and an existing
file is refused unless the command was given ``--force``, so that a record, a checkpoint or a
result is never replaced without a word. Devices (``/dev/null``, ``/dev/stdout``) hold nothing
to lose and are written as they are. The file is then written whole
(:func:`replace_whole`), so a reader (or a full disk) never meets one half written;
:func:`write_output` does that and turns a failed write (a full disk, ``/dev/full``) into one
:class:`OutputFileError` line naming the option, and the command prints its success line only
after it. :func:`check_outputs` refuses two options of one command that name one file.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

from agents.errors import AgentError


class OutputFileError(AgentError):
    """An output path that cannot be written, names a format the command cannot write, or
    holds a file that only ``--force`` may replace (nothing is written)."""


def _size(n: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    raise AssertionError  # pragma: no cover


def check_output(
    path: str | os.PathLike[str],
    option: str,
    *,
    force: bool = False,
    suffixes: Sequence[str] = (),
) -> Path:
    """Check, before any work, that ``path`` (given as ``option``, such as ``--save``) may be
    written, and return it.

    Writes nothing and leaves no file behind.

    Args:
        path: the file the user named.
        option: how the user named it, for the message.
        force: whether an existing regular file may be replaced.
        suffixes: the suffixes whose format the command can write (``(".png",)``); empty:
            any.

    Raises:
        OutputFileError: if ``path`` is a folder, its folder is missing or cannot be written,
            its suffix is not one of ``suffixes``, or it is an existing file and ``force`` is
            false (the message says what the file holds and how to go on).
    """
    p = Path(path)
    shown = str(path)
    if suffixes and p.suffix.lower() not in suffixes:
        wanted = " or ".join(suffixes)
        raise OutputFileError(f"{option} {shown}: the file name must end in {wanted}")
    try:
        st = p.stat()
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise OutputFileError(f"{option} {shown}: {e.strerror or e}") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise OutputFileError(f"{option} {shown}: is a folder, not a file")
    if st is not None and stat.S_ISREG(st.st_mode):
        if not force:
            raise OutputFileError(
                f"{option} {shown} already exists ({_size(st.st_size)}); writing would replace "
                "it: give --force to overwrite it, or another path"
            )
        if not os.access(p, os.W_OK):
            raise OutputFileError(f"{option} {shown}: cannot write (permission denied)")
    if st is None:
        parent = p.parent
        if not parent.is_dir():
            raise OutputFileError(f"{option} {shown}: no folder {str(parent)!r}")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise OutputFileError(f"{option} {shown}: cannot write in {str(parent)!r}")
    return p


def replace_whole(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through ``path.tmp`` and a rename: ``path`` is never half
    written (on a full disk the old one stays). A path that is not a regular file (a device
    such as ``/dev/null``) is written in place.

    Raises:
        OSError: if it cannot be written (a full disk: ``ENOSPC``); nothing is left behind.
    """
    if path.exists() and not path.is_file():
        with open(path, "wb") as f:
            f.write(data)
        return
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_output(path: str | os.PathLike[str], data: bytes, option: str) -> None:
    """Write ``data`` to ``path`` whole (:func:`replace_whole`), a path the user named as
    ``option`` and :func:`check_output` checked.

    Raises:
        OutputFileError: ``OPTION PATH: cannot write: REASON`` if it cannot be written (a full
            disk, a device that refuses it); nothing is left behind and an old file stays.
    """
    try:
        replace_whole(Path(path), data)
    except OSError as e:
        raise OutputFileError(f"{option} {path}: cannot write: {e.strerror or e}") from None


def check_outputs(paths: Sequence[tuple[str | os.PathLike[str], str]]) -> None:
    """Refuse two outputs of one command that name the same file (``(path, option)`` pairs),
    before any work.

    Raises:
        OutputFileError: naming both options.
    """
    seen: dict[str, str] = {}
    for path, option in paths:
        key = os.path.realpath(path)
        if key in seen:
            raise OutputFileError(f"{seen[key]} and {option} name the same file: {path}")
        seen[key] = option
