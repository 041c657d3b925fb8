"""Agents over a batch of games: the protocol the vectorized front ends seat at the table.

A *batch agent* chooses for many games at once::

    actions = agent.act_batch(vg, games, rng)

``games`` are indices into a :class:`~allfives_env.vector.engine.VectorGame` (each live, its
acting seat this agent's); ``rng`` holds one SplitMix64 state per game of ``vg`` (see
:func:`~allfives_env.vector.engine.policy_rng`), and the agent draws every random number of game
``i`` from ``rng[i]`` alone, so a game's play depends on its own generator whatever the batch.
The result is one env action id per listed game.

:func:`batch_agent` turns what the front ends accept into one: a batch agent as it is; an agent
with ``act_batch`` (the built-in ``random``, ``greedy`` and ``heuristic`` run compiled); any other
agent (``act(view, rng)``, e.g. the search agent) through one :class:`PlayerView` per game; an
agent spec (``"heuristic"``, ``"search:sims=50"``, a checkpoint), made by the installed agent
package; or a policy ``observation dict -> action id``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np

from allfives_env.core.player import Agent
from allfives_env.envs.opponents import make_agent
from allfives_env.vector.engine import VectorGame
from allfives_env.vector.errors import VectorConfigError
from allfives_env.vector.rng import _mix_np
from allfives_env.vector.state import I64, U64


@runtime_checkable
class BatchAgent(Protocol):
    """Chooses for many games at once (see the module docstring)."""

    name: str

    def act_batch(self, vg: VectorGame, games: I64, rng: U64) -> I64:
        """One env action id for the acting seat of each game in ``games``."""
        ...


def draw_bits(rng: U64, games: I64) -> U64:
    """Advance the SplitMix64 states ``rng[games]`` one step; 64 random bits per listed game."""
    with np.errstate(over="ignore"):
        rng[games] += np.uint64(0x9E3779B97F4A7C15)
    return _mix_np(rng[games])


class RandomBatch:
    """Uniform over each game's legal actions (the compiled ``random``)."""

    name = "random"

    def act_batch(self, vg: VectorGame, games: I64, rng: U64) -> I64:
        """Uniform legal actions: the ``k``-th legal action, ``k`` from ``rng[i]`` (Lemire's
        multiply-shift on the high 32 bits, as the engine's own generator draws)."""
        masks = vg.masks()[games].astype(np.int64)
        counts = masks.sum(axis=1).astype(np.uint64)
        bits = draw_bits(rng, games) >> np.uint64(32)
        with np.errstate(over="ignore"):
            k = ((bits * counts) >> np.uint64(32)).astype(np.int64)
        position = np.cumsum(masks, axis=1)
        out: I64 = (position <= k[:, None]).sum(axis=1).astype(np.int64)
        return out


class GreedyBatch:
    """The greedy agent, compiled (:meth:`VectorGame.greedy_actions`)."""

    name = "greedy"

    def act_batch(self, vg: VectorGame, games: I64, rng: U64) -> I64:
        """The greedy choices (no randomness)."""
        out: I64 = vg.greedy_actions()[games]
        return out


class ViewAgent:
    """Any agent with ``act(view, rng)``, asked game by game through a :class:`PlayerView`.

    Its ``random.Random`` for a move of game ``i`` is seeded from ``rng[i]``'s next 64 bits.
    """

    def __init__(self, agent: Agent):
        self.agent = agent
        self.name = getattr(agent, "name", type(agent).__name__)

    def act_batch(self, vg: VectorGame, games: I64, rng: U64) -> I64:
        """Each listed game's action, from the agent's view of it."""
        seeds = draw_bits(rng, games)
        enc = vg.encoding
        out = np.empty(len(games), np.int64)
        for k, i in enumerate(games.tolist()):
            view = vg.view(i)
            action = self.agent.act(view, random.Random(int(seeds[k])))
            out[k] = enc.to_env[action]
        return out


class PolicyAgent:
    """A policy ``{"observation", "action_mask"} -> action id``, asked game by game."""

    def __init__(self, policy: Callable[[dict[str, Any]], int], name: str = "policy"):
        self.policy = policy
        self.name = name

    def act_batch(self, vg: VectorGame, games: I64, rng: U64) -> I64:
        """Each listed game's action from its acting seat's observation and mask."""
        obs = vg.observe()
        masks = vg.masks()
        return np.array(
            [self.policy({"observation": obs[i], "action_mask": masks[i]}) for i in games],
            np.int64,
        )


_BUILTIN: dict[str, Callable[[], BatchAgent]] = {"random": RandomBatch, "greedy": GreedyBatch}


def batch_agent(opponent: object) -> BatchAgent:
    """``opponent`` as a :class:`BatchAgent` (see the module docstring).

    Raises:
        VectorConfigError: for anything that is none of those.
        ValueError: for an agent spec the agent package does not know.
    """
    if isinstance(opponent, str):
        if opponent in _BUILTIN:
            return _BUILTIN[opponent]()
        return batch_agent(make_agent(opponent))
    if hasattr(opponent, "act_batch"):
        return opponent  # type: ignore[return-value]
    if hasattr(opponent, "act"):
        return ViewAgent(opponent)  # type: ignore[arg-type]
    if callable(opponent):
        return PolicyAgent(opponent)
    raise VectorConfigError(
        f"an opponent must be a batch agent, an agent, an agent spec or a policy, not {opponent!r}"
    )
