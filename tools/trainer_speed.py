"""Training throughput of the trainers side by side, in one run: whole rollout-plus-update
cycles, equal work per row.

    python tools/trainer_speed.py [--cycles 5]

Every row trains PPO on pagat, 2 players, with the ``outlook`` observation, for one cycle of
warm-up and then ``--cycles`` timed cycles, each a rollout of 16,384 learner steps and its
update (4 epochs of minibatches of 2,048; the AEC row: 8,192 env steps of every seat, as its
config has it). The rates are printed as a Markdown table:

- **train.py**: the shared training package's learner on the batched engine (256 games × 64
  steps, the heuristic and greedy inside the batch, ``train.py``'s network).
- **RLlib, batched engine**: ``train_rllib.py``'s default (the same table and network through
  :mod:`allfives_rllib.table_runner`'s env runner, which ships arrays, sampling in the driver;
  no warm start here).
- **RLlib, AEC env**: ``configs/rllib_aec.yaml`` (2 env runners × 8 games of the AEC env, every
  seat a module, the league); env steps are every seat's, the main module's share beside them.
- **SB3**: sb3-contrib's MaskablePPO on :class:`allfives_env.vector.sb3.AllFivesVecEnv` (64
  games × 256 steps on the batched engine, the heuristic inside the batch; its MLP 256 × 256).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

STEPS = 16_384
"""Learner steps per cycle (a rollout and its update)."""
ROOT = Path(__file__).resolve().parent.parent


def bench_train_py(cycles: int) -> float:
    """Learner steps/s of ``train.py``'s learner, whole cycles."""
    import tempfile

    import torch as th

    from agents.training.learner import Learner
    from agents.training.run import Run
    from agents.training.selfplay_config import Config
    from allfives_env.vector import set_num_threads

    cfg = Config(progress=False, eval_matches=0, final_eval_matches=0)
    th.set_num_threads(cfg.torch_threads)
    set_num_threads(1)
    with tempfile.TemporaryDirectory() as runs:
        learner = Learner.at_new_table(cfg, Run(cfg, Path(runs)))
        learner.batch.reset(cfg.seed)

        def cycle() -> None:
            learner.collect(imitation=False)
            learner.update(imitation=False)

        cycle()  # warm-up
        t0 = time.perf_counter()
        for _ in range(cycles):
            cycle()
        return cycles * cfg.num_envs * cfg.num_steps / (time.perf_counter() - t0)


def bench_rllib(cycles: int, config: Path | None) -> dict[str, float]:
    """Steps/s of RLlib PPO (the default config, or ``config``), whole iterations."""
    import ray

    from allfives_rllib.algorithm import build, empty_league, module_id
    from allfives_rllib.config import RLlibConfig, load_yaml

    cfg = load_yaml(config) if config is not None else RLlibConfig()
    cfg.progress = False
    algo: Any = build(cfg, empty_league(), None)
    if cfg.engine == "aec":
        from allfives_rllib.league import add_snapshot, league_callback

        add_snapshot(algo, league_callback(algo), 0)

    def counts(result: dict[str, Any]) -> tuple[int, int]:
        runners = result["env_runners"]
        mine = runners.get("num_module_steps_sampled_lifetime", {}).get(module_id(cfg), 0)
        return int(runners["num_env_steps_sampled_lifetime"]), int(mine)

    env0, mine0 = counts(algo.train())  # warm-up: runners started, modules built
    t0 = time.perf_counter()
    for _ in range(cycles):
        env1, mine1 = counts(algo.train())
    dt = time.perf_counter() - t0
    algo.stop()
    ray.shutdown()
    return {"env_steps_per_s": (env1 - env0) / dt, "module_steps_per_s": (mine1 - mine0) / dt}


def bench_sb3(cycles: int) -> float:
    """Learner steps/s of MaskablePPO on the SB3 VecEnv of the batched engine, whole cycles."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from allfives_env.vector.sb3 import AllFivesVecEnv

    torch.set_num_threads(2)
    env = AllFivesVecEnv(
        64, "pagat", seed=0, opponents="heuristic", action_features="outlook",
        forced_actions="auto", reward="points+win",
    )  # fmt: skip

    class Clock(BaseCallback):  # type: ignore[misc, unused-ignore]
        """The time each rollout starts (an update ends just before the next starts)."""

        def __init__(self) -> None:
            super().__init__()
            self.starts: list[float] = []

        def _on_rollout_start(self) -> None:
            self.starts.append(time.perf_counter())

        def _on_step(self) -> bool:
            return True

    model = MaskablePPO(
        "MlpPolicy", env, n_steps=STEPS // 64, batch_size=2048, n_epochs=4, seed=0, verbose=0,
        policy_kwargs={"net_arch": [256, 256]},
    )  # fmt: skip
    clock = Clock()
    model.learn((cycles + 1) * STEPS, callback=clock)
    end = time.perf_counter()
    return cycles * STEPS / (end - clock.starts[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=5, help="timed cycles per trainer")
    args = parser.parse_args()
    if args.cycles < 1:
        parser.error("--cycles must be at least 1")
    train_py = bench_train_py(args.cycles)
    batched = bench_rllib(args.cycles, None)
    aec = bench_rllib(args.cycles, ROOT / "configs" / "rllib_aec.yaml")
    sb3 = bench_sb3(args.cycles)
    print("| trainer | learner steps/s | × train.py |")
    print("|---|---:|---:|")
    rows = [
        ("`train.py` on the batched engine (256 games)", train_py, ""),
        ("RLlib PPO on the batched engine (`train_rllib.py`'s default, 256 games)",
         batched["env_steps_per_s"], ""),
        ("RLlib PPO on the AEC env (`configs/rllib_aec.yaml`, 2 env runners × 8 games)",
         aec["module_steps_per_s"],
         f" (every seat's moves: {aec['env_steps_per_s']:,.0f} env steps/s)"),
        ("SB3 MaskablePPO on `AllFivesVecEnv` (64 games)", sb3, ""),
    ]  # fmt: skip
    for name, rate, note in rows:
        print(f"| {name} | {rate:,.0f}{note} | {rate / train_py:.2f} |")


if __name__ == "__main__":
    main()
