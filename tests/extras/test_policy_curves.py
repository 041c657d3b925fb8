"""The policy trainers' env steps and curve snapshots (``--env_steps``, ``--curve_points``):
NFSP in OpenSpiel (the ``[openspiel]`` extra) and BenchMARL (the ``[benchmarl]`` extra), each
part skipped without its extra."""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pytest

from agents.eval.tournament import evaluate
from allfives_env import Rules
from allfives_env.core.actions import DRAW_ID, PASS_ID

NETS = ["--hidden", "16", "--batch_size", "16", "--learn_every", "16", "--no-progress"]
"""NFSP's networks at smoke size (as SMALL in test_openspiel_nfsp.py), without a budget."""
BM_SMOKE = [
    "--frames", "1024", "--frames_per_batch", "512", "--envs", "32", "--minibatch_size", "256",
    "--epochs", "1", "--hidden", "32",
]  # fmt: skip
"""BenchMARL at smoke size (as SMOKE in test_benchmarl.py)."""


def nfsp_main() -> Callable[[list[str]], int]:
    """``python -m allfives_openspiel.train``'s main (the test skips without OpenSpiel)."""
    pytest.importorskip("pyspiel")
    from allfives_openspiel.train import main

    return main


def benchmarl_main() -> Callable[[list[str]], int]:
    """``python -m allfives_benchmarl.train``'s main (the test skips without BenchMARL)."""
    pytest.importorskip("benchmarl")
    from allfives_benchmarl.train import main

    return main


def read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def check_curve(out: Path, kind: str, report: dict[str, Any], points: int) -> list[Path]:
    """``out``'s curve: ``points`` points, their env steps increasing, the last the run's;
    each a folder of its 12-digit env steps, named by a ``kind:curve/…`` spec; the report's
    ``curve`` is the index's points. Return the points' folders."""
    index = read(out / "curve" / "index.json")
    assert report["curve"] == index["points"] and len(index["points"]) == points
    steps = [p["env_steps"] for p in index["points"]]
    assert steps == sorted(set(steps)) and steps[-1] == report["env_steps"]
    assert report["imitation_samples"] == 0 and report["teacher_positions"] == 0
    folders = []
    for p in index["points"]:
        assert p["agent"] == f"{kind}:curve/{p['env_steps']:012d}"
        folders.append(out / p["agent"].split(":", 1)[1])
    return folders


def check_playable(kind: str, folders: list[Path]) -> None:
    for folder in folders:
        spec = f"{kind}:{folder.resolve()}"
        assert evaluate(Rules.preset("pagat", 2), [spec, "random"], matches=2, seed=0).matches == 2


