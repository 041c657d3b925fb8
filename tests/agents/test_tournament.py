"""Agent evaluation: statistics on fixed inputs, duplicate deals, parallel play, files, the CLI."""

from __future__ import annotations

import argparse
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

from agents.errors import AgentError
from agents.eval import tournament
from agents.eval.match import EvalError, MatchResult, play_match, seating
from agents.eval.report import table, write_json, write_png
from agents.eval.results import lineup_scores
from agents.eval.stats import (
    ELO_SCALE,
    PairResult,
    elo_ratings,
    mean_ci,
    wilson_interval,
    win_credit,
    win_rate,
)
from agents.eval.tournament import evaluate, league
from agents.registry import UnknownAgentError
from allfives_cli.evaluate import add_eval_parser, run_eval
from allfives_env import Rules

PAGAT2 = Rules.preset("pagat", 2)

# ================================================================ statistics


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [
        (75, 100, 0.656955, 0.824548),
        (0, 10, 0.0, 0.277533),  # z² / (n + z²)
        (10, 10, 0.722467, 1.0),
        (5, 10, 0.236593, 0.763407),
        (0.5, 1, 0.054621, 0.945379),  # a shared win: half a success
    ],
)
def test_wilson_interval(successes: float, n: int, low: float, high: float) -> None:
    lo, hi = wilson_interval(successes, n)
    assert lo == pytest.approx(low, abs=1e-6)
    assert hi == pytest.approx(high, abs=1e-6)


@pytest.mark.parametrize(("successes", "n"), [(1, 0), (-1, 10), (11, 10)])
def test_wilson_interval_refuses_impossible_counts(successes: float, n: int) -> None:
    with pytest.raises(ValueError):
        wilson_interval(successes, n)


def test_win_credit_shares_a_win() -> None:
    assert [win_credit((0,), s) for s in (0, 1)] == [1.0, 0.0]
    assert [win_credit((0, 1), s) for s in (0, 1)] == [0.5, 0.5]
    assert [win_credit((0, 2), s) for s in (0, 1, 2)] == [0.5, 0.0, 0.5]
    assert win_rate(2.5, 5).value == 0.5


def test_mean_ci() -> None:
    e = mean_ci([1.0, 2.0, 3.0, 4.0])
    half = 1.959963984540054 * math.sqrt(5 / 3) / 2
    assert e.value == 2.5
    assert (e.low, e.high) == pytest.approx((2.5 - half, 2.5 + half))
    one = mean_ci([7.0])
    assert one.value == 7.0 and math.isnan(one.low) and math.isnan(one.high)
    with pytest.raises(ValueError):
        mean_ci([])


def test_elo_two_agents_matches_the_formula() -> None:
    r = elo_ratings([PairResult("a", "b", 75, 100)], anchor="b", anchor_rating=1500)
    assert r["b"] == (1500, 1500, 1500)
    assert r["a"].value == pytest.approx(1500 + 400 * math.log10(3))
    # standard error of the log-odds: 1 / sqrt(n p (1 - p))
    half = 1.959963984540054 * ELO_SCALE / math.sqrt(100 * 0.75 * 0.25)
    assert r["a"].high - r["a"].value == pytest.approx(half)
    assert r["a"].value - r["a"].low == pytest.approx(half)


def test_elo_recovers_consistent_ratings() -> None:
    true = {"a": 1000.0, "b": 1200.0, "c": 1450.0, "d": 900.0}
    names = list(true)
    results = []
    for i, x in enumerate(names):
        for y in names[i + 1 :]:
            p = 1 / (1 + 10 ** ((true[y] - true[x]) / 400))
            results.append(PairResult(x, y, 400 * p, 400))  # exactly the expected score
    fitted = elo_ratings(results, anchor="a")
    assert list(fitted) == names
    for name, rating in true.items():
        assert fitted[name].value == pytest.approx(rating, abs=1e-6)
    # ties count half: 30 wins + 40 shared of 100 is a 50% score
    tied = elo_ratings([PairResult("x", "y", 30 + 40 / 2, 100)], anchor="x")
    assert tied["y"].value == pytest.approx(1000)


