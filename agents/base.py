"""The protocol every agent implements (defined in the rules core, re-exported here)."""

from allfives_env.core.player import Agent

__all__ = ["Agent"]
