"""The search teacher's speed in this process and on Ray clusters of one and two nodes.

    python tools/teacher_scaling.py [--positions 384] [--spec batchsearch:worlds=64]

The teacher (:class:`agents.training.teacher.SearchTeacher`, ``--spec`` a value search) values
the same positions (``--positions`` games of pagat, 2 players, dealt from a fixed seed and
played 6 random moves in) three ways, and the rates are printed as a Markdown table:

- **this process**: ``processes=1``, no Ray;
- **one node**: a Ray cluster of one node with 1 CPU (one actor);
- **two nodes**: a Ray cluster of two nodes with 1 CPU each (one actor on each), with the ratio
  two nodes / one node: how the teacher scales out.

The nodes are started on this machine by :mod:`agents.training.local_cluster`
(``ray start --block`` on loopback, each in its own temp dir, token authentication on) and
stopped alone; never ``ray stop``, which would stop every Ray instance on the machine. Each
row's teacher first values a few of the positions (its actors start, the search compiles),
then all of them, timed. The targets and values of the three are checked to be identical.
On a machine of two cores, the two nodes' actors and the driver share them: measure on a
quiet machine.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
WARM_UP = 8
"""Positions valued first, untimed, by each row's teacher (its workers start, the search
compiles)."""


def positions(count: int) -> Any:
    """``count`` games of pagat, 2 players, dealt from a fixed seed, 6 random moves in."""
    from allfives_env.core.rules import Rules
    from allfives_env.vector.engine import VectorGame, policy_rng

    vg = VectorGame(Rules.preset("pagat", 2), count, forced_actions="auto")
    vg.reset(3)
    rng = policy_rng(9, count)
    for _ in range(6):
        vg.step(vg.random_actions(rng))
    return vg


def measure(spec: str, vg: Any, address: str | None) -> tuple[float, list[Any], list[str]]:
    """Positions/s of the teacher valuing every game of ``vg`` (on the cluster at ``address``,
    or in this process), its choices, targets and values, and the nodes of its actors."""
    from agents.training.teacher import SearchTeacher
    from allfives_env.vector.engine import policy_rng

    games = np.arange(vg.num_games)
    with SearchTeacher(spec, address=address) as teacher:
        teacher.valued(vg, games[:WARM_UP], policy_rng(1, vg.num_games))
        started = time.perf_counter()
        out = teacher.valued(vg, games, policy_rng(5, vg.num_games))
        seconds = time.perf_counter() - started
        return len(games) / seconds, list(out), teacher.nodes


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--positions", type=int, default=384, help="positions valued by each row")
    p.add_argument("--spec", default="batchsearch:worlds=64", help="the teacher: a value search")
    args = p.parse_args()
    if args.positions < WARM_UP:
        p.error(f"--positions must be at least {WARM_UP}, not {args.positions}")
    from agents.registry import value_agent

    try:
        value_agent(args.spec)
    except ValueError as e:
        p.error(f"--spec: {e}")
    from agents.training.local_cluster import local_cluster, use_cluster_token

    use_cluster_token()  # the driver's token is the nodes'
    vg = positions(args.positions)
    rows: list[tuple[str, int, float]] = []
    rate, reference, _ = measure(args.spec, vg, None)
    rows.append(("this process (processes=1)", 1, rate))
    for nodes in (1, 2):
        with local_cluster(nodes) as address:
            rate, out, where = measure(args.spec, vg, address)
        assert len(set(where)) == nodes, where  # an actor on each node
        for a, b in zip(reference, out, strict=True):
            assert np.array_equal(a, b, equal_nan=True), "the targets differ from this process's"
        rows.append((f"Ray, {nodes} node{'s' * (nodes > 1)} × 1 CPU", nodes, rate))
    print(f"{args.spec}, {args.positions} positions (pagat, 2 players); targets identical\n")
    print("| where | actors | positions/s |\n|---|---:|---:|")
    for name, actors, rate in rows:
        print(f"| {name} | {actors if 'Ray' in name else '—'} | {rate:,.1f} |")
    print(f"\ntwo nodes / one node: {rows[2][2] / rows[1][2]:.2f}×")


if __name__ == "__main__":
    main()