def test_elo_needs_a_finite_fit() -> None:
    with pytest.raises(ValueError, match="diverge"):
        elo_ratings([PairResult("a", "b", 10, 10)], anchor="a")
    with pytest.raises(ValueError, match="no rating links"):
        elo_ratings([PairResult("a", "b", 5, 10), PairResult("c", "d", 5, 10)], anchor="a")
    with pytest.raises(ValueError, match="anchor"):
        elo_ratings([PairResult("a", "b", 5, 10)], anchor="z")
    # one prior draw per pair: (10 + 0.5) / (10 + 1)
    r = elo_ratings([PairResult("a", "b", 10, 10)], anchor="b", prior_draws=1)
    assert r["a"].value == pytest.approx(1000 + 400 * math.log10(10.5 / 0.5))


# ================================================================ matches and seatings


def test_seating_rotates_sides_over_seats() -> None:
    assert seating(PAGAT2, ["a", "b"], 0) == ("a", "b")
    assert seating(PAGAT2, ["a", "b"], 1) == ("b", "a")
    four = Rules.preset("pagat", 4)
    assert seating(four, ["a", "b"], 0) == ("a", "b", "a", "b")
    assert seating(four, ["a", "b"], 1) == ("b", "a", "b", "a")
    three = Rules.preset("pagat", 3)
    assert [seating(three, "abc", r) for r in range(3)] == [
        ("a", "b", "c"),
        ("c", "a", "b"),
        ("b", "c", "a"),
    ]
    solo = Rules.preset("pagat", 4, partnerships=False)
    assert seating(solo, "abcd", 1) == ("d", "a", "b", "c")


def test_duplicate_seatings_get_the_same_deals() -> None:
    one = play_match(PAGAT2, ["greedy", "random"], 7, 1, keep_deals=True)
    two = play_match(PAGAT2, ["random", "greedy"], 7, 2, keep_deals=True)
    assert one.hands == len(one.deals) and two.hands == len(two.deals)
    shared = min(one.hands, two.hands)
    assert shared >= 2  # the check below compares more than the first deal
    assert one.deals[:shared] == two.deals[:shared]
    # the choices differ, the deals do not: the matches themselves are not the same
    assert (one.scores, one.moves) != (two.scores, two.moves)
    # another deal seed deals other hands
    other = play_match(PAGAT2, ["greedy", "random"], 8, 1, keep_deals=True)
    assert other.deals[0] != one.deals[0]


def test_play_match_is_reproducible_and_consistent() -> None:
    a = play_match(PAGAT2, ["greedy", "random"], 3, 4)
    assert a == play_match(PAGAT2, ["greedy", "random"], 3, 4)
    assert len(a.hand_points) == a.hands and a.deals == ()
    totals = [sum(h[s] for h in a.hand_points) for s in range(2)]
    assert tuple(totals) == a.scores
    assert max(a.scores) >= PAGAT2.target and a.winners == (a.scores.index(max(a.scores)),)
    with pytest.raises(EvalError, match="one per seat"):
        play_match(PAGAT2, ["greedy"], 3, 4)


def test_shared_wins_count_half() -> None:
    r = MatchResult((250, 250), (0, 1), 1, ((250, 250),), 10, 0)
    wins, pph = lineup_scores([r, r], 2, 2)
    assert wins == [1.0, 1.0] and pph == [[250.0, 250.0], [250.0, 250.0]]


# ================================================================ evaluations


def test_evaluate_is_reproducible_and_independent_of_processes() -> None:
    serial = evaluate(PAGAT2, ["random", "greedy"], matches=6, seed=11, processes=1)
    parallel = evaluate(PAGAT2, ["random", "greedy"], matches=6, seed=11, processes=2)
    assert serial.results == parallel.results
    assert serial.to_json() == parallel.to_json()
    again = evaluate(PAGAT2, ["random", "greedy"], matches=6, seed=11)
    assert json.dumps(again.to_json()) == json.dumps(serial.to_json())
    other = evaluate(PAGAT2, ["random", "greedy"], matches=6, seed=12)
    assert other.results != serial.results


