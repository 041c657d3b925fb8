"""Evaluating agents against each other: duplicate matches, leagues, reports (``allfives eval``).

**Matches.** :func:`play_match` plays one whole match (hands are dealt until a side reaches its
target) between agents named by spec strings, one per seat. Chance and choice are seeded apart:
hand ``k`` of a match is dealt from its own generator, seeded from ``(deal_seed, k)`` alone, and
each seat's agent draws from its own generator, seeded from ``(agent_seed, seat)``. No agent's
choice can move a deal, so two matches with one ``deal_seed`` get the same hand ``k`` (the same
tiles to the same seats, the same boneyard order, the same leader where it is drawn by lot) for
as many hands as both last.

**Duplicate deals.** :func:`evaluate` takes a *lineup*, one agent spec per side (in a 4-player
partnership both partners of a side are that side's agent). Each deal index ``d`` is played once
per rotation ``r`` of the lineup over the sides: in rotation ``r`` lineup entry ``i`` plays side
``(i + r) % k`` (2 sides: both seatings; k sides: the k cyclic rotations), so every agent holds
every seat's cards of every deal and the luck of the deal cancels. ``matches`` counts matches
played; it is rounded up to a whole number of deals (a multiple of ``k``). Match ``m = d·k + r``
gets deal seed ``(seed, "deal", d)`` and agent seed ``(seed, "match", m)``.

**Leagues.** :func:`league` plays every pair of agents (rules with two sides: 2 players, or 4 in
partnerships) over the same deals, and fits Elo ratings to the cross-play results
(:func:`agents.eval.stats.elo_ratings`, one prior draw per pair; the anchor is ``"random"`` at 1000
where it plays, else the first agent).

**Parallel play.** With ``processes > 1`` matches run in a ``spawn`` process pool (safe on every
platform, and with agents that hold threads); each worker re-creates the agents from their specs.
Results come back in match order and are summed in that order, so they are identical, bit for
bit, whatever the number of processes. Agents are made once per spec and process and reused
across matches, as the :class:`~agents.base.Agent` contract allows (``act`` reads only the view
and its ``rng``).

**Statistics** (:mod:`agents.eval.stats`). A win shared by ``m`` sides counts ``1/m`` (half, for two);
win rates carry Wilson 95% intervals; *points per hand* is, per match, the side's points (placements
and awards, in the rules' unit, as scored) divided by the hands dealt, then averaged over matches
with a normal 95% interval. Duplicate matches are less noisy than independent ones, so the
intervals err on the wide side.

**JSON** (:meth:`Evaluation.to_json`, :meth:`League.to_json`; ``nan`` is written ``null``; the
numbers are those of ``allfives eval greedy random`` at seed 0, rounded)::

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

import argparse
import hashlib
import importlib
import importlib.util
import json
import math
import os
import random
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.base import Agent
from agents.errors import AgentError
from agents.eval.stats import Estimate, PairResult, elo_ratings, mean_ci, win_credit, win_rate
from agents.registry import UnknownAgentError, is_checkpoint, make_agent
from allfives_env.core.deal import Deal
from allfives_env.core.game import Game
from allfives_env.core.rules import PRESETS, Rules

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FORMAT = "allfives-eval/1"
"""The value of the ``format`` field of the JSON results."""

ELO_PRIOR_DRAWS = 1.0
"""Drawn games added to every pair of a league before its Elo fit (keeps ratings finite)."""

ELO_ANCHOR_RATING = 1000.0
"""The anchor agent's rating in a league."""


class EvalError(AgentError):
    """A bad evaluation request: lineup size, counts, output path, unsupported rules."""


# ================================================================ one match


@dataclass(frozen=True, slots=True)
class MatchResult:
    """One match as played.

    Attributes:
        scores: each side's final score.
        winners: the side(s) that won (several: a shared win).
        hands: hands dealt (the last one may have ended at the target, mid-hand).
        hand_points: per hand, the points each side scored in it (placements and award).
        moves: actions applied (placements, draws and passes).
        first_leader: the seat that led the first hand.
        deals: every hand's deal, if asked for (``keep_deals``); else empty.
    """

    scores: tuple[float, ...]
    winners: tuple[int, ...]
    hands: int
    hand_points: tuple[tuple[float, ...], ...]
    moves: int
    first_leader: int
    deals: tuple[Deal, ...] = ()


