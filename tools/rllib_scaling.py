"""RLlib on the batched engine, on Ray clusters of one and two nodes: what scales out and what
does not.

    python tools/rllib_scaling.py [--cycles 5]

``train_rllib.py``'s default PPO (pagat, 2 players, 256 games an env runner, no warm start)
runs with its env runners on a local Ray cluster (nodes started here on loopback, 1 CPU
each, each in its own temp dir, stopped alone; never ``ray stop``):

- **one node**: one env runner, 64 steps of its 256 games an iteration;
- **two nodes**: two env runners, one on each node, 32 steps of their 256 games each: the same
  16,384 learner steps an iteration.

Each row first runs one iteration (the env runners start, the engine compiles), then
``--cycles`` of each, timed:

- **sampling**: the env runners' rollouts alone (``sample()`` on every env runner at once,
  the arrays back in the driver and joined into the train batch), learner steps/s;
- **iterations**: whole PPO iterations (sampling, then the learner's update in the driver,
  then the weights sent back), learner steps/s;

and the learner's share of an iteration. Printed as a Markdown table with the ratio two nodes
/ one node. On a machine of two cores the nodes' env runners and the driver share them:
measure on a quiet machine.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

GAMES = 256
"""Games an env runner plays side by side."""
STEPS = 64 * GAMES
"""Learner steps an iteration, whatever the number of env runners."""


def measure(address: str, runners: int, cycles: int) -> dict[str, float]:
    """Sampling and iteration rates (learner steps/s) of ``runners`` env runners on the
    cluster at ``address``, and the learner's share of an iteration."""
    import ray

    from allfives_rllib.agent import TABLE_MODULE_ID
    from allfives_rllib.algorithm import build, empty_league
    from allfives_rllib.config import RLlibConfig
    from allfives_rllib.table_runner import train_batch

    cfg = RLlibConfig(
        num_env_runners=runners, num_envs_per_env_runner=GAMES, num_steps=STEPS // GAMES // runners,
        train_batch_size=STEPS, progress=False,
    )  # fmt: skip
    algo: Any = build(cfg, empty_league(), address)
    group = algo.env_runner_group
    nodes = group.foreach_env_runner(
        lambda r: ray.get_runtime_context().get_node_id(), local_env_runner=False
    )
    assert len(set(nodes)) == runners, f"env runners on {len(set(nodes))} nodes, not {runners}"
    algo.train()  # warm-up: the env runners' tables dealt and compiled
    t0 = time.perf_counter()
    for _ in range(cycles):
        parts = group.foreach_env_runner(lambda r: r.sample(), local_env_runner=False)
        train_batch([f for part in parts for f in part], TABLE_MODULE_ID)
    sampling = cycles * STEPS / (time.perf_counter() - t0)
    t0 = time.perf_counter()
    for _ in range(cycles):
        algo.train()
    iterations = cycles * STEPS / (time.perf_counter() - t0)
    algo.stop()
    ray.shutdown()
    return {"sampling": sampling, "iterations": iterations}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cycles", type=int, default=5, help="timed iterations per row")
    args = p.parse_args()
    if args.cycles < 1:
        p.error("--cycles must be at least 1")
    from agents.training.local_cluster import local_cluster, use_cluster_token

    use_cluster_token()  # the driver's token is the nodes'
    rows = {}
    for nodes in (1, 2):
        with local_cluster(nodes) as address:
            rows[nodes] = measure(address, nodes, args.cycles)
    print("| env runners (1 CPU each) | sampling, steps/s | iterations, steps/s | learner |")
    print("|---|---:|---:|---:|")
    for nodes, rate in rows.items():
        share = 1 - rate["iterations"] / rate["sampling"]
        print(
            f"| {nodes} on {nodes} node{'s' * (nodes > 1)} | {rate['sampling']:,.0f} | "
            f"{rate['iterations']:,.0f} | {share:.0%} |"
        )
    one, two = rows[1], rows[2]
    print(
        f"\ntwo nodes / one node: sampling {two['sampling'] / one['sampling']:.2f}×, "
        f"iterations {two['iterations'] / one['iterations']:.2f}×"
    )


if __name__ == "__main__":
    main()
