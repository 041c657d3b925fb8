"""``train_rllib.py``'s run folder: what it holds, the trainer's record of the run
(``state.json``), and every file a resume reads, checked before anything is written.

A run folder (``runs/rllib/NAME``) holds ``config.yaml`` (and the marker of
:mod:`agents.training.ownership`), ``state.json`` (the counters, the evaluations, the league,
and the SHA-256 of every file of ``checkpoint/`` and ``best/``), ``checkpoint/`` (RLlib's
algorithm checkpoint), ``best/``, ``evals/``, ``snapshots/`` (the batched engine's frozen
policies), ``curve/`` (the learning curve's points, :mod:`allfives_rllib.curve`), ``tb/`` and,
at the end, ``report.json``.

:func:`load_run` refuses in one line, naming the file and the way out: a folder that holds a
run's products (``checkpoint/``, ``best/``, ``curve/``, the report) without ``state.json``;
a ``state.json`` that is not strict JSON or not the record's shape; a ``checkpoint/`` or
``best/`` that is missing or whose files are not the ones saved; a snapshot the league seats
that is missing or damaged; a ``curve/index.json`` that is damaged or lists a point that is
missing or unreadable.
"""

from __future__ import annotations

import dataclasses
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.training.config import ConfigError
from agents.training.ownership import (
    CONFIG,
    MARKER,
    FolderKind,
    config_keys,
    damaged,
    file_sha256,
)
from agents.training.run_folder import RETIRED, WAY_OUT
from allfives_env.core import strict_json
from allfives_rllib.algorithm import empty_league
from allfives_rllib.config import RLlibConfig
from allfives_rllib.curve import read_index

RLLIB_KIND = FolderKind(
    made_by="train_rllib.py",
    files=(CONFIG, MARKER, "state.json", "report.json", "*.tmp"),
    folders=(
        "checkpoint", "checkpoint.tmp", "checkpoint.old", "best", "best.tmp", "best.old",
        "evals", "tb", "snapshots", "warm_start", "curve",
    ),
    config_keys=config_keys(RLlibConfig, retired=RETIRED),
)  # fmt: skip
"""What a ``train_rllib.py`` run folder holds (:mod:`agents.training.ownership`)."""
PRODUCTS = ("checkpoint", "best", "curve", "report.json")
"""What a run writes only once it has a record: a folder that holds one of them has trained,
and is not started over without ``state.json``."""


@dataclass
class Run:
    """A run folder and the trainer's record of it (``state.json``)."""

    dir: Path
    step: int = 0
    iteration: int = 0
    seconds: float = 0.0
    next_eval: int = 0
    best_score: float = -1.0
    history: list[dict[str, Any]] = field(default_factory=list)
    league: dict[str, Any] = field(default_factory=empty_league)
    env_runners: list[dict[str, Any]] = field(default_factory=list)
    """Where the env runners ran (Ray node id and address) and the env steps each sampled."""
    checkpoint_files: dict[str, str] = field(default_factory=dict)
    """The SHA-256 of each file of ``checkpoint/``, by its path inside (none: an earlier
    version's record)."""
    best_files: dict[str, str] = field(default_factory=dict)
    """The SHA-256 of each file of ``best/``, likewise."""
    staged_best: bool = False
    """This session has made ``best.tmp`` the new ``best/``, to be swapped in with the next
    checkpoint (not part of the record)."""

    @property
    def checkpoint(self) -> Path:
        return self.dir / "checkpoint"

    @property
    def best(self) -> Path:
        return self.dir / "best"

    @property
    def report_file(self) -> Path:
        return self.dir / "report.json"

    @property
    def state_file(self) -> Path:
        return self.dir / "state.json"

    def record(self) -> bytes:
        """``state.json``'s text (written by ``train_rllib.py``'s ``save_checkpoint``, with
        the checkpoint it records)."""
        record = dataclasses.asdict(self)
        record = {k: v for k, v in record.items() if k not in ("dir", "staged_best")}
        return json.dumps(record, indent=1).encode("utf-8")


