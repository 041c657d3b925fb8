"""What a rerun of ``train.py`` reads, checked before anything is written: the run folder's
config, its resume point, and every other file the run goes on from.

:func:`load_resume_point` reads ``state.pkl`` (its keys and their types) and checks
``config.yaml`` (as the trainer wrote it: a hand edit is refused, never overwritten) and the
config given now; :func:`check_resume_files`, for a run that goes on, reads ``resume.zip`` (its
SHA-256 as ``state.pkl`` recorded it, its members), the pool and the games in ``state.pkl``,
the checkpoints the end of the run reads, and the warm start's kept positions. A folder that
holds a run's products (:data:`PRODUCTS`) without ``state.pkl`` is refused: it is not started
over. Each refusal is one line naming the file and the way out.
"""

from __future__ import annotations

import dataclasses
import io
import pickle
import zipfile
from typing import TYPE_CHECKING, Any

from agents.training.config import ConfigError
from agents.training.ownership import CONFIG, config_record, damaged, file_sha256, read_marker
from agents.training.run import Run
from agents.training.run_folder import MAY_CHANGE, WAY_OUT, check_same_config
from agents.training.selfplay_config import RUN_KIND

if TYPE_CHECKING:
    from agents.training.selfplay_config import Config

PRODUCTS = ("resume.zip", "best.zip", "report.json", "learning_curve.png")
"""What a run writes only once it has a resume point: a folder that holds one of them has
trained, and is not started over without ``state.pkl``."""
STATE_KEYS: dict[str, type] = {
    "config": dict, "num_timesteps": int, "imitated": int, "history": list, "best_score": float,
    "next_snapshot": int, "next_eval": int, "timing": dict, "seconds": float, "pool": list,
    "table": bytes, "rng": dict,
}  # fmt: skip
"""What ``state.pkl`` holds, and of which type (``teacher_rng`` besides, of no fixed type;
``curve`` where a version that keeps one saved it: :func:`check_curve`)."""
ADDED: dict[str, Any] = {"curve_points": 0}
"""Fields this version's config has and an earlier version's saved config lacks, each with the
value its runs trained with (a run of that version goes on with it)."""


def read_state(run: Run) -> dict[str, Any]:
    """``state.pkl``, its keys and their types checked (:data:`STATE_KEYS`).

    Raises:
        ConfigError: if it cannot be read or is damaged.
    """
    try:
        with open(run.state_file, "rb") as f:
            saved = pickle.load(f)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError) as e:
        raise damaged(run.state_file, e) from None
    except (KeyError, TypeError, ValueError, IndexError, MemoryError) as e:
        raise damaged(run.state_file, e) from None
    if not isinstance(saved, dict):
        raise damaged(run.state_file, "not a resume point")
    for key, kind in STATE_KEYS.items():
        value = saved.get(key)
        fits = isinstance(value, kind) or (kind is float and isinstance(value, int))
        if not fits or isinstance(value, bool):
            raise damaged(run.state_file, f"no {key!r} of type {kind.__name__}")
    if "teacher_rng" not in saved:
        raise damaged(run.state_file, "no 'teacher_rng'")
    check_curve(run, saved.get("curve", []))
    return saved


def check_curve(run: Run, curve: object) -> None:
    """Check the learning curve's points that ``state.pkl`` holds (``[]`` where it holds none:
    a resume point of an earlier version): a list of ``{"env_steps": int, "agent": str}``.

    Raises:
        ConfigError: if they are damaged.
    """
    fine = isinstance(curve, list) and all(
        isinstance(p, dict)
        and set(p) == {"env_steps", "agent"}
        and type(p["env_steps"]) is int
        and isinstance(p["agent"], str)
        for p in curve
    )
    if not fine:
        raise damaged(run.state_file, "its 'curve' is not a list of points")


def check_config_file(run: Run, saved: dict[str, Any], now: dict[str, Any]) -> None:
    """Refuse a ``config.yaml`` that is not the one the trainer wrote
    (:func:`agents.training.ownership.config_record`). In a folder of an earlier version (no
    marker to hold its SHA-256) it must hold the config ``state.pkl`` recorded (a field a rerun
    may change: that one, or the one given now).

    Raises:
        ConfigError: naming the file, and the fields edited.
    """
    written = config_record(run.dir, RUN_KIND)
    if written is None:
        raise ConfigError(f"{run.dir / CONFIG} is missing: it holds the run's config; {WAY_OUT}")
    if read_marker(run.dir) is not None:
        return
    record = saved["config"]
    edited = sorted(
        k for k in set(written) | set(record)
        if written.get(k) != record.get(k)
        and not (k in MAY_CHANGE and written.get(k) == now.get(k))
    )  # fmt: skip
    if edited:
        raise ConfigError(
            f"{run.dir / CONFIG} was edited ({', '.join(edited)} changed): the run's config "
            f"cannot change in its folder; undo the edit, or {WAY_OUT}"
        )


