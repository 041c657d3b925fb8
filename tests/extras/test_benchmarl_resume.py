"""BenchMARL runs resume bit for bit: a run interrupted between iterations and run again ends
with the weights, the curve and the counters of a run never interrupted (the ``[benchmarl]``
extra; skipped without it)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("benchmarl")

import torch

from allfives_benchmarl import resume
from allfives_benchmarl.policy_file import load_policy
from allfives_benchmarl.resume import RESUME_FILE
from allfives_benchmarl.train import main

SMALL = [
    "--frames", "2048", "--frames_per_batch", "512", "--envs", "32", "--minibatch_size", "256",
    "--epochs", "2", "--hidden", "32", "--seed", "3", "--curve_points", "4",
]  # fmt: skip


def weights(folder: Path) -> dict[str, Any]:
    return dict(load_policy(folder)[2].state_dict())


def equal(a: Any, b: Any) -> bool:
    return torch.equal(a, b) if isinstance(a, torch.Tensor) else bool(a == b)


def interrupt_after(monkeypatch: pytest.MonkeyPatch, iterations: int) -> list[int]:
    """Make the run stop (as Ctrl-C does) right after the resume point of its ``iterations``th
    iteration is written; return the frames of each point written."""
    saved: list[int] = []
    original = resume.Saver.maybe_save

    def save_then_stop(self: resume.Saver, experiment: Any) -> None:
        original(self, experiment)
        if experiment.n_iters_performed == iterations:
            assert self.path.exists()
            saved.append(int(experiment.total_frames))
            raise KeyboardInterrupt

    monkeypatch.setattr(resume.Saver, "maybe_save", save_then_stop)
    return saved


def same_run(whole: Path, resumed: Path) -> None:
    first, again = weights(whole), weights(resumed)
    assert first.keys() == again.keys()
    for k, v in first.items():
        assert equal(v, again[k]), k
    reports = [
        json.loads((f / "report.json").read_text(encoding="utf-8")) for f in (whole, resumed)
    ]
    for key in ("frames", "env_steps"):
        assert reports[0][key] == reports[1][key] == 2048
    points = [[p["env_steps"] for p in r["curve"]] for r in reports]
    assert points[0] == points[1] == [512, 1024, 1536, 2048]
    for p in points[0]:  # every curve point holds the same weights
        name = f"curve/{p:012d}"
        a, b = weights(whole / name), weights(resumed / name)
        assert all(equal(v, b[k]) for k, v in a.items()), name
    assert not (resumed / RESUME_FILE).exists()


@pytest.mark.parametrize(
    "algorithm", ["mappo", pytest.param("iql", id="iql (its replay buffer saved)")]
)
def test_an_interrupted_run_resumes_to_the_same_weights(
    algorithm: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    flags = ["--algorithm", algorithm, *SMALL, "--resume_every", "0"]
    whole, resumed = tmp_path / "whole", tmp_path / "resumed"
    assert main([*flags, "--out", str(whole)]) == 0
    with monkeypatch.context() as m:
        saved = interrupt_after(m, 2)
        assert main([*flags, "--out", str(resumed)]) == 130
    assert saved == [1024]
    err = capsys.readouterr().err
    assert "the last resume point is in" in err and "run the same command" in err
    # another --resume_every and --engine_threads change nothing learned: they may differ
    assert (
        main([*flags, "--out", str(resumed), "--resume_every", "30", "--engine_threads", "1"]) == 0
    )
    assert "resuming" in capsys.readouterr().out
    same_run(whole, resumed)


def test_a_point_of_other_flags_or_damaged_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    flags = [*SMALL, "--resume_every", "0"]
    out = tmp_path / "run"
    with monkeypatch.context() as m:
        interrupt_after(m, 1)
        assert main([*flags, "--out", str(out)]) == 130
    point = out / RESUME_FILE
    kept = point.read_bytes()
    capsys.readouterr()
    for argv, says in (
        (["--lr", "1e-3"], "--lr 0.0003 there, 0.001 here"),
        (["--seed", "4"], "--seed 3 there, 4 here"),
    ):
        with pytest.raises(SystemExit) as e:
            main([*flags, *argv, "--out", str(out)])
        assert e.value.code == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and says in err and "--fresh" in err, err
        assert point.read_bytes() == kept
    saved = torch.load(point, weights_only=False)
    saved["benchmarl"]["loss_players"] = {}  # reads back, but fits no network
    wrong = io.BytesIO()
    torch.save(saved, wrong)
    saved["identity"] = "x"
    unnamed = io.BytesIO()
    torch.save(saved, unnamed)
    damages = (kept[: len(kept) // 2], b"not a resume point", b"", wrong.getvalue(),
               unnamed.getvalue())  # fmt: skip
    for damage in damages:
        point.write_bytes(damage)
        with pytest.raises(SystemExit) as e:
            main([*flags, "--out", str(out)])
        assert e.value.code == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "is damaged" in err and "--fresh" in err, err
        assert point.read_bytes() == damage
    assert main([*flags, "--out", str(out), "--fresh"]) == 0  # the way out
    assert not point.exists() and (out / "report.json").exists()
