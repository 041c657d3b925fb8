"""Speed: random legal play, timed (``allfives speed engine`` and ``allfives speed env``).

Engine: a *move* is one applied action (placement, draw or pass). Each game is a whole match:
hands are dealt until a side reaches its target. Actions are chosen uniformly with a seeded
``random.Random``; the time includes dealing, listing legal actions, choosing and applying.

Environment: the PettingZoo AEC loop (``agent_iter``, ``last()`` building the observation and
mask, a uniformly random masked action, ``step``) over whole matches; a *step* is one action.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from allfives_env.core.game import Game
from allfives_env.core.rules import PRESETS, Rules


@dataclass(frozen=True, slots=True)
class EngineSpeed:
    """One benchmark row."""

    preset: str
    num_players: int
    moves: int
    hands: int
    matches: int
    seconds: float

    @property
    def rate(self) -> float:
        """The row's figure of merit (moves/s)."""
        return self.moves_per_s

    @property
    def moves_per_s(self) -> float:
        """Applied actions per second."""
        return self.moves / self.seconds

    @property
    def hands_per_s(self) -> float:
        """Finished hands per second."""
        return self.hands / self.seconds


_Row = TypeVar("_Row", "EngineSpeed", "EnvSpeed")


def engine_speed(rules: Rules, seconds: float = 2.0, seed: int = 0) -> EngineSpeed:
    """Play random legal matches under ``rules`` for about ``seconds`` (at least one match)."""
    rng = random.Random(seed)
    moves = hands = matches = 0
    clock = time.perf_counter
    start = clock()
    while not matches or clock() - start < seconds:
        game = Game(rules, rng)
        legal_actions = game.legal_actions
        apply = game.apply
        choose = rng.randrange
        while True:
            legal = legal_actions()
            result = apply(legal[choose(len(legal))])
            moves += 1
            if result.hand is not None:
                hands += 1
                if result.winners is not None:
                    break
                game.deal(rng)
        matches += 1
    return EngineSpeed(rules.name, rules.num_players, moves, hands, matches, clock() - start)


def best_of(repeat: int, fn: Callable[..., _Row], *args: Any) -> _Row:
    """The fastest of ``repeat`` runs of ``fn(*args)`` (noise only ever slows a run down)."""
    rows = [fn(*args) for _ in range(repeat)]
    return max(rows, key=lambda r: r.rate)


def table(rows: list[EngineSpeed]) -> str:
    """The rows as a Markdown table."""
    lines = [
        "| preset | players | moves/s | hands/s | moves | seconds |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.preset} | {r.num_players} | {r.moves_per_s:,.0f} | {r.hands_per_s:,.0f} "
            f"| {r.moves:,} | {r.seconds:.1f} |"
        )
    return "\n".join(lines)


DEFAULT_PRESETS = list(PRESETS)


@dataclass(frozen=True, slots=True)
class EnvSpeed:
    """One environment benchmark row."""

    preset: str
    num_players: int
    wrapped: bool
    steps: int
    episodes: int
    seconds: float

    @property
    def rate(self) -> float:
        """The row's figure of merit (steps/s)."""
        return self.steps_per_s

    @property
    def steps_per_s(self) -> float:
        """Environment steps (actions taken) per second."""
        return self.steps / self.seconds


def env_speed(
    preset: str, num_players: int, wrapped: bool, seconds: float = 2.0, seed: int = 0
) -> EnvSpeed:
    """Random masked play through the AEC loop of ``env()`` (or ``raw_env()``) for ``seconds``.

    Every step calls ``last()`` (which builds the observation and mask) and samples uniformly
    among the masked actions with a seeded ``random.Random``; episodes are whole matches.
    """
    from allfives_env.envs.allfives_v1 import env, raw_env

    e = (env if wrapped else raw_env)(rules=preset, num_players=num_players)
    return _aec_loop(e, preset, num_players, wrapped, seconds, seed)


def reference_speed(seconds: float = 2.0, seed: int = 0) -> EnvSpeed | None:
    """The same loop on PettingZoo's ``connect_four_v3.env()``, for scale (``None`` if it cannot
    be imported: it needs pygame)."""
    try:
        return reference_loop(seconds, seed)
    except ImportError:
        return None


def reference_loop(seconds: float = 2.0, seed: int = 0) -> EnvSpeed:
    """:func:`reference_speed`, raising ``ImportError`` when connect_four cannot be imported."""
    from pettingzoo.classic import connect_four_v3

    return _aec_loop(connect_four_v3.env(), "connect_four_v3", 2, True, seconds, seed)


def _aec_loop(
    e: Any, name: str, num_players: int, wrapped: bool, seconds: float, seed: int
) -> EnvSpeed:
    import numpy as np

    rng = random.Random(seed)
    steps = episodes = 0
    clock = time.perf_counter
    start = clock()
    while not episodes or clock() - start < seconds:
        e.reset(seed=rng.randrange(2**31))
        for _agent in e.agent_iter():
            obs, _reward, term, trunc, _info = e.last()
            if term or trunc:
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
        episodes += 1
    return EnvSpeed(name, num_players, wrapped, steps, episodes, clock() - start)


def env_table(rows: list[EnvSpeed]) -> str:
    """The rows as a Markdown table."""
    lines = [
        "| preset | players | env | steps/s | steps | episodes | seconds |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        kind = "env()" if r.wrapped else "raw_env()"
        lines.append(
            f"| {r.preset} | {r.num_players} | {kind} | {r.steps_per_s:,.0f} | {r.steps:,} "
            f"| {r.episodes} | {r.seconds:.1f} |"
        )
    return "\n".join(lines)
