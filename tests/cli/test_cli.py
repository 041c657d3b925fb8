"""The ``allfives`` command line, run as a real process (RULES.md §4 and ``allfives_cli``).

Each command runs both as ``python -m allfives_env`` and as the installed ``allfives`` script
(skipped where the script is not installed). A user mistake must give exit status 2, nothing on
stdout, and exactly one line on stderr, with no traceback.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import fake_checkpoint

from allfives_env import TILES, Game, Rules, Tile, load_record, record_of, replay, save_record
from allfives_env.core.records import FORMAT, replay_text

TIMEOUT = 60


def _script() -> str | None:
    found = shutil.which("allfives")
    if found is None:  # the interpreter's own bin/ (a venv not on PATH)
        found = shutil.which("allfives", path=os.path.dirname(sys.executable))
    return found


def _runner(kind: str, tmp_path: Path) -> Any:
    if kind == "module":
        base = [sys.executable, "-m", "allfives_env"]
    else:
        script = _script()
        if script is None:
            pytest.skip("the allfives console script is not installed")
        base = [script]

    def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*base, *args],
            input=stdin if stdin is not None else "",
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=TIMEOUT,
        )

    return run


@pytest.fixture
def cli(tmp_path: Path) -> Any:
    """Run ``python -m allfives_env`` with some arguments (cwd: a fresh temp dir)."""
    return _runner("module", tmp_path)


@pytest.fixture(params=["module", "script"])
def cli_both(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """The same, as ``python -m allfives_env`` and as the ``allfives`` console script."""
    return _runner(request.param, tmp_path)


def assert_usage_error(proc: subprocess.CompletedProcess[str], *needles: str) -> str:
    """Exit 2, nothing on stdout, one line on stderr (containing ``needles``); return it."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert proc.stderr.endswith("\n")
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def _match_record(preset: str, n: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    game = Game(Rules.preset(preset, n), rng)
    while not game.is_match_over:
        if game.is_hand_over:
            game.deal(rng)
        game.apply(rng.choice(game.legal_actions()))
    return record_of(game, {"players": ["a", "b", "c", "d"][:n]}).to_json()


def _mid_hand_record() -> dict[str, Any]:
    # RULES.md §3 worked examples 1-3 (pagat, 2 players), stopped mid-hand.
    hands = [
        ["6-4", "6-3", "1-5", "1-0", "2-6", "0-0", "3-3", "4-4", "5-5"],
        ["4-1", "1-1", "1-2", "2-2", "0-2", "2-3", "2-4", "2-5", "0-6"],
    ]
    named = {Tile.parse(t) for h in hands for t in h}
    boneyard = [str(t) for t in TILES if t not in named]
    return {
        "format": FORMAT,
        "rules": {"preset": "pagat", "num_players": 2},
        "hands": [
            {
                "hands": hands,
                "boneyard": boneyard,
                "leader": 0,
                "actions": ["6-4", "4-1 E", "6-3 W", "1-1 E", "1-5 E", "1-2 N", "1-0 S"],
            }
        ],
    }


def _write(tmp_path: Path, name: str, obj: object) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(obj), encoding="utf-8")
    return path


# ============================================================================ replay


