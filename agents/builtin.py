"""Registers the built-in agents with the registry."""

from __future__ import annotations

from agents.greedy import GreedyAgent
from agents.heuristic import HeuristicAgent
from agents.random_agent import RandomAgent
from agents.registry import register
from agents.search import SearchAgent

register("random", RandomAgent)
register("greedy", GreedyAgent)
register("heuristic", HeuristicAgent)
register("search", SearchAgent)
