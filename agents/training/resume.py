"""``train.py``'s resume points: everything needed to continue a run bit for bit (the network
and its optimizer, the pool, the games in the middle of play, the counters and every
generator's state), saved after each update, checked against the config before a rerun.
"""

from __future__ import annotations

import dataclasses
import io
import os
import pickle
import random
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.training.config import ConfigError
from agents.training.run import Run
from agents.training.run_folder import WAY_OUT, check_same_config

if TYPE_CHECKING:
    from agents.training.learner import Learner
    from agents.training.selfplay_config import Config


def save_resume_point(learner: Learner) -> None:
    """Everything needed to continue exactly from here (written atomically)."""
    import torch as th

    from agents.learned import write_checkpoint

    run, batch = learner.run, learner.batch
    trainer = io.BytesIO()
    th.save({"net": learner.net.state_dict(), "optimizer": learner.optimizer.state_dict()}, trainer)
    tmp = run.dir / "resume.zip.tmp"
    write_checkpoint(tmp, run.spec(), learner.net.to_numpy(), {"trainer.pt": trainer.getvalue()})
    lineup, picker = batch.lineup, batch.picker
    batch.set_lineup([], None)  # the agents are rebuilt on resume
    try:
        table = pickle.dumps(batch)
    finally:
        batch.set_lineup(lineup, picker)
    state = {
        "config": dataclasses.asdict(run.cfg),
        "num_timesteps": run.step,
        "imitated": run.imitated,
        "history": run.history,
        "best_score": run.best_score,
        "next_snapshot": run.next_snapshot,
        "next_eval": run.next_eval,
        "timing": run.timing,
        "seconds": run.seconds,
        "pool": [p.to_npz() for p in learner.pool.snapshots],
        "table": table,
        "teacher_rng": learner.teacher_rng,
        "rng": {
            "python": random.getstate(),
            "numpy": np.random.get_state(),
            "torch": th.get_rng_state(),
        },
    }
    with open(run.dir / "state.pkl.tmp", "wb") as f:
        pickle.dump(state, f)
    os.replace(tmp, run.resume_file)
    os.replace(run.dir / "state.pkl.tmp", run.state_file)


def restore(learner: Learner, saved: dict[str, Any]) -> None:
    """Put ``learner`` (freshly built) back in the saved state."""
    import zipfile

    import torch as th

    from agents.numpy_networks import policy_from_npz

    run, pool = learner.run, learner.pool
    with zipfile.ZipFile(run.resume_file) as z:
        trainer = th.load(io.BytesIO(z.read("trainer.pt")), weights_only=False)
    learner.net.load_state_dict(trainer["net"])
    learner.optimizer.load_state_dict(trainer["optimizer"])
    for data in saved["pool"]:
        pool.add(policy_from_npz(data))
    learner.batch = pickle.loads(saved["table"])
    learner.batch.set_lineup(pool.agents, pool.pick)
    learner.teacher_rng = saved["teacher_rng"]
    run.step = saved["num_timesteps"]
    run.imitated = saved["imitated"]
    run.history = saved["history"]
    run.best_score = saved["best_score"]
    run.next_snapshot = saved["next_snapshot"]
    run.next_eval = saved["next_eval"]
    run.timing = saved["timing"]
    run.seconds = saved["seconds"]
    random.setstate(saved["rng"]["python"])
    np.random.set_state(saved["rng"]["numpy"])
    th.set_rng_state(saved["rng"]["torch"])


def load_resume_point(run: Run, cfg: Config) -> dict[str, Any] | None:
    """The saved state of ``run`` to continue from, or ``None`` to start it.

    Raises:
        ConfigError: if the run was started with another config (bar
            :data:`~agents.training.run_folder.MAY_CHANGE`: a larger ``total_timesteps``, the
            process counts), or its files are damaged; each message names the way out
            (``--fresh``, or another ``--name``).
    """
    if not run.state_file.exists():
        return None
    try:
        with open(run.state_file, "rb") as f:
            saved: dict[str, Any] = pickle.load(f)
        steps = int(saved["num_timesteps"])
        config = dict(saved["config"])
    except (OSError, EOFError, pickle.UnpicklingError, KeyError, TypeError, ValueError) as e:
        detail = str(e) or type(e).__name__
        raise ConfigError(f"{run.state_file} is damaged ({detail}); {WAY_OUT}") from None
    if not run.resume_file.is_file():
        raise ConfigError(f"{run.resume_file} is missing; {WAY_OUT}")
    check_same_config(run.dir, config, dataclasses.asdict(cfg))
    # a run ends a little past its total (whole rollouts): that is not a shorter total
    if cfg.total_timesteps < steps and cfg.total_timesteps < config.get("total_timesteps", steps):
        raise ConfigError(
            f"{run.dir} has already trained {steps:,} steps, more than total_timesteps "
            f"{cfg.total_timesteps:,}; {WAY_OUT}"
        )
    imitated = int(saved.get("imitated", 0))
    if cfg.imitation_refit_epochs > 0 and imitated < cfg.imitation_samples:
        files = run.kept_files(imitated)
        lost = [path for path in files if not path.is_file()]
        if lost:
            raise ConfigError(
                f"{run.positions_dir} lacks {len(lost)} of the {len(files)} rollouts' positions "
                f"the refit learns from (first: {lost[0].name}); {WAY_OUT}"
            )
    return saved


def seed_everything(cfg: Config) -> None:
    import torch as th

    random.seed(cfg.seed)
    np.random.seed(cfg.seed)
    th.manual_seed(cfg.seed)
