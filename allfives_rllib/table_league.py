"""The snapshots at the batched engine's table: the learner's frozen policies, seated beside
the baselines (:mod:`allfives_rllib.vector_env`).

As ``train.py`` does, a snapshot is taken every ``snapshot_every`` learner steps (the first
when PPO begins, after the warm start) and sent to every env runner, whose table draws the
other seats among the baselines and the newest ``pool_size`` snapshots. Each is kept in the run
folder (``snapshots/NNNN.npz``, the NumPy actor) so that a resumed run seats them again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agents.numpy_networks import ScorerPolicy


def seat(algo: Any, policy: ScorerPolicy) -> None:
    """Seat ``policy`` at the table of every env runner (the local one too, where it plays)."""

    def add(runner: Any) -> None:
        env = getattr(runner, "env", None)
        if env is not None:
            env.unwrapped.add_snapshot(policy)

    algo.env_runner_group.foreach_env_runner(add, local_env_runner=True)


def take(algo: Any, module_id: str, folder: Path, league: dict[str, Any], steps: int) -> None:
    """Freeze the module ``module_id`` as it is now: saved in ``folder``, seated at every table,
    recorded in ``league`` (``snapshots``, ``next_index``, ``last_snapshot_step``)."""
    from agents.files import replace_whole

    policy = algo.get_module(module_id).to_numpy()
    name = f"{league['next_index']:04d}.npz"
    folder.mkdir(parents=True, exist_ok=True)
    replace_whole(folder / name, policy.to_npz())
    league["snapshots"].append(name)
    league["next_index"] += 1
    league["last_snapshot_step"] = steps
    seat(algo, policy)


def seat_saved(algo: Any, folder: Path, league: dict[str, Any]) -> None:
    """Seat every snapshot the run took, oldest first (after a resume)."""
    import io

    import numpy as np

    for name in league["snapshots"]:
        with np.load(io.BytesIO((folder / name).read_bytes())) as z:
            seat(algo, ScorerPolicy.from_arrays(z))
