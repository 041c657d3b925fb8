"""The match's value of a score: how likely a side is to win the match from given scores.

A search that counts a hand's points plays every hand as if the match were endless. It is
not: at 230 to 180 of 250, ten points that end the match are worth more than thirty that do
not, and a lead that keeps the other side from the target is worth more than its points.
:class:`MatchEquity` is the chance that a side wins the match from the scores at a hand's end,
with the next hand to play, between players of equal skill (a *match equity*, as backgammon
players call theirs). ``batchsearch:equity=1`` values each rollout that ends a hand by it.

**The model.** With ``n`` the points a side still needs and ``m`` the other side's,

    P(win) = σ(scale · (m − n) / (n + m + offset) ** power),

so a lead counts for more the nearer both sides are to the target: as a random walk's lead
does, with ``power`` ½ when the points come evenly and less when a hand may carry a side over
the target at once. It is symmetric (``P(n, m) = 1 − P(m, n)``) and ½ at equal scores.

**The fits** (:data:`EQUITIES`) come from matches of the compiled heuristic against itself
(`python tools/fit_equity.py --preset pagat --players 2`): the scores at every hand's end that
left the match going, labelled by who went on to win it, and the maximum likelihood
parameters. Only two-sided matches are modelled (2 players, and 4 in partnerships).

Only scores are read: the equity leaks nothing.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from agents.errors import AgentError
from allfives_env.core.rules import Rules

F64 = npt.NDArray[np.float64]


@dataclass(frozen=True)
class MatchEquity:
    """``P(win) = σ(scale · (m − n) / (n + m + offset) ** power)``, ``n`` and ``m`` the points
    the side and the other side still need (see the module docstring)."""

    scale: float
    offset: float
    power: float

    def win_probability(self, own: npt.ArrayLike, other: npt.ArrayLike, target: float) -> F64:
        """The chance that a side at score ``own`` wins against one at ``other`` (arrays of
        one shape), both short of ``target``, with a hand to be dealt."""
        n = np.maximum(target - np.asarray(own, np.float64), 0.0)
        m = np.maximum(target - np.asarray(other, np.float64), 0.0)
        z = self.scale * (m - n) / (n + m + self.offset) ** self.power
        out: F64 = 1.0 / (1.0 + np.exp(-z))
        return out


EQUITIES: dict[tuple[str, int, bool], MatchEquity] = {
    ("pagat", 2, False): MatchEquity(scale=1.035, offset=0.0, power=0.65),
    ("pagat", 4, True): MatchEquity(scale=0.5631, offset=0.0, power=0.55),
}
"""The fitted equities, by (preset, players, partnerships). Each from 60,000 matches (`python
tools/fit_equity.py --preset pagat --players 2 --matches 60000 --seed 1`, and `--players 4`):
316,976 hand ends in 2 players, mean log likelihood -0.507 per hand end; 224,105 in 4, -0.503.
Over the deciles of the predicted chance, the observed share of wins is within 0.015 of it."""


@functools.lru_cache(maxsize=64)
def equity_for(rules: Rules) -> MatchEquity:
    """The fitted equity of ``rules``.

    Raises:
        AgentError: for rules with no fitted equity (naming those that have one).
    """
    for (preset, players, partners), equity in EQUITIES.items():
        if Rules.preset(preset, players, partnerships=partners) == rules:
            return equity
    have = ", ".join(f"{p} {n} players{' in partnerships' if t else ''}" for p, n, t in EQUITIES)
    raise AgentError(
        f"no match equity is fitted for {rules.describe()} (fitted: {have}; fit one with "
        "tools/fit_equity.py)"
    )


def check_two_sides(rules: Rules) -> None:
    """Refuse rules that a :class:`MatchEquity` cannot model.

    Raises:
        AgentError: for rules with other than two sides.
    """
    if rules.num_sides != 2:
        raise AgentError(f"a match equity needs two sides, not {rules.num_sides}")


def log_likelihood(equity: MatchEquity, own: F64, other: F64, won: F64, target: float) -> float:
    """The mean log likelihood per sample of ``equity`` on the samples (:func:`hand_ends`)."""
    p = np.clip(equity.win_probability(own, other, target), 1e-12, 1 - 1e-12)
    return float(np.mean(won * np.log(p) + (1 - won) * np.log(1 - p)))


def hand_ends(rules: Rules, matches: int, seed: int) -> tuple[F64, F64, F64]:
    """Samples for a fit: ``matches`` seeded matches of the compiled heuristic against itself
    on the batched engine. Returns ``(own, other, won)``: at every hand's end that left the
    match going, side 0's score, side 1's, and 1.0 if side 0 went on to win the match (0.5
    for a shared win).

    Raises:
        AgentError: for rules with other than two sides.
    """
    from agents.heuristic import HeuristicAgent
    from allfives_env.vector.engine import VectorGame, policy_rng
    from allfives_env.vector.state import LIVE

    check_two_sides(rules)
    vg = VectorGame(rules, matches, episode="match", forced_actions="auto")
    vg.reset(np.random.SeedSequence(seed).generate_state(matches, np.uint64))
    policy = HeuristicAgent()
    prng = policy_rng(seed, matches)
    acts = np.full(matches, -1, np.int64)
    game: list[np.ndarray] = []
    scores: list[F64] = []
    while True:
        live = np.flatnonzero(vg.status == LIVE)
        if not live.size:
            break
        acts[:] = -1
        acts[live] = policy.act_batch(vg, live, prng)
        vg.step(acts)
        ended = live[(vg.hand_end[live] > 0) & (vg.status[live] == LIVE)]
        game.append(ended)
        scores.append(vg.scores[ended])
    at = np.concatenate(game)
    s = np.concatenate(scores)
    w = vg.winners.astype(np.float64)
    won = w[:, 0] / np.maximum(w.sum(axis=1), 1.0)
    return s[:, 0], s[:, 1], won[at]


POWERS = tuple(round(0.05 * k, 2) for k in range(21))
"""The grid of ``power`` that :func:`fit` searches (0: the points' difference alone)."""

OFFSETS = (0.0, 10.0, 25.0, 50.0, 100.0, 200.0, 400.0)
"""The grid of ``offset`` that :func:`fit` searches."""


def fit(
    own: F64, other: F64, won: F64, target: float, powers: tuple[float, ...] = POWERS
) -> tuple[MatchEquity, float]:
    """The maximum likelihood :class:`MatchEquity` of the samples (:func:`hand_ends`), and its
    mean log likelihood per sample: ``power`` over ``powers`` and ``offset`` over
    :data:`OFFSETS`, ``scale`` by Newton's method at each (the likelihood is concave in it)."""
    n = target - own
    m = target - other
    best: tuple[float, MatchEquity] = (-np.inf, MatchEquity(0.0, 0.0, 0.5))
    for power in powers:
        for offset in OFFSETS if power else (0.0,):
            x = (m - n) / (n + m + offset) ** power
            a = 0.0
            for _ in range(50):
                p = 1.0 / (1.0 + np.exp(-a * x))
                grad = float(np.sum((won - p) * x))
                hess = float(np.sum(p * (1 - p) * x * x)) + 1e-12
                a += grad / hess
                if abs(grad / hess) < 1e-10:
                    break
            ll = log_likelihood(MatchEquity(a, offset, power), own, other, won, target)
            if ll > best[0]:
                best = (ll, MatchEquity(round(a, 4), offset, power))
    return best[1], best[0]
