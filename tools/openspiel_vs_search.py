"""OpenSpiel's ISMCTS against the project's search and heuristic agents, at equal time per move.

    python tools/openspiel_vs_search.py [--sims 50] [--matches 60] [--processes 2] [--seed 0]

1. The ISMCTS bot (``openspiel-ismcts:sims=N``) and the determinized MCTS bot
   (``openspiel-mcts:sims=N``) are timed on the same positions (pagat, 2 players: the first
   moves of seeded random games), one process.
2. ``search`` gets each bot's mean time per move as its budget
   (``search:sims=100000,time=T``) and is timed on those positions too.
3. Duplicate-deal matches (``allfives eval``'s evaluator): each bot against the search of equal
   time and against the heuristic; win rates with Wilson 95% intervals, as a Markdown table.
"""

from __future__ import annotations

import argparse


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sims", type=int, default=50)
    p.add_argument("--matches", type=int, default=60)
    p.add_argument("--processes", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--positions", type=int, default=40)
    args = p.parse_args()
    from agents.errors import AgentError
    from agents.eval.timing import positions, seconds_per_move
    from agents.eval.tournament import check_run, check_specs, evaluate
    from allfives_env.core.errors import AllFivesError
    from allfives_env.core.rules import Rules

    rules = Rules.preset("pagat", 2)
    ismcts = f"openspiel-ismcts:sims={args.sims}"
    dmcts = f"openspiel-mcts:sims={args.sims}"
    try:  # a mistake in the command is one line, before anything is timed or played
        check_run(args.matches, args.processes)
        check_run(args.positions, 1, "positions")
        check_specs([ismcts, dmcts], rules)
    except (AllFivesError, AgentError) as e:
        p.error(str(e))
    views = positions(rules, args.positions, args.seed)
    t_is = seconds_per_move(ismcts, views, args.seed)
    t_dm = seconds_per_move(dmcts, views, args.seed)
    search = f"search:sims=100000,time={t_is:.3f}"
    search_dm = f"search:sims=100000,time={t_dm:.3f}"
    t_search = seconds_per_move(search, views, args.seed)
    t_search_dm = seconds_per_move(search_dm, views, args.seed)
    t_heur = seconds_per_move("heuristic", views, args.seed)
    print(f"time per move over {len(views)} positions (one process):")
    timed = [(ismcts, t_is), (dmcts, t_dm), (search, t_search), (search_dm, t_search_dm),
             ("heuristic", t_heur)]  # fmt: skip
    for spec, t in timed:
        print(f"  {spec:40s} {1000 * t:8.1f} ms")
    print()
    print("| agent | opponent | matches | win rate [95% CI] | points per hand |")
    print("|---|---|---:|---|---:|")
    for a, b in [(ismcts, search), (ismcts, "heuristic"), (dmcts, search_dm), (dmcts, "heuristic")]:
        res = evaluate(rules, [a, b], args.matches, args.seed, args.processes, progress=True)
        me = res.agents[0]
        w = me.wins.win_rate
        print(
            f"| `{a}` | `{b}` | {res.matches} | {100 * w.value:.1f}% "
            f"[{100 * w.low:.1f}, {100 * w.high:.1f}] | {me.points_per_hand.value:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
