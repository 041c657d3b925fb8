"""``train.py``'s network as an RLlib module: :class:`ScorerModule`.

It holds a :class:`agents.training.torch_networks.ScorerNet` (the per-placement scorer on the
outlook features, and its critic) and reads the observation dicts of
:class:`allfives_rllib.vector_env.TableVectorEnv` and
:class:`allfives_rllib.env.AllFivesMultiAgentEnv` alike:

- the **actor** reads ``"observations"`` and ``"action_mask"``: only the legal placements are
  scored, every illegal action's logit is ``-1e9``, so an illegal action is never sampled;
- the **critic** reads ``"observations"``, or with ``critic_state`` the ``"state"`` entry
  (every hand, the boneyard and the learner's seat: the centralized critic ``train.py`` trains),
  which the actor never reads and agents are never given.

``model_config`` keys: ``spec`` (:meth:`agents.learned.PolicySpec.to_json`: the rules and the
observation's ``action_features``, which must be ``True``, ``"outlook"`` or ``"lookahead"``),
``actor_arch``, ``critic_arch``, ``context_dim``, ``feature_arch``, ``tile_features`` and
``critic_state``, as ``train.py``'s config names them. :meth:`ScorerModule.to_numpy` gives the
actor's NumPy twin, which ``train.py``'s checkpoints and the table's snapshots play.
"""

from __future__ import annotations

from typing import Any

import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule

from agents.learned import PolicySpec
from agents.numpy_networks import ScorerLayout, ScorerPolicy
from agents.training.torch_networks import ScorerNet
from allfives_env.envs.spaces import Encoding
from allfives_env.vector.single_agent import learner_state_size


class ScorerModule(TorchRLModule, ValueFunctionAPI):  # type: ignore[misc]
    """PPO's actor and critic: ``train.py``'s scorer network (see the module docstring)."""

    def setup(self) -> None:
        """Build the network for the config's rules and observation."""
        cfg = dict(self.model_config or {})
        spec = PolicySpec.from_json(cfg["spec"])
        enc = Encoding(spec.rules, spec.action_features)
        critic_state = bool(cfg.get("critic_state", False))
        privileged = learner_state_size(enc) if critic_state else 0
        self.spec = spec
        self.net = ScorerNet(
            ScorerLayout.of(enc, bool(cfg.get("tile_features", False))),
            list(cfg.get("actor_arch", [256, 256])),
            list(cfg.get("critic_arch", [256, 256])),
            int(cfg.get("context_dim", 32)),
            privileged,
            tuple(cfg.get("feature_arch", [])),
        )

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        logits = self.net.logits(obs["observations"], obs["action_mask"] > 0)
        return {Columns.ACTION_DIST_INPUTS: logits}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        """The critic's value of each observation (shape ``(B,)``)."""
        obs = batch[Columns.OBS]
        return self.net.value(obs["observations"], obs.get("state"))

    def to_numpy(self) -> ScorerPolicy:
        """The actor as its NumPy twin (for ``.zip`` checkpoints and the table's snapshots)."""
        return self.net.to_numpy()
