"""What ``train.py`` and expert iteration may touch, and what a resume reads: ``--fresh`` and a
run write only into a folder the trainer made; every file a resume reads is checked (missing,
damaged, edited) before anything is written, in one line with exit status 2; YAML and JSON are
read strictly; the command line takes one ``--config``; the messages say truthfully where a
run goes on from and what each phase is doing."""

from __future__ import annotations

import json
import pickle
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import run_trainer

pytest.importorskip("torch")
pytest.importorskip("numba")

ROOT = Path(__file__).resolve().parents[2]
TRAIN = [sys.executable, str(ROOT / "train.py")]
EXIT = [sys.executable, "-m", "agents.training.exit"]
EXIT_SMOKE = ["--config", "configs/exit_smoke.yaml"]
#: the smoke config's warm start alone, no final evaluation: a finished run folder, quickly
WARM = ["--config", "configs/smoke.yaml", "--total_timesteps", "0", "--final_eval_matches", "0"]
#: the same run, given PPO steps to go on with: a rerun that reads every file of a resume
MORE = [*WARM[:2], "--total_timesteps", "1024", *WARM[4:]]


run = run_trainer


def refused(proc: subprocess.CompletedProcess[str], *words: str) -> str:
    """The one line of a refusal (exit status 2, no traceback), which holds each of ``words``."""
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def contents(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder``, by path: what a refusal must leave as it was."""
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run folder of the smoke config's warm start (``smoke``), to copy."""
    runs = tmp_path_factory.mktemp("finished")
    proc = run(TRAIN, runs, *WARM)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return runs / "smoke"


@pytest.fixture
def copy(finished: Path, tmp_path: Path) -> Path:
    """A copy of :func:`finished`'s run folder, in a ``runs`` folder of its own."""
    folder = tmp_path / "smoke"
    shutil.copytree(finished, folder)
    return folder


# ----------------------------------------------------------------- what --fresh may delete


def test_fresh_deletes_no_folder_the_trainer_did_not_make(tmp_path: Path) -> None:
    mine = tmp_path / "important"
    mine.mkdir()
    (mine / "notes.txt").write_text("my own")
    before = contents(mine)
    line = refused(run(TRAIN, tmp_path, *WARM, "--name", "important", "--fresh"), "--fresh")
    assert "not a train.py run folder" in line and "--name" in line
    assert contents(mine) == before and not (tmp_path / ".important.lock").exists()
    # a package (`--runs . --name agents`), or a folder of the user's own config
    package = tmp_path / "agents"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "config.yaml").write_text("name: agents\nseed: 3\n")
    before = contents(package)
    refused(run(TRAIN, tmp_path, *WARM, "--name", "agents", "--fresh"), "not a train.py run")
    assert contents(package) == before
    # without --fresh, a run does not write into such a folder either
    refused(run(TRAIN, tmp_path, *WARM, "--name", "important"), "not a train.py run")
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]


def test_fresh_refuses_a_run_folder_that_holds_a_users_file(copy: Path) -> None:
    (copy / "notes.txt").write_text("my own")
    before = contents(copy)
    line = refused(run(TRAIN, copy.parent, *WARM, "--fresh"), "notes.txt", "--fresh")
    assert "which no train.py run writes" in line
    assert contents(copy) == before


def test_fresh_refuses_a_folder_of_another_trainer(tmp_path: Path) -> None:
    from agents.training.exit import EXIT_KIND, ExitConfig
    from agents.training.run_folder import write_config

    folder = tmp_path / "smoke"
    write_config(folder, ExitConfig(name="smoke"), EXIT_KIND)
    before = contents(folder)
    refused(run(TRAIN, tmp_path, *WARM, "--fresh"), "holds a run of python -m agents.training.exit")
    assert contents(folder) == before


def test_fresh_deletes_a_run_folder_of_this_and_earlier_versions(copy: Path) -> None:
    proc = run(TRAIN, copy.parent, *WARM, "--fresh")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "resuming" not in proc.stdout and (copy / "allfives_run.json").is_file()
    # an earlier version's folder: no marker, its config.yaml names it
    (copy / "allfives_run.json").unlink()
    again = run(TRAIN, copy.parent, *WARM, "--fresh")
    assert again.returncode == 0, again.stderr[-2000:]


