"""Evaluating agents against each other over duplicate deals (``allfives eval``).

**Duplicate deals.** :func:`evaluate` takes a *lineup*, one agent spec per side (in a 4-player
partnership both partners of a side are that side's agent). Each deal index ``d`` is played once
per rotation ``r`` of the lineup over the sides (:func:`~agents.eval.match.seating`): 2 sides,
both seatings; k sides, the k cyclic rotations. So every agent holds every seat's cards of every
deal and the luck of the deal cancels. ``matches`` counts matches played; it is rounded up to a
whole number of deals (a multiple of ``k``). Match ``m = d·k + r`` is seeded by
:func:`~agents.eval.match.match_seeds` ``(seed, d, m)``.

**Leagues.** :func:`league` plays every pair of agents (rules with two sides: 2 players, or 4 in
partnerships) over the same deals, and fits Elo ratings to the cross-play results
(:func:`agents.eval.stats.elo_ratings`, one prior draw per pair; the anchor is ``"random"`` at
1000 where it plays, else the first agent).

**Parallel play** (:mod:`agents.eval.runner`): the same numbers, bit for bit, for any number of
processes.

**Statistics** (:mod:`agents.eval.stats`). A win shared by ``m`` sides counts ``1/m`` (half,
for two); win rates carry Wilson 95% intervals; *points per hand* is, per match, the side's
points (placements and awards, in the rules' unit, as scored) divided by the hands dealt, then
averaged over matches with a normal 95% interval. Duplicate matches are less noisy than
independent ones, so the intervals err on the wide side. The results and their JSON are in
:mod:`agents.eval.results`, tables and charts in :mod:`agents.eval.report`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from agents.eval.match import EvalError, agent_of, match_seeds, seating
from agents.eval.results import (
    ELO_ANCHOR_RATING,
    ELO_PRIOR_DRAWS,
    AgentStats,
    Evaluation,
    League,
    LeagueAgent,
    PairStats,
    Tally,
    lineup_scores,
    wins_of,
)
from agents.eval.runner import Task, run_matches
from agents.eval.stats import PairResult, elo_ratings, mean_ci
from agents.registry import UnknownAgentError, is_checkpoint, is_kind_spec
from allfives_env.core.rules import Rules


def check_run(matches: int, processes: int, what: str = "matches") -> None:
    if type(matches) is not int or matches < 1:
        raise EvalError(f"{what} must be a positive whole number, not {matches!r}")
    if type(processes) is not int or processes < 1:
        raise EvalError(f"processes must be a positive whole number, not {processes!r}")


def check_specs(specs: Iterable[str], rules: Rules | None = None) -> None:
    """Make each agent once here, so a bad spec fails before any match is played; with
    ``rules``, also check that each agent can play them (a checkpoint plays only the rules it
    was trained on).

    Raises:
        UnknownAgentError: for a spec the registry does not know.
        EvalError: for a checkpoint that cannot be read or was trained for other rules (or any
            other agent that refuses with a ``ValueError`` or ``OSError``).
    """
    for spec in specs:
        try:
            agent = agent_of(spec)
            check = getattr(agent, "check_rules", None)
            if rules is not None and check is not None:
                check(rules)
        except (UnknownAgentError, EvalError):
            raise
        except OSError as e:
            raise EvalError(f"agent {spec!r}: {e.strerror or e}") from None
        except ValueError as e:  # e.g. a checkpoint that is not one
            raise EvalError(f"agent {spec!r}: {e}") from None


def labels_of(specs: Sequence[str]) -> tuple[str, ...]:
    """Short unique names: a checkpoint by its file name, an agent of another package
    (``rllib:PATH``) by its own name; repeats get ``#2``, ``#3``..."""
    out: list[str] = []
    for spec in specs:
        if is_checkpoint(spec):
            base = os.path.basename(spec)
        elif is_kind_spec(spec):  # rllib:PATH: the agent's own short name
            base = agent_of(spec).name
        else:
            base = spec
        label, k = base, 1
        while label in out:
            k += 1
            label = f"{base}#{k}"
        out.append(label)
    return tuple(out)


