"""Registers the built-in agents with the registry."""

from __future__ import annotations

from agents.greedy import GreedyAgent
from agents.random_agent import RandomAgent
from agents.registry import register

register("random", RandomAgent)
register("greedy", GreedyAgent)