def test_a_link_is_never_deleted_and_one_to_nothing_is_refused(tmp_path: Path) -> None:
    from agents.training.config import ConfigError
    from agents.training.ownership import check_folder
    from agents.training.selfplay_config import RUN_KIND

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "mine.txt").write_text("my own")
    link = tmp_path / "runs" / "smoke"
    link.parent.mkdir()
    link.symlink_to(elsewhere)
    with pytest.raises(ConfigError, match="smoke is a link: --fresh deletes only"):
        check_folder(link, RUN_KIND, fresh=True)
    with pytest.raises(ConfigError, match=r"smoke is not a train\.py run folder"):
        check_folder(link, RUN_KIND, fresh=False)
    (tmp_path / "runs" / "gone").symlink_to(tmp_path / "nothing")
    with pytest.raises(ConfigError, match="gone is a link"):
        check_folder(tmp_path / "runs" / "gone", RUN_KIND, fresh=False)
    assert [p.name for p in elsewhere.iterdir()] == ["mine.txt"]


@pytest.mark.parametrize("cmd", [TRAIN, EXIT])
def test_runs_that_is_a_file_is_one_line(tmp_path: Path, cmd: list[str]) -> None:
    afile = tmp_path / "README.md"
    afile.write_text("# mine\n")
    config = "configs/exit_smoke.yaml" if cmd is EXIT else "configs/smoke.yaml"
    refused(run(cmd, afile, "--config", config), "README.md is a file, not a folder", "--runs")
    assert afile.read_text() == "# mine\n" and [p.name for p in tmp_path.iterdir()] == ["README.md"]


# ----------------------------------------------------------------- every file a resume reads


def test_a_run_without_its_state_is_refused_not_started_over(copy: Path) -> None:
    (copy / "state.pkl").unlink()
    before = contents(copy)
    refused(run(TRAIN, copy.parent, *MORE), "state.pkl", "its resume needs", "--fresh", "--name")
    assert contents(copy) == before


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("config.yaml", ["config.yaml is missing", "--fresh"]),
        ("resume.zip", ["resume.zip is missing", "--fresh"]),
        ("best.zip", ["best.zip is missing", "--fresh"]),
    ],
)
def test_a_run_without_a_file_its_resume_reads_is_refused(
    copy: Path, name: str, words: list[str]
) -> None:
    (copy / name).unlink()
    before = contents(copy)
    refused(run(TRAIN, copy.parent, *MORE), *words)
    assert contents(copy) == before


def _cut(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _without_trainer(path: Path) -> None:
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist() if n != "trainer.pt"}
    with zipfile.ZipFile(path, "w") as z:
        for n, data in members.items():
            z.writestr(n, data)


def _other_resume_point(path: Path) -> None:
    shutil.copyfile(path.parent / "latest.zip", path)  # a whole checkpoint, no trainer.pt


def _rewritten(path: Path) -> None:
    """The same members, stored another way: whole, but not the file ``state.pkl`` went with."""
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for n, data in members.items():
            z.writestr(n, data)


def _state_without(key: str) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        state = pickle.loads(path.read_bytes())
        del state[key]
        path.write_bytes(pickle.dumps(state))

    return damage


@pytest.mark.parametrize(
    ("name", "damage", "detail"),
    [
        ("resume.zip", _cut, "resume.zip is damaged"),
        ("resume.zip", _without_trainer, "resume.zip is damaged"),
        ("resume.zip", _other_resume_point, "resume.zip is damaged"),
        ("resume.zip", _rewritten, "not the resume.zip that state.pkl was saved with"),
        ("best.zip", _cut, "best.zip is damaged"),
        ("state.pkl", _state_without("pool"), "state.pkl is damaged (no 'pool'"),
        ("config.yaml", lambda p: p.write_text("seed: 1\nseed: 2\n"), "given twice"),
        ("allfives_run.json", _cut, "allfives_run.json is damaged"),
    ],
)
def test_a_damaged_file_a_resume_reads_is_one_line_and_nothing_is_written(
    copy: Path, name: str, damage: Callable[[Path], None], detail: str
) -> None:
    damage(copy / name)
    before = contents(copy)
    refused(run(TRAIN, copy.parent, *MORE), detail)
    assert contents(copy) == before


