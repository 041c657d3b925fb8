"""The benchmark suite: the reduced protocol end to end, ratings, reports, the leaderboard."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openskill")

from agents.benchmark.protocol import FULL, PROTOCOLS, REDUCED, V1
from agents.benchmark.rating import fit_reference, ranks_of, rate_agent
from agents.benchmark.report import (
    PROVENANCE_KEYS,
    leaderboard,
    markers,
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
    with pytest.raises(EvalError, match="'my net' is a learned agent without provenance"):
        leaderboard([result])
    result["provenance"] = {k: 0 for k in PROVENANCE_KEYS}
    board = leaderboard([result])
    assert "### pyatyorka-3p" in board and "### pagat-2p" in board
    assert "`python train.py --name net && allfives benchmark net.zip" in board
    assert "--label 'my net'`" in board
    del result["provenance"]["curve"]
    with pytest.raises(EvalError, match="lacks curve"):
        leaderboard([result])


def test_a_learned_agent_takes_the_provenance_of_the_run_that_made_it(tmp_path: Path) -> None:
    from conftest import fake_checkpoint
    from sweep_results import fake_result

    from allfives_env.core.rules import Rules

    fake_checkpoint(tmp_path / "net.zip", Rules.preset("pyatyorka", 3))
    run = fake_result("trainpy-ppo", 4, 0.5)
    run |= {
        "agent": str(tmp_path / "net.zip"),
        "teacher_positions": 0,
        "cpu_seconds": 1.0,
        "machine": {"cpu": "x"},
        "source": {"commit": "abc"},
        "versions": {"allfives": "0"},
    }
    (tmp_path / "result.json").write_text(json.dumps(run))
    (tmp_path / "other.json").write_text(json.dumps(run | {"agent": "elsewhere.zip"}))
    common = ["--protocol", REDUCED.name, "--no-exploitability", "--quiet", "--processes", "1"]
    proc = allfives("benchmark", "net.zip", *common, "--provenance", "other.json", cwd=tmp_path)
    assert proc.returncode == 2 and "benchmark the run's final policy" in proc.stderr
    exact = run | {"setting": "tiny-2p", "exact": {"nash_conv": 0.1, "utility_range": 10.0}}
    (tmp_path / "exact.json").write_text(json.dumps(exact))
    proc = allfives("benchmark", "net.zip", *common, "--provenance", "exact.json", cwd=tmp_path)
    assert proc.returncode == 2 and "exact setting tiny-2p" in proc.stderr
    assert proc.stderr.count("\n") == 1
    assert not (tmp_path / "benchmarks").exists()
    proc = allfives("benchmark", "net.zip", *common, "--provenance", "result.json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = read_result(tmp_path / "benchmarks" / "net.zip.json")
    assert result["provenance"]["seed"] == 4 and "trainer_report" not in result["provenance"]
    assert result["recipe"].startswith("allfives sweep --protocol allfives-train/1 --recipes")
    assert "--seeds 4" in leaderboard([result])


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
    # the current version's results in docs/benchmarks/v2, the first version's beside them
    folders = {FULL.name: "docs/benchmarks/v2", V1.name: "docs/benchmarks"}
    doc = ROOT / "docs" / "BENCHMARK.md"
    text = doc.read_text(encoding="utf-8")
    results = []
    for protocol, folder in folders.items():
        found = [read_result(p) for p in sorted((ROOT / folder).glob("*.json"))]
        assert found and {r["format"] for r in found} == {protocol}
        assert all(m in text for m in markers(protocol))
        results += found
    assert update_leaderboard(doc, results) == text


def test_each_version_keeps_its_opponents_and_deals() -> None:
    assert V1.opponents == ("random", "greedy", "heuristic", "search:sims=100")
    assert FULL.name == "allfives-bench/2" and FULL.settings == V1.settings
    assert FULL.opponents == ("random", "greedy", "heuristic:hoard=true", "batchsearch:hoard=true")
    assert FULL.seed_of(FULL.settings[0], "random") != V1.seed_of(V1.settings[0], "random")
    assert set(PROTOCOLS) == {
        "allfives-bench/1", "allfives-bench/1-reduced", "allfives-bench/2",
        "allfives-bench/2-reduced",
    }  # fmt: skip


def test_the_leaderboard_writes_each_version_into_its_own_section(tmp_path: Path) -> None:
    def result(protocol: str, label: str) -> dict[str, Any]:
        entry = {"matches": 2, "win_rate": 0.5, "win_rate_ci": [0.1, 0.9]}
        return {
            "format": protocol, "agent": {"spec": label, "label": label}, "opponents": ["random"],
            "settings": {"pagat-2p": {"opponents": {"random": entry},
                                      "rating": {"mu": 30.0, "sigma": 2.0}}},
        }  # fmt: skip

    one, two = markers(V1.name), markers(FULL.name)
    doc = tmp_path / "doc.md"
    doc.write_text(f"a\n{two[0]}\nold 2\n{two[1]}\nb\n{one[0]}\nold 1\n{one[1]}\nc\n")
    text = update_leaderboard(doc, [result(FULL.name, "new"), result(V1.name, "old")])
    first, _, rest = text.partition(one[0])
    assert "| new |" in first and "| old |" not in first and "old 2" not in first
    assert "| old |" in rest and "| new |" not in rest and "old 1" not in rest
    assert text.startswith("a\n") and text.endswith("c\n")
    with pytest.raises(EvalError, match="results of different protocols"):
        leaderboard([result(FULL.name, "x"), result(V1.name, "y")])
    only_two = tmp_path / "two.md"
    only_two.write_text(f"{two[0]}\n{two[1]}\n")
    with pytest.raises(EvalError, match="no leaderboard section for allfives-bench/1"):
        update_leaderboard(only_two, [result(V1.name, "old")])


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
    start, end = markers(FULL.name)
    empty.write_text(f"# x\n{start}\nold\n{end}\ntail\n")
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


def _result(protocol: Any = REDUCED, label: str = "x") -> dict[str, Any]:
    """A result file's JSON that :func:`read_result` takes."""
    cell = {"matches": 2, "win_rate": 0.5, "win_rate_ci": [0.1, 0.9]}
    return {
        "format": protocol.name,
        "agent": {"spec": label, "label": label},
        "opponents": list(protocol.opponents),
        "settings": {
            protocol.settings[0].name: {
                "opponents": {o: cell for o in protocol.opponents},
                "rating": {"mu": 30.0, "sigma": 2.0},
                "exploitability": {"skipped": "not asked for"},
            },
            protocol.settings[1].name: {"skipped": "other rules"},
        },
    }


