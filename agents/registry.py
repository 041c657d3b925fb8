"""Agents by name, so every command line and config names them with a string.

A spec is ``name`` or ``name:key=value,key=value`` (``"search:sims=200,time=0.5"``); values are
read as int, float, ``true``/``false`` or text. A spec that names a file (a path ending in
``.zip``) loads a learned agent from that checkpoint. Other packages add kinds of agent whose
spec is ``kind:ARGUMENT`` through the ``allfives.agent_kinds`` entry point group (the
``[rllib]`` extra's ``rllib:PATH``): the factory gets ``ARGUMENT`` as it is.

>>> make_agent("greedy").name
'greedy'
>>> parse_spec("search:sims=200,time=0.5")
('search', {'sims': 200, 'time': 0.5})
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.base import Agent
from agents.batch_search import BatchSearchAgent
from agents.errors import AgentError
from agents.greedy import GreedyAgent
from agents.heuristic import HeuristicAgent
from agents.random_agent import RandomAgent
from agents.search import SearchAgent, ValueSearch


class UnknownAgentError(AgentError):
    """An agent spec that names no agent, or gives it a parameter it does not take."""


_FACTORIES: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "heuristic": HeuristicAgent,
    "search": SearchAgent,
    "batchsearch": BatchSearchAgent,
}
AGENTS = _FACTORIES
"""Agent names and their factories (keyword parameters from the spec); :func:`register` adds
more."""


def register(name: str, factory: Callable[..., Agent]) -> None:
    """Make ``factory`` available as ``name`` in specs."""
    _FACTORIES[name] = factory


def _value(text: str) -> Any:
    if text in ("true", "false"):
        return text == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``name:key=value,...`` into the name and its parameters.

    Raises:
        UnknownAgentError: for a malformed parameter list.
    """
    name, _, rest = spec.partition(":")
    params: dict[str, Any] = {}
    if rest:
        for item in rest.split(","):
            key, eq, value = item.partition("=")
            if not eq or not key.strip():
                raise UnknownAgentError(
                    f"bad agent spec {spec!r}: parameters are key=value, separated by commas"
                )
            params[key.strip()] = _value(value.strip())
    return name.strip(), params


def is_kind_spec(spec: str) -> bool:
    """Whether ``spec`` is ``kind:ARGUMENT`` of an agent kind from another package."""
    kind, colon, _ = spec.partition(":")
    return bool(colon) and kind.strip() not in _FACTORIES and _kind(kind.strip()) is not None


def is_checkpoint(spec: str) -> bool:
    """Whether ``spec`` names a learned agent's checkpoint file (and not an agent whose
    parameters end with one, like ``batchsearch:rollout=runs/default/best.zip``)."""
    return spec.endswith(".zip") and spec.partition(":")[0].strip() not in _FACTORIES


AGENT_KINDS = "allfives.agent_kinds"
"""The entry point group of agent kinds from other packages (name → factory of one string)."""


def _kind(name: str) -> Callable[[str], Agent] | None:
    """The factory that the ``allfives.agent_kinds`` entry point ``name`` names, if any."""
    from importlib.metadata import entry_points

    for ep in entry_points(group=AGENT_KINDS, name=name):
        try:
            factory: Callable[[str], Agent] = ep.load()
        except ImportError as e:
            raise UnknownAgentError(
                f"agent kind {name!r} needs a package that is not installed ({e.name}): "
                f"pip install -e '.[{name}]'"
            ) from None
        return factory
    return None


def make_agent(spec: str) -> Agent:
    """The agent named by ``spec``.

    Raises:
        UnknownAgentError: for a name the registry does not know, or a bad parameter.
        CheckpointError: for a checkpoint path that is missing or not a checkpoint.
    """
    if is_checkpoint(spec):
        from agents.learned import load_learned

        agent: Agent = load_learned(spec)
        return agent
    kind, colon, argument = spec.partition(":")
    if colon and kind.strip() not in _FACTORIES:
        plugin = _kind(kind.strip())
        if plugin is not None:
            return plugin(argument.strip())
    name, params = parse_spec(spec)
    factory = _FACTORIES.get(name)
    if factory is None:
        known = ", ".join(sorted(_FACTORIES))
        raise UnknownAgentError(
            f"unknown agent {name!r} (choose from {known}, or a checkpoint path ending in .zip)"
        )
    try:
        made: Agent = factory(**params)
        return made
    except TypeError as e:
        raise UnknownAgentError(f"bad parameters for agent {name!r}: {e}") from None
    except ValueError as e:
        raise UnknownAgentError(f"bad parameters for agent {name!r}: {e}") from None


def known_agents() -> list[str]:
    """The registered agent names (agent kinds of other packages as ``kind:``)."""
    from importlib.metadata import entry_points

    kinds = [f"{ep.name}:" for ep in entry_points(group=AGENT_KINDS)]
    return sorted(_FACTORIES) + sorted(kinds)


def value_agent(spec: str) -> tuple[ValueSearch, int]:
    """The value search named by ``spec`` and how many rollouts its values sum per action.

    Raises:
        ValueError: for a spec that is not ``search`` (without a time budget) or
            ``batchsearch``, or that the registry refuses.
    """
    agent = make_agent(spec)
    if isinstance(agent, ValueSearch):
        rounds = agent.rounds()
        if rounds is not None:
            return agent, rounds
    raise ValueError(
        f"a teacher of values must be batchsearch or search without a time budget, not {spec!r}"
    )
