"""Agents by name, so every command line and config names them with a string.

A spec is ``name`` or ``name:key=value,key=value`` (``"search:sims=200,time=0.5"``); values are
read as int, float, ``true``/``false`` or text; a key given twice is refused. A spec that names a
file (a path ending in ``.zip``) loads a learned agent from that checkpoint. Other packages add
kinds of agent whose spec is ``kind:ARGUMENT`` through the ``allfives.agent_kinds`` entry point
group (the ``[rllib]`` extra's ``rllib:PATH``): the factory gets ``ARGUMENT`` as it is (a kind
that takes parameters reads them with :func:`parse_params`).

One spec names one agent, everywhere (command lines take one spec per argument, the web page one
per ``--agent``): ``greedy,random`` is refused, and :func:`joined_specs` tells the old
comma-separated lists apart so that the error can show the new form. Every error quotes the spec
as it was given.

>>> make_agent("greedy").name
'greedy'
>>> parse_spec("search:sims=200,time=0.5")
('search', {'sims': 200, 'time': 0.5})
>>> parse_spec("search:sims=2,sims=3")
Traceback (most recent call last):
...
agents.registry.UnknownAgentError: bad agent spec 'search:sims=2,sims=3': sims is given twice
>>> joined_specs("greedy,random")
['greedy', 'random']
>>> joined_specs("batchsearch:worlds=512,infer=1") is None
True
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
from allfives_env.core.rules import Rules


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


def parse_params(text: str, spec: str) -> dict[str, Any]:
    """The parameters ``key=value,key=value`` of the spec ``spec`` (``text`` is its part after
    the colon; empty: none), values read as int, float, ``true``/``false`` or text.

    Raises:
        UnknownAgentError: quoting ``spec``, for an item that is not ``key=value`` or a key
            given twice.
    """
    params: dict[str, Any] = {}
    if not text.strip():
        if text:
            raise UnknownAgentError(f"bad agent spec {spec!r}: no parameter after the ':'")
        return params
    for item in text.split(","):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise UnknownAgentError(
                f"bad agent spec {spec!r}: parameters are key=value, separated by commas "
                f"(not {item.strip()!r})"
            )
        if key in params:
            raise UnknownAgentError(f"bad agent spec {spec!r}: {key} is given twice")
        params[key] = _value(value.strip())
    return params


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``name:key=value,...`` into the name and its parameters.

    Raises:
        UnknownAgentError: for a malformed parameter list or a key given twice (quoting
            ``spec``).
    """
    name, colon, rest = spec.partition(":")
    if colon and not rest:
        raise UnknownAgentError(f"bad agent spec {spec!r}: no parameter after the ':'")
    return name.strip(), parse_params(rest, spec)


def _names_an_agent(part: str) -> bool:
    """Whether ``part`` reads as a spec on its own: a known name or kind, or a checkpoint
    (``key=value``, a parameter, never: ``value=runs/v.zip`` is one)."""
    name = part.partition(":")[0].strip()
    if not name or "=" in name:
        return False
    return name in _FACTORIES or is_checkpoint(part) or is_kind_spec(part)


def joined_specs(spec: str) -> list[str] | None:
    """The specs of an old comma- or semicolon-separated list (``"greedy,random"``,
    ``"search:sims=50;greedy"``), or None when ``spec`` reads as one spec (``"search:sims=50,
    time=1"``, a path that exists).

    A list is recognised when every part names an agent on its own; what a command takes is
    one spec per argument, so it is refused with the parts shown.
    """
    import os

    if ("," not in spec and ";" not in spec) or os.path.exists(spec):
        return None
    parts = [p.strip() for p in spec.split(";" if ";" in spec else ",")]
    if len(parts) > 1 and all(_names_an_agent(p) for p in parts):
        return parts
    return None


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
        UnknownAgentError: for a name the registry does not know, a bad parameter, or several
            specs joined in one (every message quotes ``spec``).
        CheckpointError: for a checkpoint path that is missing or not a checkpoint.
    """
    parts = joined_specs(spec)
    if parts is not None:
        raise UnknownAgentError(
            f"{spec!r} names {len(parts)} agents: give one spec per agent "
            f"({' '.join(repr(p) for p in parts)})"
        )
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
        where = "" if name == spec else f" in {spec!r}"
        raise UnknownAgentError(
            f"unknown agent {name!r}{where} (choose from {known}, or a checkpoint path ending "
            "in .zip)"
        )
    try:
        made: Agent = factory(**params)
        return made
    except TypeError as e:
        raise UnknownAgentError(f"bad agent spec {spec!r}: {e}") from None
    except ValueError as e:
        raise UnknownAgentError(f"bad agent spec {spec!r}: {e}") from None


def agent_for(spec: str, rules: Rules) -> Agent:
    """The agent named by ``spec``, checked to play ``rules`` (a checkpoint plays only the rules
    it was trained on: see ``check_rules``), before anything is played or printed.

    Raises:
        UnknownAgentError, CheckpointError: as :func:`make_agent`.
        AgentError: for rules the agent cannot play.
    """
    agent = make_agent(spec)
    check_plays(agent, rules)
    return agent


def check_plays(agent: Agent, rules: Rules) -> None:
    """Refuse ``rules`` that ``agent`` cannot play (its ``check_rules``, where it has one).

    Raises:
        AgentError: as the agent's ``check_rules`` raises it (a ``ValueError`` of another kind
            becomes one).
    """
    check = getattr(agent, "check_rules", None)
    if check is None:
        return
    try:
        check(rules)
    except AgentError:
        raise
    except ValueError as e:
        raise AgentError(f"{getattr(agent, 'name', agent)!s}: {e}") from None


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
