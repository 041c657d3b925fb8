"""Policies over a solved tree's information states: an agent's policy read into the tree, and a
solved policy saved to a file and played as an agent (``exact:PATH``).

**The policy file** (``.npz``, NumPy's zip of arrays, no pickles): ``meta`` (UTF-8 JSON:
``format`` :data:`FORMAT`, ``key_version``, ``rules`` (every field of the
:class:`~allfives_env.core.rules.Rules`), and free-form ``about``), then per information state
its key (``keys``: the keys' bytes concatenated, ``key_ends``: where each ends), ``width`` and
its legal engine actions (``actions``) with their probabilities (``probs``). Loading checks
every array's type and shape and every state's probabilities, and refuses a file of another
format or key version, in one line.

**The agent** looks its view's :func:`~agents.exact.infoset.infoset_key` up and samples the
state's probabilities with the caller's ``rng``. It plays the rules it was solved for (a
two-player hand of a small set); in a match it plays each hand by the one-hand policy (the key
holds no score), which is the solved game's equilibrium only in the match's first hand.
"""

from __future__ import annotations

import json
import random
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from agents.errors import AgentError
from agents.exact.infoset import KEY_VERSION, infoset_key
from agents.exact.tree import CHANCE, Tree, path_to
from allfives_env.core.actions import DRAW_ID, Action
from allfives_env.core.deal import Deal
from allfives_env.core.game import Game
from allfives_env.core.rules import Rules
from allfives_env.core.view import PlayerView

FORMAT = "allfives-exact-policy/1"
"""The policy file's format name."""

F64 = npt.NDArray[np.float64]


class PolicyFileError(AgentError):
    """A policy file that is missing, damaged, or of another format."""


def game_at(tree: Tree, node: int, deals: list[tuple[Deal, float]]) -> Game:
    """The core game's position at ``node``, replayed from the root along the path to it
    (``deals``: :func:`agents.exact.tree.deals` of the tree's rules, as the tree was built)."""
    path = path_to(tree, node)
    game = Game(tree.rules, deal=deals[int(tree.slot[path[0]])][0])
    for child in path[1:]:
        par = int(tree.parent[child])
        k = int(tree.slot[child])
        if tree.kind[par] == CHANCE:  # a draw: the tile is the k-th of the boneyard now
            game.stack_next_draw(game.boneyard[k])
            game.apply(DRAW_ID)
        else:
            action = int(tree.actions[tree.offset[tree.infoset[par]] + k])
            if action != DRAW_ID:  # a draw is applied at its chance node, with its tile
                game.apply(action)
    return game


def homes(tree: Tree) -> npt.NDArray[np.int64]:
    """A node of each information state (the first in node order)."""
    decisions = np.flatnonzero(tree.infoset >= 0)
    ids = tree.infoset[decisions]
    first = np.full(tree.num_infosets, -1, np.int64)
    # the first node of each state: write in reverse so the smallest node id wins
    first[ids[::-1]] = decisions[::-1]
    return first


def views(tree: Tree) -> list[PlayerView]:
    """A view of each information state, from its home node's position."""
    from agents.exact.tree import deals

    all_deals = deals(tree.rules)
    out = []
    for s, node in enumerate(homes(tree)):
        game = game_at(tree, int(node), all_deals)
        out.append(game.view(int(tree.player[s])))
    return out


def measured_agent(spec: str, rules: Rules, sample: bool = False) -> Any:
    """The agent ``spec`` names, made for ``rules`` as the solver measures it: with ``sample``,
    a checkpoint's policy as it samples (the softmax over the legal actions, the policy PPO
    trains) instead of its most likely action; other agents are as ``spec`` makes them.

    Raises:
        AgentError: for a spec the registry refuses, or an agent for other rules.
    """
    from agents.learned import LearnedAgent
    from agents.registry import agent_for

    agent = agent_for(spec, rules)
    if sample and isinstance(agent, LearnedAgent):
        agent.sample = True
    return agent


def policy_of_agent(tree: Tree, agent: Any, seed: int = 0) -> F64:
    """``agent``'s policy in every information state of ``tree``: its
    ``probabilities(view)`` (a dict of legal action → probability) where it has one,
    else the action its ``act`` picks, with probability 1.

    Raises:
        AgentError: for an agent without probabilities whose choice depends on its ``rng``
            (two seeds choose differently somewhere), or probabilities outside the legal
            actions.
    """
    policy = np.zeros(len(tree.actions), np.float64)
    probs = getattr(agent, "probabilities", None)
    for s, view in enumerate(views(tree)):
        base, width = int(tree.offset[s]), int(tree.width[s])
        legal = [int(a) for a in tree.actions[base : base + width]]
        if probs is not None:
            given = probs(view)
            if set(map(int, given)) - set(legal):
                raise AgentError(f"{agent.name}: probabilities for actions that are not legal")
            for j, a in enumerate(legal):
                policy[base + j] = float(given.get(Action(a), 0.0))
            continue
        a = int(agent.act(view, random.Random(seed)))
        if int(agent.act(view, random.Random(seed + 1))) != a:
            raise AgentError(
                f"{agent.name} chooses at random and gives no action probabilities: its policy "
                "cannot be read exactly"
            )
        policy[base + legal.index(a)] = 1.0
    return policy