@pytest.mark.parametrize(
    "make",
    [
        lambda: _match_record("pagat", 2, 1),
        lambda: _match_record("five_up", 4, 2),
        lambda: _match_record("pyatyorka", 3, 3),
        _mid_hand_record,
    ],
    ids=["pagat-2p-match", "five_up-4p-match", "pyatyorka-3p-match", "mid-hand"],
)
def test_replay_file_prints_the_result(cli_both: Any, tmp_path: Path, make: Any) -> None:
    path = _write(tmp_path, "game.json", make())
    expected = replay(load_record(path)).to_json()
    proc = cli_both("replay", str(path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert proc.stdout.endswith("\n")
    assert len(proc.stdout.splitlines()) == 1  # exactly one JSON object, on one line
    assert json.loads(proc.stdout) == expected
    assert set(expected) == {"points", "hands", "scores", "winner"}


def test_replay_worked_example_output(cli: Any, tmp_path: Path) -> None:
    path = _write(tmp_path, "ex.json", _mid_hand_record())
    proc = cli("replay", "ex.json")  # a path relative to the working directory
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {
        "points": [10, 0, 0, 5, 0, 10, 10],
        "hands": [],
        "scores": [20, 15],
        "winner": None,
    }
    assert path.exists()


def test_replay_from_stdin(cli_both: Any) -> None:
    obj = _match_record("spruce", 2, 4)
    text = json.dumps(obj, indent=2)
    proc = cli_both("replay", "-", stdin=text)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert len(proc.stdout.splitlines()) == 1
    assert json.loads(proc.stdout) == replay_text(text)


def test_replay_a_saved_record_file(cli: Any, tmp_path: Path) -> None:
    rng = random.Random(6)
    game = Game(Rules.preset("dominoes_cc", 4, partnerships=False), rng)
    while not game.is_match_over:
        if game.is_hand_over:
            game.deal(rng)
        game.apply(rng.choice(game.legal_actions()))
    save_record(record_of(game), tmp_path / "saved.json")
    proc = cli("replay", str(tmp_path / "saved.json"))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["scores"] == list(game.scores)
    assert game.winners is not None
    assert out["winner"] == (game.winners[0] if len(game.winners) == 1 else list(game.winners))


def _bad_records() -> list[tuple[str, str, str]]:
    """(id, file text, the position the error line must name)."""
    good = _mid_hand_record()

    def variant(change: Any) -> str:
        obj = json.loads(json.dumps(good))
        change(obj)
        return json.dumps(obj)

    def hand(obj: dict[str, Any]) -> dict[str, Any]:
        h: dict[str, Any] = obj["hands"][0]
        return h

    return [
        ("malformed-json", '{"format": "allfives-record/1",', "JSON"),
        ("empty-file", "", "JSON"),
        ("not-an-object", "[1, 2, 3]", "record"),
        ("wrong-format", variant(lambda o: o.update(format="allfives-record/9")), "format"),
        (
            "unknown-preset",
            variant(lambda o: o["rules"].update(preset="muggins")),
            "rules.preset",
        ),
        (
            "bad-num-players",
            variant(lambda o: o["rules"].update(num_players=5)),
            "rules.num_players",
        ),
        (
            "unknown-rules-key",
            variant(lambda o: o["rules"].update(target=100)),
            "rules.target",
        ),
        (
            "duplicate-tile",
            variant(lambda o: hand(o)["boneyard"].__setitem__(0, "6-4")),
            "hand 1",
        ),
        ("leader-missing", variant(lambda o: hand(o).pop("leader")), "hand 1"),
        (
            "tile-not-in-hand",
            variant(lambda o: hand(o).update(actions=["6-4", "6-3 W"])),
            "hand 1, action 2",
        ),
        (
            "slot-not-open",
            variant(lambda o: hand(o).update(actions=["6-4", "4-1 E", "6-3 W", "1-1 E", "1-5 N"])),
            "hand 1, action 5",
        ),
        (
            "slot-does-not-match",
            variant(lambda o: hand(o).update(actions=["6-4", "4-1 E", "6-3 E"])),
            "hand 1, action 3",
        ),
        (
            "leader-draws",
            variant(lambda o: hand(o).update(actions=["draw"])),
            "hand 1, action 1",
        ),
        (
            "pass-with-a-move",
            variant(lambda o: hand(o).update(actions=["6-4", "pass"])),
            "hand 1, action 2",
        ),
        (
            "malformed-action",
            variant(lambda o: hand(o).update(actions=["6-4", "4-1  E"])),
            "hand 1, action 2",
        ),
        (
            "action-not-a-string",
            variant(lambda o: hand(o).update(actions=["6-4", 41])),
            "hand 1, action 2",
        ),
        (
            "hand-before-previous-ended",
            variant(lambda o: o["hands"].append(json.loads(json.dumps(hand(o))))),
            "hand 2",
        ),
    ]


BAD = _bad_records()


@pytest.mark.parametrize(("text", "where"), [(t, w) for _, t, w in BAD], ids=[i for i, _, _ in BAD])
def test_replay_invalid_record_file(cli: Any, tmp_path: Path, text: str, where: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    line = assert_usage_error(cli("replay", str(path)), where)
    assert line.startswith("allfives: error: ")


@pytest.mark.parametrize(
    ("text", "where"),
    [(t, w) for i, t, w in BAD if i in ("malformed-json", "tile-not-in-hand", "unknown-preset")],
)
def test_replay_invalid_record_from_stdin(cli: Any, text: str, where: str) -> None:
    assert_usage_error(cli("replay", "-", stdin=text), where)


def test_replay_positions_name_the_exact_action(cli: Any, tmp_path: Path) -> None:
    # "hand 1, action 1" must not pass for "hand 1, action 12": check the whole position.
    obj = _mid_hand_record()
    obj["hands"][0]["actions"] = ["6-4", "4-1 E", "6-3 W", "1-1 E", "1-5 E", "1-2 N", "1-0 N"]
    line = assert_usage_error(cli("replay", str(_write(tmp_path, "r.json", obj))))
    assert re.search(r"\bhand 1, action 7\b", line), line


def test_replay_invalid_utf8_is_one_line(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"format": "allfives-record/1", "who": "Jos\xe9"')
    assert_usage_error(cli("replay", str(path)))


def test_replay_missing_file(cli_both: Any, tmp_path: Path) -> None:
    line = assert_usage_error(cli_both("replay", str(tmp_path / "no-such-record.json")))
    assert "no-such-record.json" in line


def test_replay_a_directory(cli: Any, tmp_path: Path) -> None:
    assert_usage_error(cli("replay", str(tmp_path)))


def test_replay_deeply_nested_json(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000, encoding="utf-8")
    assert_usage_error(cli("replay", str(path)))


def test_replay_rules_key_with_newline_is_one_line(cli: Any, tmp_path: Path) -> None:
    obj = _mid_hand_record()
    obj["rules"]["bad\nkey"] = 1
    assert_usage_error(cli("replay", str(_write(tmp_path, "nl.json", obj))), "rules")


# ============================================================================ bad arguments


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["nope"],
        ["--nope"],
        ["replay"],
        ["replay", "a.json", "b.json"],
        ["speed"],
        ["speed", "engine", "--seconds", "-1"],
        ["speed", "engine", "--seconds", "0"],
        ["speed", "engine", "--seconds", "abc"],
        ["speed", "engine", "--seconds", "nan"],
        ["speed", "engine", "--preset", "muggins"],
        ["speed", "engine", "--players", "5"],
        ["speed", "speed"],
        ["bench", "engine", "--players", "5"],
        ["demo", "--agents", "nobody"],
        ["demo", "--agents", "greedy", "nobody"],
        ["demo", "--agents", ","],
        ["demo", "--agents", " "],
        ["demo", "--agents"],
        ["demo", "--agents", "greedy,random"],
        ["demo", "--agents", "search:sims=2,sims=3"],
        ["demo", "--players", "5"],
        ["demo", "--preset", "muggins"],
        ["demo", "--seed", "x"],
    ],
    ids=lambda a: " ".join(a) or "no-args",
)
def test_bad_arguments(cli: Any, args: list[str]) -> None:
    assert_usage_error(cli(*args))


def test_help_is_not_an_error(cli: Any) -> None:
    proc = cli("--help")
    assert proc.returncode == 0
    for command in ("replay", "demo", "speed", "benchmark"):
        assert command in proc.stdout


# ============================================================================ demo


def _final_scores(stdout: str) -> list[float]:
    """The demo's ``final scores 250:120`` (joined by ':')."""
    m = re.search(r"final scores (\S+)", stdout)
    assert m, stdout
    return [float(part) for part in m.group(1).split(":")]


def test_demo_save_then_replay(cli_both: Any, tmp_path: Path) -> None:
    first = cli_both("demo", "--seed", "5", "--save", "match.json")
    assert first.returncode == 0, first.stderr
    assert first.stderr == ""
    saved = (tmp_path / "match.json").read_text(encoding="utf-8")
    second = cli_both("demo", "--seed", "5", "--save", "match.json", "--force")
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout  # the same seed plays the same match
    assert (tmp_path / "match.json").read_text(encoding="utf-8") == saved
    assert "match over" in first.stdout

    obj = json.loads(saved)
    assert obj["format"] == FORMAT
    assert obj["rules"] == {"preset": "pagat", "num_players": 2}
    proc = cli_both("replay", "match.json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out == replay(load_record(tmp_path / "match.json")).to_json()
    assert out["winner"] is not None
    assert out["scores"] == _final_scores(first.stdout)


@pytest.mark.parametrize(
    "args",
    [
        ["--preset", "five_up", "--players", "4"],
        ["--preset", "pyatyorka", "--players", "3", "--agents", "random"],
        ["--preset", "dominoes_cc", "--players", "2", "--agents", "greedy", "greedy"],
    ],
    ids=["five_up-4p", "pyatyorka-3p", "dominoes_cc-2p"],
)
def test_demo_presets_replay(cli: Any, tmp_path: Path, args: list[str]) -> None:
    demo = cli("demo", "--seed", "7", "--quiet", "--save", "m.json", *args)
    assert demo.returncode == 0, demo.stderr
    proc = cli("replay", "m.json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["winner"] is not None


def test_demo_same_seed_same_output(cli: Any) -> None:
    a = cli("demo", "--seed", "5")
    b = cli("demo", "--seed", "5")
    assert a.returncode == b.returncode == 0
    assert a.stdout == b.stdout
    assert a.stdout.count("\n") > 5


def test_demo_quiet_prints_only_the_result(cli: Any) -> None:
    loud = cli("demo", "--seed", "5")
    quiet = cli("demo", "--seed", "5", "--quiet")
    assert quiet.returncode == 0
    lines = quiet.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith("match over")
    assert lines[0] in loud.stdout.splitlines()


def test_demo_unwritable_save_path(cli: Any, tmp_path: Path) -> None:
    assert_usage_error(cli("demo", "--seed", "5", "--save", str(tmp_path / "no" / "x.json")))


# ============================================================================ speed


@pytest.mark.parametrize("name", ["speed", "bench"])  # bench: the old name, still taken
def test_engine_speed_prints_a_row(cli_both: Any, name: str) -> None:
    proc = cli_both(name, "engine", "--seconds", "0.2", "--preset", "pagat", "--players", "2")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    lines = proc.stdout.splitlines()
    header = next(line for line in lines if line.startswith("| preset"))
    assert "moves/s" in header
    cols = [c.strip() for c in header.strip("|").split("|")]
    rows = [line for line in lines if line.startswith("| pagat |")]
    assert len(rows) == 1
    cells = [c.strip() for c in rows[0].strip("|").split("|")]
    assert len(cells) == len(cols)
    row = dict(zip(cols, cells, strict=True))
    assert row["preset"] == "pagat" and row["players"] == "2"
    for key in ("moves/s", "hands/s", "moves", "seconds"):
        float(row[key].replace(",", ""))  # a number (its size is not asserted)
    assert int(row["moves"].replace(",", "")) > 0


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["nope"], "nope"),
        (["speed", "engine", "--seconds", "-1"], "--seconds"),
        (["demo", "--agents", "nobody"], "nobody"),
    ],
)
def test_script_bad_arguments(cli_both: Any, args: list[str], needle: str) -> None:
    assert_usage_error(cli_both(*args), needle)


def test_script_invalid_record(cli_both: Any, tmp_path: Path) -> None:
    obj = _mid_hand_record()
    obj["hands"][0]["actions"] = ["6-4", "6-3 W"]
    path = _write(tmp_path, "bad.json", obj)
    assert_usage_error(cli_both("replay", str(path)), "hand 1, action 2")


def test_agents_beyond_the_seats_are_refused(cli: Any) -> None:
    assert_usage_error(
        cli("demo", "--agents", "greedy", "random", "heuristic"), "3 agents for 2 seats"
    )
    assert_usage_error(
        cli("play", "--opponents", "greedy", "random", "--no-save"), "2 agents for 1 other seat"
    )


def test_demo_is_the_first_match_of_eval(cli: Any, tmp_path: Path) -> None:
    """One match loop, one seeding: a demo replays match 0 of an evaluation with its seed."""
    from agents.eval.match import match_seeds, play_match

    demo = cli("demo", "--seed", "4", "--agents", "greedy", "random", "--quiet", "--save", "d.json")
    assert demo.returncode == 0, demo.stderr
    result = replay(load_record(tmp_path / "d.json"))
    first = play_match(Rules.preset("pagat", 2), ["greedy", "random"], *match_seeds(4, 0, 0))
    assert result.scores == first.scores and result.winners == first.winners


def test_a_checkpoint_plays_only_its_own_rules(cli: Any, tmp_path: Path) -> None:
    fake_checkpoint(tmp_path / "net.zip", Rules.preset("pagat", 2))
    ok = cli("eval", "net.zip", "random", "--matches", "2", "--processes", "1", "--quiet")
    assert ok.returncode == 0, ok.stderr
    for preset in ("spruce", "five_up"):
        bad = cli("eval", "net.zip", "random", "--preset", preset, "--matches", "2")
        assert_usage_error(bad, "trained for pagat 2p", "plays only those rules")


def test_image_to_a_bad_path_is_one_line(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "allfives_env.envs.image", str(tmp_path / "no" / "such.png")],
        capture_output=True, text=True, timeout=TIMEOUT,
    )  # fmt: skip
    assert_usage_error(proc, "cannot write")


