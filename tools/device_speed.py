"""``train.py``'s learner on each device, and its whole cycles at each count of engine threads.

    python tools/device_speed.py learner [--devices cpu cuda] [--updates 5]
    python tools/device_speed.py cycles [--device cuda] [--threads 1 2 4 8 0] [--cycles 5]

Both build ``train.py``'s default learner (pagat, 2 players, ``outlook``, the scorer network,
256 games × 64 steps = 16,384 learner steps a rollout, 4 epochs of minibatches of 2,048;
``--num_envs`` and ``--num_steps`` change the table's size) with ``imitation_samples`` and the
evaluations off, and print a Markdown table:

- ``learner``: PPO's update alone (GAE and 4 epochs over one rollout), on each device, in
  learner steps per second: what a GPU learner changes. The CPU rows use ``--torch_threads``
  (default 2, the config's). One rollout is played first, then ``--updates`` updates of it are
  timed after one untimed.
- ``cycles``: whole rollout-plus-update cycles (the engine and the actor on the CPU, the
  learner on ``--device``) with the engine on each of ``--threads`` threads (0: the config's
  ``auto``), torch given as many, one untimed cycle and then ``--cycles`` timed. Learner steps
  per second, and the share of the time in the engine, the actor and the update.

``--json FILE`` also writes the rows. A device torch does not see is refused in one line.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))


def learner_at(
    device: str, engine_threads: int, torch_threads: int, runs: Path, size: tuple[int, int]
) -> Any:
    """``train.py``'s default learner on ``device`` at a table of ``size`` (games, steps a
    rollout), its table dealt, torch and the engine given their threads."""
    import torch as th

    from agents.training.device import engine_thread_count
    from agents.training.learner import Learner
    from agents.training.run import Run
    from agents.training.selfplay_config import Config
    from allfives_env.vector import set_num_threads

    cfg = Config(
        progress=False,
        eval_matches=0,
        final_eval_matches=0,
        imitation_samples=0,
        device=device,
        engine_threads=engine_threads,
        torch_threads=torch_threads,
        num_envs=size[0],
        num_steps=size[1],
        num_minibatches=max(1, size[0] * size[1] // 2048),
    )
    th.set_num_threads(torch_threads)
    set_num_threads(engine_thread_count(engine_threads, torch_threads))
    th.manual_seed(cfg.seed)
    learner = Learner.at_new_table(cfg, Run(cfg, runs))
    learner.batch.reset(cfg.seed)
    return learner


def synchronize(learner: Any) -> None:
    """Wait for the learner's device to finish what it was given."""
    import torch as th

    if learner.device.type == "cuda":
        th.cuda.synchronize(learner.device)


def timed(learner: Any, rounds: int, body: Callable[[], None]) -> float:
    """Seconds that ``rounds`` calls of ``body`` take, after one untimed; the learner's
    timings count the timed ones alone."""
    body()
    synchronize(learner)
    for key in learner.run.timing:
        learner.run.timing[key] = 0.0
    t0 = time.perf_counter()
    for _ in range(rounds):
        body()
    synchronize(learner)
    return time.perf_counter() - t0


def bench_learner(
    device: str, updates: int, torch_threads: int, size: tuple[int, int]
) -> dict[str, Any]:
    """Learner steps/s of PPO's update alone on ``device``."""
    with tempfile.TemporaryDirectory() as runs:
        learner = learner_at(device, 0, torch_threads, Path(runs), size)
        learner.collect(imitation=False)
        seconds = timed(learner, updates, lambda: learner.update(imitation=False))
        steps = learner.cfg.num_envs * learner.cfg.num_steps
        return {
            "device": str(learner.device),
            "name": device_name(learner.device),
            "torch_threads": torch_threads,
            "learner_steps_per_s": round(updates * steps / seconds),
        }


