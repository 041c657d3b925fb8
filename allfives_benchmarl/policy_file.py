"""The policy a BenchMARL run exports: the actor's network and what it was trained on.

A policy folder (what ``python -m allfives_benchmarl.train --out DIR`` leaves in ``DIR``) holds

- ``allfives.json``: the rules and observation options (:class:`agents.learned.PolicySpec`'s
  fields) and, under ``"benchmarl"``, the network's shape (:class:`NetworkSpec`);
- ``allfives_benchmarl.pt``: the actor's ``state_dict`` (tensors only; read with
  ``torch.load(weights_only=True)``).

The actor is BenchMARL's MLP model over one agent group of ``n_agents`` seats (every seat, or
in partnerships the seats of one team: seat ``s`` is then row ``s // sides``, whichever team
it sits in, since each seat reads its own observation): input
``(group, "observation")`` of shape ``(..., n_agents, obs_size)``, output ``(group, out_key)``
of shape ``(..., n_agents, num_actions)`` (logits for MAPPO, IPPO, MASAC, ISAC; Q values for
IQL). It is decentralised: seat ``s``'s output reads seat ``s``'s observation only.
:func:`load_policy` rebuilds it with BenchMARL's own ``MlpConfig.get_model`` and loads the
weights; the highest masked output is the action.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from agents.learned import (
    META_FILE,
    CheckpointError,
    PolicySpec,
    check_fields,
    holds_policy,
    read_policy_meta,
    write_policy_folder,
)
from allfives_env.envs.spaces import Encoding

WEIGHTS_FILE = "allfives_benchmarl.pt"
"""The actor's weights in a policy folder."""


@dataclass(frozen=True)
class NetworkSpec:
    """How to rebuild the actor (see the module docstring)."""

    algorithm: str
    """The BenchMARL algorithm that trained it (``"mappo"``, ``"ippo"``, ...)."""
    group: str
    n_agents: int
    obs_size: int
    num_actions: int
    """The env actions plus WAIT (:attr:`allfives_benchmarl.env.AllFivesTorchEnv.wait`)."""
    out_key: str
    """``"logits"`` or ``"action_value"``."""
    num_cells: tuple[int, ...]
    activation: str
    """A ``torch.nn`` activation class name."""
    share_params: bool

    @classmethod
    def from_json(cls, obj: Any) -> NetworkSpec:
        """Read :func:`dataclasses.asdict`'s dict, checked field by field.

        Raises:
            CheckpointError: naming the field, if it is malformed (a missing or unknown field,
                a value of the wrong type, an output or activation that does not exist).
        """
        where = f"'benchmarl' entry in {META_FILE}"
        spec = cls(**check_fields(obj, _NETWORK_FIELDS, where))
        if spec.out_key not in ("logits", "action_value"):
            raise CheckpointError(f"bad {where}: out_key {spec.out_key!r}")
        if not isinstance(getattr(nn, spec.activation, None), type):
            raise CheckpointError(f"bad {where}: no activation {spec.activation!r} in torch.nn")
        return spec


_NETWORK_FIELDS = {
    "algorithm": "text",
    "group": "text",
    "n_agents": "count",
    "obs_size": "count",
    "num_actions": "count",
    "out_key": "text",
    "num_cells": "counts",
    "activation": "text",
    "share_params": "flag",
}


def build_model(net: NetworkSpec) -> Any:
    """BenchMARL's MLP actor of the shape ``net`` says, with fresh weights."""
    from benchmarl.models.mlp import MlpConfig
    from torchrl.data import Categorical, Composite, Unbounded

    n = net.n_agents
    inputs = Composite(
        {net.group: Composite({"observation": Unbounded((n, net.obs_size))}, shape=(n,))}
    )
    outputs = Composite(
        {net.group: Composite({net.out_key: Unbounded((n, net.num_actions))}, shape=(n,))}
    )
    actions = Composite(
        {net.group: Composite({"action": Categorical(net.num_actions, (n,))}, shape=(n,))}
    )
    config = MlpConfig(
        num_cells=list(net.num_cells),
        layer_class=nn.Linear,
        activation_class=getattr(nn, net.activation),
    )
    return config.get_model(
        input_spec=inputs,
        output_spec=outputs,
        agent_group=net.group,
        input_has_agent_dim=True,
        n_agents=n,
        centralised=False,
        share_params=net.share_params,
        device="cpu",
        action_spec=actions,
    )


def save_policy(folder: Path, spec: PolicySpec, net: NetworkSpec, model: nn.Module) -> None:
    """Write the policy folder ``folder`` (each file replaced whole)."""
    import io

    buffer = io.BytesIO()
    state = {  # tensors, and the torch.Size entries of TensorDict's parameter containers
        k: v.detach().cpu().clone() if isinstance(v, torch.Tensor) else v
        for k, v in model.state_dict().items()
    }
    torch.save(state, buffer)
    write_policy_folder(folder, spec, "benchmarl", asdict(net), WEIGHTS_FILE, buffer.getvalue())


def is_policy_folder(folder: Path) -> bool:
    """Whether ``folder`` holds both files of a policy."""
    return holds_policy(folder, WEIGHTS_FILE)


def load_policy(folder: Path) -> tuple[PolicySpec, NetworkSpec, Any]:
    """The spec, the network spec and the actor (in eval mode) of the policy in ``folder``.

    Raises:
        CheckpointError: if ``folder`` is not a readable policy folder.
    """
    spec, entry = read_policy_meta(
        folder, WEIGHTS_FILE, "benchmarl", "python -m allfives_benchmarl.train"
    )
    net = NetworkSpec.from_json(entry)
    enc = Encoding(spec.rules, spec.action_features)
    rules = spec.rules
    team = rules.num_players // rules.num_sides
    agents = net.n_agents if net.n_agents in (rules.num_players, team) else rules.num_players
    want = (agents, enc.obs_size, enc.num_actions + 1)  # + WAIT
    if (net.n_agents, net.obs_size, net.num_actions) != want:
        raise CheckpointError(
            f"{folder}: the network's shape (agents, observation, actions) "
            f"{(net.n_agents, net.obs_size, net.num_actions)} does not fit its rules: {want}"
        )
    model = build_model(net)
    try:
        state = torch.load(folder / WEIGHTS_FILE, map_location="cpu", weights_only=True)
        model.load_state_dict(state)
    except Exception as e:  # a damaged file or another shape: torch raises many kinds
        raise CheckpointError(f"cannot load {folder / WEIGHTS_FILE}: {e}") from None
    model.eval()
    return spec, net, model


def row_of(net: NetworkSpec, rules: Any, seat: int) -> int:
    """The row of the actor's input and output that plays ``seat`` (see the module
    docstring)."""
    return seat if net.n_agents == rules.num_players else seat // rules.num_sides
