"""Regret per decision: what an agent's choices cost by a strong search's values.

A cheaper yardstick of strength than matches: on fixed seeded positions, a reference value
search (``batchsearch:worlds=512`` by default) values every legal action of the seat to act
(the mean over its worlds, in points, from that seat's view); an agent's *regret* in a
position is the reference's best value less the value of the action the agent picks. Its mean
over the positions says how many points a decision the agent gives away, by the reference's
judgement (which has noise of its own: another seed of the reference itself has a regret above
0).

The positions (:func:`played_positions`) come from seeded matches played mostly by the
heuristic, a share of the moves at random so that they vary, one position per match taken
after a random number of moves: every agent measured with the same seed meets the same ones.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from agents.registry import make_agent
from allfives_env.core.game import Game
from allfives_env.core.rules import Rules
from allfives_env.core.view import PlayerView

NEAR_END = 0.75
"""A position is at its match's end where a side holds this share of its target or more."""


def near_end(scores: Sequence[float], target: float) -> bool:
    """Whether a side's score is at :data:`NEAR_END` of ``target`` or more."""
    return max(scores) >= NEAR_END * target


def played_positions(
    rules: Rules, count: int, seed: int, max_moves: int = 40, random_share: float = 0.2
) -> list[PlayerView]:
    """``count`` views of the seat to act, each where that seat has more than one legal action,
    in its own seeded match after up to ``max_moves`` moves (new hands dealt as they end),
    the heuristic's with chance ``1 - random_share``, else a random legal one."""
    heuristic = make_agent("heuristic")
    rng = random.Random(seed)
    out: list[PlayerView] = []
    while len(out) < count:
        game = Game(rules, random.Random(rng.randrange(2**31)))
        for _ in range(rng.randrange(max_moves + 1)):
            if game.is_match_over:
                break
            if game.is_hand_over:
                game.deal(rng)
                continue
            seat = game.current_player
            assert seat is not None
            view = game.view(seat)
            if rng.random() < random_share:
                game.apply(rng.choice(view.legal_actions))
            else:
                game.apply(heuristic.act(view, rng))
        seat = game.current_player
        if seat is not None and len(game.legal_actions()) > 1:
            out.append(game.view(seat))
    return out


def reference_values(spec: str, views: list[PlayerView], seed: int) -> list[list[float]]:
    """The value search ``spec``'s mean value of each legal action of each view (order of
    ``view.legal_actions``), position ``i`` searched with ``random.Random(seed + i)``.

    Raises:
        ValueError: if ``spec`` is not a value search with a fixed number of rollouts.
    """
    from agents.registry import value_agent

    agent, rounds = value_agent(spec)
    return [
        [v / rounds for v in agent.evaluate(view, random.Random(seed + i))]
        for i, view in enumerate(views)
    ]


@dataclass(frozen=True)
class Regret:
    """An agent's regrets, one per position (points), and their summary."""

    regrets: tuple[float, ...]

    @property
    def mean(self) -> float:
        """The mean regret per decision."""
        return sum(self.regrets) / len(self.regrets)

    @property
    def half_width(self) -> float:
        """Half the width of the mean's normal 95% interval."""
        n = len(self.regrets)
        if n < 2:
            return math.inf
        m = self.mean
        var = sum((r - m) ** 2 for r in self.regrets) / (n - 1)
        return 1.96 * math.sqrt(var / n)

    @property
    def best_share(self) -> float:
        """The share of positions where the agent picks an action the reference values best."""
        return sum(1 for r in self.regrets if r <= 0) / len(self.regrets)


def agent_regret(
    spec: str, views: list[PlayerView], values: list[list[float]], seed: int
) -> Regret:
    """The regret of agent ``spec`` in each view, against ``values`` (from
    :func:`reference_values`); the agent acts in position ``i`` with ``random.Random(seed +
    i)``."""
    agent = make_agent(spec)
    regrets = []
    for i, (view, vals) in enumerate(zip(views, values, strict=True)):
        choice = view.legal_actions.index(agent.act(view, random.Random(seed + i)))
        regrets.append(max(vals) - vals[choice])
    return Regret(tuple(regrets))


__all__ = ["Regret", "agent_regret", "played_positions", "reference_values"]
