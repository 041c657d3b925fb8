"""Inputs an adversary would try: every one gets a result or one clear typed error, and nothing
already there (a game, a batch of games) is changed by a refused one.

Each test here pins a defect found by probing the project as a newcomer and as an attacker
would; hypothesis draws from the wide input spaces (seeds, action arrays, record fields).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from allfives_cli import main
from allfives_env import raw_env
from allfives_env.core.errors import RecordError
from allfives_env.core.game import new_game
from allfives_env.core.records import record_of, replay_text
from allfives_env.envs.settings import EnvConfigError, ResetRequiredError, UnknownAgentError
from allfives_env.vector.errors import ActionArrayError, VectorActionError
from allfives_env.vector.multi_agent import AllFivesMultiAgentVectorEnv
from allfives_env.vector.single_agent import AllFivesVectorEnv

N = 4

# ---------------------------------------------------------------- actions of the vector envs


def _front_ends() -> dict[str, Any]:
    out: dict[str, Any] = {
        "gymnasium": AllFivesVectorEnv(N, "pagat"),
        "multi-agent": AllFivesMultiAgentVectorEnv(N, "pagat"),
    }
    try:
        from allfives_env.vector.sb3 import AllFivesVecEnv
    except ImportError:  # stable-baselines3 is the [train] extra
        return out
    out["sb3"] = AllFivesVecEnv(N, "pagat", seed=0)
    return out


FRONT_ENDS = _front_ends()


def _reset(name: str, env: Any) -> np.ndarray:
    """Deal the batch; the learner's masks."""
    if name == "gymnasium":
        _, info = env.reset(seed=3)
        return np.asarray(info["action_mask"])
    if name == "multi-agent":
        _, masks, _ = env.reset(seed=3)
        return np.asarray(masks)
    env.seed(3)
    env.reset()
    return np.asarray(env.action_masks())


def _observed(name: str, env: Any) -> np.ndarray:
    """Every game's observation now (what a refused step must leave as it was)."""
    vg = env.vg if name == "multi-agent" else env.batch.vg
    return np.asarray(vg.observe()).copy()


NOT_IDS = st.one_of(
    st.integers(-(2**63), -1),
    st.integers(114, 2**63 - 1),
).map(lambda x: np.int64(x)) | st.integers(114, 2**64 - 1).map(lambda x: np.uint64(x))


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(sorted(FRONT_ENDS)), game=st.integers(0, N - 1), bad=NOT_IDS)
def test_a_vector_env_refuses_an_action_outside_the_space_before_any_game_moves(
    name: str, game: int, bad: np.integer[Any]
) -> None:
    env = FRONT_ENDS[name]
    masks = _reset(name, env)
    legal = masks.argmax(axis=1)
    actions = legal.astype(bad.dtype)
    actions[game] = bad
    before = _observed(name, env)
    with pytest.raises(VectorActionError) as e:
        env.step(actions)
    assert e.value.game == game and f"game {game}: action {int(bad)}" in str(e.value)
    assert np.array_equal(before, _observed(name, env))
    env.step(legal)  # the batch still steps


@pytest.mark.parametrize("name", sorted(FRONT_ENDS))
def test_a_vector_env_refuses_action_arrays_that_are_not_ids(name: str) -> None:
    env = FRONT_ENDS[name]
    _reset(name, env)
    for bad in (np.zeros(N, float), np.zeros(N + 1, np.int64), np.zeros((2, N), np.int64)):
        with pytest.raises(ActionArrayError):
            env.step(bad)


# ---------------------------------------------------------------- one seed rule everywhere

BAD_SEEDS = st.one_of(
    st.integers(max_value=-1),
    st.integers(min_value=2**64, max_value=2**70),
    st.floats(allow_nan=True),
    st.booleans(),
    st.text(max_size=5),
    st.just(np.float64(1.0)),
    st.just([1]),
)


def _seeders() -> dict[str, Any]:
    out = {
        "aec": lambda s: raw_env().reset(seed=s),
        "gymnasium vector": lambda s: AllFivesVectorEnv(2).reset(seed=s),
        "multi-agent vector": lambda s: AllFivesMultiAgentVectorEnv(2).reset(seed=s),
    }
    try:
        from allfives_env.vector.sb3 import AllFivesVecEnv
    except ImportError:
        return out
    out["sb3 seed()"] = lambda s: AllFivesVecEnv(2).seed(s)
    out["sb3 constructor"] = lambda s: AllFivesVecEnv(2, seed=s)
    return out