def test_the_leaderboard_refuses_a_file_or_an_agent_twice(tmp_path: Path) -> None:
    a = tmp_path / "a.json"
    a.write_text(json.dumps(_result(label="mine")))
    b = tmp_path / "b.json"
    b.write_text(json.dumps(_result(label="mine")))
    (tmp_path / "c.json").write_text(json.dumps(_result(label="other")))
    ok = allfives("leaderboard", "a.json", "c.json", cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.count("| mine |") == 1
    for args, message in (
        (["a.json", "a.json"], "a.json is given twice"),
        (["a.json", "./a.json"], "is given twice"),
        (["a.json", "b.json"], "a.json and b.json are both results of 'mine'"),
    ):
        proc = allfives("leaderboard", *args, cwd=tmp_path)
        assert proc.returncode == 2 and proc.stdout == "", proc.stderr
        lines = proc.stderr.splitlines()
        assert len(lines) == 1 and message in lines[0], proc.stderr


def _damaged(change: Any) -> dict[str, Any]:
    result = _result()
    change(result)
    return result


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (json.dumps(_result(V1)).replace(V1.name, "allfives-bench/9"),
         "unknown protocol 'allfives-bench/9'"),
        ('{"format": "allfives-bench/2", "format": "allfives-bench/1"}', "duplicate key 'format'"),
        (json.dumps(_result())[:-1] + ', "agent": {}}', "duplicate key 'agent'"),
        ('{"format": "allfives-bench/2", "x": NaN}', "NaN is not JSON"),
        ("[1]", "not a benchmark result"),
        ("{", "not a benchmark result"),
        (json.dumps(_damaged(lambda r: r.update(agent="x"))), "agent must be an object"),
        (json.dumps(_damaged(lambda r: r["agent"].update(label=3))), "agent.label must be"),
        (json.dumps(_damaged(lambda r: r.update(opponents=["random"]))), "opponents must be"),
        (json.dumps(_damaged(lambda r: r.update(settings={"nowhere-9p": {}}))),
         "settings['nowhere-9p'] must be one of"),
        (json.dumps(_damaged(lambda r: r["settings"]["pagat-2p"]["opponents"]["random"].update(
            win_rate="0.5"))), "settings['pagat-2p'].opponents['random'].win_rate must be"),
        (json.dumps(_damaged(lambda r: r["settings"]["pagat-2p"]["opponents"]["random"].update(
            win_rate_ci=[0.9, 0.1]))), "win_rate_ci must be [low, high]"),
        (json.dumps(_damaged(lambda r: r["settings"]["pagat-2p"]["rating"].update(mu=None))),
         "settings['pagat-2p'].rating.mu must be a number"),
        (json.dumps(_damaged(lambda r: r["settings"]["pagat-2p"].update(exploitability=None))),
         "settings['pagat-2p'].exploitability must be an object"),
        (json.dumps(_damaged(lambda r: r["settings"]["pyatyorka-3p"].update(skipped=1))),
         "settings['pyatyorka-3p'].skipped must be a string"),
        (json.dumps(_damaged(lambda r: r.update(recipe=["python train.py"]))),
         "recipe must be a string"),
    ],
)  # fmt: skip
def test_a_result_file_is_read_strictly_and_checked_field_by_field(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "r.json"
    path.write_text(text)
    with pytest.raises(EvalError) as err:
        read_result(path)
    assert message in str(err.value) and "r.json" in str(err.value), str(err.value)
    assert "\n" not in str(err.value)
    proc = allfives("leaderboard", "r.json", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.count("\n") == 1
    assert "Traceback" not in proc.stderr


def test_the_leaderboard_replaces_only_between_its_markers(tmp_path: Path) -> None:
    (tmp_path / "r.json").write_text(json.dumps(_result()))
    start, end = markers(REDUCED.name)
    for text in (f"a\n{end}\nb\n{start}\nc\n", f"{start}\n{end}\n{start}\n{end}\n", "plain\n"):
        doc = tmp_path / "doc.md"
        doc.write_text(text)
        proc = allfives("leaderboard", "r.json", "--write", "doc.md", cwd=tmp_path)
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
        assert doc.read_text() == text  # nothing of it replaced
    for device in ("/dev/zero", "/dev/full"):
        if Path(device).exists():
            proc = allfives("leaderboard", "r.json", "--write", device, cwd=tmp_path)
            assert proc.returncode == 2 and "not a regular file" in proc.stderr, proc.stderr
    doc.write_text(f"head\n{start}\nold\n{end}\ntail\n")
    proc = allfives("leaderboard", "r.json", "--write", "doc.md", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = doc.read_text()
    assert text.startswith("head\n") and text.endswith("tail\n") and "| x |" in text
    assert "old" not in text and not list(tmp_path.glob("*.tmp"))


def test_benchmark_refuses_to_replace_result_files_before_any_match(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "greedy.png").write_text("mine")
    proc = allfives("benchmark", "greedy", "--protocol", REDUCED.name, "--out", "out",
                    "--no-exploitability", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "--out out/greedy.png already exists" in lines[0], proc.stderr
    assert "--force" in lines[0]
    assert [p.name for p in out.iterdir()] == ["greedy.png"]
    assert (out / "greedy.png").read_text() == "mine"


def test_check_result_files_refuses_twins_and_existing_files(tmp_path: Path) -> None:
    from agents.files import OutputFileError
    from allfives_cli.benchmark import check_result_files

    check_result_files(tmp_path / "new" / "deeper", ["a", "b"], force=False)
    with pytest.raises(EvalError, match="would write the same files"):
        check_result_files(tmp_path, ["net.zip", "net.zip"], force=True)
    (tmp_path / "a.md").write_text("mine")
    with pytest.raises(OutputFileError, match=r"a\.md already exists"):
        check_result_files(tmp_path, ["a"], force=False)
    check_result_files(tmp_path, ["a"], force=True)
    (tmp_path / "file").write_text("")
    with pytest.raises(EvalError, match="not a folder"):
        check_result_files(tmp_path / "file", ["a"], force=False)


def test_benchmark_says_how_long_it_takes_and_shows_a_bar(tmp_path: Path) -> None:
    from agents.benchmark.run import estimate, planned_matches

    assert planned_matches("greedy", REDUCED) == {"pagat-2p": {"random": 6},
                                                  "pyatyorka-3p": {"random": 9}}  # fmt: skip
    assert sum(FULL.deals_against(o, "x") for o in FULL.opponents) == 320
    full = estimate("greedy", FULL, 2, True)
    assert full.startswith("1,980 matches in 4 settings and 4 best responses: about ")
    assert " min with 2 processes" in full
    search = estimate("batchsearch", FULL, 1, True)
    assert "and" not in search.split(":")[0]  # no best response against a search agent
    assert int(search.split("about ")[1].split()[0]) > 20
    proc = allfives("benchmark", "greedy", "--protocol", REDUCED.name, "--processes", "1",
                    "--no-exploitability", "--out", "out", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    first = proc.stderr.splitlines()[0]
    assert first.startswith(f"greedy under {REDUCED.name}: 15 matches in 2 settings: about")
    assert "15/15" in proc.stderr  # one bar over the agent's matches
