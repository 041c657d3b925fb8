"""The learner's device and the engine's threads on a CPU-only machine: a GPU-made resume point
goes on here, the CPU actor's copy trains as the network itself does, and the settings' rules."""

from __future__ import annotations

import copy
import io
import pickle
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from training.test_train import SHORT_SMOKE, run_train, tiny_learner

th = pytest.importorskip("torch")


def as_if_made_on_a_gpu(resume: Path, state: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Write ``resume``'s ``trainer.pt`` again with every tensor saved as a GPU's (``cuda:0``,
    as ``torch.save`` tags a GPU's tensors), and ``state``'s record of ``resume``'s SHA-256."""
    from agents.training.ownership import file_sha256

    with zipfile.ZipFile(resume) as z:
        files = {name: z.read(name) for name in z.namelist()}
    trainer = th.load(io.BytesIO(files["trainer.pt"]), weights_only=False)
    buf = io.BytesIO()
    with monkeypatch.context() as m:
        m.setattr(th.serialization, "location_tag", lambda storage: "cuda:0")
        th.save(trainer, buf)
    with pytest.raises(RuntimeError, match="CUDA"):  # what a load without map_location does here
        th.load(io.BytesIO(buf.getvalue()), weights_only=False)
    files["trainer.pt"] = buf.getvalue()
    with zipfile.ZipFile(resume, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)
    saved = pickle.loads(state.read_bytes())
    saved["resume_sha256"] = file_sha256(resume)
    state.write_bytes(pickle.dumps(saved))


def test_a_resume_point_made_on_a_gpu_goes_on_on_the_cpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small = [*SHORT_SMOKE[:2], *SHORT_SMOKE[4:], "--num_envs", "4", "--imitation_samples", "128",
             "--eval_matches", "1"]  # fmt: skip
    first = run_train(*small, "--total_timesteps", "256", "--device", "cpu", runs=tmp_path)
    assert first.returncode == 0, first.stderr
    run = tmp_path / "smoke"
    assert "the learner on cpu" in first.stderr
    as_if_made_on_a_gpu(run / "resume.zip", run / "state.pkl", monkeypatch)
    resumed = run_train(*small, "--total_timesteps", "512", "--device", "auto", runs=tmp_path)
    assert resumed.returncode == 0, resumed.stderr  # (the device may change)
    assert "resuming" in resumed.stdout
    assert pickle.loads((run / "state.pkl").read_bytes())["num_timesteps"] == 512


def weights(net: Any) -> list[np.ndarray]:
    return [p.detach().cpu().numpy() for p in net.parameters()]


def test_an_actor_apart_from_the_network_trains_the_same_weights(tmp_path: Path) -> None:
    """On a GPU the rollout is played by a CPU copy of the network, synchronised after each
    update: the same weights, here with the copy on the CPU too."""
    plain = tiny_learner(tmp_path / "plain")
    apart = tiny_learner(tmp_path / "apart")
    apart.net = copy.deepcopy(apart.actor)  # as Learner makes it for a GPU
    apart.optimizer = th.optim.Adam(apart.net.parameters(), lr=apart.cfg.learning_rate, eps=1e-5)
    assert apart.actor is not apart.net
    for learner in (plain, apart):
        th.manual_seed(5)
        for imitation in (True, False, False):
            learner.collect(imitation=imitation)
            learner.update(imitation=imitation)
    for a, b in zip(weights(plain.net), weights(apart.net), strict=True):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(weights(apart.net), weights(apart.actor), strict=True):
        np.testing.assert_array_equal(a, b)  # the actor was synchronised


def test_the_network_s_constants_follow_it_but_stay_out_of_its_state(tmp_path: Path) -> None:
    learner = tiny_learner(tmp_path, tile_features=True)
    net = learner.net
    assert {"tile_pips", "slot_hot"} <= {name for name, _ in net.named_buffers()}
    assert not any(k.startswith(("tile_pips", "slot_hot")) for k in net.state_dict())


def test_the_engine_s_threads() -> None:
    from agents.training.config import ConfigError
    from agents.training.device import check_engine_threads, engine_thread_count, usable_cores
    from allfives_env.vector import max_threads

    assert engine_thread_count(1, 2) == 1
    assert engine_thread_count(0, 2) == max(1, min(max_threads(), usable_cores() - 2))
    assert engine_thread_count(0, 1000) == 1
    check_engine_threads(0)
    check_engine_threads(max_threads())
    with pytest.raises(ConfigError, match="'engine_threads' must be from 0"):
        check_engine_threads(max_threads() + 1)


@pytest.mark.parametrize("name", ["cuda", "cuda:0", "cuda:3"])
def test_a_gpu_torch_does_not_see_is_refused(name: str) -> None:
    from agents.training.config import ConfigError
    from agents.training.device import resolve_device

    if th.cuda.is_available():
        pytest.skip("torch sees a GPU here")
    with pytest.raises(ConfigError, match="sees no GPU"):
        resolve_device(name)
    assert str(resolve_device("auto")) == "cpu"


def test_the_update_s_gradients_are_the_same_however_busy_the_cores() -> None:
    """On the CPU with two torch threads, the default kernel behind the actor's per-placement
    context (``c[b]``, a row read once per legal placement) adds its gradient in an order that
    changes when another process shares the cores; the trainer asks for torch's deterministic
    kernels on every device, so the same batch gives the same gradient every time, loaded or
    not (a busy process runs beside it here)."""
    import subprocess
    import sys

    from agents.numpy_networks import ScorerLayout
    from agents.training.device import make_deterministic
    from agents.training.torch_networks import ScorerNet
    from allfives_env import Rules
    from allfives_env.vector import VectorGame

    was, threads = th.are_deterministic_algorithms_enabled(), th.get_num_threads()
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        th.use_deterministic_algorithms(False)
        make_deterministic(th.device("cpu"))
        assert th.are_deterministic_algorithms_enabled()
        th.set_num_threads(2)
        vg = VectorGame(Rules.preset("pagat", 2), 2048, action_features="outlook")
        vg.reset(seeds=2)
        for _ in range(7):
            vg.step(vg.greedy_actions())
            vg.reset_games(np.flatnonzero(vg.done))
        obs, masks = th.from_numpy(vg.observe().copy()), th.from_numpy(vg.masks() > 0)
        th.manual_seed(0)
        net = ScorerNet(ScorerLayout.of(vg.encoding, False), [128, 128], [128, 128], 32)
        grads = set()
        for _ in range(30):
            net.zero_grad()
            logp = th.log_softmax(net.logits(obs, masks), -1)
            (logp.exp() * logp).sum().backward()
            grads.add(b"".join(p.grad.numpy().tobytes() for p in net.trunk.parameters()))
        assert len(grads) == 1
    finally:
        busy.kill()
        busy.wait()
        th.use_deterministic_algorithms(was)
        th.set_num_threads(threads)
