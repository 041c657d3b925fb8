"""Running many matches, in this process or in a ``spawn`` process pool.

Results come back in task order and are summed in that order by the callers, so an evaluation
gives the same numbers, bit for bit, whatever the number of processes. Each worker re-creates
the agents from their specs (once per spec and process, see :func:`agents.eval.match.agent_of`).
A ``spawn`` pool is safe on every platform and with agents that hold threads.

**Ctrl-C.** The workers never see SIGINT, from their start (:func:`quiet_pool`): a Ctrl-C at
the terminal reaches the whole process group, and only the parent handles it, ending the pool,
so an interrupted evaluation stops without a worker's traceback (``allfives`` exits with 130).
One that comes in the instant a worker is forked and exec'd (the parent ignores SIGINT then,
so that the worker inherits it ignored) is lost: the next one stops it.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import sys
from collections.abc import Callable, Iterator
from typing import Any

from agents.eval.match import MatchResult, play_match
from allfives_env.core.rules import Rules

Task = tuple[Rules, tuple[str, ...], int, int]
"""One match to play: the rules, the spec of each seat, the deal seed and the agent seed."""


def play_task(task: Task) -> MatchResult:
    """Play one :data:`Task`."""
    rules, seats, deal_seed, agent_seed = task
    return play_match(rules, seats, deal_seed, agent_seed)


def ignore_interrupts() -> None:
    """A pool worker's initializer: SIGINT is left to the parent, which ends the pool."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def _spawning_quietly() -> Iterator[list[int]]:
    """While open (in the main thread, on POSIX), a SIGINT is noted in the list it gives, not
    raised, and each process multiprocessing spawns starts with SIGINT ignored: the parent
    ignores it just for the moment of the fork and exec, a disposition a new process inherits
    (a signal mask is not; multiprocessing's ``util.spawnv_passfds`` is wrapped while open). The
    caller raises a noted one once what it made can be ended."""
    import threading
    from multiprocessing import util

    noted: list[int] = []
    spawn = getattr(util, "spawnv_passfds", None)
    if spawn is None or threading.current_thread() is not threading.main_thread():
        yield noted
        return

    def note(signum: int, frame: Any) -> None:
        noted.append(signum)

    def quiet_spawn(*args: Any, **kwargs: Any) -> Any:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            return spawn(*args, **kwargs)
        finally:
            signal.signal(signal.SIGINT, note)

    handler = signal.signal(signal.SIGINT, note)
    util.spawnv_passfds = quiet_spawn
    try:
        yield noted
    finally:
        util.spawnv_passfds = spawn
        signal.signal(signal.SIGINT, handler)


@contextlib.contextmanager
def quiet_pool(workers: int) -> Iterator[Any]:
    """A ``spawn`` pool of ``workers`` whose workers never see SIGINT, terminated on exit (a
    ``KeyboardInterrupt`` included).

    The workers start with it ignored, through their imports (where the parent can arrange it:
    :func:`_spawning_quietly`), and their initializer ignores it (:func:`ignore_interrupts`);
    a Ctrl-C while the pool is being made is raised once it is made, so that it is ended
    whole (a parent stopped halfway would leave a worker reading half its start).
    """
    import multiprocessing

    with _spawning_quietly() as noted:
        pool = multiprocessing.get_context("spawn").Pool(workers, initializer=ignore_interrupts)
    with pool:
        if noted:
            raise KeyboardInterrupt
        yield pool


def useful_processes(processes: int | None) -> int:
    """``processes`` (default: one per core) capped at the cores there are: matches keep a
    core busy each, so more workers only add memory (a thousand cost tens of GB)."""
    cores = os.cpu_count() or 1
    return cores if processes is None else max(1, min(processes, cores))


def progress_bar(total: int, desc: str, unit: str = "match") -> Any:
    """A tqdm bar on stderr counting ``total`` of ``unit`` (``None`` where tqdm is not
    installed: it is optional)."""
    try:
        tqdm: Any = importlib.import_module("tqdm").tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr)


def run_matches(
    tasks: list[Task],
    processes: int,
    progress: bool,
    desc: str,
    tick: Callable[[], object] | None = None,
) -> list[MatchResult]:
    """Play ``tasks`` (in a spawn pool when ``processes > 1``, no more workers than cores or
    tasks); results in task order.

    A progress bar (tqdm, if installed) goes to stderr when ``progress`` is set; ``tick`` is
    called once per match played (a caller's own bar over several runs).
    """
    out: list[MatchResult] = []
    workers = min(useful_processes(processes), len(tasks))
    with contextlib.ExitStack() as stack:
        pool = stack.enter_context(quiet_pool(workers)) if workers > 1 else None
        bar = progress_bar(len(tasks), desc) if progress else None
        if bar is not None:
            stack.callback(bar.close)
        if pool is None:
            results: Iterator[MatchResult] = map(play_task, tasks)
        else:
            chunk = max(1, min(16, len(tasks) // (workers * 8)))
            results = pool.imap(play_task, tasks, chunksize=chunk)
        for result in results:
            out.append(result)
            if bar is not None:
                bar.update()
            if tick is not None:
                tick()
    return out
