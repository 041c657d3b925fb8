"""Measure the batched engine: steps per second, memory per game, compile time.

Every function returns plain rows (dicts) for a caller to print or save; nothing here prints
except :func:`main` (``python -m allfives_env.vector.speed``).

A *step* is one game's env step in the loop an RL collector runs: the masks, a random legal
action per game (the compiled ``random`` policy), :meth:`VectorGame.step`, a re-deal of the
games that finished, and the next observation of every game's acting seat.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from typing import Any

import numpy as np

from allfives_env.core.rules import PRESETS, Rules
from allfives_env.envs.settings import EnvSettings
from allfives_env.vector._jit import get_num_threads, max_threads, set_num_threads
from allfives_env.vector.engine import VectorGame, policy_rng

Row = dict[str, Any]

SIZES = (1, 64, 1024, 8192)
THREADS = (1, 2)


def steps_per_second(
    preset: str = "pagat",
    num_players: int = 2,
    num_games: int = 1024,
    threads: int | None = None,
    seconds: float = 1.0,
    *,
    partnerships: bool = True,
    forced_actions: str = "explicit",
    action_features: bool | str = False,
    observe: bool = True,
    seed: int = 0,
) -> Row:
    """Run the collector loop for about ``seconds`` and return its speed.

    ``threads`` (default: as set now) is clamped to what numba allows. The row holds the
    settings, ``steps_per_s``, ``steps`` and ``seconds``; the compile time is not counted (a
    warm-up runs first).

    Raises:
        EnvConfigError: for settings :meth:`EnvSettings.of` refuses (a ``RulesError`` for
            bad rules).
    """
    before = get_num_threads()
    if threads is not None:
        set_num_threads(max(1, min(threads, max_threads())))
    try:
        settings = EnvSettings.of(
            preset,
            num_players=num_players,
            partnerships=partnerships,
            forced_actions=forced_actions,
            action_features=action_features,
        )
        rules = settings.rules
        vg = VectorGame(settings, num_games)
        vg.reset(seed)
        prng = policy_rng(seed + 1, num_games)
        masks = np.zeros((num_games, vg.num_actions), np.int8)
        obs = np.zeros((num_games, vg.obs_size), np.float32)
        acts = np.zeros(num_games, np.int64)

        def loop(k: int) -> None:
            for _ in range(k):
                vg.masks(out=masks)
                vg.random_actions(prng, masks=masks, out=acts)
                _, terminated, truncated = vg.step(acts)
                done = np.flatnonzero(terminated | truncated)
                if done.size:
                    vg.reset_games(done)
                if observe:
                    vg.observe(out=obs)

        loop(2)
        batch = max(1, 20_000 // num_games)
        steps = 0
        start = time.perf_counter()
        while True:
            loop(batch)
            steps += batch * num_games
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        used = get_num_threads()
    finally:
        set_num_threads(before)
    return {
        "preset": preset,
        "players": num_players,
        "partnerships": rules.num_sides == 2 and num_players == 4,
        "games": num_games,
        "threads": used,
        "observe": observe,
        "action_features": action_features,
        "steps": steps,
        "seconds": round(elapsed, 3),
        "steps_per_s": round(steps / elapsed),
    }


def speed_table(
    presets: Iterable[str] = ("pagat",),
    players: Iterable[int] = (2,),
    sizes: Iterable[int] = SIZES,
    threads: Iterable[int] = THREADS,
    seconds: float = 1.0,
    repeat: int = 1,
    **kwargs: Any,
) -> list[Row]:
    """:func:`steps_per_second` for every combination; with ``repeat`` > 1, the fastest of
    that many runs per row (the machine is shared and noisy)."""
    rows = []
    for preset in presets:
        for n in players:
            for t in threads:
                for size in sizes:
                    runs = [
                        steps_per_second(preset, n, size, t, seconds, **kwargs)
                        for _ in range(repeat)
                    ]
                    rows.append(max(runs, key=lambda r: r["steps_per_s"]))
    return rows


def memory_per_game(preset: str = "pagat", num_players: int = 2, num_games: int = 1024) -> Row:
    """Bytes per game: the engine's state arrays (logs included), and one observation, mask
    and state row as the caller's buffers hold them."""
    vg = VectorGame(Rules.preset(preset, num_players), num_games)
    vg_af = VectorGame(Rules.preset(preset, num_players), num_games, action_features=True)
    return {
        "preset": preset,
        "players": num_players,
        "state_bytes": vg.state_bytes() // num_games,
        "state_bytes_with_action_features": vg_af.state_bytes() // num_games,
        "observation_bytes": 4 * vg.obs_size,
        "mask_bytes": vg.num_actions,
        "global_state_bytes": 4 * vg.state_size,
    }


_WARM_UP = """
import json, sys, time
t0 = time.perf_counter()
from allfives_env.core.rules import Rules
from allfives_env.vector import VectorGame, policy_rng
t1 = time.perf_counter()
for games in (4, 128):  # the serial and the parallel builds
    vg = VectorGame(Rules.preset(sys.argv[1], 2), games, action_features=True, record=True)
    vg.reset(1)
    p = policy_rng(2, games)
    vg.observe(); vg.observe_seat([0] * games); vg.masks(); vg.state(); vg.greedy_actions()
    vg.step(vg.random_actions(p)); vg.reset_games([0]); vg.legal_actions(0)
t2 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "first_calls_s": t2 - t1}))
"""


def compile_times(preset: str = "pagat", cache_dir: str | None = None) -> Row:
    """Compile time of every kernel, in fresh processes: ``cold`` with an empty numba cache
    (``NUMBA_CACHE_DIR`` pointed at a new temporary folder), then ``cached`` from that cache.

    Each figure is the import of the package plus the first call of every kernel (serial and
    parallel builds).
    """
    with tempfile.TemporaryDirectory(prefix="allfives-numba-") as tmp:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir or tmp)
        out: Row = {"preset": preset}
        for label in ("cold", "cached"):
            start = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-c", _WARM_UP, preset],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            out[f"{label}_s"] = round(time.perf_counter() - start, 2)
            inner = json.loads(proc.stdout.strip().splitlines()[-1])
            out[f"{label}_first_calls_s"] = round(inner["first_calls_s"], 2)
    return out


def format_rows(rows: list[Row]) -> str:
    """Rows as a Markdown table (columns from the first row)."""
    if not rows:
        return ""
    keys = list(rows[0])
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    for r in rows:
        cells = [f"{r[k]:,}" if isinstance(r[k], int) and not isinstance(r[k], bool) else str(r[k])
                 for k in keys]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:  # pragma: no cover - a measurement, run by hand
    """Print every measurement as Markdown tables."""
    print(format_rows(speed_table(seconds=1.0, repeat=3)))
    print()
    others = [p for p in PRESETS if p != "pagat"]
    print(format_rows(speed_table(others, (2, 4), (8192,), (2,), seconds=1.0, repeat=2)))
    print()
    print(format_rows([memory_per_game(p, n) for p in PRESETS for n in (2, 4)]))
    print()
    print(format_rows([compile_times()]))


if __name__ == "__main__":  # pragma: no cover
    main()