# ============================================================================ files the user named


def test_demo_never_replaces_a_file_without_force(cli_both: Any, tmp_path: Path) -> None:
    """A checkpoint was lost to ``demo --save``: an existing file is refused before the match,
    and replaced only with ``--force``."""
    kept = tmp_path / "best.zip"
    kept.write_bytes(b"a checkpoint")
    line = assert_usage_error(cli_both("demo", "--save", "best.zip"), "--save best.zip")
    assert "already exists" in line and "--force" in line
    assert kept.read_bytes() == b"a checkpoint"
    forced = cli_both("demo", "--save", "best.zip", "--force", "--quiet")
    assert forced.returncode == 0, forced.stderr
    assert json.loads(kept.read_text(encoding="utf-8"))["format"] == FORMAT


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_failed_save_is_one_error_line_and_no_success_line(cli: Any) -> None:
    for args in (
        ["demo", "--save", "/dev/full", "--quiet"],
        ["play", "--save", "/dev/full", "--hands", "1", "--seed", "1"],
        ["eval", "greedy", "random", "--matches", "2", "--processes", "1", "--quiet",
         "--json", "/dev/full"],
    ):  # fmt: skip
        proc = cli(*args, stdin="quit\n")
        assert proc.returncode == 2, (args, proc.stderr)
        assert "Traceback" not in proc.stderr
        lines = proc.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("allfives: error: "), proc.stderr
        assert "/dev/full: cannot write: No space left on device" in lines[0]
        assert "saved" not in proc.stdout and "wrote" not in proc.stdout


