"""Aggregation over seeds, as rliable (Agarwal et al., NeurIPS 2021) computes it for one task.

A row of the baseline table is several runs of one recipe, one per seed. :func:`over_seeds`
gives their mean, their interquartile mean (IQM: the mean of the middle 50%, rliable's headline
statistic) and a 95% percentile-bootstrap interval of each over the runs (rliable's stratified
bootstrap, which for a single task resamples the runs). The ``rliable`` package itself does not
import beside pandas 3 (its ``arch`` dependency fails), so the same computation is made with
SciPy's ``bootstrap``; the resampling is seeded, so the same results give the same interval.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

REPS = 20_000
"""Bootstrap resamples."""


@dataclass(frozen=True)
class SeedSummary:
    """A row's statistic over its seeds."""

    runs: int
    mean: float
    mean_ci: tuple[float, float]
    iqm: float
    iqm_ci: tuple[float, float]


def iqm(values: Sequence[float] | np.ndarray) -> float:
    """The interquartile mean: the mean of the middle half (scipy's ``trim_mean`` at 25%)."""
    from scipy.stats import trim_mean

    return float(trim_mean(np.asarray(values, dtype=float), 0.25))


def _interval(values: np.ndarray, statistic: Any, seed: int) -> tuple[float, float]:
    from scipy.stats import bootstrap

    if len(values) < 2 or np.ptp(values) == 0:
        return float(values.min()), float(values.max())
    result = bootstrap(
        (values,),
        statistic,
        n_resamples=REPS,
        confidence_level=0.95,
        method="percentile",
        vectorized=False,
        rng=np.random.default_rng(seed),
    )
    ci = result.confidence_interval
    return float(ci.low), float(ci.high)


def over_seeds(values: Sequence[float], seed: int = 0) -> SeedSummary:
    """Mean and IQM of ``values`` (one per run) with their bootstrap intervals over the runs.

    Raises:
        ValueError: for no values, or a value that is not finite.
    """
    x = np.asarray(values, dtype=float)
    if x.size == 0 or not np.isfinite(x).all():
        raise ValueError(f"over_seeds needs finite values, one per run, not {list(values)!r}")
    return SeedSummary(
        runs=int(x.size),
        mean=float(x.mean()),
        mean_ci=_interval(x, np.mean, seed),
        iqm=iqm(x),
        iqm_ci=_interval(x, iqm, seed),
    )