SEEDERS = _seeders()


@settings(max_examples=80, deadline=None)
@given(where=st.sampled_from(sorted(SEEDERS)), seed=BAD_SEEDS)
def test_every_front_end_refuses_the_same_seeds_in_one_line(where: str, seed: object) -> None:
    with pytest.raises(EnvConfigError) as e:
        SEEDERS[where](seed)
    message = str(e.value)
    assert message.startswith("seed must be an int from 0 to 2**64 - 1, or None, not ")
    assert "\n" not in message and len(message) < 200


@settings(max_examples=30, deadline=None)
@given(where=st.sampled_from(sorted(SEEDERS)), seed=st.integers(0, 2**64 - 1) | st.none())
def test_every_front_end_takes_every_seed_in_range_and_none(where: str, seed: int | None) -> None:
    SEEDERS[where](seed)


def test_a_vector_env_without_a_seed_continues_from_the_last_one() -> None:
    a, b = AllFivesMultiAgentVectorEnv(3), AllFivesMultiAgentVectorEnv(3)
    a.reset(seed=5)
    b.reset(seed=6)
    assert np.array_equal(a.reset()[0], b.reset(seed=6)[0])
    fresh = [AllFivesVectorEnv(3).reset()[0] for _ in range(2)]
    assert not np.array_equal(*fresh)  # the first reset without a seed: fresh entropy


# ---------------------------------------------------------------- the AEC env's lookups


def test_unknown_agents_and_calls_before_reset_are_named() -> None:
    env = raw_env()
    with pytest.raises(ResetRequiredError, match="reset"):
        env.last()
    env.reset(seed=1)
    for call in (env.observe, env.observation_space, env.action_space):
        with pytest.raises(UnknownAgentError, match=r"no agent 'nonexistent'.*player_0") as e:
            call("nonexistent")
        assert isinstance(e.value, KeyError) and "\n" not in str(e.value)
    assert env.last()[2:4] == (False, False)


# ---------------------------------------------------------------- what errors quote

RECORD = {
    "format": "allfives-record/1",
    "rules": {"preset": "pagat", "num_players": 2},
    "hands": [],
}
LONG = st.text(min_size=200, max_size=3000) | st.just("x" * 10**6)


@settings(max_examples=40, deadline=None)
@given(field=st.sampled_from(["format", "preset", "action", "tile", "players"]), value=LONG)
def test_an_error_quotes_a_long_value_cut_to_a_readable_length(field: str, value: str) -> None:

    record = record_of(new_game("pagat", 2, seed=1)).to_json()
    if field == "format":
        record["format"] = value
    elif field == "preset":
        record["rules"]["preset"] = value
    elif field == "players":
        record["rules"]["num_players"] = value
    elif field == "action":
        record["hands"][0]["actions"] = [value]
    else:  # a tile, after the lead
        hand = record["hands"][0]
        hand["actions"] = [hand["hands"][hand.get("leader", 0)][0], f"{value} E"]
    with pytest.raises(RecordError) as e:
        replay_text(json.dumps(record))
    text = str(e.value)
    assert len(text) <= 600 and "\n" not in text


