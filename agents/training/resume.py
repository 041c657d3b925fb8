"""``train.py``'s resume points: everything needed to continue a run bit for bit (the network
and its optimizer, the pool, the games in the middle of play, the counters and every
generator's state), saved after each update (with the SHA-256 of ``resume.zip`` in
``state.pkl``, so that a rerun can tell they belong together), and put back on a rerun, once
:mod:`agents.training.resume_check` has read and checked every file it needs.
"""

from __future__ import annotations

import dataclasses
import io
import os
import pickle
import random
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.training.ownership import damaged, file_sha256

if TYPE_CHECKING:
    from agents.training.learner import Learner
    from agents.training.selfplay_config import Config


def save_resume_point(learner: Learner) -> None:
    """Everything needed to continue exactly from here (written atomically)."""
    import torch as th

    from agents.learned import write_checkpoint

    run, batch = learner.run, learner.batch
    trainer = io.BytesIO()
    th.save(  # read back onto any device (map_location)
        {"net": learner.net.state_dict(), "optimizer": learner.optimizer.state_dict()}, trainer
    )
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
        "curve": run.curve,
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
    state["resume_sha256"] = file_sha256(tmp)  # the resume.zip this state goes with
    with open(run.dir / "state.pkl.tmp", "wb") as f:
        pickle.dump(state, f)
    os.replace(tmp, run.resume_file)
    os.replace(run.dir / "state.pkl.tmp", run.state_file)


def restore(learner: Learner, saved: dict[str, Any]) -> None:
    """Put ``learner`` (freshly built) back in the saved state, as
    :func:`~agents.training.resume_check.check_resume_files` read it.

    Raises:
        ConfigError: if the saved network does not fit the config's (a damaged resume point
            of an earlier version, which recorded no SHA-256 of ``resume.zip``).
    """
    import torch as th

    run, pool = learner.run, learner.pool
    trainer = saved["trainer_state"]
    try:
        learner.net.load_state_dict(trainer["net"])
        learner.optimizer.load_state_dict(trainer["optimizer"])
    except (RuntimeError, ValueError, KeyError, TypeError) as e:
        raise damaged(run.resume_file, e) from None
    learner.sync_actor()
    for policy in saved["pool_policies"]:
        pool.add(policy)
    learner.batch = saved["table_object"]
    learner.batch.set_lineup(pool.agents, pool.pick)
    learner.teacher_rng = saved["teacher_rng"]
    run.step = saved["num_timesteps"]
    run.imitated = saved["imitated"]
    run.history = saved["history"]
    run.best_score = saved["best_score"]
    run.next_snapshot = saved["next_snapshot"]
    run.next_eval = saved["next_eval"]
    run.curve = list(saved.get("curve", []))  # (an earlier version's resume point: none)
    run.timing = saved["timing"]
    run.seconds = saved["seconds"]
    random.setstate(saved["rng"]["python"])
    np.random.set_state(saved["rng"]["numpy"])
    th.set_rng_state(saved["rng"]["torch"])


def seed_everything(cfg: Config) -> None:
    import torch as th

    random.seed(cfg.seed)
    np.random.seed(cfg.seed)
    th.manual_seed(cfg.seed)
