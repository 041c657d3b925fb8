"""Learned agents: a policy network trained by ``train.py``, run in NumPy.

A checkpoint is the ``.zip`` that sb3-contrib's ``MaskablePPO.save`` writes, with two files
added by :func:`write_checkpoint`: ``allfives.json`` (the rules and the observation options the
policy was trained with) and ``allfives_policy.npz`` (the actor's weights). Playing needs only
NumPy: :func:`load_learned` reads those two files, so ``allfives eval`` and ``allfives play``
run a learned agent without torch.
"""

from __future__ import annotations

import dataclasses
import io
import json
import random
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from agents.errors import AgentError
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


@dataclass
class MlpPolicy:
    """A feed-forward actor: hidden layers with ``activation``, then linear logits.

    Attributes:
        weights: one ``(out, in)`` matrix per layer, the last one giving the action logits.
        biases: one vector per layer.
        activation: ``"tanh"`` or ``"relu"`` (hidden layers only).
    """

    weights: list[FloatArray]
    biases: list[FloatArray]
    activation: str = "tanh"
    skip: tuple[int, int] | None = None
    """Observation entries ``[start, end)``: the per-action ``points`` then ``replies`` inputs."""
    feature_weights: tuple[float, float] = (0.0, 0.0)
    """The shared weights of the per-action points and replies in each action's logit."""

    def logits(self, x: FloatArray) -> FloatArray:
        """Action logits for one observation vector (or a batch, rows)."""
        h = x
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            h = h @ w.T + b
            if i < last:
                h = np.tanh(h) if self.activation == "tanh" else np.maximum(h, 0)
        if self.skip is not None:
            start, end = self.skip
            k = (end - start) // 2
            wp, wr = self.feature_weights
            h = h.copy()
            h[..., :k] += wp * x[..., start : start + k] + wr * x[..., start + k : end]
        return h

    def choose(
        self,
        observation: FloatArray,
        mask: npt.NDArray[np.int8],
        rng: random.Random | None = None,
    ) -> int:
        """The masked action: the most likely, or sampled from the softmax when ``rng`` is given."""
        z = self.logits(observation.astype(np.float32, copy=False)).astype(np.float64)
        legal = np.flatnonzero(mask)
        zl = z[legal]
        if rng is None:
            return int(legal[int(np.argmax(zl))])
        p = np.exp(zl - zl.max())
        u = rng.random() * float(p.sum())
        return int(legal[min(int(np.searchsorted(np.cumsum(p), u, side="right")), len(p) - 1)])

    @classmethod
    def from_sb3(cls, model: Any) -> MlpPolicy:
        """The actor of an sb3 (Maskable)PPO ``MlpPolicy``."""
        import torch.nn as nn

        policy = model.policy
        layers = [m for m in policy.mlp_extractor.policy_net if isinstance(m, nn.Linear)]
        head = policy.action_net
        layers.append(head.linear if hasattr(head, "linear") else head)
        features = (
            (float(head.w_points.detach()), float(head.w_replies.detach()))
            if hasattr(head, "w_points")
            else (0.0, 0.0)
        )
        acts = [m for m in policy.mlp_extractor.policy_net if not isinstance(m, nn.Linear)]
        name = "relu" if acts and isinstance(acts[0], nn.ReLU) else "tanh"
        skip = getattr(policy.mlp_extractor, "skip", None)
        return cls(
            [m.weight.detach().cpu().numpy().astype(np.float32) for m in layers],
            [m.bias.detach().cpu().numpy().astype(np.float32) for m in layers],
            name,
            (int(skip[0]), int(skip[1])) if skip is not None else None,
            features,
        )

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
    def from_npz(cls, data: bytes) -> MlpPolicy:
        """Weights written by :meth:`to_npz`."""
        with np.load(io.BytesIO(data)) as z:
            n = sum(1 for k in z.files if k.startswith("w"))
            skip = tuple(int(v) for v in z["skip"]) if "skip" in z.files else None
            fw = tuple(float(v) for v in z["feature_weights"]) if skip is not None else (0.0, 0.0)
            return cls(
                [z[f"w{i}"] for i in range(n)],
                [z[f"b{i}"] for i in range(n)],
                str(z["activation"]),
                (skip[0], skip[1]) if skip is not None else None,
                (fw[0], fw[1]),
            )


@dataclass(frozen=True)
class PolicySpec:
    """What a policy was trained on: the rules and the observation options."""

    rules: Rules
    action_features: bool | str
    """The observation's per-action blocks (``False``, ``True`` or ``"outlook"``)."""

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"rules": dataclasses.asdict(self.rules), "action_features": self.action_features}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> PolicySpec:
        """Read :meth:`to_json`'s dict.

        Raises:
            CheckpointError: if it is malformed.
        """
        try:
            features = obj["action_features"]
            feature_set(features)
            return cls(Rules(**obj["rules"]), features)
        except (KeyError, TypeError, ValueError) as e:
            raise CheckpointError(f"bad {META_FILE}: {e}") from None


def write_checkpoint(model: Any, path: str | Path, spec: PolicySpec) -> None:
    """Save ``model`` (sb3 ``save``) to ``path`` and add the files :func:`load_learned` reads."""
    path = Path(path)
    model.save(path)
    with zipfile.ZipFile(path, "a") as z:
        z.writestr(META_FILE, json.dumps(spec.to_json(), indent=1))
        z.writestr(WEIGHTS_FILE, MlpPolicy.from_sb3(model).to_npz())


def read_checkpoint(path: str | Path) -> tuple[PolicySpec, MlpPolicy]:
    """The spec and actor of a checkpoint.

    Raises:
        CheckpointError: if the file is missing, not a checkpoint, or lacks the allfives files.
    """
    try:
        with zipfile.ZipFile(path) as z:
            meta = json.loads(z.read(META_FILE))
            weights = MlpPolicy.from_npz(z.read(WEIGHTS_FILE))
    except FileNotFoundError:
        raise CheckpointError(f"no checkpoint at {str(path)!r}") from None
    except (zipfile.BadZipFile, KeyError, OSError, ValueError) as e:
        raise CheckpointError(f"{str(path)!r} is not an allfives checkpoint: {e}") from None
    return PolicySpec.from_json(meta), weights


class LearnedAgent:
    """Plays a trained policy: the most likely legal action (or a sampled one).

    Forced draws and passes (the only legal action) are taken without asking the network.
    """

    def __init__(
        self, spec: PolicySpec, policy: MlpPolicy, name: str = "learned", sample: bool = False
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
        trained = self.spec.rules
        if rules != trained:
            raise CheckpointError(
                f"{self.name} was trained for {trained.describe()}; it plays only those "
                f"rules, not {rules.describe()}"
            )

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
        choice = self.policy.choose(obs, mask, rng if self.sample else None)
        return by_env[choice]


def load_learned(path: str, sample: bool = False) -> LearnedAgent:
    """The learned agent in checkpoint ``path``.

    Raises:
        CheckpointError: if ``path`` is not a readable allfives checkpoint.
    """
    spec, policy = read_checkpoint(path)
    return LearnedAgent(spec, policy, name=Path(path).stem, sample=sample)
