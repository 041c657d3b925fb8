"""Which folders a trainer made, and so may write into or delete: the marker a run folder
holds, how a folder is recognised, and the one-line refusals.

Every trainer writes into a folder of its own (``train.py``: ``runs/NAME``; ``train_rllib.py``:
``runs/rllib/NAME``; expert iteration: ``runs/NAME`` and a ``train.py`` folder per round; the
policy trainers: ``--out``). A folder is the trainer's when

- it holds the trainer's marker, :data:`MARKER` (written first, when a run begins: who made
  the folder and, for a trainer with a ``config.yaml``, the config and the SHA-256 of the
  ``config.yaml`` it wrote), or, for a folder of an earlier version without one, the files
  that version began with (``config.yaml`` of the trainer's keys naming the folder, or a
  policy's two files); and
- every entry in it is one the trainer writes (:attr:`FolderKind.files` and
  :attr:`FolderKind.folders`; a subfolder that is a run folder itself, as expert iteration's
  rounds, is checked the same way).

:func:`check_folder` refuses, in one line naming the entry, a folder that is not the trainer's:
a file, a link, a folder of another trainer, or one that holds anything the trainer does not
write. So ``--fresh`` deletes only what a trainer made, and a run never writes into a user's
folder (an empty folder is taken as it is).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.files import replace_whole
from agents.training.config import ConfigError, strict_yaml, yaml_problem
from allfives_env.core import strict_json

MARKER = "allfives_run.json"
"""The file that says a folder is a trainer's run folder (strict JSON: ``made_by``, and with a
config, ``config`` and ``config_sha256``)."""
CONFIG = "config.yaml"
"""A run's config, as the trainer wrote it (for the user to read; never to edit)."""
WAY_OUT = "use --fresh to start it over, or another --name"
"""What a refused run folder's message ends with."""


def damaged(path: Path, detail: object) -> ConfigError:
    """The one line for a damaged file (or folder) ``path`` of a run folder: what is wrong
    with it, on one line and cut to 200 characters, and the way out (:data:`WAY_OUT`)."""
    text = " ".join(str(detail).split())[:200] or type(detail).__name__
    return ConfigError(f"{path} is damaged ({text}); {WAY_OUT}")


LEGACY_KEYS = ("name", "preset", "num_players", "seed", "total_timesteps", "learning_rate")
"""Keys every ``config.yaml`` an earlier version of a trainer wrote holds (beside ``name``,
the folder's own name): how such a folder is recognised without a marker."""


@dataclass(frozen=True)
class FolderKind:
    """What a trainer's run folder holds: how the marker and the messages name the trainer,
    the names (``fnmatch`` patterns) of the files and folders it writes at the top, the
    subfolders that are run folders of another kind, and how a folder of an earlier version
    (without a marker) is recognised."""

    made_by: str
    """The trainer, as the marker records it and the messages name it."""
    files: tuple[str, ...]
    """The files a run writes (``*.tmp``: a file being replaced, left by a kill)."""
    folders: tuple[str, ...] = ()
    """The folders a run writes, whose insides are the trainer's own."""
    runs: tuple[tuple[str, FolderKind], ...] = ()
    """Subfolders that are run folders themselves, with their kind (checked in turn)."""
    legacy_files: tuple[str, ...] = (CONFIG,)
    """The files a folder of an earlier version (no marker) holds from its start."""
    config_keys: tuple[str, ...] = ()
    """The keys this trainer's ``config.yaml`` may hold (its config's fields, and retired
    ones); empty: it writes none."""
    option: str = "--name"
    """The flag that names another folder (``--name``, ``--out``)."""


def sha256(data: bytes) -> str:
    """The SHA-256 of ``data``, in hex."""
    return hashlib.sha256(data).hexdigest()


