"""Learned agents: a policy network trained by ``train.py``, run in NumPy.

A checkpoint is a ``.zip`` holding ``allfives.json`` (the rules and the observation options the
policy was trained with) and ``allfives_policy.npz`` (the actor's weights, see
:mod:`agents.numpy_networks`); :func:`write_checkpoint` writes one, and may add files of its own (a
trainer's state). Playing needs only NumPy: :func:`load_learned` reads those two files, so
``allfives eval`` and ``allfives play`` run a learned agent without torch. Checkpoints of
allfives 0.1 (sb3-contrib's ``MaskablePPO.save`` with the two files added) load too.
"""

from __future__ import annotations

import dataclasses
import io
import json
import random
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from agents.errors import AgentError
from agents.files import replace_whole
from agents.numpy_networks import (
    Policy,
    ScorerPolicy,
    check_weights,
    choose,
    policy_from_npz,
    uniform,
)
from allfives_env.core import strict_json
from allfives_env.core.actions import DRAW_ID, Action
from allfives_env.core.rules import Rules
from allfives_env.core.view import PlayerView
from allfives_env.envs.blocks import feature_set
from allfives_env.envs.spaces import Encoding

META_FILE = "allfives.json"
WEIGHTS_FILE = "allfives_policy.npz"

FloatArray = npt.NDArray[np.float32]


class CheckpointError(AgentError):
    """A checkpoint that cannot be read, or that does not fit the game it is asked to play."""


@dataclass(frozen=True)
class PolicySpec:
    """What a policy was trained on: the rules and the observation options."""

    rules: Rules
    action_features: bool | str
    """The observation's per-action blocks (``False``, ``True`` or a ``FEATURE_SETS`` name)."""

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"rules": dataclasses.asdict(self.rules), "action_features": self.action_features}

    @classmethod
    def from_json(cls, obj: Any, where: str = META_FILE) -> PolicySpec:
        """Read :meth:`to_json`'s dict, checked field by field.

        Args:
            obj: the decoded JSON.
            where: the file it came from, for the messages.

        Raises:
            CheckpointError: naming ``where`` and the field, if ``obj`` is not an object, lacks
                ``rules`` (with at least ``name`` and ``num_players``) or ``action_features``,
                names a rules field that does not exist, or holds a value of the wrong type.
        """
        if not isinstance(obj, dict):
            raise CheckpointError(f"bad {where}: not a JSON object")
        for key in ("rules", "action_features"):
            if key not in obj:
                raise CheckpointError(f"bad {where}: no {key!r} field")
        rules = obj["rules"]
        if not isinstance(rules, dict):
            raise CheckpointError(f"bad {where}: 'rules' must be an object")
        known = {f.name for f in dataclasses.fields(Rules)}
        unknown = sorted(set(rules) - known)
        if unknown:
            raise CheckpointError(f"bad {where}: unknown rules field(s) {', '.join(unknown)}")
        for key in ("name", "num_players"):
            if key not in rules:
                raise CheckpointError(f"bad {where}: the rules name no {key!r}")
        features = obj["action_features"]
        try:
            feature_set(features)
            return cls(Rules(**rules), features)
        except (TypeError, ValueError) as e:
            raise CheckpointError(f"bad {where}: {e}") from None


FIELD_KINDS = {
    "text": "a string",
    "flag": "true or false",
    "count": "a whole number of at least 1",
    "counts": "a list of whole numbers of at least 1",
}
"""The kinds of field :func:`check_fields` knows, and how a message names them."""


def _is_count(x: object) -> bool:
    return type(x) is int and x >= 1


def _of_kind(kind: str, value: object) -> bool:
    if kind == "text":
        return isinstance(value, str)
    if kind == "flag":
        return isinstance(value, bool)
    if kind == "count":
        return _is_count(value)
    return isinstance(value, list) and all(_is_count(x) for x in value)


