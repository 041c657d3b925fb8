"""The results of evaluations: win counts, per-agent and per-seat statistics, the JSON schema.

:class:`Evaluation` (a duplicate evaluation) and :class:`League` (every pair of agents) hold the
numbers; :mod:`agents.eval.report` prints and charts them. ``to_json`` gives the
``allfives-eval/1`` format (``nan`` is written ``null``; the numbers are those of ``allfives
eval greedy random`` at seed 0, rounded)::

    {"format": "allfives-eval/1", "kind": "duplicate",
     "rules": {"preset": "pagat", "num_players": 2},        # + overridden fields, if any
     "seed": 0, "matches": 1000, "deals": 500, "rotations": 2,
     "agents": [{"label": "greedy", "spec": "greedy", "matches": 1000, "wins": 991.0,
                 "win_rate": 0.991, "win_rate_ci": [0.983, 0.995],
                 "points_per_hand": 46.99, "points_per_hand_ci": [46.35, 47.63]}, ...],
     "seats": [{"side": 0, "seats": [0], "matches": 1000, "wins": 497.0,
                "win_rate": 0.497, "win_rate_ci": [0.466, 0.528]}, ...],
     "first_leader": {"matches": 1000, "wins": 501.0, "win_rate": 0.501, "win_rate_ci": [...]},
     "hands_per_match": 5.64, "moves_per_match": 124.6, "shared_wins": 0}

``seats`` are the seat effects: the win rate of whoever played side ``s`` (its seats listed);
``first_leader`` the win rate of the side that led the first hand. (Against a much weaker agent
both sit near 50% by construction; a mirror match such as ``greedy greedy`` measures them.) A
league (numbers illustrative)::

    {"format": "allfives-eval/1", "kind": "league", "rules": {...}, "seed": 0,
     "matches_per_pair": 100, "deals_per_pair": 50, "rotations": 2,
     "anchor": "random", "anchor_rating": 1000.0, "elo_prior_draws": 1.0,
     "agents": [{"label": "random", "spec": "random", "rating": 1000.0,
                 "rating_ci": [1000.0, 1000.0], "matches": 200, "wins": 31.0,
                 "win_rate": 0.155, "win_rate_ci": [...]}, ...],
     "matrix": [[null, {"matches": 100, "wins": 9.0, "win_rate": 0.09, "win_rate_ci": [...],
                        "points_per_hand": 9.8, "points_per_hand_ci": [...]}, ...], ...],
     "seats": [...], "first_leader": {...}, "hands_per_match": 9.0, "moves_per_match": 230.0,
     "shared_wins": 0}

``matrix[i][j]`` is agent ``i``'s record against agent ``j`` (``null`` on the diagonal);
``seats`` and the rest are pooled over every pair.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.eval.match import MatchResult
from agents.eval.stats import Estimate, win_credit, win_rate
from allfives_env.core.rules import Rules

FORMAT = "allfives-eval/1"
"""The value of the ``format`` field of the JSON results."""

ELO_PRIOR_DRAWS = 1.0
"""Drawn games added to every pair of a league before its Elo fit (keeps ratings finite)."""

ELO_ANCHOR_RATING = 1000.0
"""The anchor agent's rating in a league."""


@dataclass(frozen=True, slots=True)
class WinStats:
    """Wins over some matches (shared wins counting ``1/m``) and their rate."""

    matches: int
    wins: float
    win_rate: Estimate

    def to_json(self) -> dict[str, Any]:
        """``matches``, ``wins``, ``win_rate``, ``win_rate_ci``."""
        return {"matches": self.matches, "wins": self.wins, **_est("win_rate", self.win_rate)}


def wins_of(wins: float, matches: int) -> WinStats:
    return WinStats(matches, wins, win_rate(wins, matches))


@dataclass(frozen=True, slots=True)
class AgentStats:
    """One lineup entry's results in a duplicate evaluation."""

    label: str
    spec: str
    wins: WinStats
    points_per_hand: Estimate

    def to_json(self) -> dict[str, Any]:
        """See the module docstring."""
        return {
            "label": self.label,
            "spec": self.spec,
            **self.wins.to_json(),
            **_est("points_per_hand", self.points_per_hand),
        }


@dataclass(frozen=True, slots=True)
class SeatStats:
    """The wins of whoever played one side (seat position), over every rotation."""

    side: int
    seats: tuple[int, ...]
    wins: WinStats

    def to_json(self) -> dict[str, Any]:
        """``side``, ``seats`` and the wins."""
        return {"side": self.side, "seats": list(self.seats), **self.wins.to_json()}


@dataclass(slots=True)
class Tally:
    """Running sums over the matches of duplicate lineups (in match order)."""

    k: int
    side_wins: list[float]
    first_leader_wins: float = 0.0
    matches: int = 0
    hands: int = 0
    moves: int = 0
    shared: int = 0

    def add(self, rules: Rules, r: MatchResult) -> None:
        self.matches += 1
        self.hands += r.hands
        self.moves += r.moves
        self.shared += len(r.winners) > 1
        for side in range(self.k):
            self.side_wins[side] += win_credit(r.winners, side)
        self.first_leader_wins += win_credit(r.winners, rules.side_of(r.first_leader))

    def seats(self, rules: Rules) -> tuple[SeatStats, ...]:
        return tuple(
            SeatStats(s, rules.seats_of(s), wins_of(self.side_wins[s], self.matches))
            for s in range(self.k)
        )

    def first_leader(self) -> WinStats:
        return wins_of(self.first_leader_wins, self.matches)


