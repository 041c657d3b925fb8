"""The training protocol's sweep, without training: its plan, its checks, the aggregation over
seeds and the table drawn from result files."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from sweep_results import fake_result

from agents.benchmark.over_seeds import over_seeds
from agents.benchmark.sweep import FORMAT, SweepError, in_checkout, plan, read_result
from agents.benchmark.sweep_report import markdown, rows
from agents.benchmark.training import TRAIN_V1, TRAINING_PROTOCOLS, TrainingProtocol
from allfives_cli import main


def test_the_plan_is_every_combination_in_its_own_folder(tmp_path: Path) -> None:
    planned = plan(
        TRAIN_V1, ["trainpy-ppo", "benchmarl-mappo"], ["pagat-2p", "five_up-2p"],
        ["tabula_rasa"], ["2M"], [0, 1, 2], tmp_path,
    )  # fmt: skip
    assert len(planned) == 2 * 2 * 3
    folders = {p.run.folder for p in planned}
    assert len(folders) == len(planned)
    one = planned[0]
    assert one.run.folder == tmp_path / "pagat-2p" / "2M" / "tabula_rasa" / "trainpy-ppo" / "seed0"
    argv = one.recipe.command(one.run)
    assert "--imitation_samples" in argv and argv[argv.index("--imitation_samples") + 1] == "0"
    steps = int(argv[argv.index("--total_timesteps") + 1])
    assert steps <= 2_000_000 and steps % 16_384 == 0  # whole rollouts, never past the tier


def test_an_open_run_counts_its_imitation_in_the_tier(tmp_path: Path) -> None:
    (p,) = plan(TRAIN_V1, ["trainpy-ppo"], ["pagat-2p"], ["open"], ["2M"], [0], tmp_path)
    argv = p.recipe.command(p.run)
    warm = int(argv[argv.index("--imitation_samples") + 1])
    ppo = int(argv[argv.index("--total_timesteps") + 1])
    assert warm > 0 and warm + ppo <= 2_000_000


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"recipes": ["dqn"]}, "unknown recipe 'dqn'"),
        ({"settings": ["pagat-9p"]}, "unknown setting"),
        ({"tracks": ["closed"]}, "unknown track"),
        ({"tiers": ["1B"]}, "unknown tier"),
        ({"seeds": []}, "one or more --seeds"),
        ({"seeds": [0, 1, 1]}, "a seed twice"),
        ({"recipes": ["openspiel-nfsp"], "tiers": ["10M"]}, "2M tier at most"),
        ({"recipes": ["benchmarl-mappo"], "tracks": ["open"]}, "tabula_rasa"),
        ({"recipes": ["benchmarl-qmix"]}, "partnership"),
    ],
)
def test_a_sweep_that_cannot_run_is_refused_before_anything_runs(
    kwargs: dict[str, Any], message: str, tmp_path: Path
) -> None:
    args: dict[str, Any] = {
        "recipes": ["trainpy-ppo"], "settings": ["pagat-2p"], "tracks": ["tabula_rasa"],
        "tiers": ["2M"], "seeds": [0, 1, 2],
    } | kwargs  # fmt: skip
    with pytest.raises(SweepError, match=message):
        plan(TRAIN_V1, out=tmp_path, **args)
    assert not any(tmp_path.iterdir())


def test_the_command_line_refuses_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv in (
        ["sweep", "--recipes", "nope", "--out", str(tmp_path)],
        ["sweep", "--recipes", "trainpy-ppo", "--seeds", "0", "0", "--out", str(tmp_path)],
        ["sweep", "--out", str(tmp_path)],
        ["sweep-report", str(tmp_path / "missing")],
        ["sweep-report", str(tmp_path)],  # no result in it
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and err.startswith("allfives: error:"), err
    assert not any(tmp_path.iterdir())


def test_validation_deals_are_not_test_deals() -> None:
    s = TRAIN_V1.setting("pagat-2p")
    for o in TRAIN_V1.test_opponents:
        valid = {TRAIN_V1.validation_seed(s, o, i) for i in range(TRAIN_V1.curve_points)}
        assert TRAIN_V1.test_seed(s, o) not in valid and len(valid) == TRAIN_V1.curve_points


def test_the_interval_over_seeds_is_rlibles_bootstrap() -> None:
    s = over_seeds([0.40, 0.55, 0.50, 0.45, 0.60])
    assert s.mean == pytest.approx(0.5) and s.runs == 5
    assert s.mean_ci[0] < s.mean < s.mean_ci[1]
    assert s.mean_ci[0] >= 0.40 and s.mean_ci[1] <= 0.60
    assert s.iqm == pytest.approx(0.5)  # the middle three
    assert over_seeds([0.40, 0.55, 0.50, 0.45, 0.60]) == s  # seeded: the same interval
    assert over_seeds([0.3]).mean_ci == (0.3, 0.3)
    with pytest.raises(ValueError):
        over_seeds([])


def test_the_table_gives_each_row_its_seeds_and_their_interval() -> None:
    results = [fake_result("trainpy-ppo", s, r) for s, r in ((0, 0.4), (1, 0.5), (2, 0.6))]
    text = markdown(results)
    assert "| train.py PPO | x 1 | 3 | 1,998,848 + 0 (0) | 1.0 min, 1.5 CPU-min, 33,314/s |" in text
    assert "50.0% [" in text and "0: 40.0% [30.0%, 50.0%]" in text
    assert "--seeds 0 1 2" in text
    # a run whose attempt was killed before its CPU time was read: the row's CPU is a floor
    results[1]["cpu_seconds_complete"] = False
    assert "| 1.0 min, ≥1.5 CPU-min, 33,314/s |" in markdown(results)
    # a row whose attempts ran on two CPU models says so beside its throughput
    for r, cpus in zip(results, (["A"], ["A"], ["A", "B"]), strict=True):
        r["attempt_cpus"] = cpus
    assert "33,314/s on 2 CPU models |" in markdown(results)
    results[2]["attempt_cpus"] = []  # an earlier file's: the machine it finished on
    results[2]["machine"] = {"cpu": "A"}
    assert "33,314/s |" in markdown(results)


def test_the_exact_setting_trains_on_its_set_and_its_table_shows_the_exact_value(
    tmp_path: Path,
) -> None:
    """tiny-2p: every recipe's command carries the set, hand size and one-hand episode (and
    the hand's points as the reward where a trainer takes one); its table adds each row's exact
    NashConv over seeds."""
    planned = plan(TRAIN_V1, ["trainpy-ppo", "rllib-ppo", "benchmarl-mappo", "openspiel-nfsp"],
                   ["tiny-2p"], ["tabula_rasa"], ["300k"], [0], tmp_path)  # fmt: skip
    for p in planned:
        argv = p.recipe.command(p.run)
        assert argv[argv.index("--max_pip") + 1] == "2"
        assert argv[argv.index("--hand_size") + 1] == "2"
        assert argv[argv.index("--episode") + 1] == "hand" and argv.count("--episode") == 1
        assert ("--reward" in argv) == (p.recipe.name != "openspiel-nfsp")
    (p,) = plan(TRAIN_V1, ["trainpy-ppo"], ["pagat-2p"], ["tabula_rasa"], ["2M"], [0], tmp_path)
    assert "--max_pip" not in p.recipe.command(p.run)
    exact = [
        fake_result("trainpy-ppo", s, 0.5, setting="tiny-2p",
                    exact={"nash_conv": v, "utility_range": 10.0})
        for s, v in ((0, 0.2), (1, 0.3), (2, 0.4))
    ]  # fmt: skip
    text = markdown(exact)
    assert "exact NashConv as it plays" in text and "| 0.300 [0.2" in text and "(3.0%)" in text
    assert "exact NashConv" not in markdown([fake_result("trainpy-ppo", s, 0.5) for s in range(3)])


def test_a_row_short_of_seeds_mixing_commands_or_twice_is_refused() -> None:
    three = [fake_result("trainpy-ppo", s, 0.5) for s in range(3)]
    with pytest.raises(SweepError, match="asks for 3"):
        rows(three[:2])
    with pytest.raises(SweepError, match="twice"):
        rows([*three, copy.deepcopy(three[0])])
    odd = copy.deepcopy(three)
    odd[2]["command"][-1] = "2"
    with pytest.raises(SweepError, match="different commands"):
        rows(odd)
    # a run restarted with --fresh (after an interruption) trained the same way
    restarted = copy.deepcopy(three)
    restarted[0]["command"].append("--fresh")
    assert len(rows(restarted)) == 1
    # runs of one row trained from two checkouts of the code (their paths as written by
    # earlier sweeps, or relative to the checkout as now) are one row
    placed = copy.deepcopy(three)
    for r, root in zip(placed, ("/a/src", "/b/src2", None), strict=True):
        where = f"{root}/" if root else ""
        r["command"][:1] = ["python", f"{where}train.py", "--config", f"{where}configs/x.yaml"]
    assert len(rows(placed)) == 1
    written = in_checkout(["python", "/r/train.py", "--runs", "/out/r/x", "/r2/y"], Path("/r"))
    assert written == ["python", "train.py", "--runs", "/out/r/x", "/r2/y"]
    placed[2]["command"][3] = "configs/y.yaml"
    with pytest.raises(SweepError, match="different commands"):
        rows(placed)
    # a track or tier is never mixed into another's row
    other = [fake_result("trainpy-ppo", s, 0.5, track="open") for s in range(3)]
    assert len(rows(three + other)) == 2
    # tiers come in order of their budget, not of their names ("10M" < "2M" as text)
    bigger = [fake_result("trainpy-ppo", s, 0.5, tier="10M") for s in range(3)]
    assert [k[2] for k in rows(bigger + three)] == ["2M", "10M"]


def test_a_result_file_is_read_strictly(tmp_path: Path) -> None:
    good = tmp_path / "result.json"
    good.write_text(json.dumps(fake_result("trainpy-ppo", 0, 0.5)))
    assert read_result(good)["seed"] == 0
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "x", "format": "y"}')
    with pytest.raises(SweepError, match="cannot read"):
        read_result(bad)
    bad.write_text(json.dumps({"format": FORMAT}))
    with pytest.raises(SweepError, match="has no"):
        read_result(bad)


def test_protocols_are_named_and_reduced_one_is_for_tests() -> None:
    assert set(TRAINING_PROTOCOLS) == {"allfives-train/1", "allfives-train/1-reduced"}
    assert all(isinstance(p, TrainingProtocol) for p in TRAINING_PROTOCOLS.values())
    assert TRAIN_V1.min_seeds >= 3 and TRAIN_V1.curve_points >= 10


def test_the_baselines_page_is_made_from_the_shipped_results() -> None:
    """``docs/results/baselines.md``'s generated section is ``allfives sweep-report
    docs/baselines/results --write docs/results/baselines.md --curves docs/baselines``."""
    from agents.benchmark.sweep_report import curves_file, rows, update_page

    root = Path(__file__).resolve().parents[2]
    results = [read_result(f) for f in sorted((root / "docs/baselines/results").rglob("*.json"))]
    doc = root / "docs" / "results" / "baselines.md"
    assert update_page(doc, results, "sweeps", "../baselines") == doc.read_text(encoding="utf-8")
    for key in rows(results):
        assert (root / "docs" / "baselines" / curves_file(key)).is_file()