def file_sha256(path: Path) -> str:
    """The SHA-256 of the file at ``path``, in hex, read in blocks.

    Raises:
        OSError: if it cannot be read.
    """
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def read_marker(folder: Path) -> dict[str, Any] | None:
    """The marker of ``folder`` (``None`` if it has none).

    Raises:
        ConfigError: if it is damaged (not strict JSON, not an object naming ``made_by``).
    """
    path = folder / MARKER
    if not path.exists():
        return None
    try:
        marker = strict_json.loads(path.read_bytes())
    except (OSError, ValueError) as e:
        raise ConfigError(
            f"{path} is damaged ({e}): the folder cannot be recognised as a run folder; move it "
            "away or give another --name"
        ) from None
    digests = marker.get("config_sha256", []) if isinstance(marker, dict) else None
    if (
        not isinstance(marker, dict)
        or not isinstance(marker.get("made_by"), str)
        or not isinstance(digests, list)
        or not all(isinstance(d, str) for d in digests)
        or not isinstance(marker.get("config", {}), dict)
    ):
        raise ConfigError(
            f"{path} is damaged (not a run folder's marker): the folder cannot be recognised "
            "as a run folder; move it away or give another --name"
        )
    return marker


def write_marker(
    folder: Path, kind: FolderKind, config: Mapping[str, Any] | None, config_text: bytes = b""
) -> None:
    """Write ``folder``'s marker: made by ``kind``'s trainer and, with a ``config``, the
    config and the SHA-256 of ``config_text`` (the ``config.yaml`` about to be written) and
    of the one before it (so that a kill between the two writes leaves a folder that is
    still recognised)."""
    record: dict[str, Any] = {"made_by": kind.made_by}
    if config is not None:
        before: list[str] = []
        try:
            old = read_marker(folder)
            before = list(old.get("config_sha256", []))[:1] if old else []
        except ConfigError:
            pass
        digests = [sha256(config_text), *[d for d in before if d != sha256(config_text)]]
        record |= {"config_sha256": digests, "config": dict(config)}
    replace_whole(folder / MARKER, (json.dumps(record, indent=1) + "\n").encode("utf-8"))


