"""Agents against one opponent, each with its time per move: strength at a price.

    python tools/strength_at_time.py AGENT... [--opponent search:sims=100] [--matches 400]
        [--processes 2] [--seed 0] [--positions 100] [--preset pagat] [--players 2]

1. Every agent and the opponent are timed on the same positions (the first moves of seeded
   random games, :mod:`agents.eval.timing`), one process, on an otherwise idle machine.
2. Each agent plays the opponent over duplicate deals (``allfives eval``'s evaluator).

Prints the times and a Markdown table: win rate with its Wilson 95% interval, points per hand.
"""

from __future__ import annotations

import argparse
import time


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("agents", nargs="+", metavar="AGENT")
    p.add_argument("--opponent", default="search:sims=100")
    p.add_argument("--matches", type=int, default=400)
    p.add_argument("--processes", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--positions", type=int, default=100)
    p.add_argument("--preset", default="pagat")
    p.add_argument("--players", type=int, default=2)
    args = p.parse_args()
    from agents.errors import AgentError
    from agents.eval.timing import positions, seconds_per_move
    from agents.eval.tournament import check_run, check_specs, evaluate
    from allfives_env.core.errors import AllFivesError
    from allfives_env.core.rules import Rules

    try:  # a mistake in the command is one line, before anything is timed or played
        rules = Rules.preset(args.preset, args.players)
        check_run(args.matches, args.processes)
        check_run(args.positions, 1, "positions")
        check_specs([*args.agents, args.opponent], rules)
    except (AllFivesError, AgentError) as e:
        p.error(str(e))
    views = positions(rules, args.positions, args.seed)
    print(f"time per move over {len(views)} positions ({rules.describe()}, one process):")
    for spec in [*args.agents, args.opponent]:
        t = seconds_per_move(spec, views, args.seed)
        print(f"  {spec:50s} {1000 * t:8.1f} ms", flush=True)
    print()
    print("| agent | opponent | matches | win rate [95% CI] | points per hand (own : theirs) |")
    print("|---|---|---:|---|---|")
    for spec in args.agents:
        t0 = time.perf_counter()
        lineup = [spec] + [args.opponent] * (rules.num_sides - 1)
        res = evaluate(rules, lineup, args.matches, args.seed, args.processes, progress=True)
        me, them = res.agents[0], res.agents[1]
        w = me.wins.win_rate
        print(
            f"| `{spec}` | `{args.opponent}` | {res.matches} | {100 * w.value:.1f}% "
            f"[{100 * w.low:.1f}, {100 * w.high:.1f}] | {me.points_per_hand.value:.1f} : "
            f"{them.points_per_hand.value:.1f} | ({time.perf_counter() - t0:.0f} s)",
            flush=True,
        )


if __name__ == "__main__":
    main()