def test_a_hand_edit_of_config_yaml_is_refused_never_overwritten(copy: Path) -> None:
    config = copy / "config.yaml"
    text = config.read_text()
    for old, new in (("num_envs: 16", "num_envs: 32"), ("eval_processes: 1", "eval_processes: 2")):
        assert old in text
        config.write_text(text.replace(old, new))
        before = contents(copy)
        field = new.split(":")[0]
        refused(run(TRAIN, copy.parent, *MORE), "config.yaml was edited", f"{field} changed")
        assert contents(copy) == before
    config.write_text(text + "# my note\n")  # a comment is an edit too: never overwritten
    refused(run(TRAIN, copy.parent, *MORE), "config.yaml was edited (its text changed)")
    # in an earlier version's folder (no marker), config.yaml must hold state.pkl's config
    (copy / "allfives_run.json").unlink()
    config.write_text(text.replace("num_envs: 16", "num_envs: 32"))
    before = contents(copy)
    refused(run(TRAIN, copy.parent, *MORE), "config.yaml was edited (num_envs changed)")
    assert contents(copy) == before


def test_a_resume_after_the_warm_start_says_so_and_an_earlier_versions_folder_resumes(
    copy: Path,
) -> None:
    (copy / "allfives_run.json").unlink()  # made by an earlier version
    proc = run(TRAIN, copy.parent, *MORE)
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = next(x for x in proc.stdout.splitlines() if x.startswith("resuming"))
    assert line == (
        f"resuming {copy} from step 0 of PPO's 1,024, after the warm start (1,024 imitation "
        "samples)"
    )
    assert (copy / "allfives_run.json").is_file()


def test_the_resume_message_says_where_the_run_goes_on_from(tmp_path: Path) -> None:
    from agents.training.resume_check import resume_message
    from agents.training.run import Run
    from agents.training.selfplay_config import Config

    cfg = Config(imitation_samples=1024, total_timesteps=4096)
    folder = Run(cfg, tmp_path)

    def say(imitated: int, steps: int, config: Config = cfg) -> str:
        return resume_message(folder, config, {"imitated": imitated, "num_timesteps": steps})

    warm = "after the warm start (1,024 imitation samples)"
    assert say(512, 0) == (
        f"resuming {folder.dir} from step 512 of the warm start's 1,024 (imitation; then "
        "4,096 steps of PPO)"
    )
    assert say(1024, 0) == f"resuming {folder.dir} from step 0 of PPO's 4,096, {warm}"
    assert say(1024, 4096) == (
        f"resuming {folder.dir} from step 4,096 of PPO's 4,096, {warm}: only its final "
        "evaluation is left"
    )
    none = Config(imitation_samples=0, total_timesteps=4096)
    assert say(0, 2048, none) == f"resuming {folder.dir} from step 2,048 of PPO's 4,096"


# ----------------------------------------------------------------- strict YAML, one --config


def test_a_key_given_twice_in_a_config_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "twice.yaml"
    config.write_text("name: twice\nseed: 1\nnum_envs: 16\nseed: 2\n")
    line = refused(run(TRAIN, tmp_path / "runs", "--config", str(config)), "'seed' given twice")
    assert "twice.yaml" in line and "line 4" in line
    assert not (tmp_path / "runs").exists()


def test_strict_yaml_refuses_a_key_twice_at_any_depth() -> None:
    import yaml

    from agents.training.config import strict_yaml

    assert strict_yaml("a: 1\nb: {c: 2}\n") == {"a": 1, "b": {"c": 2}}
    for text in ("a: 1\na: 2\n", "b: {c: 1, c: 2}\n", "- {x: 1, x: 1}\n"):
        with pytest.raises(yaml.YAMLError, match="given twice"):
            strict_yaml(text)


@pytest.mark.parametrize("cmd", [TRAIN, EXIT])
def test_config_given_twice_is_refused(tmp_path: Path, cmd: list[str]) -> None:
    config = "configs/exit_smoke.yaml" if cmd is EXIT else "configs/smoke.yaml"
    proc = run(cmd, tmp_path, "--config", config, "--config=configs/default.yaml")
    refused(proc, "--config given 2 times", config, "configs/default.yaml")
    assert not any(tmp_path.iterdir())


# ----------------------------------------------------------------- each phase says what it does


def test_every_phase_says_what_it_is_doing_with_the_progress_bar_off(tmp_path: Path) -> None:
    args = [
        "--config",
        "configs/smoke.yaml",
        "--total_timesteps",
        "1024",
        "--final_eval_matches",
        "2",
    ]
    proc = run(TRAIN, tmp_path, *args)
    assert proc.returncode == 0, proc.stderr[-3000:]
    said = [
        x.removeprefix("train.py: ") for x in proc.stderr.splitlines() if x.startswith("train.py: ")
    ]
    starts = ["run 'smoke'", "making the table", "evaluating the untrained policy",
              "the warm start: 1,024 learner steps imitating greedy",
              "evaluating at step 1,024 (imitation)", "PPO: 1,024 learner steps",
              "evaluating at step 2,048 (ppo)", "the final evaluation"]  # fmt: skip
    found = [next(i for i, x in enumerate(said) if x.startswith(s)) for s in starts]
    assert found == sorted(found), said