def _duplicate_tasks(
    rules: Rules, lineup: Sequence[str], deals: int, seed: int, *key: object
) -> list[Task]:
    k = rules.num_sides
    return [
        (rules, seating(rules, lineup, r), *match_seeds(seed, d, d * k + r, *key))
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
    tick: Callable[[], object] | None = None,
) -> Evaluation:
    """Play ``lineup`` (one agent spec per side) over duplicate deals.

    ``matches`` is rounded up to a multiple of the number of sides (see the module docstring).
    ``progress``: a bar on stderr; ``tick``: called once per match played.

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
    check_run(matches, processes)
    check_specs(lineup, rules)
    deals = -(-matches // k)
    labels = labels_of(lineup)
    results = run_matches(
        _duplicate_tasks(rules, lineup, deals, seed), processes, progress, " v ".join(labels), tick
    )
    wins, pph = lineup_scores(results, k, k)
    tally = Tally(k, [0.0] * k)
    for r in results:
        tally.add(rules, r)
    n = len(results)
    return Evaluation(
        rules=rules,
        seed=seed,
        deals=deals,
        rotations=k,
        agents=tuple(
            AgentStats(labels[i], lineup[i], wins_of(wins[i], n), mean_ci(pph[i])) for i in range(k)
        ),
        seats=tally.seats(rules),
        first_leader=tally.first_leader(),
        hands_per_match=tally.hands / n,
        moves_per_match=tally.moves / n,
        shared_wins=tally.shared,
        results=tuple(results),
    )


def evaluate_against(
    rules: Rules,
    agent: str,
    opponents: Sequence[str],
    matches: int,
    seed: int,
    processes: int,
    progress: bool = False,
) -> dict[str, dict[str, Any]]:
    """The trainers' evaluation: ``agent`` against each opponent spec over duplicate deals.

    With more than two sides, the agent plays against copies of the opponent at every other
    side. Returns, per opponent spec, the agent's ``win_rate`` and its 95% interval ``ci95``,
    its ``points_per_hand``, the first opponent's ``opponent_points_per_hand``, and
    ``matches``. ``progress``: a bar per opponent on stderr.

    Raises:
        EvalError, UnknownAgentError: as :func:`evaluate`.
    """
    out: dict[str, dict[str, Any]] = {}
    for spec in opponents:
        lineup = [agent] + [spec] * (rules.num_sides - 1)
        res = evaluate(rules, lineup, matches, seed, processes, progress=progress)
        me = res.agents[0]
        rate = me.wins.win_rate
        out[spec] = {
            "win_rate": rate.value,
            "ci95": [rate.low, rate.high],
            "points_per_hand": me.points_per_hand.value,
            "opponent_points_per_hand": res.agents[1].points_per_hand.value,
            "matches": res.matches,
        }
    return out


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
    check_run(matches_per_pair, processes, "matches per pair")
    check_specs(specs, rules)
    deals = -(-matches_per_pair // 2)
    labels = labels_of(specs)
    pairs = [(i, j) for i in range(len(specs)) for j in range(i + 1, len(specs))]
    tasks = [
        t
        for i, j in pairs
        for t in _duplicate_tasks(rules, (specs[i], specs[j]), deals, seed, "pair", i, j)
    ]
    results = run_matches(tasks, processes, progress, "league")
    per_pair = 2 * deals
    tally = Tally(2, [0.0, 0.0])
    for r in results:
        tally.add(rules, r)
    m = len(specs)
    cells: list[list[PairStats | None]] = [[None] * m for _ in range(m)]
    total_wins = [0.0] * m
    played = [0] * m
    pair_results: list[PairResult] = []
    for p, (i, j) in enumerate(pairs):
        wins, pph = lineup_scores(results[p * per_pair : (p + 1) * per_pair], 2, 2)
        for a, b, x in ((i, j, 0), (j, i, 1)):
            cells[a][b] = PairStats(wins_of(wins[x], per_pair), mean_ci(pph[x]))
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
            LeagueAgent(labels[i], specs[i], ratings[labels[i]], wins_of(total_wins[i], played[i]))
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