def test_a_record_with_a_megabyte_action_is_one_short_line_from_the_command_line(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    record = dict(RECORD, hands=[{"hands": [["0-0"] * 9, ["0-1"] * 9], "boneyard": [],
                                  "actions": ["x" * 10**6]}])  # fmt: skip
    path = tmp_path / "big.json"
    path.write_text(json.dumps(record))
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and len(err) < 700


@pytest.mark.parametrize(
    "text",
    [
        '{"format": "allfives-record/1", "seed": NaN}',
        '{"format": "allfives-record/1", "x": Infinity}',
        '{"format": "allfives-record/1", "format": "allfives-record/1"}',
        '{"format": ' + "7" * 5000 + "}",
        "[" * 100_000,
    ],
)
def test_the_command_line_and_the_web_page_read_a_record_alike(text: str) -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from allfives_web.app import Settings, create_app

    with pytest.raises(RecordError) as e:
        replay_text(text)
    client = TestClient(create_app(Settings(max_body=10**6)), base_url="http://127.0.0.1")
    r = client.post("/api/replays", content=text, headers={"content-type": "application/json"})
    assert r.status_code == 422
    assert e.value.reason[:60] in r.json()["error"]


# ---------------------------------------------------------------- checkpoints


def _networks() -> dict[str, Any]:
    """A sound network of each kind, with its spec (the scorer needs torch to be made)."""
    from conftest import random_mlp

    from agents.learned import PolicySpec
    from allfives_env.core.rules import Rules
    from allfives_env.envs.spaces import Encoding

    rules = Rules.preset("pagat", 2)
    mlp = random_mlp(rules)
    out: dict[str, Any] = {"mlp": (PolicySpec(rules, False), mlp)}
    try:
        from agents.numpy_networks import ScorerLayout
        from agents.training.torch_networks import ScorerNet
    except ImportError:  # torch: the [train] extra
        return out
    enc = Encoding(rules, "outlook")
    net = ScorerNet(ScorerLayout.of(enc, True), [16], [8], 4, 0, (8,))
    out["scorer"] = (PolicySpec(rules, "outlook"), net.to_numpy())
    return out


NETWORKS = _networks()


def _write_broken(path: Any, spec: Any, policy: Any, how: str, which: int) -> str:
    """Write ``policy``'s checkpoint with one weight array broken ``how`` (NaN, infinite, or
    one row too many); return that array's name."""
    import io
    import zipfile

    from agents.learned import META_FILE, WEIGHTS_FILE
    from agents.numpy_networks import named_arrays

    names = [n for n, _ in named_arrays(policy)]
    name = names[which % len(names)]
    with np.load(io.BytesIO(policy.to_npz())) as z:
        arrays = {k: z[k] for k in z.files}
    a = arrays[name].copy()
    if how == "nan":
        a.flat[which % a.size] = np.nan
    elif how == "inf":
        a.flat[0] = -np.inf
    else:
        a = np.concatenate([a, a[-1:]], axis=0)
    arrays[name] = a
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(META_FILE, json.dumps(spec.to_json()))
        zf.writestr(WEIGHTS_FILE, buf.getvalue())
    return name


@settings(max_examples=40, deadline=None)
@given(
    kind=st.sampled_from(sorted(NETWORKS)),
    how=st.sampled_from(["nan", "inf", "shape"]),
    which=st.integers(0, 1000),
)
def test_a_broken_checkpoint_is_refused_when_loaded_naming_the_array(
    tmp_path_factory: pytest.TempPathFactory, kind: str, how: str, which: int
) -> None:
    from agents.learned import CheckpointError, load_learned, write_checkpoint

    spec, policy = NETWORKS[kind]
    path = tmp_path_factory.mktemp("ckpt") / "bad.zip"
    name = _write_broken(path, spec, policy, how, which)
    with pytest.raises(CheckpointError) as e:
        load_learned(str(path))
    text = str(e.value)
    assert "broken network" in text and "\n" not in text
    if how != "shape":
        assert f"{name} holds NaN or infinite values" in text
    good = path.with_name("good.zip")
    write_checkpoint(good, spec, policy)
    load_learned(str(good))  # the sound one loads


def test_a_broken_checkpoint_is_one_line_from_the_command_line(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    spec, policy = NETWORKS["mlp"]
    for how in ("nan", "shape"):
        path = tmp_path / f"{how}.zip"
        _write_broken(path, spec, policy, how, 0)
        assert main(["eval", str(path), "random", "--matches", "2"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("allfives: error: ") and err.count("\n") == 1, err


# ---------------------------------------------------------------- matches begun at given scores


@st.composite
def started_matches(draw: st.DrawFn) -> tuple[Any, list[float], int]:
    from allfives_env.core.rules import PRESETS, Rules

    preset = draw(st.sampled_from(PRESETS))
    rules = Rules.preset(preset, draw(st.sampled_from([2, 3, 4])))
    top = rules.target - 1
    scores = [draw(st.integers(-50 if preset == "spruce" else 0, top)) for _ in
              range(rules.num_sides)]  # fmt: skip
    return rules, scores, draw(st.integers(0, 2**32))


@settings(max_examples=40, deadline=None)
@given(match=started_matches())
def test_a_match_begun_at_given_scores_replays_from_its_record(
    match: tuple[Any, list[float], int],
) -> None:
    import random

    from allfives_env.core.game import Game
    from allfives_env.core.records import decode_json, record_of, replay

    rules, start, seed = match
    rng = random.Random(seed)
    game = Game(rules, rng, scores=start)
    for _ in range(400):
        if game.is_match_over:
            break
        if game.current_player is None:
            game.deal(rng)
        else:
            game.apply(rng.choice(game.legal_actions()))
    text = json.dumps(record_of(game).to_json())
    assert ("start_scores" in text) == any(start)
    result = replay(decode_json(text))  # type: ignore[arg-type]
    assert result.scores == game.scores and result.winners == game.winners


def test_the_batched_engine_records_the_scores_its_episodes_began_at() -> None:
    from allfives_env.core.records import replay
    from allfives_env.core.rules import Rules
    from allfives_env.vector import VectorGame

    vg = VectorGame(Rules.preset("pagat", 2), 3, record=True)
    vg.reset(1, scores=[[240, 245], [0, 0], [100, 5]])
    for _ in range(2000):
        if vg.done.all():
            break
        actions = vg.greedy_actions()
        vg.step(actions)
    for i in range(3):
        record = vg.record(i).to_json()
        assert list(replay(record).scores) == list(vg.scores[i])


@pytest.mark.parametrize(
    "start", [[250, 0], [1, 2, 3], ["0", 0], [True, 0], [0, 0.5, 1], "0,0", {"a": 1}]
)
def test_a_records_start_scores_are_checked(start: object) -> None:
    from allfives_env.core.game import new_game
    from allfives_env.core.records import record_of

    record = record_of(new_game("pagat", 2, seed=1)).to_json()
    record["start_scores"] = start
    with pytest.raises(RecordError, match="start_scores: must be 2 numbers below the target"):
        replay_text(json.dumps(record))


# ---------------------------------------------------------------- one process a run folder

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]


def _trainer(script: str, runs: Any, *args: str) -> list[str]:
    import sys

    return [sys.executable, str(ROOT / script), "--runs", str(runs), *args]


def _start(runs: Any, *args: str, out: str = "stderr") -> Any:
    """``train.py ARGS`` in the background, its ``out`` (stdout or stderr) readable."""
    import subprocess

    return subprocess.Popen(
        _trainer("train.py", runs, *args),
        cwd=ROOT,
        stdout=subprocess.PIPE if out == "stdout" else subprocess.DEVNULL,
        stderr=subprocess.PIPE if out == "stderr" else subprocess.DEVNULL,
        text=True,
    )


@pytest.mark.parametrize(
    ("script", "folder"), [("train.py", "{runs}/mix"), ("train_rllib.py", "{runs}/rllib/mix")]
)
def test_a_run_folder_in_use_refuses_a_second_run_naming_its_holder(
    tmp_path: Any, script: str, folder: str
) -> None:
    import os
    import subprocess
    from pathlib import Path

    pytest.importorskip("sb3_contrib" if script == "train.py" else "ray")
    from agents.training.run_folder import hold_run_folder

    config = "configs/smoke.yaml" if script == "train.py" else "configs/rllib_smoke.yaml"
    run = Path(folder.format(runs=tmp_path))
    run.mkdir(parents=True)
    (run / "config.yaml").write_text("seed: 0\n")
    with hold_run_folder(run):
        proc = subprocess.run(
            _trainer(
                script, tmp_path, "--config", config, "--name", "mix", "--seed", "1", "--fresh"
            ),
            capture_output=True,
            text=True,
            timeout=300,
            cwd=ROOT,
        )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and f"process {os.getpid()}" in proc.stderr
    assert "in use" in proc.stderr and proc.stdout == ""
    assert (run / "config.yaml").read_text() == "seed: 0\n"  # not even --fresh touched it
    assert sorted(p.name for p in run.iterdir()) == ["config.yaml"]


def test_two_real_runs_of_one_folder_and_a_lock_left_by_a_killed_one(tmp_path: Any) -> None:
    import signal
    import subprocess
    import time

    pytest.importorskip("sb3_contrib")
    from agents.training.run_folder import hold_run_folder, lock_file

    args = ("--config", "configs/smoke.yaml", "--name", "mix", "--total_timesteps", "100000")
    first = _start(tmp_path, *args)
    try:
        lock = lock_file(tmp_path / "mix")
        deadline = time.monotonic() + 120
        while not (lock.exists() and lock.read_text().strip() == str(first.pid)):
            assert first.poll() is None and time.monotonic() < deadline
            time.sleep(0.2)
        second = subprocess.run(
            _trainer("train.py", tmp_path, *args, "--seed", "1"),
            capture_output=True,
            text=True,
            timeout=300,
            cwd=ROOT,
        )
        assert second.returncode == 2 and f"process {first.pid}" in second.stderr
        assert "seed: 0" in (tmp_path / "mix" / "config.yaml").read_text()
        assert first.poll() is None  # the first run goes on
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=60)
    with hold_run_folder(tmp_path / "mix"):  # the dead run's lock does not stand in the way
        pass


# ---------------------------------------------------------------- sizes nobody bounded


@pytest.mark.parametrize("n", [10**8, 10**9, 2**40])
def test_a_batch_too_large_for_the_machine_is_refused_before_it_is_allocated(n: int) -> None:
    from allfives_env.core.rules import Rules
    from allfives_env.vector import VectorGame

    for make in (
        lambda: VectorGame(Rules.preset("pagat", 2), n),
        lambda: AllFivesVectorEnv(n),
        lambda: AllFivesMultiAgentVectorEnv(n),
    ):
        with pytest.raises(EnvConfigError, match=r"games would take about [\d,.]+ GiB; this"):
            make()


def test_a_search_too_large_for_the_machine_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "batchsearch:worlds=100000000", "random", "--matches", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "GiB" in err and "100,000,000 worlds" in err


def test_processes_are_capped_at_the_cores(capsys: pytest.CaptureFixture[str]) -> None:
    import os

    assert main(["eval", "random", "greedy", "--matches", "2", "--processes", "1000"]) == 0
    cores = os.cpu_count() or 1
    out = capsys.readouterr().out
    assert f"with {cores} process" in out and "1000" not in out


def test_train_py_says_what_it_is_doing_from_its_first_second(tmp_path: Any) -> None:
    """Each phase is announced as it begins, the run's settings first, before the untrained
    policy's evaluation (which used to run for minutes before anything was printed)."""
    import subprocess

    pytest.importorskip("sb3_contrib")
    args = ("--config", "configs/smoke.yaml", "--total_timesteps", "1024")
    proc = subprocess.run(
        _trainer("train.py", tmp_path, *args, "--progress"),
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    said = [line for line in proc.stderr.splitlines() if line.startswith("train.py: ")]
    assert said[0].startswith("train.py: run 'smoke': pagat 2p, 1,024 steps of PPO")
    assert "config.yaml" in said[0]
    assert any("evaluating the untrained policy" in line for line in said[1:3])
    assert said[-1].startswith("train.py: the final evaluation")
    assert "latest.zip v random" in proc.stderr  # the evaluations' own bars


def test_a_full_disk_is_one_line_and_loses_nothing(tmp_path: Any) -> None:
    """A run on a small file system that fills mid-run: one line naming the folder and the
    space to free, no half-written file left, the saved resume point intact; run again while
    still full: the same line before anything starts; once space is freed it resumes."""
    import signal
    import subprocess
    import time

    pytest.importorskip("sb3_contrib")
    from agents.learned import read_checkpoint

    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=40m", "tmpfs", str(disk)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip("needs to mount a small file system (root)")
    try:
        runs = disk / "runs"
        args = ("--config", "configs/smoke.yaml", "--total_timesteps", "200000")
        first = _start(runs, *args)
        resume = runs / "smoke" / "resume.zip"
        deadline = time.monotonic() + 180
        while not resume.exists():
            assert first.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        ballast = disk / "ballast"
        with open(ballast, "wb") as f:  # fill the disk
            try:
                while True:
                    f.write(bytes(2**20))
                    f.flush()
            except OSError:
                pass
        _, err = first.communicate(timeout=300)
        assert first.returncode == 2, err
        said = (
            "train.py: run ", "train.py: making ", "train.py: evaluating ", "train.py: the ",
            "train.py: PPO: ",
        )  # fmt: skip
        lines = [x for x in err.splitlines() if not x.startswith(said)]  # the phases said
        assert len(lines) == 1 and "Traceback" not in err, err
        assert f"the disk holding {runs / 'smoke'} is full" in lines[0] and "MB" in lines[0]
        assert not list((runs / "smoke").rglob("*.tmp"))
        read_checkpoint(resume)  # the last resume point, whole
        again = subprocess.run(
            _trainer("train.py", runs, *args), cwd=ROOT, capture_output=True, text=True
        )
        assert again.returncode == 2 and again.stderr.count("\n") == 1, again.stderr
        assert "is full" in again.stderr
        ballast.unlink()
        third = _start(runs, *args, out="stdout")
        assert third.stdout is not None
        assert third.stdout.readline().startswith(f"resuming {runs / 'smoke'} from step ")
        third.send_signal(signal.SIGINT)
        third.wait(timeout=120)
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)
