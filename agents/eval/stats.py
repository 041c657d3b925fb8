"""Small statistics for evaluating agents: win rates, means and Elo ratings (numpy only).

Every interval is a two-sided 95% interval unless a ``z`` is given.

**Wins.** A match won by one side is a win (1) for it and a loss (0) for the others; a win
*shared* by ``m`` sides counts ``1/m`` to each of them (half a win each, for the usual tie of
two) and 0 to the rest (:func:`win_credit`). Win rates are then ``credits / matches``, and
:func:`wilson_interval` takes the fractional count as it is.

>>> win_rate(75, 100).value, round(win_rate(75, 100).low, 4), round(win_rate(75, 100).high, 4)
(0.75, 0.657, 0.8245)
>>> elo = elo_ratings([PairResult("a", "b", 75, 100)], anchor="b")
>>> round(elo["a"].value - elo["b"].value, 2)  # 400 log10(75 / 25)
190.85
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import NamedTuple

import numpy as np

Z95 = 1.959963984540054
"""The standard normal quantile of a two-sided 95% interval."""

ELO_SCALE = 400.0 / math.log(10.0)
"""Elo points per unit of log-odds: a 400-point gap means 10:1 odds."""


class Estimate(NamedTuple):
    """A point estimate and its confidence interval ``[low, high]`` (``nan`` where unknown)."""

    value: float
    low: float
    high: float


class PairResult(NamedTuple):
    """The games between two agents.

    Attributes:
        a: one agent's name.
        b: the other's.
        score: ``a``'s wins against ``b`` (a shared win counting half), 0 to ``games``.
        games: the games they played.
    """

    a: str
    b: str
    score: float
    games: int


def win_credit(winners: Sequence[int], side: int) -> float:
    """What a match is worth to ``side``: 1 for a win, ``1/m`` for a win shared by m, else 0.

    >>> win_credit((1,), 1), win_credit((0, 1), 1), win_credit((0,), 1)
    (1.0, 0.5, 0.0)
    """
    return 1.0 / len(winners) if side in winners else 0.0


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``successes / n``.

    ``successes`` may be fractional (shared wins count half). The interval stays inside
    [0, 1] and is sound for rates near 0 or 1, where the normal approximation is not.

    >>> tuple(round(x, 4) for x in wilson_interval(0, 10))
    (0.0, 0.2775)

    Raises:
        ValueError: if ``n`` is not positive or ``successes`` is outside ``[0, n]``.
    """
    if n <= 0:
        raise ValueError(f"a proportion needs at least one trial, not n={n}")
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be from 0 to n={n}, not {successes}")
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    center = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4 * n * n)) / denom
    low = 0.0 if successes == 0 else max(0.0, center - half)
    high = 1.0 if successes == n else min(1.0, center + half)
    return low, high


def win_rate(successes: float, n: int, z: float = Z95) -> Estimate:
    """The rate ``successes / n`` with its Wilson interval (see :func:`wilson_interval`).

    Raises:
        ValueError: as :func:`wilson_interval`.
    """
    low, high = wilson_interval(successes, n, z)
    return Estimate(successes / n, low, high)


def mean_ci(values: Sequence[float] | np.ndarray, z: float = Z95) -> Estimate:
    """The mean of a sample with its normal-approximation interval ``mean ± z·s/√n``.

    ``s`` is the sample standard deviation (ddof 1). One value gives an unknown (``nan``)
    interval.

    >>> mean_ci([1.0, 2.0, 3.0]).value, round(mean_ci([1.0, 2.0, 3.0]).high, 4)
    (2.0, 3.1316)

    Raises:
        ValueError: for an empty sample.
    """
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        raise ValueError("the mean of an empty sample is undefined")
    m = float(x.mean())
    if x.size < 2:
        return Estimate(m, math.nan, math.nan)
    half = z * float(x.std(ddof=1)) / math.sqrt(x.size)
    return Estimate(m, m - half, m + half)


