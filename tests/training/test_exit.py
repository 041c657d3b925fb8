"""Expert iteration and the value head: ``train.py`` with ``value_head`` saves a critic that
learned the search's values, and ``python -m agents.training.exit`` runs rounds whose search
uses the previous round's network, resumes, and refuses bad configs in one line."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("numba")

ROOT = Path(__file__).resolve().parents[2]
EXIT = [sys.executable, "-m", "agents.training.exit"]
VALUE_RUN = [
    "--config", "configs/smoke.yaml", "--imitation_teacher", "batchsearch:worlds=2",
    "--imitation_targets", "values", "--value_head", "--no-critic_state", "--total_timesteps",
    "0", "--final_eval_matches", "2",
]  # fmt: skip


def run(args: list[str], tmp_path: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*args, "--runs", str(tmp_path)], capture_output=True, text=True, timeout=timeout, cwd=ROOT
    )


def test_searched_value_is_the_best_mean_value_over_the_target() -> None:
    from agents.training.learner import searched_value

    nan = np.nan
    values = np.array([[1.0, nan, 5.0, -2.0], [nan, 3.0, nan, nan], [-50.0, -10.0, nan, nan]])
    got = searched_value(values, 10)
    assert got[0] == pytest.approx(0.5) and np.isnan(got[1]) and got[2] == pytest.approx(-1.0)


def test_the_value_loss_leaves_out_positions_with_nothing_searched() -> None:
    import torch as th

    from agents.training.learner import value_loss

    value = th.tensor([1.0, 2.0, 3.0])
    target = th.tensor([0.0, float("nan"), 1.0])
    assert float(value_loss(value, target)) == pytest.approx(0.5 * (1 + 4) / 2)
    assert float(value_loss(value, th.full((3,), float("nan")))) == 0.0


def test_a_value_head_run_saves_the_critic_that_learned_the_searchs_values(
    tmp_path: Path,
) -> None:
    import torch as th

    from agents.learned import read_checkpoint
    from agents.numpy_networks import ScorerLayout
    from agents.training.torch_networks import ScorerNet
    from agents.value_network import read_value
    from allfives_env.envs.spaces import Encoding

    proc = run([sys.executable, "train.py", *VALUE_RUN], tmp_path)
    assert proc.returncode == 0, proc.stderr
    spec, net = read_value(tmp_path / "smoke" / "best.zip")
    read_checkpoint(tmp_path / "smoke" / "best.zip")  # the actor is there too
    assert net.scale == spec.rules.target
    # the critic the resume point holds computes what the saved value network computes
    with zipfile.ZipFile(tmp_path / "smoke" / "resume.zip") as z:
        trainer = th.load(io.BytesIO(z.read("trainer.pt")), weights_only=False)
    enc = Encoding(spec.rules, "outlook")
    torch_net = ScorerNet(ScorerLayout.of(enc), [64, 64], [64, 64], 8, 0)
    torch_net.load_state_dict(trainer["net"])
    x = np.random.default_rng(0).random((4, enc.obs_size)).astype(np.float32)
    with th.no_grad():
        want = torch_net.value(th.from_numpy(x)).numpy() * spec.rules.target
    saved = read_value(tmp_path / "smoke" / "latest.zip")[1]
    assert saved.values(x) == pytest.approx(want, rel=1e-4, abs=1e-4)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--value_head"], "'value_head' must be used with imitation_targets: values"),
        ([*VALUE_RUN[:6], "--value_head"], "'value_head' must be used with critic_state: false"),
        (VALUE_RUN[:-4], "'value_head' must be used with total_timesteps: 0"),
    ],
)
def test_value_head_needs_a_value_teacher_an_observing_critic_and_no_ppo(
    tmp_path: Path, args: list[str], message: str
) -> None:
    if args[0] != "--config":
        args = ["--config", "configs/smoke.yaml", *args]
    proc = run([sys.executable, "train.py", *args], tmp_path, timeout=60)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and message in lines[0], proc.stderr


def test_expert_iteration_runs_rounds_on_the_last_rounds_network_and_resumes(
    tmp_path: Path,
) -> None:
    smoke = ["--config", "configs/exit_smoke.yaml"]
    proc = run([*EXIT, *smoke], tmp_path)
    assert proc.returncode == 0, proc.stderr
    folder = tmp_path / "exit_smoke"
    rounds = json.loads((folder / "rounds.json").read_text())
    assert [r["round"] for r in rounds] == [0, 1]
    assert rounds[0]["teacher"] == "batchsearch:worlds=2"
    net0 = folder / "round0" / "best.zip"
    assert rounds[1]["teacher"] == f"batchsearch:worlds=2,prior={net0},prior_weight=2"
    assert rounds[0]["search"]["spec"] == rounds[1]["teacher"]
    for r in rounds:
        assert set(r["network"]["results"]) == {"greedy"} == set(r["search"]["results"])
        assert r["network"]["results"]["greedy"]["matches"] == 4
    assert "| 1 | search |" in proc.stdout
    # run again: the rounds are done, nothing is trained again
    before = (folder / "round1" / "best.zip").read_bytes()
    again = run([*EXIT, *smoke], tmp_path)
    assert again.returncode == 0 and "round 0:" not in again.stdout, again.stderr
    assert (folder / "round1" / "best.zip").read_bytes() == before
    # one more round continues from there; another setting is refused
    more = run([*EXIT, *smoke, "--rounds", "3"], tmp_path)
    assert more.returncode == 0 and "round 2:" in more.stdout, more.stderr
    assert "round 1:" not in more.stdout
    assert len(json.loads((folder / "rounds.json").read_text())) == 3
    other = run([*EXIT, *smoke, "--rounds", "3", "--prior_weight", "1"], tmp_path)
    assert other.returncode == 2 and "(prior_weight); use --fresh" in other.stderr, other.stderr


def test_expert_iteration_can_guide_the_search_by_the_networks_value(tmp_path: Path) -> None:
    args = ["--config", "configs/exit_smoke.yaml", "--guide", "value", "--depth", "1"]
    proc = run([*EXIT, *args, "--round_search", "batchsearch:worlds=3"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    rounds = json.loads((tmp_path / "exit_smoke" / "rounds.json").read_text())
    net0 = tmp_path / "exit_smoke" / "round0" / "best.zip"
    assert rounds[1]["teacher"] == f"batchsearch:worlds=2,value={net0},depth=1"
    assert rounds[0]["search"]["spec"] == f"batchsearch:worlds=3,value={net0},depth=1"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rounds", "0"], "'rounds' must be at least 1"),
        (["--depth", "0"], "'depth' must be at least 1"),
        (["--round_opponents", "nobody"], "unknown agent"),
        (["--guide", "value", "--no-value_head"], "'value_head' must be true with guide: value"),
        (["--guide", "policy"], "'guide' must be one of prior, value"),
        (["--round_search", "heuristic"], "must be a batchsearch spec"),
        (["--imitation_targets", "choice"], "'imitation_targets' must be values"),
        (["--prior_weight", "-1"], "'prior_weight' must be a number from 0"),
        (["--critic_state"], "critic_state: false"),
    ],
)
def test_bad_expert_iteration_configs_are_one_line(
    tmp_path: Path, args: list[str], message: str
) -> None:
    proc = run([*EXIT, "--config", "configs/exit_smoke.yaml", *args], tmp_path, timeout=60)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and message in lines[0], proc.stderr
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("name", "text"),
    [("config.yaml", "- a list\n"), ("config.yaml", "a: [\n"), ("rounds.json", "{")],
)
def test_a_damaged_exit_folder_is_one_line_naming_the_file(
    tmp_path: Path, name: str, text: str
) -> None:
    from agents.training.config import load_yaml
    from agents.training.exit import EXIT_KIND, ExitConfig
    from agents.training.run_folder import write_config

    folder = tmp_path / "exit_smoke"
    write_config(folder, load_yaml(ROOT / "configs" / "exit_smoke.yaml", ExitConfig()), EXIT_KIND)
    (folder / name).write_text(text)
    proc = run([*EXIT, "--config", "configs/exit_smoke.yaml"], tmp_path, timeout=60)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert f"{name} is damaged" in lines[0] and "--fresh" in lines[0]
    assert (folder / name).read_text() == text


def test_a_folder_expert_iteration_did_not_make_is_not_taken(tmp_path: Path) -> None:
    folder = tmp_path / "exit_smoke"
    folder.mkdir()
    (folder / "config.yaml").write_text("- a list\n")  # not the config of an earlier version
    proc = run([*EXIT, "--config", "configs/exit_smoke.yaml"], tmp_path, timeout=60)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert "is not a python -m agents.training.exit run folder" in lines[0]
    assert (folder / "config.yaml").read_text() == "- a list\n"
