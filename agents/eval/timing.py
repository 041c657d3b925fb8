"""Time per move: how long an agent takes to choose, on seeded positions.

The positions are the first moves of seeded random games (random legal actions from the deal),
where the seat to act has a choice; every agent timed with the same ``seed`` meets the same
positions. Timing is wall time in this process, so it is measured on an otherwise idle machine.
"""

from __future__ import annotations

import random
import time

from agents.registry import make_agent
from allfives_env.core.game import Game
from allfives_env.core.rules import Rules
from allfives_env.core.view import PlayerView


def positions(rules: Rules, count: int, seed: int, max_moves: int = 12) -> list[PlayerView]:
    """``count`` views of the seat to act, each after up to ``max_moves`` random legal actions
    of a seeded game, where that seat has more than one legal action."""
    rng = random.Random(seed)
    out: list[PlayerView] = []
    while len(out) < count:
        game = Game(rules, random.Random(rng.randrange(2**31)))
        for _ in range(rng.randrange(0, max_moves)):
            if game.current_player is None:
                break
            game.apply(rng.choice(game.legal_actions()))
        seat = game.current_player
        if seat is not None and len(game.legal_actions()) > 1:
            out.append(game.view(seat))
    return out


def seconds_per_move(spec: str, views: list[PlayerView], seed: int, warmup: int = 2) -> float:
    """Mean wall time of one ``act`` of the agent ``spec`` over ``views``, after ``warmup``
    untimed moves (compilation and caches warm up there)."""
    agent = make_agent(spec)
    rng = random.Random(seed)
    for view in views[:warmup]:
        agent.act(view, rng)
    t0 = time.perf_counter()
    for view in views:
        agent.act(view, rng)
    return (time.perf_counter() - t0) / len(views)
