"""``allfives play``: a human at the terminal against agents (``agents/play``).

Whole games are driven through a scripted input stream, in process and as a real process: bad
input gets one line and a new prompt, other hands are never listed, the saved record replays to
the scores shown, and quitting (or running out of input) still saves the record.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import fake_checkpoint, scripted_game

from agents.errors import AgentError
from agents.files import OutputFileError
from agents.play.human import BadMove, HumanAgent, QuitMatch, parse_move
from agents.play.terminal import PlayArgumentError, play_match
from allfives_cli.play import add_play_parser, run_play
from allfives_env import DRAW, PASS, Game, Rules, Tile, load_record, replay

TIMEOUT = 60
MAIN = "import sys; from allfives_cli import main; sys.exit(main(['play', *sys.argv[1:]]))"
PROMPT = "your move ["

# Seed 11 (pagat, 2 players, human at seat 0): seat 1 leads and the human's first turn offers
# four placements, so Enter alone there is bad input.
SEED = 11


def ones(k: int = 2000) -> str:
    return "1\n" * k


def final_scores(out: str) -> list[float]:
    """The scores on the ``final scores:`` line (``you 25 | seat 1 (greedy) 15``)."""
    line = next(x for x in out.splitlines() if x.startswith("final scores: "))
    parts = line.removeprefix("final scores: ").split(" | ")
    return [float(p.rsplit(" ", 1)[1]) for p in parts]


def saved_path(out: str) -> Path:
    m = re.search(r"^record saved to (\S+) ", out, re.M)
    assert m, out[-500:]
    return Path(m.group(1))


def assert_hidden_hands_never_listed(out: str, record: dict[str, object], seat: int) -> None:
    """No hand listing in ``out`` shows a tile dealt to another seat in the same hand.

    Hand listings are the table's seat lines (``> seat 0: 0-1 ...`` / ``seat 1: 7 tiles``) and
    the prompt's ``your hand:`` line; tiles named in announcements of plays are public.
    """
    hands = record["hands"]
    assert isinstance(hands, list)
    segments = re.split(r"^=== hand (\d+): .*$", out, flags=re.M)
    assert len(segments) == 2 * len(hands) + 1, "one '=== hand k:' header per dealt hand"
    listed = 0
    for k in range(len(hands)):
        number, text = int(segments[1 + 2 * k]), segments[2 + 2 * k]
        assert number == k + 1
        deal = hands[k]["hands"]
        hidden = {Tile.parse(t) for s, h in enumerate(deal) if s != seat for t in h}
        for line in text.splitlines():
            m = re.match(r"^\s*>?\s*seat (\d+): (.*)$", line)
            mine = re.match(r"^your hand: (.*)$", line)
            if m is None and mine is None:
                continue
            listed += 1
            if m is not None and int(m.group(1)) != seat:
                assert re.fullmatch(r"\d+ tiles(\s+void: [\d,]+)?", m.group(2)), line
            tiles = {Tile.parse(t) for t in re.findall(r"\b[0-6]-[0-6]\b", line)}
            assert not tiles & hidden, f"hand {k + 1} shows hidden tiles: {line!r}"
    assert listed > 10


def prompts_then_messages(out: str) -> list[tuple[str, str]]:
    """Each answer (echoed after its prompt) and the first line printed after it."""
    lines = out.splitlines()
    pairs = []
    for i, line in enumerate(lines):
        if line.startswith(PROMPT):
            answer = line.split("]: ", 1)[1]
            pairs.append((answer, lines[i + 1] if i + 1 < len(lines) else ""))
    return pairs


# ---------------------------------------------------------------------- parse_move


@pytest.fixture
def example() -> Game:
    """RULES.md §3 example 1's deal: seat 0 leads."""
    return scripted_game(
        "pagat",
        [
            ["6-4", "6-3", "1-5", "1-0", "2-6", "0-0", "3-3", "4-4", "5-5"],
            ["4-1", "1-1", "1-2", "2-2", "0-2", "2-3", "2-4", "2-5", "0-6"],
        ],
    )


