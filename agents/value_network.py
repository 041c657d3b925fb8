"""A learned value of positions, run in NumPy: what ``batchsearch:value=PATH`` cuts its rollouts
short with.

``train.py`` with ``value_head: true`` teaches its critic a search teacher's value of each
position the learner meets: the best legal action's mean rollout value, in the search's worth
(the side's points from now to the hand's end minus the other sides' mean, ± the win bonus
where the match ends; :mod:`agents.batch_search`), divided by the target. The checkpoints then
hold that critic beside the actor as :data:`VALUE_FILE`, a tanh MLP reading the *global* part of
the acting seat's observation (every entry before the per-action blocks: the seat's own hand
and the public table, the same entries whatever the observation's ``action_features``), whose
output times :attr:`ValueNetwork.scale` is points. It sees nothing the seat cannot see.

:func:`read_value` reads it; a checkpoint without one is a :class:`~agents.learned.CheckpointError`.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from agents.learned import CheckpointError, PolicySpec, read_checkpoint_files
from allfives_env.envs.spaces import Encoding

VALUE_FILE = "allfives_value.npz"
"""The value network's weights in a checkpoint."""

FloatArray = npt.NDArray[np.float32]


@dataclass
class ValueNetwork:
    """A tanh MLP from the global observation to a value in points.

    Attributes:
        layers: ``(weight (out, in), bias)`` per layer; tanh after each but the last, which
            gives one number.
        scale: points per unit of the output (the rules' target).
    """

    layers: list[tuple[FloatArray, FloatArray]]
    scale: float

    @property
    def input_size(self) -> int:
        """Observation entries read (the leading ones)."""
        return int(self.layers[0][0].shape[1])

    def values(self, x: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
        """(B,) the value in points of each row of observations ``x`` (B, ≥ input_size)."""
        h = x[:, : self.input_size]
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            h = h @ w.T + b
            if i < last:
                h = np.tanh(h)
        return h[:, 0].astype(np.float64) * self.scale

    def to_npz(self) -> bytes:
        """The weights and scale as ``.npz`` bytes."""
        arrays: dict[str, Any] = {"scale": np.array(self.scale, np.float64)}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"w{i}"], arrays[f"b{i}"] = w, b
        buf = io.BytesIO()
        np.savez(buf, **arrays)
        return buf.getvalue()

    @classmethod
    def from_npz(cls, data: bytes, input_size: int) -> ValueNetwork:
        """Read :meth:`to_npz`'s bytes, checked against an observation whose global part has
        ``input_size`` entries.

        Raises:
            ValueError: naming what does not fit (a missing or non-finite array, a layer that
                does not read the one before, more than one output, a bad scale).
        """
        if not zipfile.is_zipfile(io.BytesIO(data)):  # np.load would read an .npy as an array
            raise ValueError("not a weights file (an .npz)")
        try:
            with np.load(io.BytesIO(data)) as z:
                arrays = {k: z[k] for k in z.files}
        except (OSError, EOFError, ValueError, zipfile.BadZipFile) as e:  # truncated: BadZipFile
            raise ValueError(f"not a weights file: {e}") from None
        depth = sum(1 for k in arrays if k.startswith("w"))
        try:
            layers = [(arrays[f"w{i}"], arrays[f"b{i}"]) for i in range(depth)]
            scale_array = arrays["scale"]
        except KeyError as e:
            raise ValueError(f"the value network lacks {e}") from None
        if scale_array.shape != () or scale_array.dtype.kind not in "fiu":
            raise ValueError(f"scale must be one number, not an array of {scale_array.dtype}")
        scale = float(scale_array)
        if not layers:
            raise ValueError("the value network has no layer")
        size = input_size
        for i, (w, b) in enumerate(layers):
            if w.dtype.kind != "f" or b.dtype.kind != "f":
                raise ValueError(f"w{i} or b{i} is not an array of floats")
            if not (np.isfinite(w).all() and np.isfinite(b).all()):
                raise ValueError(f"w{i} or b{i} holds NaN or infinite values")
            if w.ndim != 2 or w.shape[1] != size or b.shape != (w.shape[0],):
                raise ValueError(f"w{i} has shape {w.shape}; it must read {size} entries")
            size = w.shape[0]
        if size != 1:
            raise ValueError(f"the last layer gives {size} values, not 1")
        if not (np.isfinite(scale) and scale > 0):
            raise ValueError(f"scale must be a positive number, not {scale}")
        return cls(layers, scale)


def global_size(rules: Any) -> int:
    """The entries of a seat's observation before its per-action blocks, under ``rules``."""
    return Encoding(rules, False).obs_size


def read_value(path: str | Path) -> tuple[PolicySpec, ValueNetwork]:
    """The spec and value network of a checkpoint.

    Raises:
        CheckpointError: if the file is missing or not a checkpoint, holds no value network
            (trained without ``value_head``), or one that does not fit its rules.
    """
    spec, files = read_checkpoint_files(path, VALUE_FILE)
    if VALUE_FILE not in files:
        raise CheckpointError(
            f"{str(path)!r} holds no value network (train it with value_head: true)"
        )
    try:
        return spec, ValueNetwork.from_npz(files[VALUE_FILE], global_size(spec.rules))
    except ValueError as e:
        raise CheckpointError(f"{str(path)!r} holds a broken value network: {e}") from None
