"""A ``train_rllib.py`` run's learning curve: the module being trained, saved at
``curve_points`` points of its budget, each an agent that ``rllib:PATH`` plays. The thresholds,
the names, the index and the rule of when a point is due are :mod:`agents.training.curve`'s;
this module keeps what is RLlib's own: how a point is written, its agent spec, the check of
every point on reading the index, and the resume.

With ``K = curve_points > 0`` and ``B = total_timesteps``, the trainer saves the module at the
first iteration boundary at or after each of the env steps ``B·k/K`` (``k = 1..K``; the warm
start's imitation samples are not env steps), into ``curve/<env steps, 12 digits>/`` of the run
folder (:func:`allfives_rllib.agent.write_agent_folder`: what ``best/`` and ``evals/`` hold).
The last point is the final weights, at the boundary that reaches ``B``. An iteration that
crosses several thresholds saves one point: a run of fewer iterations than ``K`` has fewer
points.

``curve/index.json`` lists them, written whole after each point::

    {"points": [{"env_steps": 200000, "agent": "rllib:curve/000000200000"}, ...]}

(each ``agent`` is relative to the run folder; ``env_steps`` strictly increasing). A resumed
run keeps the points up to the step it goes on from (a point saved after its last checkpoint
is dropped, and saved again as the run gets there) and continues from there.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from agents.training.config import ConfigError
from agents.training.curve import (
    CURVE,
    INDEX,
    Point,
    index_file,
    point_name,
    point_path,
    with_point,
    write_index,
)
from agents.training.curve import due as point_due
from agents.training.ownership import damaged
from agents.training.run_folder import WAY_OUT
from allfives_env.core import strict_json

__all__ = ["Curve", "Point", "point", "read_index", "write_index"]


def point(env_steps: int) -> Point:
    """The index entry of the point at ``env_steps`` (its agent spec relative to the run)."""
    return {"env_steps": env_steps, "agent": f"rllib:{point_path(env_steps)}"}


def read_index(run_dir: Path) -> list[Point]:
    """The points of ``run_dir``'s ``curve/index.json`` (none if it is missing), each point's
    folder a checkpoint that ``rllib:`` plays.

    Raises:
        ConfigError: naming the file (or folder) that is damaged or missing, and the way out.
    """
    from agents.learned import CheckpointError
    from allfives_rllib.agent import read_spec, resolve

    path = index_file(run_dir)
    if not path.exists():
        return []
    try:
        record = strict_json.loads(path.read_bytes())
    except (OSError, ValueError) as e:
        raise damaged(path, e) from None
    points = record.get("points") if isinstance(record, dict) else None
    if not isinstance(points, list) or set(record) != {"points"}:
        raise damaged(path, 'not {"points": [...]}')
    last = 0
    for entry in points:
        steps = entry.get("env_steps") if isinstance(entry, dict) else None
        if type(steps) is not int or steps <= last or entry != point(steps):
            raise damaged(path, f"{entry!r} is not a point after step {last:,}")
        last = steps
        folder = run_dir / CURVE / point_name(steps)
        if not folder.is_dir():
            raise ConfigError(f"{folder} is missing: curve/index.json lists it; {WAY_OUT}")
        try:
            read_spec(resolve(folder))
        except CheckpointError as e:
            raise damaged(folder, e) from None
    return points


class Curve:
    """The curve points of a run as it trains (see the module docstring).

    ``points`` are the ones kept so far (the last one's env steps is where the next threshold
    is counted from); with ``wanted`` 0 nothing is ever due.
    """

    def __init__(self, run_dir: Path, total: int, wanted: int, points: list[Point]):
        self.run_dir = run_dir
        self.total = total
        self.wanted = wanted
        self.points = list(points)

    @classmethod
    def resume(cls, run_dir: Path, total: int, wanted: int, step: int) -> Curve:
        """The curve of a run going on from ``step`` (0: a new run): the points of its index
        up to ``step``; the folders of any others (saved after the last checkpoint, or half
        written) are removed, and the index rewritten without them.

        Raises:
            ConfigError: for a damaged index (:func:`read_index`).
        """
        points = [p for p in read_index(run_dir) if p["env_steps"] <= step]
        curve = cls(run_dir, total, wanted, points)
        folder = run_dir / CURVE
        if folder.is_dir():
            keep = {point_name(p["env_steps"]) for p in points} | {INDEX}
            for child in folder.iterdir():
                if child.name not in keep:
                    if child.is_dir():
                        shutil.rmtree(child)
                    else:
                        child.unlink()
            write_index(run_dir, points)
        return curve

    def due(self, env_steps: int) -> bool:
        """Whether a point is to be saved at ``env_steps`` (an iteration boundary): a threshold
        lies after the last point (the run's start if none) and at or before it
        (:func:`agents.training.curve.due`)."""
        last = self.points[-1]["env_steps"] if self.points else 0
        return point_due(last, env_steps, self.total, self.wanted)

    def save(self, module: Any, spec: Any, env_steps: int) -> Point:
        """Save ``module`` (the module being trained, as it is now; ``spec``: its
        :class:`~agents.learned.PolicySpec`) as the point at ``env_steps``: written into
        ``curve/NAME.tmp``, renamed, then added to the index, which is written whole."""
        from allfives_rllib.agent import write_agent_folder

        entry = point(env_steps)
        folder = self.run_dir / CURVE / point_name(env_steps)
        tmp = folder.with_name(folder.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        write_agent_folder(tmp, module, spec)
        shutil.rmtree(folder, ignore_errors=True)
        os.replace(tmp, folder)
        self.points[:] = with_point(self.points, entry)
        write_index(self.run_dir, self.points)
        return entry
