"""The base of every error the agents package raises for bad input."""

from __future__ import annotations


class AgentError(ValueError):
    """A user mistake about agents: an unknown spec, a bad checkpoint, bad evaluation or play
    arguments. Command lines print its one-line message and exit with status 2."""
