"""A BenchMARL policy as an agent: ``benchmarl:PATH`` wherever an agent spec is taken.

``PATH`` is a policy folder (:mod:`allfives_benchmarl.policy_file`) that ``python -m
allfives_benchmarl.train --out PATH`` wrote. The agent reads only its seat's view: the
observation ``Encoding(rules, action_features).observe_view(view)`` (what the environment gave
that seat in training) and the legal actions; it plays the legal action of the highest output
of the seat's actor (logits or Q values), never WAIT. A forced draw or pass (the only legal
action) is taken without asking the network.

The registry finds this module through the ``allfives.agent_kinds`` entry point, so the
``agents`` package never imports torch, TorchRL or BenchMARL.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.learned import CheckpointError, PolicySpec, check_trained_rules
from allfives_benchmarl.policy_file import NetworkSpec, load_policy, row_of
from allfives_env.core.actions import DRAW_ID, Action
from allfives_env.core.rules import Rules
from allfives_env.core.view import PlayerView
from allfives_env.envs.spaces import Encoding


class BenchMARLAgent:
    """Plays a BenchMARL policy folder's actor (see the module docstring)."""

    def __init__(self, spec: PolicySpec, net: NetworkSpec, model: Any, name: str):
        self.spec = spec
        self.net = net
        self.model = model
        self.name = name
        self.encoding = Encoding(spec.rules, spec.action_features)

    def check_rules(self, rules: Rules) -> None:
        """Refuse rules other than the ones the policy was trained on.

        Raises:
            CheckpointError: if ``rules`` are not the policy's.
        """
        check_trained_rules(self.name, self.spec.rules, rules)

    def outputs(self, obs: np.ndarray, seat: int) -> np.ndarray:
        """The actor's outputs (logits or Q values, WAIT last) for seat ``seat`` of the
        observation ``obs``; the other seats' rows of the input are zeros, which a
        decentralised actor never reads for this seat."""
        from tensordict import TensorDict

        net = self.net
        row = row_of(net, self.spec.rules, seat)
        x = torch.zeros((1, net.n_agents, net.obs_size), dtype=torch.float32)
        x[0, row] = torch.as_tensor(obs, dtype=torch.float32)
        inner = TensorDict({"observation": x}, batch_size=(1, net.n_agents))
        td = TensorDict({net.group: inner}, batch_size=(1,))
        with torch.no_grad():
            out = self.model(td).get((net.group, net.out_key))
        result: np.ndarray = out[0, row].numpy()
        return result

    def act(self, view: PlayerView, rng: random.Random) -> Action:
        """The legal action of the highest output for ``view``.

        Raises:
            CheckpointError: if the view's rules are not the policy's.
        """
        legal = view.legal_actions
        if len(legal) == 1 and legal[0] >= DRAW_ID:
            return legal[0]
        self.check_rules(view.rules)
        enc = self.encoding
        by_env: dict[int, Action] = {}
        for a in legal:
            env_id = enc.to_env[a]
            if env_id >= 0:
                by_env[env_id] = a
        z = self.outputs(enc.observe_view(view), view.seat)
        ids = np.fromiter(by_env, np.int64)
        return by_env[int(ids[int(np.argmax(z[ids]))])]


def load_benchmarl_agent(path: str | Path) -> BenchMARLAgent:
    """The agent of the policy folder at ``path``.

    Raises:
        CheckpointError: if ``path`` is not a readable policy folder.
    """
    folder = Path(path)
    spec, net, model = load_policy(folder)
    torch.set_num_threads(1)
    return BenchMARLAgent(spec, net, model, f"benchmarl:{folder.resolve().name}")


def make(argument: str) -> BenchMARLAgent:
    """The entry point's factory: ``benchmarl:PATH`` → :func:`load_benchmarl_agent` (``PATH``).

    Raises:
        CheckpointError: for an empty or unreadable ``PATH``.
    """
    if not argument:
        raise CheckpointError(
            "bad agent spec 'benchmarl:': it needs a path (benchmarl:PATH, a policy folder)"
        )
    return load_benchmarl_agent(argument)