def bench_cycles(device: str, threads: int, cycles: int, size: tuple[int, int]) -> dict[str, Any]:
    """Learner steps/s of whole cycles on ``device`` with the engine on ``threads`` threads
    (0: auto) and torch on as many (auto: the config's 2)."""
    from agents.training.device import engine_thread_count

    torch_threads = threads or 2
    with tempfile.TemporaryDirectory() as runs:
        learner = learner_at(device, threads, torch_threads, Path(runs), size)

        def cycle() -> None:
            learner.collect(imitation=False)
            learner.update(imitation=False)

        seconds = timed(learner, cycles, cycle)
        timing = learner.run.timing
        steps = learner.cfg.num_envs * learner.cfg.num_steps
        return {
            "device": str(learner.device),
            "engine_threads": engine_thread_count(threads, torch_threads),
            "torch_threads": torch_threads,
            "learner_steps_per_s": round(cycles * steps / seconds),
            "engine_share": round(timing["env"] / seconds, 3),
            "actor_share": round(timing["policy"] / seconds, 3),
            "update_share": round(timing["update"] / seconds, 3),
        }


def device_name(device: Any) -> str:
    """The device as its maker names it (the CPU's model for the CPU)."""
    import platform

    import torch as th

    if device.type == "cuda":
        return str(th.cuda.get_device_name(device))
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:  # pragma: no cover - not on Linux
        pass
    return platform.processor() or "CPU"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    lp = sub.add_parser("learner", help="PPO's update alone on each device")
    lp.add_argument("--devices", nargs="+", default=["cpu", "cuda"])
    lp.add_argument("--updates", type=int, default=5)
    lp.add_argument("--torch_threads", type=int, default=2, help="torch's threads on the CPU")
    cp = sub.add_parser("cycles", help="whole cycles at each count of engine threads")
    cp.add_argument("--device", default="auto")
    cp.add_argument("--threads", type=int, nargs="+", default=[1, 2, 4, 8, 0])
    cp.add_argument("--cycles", type=int, default=5)
    for q in (lp, cp):
        q.add_argument("--json", type=Path, help="also write the rows to this file")
        q.add_argument("--num_envs", type=int, default=256, help="games at the table")
        q.add_argument("--num_steps", type=int, default=64, help="steps a game plays a rollout")
    args = p.parse_args(argv)
    from agents.training.config import ConfigError
    from agents.training.device import check_engine_threads, resolve_device

    try:
        for name in args.devices if args.command == "learner" else [args.device]:
            resolve_device(name, "--device")
        for n in getattr(args, "threads", []):
            check_engine_threads(n, "--threads")
    except ConfigError as e:
        p.error(str(e))
    counts = ["updates", "torch_threads"] if args.command == "learner" else ["cycles"]
    counts += ["num_envs", "num_steps"]
    for key in counts:
        if getattr(args, key) < 1:
            p.error(f"--{key} must be at least 1, not {getattr(args, key)}")
    if args.command == "learner":
        size = (args.num_envs, args.num_steps)
        rows = [bench_learner(d, args.updates, args.torch_threads, size) for d in args.devices]
        print("| device | torch threads | learner steps/s (update alone) |")
        print("|---|---:|---:|")
        for r in rows:
            print(f"| {r['device']} ({r['name']}) | {r['torch_threads']} | "
                  f"{r['learner_steps_per_s']:,} |")  # fmt: skip
    else:
        size = (args.num_envs, args.num_steps)
        rows = [bench_cycles(args.device, n, args.cycles, size) for n in args.threads]
        print("| device | engine threads | torch threads | learner steps/s (whole cycles) | "
              "engine | actor | update |")  # fmt: skip
        print("|---|---:|---:|---:|---:|---:|---:|")
        for r in rows:
            print(f"| {r['device']} | {r['engine_threads']} | {r['torch_threads']} | "
                  f"{r['learner_steps_per_s']:,} | {r['engine_share']:.0%} | "
                  f"{r['actor_share']:.0%} | {r['update_share']:.0%} |")  # fmt: skip
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
