"""Per-game random generators: SplitMix64, one ``uint64`` of state per game.

Each game owns one word of state; drawing advances only that word, so a game's deals depend on
its own seed alone, whatever the batch size or the thread count. SplitMix64 (Steele, Lea and
Flood 2014; the seeder of the xoshiro family) adds a fixed odd constant to the state and
returns a bijective mix of it: full period 2^64, and it passes BigCrush.

The same generator drives the compiled ``random`` policy (:mod:`.kernels.policies`) from a
separate state array the caller owns.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from allfives_env.core.seeds import SEED_RULE, as_seed
from allfives_env.vector._jit import kernel
from allfives_env.vector.errors import VectorConfigError
from allfives_env.vector.state import U64

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_SEED_SALT = 0xA11F17E5  # keeps seed 0 away from state 0


def _mix_np(z: U64) -> U64:
    """SplitMix64's output function on a uint64 array (wrapping arithmetic)."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    out: U64 = z ^ (z >> _S31)
    return out


def seed_states(seeds: np.ndarray) -> U64:
    """The initial generator state of games seeded with ``seeds`` (non-negative ints).

    The state is a mix of the seed, so nearby seeds start far apart.
    """
    z = np.asarray(seeds).astype(np.uint64) ^ np.uint64(_SEED_SALT)
    with np.errstate(over="ignore"):
        return _mix_np(z + _GAMMA)


def one_seed(seed: object, what: str) -> int:
    """``seed`` as one seed (:func:`allfives_env.core.seeds.as_seed`: an int or NumPy integer
    from 0 to 2**64 - 1).

    Raises:
        VectorConfigError: naming ``what``, for anything else.
    """
    value = as_seed(seed)
    if value is None:
        raise VectorConfigError(f"{what}: a seed must be {SEED_RULE}, not {seed!r}")
    return value


def seed_array(seeds: object, count: int | None, what: str) -> U64:
    """``seeds`` as ``count`` seeds (any number where ``count`` is ``None``): a 1-D integer
    array or a sequence of seeds, each an int from 0 to 2**64 - 1.

    Raises:
        VectorConfigError: naming ``what``: for another length, shape or dtype, or an entry
            that is not a seed (a bool, a float, a negative number, one of 2**64 or more).
    """
    wanted = "seeds" if count is None else f"{count} seeds"
    if isinstance(seeds, np.ndarray):
        if (
            seeds.ndim != 1
            or (count is not None and seeds.shape != (count,))
            or seeds.dtype.kind not in "iu"
        ):
            raise VectorConfigError(
                f"{what}: give {wanted}, each {SEED_RULE}, not an array of {seeds.dtype} of "
                f"shape {seeds.shape}"
            )
        if seeds.dtype.kind == "i" and seeds.size and int(seeds.min()) < 0:
            bad = int(np.flatnonzero(seeds < 0)[0])
            raise VectorConfigError(
                f"{what}: seeds[{bad}] must be {SEED_RULE}, not {int(seeds[bad])}"
            )
        out: U64 = seeds.astype(np.uint64)
        return out
    if isinstance(seeds, str | bytes) or not isinstance(seeds, Sequence):
        raise VectorConfigError(f"{what}: give {wanted}, each {SEED_RULE}, not {seeds!r}")
    if count is not None and len(seeds) != count:
        raise VectorConfigError(f"{what}: give {wanted}, not {len(seeds)}")
    values = []
    for i, x in enumerate(seeds):
        value = as_seed(x)
        if value is None:
            raise VectorConfigError(f"{what}: seeds[{i}] must be {SEED_RULE}, not {x!r}")
        values.append(value)
    return np.array(values, dtype=np.uint64)


def derive_seeds(seed: int, num_games: int, start: int = 0) -> U64:
    """Per-game seeds from one ``seed``: game ``i`` gets a mix of ``seed`` and ``i`` (the same
    for game ``i`` whatever ``num_games``).

    Raises:
        VectorConfigError: for a seed :func:`one_seed` refuses.
    """
    seed = one_seed(seed, "derive_seeds")
    base = seed_states(np.array([seed], np.uint64))[0]
    idx = np.arange(start, start + num_games, dtype=np.uint64)
    with np.errstate(over="ignore"):
        return _mix_np(idx * _GAMMA + base)


@kernel
def next_u64(state: U64) -> np.uint64:
    """Advance the generator ``state[0]`` and return its next 64 random bits.

    Kernels pass one game's generator as the one-entry slice ``rng[i : i + 1]``.
    """
    s = state[0] + _GAMMA
    state[0] = s
    z = (s ^ (s >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    out: np.uint64 = z ^ (z >> _S31)
    return out


@kernel
def below(state: U64, n: int) -> int:
    """A random int in ``[0, n)`` (``n`` ≥ 1) from the generator ``state[0]``.

    Multiply-shift on the high 32 bits (Lemire); the bias, at most n / 2^32, is far below
    anything a game can show for n ≤ 450.
    """
    x = next_u64(state) >> _S32
    return int((x * np.uint64(n)) >> _S32)
