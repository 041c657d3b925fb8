"""The agents a server offers, by name: requests choose among them and never name a path.

The built-in agents are always there; ``allfives serve --agent [NAME=]SPEC`` adds more, such as
a checkpoint (``bot=runs/default/best.zip``). Each is made once, when the server starts, and
shared by every game (agents keep no state between moves).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agents.base import Agent
from agents.errors import AgentError
from agents.registry import is_checkpoint, is_kind_spec, make_agent
from allfives_env.core.rules import Rules

BUILT_IN = (
    "random",
    "greedy",
    "heuristic",
    "search:sims=100",
    "batchsearch:worlds=512,infer=1",
    "batchsearch:worlds=896,infer=1,equity=true",
)
"""Agents every server offers. The last is the strongest agent at up to 100 ms a move; it plays
the rules with a fitted match equity only (``pagat`` in 2 players and 4-player partnerships),
and a game of other rules that seats it is refused (422)."""

HUMAN = "human"
"""The seat name of the person at the page."""


class CatalogueError(AgentError):
    """A bad ``--agent`` given to the server (it does not start)."""


@dataclass(frozen=True)
class Entry:
    """One agent on offer: its ``name`` in requests, the ``agent`` made, and the ``rules`` it
    plays (``None``: any)."""

    name: str
    agent: Agent
    kind: str
    rules: Rules | None

    def to_json(self) -> dict[str, Any]:
        """The entry as the page lists it (never a path)."""
        return {
            "name": self.name,
            "kind": self.kind,
            "rules": None if self.rules is None else self.rules.describe(),
        }


def _entry(name: str, spec: str) -> Entry:
    try:
        agent = make_agent(spec)
    except (AgentError, ValueError, OSError) as e:
        raise CatalogueError(f"--agent {spec!r}: {e}") from None
    rules = getattr(getattr(agent, "spec", None), "rules", None)  # a checkpoint's
    checkpoint = isinstance(rules, Rules)
    if not checkpoint:  # a search whose networks were trained for some rules
        rules = getattr(agent, "trained_for", None)
    trained_for = rules if isinstance(rules, Rules) else None
    kind = "built-in" if spec in BUILT_IN else "checkpoint" if checkpoint else "added"
    return Entry(name, agent, kind, trained_for)


class Catalogue:
    """The agents on offer, by name, in the order listed."""

    def __init__(self, extra: list[str] | tuple[str, ...] = ()):
        """Make the built-in agents and every ``[NAME=]SPEC`` of ``extra``.

        A checkpoint without a name is named after its folder (``runs/x/best.zip`` → ``x``).

        Raises:
            CatalogueError: for a spec that cannot be made, or a name given twice.
        """
        self.entries: dict[str, Entry] = {}
        for spec in BUILT_IN:
            self._add(_entry(spec, spec))
        for item in extra:
            name, eq, spec = item.partition("=")
            if not eq or ":" in name or "/" in name or name.endswith(".zip"):
                name, spec = _default_name(item), item
            name = name.strip()
            if not name or name == HUMAN:
                raise CatalogueError(f"--agent {item!r}: a name must be given and not 'human'")
            self._add(_entry(name, spec.strip()))

    def _add(self, entry: Entry) -> None:
        if entry.name in self.entries:
            raise CatalogueError(
                f"--agent: the name {entry.name!r} is taken; name it: --agent NAME=SPEC"
            )
        self.entries[entry.name] = entry

    def get(self, name: str) -> Entry | None:
        """The entry called ``name``, if any."""
        return self.entries.get(name)

    def to_json(self) -> list[dict[str, Any]]:
        """Every entry, for the page."""
        return [e.to_json() for e in self.entries.values()]


def _default_name(spec: str) -> str:
    """``runs/x/best.zip`` → ``x``; ``rllib:runs/rllib/y`` → ``y``; anything else as given."""
    if is_checkpoint(spec) or is_kind_spec(spec):
        path = spec.partition(":")[2] if is_kind_spec(spec) else spec
        parts = [p for p in path.replace("\\", "/").split("/") if p]
        if len(parts) >= 2 and parts[-1] in ("best.zip", "latest.zip", "best", "checkpoint"):
            return parts[-2]
        return parts[-1].removesuffix(".zip") if parts else spec
    return spec
