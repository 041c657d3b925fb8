"""What both policy trainers (``python -m allfives_openspiel.train`` and ``python -m
allfives_benchmarl.train``) promise of ``--out --fresh``: it deletes only a policy folder the
trainer made, and refuses anything else in one line, touching nothing."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest


def files(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder``, by path: what a refusal must leave as it was."""
    return {str(p): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def check_fresh_deletes_only_its_own(
    main: Callable[[list[str]], int],
    trainer: str,
    trained: Path,
    args: Sequence[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``main`` (the trainer ``trainer``'s, run with ``args``) refuses ``--fresh`` on a
    folder of the user's, on a copy of its own ``trained`` policy folder that holds a user's
    file, and on a file, with nothing changed; and trains anew in its own folder (of this
    version, or an earlier one without the marker)."""
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("my own")
    policy = tmp_path / "policy"
    shutil.copytree(trained, policy)
    (policy / "notes.txt").write_text("my own")
    afile = tmp_path / "afile.txt"
    afile.write_text("my own")
    for out, words in (
        (mine, f"is not a {trainer} run folder"),
        (policy, f"holds notes.txt, which no {trainer} run writes"),
        (afile, "is a file"),
    ):
        before = files(tmp_path)
        with pytest.raises(SystemExit) as e:
            main(["--out", str(out), "--fresh", *args])
        assert e.value.code == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and words in err and "--out" in err, err
        assert files(tmp_path) == before
    (policy / "notes.txt").unlink()
    (policy / "allfives_run.json").unlink()
    assert main(["--out", str(policy), "--fresh", *args]) == 0
    assert (policy / "allfives_run.json").is_file()
