"""The benchmark suite: the reduced protocol end to end, ratings, reports, the leaderboard."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openskill")

from agents.benchmark.protocol import FULL, REDUCED
from agents.benchmark.rating import fit_reference, ranks_of, rate_agent
from agents.benchmark.report import (
    END,
    START,
    leaderboard,
    read_result,
    update_leaderboard,
)
from agents.benchmark.run import exploitability_skipped, result_numbers
from agents.eval.match import EvalError

ROOT = Path(__file__).resolve().parents[2]


def allfives(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "allfives_env", *args],
        capture_output=True, text=True, cwd=cwd, timeout=600,
    )  # fmt: skip


@pytest.fixture(scope="module")
def reduced(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict[str, Any]]:
    """``greedy`` under the reduced protocol, with 1 and with 2 processes."""
    out = {}
    for processes in (1, 2):
        folder = tmp_path_factory.mktemp(f"bench{processes}")
        proc = allfives(
            "benchmark", "greedy", "--protocol", REDUCED.name, "--processes", str(processes),
            "--out", str(folder), "--quiet", cwd=folder,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert (folder / "greedy.md").is_file() and (folder / "greedy.png").stat().st_size > 0
        out[processes] = json.loads((folder / "greedy.json").read_text())
    return out


def test_the_reduced_protocol_runs_end_to_end(reduced: dict[int, dict[str, Any]]) -> None:
    result = reduced[1]
    assert result["format"] == REDUCED.name
    assert result["command"] == f"allfives benchmark greedy --protocol {REDUCED.name}"
    assert list(result["settings"]) == [s.name for s in REDUCED.settings]
    for name, entry in result["settings"].items():
        k = 3 if name == "pyatyorka-3p" else 2
        assert entry["opponents"]["greedy"] == {"skipped": "the agent itself"}
        for opponent in ("random",):
            r = entry["opponents"][opponent]
            assert r["matches"] == REDUCED.deals * k
            low, high = r["win_rate_ci"]
            assert 0 <= low <= r["win_rate"] <= high <= 1
        assert entry["rating"]["sigma"] < 25 / 3  # the matches told it something
        br = entry["exploitability"]
        assert br["matches"] >= REDUCED.best_response.final_eval_matches
        assert 0 <= br["win_rate"] <= 1 and "train.py" in br["budget"]
    assert set(result["reference_ratings"]) == {s.name for s in REDUCED.settings}


def test_the_numbers_do_not_depend_on_the_process_count(
    reduced: dict[int, dict[str, Any]],
) -> None:
    assert result_numbers(reduced[1]) == result_numbers(reduced[2])


def test_a_checkpoint_is_benchmarked_in_the_settings_it_plays(tmp_path: Path) -> None:
    from conftest import fake_checkpoint

    from allfives_env.core.rules import Rules

    fake_checkpoint(tmp_path / "net.zip", Rules.preset("pyatyorka", 3))
    proc = allfives(
        "benchmark", "net.zip", "--protocol", REDUCED.name, "--processes", "2",
        "--no-exploitability", "--quiet", "--recipe", "python train.py --name net",
        "--label", "my net", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads((tmp_path / "benchmarks" / "my_net.json").read_text())
    assert result["agent"] == {"spec": "net.zip", "label": "my net"}
    assert "trained for" in result["settings"]["pagat-2p"]["skipped"]
    played = result["settings"]["pyatyorka-3p"]
    assert played["exploitability"] == {"skipped": "not asked for"}
    assert result["recipe"] == "python train.py --name net"
    board = leaderboard([result])
    assert "### pyatyorka-3p" in board and "### pagat-2p" in board
    assert "`python train.py --name net && allfives benchmark net.zip" in board
    assert "--label 'my net'`" in board


def test_search_agents_play_fewer_deals_and_no_best_response() -> None:
    """Both search agents, at any settings, are slow: fewer deals, no best response."""
    for spec in ("search:sims=100", "batchsearch", "batchsearch:worlds=512"):
        assert FULL.deals_against("heuristic", spec) == FULL.search_deals == 20
        assert FULL.deals_against(spec, "heuristic") == 20
        assert exploitability_skipped(spec) is not None
    for spec in ("heuristic", "runs/searchy/best.zip", "rllib:runs/rllib/default"):
        assert FULL.deals_against("greedy", spec) == FULL.deals == 100
        assert exploitability_skipped(spec) is None


def test_ranks_put_the_winner_first_then_by_score() -> None:
    assert ranks_of([61, 40], [0]) == [0, 1]
    assert ranks_of([40, 61, 55], [1]) == [2, 0, 1]
    assert ranks_of([61, 61], [0, 1]) == [0, 0]
    assert ranks_of([30, 61, 30], [1]) == [1, 0, 1]


def test_more_wins_rate_higher_against_the_same_reference() -> None:
    matches = [("a", "b", (61, 30), (0,), 0), ("b", "a", (61, 30), (0,), 0)] * 20
    reference = fit_reference(matches)
    assert reference["a"][0] == pytest.approx(reference["b"][0], abs=3)

    def record(wins: int) -> list[Any]:
        return [("x", "a", (61, 30), (0,) if i < wins else (1,), 0) for i in range(20)]

    strong, weak = rate_agent(record(16), reference), rate_agent(record(4), reference)
    assert strong[0] > reference["a"][0] > weak[0]
    assert rate_agent(record(16), reference) == strong  # deterministic


def test_the_leaderboard_in_the_docs_is_made_from_the_result_files() -> None:
    files = sorted((ROOT / "docs" / "benchmarks").glob("*.json"))
    results = [read_result(p) for p in files]
    doc = ROOT / "docs" / "BENCHMARK.md"
    assert update_leaderboard(doc, results) == doc.read_text(encoding="utf-8")
    for r in results:
        assert r["format"] == FULL.name


def test_leaderboard_errors_are_one_line(tmp_path: Path) -> None:
    (tmp_path / "doc.md").write_text("no markers here\n")
    (tmp_path / "x.json").write_text('{"format": "allfives-eval/1"}')
    with pytest.raises(EvalError, match="not a benchmark result"):
        read_result(tmp_path / "x.json")
    with pytest.raises(EvalError, match="no leaderboard section"):
        update_leaderboard(tmp_path / "doc.md", [])
    proc = allfives("leaderboard", "x.json", "--write", "doc.md", cwd=tmp_path)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert (tmp_path / "doc.md").read_text() == "no markers here\n"
    empty = tmp_path / "empty.md"
    empty.write_text(f"# x\n{START}\nold\n{END}\ntail\n")
    text = update_leaderboard(empty, [])
    assert text.startswith("# x\n") and text.endswith("tail\n") and "old" not in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["benchmark", "nobody"], "unknown agent 'nobody'"),
        (["benchmark", "greedy", "--protocol", "mine/1"], "invalid choice"),
        (["benchmark", "greedy", "--processes", "0"], "must be at least 1"),
        (["benchmark", "greedy", "random", "--label", "x"], "--label names one agent"),
        (["benchmark"], "give agents to benchmark, or --reference alone"),
    ],
)
def test_benchmark_errors_are_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    proc = allfives(*args, cwd=tmp_path)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]
    assert not list(tmp_path.iterdir())