def test_a_bare_tile_leads_with_its_first_half_facing_w(example: Game) -> None:
    lead = parse_move("6-4", example.view(0))
    assert example.apply(lead).points == 10
    assert str(example.layout.line()[0][1]) == "6"  # 6 faces W: the mirrored lead
    assert parse_move("4-1 E", example.view(1)) == parse_move("1-4 e", example.view(1))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("4-1 E", "1-4 E"),
        ("  1-4   e ", "1-4 E"),
        ("4-1", "1-4 E"),  # fits one place only
        ("0-6", "0-6 W"),
        ("1", None),  # the first legal move
    ],
)
def test_moves_in_notation_or_by_number(example: Game, text: str, expected: str | None) -> None:
    example.apply("6-4")
    view = example.view(1)
    action = parse_move(text, view)
    assert action in view.legal_actions
    assert str(action) == (expected or str(view.legal_actions[0]))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "Enter alone only confirms a forced draw or pass"),
        ("0", "there is no move 0"),
        ("99", "there is no move 99"),
        ("x-y", "not a move: 'x-y'"),
        ("3-3 E", "you do not hold 3-3"),
        ("4-1 W", "4-1 does not match W, which shows 6"),
        ("4-1 N", "slot N is not open"),
        ("4-1 Q", "not a slot: 'Q'"),
        ("1-1", "1-1 fits no open end"),
        ("draw", "you cannot draw while a tile fits"),
        ("pass", "you cannot pass while"),
    ],
)
def test_bad_input_names_no_move(example: Game, text: str, message: str) -> None:
    example.apply("6-4")
    with pytest.raises(BadMove, match=re.escape(message)) as err:
        parse_move(text, example.view(1))
    assert "\n" not in str(err.value)
    assert isinstance(err.value, ValueError)


def test_a_tile_that_fits_two_ends_needs_its_slot(example: Game) -> None:
    example.apply("4-4")  # a led spinner: W and E both show 4
    with pytest.raises(BadMove, match=r"4-1 fits W or E: say where"):
        parse_move("4-1", example.view(1))
    assert str(parse_move("4-1 W", example.view(1))) == "1-4 W"


def test_enter_confirms_a_forced_draw_and_a_forced_pass() -> None:
    # seat 1 holds no 6 and neither does the boneyard: it draws it dry, then passes
    g = scripted_game(
        "pagat",
        [
            ["6-6", "5-6", "4-6", "3-6", "2-6", "1-6", "0-6", "5-5", "4-4"],
            ["0-0", "0-1", "0-2", "0-3", "0-4", "0-5", "1-1", "1-2", "1-3"],
        ],
    )
    g.apply("6-6")
    assert HumanAgent.prompt(g.view(1)) == "your move [Enter to draw; help]: "
    with pytest.raises(BadMove, match="you cannot pass while the boneyard has tiles"):
        parse_move("pass", g.view(1))
    for _ in range(10):
        assert parse_move("", g.view(1)) == DRAW
        g.apply(DRAW)
    assert parse_move("", g.view(1)) == PASS
    with pytest.raises(BadMove, match="the boneyard is empty and nothing fits"):
        parse_move("draw", g.view(1))


# ---------------------------------------------------------------------- HumanAgent


def test_the_agent_asks_again_until_a_move_is_named(example: Game) -> None:
    example.apply("6-4")
    out = io.StringIO()
    human = HumanAgent(io.StringIO("bogus\nhelp\nshow\n99\n2\n"), out)
    action = human.act(example.view(1), random.Random(0))
    assert action == example.view(1).legal_actions[1]
    text = out.getvalue()
    assert text.count(PROMPT) == 5
    assert "not a move: 'bogus'" in text and "commands:" in text and "there is no move 99" in text
    assert "open: W=6 E=4 count=10" in text  # show
    assert "your hand: 0-2 0-6 1-1 1-2 1-4 2-2 2-3 2-4 2-5" in text


@pytest.mark.parametrize("answers", ["quit\n", "", "x\nQ\n"])
def test_quit_and_end_of_input_stop_the_agent(example: Game, answers: str) -> None:
    human = HumanAgent(io.StringIO(answers), io.StringIO())
    with pytest.raises(QuitMatch):
        human.act(example.view(0), random.Random(0))


