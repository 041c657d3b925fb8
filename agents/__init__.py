"""Agents that play All Fives from what their seat may know (a :class:`PlayerView`)."""

from agents.base import Agent
from agents.greedy import GreedyAgent
from agents.heuristic import HeuristicAgent
from agents.random_agent import RandomAgent
from agents.registry import AGENTS, UnknownAgentError, known_agents, make_agent, parse_spec
from agents.sampler import sample_world
from agents.search import SearchAgent

__all__ = [
    "AGENTS",
    "Agent",
    "GreedyAgent",
    "HeuristicAgent",
    "RandomAgent",
    "SearchAgent",
    "UnknownAgentError",
    "known_agents",
    "make_agent",
    "parse_spec",
    "sample_world",
]