def test_devices_are_written_as_they_are(cli: Any) -> None:
    proc = cli("demo", "--save", "/dev/null", "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert "record saved to /dev/null" in proc.stdout


# ============================================================================ agent specs


@pytest.mark.parametrize(
    ("option", "typed", "new_form"),
    [
        ("--agents", "greedy,random", "--agents greedy random"),
        ("--agents", "search:sims=50;random", "--agents search:sims=50 random"),
        ("--opponents", "heuristic,greedy", "--opponents heuristic greedy"),
        ("--opponents", "search:sims=5,time=1;greedy", "--opponents search:sims=5,time=1 greedy"),
    ],
)
def test_an_old_comma_list_shows_the_new_form(
    cli: Any, option: str, typed: str, new_form: str
) -> None:
    args = ["demo", option, typed] if option == "--agents" else ["play", option, typed, "--no-save"]
    line = assert_usage_error(cli(*args), repr(typed), "one spec per argument")
    assert line.endswith(new_form), line


def test_a_spec_with_parameters_is_one_agent_everywhere(cli: Any) -> None:
    """``name:key=value,key=value`` is one spec in demo and play, as in eval and the web page."""
    spec = "batchsearch:worlds=4,infer=1"
    demo = cli("demo", "--agents", spec, "random", "--quiet", "--players", "2")
    assert demo.returncode == 0, demo.stderr
    play = cli("play", "--opponents", spec, "--no-save", "--seed", "1", stdin="quit\n")
    assert play.returncode == 0, play.stderr
    assert f"seat 1 ({spec})" in play.stdout
    again = cli("demo", "--agents", "greedy", "--agents", "heuristic", "--players", "3")
    assert again.returncode == 0, again.stderr
    assert "seat 0: greedy, seat 1: heuristic, seat 2: greedy" in again.stdout


@pytest.mark.parametrize(
    ("typed", "needle"),
    [
        ("search:sims=2,sims=3", "sims is given twice"),
        ("search:sims", "parameters are key=value"),
        ("search:", "no parameter after the ':'"),
        ("greedy:depth=3", "takes no arguments"),
        ("nobody:x=1", "unknown agent 'nobody'"),
    ],
)
def test_a_spec_error_quotes_what_was_typed(cli: Any, typed: str, needle: str) -> None:
    for args in (["demo", "--agents", typed], ["play", "--opponents", typed, "--no-save"],
                 ["eval", typed, "random", "--matches", "2"]):  # fmt: skip
        line = assert_usage_error(cli(*args), needle)
        assert repr(typed) in line, line


# ============================================================================ rules before output


def test_every_command_checks_the_agents_rules_before_any_output(cli: Any, tmp_path: Path) -> None:
    fake_checkpoint(tmp_path / "X.zip", Rules.preset("pagat", 2))
    for args in (
        ["play", "--opponents", "X.zip", "--players", "3", "--no-save"],
        ["demo", "--agents", "X.zip", "--players", "3"],
        ["eval", "X.zip", "random", "random", "--players", "3", "--matches", "3"],
    ):
        assert_usage_error(cli(*args, stdin="quit\n"), "trained for pagat 2p", "pagat 3p")


# ============================================================================ Ctrl-C


def _workers_started(pid: int) -> bool:
    """Whether process ``pid`` has started its two spawned pool workers (Linux's /proc)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        lines = [Path(f"/proc/{c}/cmdline").read_bytes() for c in children]
    except OSError:
        return False
    return sum(b"spawn_main" in x and b"resource_tracker" not in x for x in lines) >= 2


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux's /proc")
@pytest.mark.parametrize("moment", ["as-the-workers-start", "while-they-play"])
def test_ctrl_c_stops_a_pooled_evaluation_quietly(tmp_path: Path, moment: str) -> None:
    """SIGINT to the whole process group (what Ctrl-C at a terminal sends) while the spawned
    workers are still starting (importing), or once the bar moves: exit status 130, no
    worker's traceback."""
    import signal
    import time

    # Ctrl-C at a terminal reaches a command whose SIGINT is not ignored; a harness that runs the
    # tests in the background (a shell's `&` ignores SIGINT in what it starts) would pass its
    # ignoring on to the command, so the command starts with the terminal's disposition
    proc = subprocess.Popen(
        [sys.executable, "-m", "allfives_env", "eval", "greedy", "random", "--matches", "200000",
         "--processes", "2"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    assert proc.stderr is not None
    seen = b""
    deadline = time.monotonic() + TIMEOUT
    try:
        if moment == "as-the-workers-start":
            while not _workers_started(proc.pid):
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.005)
            time.sleep(0.1)  # the pool is made; its workers still import (a second or so)
        else:
            while not re.search(rb"\| *[1-9][0-9]*/200000", seen):
                chunk = os.read(proc.stderr.fileno(), 4096)
                assert chunk, seen[-2000:]  # the command ended first
                seen += chunk
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    text = (seen + err).decode(errors="replace")
    assert proc.returncode == 130, text[-2000:]
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text[-3000:]
    assert out == b""


@pytest.mark.parametrize("command", ["demo", "eval greedy random", "play", "speed engine"])
@pytest.mark.parametrize("seed", ["-1", "18446744073709551616", "1.5", "0x10"])
def test_every_seed_option_takes_the_seeds_the_envs_take(cli: Any, command: str, seed: str) -> None:
    """``--seed`` follows the one seed rule (0 to 2**64 - 1) in every command, before any
    output (a negative seed was taken as another seed)."""
    line = assert_usage_error(cli(*command.split(), "--seed", seed), "--seed", repr(seed))
    assert "0 to 2**64 - 1" in line or "invalid" in line