# ---------------------------------------------------------------------- whole matches


def test_a_scripted_hand_through_stdin(tmp_path: Path) -> None:
    save = tmp_path / "hand.json"
    out = io.StringIO()
    script = "help\n99\nx-y\n\n" + ones()
    outcome = play_match(
        Rules.preset("pagat", 2), ["greedy"], seed=SEED, max_hands=1, save=save,
        inp=io.StringIO(script), out=out,
    )  # fmt: skip
    text = out.getvalue()
    assert outcome.stopped == "hands" and outcome.game.is_hand_over
    assert "=== hand 1 ends: " in text and "=== match stopped after 1 hand (--hands) ===" in text

    pairs = prompts_then_messages(text)
    assert pairs[0] == ("help", "commands:")
    assert pairs[1] == ("99", "there is no move 99: choose 1 to 4")
    assert pairs[2][0] == "x-y" and pairs[2][1].startswith("not a move: 'x-y'")
    assert pairs[3][0] == "" and pairs[3][1].startswith("Enter alone only confirms")
    assert pairs[4][0] == "1" and pairs[4][1].startswith("seat 0 (you) plays ")
    # every bad answer got exactly one line, then a new prompt
    lines = text.splitlines()
    for answer in ("99", "x-y", ""):
        i = next(
            k for k, x in enumerate(lines) if x.startswith(PROMPT) and x.endswith(f": {answer}")
        )
        assert lines[i + 2].startswith(PROMPT)

    # every move is announced, each placement followed by the table with the count
    assert re.search(r"^seat 1 \(greedy\) leads \d-\d( \+\d+)?\n  scores: ", text, re.M)
    assert re.search(r"^seat 1 \(greedy\) plays \d-\d [WENS]( \+\d+)?$", text, re.M)
    assert text.count("count=") > 10

    record = json.loads(save.read_text())
    assert record["seed"] == SEED and record["players"] == ["human", "greedy"]
    assert_hidden_hands_never_listed(text, record, seat=0)
    result = replay(load_record(save))
    assert list(result.scores) == final_scores(text) == list(outcome.game.scores)
    assert result.winners is None and len(result.hands) == 1


@pytest.mark.alone  # it holds the match to a time budget
def test_a_whole_match_to_the_target(tmp_path: Path) -> None:
    save = tmp_path / "match.json"
    out = io.StringIO()
    start = time.perf_counter()
    outcome = play_match(
        Rules.preset("pagat", 2), ["greedy"], seed=SEED, save=save,
        inp=io.StringIO(ones(5000)), out=out,
    )  # fmt: skip
    assert time.perf_counter() - start < 10
    text = out.getvalue()
    game = outcome.game
    assert outcome.stopped is None and game.is_match_over and game.hand_number > 1
    assert re.search(
        r"^=== match over after \d+ hands: (you win|seat 1 \(greedy\) wins) ===$", text, re.M
    )
    assert max(final_scores(text)) >= 250
    assert_hidden_hands_never_listed(text, json.loads(save.read_text()), seat=0)
    result = replay(load_record(save))
    assert list(result.scores) == final_scores(text)
    assert result.winners == game.winners


@pytest.mark.parametrize(
    ("preset", "players", "partnerships", "opponents"),
    [
        ("pagat", 4, True, ["greedy", "random", "greedy"]),
        ("pagat", 4, False, ["random"]),
        ("five_up", 3, True, ["greedy", "random"]),
        ("pyatyorka", 2, True, ["random"]),
    ],
)
def test_other_tables_keep_every_other_hand_hidden(
    tmp_path: Path, preset: str, players: int, partnerships: bool, opponents: list[str]
) -> None:
    save = tmp_path / "r.json"
    out = io.StringIO()
    rules = Rules.preset(preset, players, partnerships=partnerships)
    outcome = play_match(
        rules, opponents, seat=1, seed=11, max_hands=2, save=save,
        inp=io.StringIO(ones()), out=out,
    )  # fmt: skip
    text = out.getvalue()
    record = json.loads(save.read_text())
    assert record["players"][1] == "human"
    if players == 4 and partnerships:  # clockwise from the human's left: 2, then partner 3
        assert record["players"] == ["greedy", "human", "greedy", "random"]
        assert "seat 3 (random, your partner)" in text
    assert_hidden_hands_never_listed(text, record, seat=1)
    assert list(replay(load_record(save)).scores) == final_scores(text)
    assert list(outcome.game.scores) == final_scores(text)


