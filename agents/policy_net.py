"""The policy network ``train.py`` uses: sb3-contrib's masked MLP policy with per-action inputs.

With ``action_features`` in the observation, every placement has two numbers of its own: the
points it scores now and the most the next player could score in reply. The policy's logit for
action ``a`` is the MLP's output plus ``w_points · points[a] + w_replies · replies[a]``, with the
two weights shared by all actions — the right shape for "a move that scores is good, a move that
opens a big reply is bad", learned from every sample instead of once per action. ``w_points``
starts at ``POINTS_INIT`` (so the untrained policy already prefers scoring moves, like the greedy
agent) and ``w_replies`` at 0: defence is left for training to discover. Needs torch (the
``train`` extra).
"""

from __future__ import annotations

from typing import Any

import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor
from torch import nn

POINTS_INIT = 10.0
"""Initial weight of an action's ``action_points`` input in its own logit."""
REPLIES_INIT = 0.0
"""Initial weight of an action's ``action_replies`` input in its own logit."""
FEATURE_SCALE = 20.0
"""The two weights are ``FEATURE_SCALE`` × a trained parameter: Adam moves a parameter by about
the learning rate per step whatever its gradient, and a weight of a few units would otherwise
take millions of steps to reach."""


class FeatureMlpExtractor(MlpExtractor):
    """An ``MlpExtractor`` whose policy latent also carries ``features[start:end]``."""

    def __init__(self, feature_dim: int, skip: tuple[int, int], **kwargs: Any):
        super().__init__(feature_dim, **kwargs)
        self.skip = (int(skip[0]), int(skip[1]))
        self.hidden_dim_pi = self.latent_dim_pi
        self.latent_dim_pi += self.skip[1] - self.skip[0]

    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        start, end = self.skip
        return th.cat([self.policy_net(features), features[:, start:end]], dim=1)


class FeatureHead(nn.Module):
    """Logits = linear(hidden) + w_points · points + w_replies · replies (per action)."""

    def __init__(self, hidden_dim: int, per_block: int, num_actions: int):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.per_block = per_block
        self.num_actions = num_actions
        self.linear = nn.Linear(hidden_dim, num_actions)
        self.theta_points = nn.Parameter(th.tensor(POINTS_INIT / FEATURE_SCALE))
        self.theta_replies = nn.Parameter(th.tensor(REPLIES_INIT / FEATURE_SCALE))

    @property
    def w_points(self) -> th.Tensor:
        """The weight of ``action_points``."""
        return FEATURE_SCALE * self.theta_points

    @property
    def w_replies(self) -> th.Tensor:
        """The weight of ``action_replies``."""
        return FEATURE_SCALE * self.theta_replies

    def forward(self, latent: th.Tensor) -> th.Tensor:
        h, k = self.hidden_dim, self.per_block
        points = latent[:, h : h + k]
        replies = latent[:, h + k : h + 2 * k]
        extra = self.w_points * points + self.w_replies * replies
        pad = self.num_actions - k  # DRAW and PASS have no features
        out: th.Tensor = self.linear(latent[:, :h]) + nn.functional.pad(extra, (0, pad))
        return out


class AllFivesPolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` with the per-action inputs (``skip=(start, end)``)."""

    def __init__(self, *args: Any, skip: tuple[int, int] | None = None, **kwargs: Any):
        self.skip = skip
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        if self.skip is None:
            super()._build_mlp_extractor()
            return
        self.mlp_extractor = FeatureMlpExtractor(
            self.features_dim,
            skip=self.skip,
            net_arch=self.net_arch,
            activation_fn=self.activation_fn,
            device=self.device,
        )

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        if self.skip is None:
            return
        start, end = self.skip
        old = self.action_net
        assert isinstance(old, nn.Linear) and isinstance(self.mlp_extractor, FeatureMlpExtractor)
        head = FeatureHead(self.mlp_extractor.hidden_dim_pi, (end - start) // 2, old.out_features)
        with th.no_grad():  # keep SB3's small orthogonal init for the hidden part
            head.linear.weight.copy_(old.weight[:, : head.hidden_dim])
            head.linear.bias.copy_(old.bias)
        self.action_net = head
        # the optimizer must see the new parameters
        self.optimizer = self.optimizer_class(
            self.parameters(),
            lr=lr_schedule(1),  # type: ignore[call-arg]  # as SB3 builds it
            **self.optimizer_kwargs,
        )

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data: dict[str, Any] = super()._get_constructor_parameters()
        data["skip"] = self.skip
        return data
