"""The one place that imports numba: the kernel decorators and the cache that knows the package.

* :func:`kernel` compiles a per-game helper (``njit(cache=True)``, without reference counting);
  :func:`batch_kernel` a loop over a batch of games (:data:`prange`), twice: in parallel for
  large batches, serially for small ones. Both keep the decorated function's type for mypy.
* Numba's on-disk cache checks only the source file a function is defined in, so a kernel
  that calls a helper from another module would keep running the old helper after that module
  changed. :func:`_install_package_stamp` registers cache locators (for this package's files
  only) whose freshness stamp is the hash of every source file of ``allfives_env/vector``: any
  change there recompiles every kernel. ``NUMBA_CACHE_DIR`` is honoured as usual. A module
  outside the package that compiles kernels calling the package's helpers (the compiled agents)
  registers itself with :func:`cache_with_package` to be stamped the same way.
* Without numba installed, the decorators return the plain functions and :data:`prange` is
  ``range``: the package imports and runs (slowly) as pure Python.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from types import FunctionType
from typing import Any, TypeVar, cast

F = TypeVar("F", bound=Callable[..., Any])

PACKAGE_DIR = Path(__file__).resolve().parent

_numba: Any
try:
    import numba as _numba
except ImportError:  # pragma: no cover - numba is a dependency of the vector engine
    _numba = None

HAVE_NUMBA = _numba is not None
"""Whether numba is installed (else the kernels run as plain Python)."""

prange: Callable[..., range]
if _numba is not None:
    prange = _numba.prange
else:  # pragma: no cover
    prange = range


def package_stamp() -> str:
    """A hash of every ``.py`` file of the vector package (the kernels' cache key)."""
    h = hashlib.sha256()
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        h.update(str(path.relative_to(PACKAGE_DIR)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


PACKAGE_STAMP_ACTIVE = False
"""Whether the package-wide cache stamp is in force (numba's internals were as expected)."""

_SOURCES: dict[str, str] = {}
"""Source files outside the package registered by :func:`cache_with_package`: resolved path →
the stamp of their kernels (shared with the locators of an earlier import of this module)."""


def _install_package_stamp() -> None:
    """Put cache locators for this package's files first in numba's list (see module doc)."""
    if _numba is None:  # pragma: no cover
        return
    try:
        from numba.core import caching
    except ImportError:  # pragma: no cover - numba moved its internals: keep its own cache
        return
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    classes = getattr(impl, "_locator_classes", None)
    bases = [getattr(caching, n, None) for n in ("UserProvidedCacheLocator", "InTreeCacheLocator")]
    if not isinstance(classes, list) or any(b is None for b in bases):  # pragma: no cover
        return
    global PACKAGE_STAMP_ACTIVE, _SOURCES
    PACKAGE_STAMP_ACTIVE = True
    for c in classes:
        if getattr(c, "_allfives_vector", False):  # installed by an earlier import
            _SOURCES = c._allfives_sources
            return
    stamp = package_stamp()
    sources = _SOURCES

    def make(base: Any) -> Any:
        class PackageLocator(base):  # type: ignore[misc]
            _allfives_vector = True
            _allfives_sources = sources
            _allfives_stamp = stamp

            def get_source_stamp(self) -> str:
                return self._allfives_stamp

            @classmethod
            def from_function(cls, py_func: Any, py_file: str) -> Any:
                path = Path(py_file).resolve()
                try:
                    path.relative_to(PACKAGE_DIR)
                    own = stamp
                except ValueError:
                    if str(path) not in sources:
                        return None
                    own = sources[str(path)]
                locator = super().from_function(py_func, py_file)
                if locator is not None:
                    locator._allfives_stamp = own
                return locator

        PackageLocator.__name__ = f"AllFivesVector{base.__name__}"
        return PackageLocator

    classes[:0] = [make(b) for b in bases]


_install_package_stamp()


def cache_with_package(py_file: str, *also: str) -> None:
    """Stamp the cached kernels of module file ``py_file`` (outside this package) with the
    package's sources, ``py_file`` and the files ``also``: a change to any of them recompiles
    those kernels, as a change in the package does its own.

    Call it at the top of the module, before its kernels are decorated (numba picks a cache
    locator when it decorates). Without numba, or where numba's internals differ, it does
    nothing and numba's own cache (stamped by ``py_file`` alone) stays in force.
    """
    h = hashlib.sha256(package_stamp().encode())
    for name in (py_file, *also):
        path = Path(name).resolve()
        h.update(path.name.encode())
        h.update(path.read_bytes())
    _SOURCES[str(Path(py_file).resolve())] = h.hexdigest()


def source_stamp(dispatcher: Any) -> str | None:
    """The stamp the on-disk cache of a compiled function (a :func:`kernel`, or one build of
    a :func:`batch_kernel`) is checked against; ``None`` without a cache."""
    cache = getattr(dispatcher, "_cache", None)
    impl = getattr(cache, "_impl", None)
    locator = getattr(impl, "locator", None)
    return None if locator is None else str(locator.get_source_stamp())


def _helper_options() -> dict[str, Any]:
    # Helpers allocate nothing, so they need no reference counting: numba's private ``_nrt``
    # switch drops the atomic increments and decrements it would emit for every array
    # argument and view (a third of a step's time). Where numba lacks it, count as usual.
    try:
        from numba.core.cpu import CPUTargetOptions
    except ImportError:  # pragma: no cover
        return {"cache": True}
    return {"cache": True, "_nrt": False} if hasattr(CPUTargetOptions, "_nrt") else {"cache": True}


_HELPER_OPTIONS = _helper_options() if _numba is not None else {}


def kernel(fn: F) -> F:
    """Compile ``fn`` in nopython mode with an on-disk cache (a per-game helper: it must not
    allocate arrays)."""
    if _numba is None:  # pragma: no cover
        return fn
    return cast(F, _numba.njit(**_HELPER_OPTIONS)(fn))


PARALLEL_MIN_GAMES = 64
"""Batches smaller than this run on the calling thread: starting the worker threads costs more
than the work (and under contention an OpenMP start can cost milliseconds)."""


class _Batch:
    """A serial and a parallel build of one batch function; a call picks by the batch size
    (the first argument's length) and the thread count."""

    def __init__(self, fn: Callable[..., Any], fastmath: bool = False):
        assert _numba is not None
        self.__doc__ = fn.__doc__
        self.__name__ = fn.__name__
        self.parallel = _numba.njit(cache=True, parallel=True, fastmath=fastmath)(fn)
        # a twin with its own qualified name, so the two builds cache to different files
        twin = FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__)
        twin.__qualname__ = f"{fn.__qualname__}_serial"
        twin.__module__ = fn.__module__
        self.serial = _numba.njit(cache=True, fastmath=fastmath)(twin)

    def __call__(self, *args: Any) -> Any:
        if len(args[0]) >= PARALLEL_MIN_GAMES and _numba.get_num_threads() > 1:
            return self.parallel(*args)
        return self.serial(*args)


def batch_kernel(fn: F) -> F:
    """Compile ``fn``, a loop over games with :data:`prange`, twice: in parallel for large
    batches, serially (``prange`` is ``range`` there) for small ones; both cached."""
    if _numba is None:  # pragma: no cover
        return fn
    return cast(F, _Batch(fn))


def fast_batch_kernel(fn: F) -> F:
    """:func:`batch_kernel` with fast floating point (sums may be reordered, so vectorized):
    for float32 dot products whose last bits need not match any other computation's."""
    if _numba is None:  # pragma: no cover
        return fn
    return cast(F, _Batch(fn, fastmath=True))


def set_num_threads(n: int) -> None:
    """Set the threads the batch kernels use (numba's ``set_num_threads``)."""
    if _numba is not None:
        _numba.set_num_threads(n)


def get_num_threads() -> int:
    """The threads the batch kernels use now."""
    return int(_numba.get_num_threads()) if _numba is not None else 1


def max_threads() -> int:
    """The most threads the batch kernels may use (``NUMBA_NUM_THREADS``)."""
    return int(_numba.config.NUMBA_NUM_THREADS) if _numba is not None else 1