def test_the_same_seed_and_answers_play_the_same_match(tmp_path: Path) -> None:
    def run(path: Path) -> tuple[str, dict[str, object]]:
        out = io.StringIO()
        play_match(
            Rules.preset("pagat", 3), ["random"], seed=5, max_hands=2, save=path,
            inp=io.StringIO(ones()), out=out,
        )  # fmt: skip
        record = json.loads(path.read_text())
        del record["date"]
        return out.getvalue().replace(str(path), "PATH"), record

    assert run(tmp_path / "a.json") == run(tmp_path / "b.json")


def test_quitting_mid_hand_saves_the_record(tmp_path: Path) -> None:
    save = tmp_path / "quit.json"
    out = io.StringIO()
    outcome = play_match(
        Rules.preset("pagat", 2), ["greedy"], seed=SEED, save=save,
        inp=io.StringIO("1\n1\nquit\n1\n"), out=out,
    )  # fmt: skip
    text = out.getvalue()
    assert outcome.stopped == "quit" and not outcome.game.is_hand_over
    assert "=== match stopped in hand 1 ===" in text
    result = replay(load_record(save))
    assert result.winners is None and not result.hands
    assert list(result.scores) == final_scores(text)
    assert len(result.points) == len(outcome.game.events) == 5  # lead, 1, reply, 1, reply


# ---------------------------------------------------------------------- command line


def play_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="allfives")
    add_play_parser(parser.add_subparsers(dest="command", required=True))
    return parser.parse_args(["play", *argv])


def test_run_play_from_a_parser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    save = tmp_path / "cli.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO(ones()))
    args = play_args("--seed", str(SEED), "--hands", "1", "--save", str(save))
    assert (args.preset, args.players, args.seat, args.opponents) == ("pagat", 2, "0", None)
    assert run_play(args) == 0
    out = capsys.readouterr().out
    assert saved_path(out) == save
    assert list(replay(load_record(save)).scores) == final_scores(out)


