"""Reward rules of the environments: zero-sum over sides, equal for partners."""

from __future__ import annotations

from collections.abc import Sequence


def win_rewards(num_sides: int, winners: Sequence[int]) -> list[float]:
    """Zero-sum terminal rewards per side for ``winners`` among ``num_sides`` sides.

    ``r_i = (k · [i wins] / |W| − 1) / (k − 1)`` for ``k`` sides and ``W`` winners: with two
    sides +1 and −1; with three sides and one winner +1, −½, −½; a win shared by everyone is 0.

    >>> win_rewards(2, [0]), win_rewards(3, [2]), win_rewards(3, [0, 1])
    ([1.0, -1.0], [-0.5, -0.5, 1.0], [0.25, 0.25, -0.5])
    """
    k = num_sides
    w = len(winners)
    return [((k / w if i in winners else 0.0) - 1.0) / (k - 1) for i in range(k)]


def points_rewards(num_sides: int, gains: Sequence[float], target: float) -> list[float]:
    """Zero-sum dense rewards per side: own gain minus the mean of the others', / target.

    >>> points_rewards(2, [15, 0], 250), points_rewards(3, [10, 0, 5], 200)
    ([0.06, -0.06], [0.0375, -0.0375, 0.0])
    """
    k = num_sides
    total = sum(gains)
    return [(g - (total - g) / (k - 1)) / target for g in gains]
