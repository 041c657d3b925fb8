"""Files written whole: a reader (or a full disk) never meets one half written."""

from __future__ import annotations

import os
from pathlib import Path


def replace_whole(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through ``path.tmp`` and a rename: ``path`` is never half
    written (on a full disk the old one stays)."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
