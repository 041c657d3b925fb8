"""The small-set ladder's figures: tree sizes, the exact solver beside OpenSpiel's own
``exploitability.nash_conv`` on the tiny game, CFR+ on the small one, and OpenSpiel's own
solvers on both (measured exactly by the solver).

    python tools/exact_ladder.py sizes --players 2  # the tree-size table
    python tools/exact_ladder.py openspiel        # solver v OpenSpiel, one run, side by side
    python tools/exact_ladder.py cfr --iterations 300
    python tools/exact_ladder.py algorithms       # OpenSpiel's CFR, CFR+, MCCFR on the tiny game
    # ... and its MCCFR on the small game (its CFR and CFR+ cannot start there):
    python tools/exact_ladder.py algorithms --game small --algorithms 'external-sampling MCCFR'

Run it on a quiet machine: the times are wall-clock seconds of this process (medians of
repeated runs in ``openspiel``). Prints Markdown.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from allfives_env.core.rules import Rules
from allfives_env.core.tiles import set_size

TINY = Rules.preset("pagat", 2, max_pip=2, hand_size=2)
SMALL = Rules.preset("dominoes_cc", 2, max_pip=3, hand_size=4)
ALGORITHMS = ("CFR", "CFR+", "external-sampling MCCFR", "outcome-sampling MCCFR")
"""OpenSpiel's solvers that ``algorithms`` runs."""
BUILD_LIMIT = 4_000_000
"""Trees up to this many (estimated) nodes are built and counted; larger ones are estimated."""


