"""Running many matches, in this process or in a ``spawn`` process pool.

Results come back in task order and are summed in that order by the callers, so an evaluation
gives the same numbers, bit for bit, whatever the number of processes. Each worker re-creates
the agents from their specs (once per spec and process, see :func:`agents.eval.match.agent_of`).
A ``spawn`` pool is safe on every platform and with agents that hold threads.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

from agents.eval.match import MatchResult, play_match
from allfives_env.core.rules import Rules

Task = tuple[Rules, tuple[str, ...], int, int]
"""One match to play: the rules, the spec of each seat, the deal seed and the agent seed."""


def play_task(task: Task) -> MatchResult:
    """Play one :data:`Task`."""
    rules, seats, deal_seed, agent_seed = task
    return play_match(rules, seats, deal_seed, agent_seed)


def useful_processes(processes: int | None) -> int:
    """``processes`` (default: one per core) capped at the cores there are: matches keep a
    core busy each, so more workers only add memory (a thousand cost tens of GB)."""
    cores = os.cpu_count() or 1
    return cores if processes is None else max(1, min(processes, cores))


def run_matches(tasks: list[Task], processes: int, progress: bool, desc: str) -> list[MatchResult]:
    """Play ``tasks`` (in a spawn pool when ``processes > 1``, no more workers than cores or
    tasks); results in task order.

    A progress bar (tqdm, if installed) goes to stderr when ``progress`` is set.
    """
    bar: Any = None
    if progress:
        try:
            tqdm: Any = importlib.import_module("tqdm").tqdm
            bar = tqdm(total=len(tasks), desc=desc, unit="match", file=sys.stderr)
        except ImportError:  # tqdm is optional: no bar then
            bar = None
    out: list[MatchResult] = []
    try:
        workers = min(useful_processes(processes), len(tasks))
        if workers <= 1:
            for task in tasks:
                out.append(play_task(task))
                if bar is not None:
                    bar.update()
        else:
            import multiprocessing

            chunk = max(1, min(16, len(tasks) // (workers * 8)))
            with multiprocessing.get_context("spawn").Pool(workers) as pool:
                for result in pool.imap(play_task, tasks, chunksize=chunk):
                    out.append(result)
                    if bar is not None:
                        bar.update()
    finally:
        if bar is not None:
            bar.close()
    return out
