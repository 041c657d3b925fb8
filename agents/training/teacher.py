"""A search agent as a teacher: its value of every legal action, in many positions at once,
turned into training targets, optionally over worker processes.

A network imitating a search agent learns more from the search's *values* than from its choice
alone: the choice says which action won, the values say by how much each lost. A
:class:`SearchTeacher` asks a value search (``search`` with a fixed ``sims``, or
``batchsearch``) to value every legal action of the seat to act in each listed game of a
:class:`~allfives_env.vector.engine.VectorGame`, from that seat's view, and gives back

- the search's choice (what :meth:`agents.search.ValueSearch.act` plays: the best value, the
  heavier tile on a tie, then the lower action id), and
- a target distribution over the action ids: ``softmax(mean value / temperature)`` over the legal
  actions, 0 elsewhere. Values are in points (the search's worth of a rollout: the side's gain
  minus the others' mean gain, ± the win bonus), so ``temperature`` is in points too.

Game ``i`` is valued with a ``random.Random`` seeded from ``rng[i]``'s next 64 bits (as
:class:`~allfives_env.vector.agents.ViewAgent` does), so the targets depend on the seed alone,
never on the number of processes. A position with one legal action is not searched: its target
is that action.

The positions are valued in this process, or over worker processes on this machine, or by Ray
actors on a cluster:

- ``processes`` > 1: worker processes started with ``spawn`` (each makes its own agent once;
  Ctrl-C is left to the parent).
- ``address`` (``HOST:PORT`` of a Ray head node; ``processes`` is then not used): the cluster is
  joined (:func:`agents.training.cluster.join`; an address with nothing behind it, or Ray not
  installed, is one :class:`~agents.training.config.ConfigError` line at once) and one actor
  per CPU the cluster has when the first positions come is started (each makes its own agent
  once); chunks of positions go to whichever is free, the results are put back in order. If Ray
  is already initialized in this process, its cluster is used.

Either way the targets are bit-identical to those valued in this process. Workers and actors
start at the first positions to value and are stopped by :meth:`SearchTeacher.close` (or
``with``; they start again if more positions come); if the teacher initialized Ray, ``close``
also shuts it down (a Ray already running is left running).
"""

from __future__ import annotations

import multiprocessing
import random
import signal
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.registry import value_agent
from agents.search import ValueSearch, best_index
from agents.training.cluster import check_address, require_ray
from agents.training.config import ConfigError
from allfives_env.core.view import PlayerView

if TYPE_CHECKING:
    from allfives_env.vector.engine import VectorGame

_AGENT: ValueSearch | None = None
"""The worker process's agent (set by :func:`_start`)."""


def _start(spec: str) -> None:
    global _AGENT
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _AGENT = value_agent(spec)[0]


def _evaluate(agent: ValueSearch, jobs: list[tuple[PlayerView, int]]) -> list[list[float]]:
    """``agent``'s values of each view, with a ``random.Random`` from the view's seed."""
    return [agent.evaluate(view, random.Random(seed)) for view, seed in jobs]


def _values(jobs: list[tuple[PlayerView, int]]) -> list[list[float]]:
    """:func:`_evaluate` by the worker process's agent."""
    assert _AGENT is not None
    return _evaluate(_AGENT, jobs)


class _Valuer:
    """A Ray actor's agent (the class that :func:`ray.remote` makes an actor of), made once."""

    def __init__(self, spec: str):
        self.agent = value_agent(spec)[0]

    def node(self) -> str:
        """The Ray node this actor runs on (its hex id)."""
        import ray

        return str(ray.get_runtime_context().get_node_id())

    def values(self, jobs: list[tuple[PlayerView, int]]) -> list[list[float]]:
        """:func:`_evaluate` by this actor's agent."""
        return _evaluate(self.agent, jobs)


def soft_targets(values: Sequence[float], temperature: float) -> np.ndarray:
    """``softmax(values / temperature)`` (float64, summing to 1)."""
    z = np.asarray(values, np.float64) / temperature
    e = np.exp(z - z.max())
    return e / e.sum()  # type: ignore[no-any-return]


