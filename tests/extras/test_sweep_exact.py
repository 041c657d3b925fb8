"""The small track through ``allfives sweep``: a run on the exact setting ``tiny-2p`` measured
by the exact solver at every curve point (against OpenSpiel's own ``nash_conv``), and how a
policy is read there (:mod:`agents.benchmark.exact_measure`)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pyspiel")

from agents.benchmark.exact_measure import exact_numbers
from agents.benchmark.protocol import TINY_2P
from agents.benchmark.sweep import read_result
from allfives_cli import main
from tests.conftest import fake_checkpoint

REDUCED = ["--protocol", "allfives-train/1-reduced", "--tiers", "smoke", "--quiet"]


def test_a_policy_is_read_as_it_plays_and_a_checkpoint_as_it_samples_too(tmp_path: Path) -> None:
    """The heuristic's exact NashConv on the tiny game is the ladder's (0.1389, of a range of
    10); a checkpoint is read both ways, and its two readings are different policies."""
    rules = TINY_2P.rules()
    fixed = exact_numbers("heuristic", rules)
    assert fixed["nash_conv"] == pytest.approx(0.138889, abs=1e-5)
    assert fixed["utility_range"] == 10.0 and "nash_conv_sampled" not in fixed
    path = tmp_path / "policy.zip"
    fake_checkpoint(path, rules)
    learned = exact_numbers(str(path), rules)
    assert learned["nash_conv_sampled"] != learned["nash_conv"]
    assert learned["nash_conv_of_range"] == learned["nash_conv"] / 10.0


def test_the_exact_setting_measures_every_point_exactly(tmp_path: Path) -> None:
    """The small track through the sweep: NFSP on the tiny game, every curve point and the
    final policy measured by the exact solver; the final NashConv is the one OpenSpiel's own
    nash_conv gives its policy, and the table and curves show it."""
    from open_spiel.python.algorithms import exploitability

    from agents.benchmark.protocol import TINY_2P
    from agents.exact.policy import measured_agent
    from agents.exact.tree import build_tree
    from allfives_openspiel.exact import game_for
    from tests.extras.test_exact_openspiel import AgentPolicy

    argv = ["sweep", *REDUCED, "--settings", "tiny-2p", "--recipes", "openspiel-nfsp",
            "--seeds", "0", "--out", str(tmp_path / "sweep")]  # fmt: skip
    assert main(argv) == 0
    results = {r["recipe"]: r for r in map(read_result, (tmp_path / "sweep").rglob("result.json"))}
    assert set(results) == {"openspiel-nfsp"}
    for r in results.values():
        assert r["setting"] == "tiny-2p" and "--max_pip" in r["command"]
        assert all(0 <= p["exact"]["nash_conv"] <= 10 for p in r["curve"])
        assert r["exact"]["nash_conv"] == r["curve"][-1]["exact"]["nash_conv"]
        assert r["exact"]["utility_range"] == 10.0
    nfsp = results["openspiel-nfsp"]
    game = game_for(build_tree(TINY_2P.rules()))
    agent = measured_agent(nfsp["agent"], TINY_2P.rules())
    theirs = exploitability.nash_conv(game, AgentPolicy(game, agent))
    assert nfsp["exact"]["nash_conv"] == pytest.approx(theirs, abs=1e-9)
    table, curves = tmp_path / "table.md", tmp_path / "curves"
    report = ["sweep-report", str(tmp_path / "sweep"), "--out", str(table), "--curves", str(curves)]
    assert main(report) == 0
    text = table.read_text(encoding="utf-8")
    assert "exact NashConv as it plays" in text and "| OpenSpiel NFSP |" in text
    assert [p.name for p in curves.iterdir()] == ["tiny-2p_smoke_tabula_rasa.png"]