def check_one_line_status_2(
    main: Callable[[list[str]], int], argvs: list[list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()  # what ran before
    for argv in argvs:
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "error" in err, argv


# ---------------------------------------------------------------------------- NFSP (OpenSpiel)


@pytest.fixture(scope="module")
def nfsp_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """NFSP for at least 600 env steps, with 3 curve points."""
    main = nfsp_main()
    out = tmp_path_factory.mktemp("nfsp") / "run"
    assert main(["--env_steps", "600", "--curve_points", "3", "--out", str(out), *NETS]) == 0
    return out


def test_nfsp_trains_for_env_steps_and_saves_its_curve(nfsp_run: Path) -> None:
    import torch

    from allfives_openspiel.nfsp_policy import load_policy

    report = read(nfsp_run / "report.json")
    assert report["env_steps"] >= 600 and report["decisions"] >= report["env_steps"]
    assert report["episodes"] >= 1
    folders = check_curve(nfsp_run, "openspiel-nfsp", report, 3)
    check_playable("openspiel-nfsp", folders)
    last, final = (load_policy(f)[2] for f in (folders[-1], nfsp_run))
    for a, b in zip(last, final, strict=True):  # the last point is the final policy
        assert all(torch.equal(a.state_dict()[k], b.state_dict()[k]) for k in a.state_dict())


def test_nfsp_curve_of_an_episode_budget_is_at_episode_ends(tmp_path: Path) -> None:
    main = nfsp_main()
    out = tmp_path / "run"
    assert main(["--episodes", "3", "--curve_points", "3", "--out", str(out), *NETS]) == 0
    report = read(out / "report.json")
    assert report["episodes"] == 3
    check_curve(out, "openspiel-nfsp", report, 3)


def test_fresh_trains_anew_over_a_folder_with_a_curve(nfsp_run: Path, tmp_path: Path) -> None:
    main = nfsp_main()
    again = tmp_path / "again"
    shutil.copytree(nfsp_run, again)
    assert main(["--episodes", "1", "--fresh", "--out", str(again), *NETS]) == 0
    assert not (again / "curve").exists() and read(again / "report.json")["curve"] == []


class Output(NamedTuple):
    action: int | None


class RandomLearner:
    """Plays a random legal action."""

    def __init__(self, player: int, rng: random.Random) -> None:
        self.player, self.rng = player, rng

    def step(self, time_step: Any) -> Output:
        if time_step.last():
            return Output(None)
        return Output(self.rng.choice(time_step.observations["legal_actions"][self.player]))


@pytest.mark.parametrize("players", [2, 4])
def test_play_episode_counts_the_decisions_that_are_not_forced(players: int) -> None:
    """Its env steps are the player turns whose legal actions (the engine's, in the replayed
    states) are more than a lone draw or pass; its decisions, every player turn."""
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python import rl_environment

    import allfives_openspiel  # noqa: F401  (registers python_allfives)
    from allfives_openspiel.seat_rewards import SeatRewardEnvironment
    from allfives_openspiel.train import play_episode

    game = pyspiel.load_game(f"python_allfives(preset=pagat,players={players},episode=hand)")
    env = SeatRewardEnvironment(
        game, observation_type=rl_environment.ObservationType.OBSERVATION, seed=players
    )
    rng = random.Random(players)
    learners = [RandomLearner(p, rng) for p in range(players)]
    forced = 0
    for _ in range(8):
        played = play_episode(env, learners)
        state, decisions, env_steps = game.new_initial_state(), 0, 0
        for action in env.get_state.history():
            if not state.is_chance_node():
                legal = state.view(state.current_player()).legal_actions
                decisions += 1
                env_steps += not (len(legal) == 1 and legal[0] in (DRAW_ID, PASS_ID))
            state.apply_action(action)
        assert state.is_terminal()
        assert (played.decisions, played.env_steps) == (decisions, env_steps)
        forced += decisions - env_steps
    assert forced > 0  # forced draws or passes were played, and not counted


def test_nfsp_bad_budget_flags_are_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = ["--out", str(tmp_path / "x")]
    check_one_line_status_2(
        nfsp_main(),
        [
            ["--curve_points", "-1", *out],
            ["--curve_points", "1001", *out],
            ["--env_steps", "-5", *out],
            ["--env_steps", "100", "--episodes", "3", *out],
        ],
        capsys,
    )
    assert not (tmp_path / "x").exists()


# ---------------------------------------------------------------------------------- BenchMARL


def test_benchmarl_reports_frames_as_env_steps_and_saves_its_curve(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main = benchmarl_main()
    import torch

    from allfives_benchmarl.policy_file import load_policy

    out = tmp_path / "mappo"
    assert main(["--algorithm", "mappo", "--curve_points", "2", "--out", str(out), *BM_SMOKE]) == 0
    report = read(out / "report.json")
    assert report["env_steps"] == report["frames"] == 1024
    folders = check_curve(out, "benchmarl", report, 2)
    assert [p["env_steps"] for p in report["curve"]] == [512, 1024]
    check_playable("benchmarl", folders)
    first, last, final = (load_policy(f)[2].state_dict() for f in (*folders, out))
    tensors = [k for k, v in final.items() if isinstance(v, torch.Tensor)]
    assert all(torch.equal(last[k], final[k]) for k in tensors)  # the last point is the final
    assert not all(torch.equal(first[k], final[k]) for k in tensors)  # the first is earlier
    check_one_line_status_2(main, [["--curve_points", "-1", "--out", str(tmp_path / "x")]], capsys)


def test_every_frame_collected_is_a_live_games_decision() -> None:
    """What BenchMARL counts as frames: TorchRL's collector steps every game of the batch each
    frame, and deals a game that ended anew before its next frame, so in every frame exactly
    one seat of a live game is to act, with more than a lone draw or pass (the engine takes
    those)."""
    pytest.importorskip("benchmarl")
    import torch
    from tensordict.nn import TensorDictModule
    from torchrl.collectors import SyncDataCollector

    from allfives_benchmarl.env import GROUP, AllFivesTorchEnv

    def env() -> AllFivesTorchEnv:
        return AllFivesTorchEnv(8, "pagat", num_players=2, episode="hand", seed=1)

    generator = torch.Generator().manual_seed(0)

    def pick(mask: torch.Tensor) -> torch.Tensor:
        flat = mask.reshape(-1, mask.shape[-1]).float()
        return torch.multinomial(flat, 1, generator=generator).reshape(mask.shape[:-1])

    policy = TensorDictModule(pick, in_keys=[(GROUP, "action_mask")], out_keys=[(GROUP, "action")])
    collector = SyncDataCollector(env, policy, frames_per_batch=8 * 60, total_frames=8 * 120)
    probe = env()
    wait, draw, pass_ = probe.wait, probe.encoding.draw, probe.encoding.pass_
    ended = 0
    for batch in collector:
        masks = batch[GROUP, "action_mask"].reshape(-1, 2, wait + 1).numpy()
        for mask in masks:
            acting = [s for s in range(2) if not mask[s, wait]]
            assert len(acting) == 1  # a live game, one seat to act
            legal = np.flatnonzero(mask[acting[0]]).tolist()
            assert legal not in ([draw], [pass_])
        ended += int(batch["next", "done"].sum())
    collector.shutdown()
    assert ended > 8  # games ended and were dealt anew within the batches
