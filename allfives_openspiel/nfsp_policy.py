"""An NFSP policy trained in OpenSpiel, as an agent: ``openspiel-nfsp:PATH``.

``PATH`` is a policy folder that ``python -m allfives_openspiel.train --out PATH`` wrote:

- ``allfives.json``: the rules (:class:`agents.learned.PolicySpec`'s fields) and, under
  ``"openspiel"``, the game string and the network's shape (:class:`NetworkShape`);
- ``avg_network.pt``: the state dict of each player's NFSP *average-policy* network (OpenSpiel's
  ``dqn.MLP``), tensors only, under ``"player_0"``, ``"player_1"``, … (read with
  ``torch.load(weights_only=True)``).

The networks read the game's observation tensor (the default observer: the seat's environment
observation vector, :class:`~allfives_env.envs.spaces.Encoding`), which the agent computes from
the seat's view alone (``Encoding(rules).observe_view(view)``). The agent at seat ``s`` plays
player ``s``'s network: it samples a legal action from the masked softmax of its outputs, as
NFSP's average policy acts, with the agent's generator (a seeded match replays). A forced draw or
pass is taken without asking the network.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from open_spiel.python.pytorch import dqn

from agents.learned import (
    META_FILE,
    CheckpointError,
    PolicySpec,
    check_fields,
    check_trained_rules,
    holds_policy,
    read_policy_meta,
    write_policy_folder,
)
from allfives_env.core.actions import DRAW_ID, Action
from allfives_env.core.rules import Rules
from allfives_env.core.view import PlayerView
from allfives_env.envs.spaces import Encoding

WEIGHTS_FILE = "avg_network.pt"
"""The players' average-policy networks in a policy folder."""


@dataclass(frozen=True)
class NetworkShape:
    """How to rebuild the networks: ``dqn.MLP(obs_size, hidden, num_actions)`` per player."""

    algorithm: str
    """``"nfsp"``."""
    game: str
    """The OpenSpiel game string it was trained on."""
    num_players: int
    obs_size: int
    num_actions: int
    hidden: tuple[int, ...]

    @classmethod
    def from_json(cls, obj: Any) -> NetworkShape:
        """Read :func:`dataclasses.asdict`'s dict, checked field by field.

        Raises:
            CheckpointError: naming the field, if it is malformed (a missing or unknown field,
                a value of the wrong type, an algorithm other than ``nfsp``).
        """
        where = f"'openspiel' entry in {META_FILE}"
        shape = cls(**check_fields(obj, _SHAPE_FIELDS, where))
        if shape.algorithm != "nfsp":
            raise CheckpointError(f"bad {where}: algorithm {shape.algorithm!r} is not 'nfsp'")
        return shape


_SHAPE_FIELDS = {
    "algorithm": "text",
    "game": "text",
    "num_players": "count",
    "obs_size": "count",
    "num_actions": "count",
    "hidden": "counts",
}


def build_network(shape: NetworkShape) -> torch.nn.Module:
    """One player's average-policy network of ``shape``, fresh weights."""
    net: torch.nn.Module = dqn.MLP(shape.obs_size, list(shape.hidden), shape.num_actions)
    return net


def save_policy(
    folder: Path, rules: Rules, shape: NetworkShape, networks: list[torch.nn.Module]
) -> None:
    """Write the policy folder ``folder`` (each file replaced whole)."""
    import io

    state = {
        f"player_{p}": {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}
        for p, net in enumerate(networks)
    }
    buffer = io.BytesIO()
    torch.save(state, buffer)
    spec = PolicySpec(rules, False)
    write_policy_folder(folder, spec, "openspiel", asdict(shape), WEIGHTS_FILE, buffer.getvalue())


def is_policy_folder(folder: Path) -> bool:
    """Whether ``folder`` holds both files of a policy."""
    return holds_policy(folder, WEIGHTS_FILE)


