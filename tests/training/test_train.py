"""train.py end to end: the smoke config, config errors, resume after an interruption."""

from __future__ import annotations

import io
import itertools
import json
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import run_trainer

pytest.importorskip("sb3_contrib")

ROOT = Path(__file__).resolve().parents[2]
TRAIN = [sys.executable, str(ROOT / "train.py")]


#: the smoke config cut to one update, no final evaluation
SHORT_SMOKE = ["--config", "configs/smoke.yaml", "--total_timesteps", "1024"]
SHORT_SMOKE += ["--final_eval_matches", "0"]


def run_train(*args: str, runs: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return run_trainer(TRAIN, runs, *args, timeout=timeout)


def policy_weights(path: Path) -> list[np.ndarray]:
    with zipfile.ZipFile(path) as z, np.load(io.BytesIO(z.read("allfives_policy.npz"))) as npz:
        return [npz[k] for k in sorted(npz.files) if k != "activation"]


def test_smoke_config_trains_evaluates_and_reports(tmp_path: Path) -> None:
    proc = run_train("--config", "configs/smoke.yaml", runs=tmp_path)
    assert proc.returncode == 0, proc.stderr
    run = tmp_path / "smoke"
    report = json.loads((run / "report.json").read_text())
    assert set(report["final_eval"]) == {"random", "greedy"}
    for res in report["final_eval"].values():
        assert 0.0 <= res["ci95"][0] <= res["win_rate"] <= res["ci95"][1] <= 1.0
    history = [(h["step"], h["phase"]) for h in report["history"]]
    assert history == [(0, "untrained"), (1024, "imitation"), (2048, "ppo"), (3072, "ppo")]
    shares = report["throughput"]["time_share"]
    assert set(shares) == {"env", "policy", "update", "eval"}
    assert report["steps"] == {"imitation": 1024, "ppo": 2048}
    assert abs(sum(shares.values()) - 1) < 1e-6
    # best.zip is settled between the best periodic evaluation and the final weights
    selection = report["selection"]
    if "mean_win_rate" in selection:
        rates = selection["mean_win_rate"]
        assert set(rates) == {"best periodic", "final weights"} and selection["matches"] == 8
        kept = "final weights" if rates["final weights"] >= rates["best periodic"] else "best"
        assert selection["kept"].startswith(kept)
    else:
        assert selection["kept"].startswith("final weights")
    same = (run / "best.zip").read_bytes() == (run / "latest.zip").read_bytes()
    assert same == selection["kept"].startswith("final weights")
    assert (run / "learning_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert any((run / "tb").rglob("events.out.tfevents.*"))
    # the checkpoint is an agent of the registry, usable by eval and play
    from agents.registry import make_agent
    from allfives_env import Game, Rules

    agent = make_agent(str(run / "best.zip"))
    game = Game(Rules.preset("pagat", 2), __import__("random").Random(0))
    seat = game.current_player
    assert seat is not None
    assert agent.act(game.view(seat), __import__("random").Random(0)) in game.legal_actions()
    # running the finished run again does not restart it
    again = run_train("--config", "configs/smoke.yaml", runs=tmp_path)
    assert again.returncode == 0 and "is complete" in again.stdout
    # a larger total_timesteps extends it; eval_processes may differ (it cannot change results)
    longer = run_train(
        "--config", "configs/smoke.yaml", "--total_timesteps", "4096", "--eval_processes", "2",
        runs=tmp_path,
    )  # fmt: skip
    assert longer.returncode == 0, longer.stderr
    assert "resuming" in longer.stdout
    report = json.loads((run / "report.json").read_text())
    assert [h["step"] for h in report["history"]] == [0, 1024, 2048, 3072, 4096, 5120]
    # a smaller one is refused: the run has trained past it
    shorter = run_train(
        "--config", "configs/smoke.yaml", "--total_timesteps", "2048", runs=tmp_path
    )
    assert shorter.returncode == 2 and "already trained" in shorter.stderr


def test_an_interrupted_run_resumes_to_the_same_result(tmp_path: Path) -> None:
    args = [
        "--config", "configs/smoke.yaml", "--total_timesteps", "3072", "--num_envs", "4",
        "--eval_every", "100000", "--final_eval_matches", "2", "--imitation_refit_epochs", "2",
    ]  # fmt: skip
    straight = run_train(*args, "--name", "straight", runs=tmp_path)
    assert straight.returncode == 0, straight.stderr
    # the same run, stopped by Ctrl-C as soon as a resume point exists, then run again
    cmd = [*TRAIN, "--runs", str(tmp_path), *args, "--name", "broken"]
    proc = subprocess.Popen(
        cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    state = tmp_path / "broken" / "state.pkl"
    deadline = time.time() + 120
    while not state.exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    interrupted = proc.returncode == 130
    print("interrupted:", interrupted)
    if interrupted:
        assert "run the same command to continue" in err
    resumed = run_train(*args, "--name", "broken", runs=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    if interrupted:
        assert "resuming" in resumed.stdout
    a = policy_weights(tmp_path / "straight" / "resume.zip")
    b = policy_weights(tmp_path / "broken" / "resume.zip")
    assert len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def test_a_different_config_for_a_run_is_refused(tmp_path: Path) -> None:
    args = SHORT_SMOKE
    assert run_train(*args, runs=tmp_path).returncode == 0
    proc = run_train(*args[:-4], "--total_timesteps", "2048", runs=tmp_path)
    assert proc.returncode == 2
    assert "different config" in proc.stderr and "--fresh" in proc.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--nonsense", "1"], "Unrecognized options: --nonsense"),
        (["--num_envs", "0"], "num_envs"),
        (["--num_envs", "two"], "num_envs"),
        (["--preset", "dominos"], "unknown preset"),
        (["--baselines", "greedy", "nobody"], "unknown agent"),
        (["--episode", "game"], "episode"),
        (["--config", "no/such.yaml"], "cannot read config"),
        (["--eval_opponents", "greedy", "missing.zip"], "no checkpoint at 'missing.zip'"),
        (["--baselines", "gone.zip"], "no checkpoint at 'gone.zip'"),
        (["--eval_opponents"], "'eval_opponents' must be at least one agent"),
        (["--seed", "-1"], "seed"),
        (["--seed", str(2**32)], "seed"),
        (["--learning_rate", "inf"], "'learning_rate' must be a finite number"),
        (["--gamma", "nan"], "'gamma' must be a finite number"),
        (["--imitation_targets", "labels"], "imitation_targets"),
        (["--imitation_targets", "values"], "a teacher of values must be batchsearch"),
        (["--imitation_temperature", "0"], "imitation_temperature"),
        (["--teacher_processes", "0"], "teacher_processes"),
        (["--imitation_refit_epochs", "-1"], "imitation_refit_epochs"),
        (["--total_timesteps", "0", "--imitation_samples", "0"], "something must train"),
        (["--device", "cuda"], "'device' is 'cuda', but torch"),
        (["--device", "gpu"], "'device' must be auto, cpu, cuda or cuda:N"),
        (["--engine_threads", "100000"], "'engine_threads' must be from 0 (auto) to"),
    ],
)
def test_bad_config_fails_before_training(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command line's parser refuses it: ``ConfigError`` (one line, printed by the trainer;
    see the next test), or tyro's usage error as one line and exit status 2. In this process:
    the same parser the script runs."""
    from agents.training.config import ConfigError
    from agents.training.selfplay_config import parse_args

    skip_where_a_gpu_is_seen(args)
    with pytest.raises((ConfigError, SystemExit)) as refused:
        parse_args(args)
    if isinstance(refused.value, SystemExit):
        assert refused.value.code == 2
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and message in lines[0]
    else:
        text = str(refused.value)
        assert message in text and "\n" not in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--nonsense", "1"], "Unrecognized options: --nonsense"),
        (["--preset", "dominos"], "unknown preset"),
        (["--device", "cuda"], "'device' is 'cuda', but torch"),
    ],
)
def test_the_script_says_a_bad_config_in_one_line(
    tmp_path: Path, args: list[str], message: str
) -> None:
    skip_where_a_gpu_is_seen(args)
    proc = run_train(*args, runs=tmp_path, timeout=60)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in proc.stderr
    assert not any(tmp_path.iterdir())


def skip_where_a_gpu_is_seen(args: list[str]) -> None:
    """Skip a case that asks for a GPU where torch sees one (it would not be refused)."""
    import torch

    if "cuda" in args and torch.cuda.is_available():
        pytest.skip("torch sees a GPU here")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("preset: pagat\nlearning_rat: 0.1\n", "unknown config key 'learning_rat'"),
        ("learning_rate: .inf\n", "'learning_rate' must be a finite number"),
        ("num_envs: two\n", "'num_envs' must be of type int"),
        ("baselines: greedy\n", "'baselines' must be of type list[str]"),
        ("- a list\n", "must be a mapping"),
    ],
)
def test_bad_yaml_is_one_line(tmp_path: Path, text: str, message: str) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    proc = run_train("--config", str(bad), runs=tmp_path / "runs", timeout=60)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and message in lines[0], proc.stderr


def test_a_warm_start_on_search_values_alone_trains_and_reports(tmp_path: Path) -> None:
    # the teacher's values over 2 worker processes, no PPO after the warm start
    proc = run_train(
        "--config", "configs/smoke.yaml", "--imitation_teacher", "batchsearch:worlds=2",
        "--imitation_targets", "values", "--teacher_processes", "2", "--total_timesteps", "0",
        "--final_eval_matches", "2", "--imitation_samples", "2048", "--imitation_anneal_lr",
        runs=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    import torch as th

    with zipfile.ZipFile(tmp_path / "smoke" / "resume.zip") as z:
        trainer = th.load(io.BytesIO(z.read("trainer.pt")), weights_only=False)
    # annealed: the last of the four rollouts (16 games × 32 steps) trained at a quarter of the rate
    assert trainer["optimizer"]["param_groups"][0]["lr"] == pytest.approx(2.5e-4 / 4)
    report = json.loads((tmp_path / "smoke" / "report.json").read_text())
    assert report["steps"] == {"imitation": 2048, "ppo": 0}
    assert [(h["step"], h["phase"]) for h in report["history"]] == [
        (0, "untrained"),
        (2048, "imitation"),
    ]
    assert report["selection"]["kept"].startswith("final weights")
    assert set(report["final_eval"]) == {"random", "greedy"}


def tiny_learner(tmp_path: Path, **fields: Any) -> Any:
    """A :class:`~agents.training.learner.Learner` at a table of 4 games of 8 steps (rollouts of
    32 positions, 2 minibatches, one epoch) with a greedy teacher, ``fields`` overriding its
    config."""
    from agents.training.learner import Learner
    from agents.training.resume import seed_everything
    from agents.training.run import Run
    from agents.training.selfplay_config import Config
    from agents.training.table import Pool, make_table
    from allfives_env.vector.agents import batch_agent
    from allfives_env.vector.engine import policy_rng

    cfg = Config(
        num_envs=4, num_steps=8, num_minibatches=2, imitation_epochs=1, actor_arch=[16],
        critic_arch=[16], context_dim=4, baselines=["random"], **fields,
    )  # fmt: skip
    seed_everything(cfg)
    run = Run(cfg, tmp_path)
    pool = Pool(cfg, run.spec())
    one = Learner(cfg, run, pool, make_table(cfg, pool))
    one.batch.reset(cfg.seed)
    one.teacher, one.teacher_rng = batch_agent("greedy"), policy_rng(1, cfg.num_envs)
    return one


def test_the_refit_learns_from_every_position_the_warm_start_kept(tmp_path: Path) -> None:
    import torch as th

    learner = tiny_learner(tmp_path, imitation_refit_epochs=3, learning_rate=0.01)
    run = learner.run
    seen = []
    for _ in range(3):
        learner.collect(imitation=True)
        learner.update(imitation=True)
        seen.append((learner.rollout.obs.reshape(32, -1).clone(), learner.rollout.labels.clone()))
        run.imitated += 32
    files = sorted(p.name for p in run.positions_dir.iterdir())
    assert files == ["0000.npz", "0001.npz", "0002.npz"]
    obs, _, masks, labels, targets, _ = learner.kept()
    assert th.equal(obs, th.cat([o for o, _ in seen]))
    assert th.equal(labels, th.cat([lab.reshape(32) for _, lab in seen]))
    assert targets is None and masks.shape[0] == 96 and masks.dtype == th.bool
    before = [p.detach().clone() for p in learner.net.parameters()]
    steps = int(learner.optimizer.state[next(learner.net.parameters())]["step"])
    stats = learner.refit()
    # 3 epochs of 96 positions in minibatches of 16, the rate annealed to its last step's
    after = int(learner.optimizer.state[next(learner.net.parameters())]["step"])
    assert (stats["positions"], after - steps) == (96, 18)
    assert learner.optimizer.param_groups[0]["lr"] == pytest.approx(0.01 / 18)
    assert any(not th.equal(a, b) for a, b in zip(before, learner.net.parameters(), strict=True))


def test_a_run_with_a_refit_reports_it_and_removes_the_positions(tmp_path: Path) -> None:
    proc = run_train(*SHORT_SMOKE, "--imitation_refit_epochs", "2", runs=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "refit: 2 epochs over the warm start's 1,024 positions" in proc.stdout
    assert not (tmp_path / "smoke" / "positions").exists()
    assert (tmp_path / "smoke" / "best.zip").is_file()


def test_a_resume_without_the_refits_positions_is_refused_in_one_line(tmp_path: Path) -> None:
    import dataclasses

    from agents.training.config import ConfigError
    from agents.training.resume_check import check_kept_positions
    from agents.training.run import Run
    from agents.training.selfplay_config import Config

    cfg = Config(num_envs=4, num_steps=8, imitation_samples=96, imitation_refit_epochs=2)
    run = Run(cfg, tmp_path)
    kept = run.dir / "positions"
    kept.mkdir(parents=True)
    np.savez(kept / "0000.npz", x=np.zeros(3))  # rollout 0001 was deleted
    with pytest.raises(ConfigError, match=r"lacks 1 of the 2 .*0001\.npz.*--fresh"):
        check_kept_positions(run, cfg, 64)
    (kept / "0001.npz").write_bytes((kept / "0000.npz").read_bytes()[:40])  # cut short
    with pytest.raises(ConfigError, match=r"0001\.npz is damaged .*--fresh"):
        check_kept_positions(run, cfg, 64)
    np.savez(kept / "0001.npz", x=np.ones(3))
    check_kept_positions(run, cfg, 64)
    (kept / "0000.npz").unlink()  # nothing to refit: not asked
    check_kept_positions(run, dataclasses.replace(cfg, imitation_refit_epochs=0), 64)


def test_self_play_without_baselines_runs(tmp_path: Path) -> None:
    proc = run_train(
        "--config", "configs/smoke.yaml", "--baselines", "--total_timesteps", "1024",
        "--final_eval_matches", "2", runs=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "smoke" / "best.zip").is_file()


def test_a_run_stopped_during_its_final_evaluation_finishes_when_run_again(
    tmp_path: Path,
) -> None:
    # 1,000 steps end at 1,024 (whole rollouts); the report is lost as if killed in the end
    args = [*SHORT_SMOKE[:2], "--total_timesteps", "1000", *SHORT_SMOKE[4:]]
    assert run_train(*args, runs=tmp_path).returncode == 0
    report = tmp_path / "smoke" / "report.json"
    first = json.loads(report.read_text())
    report.unlink()
    proc = run_train(*args, runs=tmp_path)
    assert proc.returncode == 0, proc.stderr
    again = json.loads(report.read_text())
    assert again["steps"] == first["steps"] == {"imitation": 1024, "ppo": 1024}
    assert again["history"] == first["history"]


def test_damaged_run_folders_name_the_file_and_the_way_out(tmp_path: Path) -> None:
    args = SHORT_SMOKE
    assert run_train(*args, runs=tmp_path).returncode == 0
    longer = [*args[:2], "--total_timesteps", "2048", *args[4:]]
    state = tmp_path / "smoke" / "state.pkl"
    good = state.read_bytes()
    state.write_bytes(good[: len(good) // 2])  # truncated
    proc = run_train(*longer, runs=tmp_path)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert "state.pkl is damaged" in lines[0] and "--fresh" in lines[0]
    state.write_bytes(good)
    (tmp_path / "smoke" / "resume.zip").unlink()
    proc = run_train(*longer, runs=tmp_path)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert "resume.zip is missing" in lines[0] and "--fresh" in lines[0]
    fresh = run_train(*longer, "--fresh", runs=tmp_path)
    assert fresh.returncode == 0, fresh.stderr


@pytest.mark.parametrize("delay", [0.3, 0.6, 1.5])
def test_ctrl_c_at_once_is_one_clean_line(tmp_path: Path, delay: float) -> None:
    # at 0.3 s train.py is importing numpy and tyro, at 0.6 s torch, later building the model:
    # the interrupt is never lost (a library that swallows KeyboardInterrupt ran to the end)
    proc = subprocess.Popen(
        [*TRAIN, "--runs", str(tmp_path), "--config", "configs/smoke.yaml"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and err.strip().splitlines()[-1].startswith("interrupted")
    assert "run the same command to continue" in err


def test_without_the_train_extras_the_install_command_is_named(tmp_path: Path) -> None:
    # yaml looks uninstalled: train.py must say what to install, not "No module named 'yaml'"
    code = (
        "import runpy, sys; sys.modules['yaml'] = None; sys.argv = ['train.py']; "
        f"runpy.run_path({str(ROOT / 'train.py')!r}, run_name='__main__')"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert "yaml" in lines[0] and "pip install -e '.[train]'" in lines[0]


def test_every_config_field_has_a_docstring_shown_by_help() -> None:
    import ast
    import dataclasses

    from agents.training import config, selfplay_config
    from agents.training.selfplay_config import Config

    docs: dict[str, str] = {}
    for module, name in ((config, "Settings"), (selfplay_config, "Config")):
        tree = ast.parse(Path(module.__file__ or "").read_text())
        body = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name).body
        docs |= {
            a.target.id: b.value.value
            for a, b in itertools.pairwise(body)
            if isinstance(a, ast.AnnAssign) and isinstance(a.target, ast.Name)
            and isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant)
        }  # fmt: skip
    names = [f.name for f in dataclasses.fields(Config)]
    assert set(docs) == set(names) and all(docs.values())
    help_text = subprocess.run(
        [*TRAIN, "--help"], capture_output=True, text=True, timeout=60, cwd=ROOT
    ).stdout
    flat = " ".join("".join(c for c in help_text if c not in "│╭╮╰╯─").split())
    for name in names:
        assert f"--{name}" in flat, name
        first_words = " ".join(docs[name].split()[:4])
        assert first_words in flat, (name, first_words)


def test_configs_use_only_fields() -> None:
    import dataclasses

    from agents.training.selfplay_config import Config

    names = [f.name for f in dataclasses.fields(Config)]
    import yaml

    from agents.training.exit import ExitConfig
    from allfives_rllib.config import RLlibConfig

    rllib_names = [f.name for f in dataclasses.fields(RLlibConfig)]
    exit_names = [f.name for f in dataclasses.fields(ExitConfig)]
    for path in (ROOT / "configs").glob("*.yaml"):
        keys = set(yaml.safe_load(path.read_text()) or {})
        known = rllib_names if path.name.startswith("rllib") else names
        known = exit_names if path.name.startswith("exit") else known
        assert keys <= set(known), (path.name, keys - set(known))
    for shared in ("default.yaml", "team4.yaml", "five_up.yaml"):  # either trainer runs them
        keys = set(yaml.safe_load((ROOT / "configs" / shared).read_text()) or {})
        assert keys <= set(rllib_names), (shared, keys - set(rllib_names))


def test_three_players_train_and_evaluate_against_two_copies(tmp_path: Path) -> None:
    proc = run_train(*SHORT_SMOKE[:4], "--preset", "pyatyorka", "--num_players", "3",
                     "--final_eval_matches", "3", runs=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads((tmp_path / "smoke" / "report.json").read_text())
    assert set(report["final_eval"]) == {"random", "greedy"}
    assert all(r["matches"] == 3 for r in report["final_eval"].values())


def test_start_scores_reach_the_learners_table(tmp_path: Path) -> None:
    from agents.training.run import Run
    from agents.training.selfplay_config import Config
    from agents.training.table import Pool, make_table

    def starts(share: float) -> np.ndarray:
        cfg = Config(num_envs=32, baselines=["random"], start_scores=share)
        pool = Pool(cfg, Run(cfg, tmp_path).spec())
        table = make_table(cfg, pool)
        table.reset(cfg.seed)
        return table.vg.hand_start[:, :2]

    assert not starts(0.0).any()
    began = starts(1.0)
    assert (began.max(axis=1) > 0).mean() > 0.9 and (began < 250).all()