def _matches(name: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


def foreign_entry(folder: Path, kind: FolderKind) -> str | None:
    """The first entry of ``folder`` (a folder that exists) that a run of ``kind`` does not
    write, as a message names it (a run subfolder's, with its path), or ``None``."""
    for entry in sorted(folder.iterdir()):
        name = entry.name
        if entry.is_symlink():
            return f"{name} (a link)"
        if entry.is_dir():
            inner = next((k for p, k in kind.runs if fnmatch.fnmatchcase(name, p)), None)
            if inner is not None:
                if made_by(entry, inner) is None:
                    return f"{name}/ (not a {inner.made_by} run folder)"
                found = foreign_entry(entry, inner)
                if found is not None:
                    return f"{name}/{found}"
            elif not _matches(name, kind.folders):
                return f"{name}/"
        elif not entry.is_file() or not _matches(name, kind.files):
            return name
    return None


def made_by(folder: Path, kind: FolderKind) -> str | None:
    """Who made ``folder`` (an existing folder), as far as ``kind``'s trainer can tell: its
    marker's ``made_by``, else ``kind.made_by`` for a folder of an earlier version of it (see
    the module docstring), else ``None``.

    Raises:
        ConfigError: if its marker is damaged.
    """
    marker = read_marker(folder)
    if marker is not None:
        return str(marker["made_by"])
    if not kind.legacy_files or not all((folder / f).is_file() for f in kind.legacy_files):
        return None
    if CONFIG not in kind.legacy_files:
        return kind.made_by
    import yaml

    try:
        config = strict_yaml((folder / CONFIG).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):  # not a config the trainer wrote
        return None
    if (
        isinstance(config, dict)
        and config.get("name") == folder.name
        and all(k in config for k in LEGACY_KEYS)
        and all(k in kind.config_keys for k in config)
    ):
        return kind.made_by
    return None


def check_folder(folder: Path, kind: FolderKind, fresh: bool) -> bool:
    """Whether ``folder`` holds a run of ``kind``'s trainer (``False``: it does not exist or is
    empty, and the run may begin in it).

    Raises:
        ConfigError: in one line, naming the reason and the way out (nothing is touched), if
            ``folder`` is a file, a link to nothing (or, with ``fresh``, a link), cannot be
            read, was made by another trainer, holds no marker and is no earlier version's
            run folder, or holds an entry the trainer does not write; ``fresh`` says which
            flag would have deleted it.
    """
    does = "--fresh deletes only a run folder" if fresh else "a run writes only into a folder"
    way_out = f"give another {kind.option}"
    if folder.is_symlink() and (fresh or not folder.exists()):  # a run may go on in a link
        raise ConfigError(f"{folder} is a link: {does} that the trainer made; {way_out}")
    if not folder.exists():
        return False
    if not folder.is_dir():
        raise ConfigError(f"{folder} is a file, not a run folder; {way_out}")
    try:
        if not any(folder.iterdir()):
            return False
        who = made_by(folder, kind)
        found = foreign_entry(folder, kind) if who == kind.made_by else None
    except OSError as e:
        raise ConfigError(f"cannot read {folder} ({e.strerror or e}); {way_out}") from None
    if who is None:
        raise ConfigError(
            f"{folder} is not a {kind.made_by} run folder (it holds no {MARKER}): {does} "
            f"that {kind.made_by} made; {way_out}, or move the folder away"
        )
    if who != kind.made_by:
        raise ConfigError(
            f"{folder} holds a run of {who}, not of {kind.made_by}: {does} that "
            f"{kind.made_by} made; {way_out}"
        )
    if found is not None:
        raise ConfigError(
            f"{folder} holds {found}, which no {kind.made_by} run writes: {does} whose every "
            f"file the trainer made; move it away, or {way_out}"
        )
    return True


def config_record(folder: Path, kind: FolderKind) -> dict[str, Any] | None:
    """The config the run in ``folder`` was last given, as its trainer recorded it (the
    marker's, or, in an earlier version's folder, ``config.yaml``'s); ``None`` where the folder
    holds no config yet.

    ``config.yaml`` must be what the trainer wrote: a hand edit is never taken (the run would
    not be what its folder says) and never overwritten.

    Raises:
        ConfigError: naming the file, if ``config.yaml`` is missing where the marker says one
            was written, is damaged (not YAML, a key given twice, not a mapping, a key the
            trainer never writes), or was edited (its SHA-256 is not the one the trainer
            wrote; the message names the fields that differ).
    """
    import yaml

    path = folder / CONFIG
    marker = read_marker(folder)
    digests = marker.get("config_sha256", []) if marker is not None else []
    if not path.exists():
        if digests:
            raise ConfigError(f"{path} is missing: it holds the run's config; {WAY_OUT}")
        return None
    try:
        data = path.read_bytes()
        config = strict_yaml(data.decode("utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise ConfigError(f"{path} is damaged ({yaml_problem(e)}); {WAY_OUT}") from None
    if not isinstance(config, dict):
        raise ConfigError(f"{path} is damaged (not a mapping of field: value); {WAY_OUT}")
    unknown = [str(k) for k in config if k not in kind.config_keys]
    if unknown:
        raise ConfigError(
            f"{path} holds {', '.join(map(repr, unknown))}, which {kind.made_by} never writes "
            f"(edited by hand?); undo the edit, or {WAY_OUT}"
        )
    if marker is None or not digests:
        return config
    saved: dict[str, Any] = marker["config"]
    if sha256(data) not in digests:
        diff = sorted(k for k in set(saved) | set(config) if saved.get(k) != config.get(k))
        what = f"{', '.join(diff)} changed" if diff else "its text changed"
        raise ConfigError(
            f"{path} was edited ({what}): a run's config cannot change in its folder; undo "
            f"the edit, or {WAY_OUT}"
        )
    return saved


def config_keys(*kinds: type, retired: Iterable[str] = ()) -> tuple[str, ...]:
    """The field names of the dataclasses ``kinds`` and the ``retired`` ones: the keys a
    trainer's ``config.yaml`` may hold."""
    names = [f.name for k in kinds for f in dataclasses.fields(k)]
    return tuple(dict.fromkeys([*names, *retired]))