def lineup_scores(
    results: Sequence[MatchResult], k: int, size: int
) -> tuple[list[float], list[list[float]]]:
    """Per lineup entry: its wins, and its points per hand in each match.

    ``results`` are the matches of one lineup in match order (rotation ``m % k``).
    """
    wins = [0.0] * size
    pph: list[list[float]] = [[] for _ in range(size)]
    for m, r in enumerate(results):
        rot = m % k
        for i in range(size):
            side = (i + rot) % k
            wins[i] += win_credit(r.winners, side)
            pph[i].append(sum(h[side] for h in r.hand_points) / r.hands)
    return wins, pph


def _rules_json(rules: Rules) -> dict[str, Any]:
    out: dict[str, Any] = {"preset": rules.name, "num_players": rules.num_players}
    out.update(rules.overrides())
    return out


def _num(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _est(key: str, e: Estimate) -> dict[str, Any]:
    return {key: _num(e.value), f"{key}_ci": [_num(e.low), _num(e.high)]}


@dataclass(frozen=True, slots=True)
class Evaluation:
    """The results of a duplicate evaluation (:func:`evaluate`).

    Attributes:
        rules: the rules played.
        seed: the base seed.
        deals: deal indices played.
        rotations: rotations per deal (the number of sides).
        agents: per lineup entry, in lineup order.
        seats: the seat effects: per side, the wins of whoever played it.
        first_leader: the wins of the side that led the first hand.
        hands_per_match: mean hands per match.
        moves_per_match: mean actions per match.
        shared_wins: matches won by more than one side.
        results: every match, in match order (deal-major, rotation-minor).
    """

    rules: Rules
    seed: int
    deals: int
    rotations: int
    agents: tuple[AgentStats, ...]
    seats: tuple[SeatStats, ...]
    first_leader: WinStats
    hands_per_match: float
    moves_per_match: float
    shared_wins: int
    results: tuple[MatchResult, ...] = field(repr=False)

    @property
    def matches(self) -> int:
        """Matches played."""
        return self.deals * self.rotations

    def to_json(self) -> dict[str, Any]:
        """The results as a JSON-ready dict (the format is in the module docstring)."""
        return {
            "format": FORMAT,
            "kind": "duplicate",
            "rules": _rules_json(self.rules),
            "seed": self.seed,
            "matches": self.matches,
            "deals": self.deals,
            "rotations": self.rotations,
            "agents": [a.to_json() for a in self.agents],
            "seats": [s.to_json() for s in self.seats],
            "first_leader": self.first_leader.to_json(),
            "hands_per_match": self.hands_per_match,
            "moves_per_match": self.moves_per_match,
            "shared_wins": self.shared_wins,
        }


@dataclass(frozen=True, slots=True)
class LeagueAgent:
    """One agent's league results: its rating and its wins over all its matches."""

    label: str
    spec: str
    rating: Estimate
    wins: WinStats

    def to_json(self) -> dict[str, Any]:
        """See the module docstring."""
        return {
            "label": self.label,
            "spec": self.spec,
            **_est("rating", self.rating),
            **self.wins.to_json(),
        }


@dataclass(frozen=True, slots=True)
class PairStats:
    """One agent's results against another (a cell of the cross-play matrix)."""

    wins: WinStats
    points_per_hand: Estimate

    def to_json(self) -> dict[str, Any]:
        """See the module docstring."""
        return {**self.wins.to_json(), **_est("points_per_hand", self.points_per_hand)}


@dataclass(frozen=True, slots=True)
class League:
    """The results of a league (:func:`league`).

    Attributes:
        rules: the rules played.
        seed: the base seed.
        deals_per_pair: deal indices each pair played (the same deals for every pair).
        rotations: seatings per deal (2).
        agents: per agent, in the order given.
        matrix: ``matrix[i][j]``: agent ``i`` against agent ``j`` (``None`` where ``i == j``).
        anchor: the index of the agent whose rating is fixed.
        seats: the seat effects, pooled over every pair.
        first_leader: the wins of the side that led the first hand, pooled.
        hands_per_match: mean hands per match.
        moves_per_match: mean actions per match.
        shared_wins: matches won by both sides.
    """

    rules: Rules
    seed: int
    deals_per_pair: int
    rotations: int
    agents: tuple[LeagueAgent, ...]
    matrix: tuple[tuple[PairStats | None, ...], ...]
    anchor: int
    seats: tuple[SeatStats, ...]
    first_leader: WinStats
    hands_per_match: float
    moves_per_match: float
    shared_wins: int

    @property
    def matches_per_pair(self) -> int:
        """Matches each pair played."""
        return self.deals_per_pair * self.rotations

    def to_json(self) -> dict[str, Any]:
        """The results as a JSON-ready dict (the format is in the module docstring)."""
        return {
            "format": FORMAT,
            "kind": "league",
            "rules": _rules_json(self.rules),
            "seed": self.seed,
            "matches_per_pair": self.matches_per_pair,
            "deals_per_pair": self.deals_per_pair,
            "rotations": self.rotations,
            "anchor": self.agents[self.anchor].label,
            "anchor_rating": ELO_ANCHOR_RATING,
            "elo_prior_draws": ELO_PRIOR_DRAWS,
            "agents": [a.to_json() for a in self.agents],
            "matrix": [[c.to_json() if c else None for c in row] for row in self.matrix],
            "seats": [s.to_json() for s in self.seats],
            "first_leader": self.first_leader.to_json(),
            "hands_per_match": self.hands_per_match,
            "moves_per_match": self.moves_per_match,
            "shared_wins": self.shared_wins,
        }
