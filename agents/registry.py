"""Agents by name, so every command line and config can name them with a string."""

from __future__ import annotations

from collections.abc import Callable

from agents.base import Agent
from agents.greedy import GreedyAgent
from agents.random_agent import RandomAgent

AGENTS: dict[str, Callable[[], Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
}
"""Agent names and their factories."""


class UnknownAgentError(ValueError):
    """An agent name that the registry does not know."""


def make_agent(spec: str) -> Agent:
    """The agent named by ``spec`` (``"random"``, ``"greedy"``).

    Raises:
        UnknownAgentError: for a name the registry does not know.
    """
    factory = AGENTS.get(spec)
    if factory is None:
        raise UnknownAgentError(f"unknown agent {spec!r} (choose from {', '.join(AGENTS)})")
    return factory()