def test_random_seat_comes_from_the_seed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seats = set()
    for seed in range(8):
        monkeypatch.setattr(sys, "stdin", io.StringIO(ones()))
        args = play_args("--players", "3", "--seat", "random", "--seed", str(seed),
                         "--hands", "1", "--no-save")  # fmt: skip
        assert run_play(args) == 0
        out = capsys.readouterr().out
        seats.add(int(re.search(r"you are seat (\d)", out).group(1)))  # type: ignore[union-attr]
        assert "record saved" not in out
    assert len(seats) > 1
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seat", "2"], "bad --seat '2': choose 0-1 or 'random'"),
        (["--seat", "me"], "bad --seat 'me'"),
        (["--players", "3", "--opponents", "greedy", "nobody"], "unknown agent 'nobody'"),
        (["--opponents", "greedy", "random"], "--opponents names 2 agents for 1 other seat"),
        (["--opponents", "greedy:depth=3"], "--opponents: bad agent spec 'greedy:depth=3'"),
        (["--opponents", " "], "--opponents: an empty agent spec"),
        (["--opponents", "greedy,random"], "one spec per argument: --opponents greedy random"),
        (["--save", "no/such/dir/x.json"], "--save no/such/dir/x.json: no folder 'no/such/dir'"),
        (["--save", "."], "--save .: is a folder"),
        (["--opponents", "X.zip", "--players", "3"], "--opponents: X was trained for pagat 2p"),
        (["--save", "kept.json"], "--save kept.json already exists"),
    ],
)
def test_bad_arguments_fail_before_the_game(
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    fake_checkpoint(tmp_path / "X.zip", Rules.preset("pagat", 2))
    (tmp_path / "kept.json").write_text("mine")
    with pytest.raises(AgentError, match=re.escape(message)) as err:
        run_play(play_args(*argv))
    assert isinstance(err.value, ValueError) and "\n" not in str(err.value)
    assert capsys.readouterr().out == ""
    assert (tmp_path / "kept.json").read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["X.zip", "kept.json"]


def test_a_save_file_is_replaced_with_force_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    save = tmp_path / "mine.json"
    save.write_text("a record of mine")
    monkeypatch.setattr(sys, "stdin", io.StringIO(ones()))
    args = play_args("--seed", str(SEED), "--hands", "1", "--save", str(save), "--force")
    assert run_play(args) == 0
    assert saved_path(capsys.readouterr().out) == save
    assert replay(load_record(save)).hands


def test_a_failed_save_is_an_error_line_and_status_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import agents.play.terminal as terminal

    def full(path: object, data: bytes, option: str) -> None:
        raise OutputFileError(f"{option} {path}: cannot write: No space left on device")

    monkeypatch.setattr(terminal, "write_output", full)
    monkeypatch.setattr(sys, "stdin", io.StringIO(ones()))
    args = play_args("--seed", str(SEED), "--hands", "1", "--save", str(tmp_path / "g.json"))
    assert run_play(args) == 2
    out, err = capsys.readouterr()
    assert "record saved" not in out and "cannot write" not in out
    assert (
        err
        == f"allfives: error: --save {tmp_path / 'g.json'}: cannot write: No space left on device\n"
    )
    assert not list(tmp_path.iterdir())


def run_main(tmp_path: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", MAIN, *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=TIMEOUT,
    )


def test_end_to_end_one_hand(tmp_path: Path) -> None:
    script = "help\n99\nx-y\n\n" + ones()
    p = run_main(tmp_path, "--seed", str(SEED), "--hands", "1", "--save", "g.json", stdin=script)
    assert p.returncode == 0 and p.stderr == ""
    assert "there is no move 99" in p.stdout and "Enter alone only confirms" in p.stdout
    assert saved_path(p.stdout) == Path("g.json")
    record = json.loads((tmp_path / "g.json").read_text())
    assert_hidden_hands_never_listed(p.stdout, record, seat=0)
    result = replay(load_record(tmp_path / "g.json"))
    assert list(result.scores) == final_scores(p.stdout) and len(result.hands) == 1


def test_end_of_input_mid_match_saves_the_record(tmp_path: Path) -> None:
    p = run_main(tmp_path, "--seed", str(SEED), stdin="1\n1\n1\n")
    assert p.returncode == 0 and p.stderr == ""
    assert "(end of input)" in p.stdout and "=== match stopped in hand 1 ===" in p.stdout
    path = saved_path(p.stdout)
    assert re.fullmatch(r"allfives-\d{8}-\d{6}(-\d+)?\.json", str(path))
    result = replay(load_record(tmp_path / path))
    assert result.winners is None and list(result.scores) == final_scores(p.stdout)


def test_no_save_writes_nothing(tmp_path: Path) -> None:
    p = run_main(tmp_path, "--seed", "1", "--no-save", stdin="quit\n")
    assert p.returncode == 0 and "record saved" not in p.stdout
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "argv",
    [
        ["--seat", "7"],
        ["--opponents", "nobody"],
        ["--players", "5"],
        ["--hands", "0"],
        ["--save", "x.json", "--no-save"],
    ],
)
def test_end_to_end_bad_arguments(tmp_path: Path, argv: list[str]) -> None:
    p = run_main(tmp_path, *argv, stdin=ones())
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith("allfives: error: ") and p.stderr.count("\n") == 1
    assert not list(tmp_path.iterdir())


def test_rules_off_a_preset_play_but_cannot_be_saved(tmp_path: Path) -> None:
    rules = Rules.preset("pagat", 2, target=50)
    with pytest.raises(PlayArgumentError, match="a record holds preset rules only"):
        play_match(rules, save=tmp_path / "x.json", inp=io.StringIO(ones()), out=io.StringIO())
    out = io.StringIO()
    outcome = play_match(rules, seed=1, inp=io.StringIO(ones()), out=out)
    assert outcome.game.is_match_over and outcome.record_path is None
    assert "first to 50 wins" in out.getvalue() and "record saved" not in out.getvalue()
    assert not list(tmp_path.iterdir())
