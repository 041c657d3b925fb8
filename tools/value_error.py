"""How well a checkpoint's value network knows a search's values, on the same positions.

    python tools/value_error.py CHECKPOINT [--reference batchsearch:worlds=512]
        [--positions 300] [--max-moves 40] [--seed 0]

1. ``--positions`` positions of seeded matches played mostly by the heuristic, where the seat
   to act has a choice (:func:`agents.eval.regret.played_positions`), under the checkpoint's
   rules.
2. The reference search values every legal action; a position's value is its best action's.
3. The checkpoint's value network (``train.py`` with ``value_head``) values the seat's own
   observation.

Prints, in points: the spread of the reference's position values, the network's error (root
mean square) and its correlation with them, and the gap between the reference's best and
second-best actions (what a value that cuts rollouts short must resolve), over all positions
and over those where no side has reached three quarters of its target.
"""

from __future__ import annotations

import argparse


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("checkpoint")
    p.add_argument("--reference", default="batchsearch:worlds=512")
    p.add_argument("--positions", type=int, default=300)
    p.add_argument("--max-moves", type=int, default=40)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    import numpy as np

    from agents.errors import AgentError
    from agents.eval.regret import near_end, played_positions, reference_values
    from agents.eval.tournament import check_run
    from agents.registry import value_agent
    from agents.value_network import read_value
    from allfives_env.envs.spaces import Encoding

    try:  # a mistake in the command is one line, before anything is searched
        check_run(args.positions, 1, "positions")
        spec, net = read_value(args.checkpoint)
        value_agent(args.reference)
    except (AgentError, ValueError) as e:
        p.error(str(e))
    if args.max_moves < 0:
        p.error(f"--max-moves must be 0 or more, not {args.max_moves}")
    rules = spec.rules
    views = played_positions(rules, args.positions, args.seed, args.max_moves)
    values = reference_values(args.reference, views, args.seed)
    best = np.array([max(v) for v in values])
    gaps = np.array([sorted(v)[-1] - sorted(v)[-2] for v in values])
    enc = Encoding(rules, False)
    guess = net.values(np.stack([enc.observe_view(v) for v in views]))
    far = np.array([not near_end(v.scores, rules.target) for v in views])
    print(f"{len(views)} positions ({rules.describe()}), valued by {args.reference}")
    print()
    print(
        "| positions | count | spread (sd) | network's error (rms) | correlation "
        "| gap best–second (median) |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for label, where in (("all", np.ones(len(views), bool)), ("no side at ¾ of its target", far)):
        if not where.any():
            continue
        b, g = best[where], guess[where]
        corr = float(np.corrcoef(b, g)[0, 1]) if where.sum() > 1 and b.std() > 0 else float("nan")
        rms = float(np.sqrt(((g - b) ** 2).mean()))
        print(
            f"| {label} | {int(where.sum())} | {b.std():.1f} | {rms:.1f} | {corr:.2f} | "
            f"{float(np.median(gaps[where])):.1f} |"
        )


if __name__ == "__main__":
    main()