def derive_seed(*keys: object) -> int:
    """A 64-bit seed from ``keys`` (their ``str`` forms), the same in every process and run.

    >>> derive_seed(0, "deal", 3) == derive_seed(0, "deal", 3) != derive_seed(0, "deal", 4)
    True
    """
    text = "/".join(map(str, keys))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


_AGENTS: dict[tuple[str, int | None], Agent] = {}


def _agent(spec: str) -> Agent:
    """The agent of ``spec``, made once per process (agents keep no state between calls).

    A checkpoint is made again when its file changes (a training run may overwrite it).
    """
    stamp: int | None = None
    if is_checkpoint(spec):
        try:
            stamp = os.stat(spec).st_mtime_ns
        except OSError:
            stamp = None  # make_agent reports it
    key = (spec, stamp)
    agent = _AGENTS.get(key)
    if agent is None:
        agent = _AGENTS[key] = make_agent(spec)
    return agent


def play_match(
    rules: Rules,
    agent_specs_by_seat: Sequence[str],
    deal_seed: int,
    agent_seed: int,
    *,
    keep_deals: bool = False,
) -> MatchResult:
    """Play one match; hand ``k`` is dealt from ``(deal_seed, k)``, seat ``s`` chooses with
    ``(agent_seed, s)`` (see the module docstring).

    Raises:
        EvalError: if there is not one spec per seat.
        UnknownAgentError: for a spec the registry does not know.
    """
    n = rules.num_players
    if len(agent_specs_by_seat) != n:
        raise EvalError(
            f"{n} players need {n} agents, one per seat, not {len(agent_specs_by_seat)}"
        )
    agents = [_agent(spec) for spec in agent_specs_by_seat]
    rngs = [random.Random(derive_seed(agent_seed, "seat", s)) for s in range(n)]
    game = Game(rules, random.Random(derive_seed(deal_seed, "hand", 1)))
    first_leader = game.leader
    before = game.scores
    hand_points: list[tuple[float, ...]] = []
    moves = 0
    while True:
        if game.is_hand_over:
            after = game.scores
            hand_points.append(tuple(a - b for a, b in zip(after, before, strict=True)))
            before = after
            if game.is_match_over:
                break
            game.deal(random.Random(derive_seed(deal_seed, "hand", game.hand_number + 1)))
            continue
        seat = game.current_player
        assert seat is not None  # a hand is in play
        game.apply(agents[seat].act(game.view(seat), rngs[seat]))
        moves += 1
    winners = game.winners
    assert winners is not None  # the match is over
    return MatchResult(
        scores=game.scores,
        winners=winners,
        hands=game.hand_number,
        hand_points=tuple(hand_points),
        moves=moves,
        first_leader=first_leader,
        deals=tuple(h.deal for h in game.hand_log) if keep_deals else (),
    )


def seating(rules: Rules, lineup: Sequence[str], rotation: int) -> tuple[str, ...]:
    """The spec of each seat when ``lineup`` (one spec per side) sits in ``rotation``.

    Lineup entry ``i`` plays side ``(i + rotation) % k``: every seat of that side.

    >>> seating(Rules.preset("pagat", 4), ["a", "b"], 1)
    ('b', 'a', 'b', 'a')
    >>> seating(Rules.preset("pagat", 3), ["a", "b", "c"], 1)
    ('c', 'a', 'b')
    """
    k = rules.num_sides
    return tuple(lineup[(rules.side_of(s) - rotation) % k] for s in range(rules.num_players))


# ================================================================ running many matches

_Task = tuple[Rules, tuple[str, ...], int, int]


def _play_task(task: _Task) -> MatchResult:
    rules, seats, deal_seed, agent_seed = task
    return play_match(rules, seats, deal_seed, agent_seed)


