"""Training throughput of the RLlib trainer beside the stable-baselines3 path, in one run.

    python tools/trainer_speed.py [--seconds 60]

Each trainer trains PPO on pagat, 2 players, with the same observation (``outlook`` action
features) and the same hidden sizes (256, 256), for ``--seconds`` after a warm-up, and the
rates are printed as a Markdown table:

- **RLlib**: ``train_rllib.py``'s default config (2 env runners × 8 games of the AEC
  environment, the learner in the driver, the self-play league). Env steps are every seat's
  moves; the main module's share is given too.
- **SB3**: sb3-contrib's MaskablePPO on :class:`allfives_env.vector.sb3.AllFivesVecEnv` (64
  games on the batched engine, the heuristic as the opponent inside the batch). Its steps are
  the learner's moves (the opponent's are made inside the batch).
"""

from __future__ import annotations

import argparse
import time
from typing import Any


def bench_rllib(seconds: float) -> dict[str, float]:
    """Env steps/s (and the main module's steps/s) of RLlib PPO with the default config."""
    from allfives_rllib.algorithm import build, empty_league
    from allfives_rllib.config import RLlibConfig
    from allfives_rllib.league import add_snapshot, league_callback

    cfg = RLlibConfig(progress=False)
    algo: Any = build(cfg, empty_league(), None)
    add_snapshot(algo, league_callback(algo), 0)

    def counts(result: dict[str, Any]) -> tuple[int, int]:
        runners = result["env_runners"]
        main = runners.get("num_module_steps_sampled_lifetime", {}).get("main", 0)
        return int(runners["num_env_steps_sampled_lifetime"]), int(main)

    env0, main0 = counts(algo.train())  # warm-up: runners started, modules built
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        env1, main1 = counts(algo.train())
    dt = time.perf_counter() - t0
    algo.stop()
    return {"env_steps_per_s": (env1 - env0) / dt, "main_steps_per_s": (main1 - main0) / dt}


def bench_sb3(seconds: float) -> dict[str, float]:
    """Learner steps/s of MaskablePPO on the SB3 VecEnv of the batched engine."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from allfives_env.vector.sb3 import AllFivesVecEnv

    torch.set_num_threads(1)
    env = AllFivesVecEnv(
        64, "pagat", seed=0, opponents="heuristic", action_features="outlook",
        forced_actions="auto", reward="points+win",
    )  # fmt: skip

    class Clock(BaseCallback):  # type: ignore[misc, unused-ignore]
        def __init__(self) -> None:
            super().__init__()
            self.start: tuple[float, int] | None = None
            self.end: tuple[float, int] = (0.0, 0)

        def _on_step(self) -> bool:
            now = (time.perf_counter(), self.num_timesteps)
            if self.start is None and self.num_timesteps >= 8192:  # after a warm-up
                self.start = now
            self.end = now
            return self.start is None or now[0] - self.start[0] < seconds

    model = MaskablePPO(
        "MlpPolicy", env, n_steps=128, batch_size=1024, seed=0, verbose=0,
        policy_kwargs={"net_arch": [256, 256]},
    )  # fmt: skip
    clock = Clock()
    model.learn(10**9, callback=clock)
    assert clock.start is not None
    dt = clock.end[0] - clock.start[0]
    return {"learner_steps_per_s": (clock.end[1] - clock.start[1]) / dt}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="time per trainer")
    args = parser.parse_args()
    rllib = bench_rllib(args.seconds)
    sb3 = bench_sb3(args.seconds)
    print("| trainer | steps/s |")
    print("|---|---:|")
    print(
        f"| RLlib PPO, 2 env runners × 8 games of the AEC env | {rllib['env_steps_per_s']:,.0f} "
        f"env steps/s (every seat; main module: {rllib['main_steps_per_s']:,.0f}) |"
    )
    print(
        f"| SB3 MaskablePPO on AllFivesVecEnv (64 games, batched engine) | "
        f"{sb3['learner_steps_per_s']:,.0f} learner steps/s |"
    )


if __name__ == "__main__":
    main()
