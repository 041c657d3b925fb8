"""The batched engine: N games in NumPy arrays, stepped by numba kernels.

>>> from allfives_env.vector import VectorGame
>>> from allfives_env.core.rules import Rules
>>> vg = VectorGame(Rules.preset("five_up", 4), 16, forced_actions="auto")
>>> vg.reset(seeds=1)
>>> vg.observe().shape
(16, 442)

Pinned to the core by differential tests; see :mod:`allfives_env.vector.engine`.
"""

from allfives_env.vector._jit import get_num_threads, max_threads, set_num_threads
from allfives_env.vector.engine import VectorGame, policy_rng
from allfives_env.vector.errors import ActionArrayError, VectorActionError, VectorConfigError

__all__ = [
    "ActionArrayError",
    "VectorActionError",
    "VectorConfigError",
    "VectorGame",
    "get_num_threads",
    "max_threads",
    "policy_rng",
    "set_num_threads",
]
