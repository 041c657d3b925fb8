"""Ratings against the fixed opponents, with OpenSkill's Plackett-Luce model.

Each side of a match is one player (the agent's side, in partnerships, is one player); a match
ranks the sides by final score, the winner first (a shared win ranks its sides equal).

- **The opponents' ratings** are fitted on the *reference*: the benchmark rows of the fixed
  opponents themselves (each against each, itself included), every match rated in protocol
  order from OpenSkill's default prior, per setting.
- **An agent's rating** starts from the default prior and is updated match by match, in
  protocol order, against the opponents' reference ratings, which stay frozen: the rating
  says where the agent stands among the fixed opponents, whatever else was benchmarked.

Ratings are OpenSkill's ``mu`` and ``sigma`` (default prior 25 and 25/3).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

Match = tuple[str, str, Sequence[float], Sequence[int], int]
"""A rated match: the agent's label, the opponent's, the sides' final scores, the winning
sides and the agent's side."""


def _model() -> Any:
    from openskill.models import PlackettLuce

    return PlackettLuce()


def ranks_of(scores: Sequence[float], winners: Sequence[int]) -> list[int]:
    """Each side's rank: the winners 0; the others after them, by score (equal scores tie)."""
    ordered = sorted({s for i, s in enumerate(scores) if i not in winners}, reverse=True)
    return [0 if i in winners else 1 + ordered.index(s) for i, s in enumerate(scores)]


def _players(model: Any, ratings: dict[str, tuple[float, float]], label: str) -> Any:
    mu, sigma = ratings.get(label, (model.mu, model.sigma))
    return model.rating(mu=mu, sigma=sigma, name=label)


def fit_reference(matches: Iterable[Match]) -> dict[str, tuple[float, float]]:
    """The fixed opponents' ratings from their matches among themselves (both sides updated;
    a match of an opponent against itself is skipped: it says nothing about either)."""
    model = _model()
    ratings: dict[str, tuple[float, float]] = {}
    for agent, opponent, scores, winners, side in matches:
        if agent == opponent:
            continue
        ranks = ranks_of(scores, winners)
        teams = [
            [_players(model, ratings, agent if s == side else opponent)] for s in range(len(scores))
        ]
        rated = model.rate(teams, ranks=ranks)
        ratings[agent] = (float(rated[side][0].mu), float(rated[side][0].sigma))
        copies = [rated[s][0] for s in range(len(scores)) if s != side]  # 3 players: two
        ratings[opponent] = (
            sum(float(c.mu) for c in copies) / len(copies),
            sum(float(c.sigma) for c in copies) / len(copies),
        )
    return dict(sorted(ratings.items()))


def rate_agent(
    matches: Iterable[Match], reference: dict[str, tuple[float, float]]
) -> tuple[float, float]:
    """The agent's ``(mu, sigma)`` after its matches against the frozen reference ratings.

    Raises:
        KeyError: for an opponent the reference does not rate.
    """
    model = _model()
    mu, sigma = model.mu, model.sigma
    for _agent, opponent, scores, winners, side in matches:
        omu, osigma = reference[opponent]
        teams = [
            [model.rating(mu=mu, sigma=sigma) if s == side else model.rating(omu, osigma)]
            for s in range(len(scores))
        ]
        rated = model.rate(teams, ranks=ranks_of(scores, winners))
        mu, sigma = float(rated[side][0].mu), float(rated[side][0].sigma)
    return mu, sigma
