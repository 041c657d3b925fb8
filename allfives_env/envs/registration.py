"""Registers the environments by name, cheaply: string entry points, nothing imported.

``import allfives_env`` runs :func:`register_gymnasium`, so
``gymnasium.make("allfives/AllFives-v0")`` works after a plain import (and in the worker
processes of a vectorized environment whose main script imports the package). PettingZoo's
registry (``allfives/allfives-v0``) is filled when :mod:`allfives_env.envs.allfives_v0` is
imported, since reaching it imports PettingZoo.
"""

from __future__ import annotations

GYMNASIUM_ID = "allfives/AllFives-v0"
"""The single-agent environment's Gymnasium id."""
PETTINGZOO_ID = "allfives/allfives-v0"
"""The AEC (and parallel) environment's id in PettingZoo's registry."""


def register_gymnasium() -> None:
    """Register :data:`GYMNASIUM_ID` with Gymnasium (once; the entry point is a string)."""
    from gymnasium.envs.registration import register, registry

    if GYMNASIUM_ID not in registry:
        register(
            GYMNASIUM_ID,
            entry_point="allfives_env.envs.single_agent:AllFivesSingleAgentEnv",
        )


def register_pettingzoo() -> None:
    """Register :data:`PETTINGZOO_ID` with PettingZoo's registry, where the version has one."""
    try:
        from pettingzoo.env_registry.registration import aec_registry, register
    except ImportError:  # an older PettingZoo: no registry
        return
    if PETTINGZOO_ID not in aec_registry:
        register("aec", PETTINGZOO_ID, entry_point="allfives_env.envs.allfives_v0:env")
        register(
            "parallel", PETTINGZOO_ID, entry_point="allfives_env.envs.allfives_v0:parallel_env"
        )
