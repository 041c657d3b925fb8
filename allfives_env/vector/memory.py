"""Memory a batch would take, checked before it is allocated.

A batch too large for the machine is refused with its estimate and the machine's memory
(:func:`check_fits`) instead of failing with ``MemoryError`` halfway through allocating, or
driving the machine into swap.
"""

from __future__ import annotations

import os

from allfives_env.envs.settings import EnvConfigError

GIB = 2**30


def machine_memory() -> int | None:
    """The machine's physical memory in bytes (``None`` where the system does not say)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


def check_fits(needed: int, what: str) -> None:
    """Refuse ``what`` if it would take more than the machine's memory.

    Raises:
        EnvConfigError: saying the estimate and the memory there is.
    """
    total = machine_memory()
    if total is not None and needed > total:
        raise EnvConfigError(
            f"{what} would take about {needed / GIB:,.1f} GiB; this machine has "
            f"{total / GIB:,.1f} GiB (ask for fewer)"
        )
