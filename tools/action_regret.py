"""Agents' regret per decision against a strong search's values, on the same positions.

    python tools/action_regret.py AGENT... [--reference batchsearch:worlds=512]
        [--positions 1500] [--max-moves 40] [--seed 0] [--preset pagat] [--players 2]

1. ``--positions`` positions of seeded matches played mostly by the heuristic
   (:func:`agents.eval.regret.played_positions`), where the seat to act has a choice, each
   after up to ``--max-moves`` moves from the match's start (a 2-player pagat match lasts
   about 150: 200 reaches its end).
2. The reference values every legal action of each (the mean over its worlds, in points).
3. Each agent picks an action in each; its regret is the reference's best value less the value
   of its pick. Positions where the acting seat holds at most 6 tiles (the hand's end), and
   positions where a side has three quarters of its target or more (the match's end, where a
   move may win or lose the match: the values count the match's win as the target's points),
   are summarized apart too.

Prints a Markdown table: mean regret with its normal 95% interval, the share of picks the
reference values best. A cheap yardstick (minutes, not the hour of 400 matches against a
search), and only a yardstick: the reference has noise and blind spots of its own.
"""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agents.eval.regret import Regret


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("agents", nargs="+", metavar="AGENT")
    p.add_argument("--reference", default="batchsearch:worlds=512")
    p.add_argument("--positions", type=int, default=1500)
    p.add_argument("--max-moves", type=int, default=40)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--preset", default="pagat")
    p.add_argument("--players", type=int, default=2)
    args = p.parse_args()
    if args.max_moves < 0:
        p.error(f"--max-moves must be 0 or more, not {args.max_moves}")
    from agents.errors import AgentError
    from agents.eval.regret import agent_regret, near_end, played_positions, reference_values
    from agents.eval.tournament import check_run, check_specs
    from agents.registry import value_agent
    from allfives_env.core.errors import AllFivesError
    from allfives_env.core.rules import Rules

    try:  # a mistake in the command is one line, before anything is searched
        rules = Rules.preset(args.preset, args.players)
        check_run(args.positions, 1, "positions")
        check_specs([*args.agents, args.reference], rules)
    except (AllFivesError, AgentError) as e:
        p.error(str(e))
    try:
        value_agent(args.reference)
    except ValueError as e:
        p.error(f"--reference: {e}")
    t0 = time.perf_counter()
    views = played_positions(rules, args.positions, args.seed, args.max_moves)
    values = reference_values(args.reference, views, args.seed)
    late = [i for i, v in enumerate(views) if len(v.hand) <= 6]
    near = [i for i, v in enumerate(views) if near_end(v.scores, rules.target)]
    print(
        f"{len(views)} positions ({rules.describe()}, {len(late)} with at most 6 tiles in "
        f"hand, {len(near)} with a side at ¾ of its target), valued by {args.reference} in "
        f"{time.perf_counter() - t0:.0f} s"
    )
    print()
    print(
        "| agent | regret per decision (points) | picks the best | at most 6 tiles in hand "
        "| a side at ¾ of its target |"
    )
    print("|---|---|---:|---|---|")
    for spec in args.agents:
        r = agent_regret(spec, views, values, args.seed + 10**6)
        print(
            f"| `{spec}` | {r.mean:.2f} ± {r.half_width:.2f} | {100 * r.best_share:.1f}% | "
            f"{_part(r, late)} | {_part(r, near)} |",
            flush=True,
        )


def _part(r: Regret, where: list[int]) -> str:
    """The mean regret over positions ``where`` with its interval, or a dash for none."""
    from agents.eval.regret import Regret

    if not where:
        return "—"
    part = Regret(tuple(r.regrets[i] for i in where))
    return f"{part.mean:.2f} ± {part.half_width:.2f}"


if __name__ == "__main__":
    main()
