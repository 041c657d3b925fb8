"""Seeds: the one rule every entry point that takes a seed follows (the core's
:func:`~allfives_env.core.game.new_game`, the environments, the batched engine, the OpenSpiel
bots).

A seed is an ``int`` (NumPy integers too) from 0 to ``2**64 - 1``. A bool, a float, a string
or a negative number is refused rather than read some other way (``random.Random`` would take
``-5`` as ``5`` and ``2.5`` or ``"7"`` as seeds of their own, silently).

>>> check_seed(7), as_seed(2**64 - 1) == 2**64 - 1
(7, True)
>>> as_seed(-1) is None and as_seed(True) is None and as_seed(2.0) is None
True
>>> check_seed(-3)
Traceback (most recent call last):
...
allfives_env.core.errors.ArgumentError: seed must be an int from 0 to 2**64 - 1, not -3
"""

from __future__ import annotations

import operator

from allfives_env.core.errors import ArgumentError

SEED_LIMIT = 2**64
"""Seeds are ints from 0 to ``SEED_LIMIT - 1``, in every front end."""

SEED_RULE = "an int from 0 to 2**64 - 1"
"""What a seed must be, in words, for error messages."""


def as_seed(value: object) -> int | None:
    """``value`` as a seed if it is one (an ``int`` or NumPy integer, not a bool, from 0 to
    ``SEED_LIMIT - 1``), else ``None``."""
    if isinstance(value, bool):
        return None
    try:
        seed = operator.index(value)  # type: ignore[arg-type]
    except TypeError:  # a float, a string, None, a NumPy bool...
        return None
    return seed if 0 <= seed < SEED_LIMIT else None


def check_seed(value: object, what: str = "seed") -> int:
    """``value`` as a seed (see :func:`as_seed`).

    Raises:
        ArgumentError: naming ``what`` and the value, for anything else.
    """
    seed = as_seed(value)
    if seed is None:
        raise ArgumentError(f"{what} must be {SEED_RULE}, not {value!r}")
    return seed


__all__ = ["SEED_LIMIT", "SEED_RULE", "as_seed", "check_seed"]
