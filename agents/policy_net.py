"""The policy network ``train.py`` uses: sb3-contrib's masked MLP policy with a skip path.

With ``action_features`` in the observation, each placement's immediate score and the best
reply it allows are inputs of their own; the skip path hands them straight to the logit layer
(next to the MLP's last hidden layer), so "this move scores" or "this move gives away 15" needs
one weight per action instead of a mapping learned through two hidden layers. The skip weights
start as a mild prior — ``SKIP_INIT`` from an action's points to its logit, ``-SKIP_INIT / 2``
from the reply it allows — which training then adjusts like any other weight. Needs torch (the
``train`` extra).
"""

from __future__ import annotations

from typing import Any

import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor

SKIP_INIT = 10.0
"""Initial weight from an action's ``action_points`` input to its own logit."""
REPLY_INIT = -SKIP_INIT / 2
"""Initial weight from an action's ``action_replies`` input to its own logit."""


class SkipMlpExtractor(MlpExtractor):
    """An ``MlpExtractor`` whose policy latent also carries ``features[start:end]``."""

    def __init__(self, feature_dim: int, skip: tuple[int, int], **kwargs: Any):
        super().__init__(feature_dim, **kwargs)
        self.skip = (int(skip[0]), int(skip[1]))
        self.latent_dim_pi += self.skip[1] - self.skip[0]

    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        start, end = self.skip
        return th.cat([self.policy_net(features), features[:, start:end]], dim=1)


class AllFivesPolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` with an optional skip path (``skip=(start, end)``)."""

    def __init__(self, *args: Any, skip: tuple[int, int] | None = None, **kwargs: Any):
        self.skip = skip
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        if self.skip is None:
            super()._build_mlp_extractor()
            return
        self.mlp_extractor = SkipMlpExtractor(
            self.features_dim,
            skip=self.skip,
            net_arch=self.net_arch,
            activation_fn=self.activation_fn,
            device=self.device,
        )

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        if self.skip is not None:
            start, end = self.skip
            hidden = self.mlp_extractor.latent_dim_pi - (end - start)
            w = self.action_net.weight  # (actions, hidden + skip)
            assert isinstance(w, th.Tensor)
            per_block = (end - start) // 2  # action_points, then action_replies
            with th.no_grad():
                w[:, hidden:] = 0.0
                rows = th.arange(per_block)
                w[rows, hidden + rows] = SKIP_INIT
                w[rows, hidden + per_block + rows] = REPLY_INIT

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data: dict[str, Any] = super()._get_constructor_parameters()
        data["skip"] = self.skip
        return data