def _run(tasks: list[_Task], processes: int, progress: bool, desc: str) -> list[MatchResult]:
    """Play ``tasks`` (in a spawn pool when ``processes > 1``); results in task order."""
    bar: Any = None
    if progress:
        try:
            tqdm: Any = importlib.import_module("tqdm").tqdm
            bar = tqdm(total=len(tasks), desc=desc, unit="match", file=sys.stderr)
        except ImportError:  # tqdm is optional: no bar then
            bar = None
    out: list[MatchResult] = []
    try:
        workers = min(processes, len(tasks))
        if workers <= 1:
            for task in tasks:
                out.append(_play_task(task))
                if bar is not None:
                    bar.update()
        else:
            import multiprocessing

            chunk = max(1, min(16, len(tasks) // (workers * 8)))
            with multiprocessing.get_context("spawn").Pool(workers) as pool:
                for result in pool.imap(_play_task, tasks, chunksize=chunk):
                    out.append(result)
                    if bar is not None:
                        bar.update()
    finally:
        if bar is not None:
            bar.close()
    return out


def _check_run(matches: int, processes: int, what: str = "matches") -> None:
    if type(matches) is not int or matches < 1:
        raise EvalError(f"{what} must be a positive whole number, not {matches!r}")
    if type(processes) is not int or processes < 1:
        raise EvalError(f"processes must be a positive whole number, not {processes!r}")


def _check_specs(specs: Iterable[str]) -> None:
    """Make each agent once here, so a bad spec fails before any match is played.

    Raises:
        UnknownAgentError: for a spec the registry does not know.
        EvalError: for a checkpoint that cannot be read (or any other agent that refuses to
            be made with a ``ValueError`` or ``OSError``).
    """
    for spec in specs:
        try:
            _agent(spec)
        except (UnknownAgentError, EvalError):
            raise
        except OSError as e:
            raise EvalError(f"agent {spec!r}: {e.strerror or e}") from None
        except ValueError as e:  # e.g. a checkpoint that is not one
            raise EvalError(f"agent {spec!r}: {e}") from None


def _labels(specs: Sequence[str]) -> tuple[str, ...]:
    """Short unique names: a checkpoint by its file name; repeats get ``#2``, ``#3``..."""
    out: list[str] = []
    for spec in specs:
        base = os.path.basename(spec) if is_checkpoint(spec) else spec
        label, k = base, 1
        while label in out:
            k += 1
            label = f"{base}#{k}"
        out.append(label)
    return tuple(out)


# ================================================================ summaries


@dataclass(frozen=True, slots=True)
class WinStats:
    """Wins over some matches (shared wins counting ``1/m``) and their rate."""

    matches: int
    wins: float
    win_rate: Estimate

    def to_json(self) -> dict[str, Any]:
        """``matches``, ``wins``, ``win_rate``, ``win_rate_ci``."""
        return {"matches": self.matches, "wins": self.wins, **_est("win_rate", self.win_rate)}


def _wins(wins: float, matches: int) -> WinStats:
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
class _Tally:
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
            SeatStats(s, rules.seats_of(s), _wins(self.side_wins[s], self.matches))
            for s in range(self.k)
        )

    def first_leader(self) -> WinStats:
        return _wins(self.first_leader_wins, self.matches)

    def common_json(self, rules: Rules) -> dict[str, Any]:
        return {
            "seats": [s.to_json() for s in self.seats(rules)],
            "first_leader": self.first_leader().to_json(),
            "hands_per_match": self.hands / self.matches,
            "moves_per_match": self.moves / self.matches,
            "shared_wins": self.shared,
        }


def _lineup_scores(
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

    def table(self) -> str:
        """A readable report."""
        title = " v ".join(a.label for a in self.agents)
        lines = [
            f"{title} — {self.rules.describe()} — {self.matches} matches "
            f"({self.deals} deals × {self.rotations} seatings), seed {self.seed}",
            "",
            f"{'agent':<{_w(self.agents)}}  {'win rate':>8}  {'95% CI':<16}  "
            f"{'points/hand':>11}  95% CI",
        ]
        for a in self.agents:
            p = a.points_per_hand
            lines.append(
                f"{a.label:<{_w(self.agents)}}  {_pct(a.wins.win_rate.value):>8}  "
                f"{_ci_pct(a.wins.win_rate):<16}  {p.value:>11.2f}  [{p.low:.2f}, {p.high:.2f}]"
            )
        lines += ["", *_seat_lines(self.seats, self.first_leader)]
        lines.append(
            f"{self.hands_per_match:.1f} hands and {self.moves_per_match:.0f} moves per match; "
            f"{self.shared_wins} shared wins"
        )
        return "\n".join(lines)


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

    def table(self) -> str:
        """A readable report: the cross-play matrix, then the ratings."""
        labels = [a.label for a in self.agents]
        w = max(8, *(len(x) for x in labels))
        lines = [
            f"league — {self.rules.describe()} — {self.matches_per_pair} matches per pair "
            f"({self.deals_per_pair} deals × {self.rotations} seatings), seed {self.seed}",
            "",
            "win rate of row v column",
            " " * w + "".join(f"  {x:>{w}}" for x in labels),
        ]
        for label, row in zip(labels, self.matrix, strict=True):
            cells = "".join(
                f"  {'—' if c is None else _pct(c.wins.win_rate.value):>{w}}" for c in row
            )
            lines.append(f"{label:<{w}}{cells}")
        lines += ["", f"{'rating':>6}  {'95% CI':<14}  {'win rate':>8}  agent"]
        order = sorted(range(len(self.agents)), key=lambda i: -self.agents[i].rating.value)
        for i in order:
            a = self.agents[i]
            ci = "(anchor)" if i == self.anchor else f"[{a.rating.low:.0f}, {a.rating.high:.0f}]"
            lines.append(
                f"{a.rating.value:>6.0f}  {ci:<14}  {_pct(a.wins.win_rate.value):>8}  {a.label}"
            )
        lines += ["", *_seat_lines(self.seats, self.first_leader)]
        lines.append(
            f"{self.hands_per_match:.1f} hands and {self.moves_per_match:.0f} moves per match; "
            f"{self.shared_wins} shared wins"
        )
        return "\n".join(lines)


def _w(agents: Sequence[AgentStats]) -> int:
    return max(5, *(len(a.label) for a in agents))


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _ci_pct(e: Estimate) -> str:
    return f"[{_pct(e.low)}, {_pct(e.high)}]"


def _seat_name(seats: Sequence[int]) -> str:
    return ("seats " if len(seats) > 1 else "seat ") + "+".join(map(str, seats))


def _seat_lines(seats: Sequence[SeatStats], first: WinStats) -> list[str]:
    lines = ["seat effects (win rate of whoever sits there)"]
    for s in seats:
        lines.append(
            f"  {_seat_name(s.seats):<20}{_pct(s.wins.win_rate.value):>7}  "
            f"{_ci_pct(s.wins.win_rate)}"
        )
    lines.append(
        f"  {'first leader side':<20}{_pct(first.win_rate.value):>7}  {_ci_pct(first.win_rate)}"
    )
    return lines


# ================================================================ evaluations


def _duplicate_tasks(
    rules: Rules, lineup: Sequence[str], deals: int, seed: int, *key: object
) -> list[_Task]:
    k = rules.num_sides
    return [
        (
            rules,
            seating(rules, lineup, r),
            derive_seed(seed, "deal", d),
            derive_seed(seed, *key, "match", d * k + r),
        )
        for d in range(deals)
        for r in range(k)
    ]


def evaluate(
    rules: Rules,
    lineup: Sequence[str],
    matches: int = 1000,
    seed: int = 0,
    processes: int = 1,
    progress: bool = False,
) -> Evaluation:
    """Play ``lineup`` (one agent spec per side) over duplicate deals.

    ``matches`` is rounded up to a multiple of the number of sides (see the module docstring).

    Raises:
        EvalError: for a lineup that is not one spec per side, a count that is not positive,
            or a checkpoint that cannot be read.
        UnknownAgentError: for a spec the registry does not know.
    """
    lineup = tuple(lineup)
    k = rules.num_sides
    if len(lineup) != k:
        raise EvalError(
            f"{rules.describe()} has {k} sides: give {k} agents, one per side, not {len(lineup)}"
        )
    _check_run(matches, processes)
    _check_specs(lineup)
    deals = -(-matches // k)
    labels = _labels(lineup)
    results = _run(
        _duplicate_tasks(rules, lineup, deals, seed), processes, progress, " v ".join(labels)
    )
    wins, pph = _lineup_scores(results, k, k)
    tally = _Tally(k, [0.0] * k)
    for r in results:
        tally.add(rules, r)
    n = len(results)
    return Evaluation(
        rules=rules,
        seed=seed,
        deals=deals,
        rotations=k,
        agents=tuple(
            AgentStats(labels[i], lineup[i], _wins(wins[i], n), mean_ci(pph[i])) for i in range(k)
        ),
        seats=tally.seats(rules),
        first_leader=tally.first_leader(),
        hands_per_match=tally.hands / n,
        moves_per_match=tally.moves / n,
        shared_wins=tally.shared,
        results=tuple(results),
    )


def league(
    rules: Rules,
    specs: Sequence[str],
    matches_per_pair: int = 100,
    seed: int = 0,
    processes: int = 1,
    progress: bool = False,
) -> League:
    """Play every pair of ``specs`` over the same duplicate deals; fit Elo ratings.

    ``matches_per_pair`` is rounded up to an even number (both seatings of each deal).

    Raises:
        EvalError: for rules that do not have two sides, fewer than two agents, a count that
            is not positive, or a checkpoint that cannot be read.
        UnknownAgentError: for a spec the registry does not know.
    """
    specs = tuple(specs)
    if rules.num_sides != 2:
        raise EvalError(
            f"a league needs two sides (2 players, or 4 in partnerships), not {rules.describe()}"
        )
    if len(specs) < 2:
        raise EvalError(f"a league needs at least two agents, not {len(specs)}")
    _check_run(matches_per_pair, processes, "matches per pair")
    _check_specs(specs)
    deals = -(-matches_per_pair // 2)
    labels = _labels(specs)
    pairs = [(i, j) for i in range(len(specs)) for j in range(i + 1, len(specs))]
    tasks = [
        t
        for i, j in pairs
        for t in _duplicate_tasks(rules, (specs[i], specs[j]), deals, seed, "pair", i, j)
    ]
    results = _run(tasks, processes, progress, "league")
    per_pair = 2 * deals
    tally = _Tally(2, [0.0, 0.0])
    for r in results:
        tally.add(rules, r)
    m = len(specs)
    cells: list[list[PairStats | None]] = [[None] * m for _ in range(m)]
    total_wins = [0.0] * m
    played = [0] * m
    pair_results: list[PairResult] = []
    for p, (i, j) in enumerate(pairs):
        wins, pph = _lineup_scores(results[p * per_pair : (p + 1) * per_pair], 2, 2)
        for a, b, x in ((i, j, 0), (j, i, 1)):
            cells[a][b] = PairStats(_wins(wins[x], per_pair), mean_ci(pph[x]))
            total_wins[a] += wins[x]
            played[a] += per_pair
        pair_results.append(PairResult(labels[i], labels[j], wins[0], per_pair))
    anchor = specs.index("random") if "random" in specs else 0
    ratings = elo_ratings(
        pair_results, labels[anchor], ELO_ANCHOR_RATING, prior_draws=ELO_PRIOR_DRAWS
    )
    n = len(results)
    return League(
        rules=rules,
        seed=seed,
        deals_per_pair=deals,
        rotations=2,
        agents=tuple(
            LeagueAgent(labels[i], specs[i], ratings[labels[i]], _wins(total_wins[i], played[i]))
            for i in range(m)
        ),
        matrix=tuple(tuple(row) for row in cells),
        anchor=anchor,
        seats=tally.seats(rules),
        first_leader=tally.first_leader(),
        hands_per_match=tally.hands / n,
        moves_per_match=tally.moves / n,
        shared_wins=tally.shared,
    )


# ================================================================ files


def write_json(result: Evaluation | League, path: str | Path) -> None:
    """Write ``result.to_json()`` to ``path`` (indented, ``nan`` as ``null``)."""
    with open(path, "w", encoding="utf-8") as f:
        json.dump(result.to_json(), f, indent=2, allow_nan=False)
        f.write("\n")


def write_png(result: Evaluation | League, path: str | Path) -> None:
    """Chart ``result`` as a PNG: win rates with 95% error bars, or a league's cross-play
    heatmap and ratings. Needs matplotlib (drawn with its Agg backend, pyplot untouched)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 4.8), layout="constrained")
    FigureCanvasAgg(fig)
    if isinstance(result, Evaluation):
        _plot_evaluation(fig, result)
    else:
        _plot_league(fig, result)
    fig.savefig(path, dpi=100)


def _bars(ax: Any, names: Sequence[str], rates: Sequence[Estimate], color: str) -> None:
    values = [e.value for e in rates]
    err = [[e.value - e.low for e in rates], [e.high - e.value for e in rates]]
    ax.bar(range(len(values)), values, yerr=err, capsize=6, color=color)
    ax.set_xticks(range(len(values)), names)
    for x, e in enumerate(rates):
        ax.text(x, e.high + 0.02, _pct(e.value), ha="center", va="bottom", fontsize=9)
    ax.set_ylim(0, 1.1)


def _plot_evaluation(fig: Figure, ev: Evaluation) -> None:
    left, right = fig.subplots(1, 2, width_ratios=[max(2, len(ev.agents)), len(ev.seats) + 1])
    _bars(left, [a.label for a in ev.agents], [a.wins.win_rate for a in ev.agents], "tab:blue")
    left.axhline(1 / ev.rotations, color="grey", lw=0.8, ls="--")
    left.set_ylabel("match win rate (95% CI)")
    left.set_title(f"{ev.rules.describe()}: {ev.matches} duplicate matches, seed {ev.seed}")
    seat_rates = [s.wins.win_rate for s in ev.seats] + [ev.first_leader.win_rate]
    names = [_seat_name(s.seats) for s in ev.seats] + ["first\nleader"]
    _bars(right, names, seat_rates, "tab:gray")
    right.axhline(1 / ev.rotations, color="grey", lw=0.8, ls="--")
    right.set_title("seat effects")


def _plot_league(fig: Figure, lg: League) -> None:
    import numpy as np

    left, right = fig.subplots(1, 2, width_ratios=[3, 2])
    labels = [a.label for a in lg.agents]
    m = len(labels)
    grid = np.full((m, m), np.nan)
    for i, row in enumerate(lg.matrix):
        for j, c in enumerate(row):
            if c is not None:
                grid[i, j] = c.wins.win_rate.value
    image = left.imshow(grid, cmap="RdBu", vmin=0, vmax=1)
    for i, row in enumerate(lg.matrix):
        for j, c in enumerate(row):
            if c is not None:
                e = c.wins.win_rate
                text = f"{_pct(e.value)}\n[{100 * e.low:.0f}, {100 * e.high:.0f}]"
                ink = "white" if abs(e.value - 0.5) > 0.3 else "black"
                left.text(j, i, text, ha="center", va="center", fontsize=8, color=ink)
    left.set_xticks(range(m), labels, rotation=30, ha="right")
    left.set_yticks(range(m), labels)
    left.set_title(f"win rate of row v column ({lg.matches_per_pair} matches per pair)")
    fig.colorbar(image, ax=left, shrink=0.8)
    order = sorted(range(m), key=lambda i: lg.agents[i].rating.value)
    r = [lg.agents[i].rating for i in order]
    right.errorbar(
        [e.value for e in r],
        range(m),
        xerr=[[e.value - e.low for e in r], [e.high - e.value for e in r]],
        fmt="o",
        capsize=4,
    )
    for y, e in enumerate(r):
        right.annotate(
            f"{e.value:.0f}",
            (e.value, y),
            (0, 6),
            textcoords="offset points",
            ha="center",
            va="bottom",
            fontsize=9,
        )
    right.set_ylim(-0.5, m - 0.5)
    right.set_yticks(range(m), [labels[i] for i in order])
    right.set_xlabel(f"Elo (anchor {labels[lg.anchor]} = {ELO_ANCHOR_RATING:.0f}; 95% CI)")
    right.set_title(lg.rules.describe())


def _check_writable(path: str) -> None:
    """Raise EvalError unless ``path`` can be written; leave no file behind."""
    existed = os.path.lexists(path)
    if os.path.isdir(path):
        raise EvalError(f"cannot write {path}: it is a directory")
    try:
        with open(path, "ab"):
            pass
    except OSError as e:
        raise EvalError(f"cannot write {path}: {e.strerror or e}") from None
    if not existed:
        os.remove(path)


# ================================================================ command line


def add_eval_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the ``eval`` command to ``subparsers`` (run it with :func:`run_eval`)."""
    p = subparsers.add_parser(
        "eval",
        help="evaluate agents over duplicate deals (head to head, or a league)",
        description="Play agents against each other over duplicate deals: each deal is played "
        "once per rotation of the agents over the sides, so the luck of the deal cancels. "
        "With one agent per side: head to head. With --league, or more agents than sides: "
        "every pair plays, and Elo ratings are fitted.",
    )
    p.add_argument(
        "agents",
        nargs="+",
        metavar="AGENT",
        help="agent specs: a name (random, greedy, ...), name:key=value,... or a .zip checkpoint",
    )
    p.add_argument("--preset", choices=PRESETS, default="pagat")
    p.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    p.add_argument(
        "--partnerships",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="with 4 players: seats 0+2 v 1+3 (default), or each for himself",
    )
    p.add_argument(
        "--matches",
        type=int,
        default=1000,
        help="matches to play (per pair in a league); rounded up to whole deals (default 1000)",
    )
    p.add_argument("--seed", type=int, default=0, help="base seed of deals and agents")
    p.add_argument(
        "--processes",
        type=int,
        help="worker processes (default: the CPU count); any number gives the same results",
    )
    p.add_argument("--json", metavar="FILE", help="write the results as JSON")
    p.add_argument("--png", metavar="FILE", help="write a chart of the results")
    p.add_argument("--league", action="store_true", help="play every pair of agents")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def run_eval(args: argparse.Namespace, out: Callable[[str], None] = print) -> int:
    """Run ``allfives eval`` with parsed ``args``: play, print a table, write the files.

    Every check (agents, numbers, output paths, matplotlib for ``--png``) runs before any match
    is played.

    Raises:
        EvalError: for a bad request (one line, for the caller to print).
        UnknownAgentError: for an agent spec the registry does not know.
        RulesError: for rules the engine refuses.
    """
    specs: list[str] = list(args.agents)
    if len(specs) < 2:
        raise EvalError(f"give at least two agents, not {len(specs)}")
    processes = args.processes if args.processes is not None else (os.cpu_count() or 1)
    _check_run(args.matches, processes)
    overrides = {"partnerships": args.partnerships} if args.players == 4 else {}
    rules = Rules.preset(args.preset, args.players, **overrides)
    k = rules.num_sides
    is_league = args.league or len(specs) > k
    if is_league and k != 2:
        raise EvalError(
            f"a league needs two sides (2 players, or 4 in partnerships); {rules.describe()} "
            f"has {k}: give {k} agents, one per side"
        )
    if not is_league and len(specs) != k:
        raise EvalError(
            f"{rules.describe()} has {k} sides: give {k} agents, one per side, not {len(specs)}"
        )
    paths = [p for p in (args.json, args.png) if p is not None]
    if len(paths) == 2 and os.path.abspath(paths[0]) == os.path.abspath(paths[1]):
        raise EvalError(f"--json and --png name the same file: {paths[0]}")
    for path in paths:
        _check_writable(path)
    if args.png is not None and importlib.util.find_spec("matplotlib") is None:
        raise EvalError("--png needs matplotlib (pip install matplotlib)")
    _check_specs(specs)
    start = time.perf_counter()
    result: Evaluation | League
    if is_league:
        result = league(rules, specs, args.matches, args.seed, processes, not args.quiet)
    else:
        result = evaluate(rules, specs, args.matches, args.seed, processes, not args.quiet)
    seconds = time.perf_counter() - start
    out(result.table())
    workers = f"{processes} process{'es' if processes > 1 else ''}"
    out(f"{seconds:.1f} s with {workers}")
    if args.json is not None:
        write_json(result, args.json)
        out(f"wrote {args.json}")
    if args.png is not None:
        write_png(result, args.png)
        out(f"wrote {args.png}")
    return 0