def check_fields(obj: Any, fields: dict[str, str], where: str) -> dict[str, Any]:
    """``obj`` checked to be a JSON object with exactly the keys of ``fields``, each of its kind
    (:data:`FIELD_KINDS`: ``"text"``, ``"flag"``, ``"count"``, ``"counts"``); ``"counts"``
    values come back as tuples.

    Raises:
        CheckpointError: naming ``where`` and the first field that is missing, unknown or of
            the wrong kind.
    """
    if not isinstance(obj, dict):
        raise CheckpointError(f"bad {where}: not a JSON object")
    unknown = sorted(set(obj) - set(fields))
    if unknown:
        raise CheckpointError(f"bad {where}: unknown field(s) {', '.join(unknown)}")
    out: dict[str, Any] = {}
    for key, kind in fields.items():
        if key not in obj:
            raise CheckpointError(f"bad {where}: no {key!r} field")
        value = obj[key]
        if not _of_kind(kind, value):
            raise CheckpointError(
                f"bad {where}: {key!r} must be {FIELD_KINDS[kind]}, not {value!r}"
            )
        out[key] = tuple(value) if kind == "counts" else value
    return out


def decode_meta(data: bytes, where: str) -> Any:
    """The JSON in ``data`` (a :data:`META_FILE`), read strictly
    (:func:`allfives_env.core.strict_json.loads`: a key given twice, ``NaN`` or text that is
    not UTF-8 is refused).

    Raises:
        CheckpointError: naming ``where``, for anything but strict JSON.
    """
    try:
        return strict_json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise CheckpointError(f"bad {where}: not UTF-8 text") from None
    except ValueError as e:
        raise CheckpointError(f"bad {where}: {e}") from None


