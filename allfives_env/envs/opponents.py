"""Agents named by spec, for the environments, without importing the ``agents`` package.

An environment that takes opponents by name (``AllFivesSingleAgentEnv(opponents="heuristic")``)
calls :func:`make_agent`, which hands the spec to a *resolver*, a callable ``spec -> agent``.
Resolvers are found in the entry-point group ``allfives_env.agents`` (the ``agents`` package
declares ``agents.registry:make_agent`` there) or added at run time with
:func:`register_resolver`. The dependency points upward only through that name: the agents know
the environments, never the reverse.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points

from allfives_env.core.errors import AllFivesError
from allfives_env.core.player import Agent

ENTRY_POINT_GROUP = "allfives_env.agents"
"""The entry-point group of spec resolvers."""

Resolver = Callable[[str], Agent]

_RESOLVERS: list[Resolver] = []


class NoAgentResolverError(AllFivesError):
    """An agent was named by spec, but no package that makes agents is installed."""


def register_resolver(resolver: Resolver) -> None:
    """Use ``resolver`` (``spec -> agent``) for specs, before any found by entry point."""
    _RESOLVERS.insert(0, resolver)


def _resolvers() -> list[Resolver]:
    if not _RESOLVERS:
        for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            _RESOLVERS.append(ep.load())
    return _RESOLVERS


def make_agent(spec: str) -> Agent:
    """The agent ``spec`` names (``"heuristic"``, ``"search:sims=50"``, a checkpoint path).

    Raises:
        NoAgentResolverError: if no resolver is registered or installed.
        ValueError: whatever the resolver raises for a spec it does not know (the ``agents``
            package raises its ``UnknownAgentError``, a ``ValueError``).
    """
    resolvers = _resolvers()
    if not resolvers:
        raise NoAgentResolverError(
            f"cannot make agent {spec!r}: no agent package is installed "
            f"(pip install -e . installs 'agents', or call register_resolver)"
        )
    return resolvers[0](spec)
