"""Agents that play All Fives from what their seat may know (a :class:`PlayerView`)."""

from agents.base import Agent
from agents.greedy import GreedyAgent
from agents.random_agent import RandomAgent
from agents.registry import AGENTS, UnknownAgentError, known_agents, make_agent, parse_spec

__all__ = [
    "AGENTS",
    "Agent",
    "GreedyAgent",
    "RandomAgent",
    "UnknownAgentError",
    "known_agents",
    "make_agent",
    "parse_spec",
]
