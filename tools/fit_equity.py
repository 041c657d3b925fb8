"""Fit the match equity that ``batchsearch:equity=true`` values a hand's end by
(:mod:`agents.equity`).

    python tools/fit_equity.py [--preset pagat] [--players 2] [--[no-]partnerships]
        [--matches 60000] [--seed 0]

Plays ``--matches`` seeded matches of the compiled heuristic against itself on the batched
engine, records the scores at every hand's end that left the match going and who went on to
win it, and fits :class:`agents.equity.MatchEquity` by maximum likelihood. Prints the fit (the
line to put in :data:`agents.equity.EQUITIES`), its mean log likelihood per hand end beside that
of the points' difference alone (``power`` 0) and the model in use, and a calibration table:
over the deciles of the predicted chance, the mean prediction and the observed share of wins.
"""

from __future__ import annotations

import argparse
import time


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--preset", default="pagat")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--partnerships", action=argparse.BooleanOptionalAction, default=None)
    p.add_argument("--matches", type=int, default=60_000)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    import numpy as np

    from agents.equity import check_two_sides, equity_for, fit, hand_ends, log_likelihood
    from agents.errors import AgentError
    from agents.eval.tournament import check_run
    from allfives_env.core.errors import AllFivesError
    from allfives_env.core.rules import Rules

    try:  # a mistake in the command is one line, before anything is played
        extra = {} if args.partnerships is None else {"partnerships": args.partnerships}
        rules = Rules.preset(args.preset, args.players, **extra)
        check_run(args.matches, 1, "matches")
        check_two_sides(rules)
    except (AllFivesError, AgentError) as e:
        p.error(str(e))
    t0 = time.perf_counter()
    own, other, won = hand_ends(rules, args.matches, args.seed)
    equity, ll = fit(own, other, won, rules.target)
    print(
        f"{rules.describe()}: {own.size:,} hand ends in {args.matches:,} matches "
        f"({time.perf_counter() - t0:.0f} s)"
    )
    print(f"fit: {equity}, mean log likelihood {ll:.4f}")
    _, flat = fit(own, other, won, rules.target, powers=(0.0,))
    print(f"the points' difference alone: mean log likelihood {flat:.4f}")
    try:
        used = equity_for(rules)
    except AgentError:
        print("in use: none")
    else:
        mean = log_likelihood(used, own, other, won, rules.target)
        print(f"in use: {used}, mean log likelihood {mean:.4f}")
    pred = equity.win_probability(own, other, rules.target)
    print()
    print("| predicted | hand ends | mean prediction | observed |")
    print("|---|---:|---:|---:|")
    for lo in np.arange(0.0, 1.0, 0.1):
        at = (pred >= lo) & (pred < lo + 0.1)
        if at.any():
            print(
                f"| {lo:.1f}–{lo + 0.1:.1f} | {int(at.sum()):,} | {pred[at].mean():.3f} | "
                f"{won[at].mean():.3f} |"
            )


if __name__ == "__main__":
    main()
