"""What a rollout step costs with a network in ``batchsearch``, beside the compiled heuristic.

    python tools/rollout_cost.py CHECKPOINT [--worlds 128] [--positions 60] [--seed 0]
        [--repeats 3]

``batchsearch:worlds=W`` moves in the first positions of seeded ``pagat`` 2-player games
(:func:`agents.eval.timing.positions`, the checkpoint's rules) with three rollout policies:

- ``heuristic``: the compiled heuristic, for every seat (the default);
- ``network``: the checkpoint's scorer, compiled (:mod:`agents.compiled_scorer`);
- ``network, whole observations``: the same network on whole observations through
  ``ScorerPolicy.logits`` (what ``rollout=PATH.zip`` cost before the compiled scorer).

Each policy's ``act_batch`` is timed inside the moves: the cost of a rollout step is its time
over the games it was asked about (one process, one thread; run it on an otherwise idle
machine). Prints a Markdown table: µs per rollout step and per move, and each against the
heuristic; the best of ``--repeats`` passes over the positions.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

import numpy as np


def timed_search(worlds: int, checkpoint: str, policy: Timed) -> Any:
    """``batchsearch:worlds=W,rollout=checkpoint`` (its engine, with the checkpoint's
    observation) whose rollouts ``policy`` plays."""
    from agents.batch_search import BatchSearchAgent

    class TimedSearch(BatchSearchAgent):
        def _rollout_policy(self) -> Any:
            return policy

    return TimedSearch(worlds, checkpoint)


class Timed:
    """A batch agent whose ``act_batch`` calls are timed (seconds and games asked about)."""

    def __init__(self, agent: Any, whole: bool = False):
        self.agent = agent
        self.whole = whole
        self.seconds = 0.0
        self.games = 0

    def act_batch(self, vg: Any, games: Any, rng: Any) -> Any:
        t0 = time.perf_counter()
        if self.whole:  # the scorer on whole observations (the path before the compiled one)
            obs = vg.observe_games(games, vg.current_player[games])
            z = self.agent.policy.logits(obs).astype(np.float64)
            out = np.where(vg.masks()[games] > 0, z, -np.inf).argmax(axis=1)
        else:
            out = self.agent.act_batch(vg, games, rng)
        self.seconds += time.perf_counter() - t0
        self.games += len(games)
        return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("checkpoint")
    p.add_argument("--worlds", type=int, default=128)
    p.add_argument("--positions", type=int, default=60)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    from agents.batch_search import BatchSearchAgent
    from agents.errors import AgentError
    from agents.eval.timing import positions
    from agents.learned import load_learned
    from agents.numpy_networks import ScorerPolicy

    try:
        net = load_learned(args.checkpoint)
        BatchSearchAgent(args.worlds, args.checkpoint)
    except (AgentError, ValueError) as e:
        p.error(str(e))
    if not isinstance(net.policy, ScorerPolicy):
        p.error(f"{args.checkpoint} is not a scorer network")
    from agents.heuristic import HeuristicAgent

    views = positions(net.spec.rules, args.positions, args.seed)
    rows: dict[str, tuple[float, float]] = {}
    for name, policy in (
        ("heuristic", Timed(HeuristicAgent())),
        ("network", Timed(net)),
        ("network, whole observations", Timed(net, whole=True)),
    ):
        best: tuple[float, float] | None = None
        for _ in range(args.repeats + 1):  # the first pass compiles and warms up
            policy.seconds, policy.games = 0.0, 0
            search = timed_search(args.worlds, args.checkpoint, policy)
            t0 = time.perf_counter()
            for i, view in enumerate(views):
                search.evaluate(view, random.Random(args.seed + i))
            move = (time.perf_counter() - t0) / len(views)
            step = policy.seconds / policy.games
            best = (step, move) if best is None else (min(best[0], step), min(best[1], move))
        assert best is not None
        rows[name] = best
        print(f"{name}: {1e6 * best[0]:.2f} µs a rollout step, {1e3 * best[1]:.1f} ms a move")
    base_step, base_move = rows["heuristic"]
    print()
    print(f"batchsearch:worlds={args.worlds}, {len(views)} positions, one thread")
    print()
    print("| rollout policy | µs a rollout step | × heuristic | ms a move | × heuristic |")
    print("|---|---:|---:|---:|---:|")
    for name, (step, move) in rows.items():
        print(
            f"| {name} | {1e6 * step:.2f} | {step / base_step:.2f} | {1e3 * move:.1f} | "
            f"{move / base_move:.2f} |"
        )


if __name__ == "__main__":
    main()
