"""The RLModule that RLlib's PPO trains: a masked actor and a critic, optionally centralized.

:class:`MaskedActorCritic` reads the observation dicts of
:class:`allfives_rllib.env.AllFivesMultiAgentEnv`:

- the **actor** (an MLP, ``model_config["actor_arch"]``) reads ``"observations"`` only; its
  logits are masked with ``"action_mask"`` (illegal actions get the most negative float), so an
  illegal action is never sampled, in exploration, inference or training;
- the **critic** (``model_config["critic_arch"]``) reads ``"observations"``, and with
  ``model_config["critic_state"]`` also ``"state"``, the global state (MAPPO's centralized
  critic). The critic is used only for training; play uses the actor alone.
"""

from __future__ import annotations

import itertools
from typing import Any

import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from torch import nn

MASKED = torch.finfo(torch.float32).min
"""The logit of an illegal action."""


def mlp(sizes: list[int], out: int) -> nn.Sequential:
    """Linear layers of ``sizes`` with tanh between, then a linear output of ``out``."""
    layers: list[nn.Module] = []
    for a, b in itertools.pairwise(sizes):
        layers += [nn.Linear(a, b), nn.Tanh()]
    layers.append(nn.Linear(sizes[-1], out))
    return nn.Sequential(*layers)


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` where ``mask`` > 0, the most negative float elsewhere."""
    return torch.where(mask > 0, logits, torch.full_like(logits, MASKED))


class MaskedActorCritic(TorchRLModule, ValueFunctionAPI):  # type: ignore[misc]
    """PPO's actor and critic for All Fives (see the module docstring).

    ``model_config`` keys: ``actor_arch`` and ``critic_arch`` (hidden sizes, default
    ``[256, 256]``), ``critic_state`` (bool, default False).
    """

    def setup(self) -> None:
        """Build the networks for the observation dict's spaces."""
        cfg = dict(self.model_config or {})
        space = self.observation_space
        obs_size = int(space["observations"].shape[0])
        n = int(self.action_space.n)
        self.critic_state = bool(cfg.get("critic_state", False))
        if self.critic_state and "state" not in space.spaces:
            raise ValueError("critic_state needs the env's observation to hold 'state'")
        critic_in = obs_size + (int(space["state"].shape[0]) if self.critic_state else 0)
        self.actor = mlp([obs_size, *cfg.get("actor_arch", [256, 256])], n)
        self.critic = mlp([critic_in, *cfg.get("critic_arch", [256, 256])], 1)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        logits = self.actor(obs["observations"])
        return {Columns.ACTION_DIST_INPUTS: masked_logits(logits, obs["action_mask"])}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        """The critic's value of each observation (shape ``(B,)``)."""
        obs = batch[Columns.OBS]
        x = obs["observations"]
        if self.critic_state:
            x = torch.cat([x, obs["state"]], dim=-1)
        values: torch.Tensor = self.critic(x).squeeze(-1)
        return values