def sizes(players: int) -> None:
    from agents.exact.tree import build_tree, estimate_nodes

    print(f"{players} players\n")
    print("| preset | set | hand | deals | histories | infostates (player 0) | built in |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for preset in ("pagat", "dominoes_cc"):
        for n in (2, 3, 4):
            for hand in range(1, set_size(n) // players + 1):
                rules = Rules.preset(preset, players, max_pip=n, hand_size=hand)
                guess = estimate_nodes(rules)
                if guess > BUILD_LIMIT:
                    row = f"| {preset} | double-{n} | {hand} | | ≈{guess:.2g} (estimate) | | |"
                else:
                    start = time.perf_counter()
                    tree = build_tree(rules)
                    took = time.perf_counter() - start
                    row = (
                        f"| {preset} | double-{n} | {hand} | {tree.deals:,} | {tree.num_nodes:,} "
                        f"| {tree.infosets_of(0):,} | {took:.1f} s |"
                    )
                print(row, flush=True)


def openspiel() -> None:
    import pyspiel
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import exploitability

    import allfives_openspiel  # noqa: F401
    from agents.exact.solver import Solver, uniform
    from agents.exact.tree import build_tree

    game = pyspiel.load_game("python_allfives(preset=pagat,players=2,max_pip=2,hand_size=2)")

    def median(run: Any, times: int) -> tuple[Any, float]:
        took = []
        for _ in range(times):
            start = time.perf_counter()
            value = run()
            took.append(time.perf_counter() - start)
        return value, statistics.median(took)

    uniform_policy = os_policy.UniformRandomPolicy(game)
    theirs, t_theirs = median(lambda: exploitability.nash_conv(game, uniform_policy), 3)
    tree, t_build = median(lambda: build_tree(TINY), 5)
    solver = Solver(tree)
    solver.nash_conv(uniform(tree))  # compile the kernels once (numba caches them on disk)
    mine, t_mine = median(lambda: solver.nash_conv(uniform(tree)), 100)
    print("| NashConv of the uniform policy, tiny game | value | seconds |")
    print("|---|---:|---:|")
    print(f"| OpenSpiel `exploitability.nash_conv` | {theirs:.12f} | {t_theirs:.2f} |")
    print(f"| allfives solver (tree given) | {mine:.12f} | {t_mine:.6f} |")
    print(f"| allfives tree build | | {t_build:.3f} |")
    print(f"| allfives solver, tree build included | | {t_build + t_mine:.3f} |")
    print(
        f"\nSolver {t_theirs / t_mine:,.0f}× faster with the tree given, "
        f"{t_theirs / (t_build + t_mine):,.0f}× with its build; difference {abs(theirs - mine):.2e}"
    )


def cfr(iterations: int, measure_every: int) -> None:
    from agents.exact.solver import Solver
    from agents.exact.tree import build_tree

    start = time.perf_counter()
    tree = build_tree(SMALL)
    built = time.perf_counter() - start
    print(
        f"{SMALL.describe()}: {tree.num_nodes:,} histories, {tree.infosets_of(0):,} + "
        f"{tree.infosets_of(1):,} information states, utility range {tree.utility_range}, "
        f"built in {built:.1f} s\n"
    )
    print("| iteration | seconds | NashConv | of the range |")
    print("|---:|---:|---:|---:|")
    solver = Solver(tree)
    solver.cfr_plus(
        iterations,
        measure_every,
        lambda p: print(
            f"| {p.iteration} | {p.seconds:.1f} | {p.nash_conv:.5f} | "
            f"{p.nash_conv / tree.utility_range:.4%} |",
            flush=True,
        ),
    )


def algorithms(seconds: float, which: str, names: list[str]) -> None:
    """OpenSpiel's own solvers, unchanged, on the tiny or the small game: NashConv (by the
    exact solver; on the tiny game the last one checked against OpenSpiel's nash_conv) against
    iterations and seconds."""
    import math

    import numpy as np
    from open_spiel.python.algorithms import (
        cfr,
        exploitability,
        external_sampling_mccfr,
        outcome_sampling_mccfr,
    )

    from agents.exact.solver import Solver
    from agents.exact.tree import build_tree
    from allfives_openspiel.exact import PolicyReader

    rules = TINY if which == "tiny" else SMALL
    start = time.perf_counter()
    tree = build_tree(rules)
    solver = Solver(tree)
    reader = PolicyReader(tree, light=which == "small")
    game = reader.game
    orders = math.factorial(rules.hand_size) ** rules.num_players
    print(
        f"{rules.describe()}: {tree.num_nodes:,} histories in the solver's tree, "
        f"{len(reader.states):,} information states read, in {time.perf_counter() - start:.0f} "
        f"s; OpenSpiel's game deals tile by tile, so its tree has about {orders:,} times as "
        f"many histories ({tree.num_nodes * orders:.2g})\n"
    )
    makers: dict[str, Any] = {
        "CFR": lambda: cfr.CFRSolver(game),
        "CFR+": lambda: cfr.CFRPlusSolver(game),
        "external-sampling MCCFR": lambda: external_sampling_mccfr.ExternalSamplingSolver(game),
        "outcome-sampling MCCFR": lambda: outcome_sampling_mccfr.OutcomeSamplingSolver(game),
    }
    print("| algorithm | iterations | seconds | NashConv | of the range |")
    print("|---|---:|---:|---:|---:|")
    for name in names:
        np.random.seed(0)  # the MCCFR solvers sample with NumPy's global generator
        algo = makers[name]()
        step = getattr(algo, "evaluate_and_update_policy", None) or algo.iteration
        done, spent, next_at = 0, 0.0, 1
        last = None
        while spent < seconds:
            start = time.perf_counter()
            step()
            spent += time.perf_counter() - start
            done += 1
            if done == next_at or spent >= seconds:
                last = algo.average_policy()
                value = solver.nash_conv(reader.read(last))
                print(
                    f"| {name} | {done:,} | {spent:.1f} | {value:.5f} | "
                    f"{value / tree.utility_range:.3%} |",
                    flush=True,
                )
                next_at = int(next_at * 2)
        if which == "tiny":
            check = exploitability.nash_conv(game, last)
            print(f"| {name}: OpenSpiel's nash_conv of the last | | | {check:.5f} | |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("sizes", "openspiel", "cfr", "algorithms"))
    parser.add_argument("--seconds", type=float, default=60.0, help="algorithms: each's time")
    parser.add_argument("--game", choices=("tiny", "small"), default="tiny", help="algorithms")
    parser.add_argument(
        "--algorithms",
        nargs="+",
        choices=ALGORITHMS,
        default=list(ALGORITHMS),
        help="algorithms: which (default: all four)",
    )
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4), help="sizes")
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--measure_every", type=int, default=25)
    args = parser.parse_args()
    if args.what == "sizes":
        sizes(args.players)
    elif args.what == "openspiel":
        openspiel()
    elif args.what == "algorithms":
        algorithms(args.seconds, args.game, args.algorithms)
    else:
        cfr(args.iterations, args.measure_every)


if __name__ == "__main__":
    main()
