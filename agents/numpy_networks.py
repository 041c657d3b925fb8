"""Policy networks in NumPy: what a checkpoint's weights compute, with no torch needed to play.

Two kinds, told apart by the ``kind`` entry of the weights file:

* :class:`ScorerPolicy` (``"scorer"``, what ``train.py`` trains): a trunk reads the global part of
  the observation; every placement gets a score from its own per-action features (the
  ``action_points``, ``action_replies`` and, where present, ``action_outlook`` entries of its
  action id), through a small network shared by all placements, weighed by a context vector
  the trunk computes: ``logit[a] = φ(f_a) · c(h) + u(h)[a]``. DRAW and PASS get ``u(h)`` alone.
  With *tile features* (:attr:`ScorerLayout.slots` set), ``f_a`` also says what the placement
  is: the tile's pips, the pips it leaves open, its slot, and that slot's entries of the
  observation (all read from the observation and the action id).
  The trained torch module is :class:`agents.training.torch_networks.ScorerNet`; both compute
  the same function (a test compares them).
* :class:`MlpPolicy` (the default, for checkpoints of allfives 0.1): an MLP on the whole
  observation, plus the shared per-action skip weights of that version.

:func:`choose` picks from masked logits: the most likely legal action, or one sampled from the
softmax with a caller's uniform number.
"""

from __future__ import annotations

import io
import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from allfives_env.core.rules import check_full_set
from allfives_env.core.tiles import HIGH, LOW
from allfives_env.envs.blocks import LOOKAHEAD_SIZE, OUTLOOK_SIZE, SLOT_FEATURES
from allfives_env.envs.spaces import Encoding

FloatArray = npt.NDArray[np.float32]

TILE_PIPS: FloatArray = np.eye(7, dtype=np.float32)[LOW] + np.eye(7, dtype=np.float32)[HIGH]
"""Row ``t``: how many halves of tile ``t`` show each pip value (a double: 2 on one value)."""
TILE_FEATURES = 7 + 7 + SLOT_FEATURES
"""Tile features per placement, besides the slot's one-hot: the tile's pips (:data:`TILE_PIPS`),
the pips it leaves open (its pips less the open value of its slot, at least 0: both halves on
the lead), and the slot's observation entries."""


def choose(logits: FloatArray, mask: npt.NDArray[np.int8], u: float | None = None) -> int:
    """The legal action of highest logit (ties: the lowest id), or, given a uniform ``u`` in
    [0, 1), the one the masked softmax samples with it."""
    legal = np.flatnonzero(mask)
    z = logits[legal].astype(np.float64)
    if u is None:
        return int(legal[int(np.argmax(z))])
    p = np.exp(z - z.max())
    c = np.cumsum(p)
    return int(legal[min(int(np.searchsorted(c, u * c[-1], side="right")), len(p) - 1)])


def _act(h: FloatArray, activation: str) -> FloatArray:
    out: FloatArray = np.tanh(h) if activation == "tanh" else np.maximum(h, 0)
    return out