def digests(folder: Path) -> dict[str, str]:
    """The SHA-256 of every file in ``folder`` (and below), by its path inside."""
    return {
        path.relative_to(folder).as_posix(): file_sha256(path)
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


RECORD_TYPES: dict[str, tuple[type, ...]] = {
    "step": (int,), "iteration": (int,), "seconds": (int, float), "next_eval": (int,),
    "best_score": (int, float), "history": (list,), "league": (dict,), "env_runners": (list,),
    "checkpoint_files": (dict,), "best_files": (dict,),
}  # fmt: skip
"""The type of each field of ``state.json``."""


def read_record(folder: Path) -> Run:
    """The run whose record is ``folder``'s ``state.json``, its shape checked.

    Raises:
        ConfigError: if it cannot be read, is not strict JSON, or is not a run's record.
    """
    path = folder / "state.json"
    try:
        record = strict_json.loads(path.read_bytes())
    except (OSError, ValueError) as e:
        raise damaged(path, e) from None
    if not isinstance(record, dict):
        raise damaged(path, "not an object")
    for key, value in record.items():
        kinds = RECORD_TYPES.get(key)
        if kinds is None:
            raise damaged(path, f"an unknown field {key!r}")
        if not isinstance(value, kinds) or isinstance(value, bool):
            raise damaged(path, f"{key!r} is not of type {kinds[0].__name__}")
    league = record.get("league", empty_league())
    ok = (
        isinstance(league.get("snapshots"), list)
        and all(isinstance(s, str) for s in league["snapshots"])
        and all(isinstance(league.get(k), int) for k in ("next_index", "last_snapshot_step"))
    )
    if not ok:
        raise damaged(path, "its league is not a league's record")
    for key in ("checkpoint_files", "best_files"):
        files = record.get(key, {})
        if not all(isinstance(v, str) and ".." not in k.split("/") for k, v in files.items()):
            raise damaged(path, f"{key!r} is not a list of files")
    return Run(dir=folder, **record)


def check_files(folder: Path, recorded: dict[str, str], what: str) -> None:
    """Refuse ``folder`` (``what`` names it) if it is missing, or its files are not the ones
    ``recorded`` (none recorded: an earlier version's record, whose folder needs only exist).

    Raises:
        ConfigError: naming the folder (and the first file that differs) and the way out.
    """
    if not folder.is_dir():
        raise ConfigError(f"{folder} is missing: {what}; {WAY_OUT}")
    if not recorded:
        return
    try:
        held = digests(folder)
    except OSError as e:
        raise damaged(folder, e) from None
    for name in sorted(set(recorded) | set(held)):
        if held.get(name) != recorded.get(name):
            state = "missing" if name not in held else "not the file saved"
            state = "not saved with it" if name not in recorded else state
            raise damaged(folder, f"{name} is {state}")


def load_run(folder: Path, cfg: RLlibConfig) -> Run | None:
    """The run in ``folder`` to continue from, every file its resume reads checked (see the
    module docstring), or ``None`` to start one (a folder that holds none of a run's
    :data:`PRODUCTS`).

    Raises:
        ConfigError: naming the missing or damaged file, and the way out.
    """
    from agents.learned import CheckpointError
    from allfives_rllib.agent import read_spec

    if not (folder / "state.json").exists():
        made = [name for name in PRODUCTS if (folder / name).exists()]
        if made:
            raise ConfigError(
                f"{folder} holds a run ({', '.join(made)}) but not state.json, which its resume "
                f"needs; {WAY_OUT}"
            )
        return None
    run = read_record(folder)
    check_files(run.checkpoint, run.checkpoint_files, "the run goes on from it")
    if run.best_score > -1:
        check_files(run.best, run.best_files, "it holds the best module so far")
    for place in [run.checkpoint] + ([run.best] if run.best_score > -1 else []):
        try:
            read_spec(place)
        except CheckpointError as e:
            raise damaged(place, e) from None
    if cfg.engine == "batched":
        check_snapshots(folder / "snapshots", run.league["snapshots"])
    read_index(folder)  # the curve's points, which the run keeps
    return run


def check_snapshots(folder: Path, names: list[str]) -> None:
    """Read each snapshot of the batched engine's league that a resume seats again.

    Raises:
        ConfigError: naming the first one missing or damaged.
    """
    import numpy as np

    from agents.numpy_networks import ScorerPolicy

    for name in names:
        path = folder / name
        if "/" in name or not path.is_file():
            raise ConfigError(f"{path} is missing: the league seats it; {WAY_OUT}")
        try:
            with np.load(io.BytesIO(path.read_bytes())) as z:
                ScorerPolicy.from_arrays(z)
        except (OSError, ValueError, KeyError, EOFError, TypeError) as e:
            raise damaged(path, e) from None


def resume_message(run: Run, cfg: RLlibConfig) -> str:
    """Where the run goes on from, truthfully (after its warm start, on the batched
    engine)."""
    warm = ""
    if cfg.engine == "batched" and cfg.imitation_samples > 0:
        warm = f", after its warm start ({cfg.imitation_samples:,} imitation samples)"
    if run.step >= cfg.total_timesteps:
        return f"resuming {run.dir} from step {run.step:,}{warm}: its final evaluation"
    return f"resuming {run.dir} from step {run.step:,} of {cfg.total_timesteps:,}{warm}"