class SearchTeacher:
    """A value search asked about many positions (see the module docstring).

    Args:
        spec: the search (``batchsearch:worlds=64``, ``search:sims=100``...).
        temperature: of the target distribution, in points (> 0).
        processes: worker processes valuing positions (1: in this process).
        address: a Ray cluster's head (``HOST:PORT``) whose actors value the positions instead
            (one per CPU of the cluster); ``None``: this machine.

    Raises:
        ValueError: for a spec that is not a value search, a temperature that is not positive,
            or fewer than 1 process.
        ConfigError: (a ``ValueError``) for an address with no Ray cluster behind it, or Ray
            not installed.
    """

    def __init__(
        self, spec: str, temperature: float = 2.0, processes: int = 1, address: str | None = None
    ):
        if not temperature > 0:
            raise ValueError(f"temperature must be positive, not {temperature!r}")
        if type(processes) is not int or processes < 1:
            raise ValueError(f"processes must be an int of at least 1, not {processes!r}")
        self.spec = spec
        self.agent, self.rounds = value_agent(spec)
        self.temperature = float(temperature)
        self.processes = processes
        self.address = address
        if address is not None:
            require_ray("a search teacher on a Ray cluster (--address)")
            check_address(address)
        self._pool: ProcessPoolExecutor | None = None
        self._actors: list[Any] = []
        self._started_ray = False
        self.nodes: list[str] = []
        """The Ray node of each actor (hex ids), once started."""

    def _pool_now(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.processes,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start,
                initargs=(self.spec,),
            )
        return self._pool

    def _actors_now(self) -> list[Any]:
        """The Ray actors (started at the first call, once the cluster is joined)."""
        if not self._actors:
            import ray

            from agents.training.cluster import join

            assert self.address is not None
            if join(self.address):
                self._started_ray = True
            cpus = int(ray.cluster_resources().get("CPU", 0))
            if cpus < 1:
                raise ConfigError(f"the Ray cluster at {self.address!r} has no CPU")
            valuer = ray.remote(num_cpus=1)(_Valuer)
            actors = [valuer.remote(self.spec) for _ in range(cpus)]
            self.nodes = [str(n) for n in ray.get([a.node.remote() for a in actors])]
            self._actors = actors
        return self._actors

    def _spread(
        self, jobs: list[tuple[PlayerView, int]], workers: int, remote: bool
    ) -> list[list[float]]:
        """The jobs' values, in ``workers * 4`` chunks over the Ray actors (``remote``) or the
        worker processes, put back in order."""
        split = np.array_split(np.arange(len(jobs)), min(workers * 4, len(jobs)))
        chunks = [[jobs[i] for i in c] for c in split]
        if remote:
            from ray.util import ActorPool

            pool = ActorPool(self._actors_now())
            parts = list(pool.map(lambda actor, chunk: actor.values.remote(chunk), chunks))
        else:
            parts = list(self._pool_now().map(_values, chunks))
        return [r for part in parts for r in part]

    def values(self, views: Sequence[PlayerView], seeds: Sequence[int]) -> list[list[float]]:
        """Each view's mean value of each legal action (order of ``view.legal_actions``); a
        view with one legal action gets ``[0.0]`` unsearched."""
        if len(views) != len(seeds):
            raise ValueError(f"{len(views)} views but {len(seeds)} seeds")
        out: list[list[float]] = [[0.0] for _ in views]
        searched = [k for k, view in enumerate(views) if len(view.legal_actions) > 1]
        jobs = [(views[k], seeds[k]) for k in searched]
        if len(jobs) < 2 or (self.address is None and self.processes == 1):
            results = _evaluate(self.agent, jobs)
        elif self.address is not None:
            results = self._spread(jobs, len(self._actors_now()), remote=True)
        else:
            results = self._spread(jobs, self.processes, remote=False)
        for k, totals in zip(searched, results, strict=True):
            out[k] = [t / self.rounds for t in totals]
        return out

    def targets(self, vg: VectorGame, games: np.ndarray, rng: np.ndarray) -> tuple[Any, Any]:
        """The search's choice (action ids, int64) and target distribution (float32, one row
        of ``vg.encoding.num_actions`` per game) for the seat to act in each of ``games``."""
        choice, probs, _ = self.valued(vg, games, rng)
        return choice, probs

    def valued(self, vg: VectorGame, games: np.ndarray, rng: np.ndarray) -> tuple[Any, Any, Any]:
        """:meth:`targets`, and the mean values themselves (float32, one row of
        ``vg.encoding.num_actions`` per game, NaN on the illegal actions; a forced action's
        value is 0), drawn from ``rng`` alike."""
        from allfives_env.vector.agents import draw_bits

        seeds = [int(s) for s in draw_bits(rng, games)]
        views = [vg.view(int(i)) for i in games]
        enc = vg.encoding
        choice = np.empty(len(games), np.int64)
        probs = np.zeros((len(games), enc.num_actions), np.float32)
        kept = np.full((len(games), enc.num_actions), np.nan, np.float32)
        for k, (view, values) in enumerate(zip(views, self.values(views, seeds), strict=True)):
            legal = view.legal_actions
            ids = [enc.to_env[a] for a in legal]
            choice[k] = ids[best_index(legal, values)]
            probs[k, ids] = soft_targets(values, self.temperature)
            kept[k, ids] = values
        return choice, probs, kept

    def close(self) -> None:
        """Stop the worker processes or the Ray actors (if any were started); shut Ray down if
        this teacher initialized it."""
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None
        if self._actors or self._started_ray:
            import ray

            for actor in self._actors:
                ray.kill(actor)
            self._actors = []
            if self._started_ray:
                ray.shutdown()
                self._started_ray = False

    def __enter__(self) -> SearchTeacher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