def load_policy(folder: Path) -> tuple[Rules, NetworkShape, list[torch.nn.Module]]:
    """The rules, the shape and each player's network (eval mode) of the policy in ``folder``.

    Raises:
        CheckpointError: if ``folder`` is not a readable policy folder.
    """
    spec, entry = read_policy_meta(
        folder, WEIGHTS_FILE, "openspiel", "python -m allfives_openspiel.train"
    )
    shape = NetworkShape.from_json(entry)
    encoding = Encoding(spec.rules)
    if (shape.obs_size, shape.num_actions, shape.num_players) != (
        encoding.obs_size,
        encoding.num_actions,
        spec.rules.num_players,
    ):
        raise CheckpointError(f"{folder}: the network's shape does not fit its rules")
    networks = []
    try:
        state = torch.load(folder / WEIGHTS_FILE, map_location="cpu", weights_only=True)
        for p in range(shape.num_players):
            net = build_network(shape)
            net.load_state_dict(state[f"player_{p}"])
            net.eval()
            networks.append(net)
    except Exception as e:  # a damaged file or another shape: torch raises many kinds
        raise CheckpointError(f"cannot load {folder / WEIGHTS_FILE}: {e}") from None
    return spec.rules, shape, networks


class NFSPAgent:
    """Plays an NFSP policy folder's average policy (see the module docstring)."""

    def __init__(
        self, rules: Rules, shape: NetworkShape, networks: list[torch.nn.Module], name: str
    ):
        self.rules = rules
        self.shape = shape
        self.networks = networks
        self.name = name
        self.encoding = Encoding(rules)

    def check_rules(self, rules: Rules) -> None:
        """Refuse rules other than the ones the policy was trained on.

        Raises:
            CheckpointError: if ``rules`` are not the policy's.
        """
        check_trained_rules(self.name, self.rules, rules)

    def probabilities(self, view: PlayerView) -> dict[Action, float]:
        """The average policy's probability of each legal action of ``view``.

        Raises:
            CheckpointError: if the view's rules are not the policy's.
        """
        self.check_rules(view.rules)
        enc = self.encoding
        legal = list(view.legal_actions)
        ids = [enc.to_env[a] for a in legal]
        x = torch.as_tensor(enc.observe_view(view), dtype=torch.float32).unsqueeze(0)
        with torch.no_grad():
            z = self.networks[view.seat](x)[0].numpy().astype(np.float64)
        logits = z[ids]
        weights = np.exp(logits - logits.max())
        weights /= weights.sum()
        return dict(zip(legal, (float(w) for w in weights), strict=True))

    def act(self, view: PlayerView, rng: random.Random) -> Action:
        """A legal action sampled from the average policy with ``rng``.

        Raises:
            CheckpointError: if the view's rules are not the policy's.
        """
        legal = view.legal_actions
        if len(legal) == 1 and legal[0] >= DRAW_ID:
            return legal[0]
        probs = self.probabilities(view)
        u = rng.random()
        total = 0.0
        for action, p in probs.items():
            total += p
            if u < total:
                return action
        return legal[-1]  # u beyond a total that rounding left below 1


def load_nfsp_agent(path: str | Path) -> NFSPAgent:
    """The agent of the policy folder at ``path``.

    Raises:
        CheckpointError: if ``path`` is not a readable policy folder.
    """
    folder = Path(path)
    rules, shape, networks = load_policy(folder)
    torch.set_num_threads(1)
    return NFSPAgent(rules, shape, networks, f"openspiel-nfsp:{folder.resolve().name}")


def make(argument: str) -> NFSPAgent:
    """The entry point's factory: ``openspiel-nfsp:PATH`` → :func:`load_nfsp_agent` (``PATH``).

    Raises:
        CheckpointError: for an empty or unreadable ``PATH``.
    """
    if not argument:
        raise CheckpointError(
            "bad agent spec 'openspiel-nfsp:': it needs a path (openspiel-nfsp:PATH, a policy "
            "folder)"
        )
    return load_nfsp_agent(argument)