@dataclass(frozen=True)
class ScorerLayout:
    """Where the scorer's inputs lie in the observation (from the :class:`Encoding`).

    Attributes:
        global_size: the leading entries the trunk reads (everything before the per-action
            blocks).
        placements: placement action ids, ``28 · S``.
        num_actions: all action ids (placements, DRAW, PASS).
        points, replies: the first index of the ``action_points`` and ``action_replies``
            blocks.
        outlook: the first index of ``action_outlook`` (-1 without it).
        slots: the first index of the ``slots`` block, read by the tile features (-1: no tile
            features).
        num_slots: slots S (action ids ``t · S + s``; 0 without tile features).
        lookahead: the first index of ``action_lookahead`` (-1 without it).
    """

    global_size: int
    placements: int
    num_actions: int
    points: int
    replies: int
    outlook: int
    slots: int = -1
    num_slots: int = 0
    lookahead: int = -1

    @classmethod
    def of(cls, enc: Encoding, tile_features: bool = False) -> ScorerLayout:
        """The layout of ``enc``'s observation, with or without the tile features.

        Without tile features the scorer reads any set's per-action blocks; the tile features
        are laid out for the 28 tiles of double-six and refuse a smaller set.

        Raises:
            ValueError: if the observation has no per-action blocks (``action_features``
                must be ``True``, ``"outlook"`` or ``"lookahead"``); a ``RulesError`` (one
                line) for tile features on a set smaller than double-six.
        """
        if tile_features:
            check_full_set(enc.rules, "the scorer's tile features")
        try:
            points = enc.block_range("action_points")[0]
        except KeyError:
            raise ValueError(
                "the scorer needs action_features (True, 'outlook' or 'lookahead')"
            ) from None
        replies = enc.block_range("action_replies")[0]
        names = {b.name for b in enc.blocks}
        outlook = enc.block_range("action_outlook")[0] if "action_outlook" in names else -1
        lookahead = enc.block_range("action_lookahead")[0] if "action_lookahead" in names else -1
        placements = enc.num_actions - 2
        slots, num_slots = -1, 0
        if tile_features:
            slots, num_slots = enc.block_range("slots")[0], placements // 28
        return cls(
            points, placements, enc.num_actions, points, replies, outlook, slots, num_slots,
            lookahead,
        )  # fmt: skip

    @property
    def feature_size(self) -> int:
        """Features per placement."""
        tile = TILE_FEATURES + self.num_slots if self.slots >= 0 else 0
        outlook = OUTLOOK_SIZE if self.outlook >= 0 else 0
        return 2 + outlook + (LOOKAHEAD_SIZE if self.lookahead >= 0 else 0) + tile

    def to_array(self) -> npt.NDArray[np.int64]:
        """The layout as ints for the weights file: six, two more with tile features or the
        lookahead block, and a ninth with the lookahead block (so that the files of networks
        without them read as before)."""
        tile = [self.slots, self.num_slots] if self.slots >= 0 or self.lookahead >= 0 else []
        if self.lookahead >= 0:
            tile.append(self.lookahead)
        return np.array(
            [self.global_size, self.placements, self.num_actions, self.points, self.replies,
             self.outlook, *tile],
            np.int64,
        )  # fmt: skip

    @classmethod
    def from_array(cls, a: Any) -> ScorerLayout:
        """Read :meth:`to_array`."""
        return cls(*(int(x) for x in a))

    def tile_constants(self) -> tuple[FloatArray, FloatArray]:
        """(placements, 7) each placement's :data:`TILE_PIPS` row and (placements, S) its
        slot's one-hot."""
        s = self.num_slots
        ids = np.arange(self.placements)
        return TILE_PIPS[ids // s], np.eye(s, dtype=np.float32)[ids % s]

    def features(self, x: FloatArray) -> FloatArray:
        """(…, placements, feature_size): each placement's features, from observations."""
        p = self.placements
        parts = [
            x[..., self.points : self.points + p, None],
            x[..., self.replies : self.replies + p, None],
        ]
        if self.outlook >= 0:
            block = x[..., self.outlook : self.outlook + p * OUTLOOK_SIZE]
            parts.append(block.reshape(*x.shape[:-1], p, OUTLOOK_SIZE))
        if self.lookahead >= 0:
            block = x[..., self.lookahead : self.lookahead + p * LOOKAHEAD_SIZE]
            parts.append(block.reshape(*x.shape[:-1], p, LOOKAHEAD_SIZE))
        if self.slots >= 0:
            pips, slot_hot = self.tile_constants()
            block = x[..., self.slots : self.slots + self.num_slots * SLOT_FEATURES]
            per_slot = block.reshape(*x.shape[:-1], self.num_slots, SLOT_FEATURES)
            slot = per_slot[..., np.arange(p) % self.num_slots, :]
            tile = np.broadcast_to(pips, (*slot.shape[:-1], 7))
            parts += [
                tile,
                np.maximum(tile - slot[..., 1:8], 0),
                np.broadcast_to(slot_hot, (*slot.shape[:-1], self.num_slots)),
                slot,
            ]
        out: FloatArray = np.concatenate(parts, axis=-1)
        return out


@dataclass
class ScorerPolicy:
    """The scorer's actor in NumPy (see the module docstring).

    Attributes:
        layout: where its inputs are.
        trunk: ``(weight (out, in), bias)`` per hidden layer (tanh).
        context: the layer from the trunk's output to the context vector ``c``.
        feature: the layers of ``φ`` (each ReLU), from a placement's features.
        action: the layer from the trunk's output to the per-action-id term ``u``.
        fuse: the layer from the trunk's output into ``φ``'s first layer (``None``: ``φ``
            reads the placement's features alone; only checkpoints of allfives 0.11–0.14
            trained with ``fused_features`` have one, and they still play).
    """

    layout: ScorerLayout
    trunk: list[tuple[FloatArray, FloatArray]]
    context: tuple[FloatArray, FloatArray]
    feature: list[tuple[FloatArray, FloatArray]]
    action: tuple[FloatArray, FloatArray]
    fuse: tuple[FloatArray, FloatArray] | None = None
    kind: str = field(default="scorer", init=False)

    def logits(self, x: FloatArray) -> FloatArray:
        """Action logits for observations ``x`` (one vector, or rows)."""
        lay = self.layout
        h = x[..., : lay.global_size]
        for w, b in self.trunk:
            h = np.tanh(h @ w.T + b)
        c = h @ self.context[0].T + self.context[1]
        u = h @ self.action[0].T + self.action[1]
        phi = lay.features(x)
        for i, (wf, bf) in enumerate(self.feature):
            pre = phi @ wf.T + bf
            if i == 0 and self.fuse is not None:
                pre = pre + (h @ self.fuse[0].T + self.fuse[1])[..., None, :]
            phi = np.maximum(pre, 0)
        scores = (phi @ c[..., None])[..., 0]
        out: FloatArray = u.copy()
        out[..., : lay.placements] += scores
        return out

    def to_npz(self) -> bytes:
        """The weights as ``.npz`` bytes."""
        arrays: dict[str, Any] = {"kind": np.array("scorer"), "layout": self.layout.to_array()}
        for i, (w, b) in enumerate(self.trunk):
            arrays[f"trunk_w{i}"], arrays[f"trunk_b{i}"] = w, b
        for i, (w, b) in enumerate(self.feature):
            arrays[f"feature_w{i}"], arrays[f"feature_b{i}"] = w, b
        for name in ("context", "action"):
            arrays[f"{name}_w"], arrays[f"{name}_b"] = getattr(self, name)
        if self.fuse is not None:
            arrays["fuse_w"], arrays["fuse_b"] = self.fuse
        buf = io.BytesIO()
        np.savez(buf, **arrays)
        return buf.getvalue()

    @classmethod
    def from_arrays(cls, z: Any) -> ScorerPolicy:
        """Read :meth:`to_npz`'s arrays."""
        depth = sum(1 for k in z if str(k).startswith("trunk_w"))
        trunk = [(z[f"trunk_w{i}"], z[f"trunk_b{i}"]) for i in range(depth)]
        layers = sum(1 for k in z if str(k).startswith("feature_w"))
        feature = [(z[f"feature_w{i}"], z[f"feature_b{i}"]) for i in range(layers)]
        return cls(
            ScorerLayout.from_array(z["layout"]),
            trunk,
            (z["context_w"], z["context_b"]),
            feature,
            (z["action_w"], z["action_b"]),
            (z["fuse_w"], z["fuse_b"]) if "fuse_w" in z else None,
        )


@dataclass
class MlpPolicy:
    """A feed-forward actor (the networks of allfives 0.1 checkpoints).

    Attributes:
        weights: one ``(out, in)`` matrix per layer, the last one giving the action logits.
        biases: one vector per layer.
        activation: ``"tanh"`` or ``"relu"`` (hidden layers only).
        skip: observation entries ``[start, end)``: the per-action ``points`` then ``replies``.
        feature_weights: the shared weights of those two in each action's logit.
    """

    weights: list[FloatArray]
    biases: list[FloatArray]
    activation: str = "tanh"
    skip: tuple[int, int] | None = None
    feature_weights: tuple[float, float] = (0.0, 0.0)
    kind: str = field(default="mlp", init=False)

    def logits(self, x: FloatArray) -> FloatArray:
        """Action logits for one observation vector (or rows)."""
        h = x
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            h = h @ w.T + b
            if i < last:
                h = _act(h, self.activation)
        if self.skip is not None:
            start, end = self.skip
            k = (end - start) // 2
            wp, wr = self.feature_weights
            h = h.copy()
            h[..., :k] += wp * x[..., start : start + k] + wr * x[..., start + k : end]
        return h

    def to_npz(self) -> bytes:
        """The weights as ``.npz`` bytes."""
        buf = io.BytesIO()
        arrays: dict[str, Any] = {f"w{i}": w for i, w in enumerate(self.weights)}
        arrays |= {f"b{i}": b for i, b in enumerate(self.biases)}
        arrays["activation"] = np.array(self.activation)
        if self.skip is not None:
            arrays["skip"] = np.array(self.skip)
            arrays["feature_weights"] = np.array(self.feature_weights)
        np.savez(buf, **arrays)
        return buf.getvalue()

    @classmethod
    def from_arrays(cls, z: Any) -> MlpPolicy:
        """Read :meth:`to_npz`'s arrays."""
        n = sum(1 for k in z if str(k).startswith("w"))
        skip = tuple(int(v) for v in z["skip"]) if "skip" in z else None
        fw = tuple(float(v) for v in z["feature_weights"]) if skip is not None else (0.0, 0.0)
        return cls(
            [z[f"w{i}"] for i in range(n)],
            [z[f"b{i}"] for i in range(n)],
            str(z["activation"]),
            (skip[0], skip[1]) if skip is not None else None,
            (fw[0], fw[1]),
        )


Policy = ScorerPolicy | MlpPolicy
"""A network a checkpoint holds."""


def policy_from_npz(data: bytes) -> Policy:
    """The network in ``.npz`` bytes written by ``to_npz``.

    Raises:
        ValueError: if they are not a network's weights.
    """
    try:
        with np.load(io.BytesIO(data)) as z:
            arrays = {k: z[k] for k in z.files}
    except (OSError, EOFError) as e:
        raise ValueError(f"not a weights file: {e}") from None
    try:
        if "kind" in arrays and str(arrays["kind"]) == "scorer":
            return ScorerPolicy.from_arrays(arrays)
        return MlpPolicy.from_arrays(arrays)
    except KeyError as e:
        raise ValueError(f"weights lack {e}") from None


def named_arrays(policy: Policy) -> list[tuple[str, FloatArray]]:
    """The network's weight arrays, by their names in the weights file."""
    if isinstance(policy, MlpPolicy):
        return [(f"w{i}", w) for i, w in enumerate(policy.weights)] + [
            (f"b{i}", b) for i, b in enumerate(policy.biases)
        ]
    out = []
    for prefix, layers in (("trunk", policy.trunk), ("feature", policy.feature)):
        for i, (w, b) in enumerate(layers):
            out += [(f"{prefix}_w{i}", w), (f"{prefix}_b{i}", b)]
    for name, layer in (("context", policy.context), ("action", policy.action), ("fuse",
                        policy.fuse)):  # fmt: skip
        if layer is not None:
            out += [(f"{name}_w", layer[0]), (f"{name}_b", layer[1])]
    return out


Layer = tuple[str, str, FloatArray, FloatArray]
"""A layer as its weight's name, its bias's name, the weight and the bias."""


def _chain(layers: list[Layer], size: int) -> int:
    """Check that each layer reads the previous one's output (the first reads ``size``
    entries); return the last one's output size.

    Raises:
        ValueError: naming the first array that does not fit.
    """
    for wname, bname, w, b in layers:
        if w.ndim != 2 or w.shape[1] != size:
            raise ValueError(f"{wname} has shape {w.shape}; it must be (n, {size})")
        if b.shape != (w.shape[0],):
            raise ValueError(f"{bname} has shape {b.shape}; it must be ({w.shape[0]},)")
        size = w.shape[0]
    return size


def _layers(prefix: str, layers: list[tuple[FloatArray, FloatArray]]) -> list[Layer]:
    return [(f"{prefix}_w{i}", f"{prefix}_b{i}", w, b) for i, (w, b) in enumerate(layers)]


def check_weights(policy: Policy, obs_size: int, num_actions: int) -> None:
    """Check a network read from a file against the observation and actions it must serve:
    every array finite and of floats, every layer reading the one before, one logit per
    action out.

    Raises:
        ValueError: naming the first array at fault.
    """
    for name, a in named_arrays(policy):
        if not isinstance(a, np.ndarray) or a.dtype.kind != "f":
            raise ValueError(f"{name} is not an array of floats")
        if not np.isfinite(a).all():
            raise ValueError(f"{name} holds NaN or infinite values")
    if isinstance(policy, MlpPolicy):
        if policy.activation not in ("tanh", "relu"):
            raise ValueError(f"activation must be tanh or relu, not {policy.activation!r}")
        if len(policy.weights) != len(policy.biases) or not policy.weights:
            raise ValueError("the weights need one bias per layer, and one layer at least")
        pairs = zip(policy.weights, policy.biases, strict=True)
        size = _chain([(f"w{i}", f"b{i}", w, b) for i, (w, b) in enumerate(pairs)], obs_size)
        if size != num_actions:
            raise ValueError(f"its last layer gives {size} logits, not {num_actions}")
    else:
        lay = policy.layout
        if lay.num_actions != num_actions or lay.global_size > obs_size:
            raise ValueError("its layout is for another observation")
        h = _chain(_layers("trunk", policy.trunk), lay.global_size)
        c = _chain([("context_w", "context_b", *policy.context)], h)
        out = _chain([("action_w", "action_b", *policy.action)], h)
        if out != num_actions:
            raise ValueError(f"action_w gives {out} values, not {num_actions}")
        size = lay.features(np.zeros((1, obs_size), np.float32)).shape[-1]
        last = _chain(_layers("feature", policy.feature), size)
        if last != c:
            raise ValueError(f"the last feature layer gives {last} values, context_w {c}")
        if policy.fuse is not None:
            fused = _chain([("fuse_w", "fuse_b", *policy.fuse)], h)
            if not policy.feature or fused != policy.feature[0][0].shape[0]:
                raise ValueError("fuse_w must have as many rows as feature_w0")
    try:
        logits = policy.logits(np.zeros((2, obs_size), np.float32))
    except (ValueError, IndexError) as e:
        raise ValueError(f"it does not read this observation: {e}") from None
    if logits.shape != (2, num_actions) or not np.isfinite(logits).all():
        raise ValueError(f"it gives logits of shape {logits.shape}, not (2, {num_actions})")


def uniform(rng: random.Random | None) -> float | None:
    """A uniform number from ``rng``, or ``None`` (choose the most likely action)."""
    return None if rng is None else rng.random()
