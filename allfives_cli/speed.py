"""``allfives speed``: speed of the engine and the environments (see :mod:`allfives_env.speed`;
``allfives bench``, its old name, still runs it)."""

from __future__ import annotations

import argparse
from typing import Any

from allfives_cli.options import fail, positive_int, seconds, seed_value
from allfives_env import speed
from allfives_env.core.rules import PRESETS, Rules


def add_speed_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the ``speed`` command (alias ``bench``, its old name) to ``subparsers`` (run it with
    :func:`run_speed`)."""
    p = subparsers.add_parser("speed", aliases=["bench"], help="measure speed: steps/s, moves/s")
    p.add_argument(
        "what",
        choices=("engine", "env", "vector"),
        help="engine: one Game; env: the AEC loop; vector: the batched engine, beside env()",
    )
    p.add_argument("--seconds", type=seconds, default=2.0, help="per run (default 2)")
    p.add_argument(
        "--repeat",
        type=int,
        choices=range(1, 21),
        default=3,
        metavar="N",
        help="runs per row, the fastest reported: noise only slows a run down (default 3)",
    )
    p.add_argument(
        "--preset",
        action="append",
        choices=PRESETS,
        help="preset(s) to run (repeatable; default: all; vector: pagat)",
    )
    p.add_argument(
        "--players",
        action="append",
        type=int,
        choices=(2, 3, 4),
        help="player count(s) (repeatable; default: 2, 3 and 4; vector: 2)",
    )
    p.add_argument("--seed", type=seed_value, default=0)
    p.add_argument(
        "--games",
        action="append",
        type=positive_int,
        help="vector: games per batch (repeatable; default: 1, 64, 1024 and 8192)",
    )
    p.add_argument(
        "--threads",
        action="append",
        type=positive_int,
        help="vector: numba threads (repeatable; default: 1 and 2)",
    )
    p.add_argument(
        "--compile",
        action="store_true",
        help="vector: also time the kernels' compilation, cold (empty cache) and cached",
    )
    p.add_argument(
        "--reference",
        action="store_true",
        help="env: also time PettingZoo's connect_four_v3.env() in the same loop (needs pygame)",
    )


def run_speed(args: argparse.Namespace) -> int:
    """Run ``allfives speed`` with parsed ``args``; print a table."""
    if args.what == "vector":
        return _vector(args)
    presets = args.preset or speed.DEFAULT_PRESETS
    players = args.players or [2, 3, 4]
    seed = args.seed
    how = f"one process, best of {args.repeat} runs of {args.seconds:g} s per row, seed {seed}"
    if args.what == "engine":
        print(f"random legal matches, {how}")
        rows = [
            speed.best_of(
                args.repeat, speed.engine_speed, Rules.preset(p, n), args.seconds, args.seed
            )
            for p in presets
            for n in players
        ]
        print(speed.table(rows))
        return 0
    if args.reference and speed.reference_speed(0.01, args.seed) is None:
        return fail("--reference needs pygame (pip install pygame)")
    print(f"random masked AEC play, {how}")
    env_rows = [
        speed.best_of(args.repeat, speed.env_speed, p, n, wrapped, args.seconds, args.seed)
        for p in presets
        for n in players
        for wrapped in (True, False)
    ]
    if args.reference:
        env_rows.append(speed.best_of(args.repeat, speed.reference_loop, args.seconds, seed))
    print(speed.env_table(env_rows))
    return 0


def _vector(args: argparse.Namespace) -> int:
    """``speed vector``: the batched engine's collector loop beside ``env()``, one run."""
    try:
        from allfives_env.vector import speed as vspeed
    except ImportError as e:  # numba missing
        return fail(f"speed vector needs numba ({e})")
    presets = args.preset or ["pagat"]
    players = args.players or [2]
    sizes = args.games or list(vspeed.SIZES)
    threads = args.threads or list(vspeed.THREADS)
    print(
        f"random masked play with an observation and a mask every step, best of {args.repeat} "
        f"runs of {args.seconds:g} s per row, seed {args.seed}"
    )
    rows = []
    for preset in presets:
        for n in players:
            env_row = speed.best_of(
                args.repeat, speed.env_speed, preset, n, True, args.seconds, args.seed
            )
            rows.append(
                {"preset": preset, "players": n, "runs": "env()", "games": 1, "threads": 1,
                 "steps_per_s": round(env_row.rate), "x_env": 1.0}
            )  # fmt: skip
            for row in vspeed.speed_table(
                [preset], [n], sizes, threads, args.seconds, args.repeat, seed=args.seed
            ):
                rows.append(
                    {"preset": preset, "players": n, "runs": "VectorGame",
                     "games": row["games"], "threads": row["threads"],
                     "steps_per_s": row["steps_per_s"],
                     "x_env": round(row["steps_per_s"] / env_row.rate, 1)}
                )  # fmt: skip
    print(vspeed.format_rows(rows))
    print()
    print("memory per game (bytes)")
    print(vspeed.format_rows([vspeed.memory_per_game(p, n) for p in presets for n in players]))
    if args.compile:
        print()
        print("compile time (s): import and first calls, in fresh processes")
        print(vspeed.format_rows([vspeed.compile_times(presets[0])]))
    return 0