# ----------------------------------------------------------------- expert iteration's folder


def _exit_folder(runs: Path, rounds: object | None = None) -> Path:
    """An ExIt folder of ``configs/exit_smoke.yaml`` as the trainer begins it (its marker and
    config), with ``rounds`` as ``rounds.json``."""
    from agents.training.config import load_yaml
    from agents.training.exit import EXIT_KIND, ExitConfig
    from agents.training.run_folder import write_config

    cfg = load_yaml(ROOT / "configs" / "exit_smoke.yaml", ExitConfig())
    folder = runs / cfg.name
    write_config(folder, cfg, EXIT_KIND)
    if rounds is not None:
        text = rounds if isinstance(rounds, str) else json.dumps(rounds)
        (folder / "rounds.json").write_text(text)
    return folder


def _round(r: int) -> dict[str, object]:
    result = {"greedy": {"win_rate": 0.5, "ci95": [0.1, 0.9], "matches": 4}}
    return {
        "round": r,
        "teacher": "t",
        "network": {"results": result},
        "search": {"results": result},
    }


def test_expert_iteration_refuses_what_it_did_not_make(tmp_path: Path) -> None:
    mine = tmp_path / "exit_smoke"
    mine.mkdir()
    (mine / "notes.txt").write_text("my own")
    refused(
        run(EXIT, tmp_path, *EXIT_SMOKE, "--fresh"),
        "not a python -m agents.training.exit run folder",
    )
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]
    shutil.rmtree(mine)
    folder = _exit_folder(tmp_path)
    (folder / "round0").mkdir()
    (folder / "round0" / "mine.txt").write_text("my own")  # a round folder train.py did not make
    before = contents(folder)
    refused(run(EXIT, tmp_path, *EXIT_SMOKE, "--fresh"), "round0/")
    assert contents(folder) == before


@pytest.mark.parametrize(
    ("rounds", "detail"),
    [
        ('[{"round": 0, "round": 0}, {"round": 1}]', "duplicate key 'round'"),
        ([_round(0), {"round": 1}], "its round 1 is not a round's record"),
        ([_round(0), _round(2)], "its round 1 is not a round's record"),
        ("[NaN]", "NaN is not JSON"),
    ],
)
def test_a_damaged_rounds_json_is_one_line(tmp_path: Path, rounds: object, detail: str) -> None:
    folder = _exit_folder(tmp_path, rounds)
    before = contents(folder)
    refused(run(EXIT, tmp_path, *EXIT_SMOKE), "rounds.json is damaged", detail)
    assert contents(folder) == before


def test_expert_iteration_checks_the_last_rounds_network_and_the_round_under_way(
    tmp_path: Path,
) -> None:
    from agents.training.config import load_yaml
    from agents.training.exit import ExitConfig, round_config
    from agents.training.run_folder import write_config
    from agents.training.selfplay_config import RUN_KIND

    folder = _exit_folder(tmp_path, [_round(0)])
    round0 = folder / "round0"
    cfg = load_yaml(ROOT / "configs" / "exit_smoke.yaml", ExitConfig())
    write_config(round0, round_config(cfg, tmp_path, 0), RUN_KIND)
    before = contents(folder)
    refused(run(EXIT, tmp_path, *EXIT_SMOKE), "round0/best.zip is missing", "--fresh")
    assert contents(folder) == before  # round1.yaml is not written
    # the round under way: its train.py folder is checked before anything is written
    (folder / "rounds.json").unlink()
    (round0 / "state.pkl").write_bytes(b"not a pickle")
    before = contents(folder)
    refused(run(EXIT, tmp_path, *EXIT_SMOKE), "round0/state.pkl is damaged")
    assert contents(folder) == before


def test_a_hand_edit_of_the_exit_config_is_refused(tmp_path: Path) -> None:
    folder = _exit_folder(tmp_path, [_round(0), _round(1)])
    config = folder / "config.yaml"
    config.write_text(config.read_text().replace("eval_processes: 1", "eval_processes: 2"))
    before = contents(folder)
    refused(run(EXIT, tmp_path, *EXIT_SMOKE), "config.yaml was edited (eval_processes changed)")
    assert contents(folder) == before
