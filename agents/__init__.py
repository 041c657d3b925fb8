"""Agents that play All Fives from what their seat may know."""

from agents.base import Agent
from agents.greedy import GreedyAgent
from agents.random_agent import RandomAgent
from agents.registry import AGENTS, make_agent

__all__ = ["AGENTS", "Agent", "GreedyAgent", "RandomAgent", "make_agent"]