def elo_ratings(
    results: Iterable[PairResult],
    anchor: str,
    anchor_rating: float = 1000.0,
    prior_draws: float = 0.0,
    z: float = Z95,
) -> dict[str, Estimate]:
    """Elo ratings fitted to pairwise results by maximum likelihood (Bradley–Terry).

    The model: ``a`` beats ``b`` with probability ``1 / (1 + 10 ** ((R_b - R_a) / 400))``,
    each game independent; a shared win is half a win for each. The ratings that make the
    observed scores most likely are found by Newton's method on the (concave) log-likelihood,
    with ``anchor`` held at ``anchor_rating`` (ratings are relative; only gaps are fitted). With
    exact scores, the fit reproduces them: 75 of 100 gives a gap of ``400·log10(3)`` ≈ 191.

    ``prior_draws`` adds that many drawn games (half a win each way) to every pair that met,
    which keeps ratings finite when an agent wins or loses every game; 0 is the plain fit.

    Each interval is ``±z`` standard errors from the observed Fisher information with the
    anchor fixed (the anchor's own interval is its rating). Results of duplicate deals are
    less noisy than independent games, so these intervals err on the wide side.

    Returns:
        every agent named in ``results``, in order of first appearance, with its rating.

    Raises:
        ValueError: if ``anchor`` played no game, a result is malformed, or the ratings have
            no finite fit: some group of agents played no game against the rest, or scored
            every point (or none) against the rest (use ``prior_draws``).
    """
    names: list[str] = []
    index: dict[str, int] = {}
    rows: list[tuple[int, int, float, int]] = []
    for r in results:
        if r.a == r.b:
            raise ValueError(f"an agent cannot be rated against itself: {r.a!r}")
        if r.games < 0 or not 0 <= r.score <= r.games:
            raise ValueError(f"bad result {r}: need 0 <= score <= games")
        for name in (r.a, r.b):
            if name not in index:
                index[name] = len(names)
                names.append(name)
        rows.append((index[r.a], index[r.b], float(r.score), r.games))
    if anchor not in index:
        raise ValueError(f"the anchor {anchor!r} played no game")
    n = len(names)
    wins = np.zeros((n, n))  # wins[i, j]: i's score against j
    for i, j, score, games in rows:
        wins[i, j] += score
        wins[j, i] += games - score
    games_m = wins + wins.T
    if prior_draws:
        met = games_m > 0
        wins += np.where(met, prior_draws / 2, 0.0)
        games_m = wins + wins.T
    _check_fit_exists(wins, games_m, names)

    a = index[anchor]
    free = np.array([i for i in range(n) if i != a], dtype=np.intp)
    theta = np.zeros(n)

    def loglik(t: np.ndarray) -> float:
        d = t[:, None] - t[None, :]
        return float(-(wins * np.logaddexp(0.0, -d)).sum())

    info = np.zeros((0, 0))
    for _ in range(200):
        d = theta[:, None] - theta[None, :]
        p = 1.0 / (1.0 + np.exp(-d))
        grad = (wins - games_m * p).sum(axis=1)
        w = games_m * p * p.T
        full_info = np.diag(w.sum(axis=1)) - w
        info = full_info[np.ix_(free, free)]
        step = np.linalg.solve(info, grad[free])
        base = loglik(theta)
        scale = 1.0
        while True:  # backtrack: the log-likelihood is concave, so a short enough step gains
            trial = theta.copy()
            trial[free] += scale * step
            if loglik(trial) >= base - 1e-12 or scale < 1e-6:
                break
            scale /= 2
        theta = trial
        if float(np.max(np.abs(scale * step))) < 1e-12:
            break
    se = np.zeros(n)
    se[free] = np.sqrt(np.diag(np.linalg.inv(info)))
    out: dict[str, Estimate] = {}
    for i, name in enumerate(names):
        rating = anchor_rating + ELO_SCALE * float(theta[i])
        half = z * ELO_SCALE * float(se[i])
        out[name] = Estimate(rating, rating - half, rating + half)
    return out


def _check_fit_exists(wins: np.ndarray, games: np.ndarray, names: list[str]) -> None:
    """Raise unless every agent can reach every other along "scored against" edges.

    A finite maximum-likelihood fit exists exactly when this directed graph is strongly
    connected (Zermelo 1929; Ford 1957).
    """
    n = len(names)
    reach = (wins > 0) | np.eye(n, dtype=bool)
    for k in range(n):  # Warshall's transitive closure
        reach |= reach[:, k : k + 1] & reach[k : k + 1, :]
    if reach.all():
        return
    met = (games > 0) | np.eye(n, dtype=bool)
    for k in range(n):
        met |= met[:, k : k + 1] & met[k : k + 1, :]
    if not met.all():
        apart = [names[j] for j in range(n) if not met[0, j]]
        raise ValueError(
            f"no rating links {names[0]!r} with {', '.join(map(repr, apart))}: "
            "they played no games, directly or through others"
        )
    i, j = map(int, np.argwhere(~reach)[0])
    raise ValueError(
        f"the ratings diverge: {names[i]!r} never scored against {names[j]!r}, directly or "
        "through agents it scored against; add prior draws"
    )