def policy_bytes(tree: Tree, policy: F64, about: dict[str, Any]) -> bytes:
    """The policy file's bytes for ``policy`` (of ``tree``; see the module docstring)."""
    import dataclasses
    import io

    meta = {
        "format": FORMAT,
        "key_version": KEY_VERSION,
        "rules": dataclasses.asdict(tree.rules),
        "about": about,
    }
    keys = b"".join(tree.keys)
    ends = np.cumsum([len(k) for k in tree.keys], dtype=np.int64)
    buffer = io.BytesIO()
    np.savez_compressed(
        buffer,
        meta=np.frombuffer(json.dumps(meta).encode("utf-8"), np.uint8),
        keys=np.frombuffer(keys, np.uint8),
        key_ends=ends,
        width=tree.width.astype(np.int32),
        actions=tree.actions.astype(np.int32),
        probs=policy.astype(np.float64),
    )
    return buffer.getvalue()


class ExactPolicy:
    """A solved policy read from its file: probabilities by information-state key."""

    def __init__(self, rules: Rules, table: dict[bytes, tuple[list[int], list[float]]], about: Any):
        self.rules = rules
        self.table = table
        self.about = about


def load_policy(path: Path) -> ExactPolicy:
    """Read a policy file (see the module docstring).

    Raises:
        PolicyFileError: naming the file, for a missing or damaged file, another format or key
            version, or arrays that disagree.
    """

    def bad(why: str) -> PolicyFileError:
        return PolicyFileError(f"{path}: not a policy file of {FORMAT} ({why})")

    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except FileNotFoundError:
        raise PolicyFileError(f"{path}: no such file") from None
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as e:
        raise bad(str(e) or type(e).__name__) from None
    need = {"meta", "keys", "key_ends", "width", "actions", "probs"}
    if set(arrays) != need:
        raise bad(f"its arrays are {sorted(arrays)}")
    try:
        meta = json.loads(arrays["meta"].tobytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise bad(f"meta: {e}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise bad(f"format {meta.get('format') if isinstance(meta, dict) else meta!r}")
    if meta.get("key_version") != KEY_VERSION:
        raise bad(f"key version {meta.get('key_version')!r}, this version reads {KEY_VERSION}")
    try:
        rules = Rules(**meta["rules"])
    except (TypeError, ValueError) as e:
        raise bad(f"rules: {e}") from None
    keys, ends = arrays["keys"], arrays["key_ends"]
    width, actions, probs = arrays["width"], arrays["actions"], arrays["probs"]
    kinds = (keys.dtype, ends.dtype, width.dtype, actions.dtype, probs.dtype)
    if kinds != (np.uint8, np.int64, np.int32, np.int32, np.float64):
        raise bad(f"array types {[str(k) for k in kinds]}")
    n = len(width)
    if (
        len(ends) != n
        or (n and (ends[-1] != len(keys) or np.any(np.diff(ends) <= 0) or ends[0] <= 0))
        or np.any(width < 1)
        or int(width.sum()) != len(actions)
        or len(probs) != len(actions)
    ):
        raise bad("its arrays disagree in length")
    if not np.all(np.isfinite(probs)) or np.any(probs < 0):
        raise bad("a probability is negative or not finite")
    offsets = np.concatenate([[0], np.cumsum(width)[:-1]]).astype(np.int64)
    sums = np.add.reduceat(probs, offsets) if n else np.zeros(0)
    if np.any(np.abs(sums - 1.0) > 1e-6):
        raise bad("a state's probabilities do not sum to 1")
    raw = keys.tobytes()
    table: dict[bytes, tuple[list[int], list[float]]] = {}
    start = 0
    for s in range(n):
        end = int(ends[s])
        a, b = int(offsets[s]), int(offsets[s] + width[s])
        table[raw[start:end]] = (actions[a:b].tolist(), probs[a:b].tolist())
        start = end
    if len(table) != n:
        raise bad("a key is given twice")
    return ExactPolicy(rules, table, meta.get("about"))


class ExactAgent:
    """Plays a solved policy (see the module docstring)."""

    def __init__(self, policy: ExactPolicy, name: str = "exact"):
        self.policy = policy
        self.name = name

    def check_rules(self, rules: Rules) -> None:
        """Refuse rules other than the ones the policy was solved for.

        Raises:
            AgentError: naming both.
        """
        if rules != self.policy.rules:
            raise AgentError(
                f"{self.name} was solved for {self.policy.rules.describe()}, not {rules.describe()}"
            )

    def probabilities(self, view: PlayerView) -> dict[Action, float]:
        """The policy's probability of each legal action in ``view``.

        Raises:
            AgentError: for a view of a game the policy was not solved for.
        """
        entry = self.policy.table.get(infoset_key(view))
        if entry is None:
            raise AgentError(
                f"{self.name}: a position outside the solved game ({view.rules.describe()})"
            )
        return {Action(a): p for a, p in zip(*entry, strict=True)}

    def act(self, view: PlayerView, rng: random.Random) -> Action:
        """Sample the policy's action with ``rng``."""
        probs = self.probabilities(view)
        x = rng.random()
        last = None
        for a, p in probs.items():
            if p > 0:
                last = a
                x -= p
                if x < 0:
                    return a
        assert last is not None
        return last


def make(argument: str) -> ExactAgent:
    """The ``exact:PATH`` agent kind: the policy file at ``PATH``.

    Raises:
        PolicyFileError: as :func:`load_policy`.
    """
    path = Path(argument)
    return ExactAgent(load_policy(path), name=f"exact:{path.name}")