def write_checkpoint(
    path: str | Path, spec: PolicySpec, policy: Policy, extra: dict[str, bytes] | None = None
) -> None:
    """Write a checkpoint of ``policy`` to ``path`` (``extra``: more files, by name), whole:
    through ``path.tmp`` and a rename, so that a failure (a full disk) leaves the old one."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(META_FILE, json.dumps(spec.to_json(), indent=1))
        z.writestr(WEIGHTS_FILE, policy.to_npz())
        for name, data in (extra or {}).items():
            z.writestr(name, data)
    replace_whole(Path(path), buf.getvalue())


def read_checkpoint_files(path: str | Path, *names: str) -> tuple[PolicySpec, dict[str, bytes]]:
    """The spec of the checkpoint at ``path``, and those of the files ``names`` it holds, by
    name (a file it lacks is left out).

    Raises:
        CheckpointError: if the file is missing, is not a zip file (or a truncated or damaged
            one), or lacks or has a malformed :data:`META_FILE` (strict JSON, checked field by
            field).
    """
    shown = str(path)
    try:
        with zipfile.ZipFile(path) as z:
            held = set(z.namelist())
            meta = z.read(META_FILE) if META_FILE in held else None
            files = {name: z.read(name) for name in names if name in held}
    except FileNotFoundError:
        raise CheckpointError(f"no checkpoint at {shown!r}") from None
    except IsADirectoryError:
        raise CheckpointError(f"{shown!r} is a folder, not a checkpoint file") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError) as e:
        # BadZipFile: not a zip, truncated, or a member's CRC is wrong
        raise CheckpointError(f"{shown!r} is not an allfives checkpoint: {e}") from None
    if meta is None:
        raise CheckpointError(f"{shown!r} is not an allfives checkpoint: it holds no {META_FILE}")
    where = f"{META_FILE} in {shown!r}"
    return PolicySpec.from_json(decode_meta(meta, where), where), files


def read_checkpoint(path: str | Path) -> tuple[PolicySpec, Policy]:
    """The spec and actor of a checkpoint.

    Raises:
        CheckpointError: if the file is missing, not a checkpoint, lacks the allfives files,
            or holds a network that does not fit its rules' observation and actions (an array
            of the wrong shape), has NaN or infinite weights, or is not an ``.npz`` (or a
            truncated one).
    """
    spec, files = read_checkpoint_files(path, WEIGHTS_FILE)
    if WEIGHTS_FILE not in files:
        raise CheckpointError(
            f"{str(path)!r} is not an allfives checkpoint: it holds no {WEIGHTS_FILE}"
        )
    data = files[WEIGHTS_FILE]
    if not zipfile.is_zipfile(io.BytesIO(data)):  # np.load would read an .npy as an array
        raise CheckpointError(
            f"{str(path)!r} is not an allfives checkpoint: its {WEIGHTS_FILE} is not an .npz "
            "(truncated or damaged?)"
        )
    try:
        weights = policy_from_npz(data)
    except (KeyError, ValueError, OSError, EOFError, zipfile.BadZipFile) as e:
        raise CheckpointError(
            f"{str(path)!r} is not an allfives checkpoint: its {WEIGHTS_FILE} is damaged ({e})"
        ) from None
    enc = Encoding(spec.rules, spec.action_features)
    try:
        check_weights(weights, enc.obs_size, enc.num_actions)
    except ValueError as e:
        raise CheckpointError(f"{str(path)!r} holds a broken network: {e}") from None
    return spec, weights


def holds_policy(folder: Path, weights_file: str) -> bool:
    """Whether ``folder`` holds a policy folder's two files: :data:`META_FILE` and
    ``weights_file``."""
    return (folder / META_FILE).is_file() and (folder / weights_file).is_file()


def write_policy_folder(
    folder: Path, spec: PolicySpec, entry: str, network: Any, weights_file: str, weights: bytes
) -> None:
    """Write a policy folder (what :func:`read_policy_meta` reads): ``weights`` as
    ``weights_file``, and :data:`META_FILE` holding ``spec`` and, under ``entry``, ``network``
    (JSON-ready); each file replaced whole."""
    folder.mkdir(parents=True, exist_ok=True)
    replace_whole(folder / weights_file, weights)
    meta = {**spec.to_json(), entry: network}
    replace_whole(folder / META_FILE, json.dumps(meta, indent=1).encode("utf-8"))


def read_policy_meta(
    folder: Path, weights_file: str, entry: str, made_by: str
) -> tuple[PolicySpec, Any]:
    """The spec and the ``entry`` part of the :data:`META_FILE` of a policy folder, one that
    holds ``weights_file`` beside it (the folders the BenchMARL and OpenSpiel trainers write).

    Raises:
        CheckpointError: if ``folder`` lacks either file, or the metadata is unreadable, not
            strict JSON, malformed (:meth:`PolicySpec.from_json`) or has no ``entry``; the
            message names the command that writes such a folder (``made_by``).
    """
    if not holds_policy(folder, weights_file):
        raise CheckpointError(
            f"no {entry} policy at {str(folder)!r} (a folder holding {META_FILE} and "
            f"{weights_file}, as {made_by} --out writes)"
        )
    meta = read_meta_file(folder / META_FILE)
    if not isinstance(meta, dict) or entry not in meta:
        raise CheckpointError(f"bad {folder / META_FILE}: no {entry!r} entry")
    return PolicySpec.from_json(meta, str(folder / META_FILE)), meta[entry]


def read_meta_file(path: Path) -> Any:
    """The strict JSON of the :data:`META_FILE` at ``path`` (:func:`decode_meta`).

    Raises:
        CheckpointError: naming ``path``, if it cannot be read or is not strict JSON.
    """
    try:
        data = path.read_bytes()
    except OSError as e:
        raise CheckpointError(f"cannot read {path}: {e.strerror or e}") from None
    return decode_meta(data, str(path))


def check_trained_rules(name: str, trained: Rules, rules: Rules) -> None:
    """Refuse to let the policy ``name``, trained under ``trained``, play under other ``rules``.

    Raises:
        CheckpointError: if ``rules`` are not ``trained``.
    """
    if rules != trained:
        raise CheckpointError(
            f"{name} was trained for {trained.describe()}; it plays only those rules, not "
            f"{rules.describe()}"
        )


class LearnedAgent:
    """Plays a trained policy: the most likely legal action (or a sampled one).

    Forced draws and passes (the only legal action) are taken without asking the network.
    """

    def __init__(
        self, spec: PolicySpec, policy: Policy, name: str = "learned", sample: bool = False
    ):
        self.spec = spec
        self.policy = policy
        self.name = name
        self.sample = sample
        self._encodings: dict[Rules, Encoding] = {}

    def check_rules(self, rules: Rules) -> None:
        """Refuse rules other than the ones the policy was trained on.

        A policy plays only the rules of its checkpoint (preset, players, partnerships and
        every overridden field): under other rules its observation would mean other things,
        or have another shape.

        Raises:
            CheckpointError: if ``rules`` are not the checkpoint's.
        """
        check_trained_rules(self.name, self.spec.rules, rules)

    def _encoding(self, rules: Rules) -> Encoding:
        enc = self._encodings.get(rules)
        if enc is None:
            self.check_rules(rules)
            enc = self._encodings[rules] = Encoding(rules, self.spec.action_features)
        return enc

    def act(self, view: PlayerView, rng: random.Random) -> Action:
        """The policy's action for ``view``."""
        legal = view.legal_actions
        if len(legal) == 1 and legal[0] >= DRAW_ID:
            return legal[0]
        enc = self._encoding(view.rules)
        obs = enc.observe_view(view)
        mask = np.zeros(enc.num_actions, np.int8)
        by_env = {}
        for a in legal:
            env_id = enc.to_env[a]
            if env_id >= 0:
                mask[env_id] = 1
                by_env[env_id] = a
        choice = choose(self.policy.logits(obs), mask, uniform(rng) if self.sample else None)
        return by_env[choice]

    @property
    def probabilities(self) -> Callable[[PlayerView], dict[Action, float]] | None:
        """With ``sample``, the probability the policy gives each legal action of a view (the
        masked softmax it samples from; a mirrored lead, which is not an env action, gets 0),
        which the exact solver reads as the agent's policy; ``None`` for the most-likely
        player, whose policy is its :meth:`act`."""
        return self._probabilities if self.sample else None

    def _probabilities(self, view: PlayerView) -> dict[Action, float]:
        legal = view.legal_actions
        if len(legal) == 1:
            return {legal[0]: 1.0}
        enc = self._encoding(view.rules)
        ids = [enc.to_env[a] for a in legal]
        logits = self.policy.logits(enc.observe_view(view)).astype(np.float64)
        z = np.array([logits[i] if i >= 0 else -np.inf for i in ids])
        p = np.exp(z - z.max())
        p /= p.sum()
        return {a: float(x) for a, x in zip(legal, p, strict=True)}

    def log_policy(self, view: PlayerView) -> npt.NDArray[np.float64]:
        """The policy's log-probability of each of ``view.legal_actions`` (in that order;
        all 0 for a single legal action)."""
        legal = view.legal_actions
        if len(legal) == 1:
            return np.zeros(1)
        enc = self._encoding(view.rules)
        logits = self.policy.logits(enc.observe_view(view)).astype(np.float64)
        z = logits[[enc.to_env[a] for a in legal]]
        z = z - z.max()
        return z - np.log(np.exp(z).sum())  # type: ignore[no-any-return]

    def act_batch(self, vg: Any, games: npt.NDArray[np.int64], rng: Any) -> Any:
        """The policy's actions in a batch of games (a :class:`VectorGame` of its rules and
        observation options): the most likely, or sampled with one uniform per game from the
        games' generators ``rng``. A scorer's choice is compiled
        (:func:`agents.compiled_scorer.scorer_actions`: the network runs for the legal actions
        of the games with a choice to make); other networks read whole observations.

        Raises:
            CheckpointError: if the batch plays other rules or another observation.
        """
        self.check_rules(vg.rules)
        if vg.encoding.obs_size != self._encoding(vg.rules).obs_size:
            features = self.spec.action_features
            raise CheckpointError(f"{self.name} needs action_features={features!r}")
        u = None
        if self.sample:
            from allfives_env.vector.agents import draw_bits

            bits = draw_bits(rng, games) >> np.uint64(11)
            u = (bits.astype(np.float64) + 0.5) / float(1 << 53)
        if isinstance(self.policy, ScorerPolicy):
            from agents.compiled_scorer import scorer_actions

            return scorer_actions(vg, games, self.policy, u)
        obs = vg.observe_games(games, vg.current_player[games])
        masks = vg.masks()[games]
        z = self.policy.logits(obs).astype(np.float64)
        z = np.where(masks > 0, z, -np.inf)
        if u is None:
            return z.argmax(axis=1).astype(np.int64)
        p = np.exp(z - z.max(axis=1, keepdims=True))
        c = np.cumsum(p, axis=1)
        return np.minimum((c < (u * c[:, -1])[:, None]).sum(axis=1), masks.shape[1] - 1)


def load_learned(path: str, sample: bool = False) -> LearnedAgent:
    """The learned agent in checkpoint ``path``.

    Raises:
        CheckpointError: if ``path`` is not a readable allfives checkpoint.
    """
    spec, policy = read_checkpoint(path)
    return LearnedAgent(spec, policy, name=Path(path).stem, sample=sample)