def test_evaluate_reports_agents_and_seats() -> None:
    ev = evaluate(PAGAT2, ["random", "greedy"], matches=5, seed=0)  # rounded up to 3 deals
    j = ev.to_json()
    assert (j["format"], j["kind"], j["matches"], j["deals"], j["rotations"]) == (
        "allfives-eval/1",
        "duplicate",
        6,
        3,
        2,
    )
    assert j["rules"] == {"preset": "pagat", "num_players": 2}
    assert [a["label"] for a in j["agents"]] == ["random", "greedy"]
    assert sum(a["wins"] for a in j["agents"]) == 6
    assert sum(s["wins"] for s in j["seats"]) == 6
    assert [s["seats"] for s in j["seats"]] == [[0], [1]]
    for a in j["agents"]:
        lo, hi = a["win_rate_ci"]
        assert lo <= a["win_rate"] <= hi
        assert a["points_per_hand_ci"][0] <= a["points_per_hand"] <= a["points_per_hand_ci"][1]
    # match m = 2d + r: in rotation 1 the lineup's first agent plays seat 1
    agent0_wins = sum(win_credit(r.winners, m % 2) for m, r in enumerate(ev.results))
    assert agent0_wins == j["agents"][0]["wins"]
    assert "random" in table(ev) and "seat effects" in table(ev)


@pytest.mark.parametrize(
    ("players", "partnerships", "seats"),
    [(3, True, [[0], [1], [2]]), (4, True, [[0, 2], [1, 3]]), (4, False, [[0], [1], [2], [3]])],
)
def test_evaluate_more_players(players: int, partnerships: bool, seats: list[list[int]]) -> None:
    rules = Rules.preset("pagat", players, partnerships=partnerships)
    k = rules.num_sides
    ev = evaluate(rules, ["greedy", "random", "greedy", "random"][:k], matches=k, seed=1)
    j = ev.to_json()
    assert j["matches"] == k and j["rotations"] == k
    assert [s["seats"] for s in j["seats"]] == seats
    assert sum(a["wins"] for a in j["agents"]) == pytest.approx(k)
    assert [a["label"] for a in j["agents"]] == ["greedy", "random", "greedy#2", "random#2"][:k]


def test_evaluate_refuses_bad_requests() -> None:
    with pytest.raises(EvalError, match="2 sides"):
        evaluate(PAGAT2, ["greedy"], matches=2)
    with pytest.raises(EvalError, match="matches"):
        evaluate(PAGAT2, ["greedy", "random"], matches=0)
    with pytest.raises(EvalError, match="processes"):
        evaluate(PAGAT2, ["greedy", "random"], matches=2, processes=0)
    with pytest.raises(UnknownAgentError):
        evaluate(PAGAT2, ["greedy", "nobody"], matches=2)
    with pytest.raises(EvalError, match="two sides"):
        league(Rules.preset("pagat", 3), ["greedy", "random"], 2)


def test_league_matrix_and_ratings() -> None:
    lg = league(PAGAT2, ["greedy", "random", "random"], matches_per_pair=4, seed=3)
    j = lg.to_json()
    assert j["kind"] == "league" and j["matches_per_pair"] == 4 and j["anchor"] == "random"
    labels = [a["label"] for a in j["agents"]]
    assert labels == ["greedy", "random", "random#2"]
    m = j["matrix"]
    assert [m[i][i] for i in range(3)] == [None, None, None]
    for i in range(3):
        for k in range(3):
            if i != k:
                assert m[i][k]["wins"] + m[k][i]["wins"] == 4
    assert j["agents"][1]["rating"] == 1000.0
    assert sum(a["matches"] for a in j["agents"]) == 3 * 2 * 4
    assert lg.agents[0].rating.value > 1000  # greedy beats random
    assert "win rate of row v column" in table(lg)


def test_progress_bar_goes_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    evaluate(PAGAT2, ["greedy", "random"], matches=2, progress=True)
    out, err = capsys.readouterr()
    assert out == "" and "2/2" in err


def test_json_and_png_are_written(tmp_path: Path) -> None:
    ev = evaluate(PAGAT2, ["greedy", "random"], matches=2)
    lg = league(PAGAT2, ["greedy", "random", "random"], 2)
    for name, result in (("ev", ev), ("lg", lg)):
        write_json(result, tmp_path / f"{name}.json")
        write_png(result, tmp_path / f"{name}.png")
        assert json.loads((tmp_path / f"{name}.json").read_text()) == json.loads(
            json.dumps(result.to_json())
        )
        assert (tmp_path / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ================================================================ command line


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="allfives")
    add_eval_parser(parser.add_subparsers(dest="command", required=True))
    return parser.parse_args(["eval", *argv])


