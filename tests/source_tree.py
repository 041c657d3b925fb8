"""A copy of the source tree as a clean clone holds it: the tests that build the package or run
the docs' commands work on one, so the checkout stays as it is."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def copy_source_tree(dest: Path) -> Path:
    """Copy the files of the source tree (tracked, or new and not ignored) into ``dest``;
    skip the test where there is no git checkout to tell them."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs the git checkout to know the source files")
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode()  # fmt: skip
    for name in out.split("\0"):
        if name and (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)
    return dest