def load_resume_point(run: Run, cfg: Config) -> dict[str, Any] | None:
    """The saved state of ``run`` to continue from, or ``None`` to start it (a folder that
    holds none of a run's :data:`PRODUCTS`).

    Raises:
        ConfigError: if the run was started with another config (bar
            :data:`~agents.training.run_folder.MAY_CHANGE`: a larger ``total_timesteps``, the
            process counts; a field its version lacked counts at its :data:`ADDED` value),
            its ``config.yaml`` was edited, or ``state.pkl`` or ``resume.zip`` is missing or
            damaged; each message names the file and the way out (``--fresh``, or another
            ``--name``).
    """
    now = dataclasses.asdict(cfg)
    if not run.state_file.exists():
        config_record(run.dir, RUN_KIND)  # a hand edit is never overwritten
        made = [name for name in PRODUCTS if (run.dir / name).exists()]
        if made:
            raise ConfigError(
                f"{run.dir} holds a run ({', '.join(made)}) but not {run.state_file.name}, "
                f"which its resume needs; {WAY_OUT}"
            )
        return None
    saved = read_state(run)
    check_config_file(run, saved, now)
    if not run.resume_file.is_file():
        raise ConfigError(f"{run.resume_file} is missing; {WAY_OUT}")
    check_same_config(run.dir, ADDED | saved["config"], now)
    steps = saved["num_timesteps"]
    # a run ends a little past its total (whole rollouts): that is not a shorter total
    total = saved["config"].get("total_timesteps", steps)
    if cfg.total_timesteps < steps and cfg.total_timesteps < total:
        raise ConfigError(
            f"{run.dir} has already trained {steps:,} steps, more than total_timesteps "
            f"{cfg.total_timesteps:,}; {WAY_OUT}"
        )
    return saved


def check_resume_files(run: Run, cfg: Config, saved: dict[str, Any]) -> None:
    """Read every other file the run reads to go on, before anything is written, and keep in
    ``saved`` what it is restored from (``trainer_state``, ``pool_policies``,
    ``table_object``): ``resume.zip`` (its SHA-256 as recorded, its members), the pool and the
    games in ``state.pkl``, ``best.zip`` once an evaluation kept one, ``latest.zip`` where
    only the end of the run is left, and the warm start's kept positions
    (:func:`check_kept_positions`).

    Raises:
        ConfigError: naming the first file missing or damaged, and the way out.
    """
    import torch as th

    from agents.learned import CheckpointError, read_checkpoint, read_checkpoint_files
    from agents.numpy_networks import policy_from_npz

    try:
        _, files = read_checkpoint_files(run.resume_file, "trainer.pt")
        if "trainer.pt" not in files:
            raise ValueError("it holds no trainer.pt")
        trainer = th.load(io.BytesIO(files["trainer.pt"]), map_location="cpu", weights_only=False)
    except (CheckpointError, ValueError, RuntimeError, EOFError, pickle.UnpicklingError) as e:
        raise damaged(run.resume_file, e) from None
    if not isinstance(trainer, dict) or not {"net", "optimizer"} <= set(trainer):
        raise damaged(run.resume_file, "its trainer.pt holds no network and optimizer")
    recorded = saved.get("resume_sha256")  # (a resume point of an earlier version: none)
    if recorded is not None and file_sha256(run.resume_file) != recorded:
        raise damaged(run.resume_file, "it is not the resume.zip that state.pkl was saved with")
    try:
        policies = [policy_from_npz(data) for data in saved["pool"]]
        table = pickle.loads(saved["table"])
    except (ValueError, TypeError, EOFError, pickle.UnpicklingError, AttributeError) as e:
        raise damaged(run.state_file, e) from None
    saved |= {"trainer_state": trainer, "pool_policies": policies, "table_object": table}
    ended = saved["num_timesteps"] >= cfg.total_timesteps
    ended = ended and saved["imitated"] >= cfg.imitation_samples
    needed = [run.best] if saved["best_score"] > -1 else []
    needed += [run.latest] if ended and saved["history"] else []
    for path in needed:
        if not path.is_file():
            raise ConfigError(f"{path} is missing: the run reads it at its end; {WAY_OUT}")
        try:
            read_checkpoint(path)
        except CheckpointError as e:
            raise damaged(path, e) from None
    check_kept_positions(run, cfg, saved["imitated"])


def check_kept_positions(run: Run, cfg: Config, imitated: int) -> None:
    """Where the refit is still to come, check that every rollout of the warm start's first
    ``imitated`` steps left its positions, whole.

    Raises:
        ConfigError: naming how many are missing (the first of them), or the first damaged.
    """
    if cfg.imitation_refit_epochs == 0 or imitated >= cfg.imitation_samples:
        return
    files = run.kept_files(imitated)
    lost = [path for path in files if not path.is_file()]
    if lost:
        raise ConfigError(
            f"{run.positions_dir} lacks {len(lost)} of the {len(files)} rollouts' positions the "
            f"refit learns from (first: {lost[0].name}); {WAY_OUT}"
        )
    for path in files:
        try:
            with zipfile.ZipFile(path) as z:
                bad = z.testzip()
        except (OSError, zipfile.BadZipFile, EOFError, ValueError) as e:
            raise damaged(path, e) from None
        if bad is not None:
            raise damaged(path, f"{bad} fails its check")


def resume_message(run: Run, cfg: Config, saved: dict[str, Any]) -> str:
    """Where the run in ``saved`` goes on from, truthfully: ``resuming FOLDER from step N``
    of the warm start, or of PPO (after the warm start, if any), or at the end of PPO."""
    imitated, steps = saved["imitated"], saved["num_timesteps"]
    if imitated < cfg.imitation_samples:
        return (
            f"resuming {run.dir} from step {imitated:,} of the warm start's "
            f"{cfg.imitation_samples:,} (imitation; then {cfg.total_timesteps:,} steps of PPO)"
        )
    warm = f", after the warm start ({imitated:,} imitation samples)" if imitated else ""
    end = ": only its final evaluation is left" if steps >= cfg.total_timesteps else ""
    return f"resuming {run.dir} from step {steps:,} of PPO's {cfg.total_timesteps:,}{warm}{end}"