def _run(*argv: str) -> tuple[int, str]:
    lines: list[str] = []
    status = run_eval(_parse(*argv), lines.append)
    return status, "\n".join(lines)


def test_cli_head_to_head(tmp_path: Path) -> None:
    js, png = tmp_path / "out.json", tmp_path / "out.png"
    status, text = _run(
        "greedy", "random", "--matches", "4", "--seed", "5", "--processes", "1",
        "--json", str(js), "--png", str(png), "--quiet",
    )  # fmt: skip
    assert status == 0
    assert "greedy v random" in text and "4 matches (2 deals × 2 seatings)" in text
    data = json.loads(js.read_text())
    expected = evaluate(PAGAT2, ["greedy", "random"], 4, 5).to_json()
    assert data == json.loads(json.dumps(expected))
    assert png.stat().st_size > 0


def test_cli_league_and_players(tmp_path: Path) -> None:
    status, text = _run("greedy", "random", "random", "--matches", "2", "--quiet")
    assert status == 0 and "league" in text and "(anchor)" in text
    js = tmp_path / "four.json"
    status, text = _run(
        "greedy", "random", "--players", "4", "--matches", "2", "--quiet", "--json", str(js)
    )
    assert status == 0 and "seats 0+2" in text
    assert json.loads(js.read_text())["rules"] == {"preset": "pagat", "num_players": 4}
    status, text = _run(
        "greedy", "random", "greedy", "random", "--players", "4", "--no-partnerships",
        "--preset", "five_up", "--matches", "4", "--quiet",
    )  # fmt: skip
    assert status == 0 and "five_up 4p" in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["greedy"], "at least two agents"),
        (["greedy", "random", "--players", "3"], "3 sides"),
        (["greedy", "random", "--players", "3", "--league"], "two sides"),
        (["greedy", "random", "--json", "/nonexistent-dir/x.json"], "no folder"),
        (["greedy", "random", "--png", "."], "--png .: the file name must end in .png"),
        (["greedy", "random", "--png", "out.txt"], "--png out.txt: the file name must end in"),
        (["greedy", "random", "--png", "sub.png"], "--png sub.png: is a folder"),
        (["greedy", "random", "--json", "a.png", "--png", "a.png"], "same file"),
        (["greedy", "random", "--json", "kept.json"], "--json kept.json already exists"),
        (["greedy", "random", "--png", "kept.png"], "--png kept.png already exists"),
        (["greedy", "random", "--league", "--players", "3"], "two sides"),
        (["greedy", "missing.zip"], "missing.zip"),
    ],
)
def test_cli_errors_before_playing(
    argv: list[str], message: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub.png").mkdir()
    for name in ("kept.json", "kept.png"):
        (tmp_path / name).write_text("mine")

    def no_play(*args: Any) -> None:
        raise AssertionError("a match was played")

    monkeypatch.setattr(tournament, "run_matches", no_play)
    with pytest.raises(AgentError, match=re.escape(message)) as info:
        run_eval(_parse(*argv), lambda line: None)
    assert "\n" not in str(info.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.json", "kept.png", "sub.png"]
    assert (tmp_path / "kept.json").read_text() == (tmp_path / "kept.png").read_text() == "mine"


def test_cli_replaces_outputs_with_force_only(tmp_path: Path) -> None:
    js, png = tmp_path / "out.json", tmp_path / "out.png"
    js.write_text("mine")
    png.write_text("mine")
    status, _ = _run("greedy", "random", "--matches", "2", "--processes", "1", "--quiet",
                     "--json", str(js), "--png", str(png), "--force")  # fmt: skip
    assert status == 0
    assert json.loads(js.read_text())["agents"][0]["spec"] == "greedy"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_unknown_agent() -> None:
    with pytest.raises(UnknownAgentError, match="nobody"):
        run_eval(_parse("greedy", "nobody", "--matches", "2"), lambda line: None)


@pytest.mark.parametrize(
    "argv",
    [
        ["--matches", "0"],
        ["--processes", "0"],
        ["--processes", "-3"],
        ["--processes", "two"],
    ],
)
def test_cli_refuses_counts_below_one(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from allfives_cli import main

    with pytest.raises(SystemExit) as info:
        main(["eval", "greedy", "random", *argv])
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.count("\n") == 1 and argv[0] in err
