"""A run's learning curve, as every trainer of the project keeps it: the policy being trained,
saved at ``K`` points of its budget.

With ``K = curve_points > 0`` and a budget ``B`` (in the trainer's unit of progress: env
steps, PPO steps, frames or episodes), threshold ``k`` (``k = 1..K``) is ``B·k/K``. The trainer
asks :func:`due` at each moment it can save (the end of an update, an iteration or an episode)
and saves one point at the first such moment at or after a threshold; that point serves every
threshold it reached (:func:`crossed`), so a run whose moments are coarser than ``B/K`` has
fewer points. The run's end reaches ``B``, so its last point is the final policy.

On disk, in the run's (or policy's) folder:

- ``curve/`` (:data:`CURVE`) holds one point per threshold reached, named by the run's env
  steps then, 12 digits zero-padded (:func:`point_name`): a policy folder that an agent kind
  plays (``train_rllib.py``, the policy trainers of :mod:`agents.training.policy_trainer`) or a
  ``.zip`` checkpoint (``train.py``);
- ``curve/index.json`` (:data:`INDEX`) lists them, written whole after each point
  (:func:`write_index`)::

      {"points": [{"env_steps": 200000, "agent": "rllib:curve/000000200000"}, ...]}

  ``env_steps`` strictly increasing; each ``agent`` an agent spec whose path is relative to the
  run folder (:func:`point_path`): ``KIND:curve/NNNNNNNNNNNN`` for a folder,
  ``curve/NNNNNNNNNNNN.zip`` for ``train.py``'s checkpoint.

What stays each trainer's own: how it writes one point, its agent spec, and what it reads back
on a resume (:mod:`allfives_rllib.curve` checks every point it lists).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.files import replace_whole
from agents.training.config import Check, ConfigError

CURVE = "curve"
"""The run folder's folder of curve points (and of their index)."""
INDEX = "index.json"
"""The list of points, in :data:`CURVE`."""
MAX_POINTS = 1000
"""The most points (``curve_points``) a run may ask for."""

Point = dict[str, Any]
"""One point of the index: ``{"env_steps": int, "agent": str}``."""


def points_check(points: int) -> Check:
    """The check of a config's ``curve_points`` (0 to :data:`MAX_POINTS`), for
    :func:`agents.training.config.raise_first`: its message is ``config 'curve_points' must be
    from 0 to 1000, not VALUE``."""
    return (0 <= points <= MAX_POINTS, "curve_points", f"from 0 to {MAX_POINTS}")


def check_points(points: int, flag: str = "--curve_points") -> None:
    """Refuse ``points`` outside 0 to :data:`MAX_POINTS` (the rule of :func:`points_check`),
    given on the command line as ``flag``.

    Raises:
        ConfigError: ``FLAG must be from 0 to 1000, not VALUE``.
    """
    ok, _, what = points_check(points)
    if not ok:
        raise ConfigError(f"{flag} must be {what}, not {points}")


def point_name(env_steps: int) -> str:
    """The name of the point at ``env_steps`` in :data:`CURVE`: 12 digits, zero-padded (a
    trainer that saves a file adds its suffix)."""
    return f"{env_steps:012d}"


def point_path(env_steps: int, suffix: str = "") -> str:
    """The path of the point at ``env_steps`` relative to the run folder, in POSIX form
    (``curve/000000200000`` plus ``suffix``): what its agent spec names."""
    return f"{CURVE}/{point_name(env_steps)}{suffix}"


def crossed(steps: int, total: int, points: int) -> int:
    """How many of the thresholds ``total·k/points`` (``k = 1..points``) progress ``steps`` has
    reached: the k with ``total·k ≤ steps·points``, exactly, in integers (at most ``points``;
    0 when ``points`` or ``total`` is not positive)."""
    if points <= 0 or total <= 0:
        return 0
    return min(points, steps * points // total)


def due(last: int, now: int, total: int, points: int) -> bool:
    """Whether a point is to be saved at progress ``now`` (a moment the trainer can save),
    the previous moment (or point) having been at ``last`` (0: the run's start): a threshold
    lies after ``last`` and at or before ``now`` (:func:`crossed`). Never with ``points``
    0."""
    return crossed(now, total, points) > crossed(last, total, points)


def with_point(points: Sequence[Point], point: Point) -> list[Point]:
    """``points`` with ``point`` added as the last: any point at or beyond its env steps (one
    that a stopped run saved and is now saving anew) is dropped first."""
    steps = point["env_steps"]
    return [p for p in points if p["env_steps"] < steps] + [point]


def index_file(run_dir: Path) -> Path:
    """``run_dir``'s ``curve/index.json``."""
    return run_dir / CURVE / INDEX


def write_index(run_dir: Path, points: Sequence[Point], newline: bool = False) -> None:
    """Write ``run_dir``'s ``curve/index.json`` whole (:func:`agents.files.replace_whole`):
    ``{"points": points}`` as JSON indented by 1, ending in a newline if ``newline`` (as
    ``train.py`` writes it). ``curve/`` must exist.

    Raises:
        OSError: if it cannot be written.
    """
    text = json.dumps({"points": list(points)}, indent=1) + ("\n" if newline else "")
    replace_whole(index_file(run_dir), text.encode("utf-8"))
