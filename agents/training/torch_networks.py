"""The network ``train.py`` trains: the scorer actor and its critic, in torch.

The actor computes what :class:`agents.numpy_networks.ScorerPolicy` computes (its NumPy twin,
which plays the checkpoints): a tanh trunk on the global observation gives ``h``; each placement's
features ``f_a`` go through a small ReLU network shared by every placement, ``φ(f_a)``;
the trunk gives a context ``c(h)`` and a per-action-id term ``u(h)``; ``logit[a] = φ(f_a)·c(h)
+ u(h)[a]`` (DRAW and PASS: ``u`` alone). The learner so weighs each placement's public
outlook by what the position calls for, with one set of weights for all placements. With tile
features (the layout's ``slots`` set), ``f_a`` ends with the tile's pips, the pips it leaves
open, the slot's one-hot and the slot's observation entries, in
:meth:`~agents.numpy_networks.ScorerLayout.features`' order.

The critic is a separate tanh MLP on the global observation, or, when the trainer gives it
``privileged`` entries, on those instead (the full position, every hand included, and the
learner's seat: a critic only trains, it never plays, so it may see what the player cannot).
Needs torch (the ``train`` extra).
"""

from __future__ import annotations

import itertools

import numpy as np
import torch as th
from torch import nn

from agents.numpy_networks import ScorerLayout, ScorerPolicy
from agents.value_network import ValueNetwork
from allfives_env.envs.blocks import LOOKAHEAD_SIZE, OUTLOOK_SIZE, SLOT_FEATURES


