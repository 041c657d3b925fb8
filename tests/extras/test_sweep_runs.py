"""``allfives sweep`` end to end at smoke size: real trainers (OpenSpiel NFSP, BenchMARL MAPPO)
under the reduced training protocol, their results, the table and curves drawn from them, a
resumed sweep, a row re-run from its file, and the runs sent to a Ray cluster of two local
nodes as tasks."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("benchmarl")
pytest.importorskip("pyspiel")

from agents.benchmark.sweep import read_result
from allfives_cli import main

REDUCED = ["--protocol", "allfives-train/1-reduced", "--tiers", "smoke", "--quiet"]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sweep")
    argv = ["sweep", *REDUCED, "--recipes", "openspiel-nfsp", "benchmarl-mappo", "--seeds", "0"]
    assert main([*argv, "--out", str(out)]) == 0
    return out


def test_each_run_files_its_result_with_provenance(swept: Path) -> None:
    files = sorted(swept.rglob("result.json"))
    assert len(files) == 2
    for f in files:
        r = read_result(f)
        assert r["track"] == "tabula_rasa" and r["tier"] == "smoke" and r["seed"] == 0
        assert 0 < r["env_steps"] <= 4096 and r["imitation_samples"] == 0
        assert r["selection"].startswith("the final policy")
        assert len(r["curve"]) == 2 and r["curve"][-1]["env_steps"] == r["env_steps"]
        assert r["agent"].endswith(f"curve/{r['env_steps']:012d}")
        for key in ("machine", "source", "versions", "command", "wall_seconds", "cpu_seconds"):
            assert r[key], key
        assert r["machine"]["cores"] >= 1 and r["versions"]["allfives"]
        assert r["attempts"] == 1 and r["cpu_seconds_complete"]  # its time: one whole attempt
        (attempt,) = json.loads((f.parent / "attempts.json").read_text(encoding="utf-8"))
        assert attempt == {
            "wall_seconds": r["wall_seconds"], "cpu_seconds": r["cpu_seconds"],
            "cpu": r["machine"]["cpu"],
        }  # fmt: skip
        assert r["attempt_cpus"] == [r["machine"]["cpu"]]
        assert set(r["test"]) == {"greedy", "heuristic:hoard=true"}
        assert r["framework_version"] == r["versions"][r["framework"]]


def test_a_sweep_given_again_goes_on_where_it_stopped(
    swept: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = {f: f.stat().st_mtime_ns for f in swept.rglob("result.json")}
    argv = ["sweep", *REDUCED, "--recipes", "openspiel-nfsp", "benchmarl-mappo", "--seeds", "0"]
    assert main([*argv, "--out", str(swept)]) == 0
    assert "2 done already, 0 to go" in capsys.readouterr().out
    assert {f: f.stat().st_mtime_ns for f in swept.rglob("result.json")} == before


def test_a_benchmarl_run_resumes_and_a_finished_unmeasured_one_trains_anew(
    swept: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "sweep"
    shutil.copytree(swept, out)
    (run,) = out.rglob("benchmarl-mappo/seed0")
    argv = ["sweep", *REDUCED, "--recipes", "benchmarl-mappo", "--seeds", "0", "--out", str(out)]
    # stopped after its policy was finished, before it was measured: trained anew, time anew
    (run / "result.json").unlink()
    assert main(argv) == 0
    assert "--fresh" in capsys.readouterr().out
    assert read_result(run / "result.json")["attempts"] == 1
    # stopped while training (no policy yet): the trainer goes on in its folder (from its
    # resume point, had it saved one), without --fresh, and the attempts add up
    (run / "result.json").unlink()
    for name in ("allfives.json", "report.json"):
        (run / "train" / name).unlink()
    assert main(argv) == 0
    assert "--fresh" not in capsys.readouterr().out
    assert read_result(run / "result.json")["attempts"] == 2


def test_the_table_and_curves_come_from_the_result_files(swept: Path, tmp_path: Path) -> None:
    table, curves = tmp_path / "table.md", tmp_path / "curves"
    argv = ["sweep-report", str(swept), "--out", str(table), "--curves", str(curves)]
    assert main(argv) == 0
    text = table.read_text(encoding="utf-8")
    assert "| OpenSpiel NFSP |" in text and "| BenchMARL MAPPO |" in text
    assert "allfives sweep --protocol allfives-train/1-reduced --recipes openspiel-nfsp" in text
    assert [p.name for p in curves.iterdir()] == ["pagat-2p_smoke_tabula_rasa.png"]
    assert main(argv) == 2  # the table exists: --force to replace it


def test_a_row_is_run_again_from_its_file(
    swept: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (result,) = swept.rglob("openspiel-nfsp/seed0/result.json")
    assert main(["sweep", "--rerun", str(result), "--out", str(tmp_path), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.count("inside its interval") == 2, out
    again = read_result(next(tmp_path.rglob("result.json")))
    first = read_result(result)
    assert again["test"] == first["test"] and again["curve"] == first["curve"]


def test_the_runs_go_to_a_ray_cluster_as_tasks(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    from agents.training.local_cluster import ENV, local_cluster

    with local_cluster(nodes=2) as address:
        argv = [
            "-m", "allfives_cli", "sweep", *REDUCED, "--recipes", "openspiel-nfsp",
            "--seeds", "0", "1", "--address", address, "--out", str(tmp_path),
        ]  # fmt: skip
        done = subprocess.run(
            [sys.executable, *argv], cwd=ROOT, env=ENV, capture_output=True, text=True,
            timeout=600,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    results = [json.loads(f.read_text()) for f in sorted(tmp_path.rglob("result.json"))]
    assert [r["seed"] for r in results] == [0, 1]
    assert results[0]["test"] != results[1]["test"] or results[0]["curve"] != results[1]["curve"]
