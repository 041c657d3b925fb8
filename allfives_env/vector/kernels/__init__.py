"""The numba kernels of the batched engine.

Per-game helpers (``@kernel``) take one game's row of ``st`` (a 1-D view) and ``cfg``; batch
kernels (``@batch_kernel``) loop over the games with ``prange``. Each helper that re-implements a
rule of :mod:`allfives_env.core` names, in its docstring, the core function it mirrors; the
differential tests (``tests/vector/test_differential.py``) pin every one of them to the core.
"""