def _mlp(sizes: list[int]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for a, b in itertools.pairwise(sizes):
        linear = nn.Linear(a, b)
        nn.init.orthogonal_(linear.weight, np.sqrt(2))
        nn.init.zeros_(linear.bias)
        layers += [linear, nn.Tanh()]
    return nn.Sequential(*layers)


def _pair(layer: nn.Linear) -> tuple[np.ndarray, np.ndarray]:
    """A linear layer's weight and bias as float32 arrays."""
    w = layer.weight.detach().cpu().numpy().astype(np.float32)
    b = layer.bias.detach().cpu().numpy().astype(np.float32)
    return w, b


def _linear(a: int, b: int, std: float) -> nn.Linear:
    layer = nn.Linear(a, b)
    nn.init.orthogonal_(layer.weight, std)
    nn.init.zeros_(layer.bias)
    return layer


class ScorerNet(nn.Module):
    """Actor and critic (see the module docstring).

    Args:
        layout: where the inputs lie in the observation.
        actor: hidden layer sizes of the actor's trunk.
        critic: hidden layer sizes of the critic.
        context: size of the context vector and of ``φ``.
        privileged: entries the critic reads instead of the global observation (0: none).
        feature: hidden layer sizes of ``φ`` before its last layer (of size ``context``).
    """

    def __init__(
        self,
        layout: ScorerLayout,
        actor: list[int],
        critic: list[int],
        context: int,
        privileged: int = 0,
        feature: tuple[int, ...] = (),
    ):
        super().__init__()
        self.layout = layout
        g = layout.global_size
        self.trunk = _mlp([g, *actor])
        self.context = _linear(actor[-1], context, 0.01)
        sizes = [layout.feature_size, *feature, context]
        self.feature = nn.ModuleList(
            [_linear(a, b, np.sqrt(2)) for a, b in itertools.pairwise(sizes)]
        )
        self.action = _linear(actor[-1], layout.num_actions, 0.01)
        self.privileged = privileged
        self.critic = nn.Sequential(_mlp([privileged or g, *critic]), _linear(critic[-1], 1, 1.0))
        pips, slot_hot = th.zeros(0), th.zeros(0)
        if layout.slots >= 0:
            pips_np, slot_hot_np = layout.tile_constants()
            pips, slot_hot = th.from_numpy(pips_np), th.from_numpy(slot_hot_np)
        # constants, not weights: they follow the module to its device, not into state_dict
        self.tile_pips: th.Tensor
        self.slot_hot: th.Tensor
        self.register_buffer("tile_pips", pips, persistent=False)
        self.register_buffer("slot_hot", slot_hot, persistent=False)

    def _columns(self, a: th.Tensor) -> th.Tensor:
        """(M, columns) the observation columns read for placements ``a``'s features (with
        tile features, the slot's entries last; :meth:`_features` derives the rest)."""
        lay = self.layout
        cols = [lay.points + a, lay.replies + a]
        if lay.outlook >= 0:
            base = lay.outlook + a * OUTLOOK_SIZE
            cols += [base + j for j in range(OUTLOOK_SIZE)]
        if lay.lookahead >= 0:
            base = lay.lookahead + a * LOOKAHEAD_SIZE
            cols += [base + j for j in range(LOOKAHEAD_SIZE)]
        if lay.slots >= 0:
            base = lay.slots + (a % lay.num_slots) * SLOT_FEATURES
            cols += [base + j for j in range(SLOT_FEATURES)]
        return th.stack(cols, dim=1)

    def _features(self, x: th.Tensor, b: th.Tensor, a: th.Tensor) -> th.Tensor:
        """(M, feature_size) the features of placement ``a[i]`` in observation ``b[i]``, in
        :meth:`ScorerLayout.features`' order."""
        f = x[b.unsqueeze(1), self._columns(a)]
        lay = self.layout
        if lay.slots < 0:
            return f
        head = f.shape[1] - SLOT_FEATURES
        slot = f[:, head:]
        pips = self.tile_pips[a]
        opened = th.relu(pips - slot[:, 1:8])
        return th.cat([f[:, :head], pips, opened, self.slot_hot[a], slot], dim=1)

    def logits(self, x: th.Tensor, mask: th.Tensor) -> th.Tensor:
        """(B, num_actions) action logits, ``-1e9`` where ``mask`` (bool) is False.

        Only the legal placements are scored (a few of the 28·S), which is what makes the
        network cheap; the legal logits equal :meth:`ScorerPolicy.logits`'s.
        """
        lay = self.layout
        h = self.trunk(x[:, : lay.global_size])
        c = self.context(h)
        u = self.action(h)
        b, a = mask[:, : lay.placements].nonzero(as_tuple=True)
        phi = self._features(x, b, a)
        for layer in self.feature:
            phi = th.relu(layer(phi))
        scores = (phi * c[b]).sum(dim=1)
        out: th.Tensor = u.index_put((b, a), scores, accumulate=True).masked_fill(~mask, -1e9)
        return out

    def value(self, x: th.Tensor, privileged: th.Tensor | None = None) -> th.Tensor:
        """(B,) the critic's value of observations ``x``, or of the ``privileged`` entries if
        the critic reads them."""
        if self.privileged:
            assert privileged is not None, "this critic reads privileged entries"
            inputs = privileged
        else:
            inputs = x[:, : self.layout.global_size]
        out: th.Tensor = self.critic(inputs).squeeze(1)
        return out

    def value_to_numpy(self, scale: float) -> ValueNetwork:
        """The critic as a :class:`~agents.value_network.ValueNetwork` whose output times
        ``scale`` is points (only a critic that reads the observation can play)."""
        assert not self.privileged, "a critic that reads privileged entries cannot play"
        layers = [m for m in self.critic.modules() if isinstance(m, nn.Linear)]
        return ValueNetwork([_pair(m) for m in layers], scale)

    def to_numpy(self) -> ScorerPolicy:
        """The actor as its NumPy twin (for checkpoints and frozen opponents)."""

        trunk = [_pair(m) for m in self.trunk if isinstance(m, nn.Linear)]
        return ScorerPolicy(
            self.layout,
            trunk,
            _pair(self.context),
            [_pair(layer) for layer in self.feature if isinstance(layer, nn.Linear)],
            _pair(self.action),
        )
