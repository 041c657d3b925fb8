"""Registers the environments by name, cheaply: string entry points, nothing imported.

``import allfives_env`` runs :func:`register_gymnasium`, so
``gymnasium.make("allfives/AllFives-v1")`` works after a plain import (and in the worker
processes of a vectorized environment whose main script imports the package). PettingZoo's
registry (``allfives/allfives-v1`` and ``-v0``) is filled when an environment module is
imported, since reaching it imports PettingZoo.
"""

from __future__ import annotations

GYMNASIUM_IDS = {
    "allfives/AllFives-v1": "allfives_env.envs.single_agent:AllFivesSingleAgentEnv",
    "allfives/AllFives-v0": "allfives_env.envs.allfives_v0:SingleAgentEnv",
}
"""The single-agent environment's Gymnasium ids (v1 is current) and entry points."""
PETTINGZOO_IDS = {
    "allfives/allfives-v1": "allfives_env.envs.allfives_v1",
    "allfives/allfives-v0": "allfives_env.envs.allfives_v0",
}
"""The AEC (and parallel) environment's ids in PettingZoo's registry, and their modules."""


def register_gymnasium() -> None:
    """Register :data:`GYMNASIUM_IDS` with Gymnasium (once; the entry points are strings)."""
    from gymnasium.envs.registration import register, registry

    for env_id, entry_point in GYMNASIUM_IDS.items():
        if env_id not in registry:
            register(env_id, entry_point=entry_point)


def register_pettingzoo() -> None:
    """Register :data:`PETTINGZOO_IDS` with PettingZoo's registry, where the version has one."""
    try:
        from pettingzoo.env_registry.registration import aec_registry, register
    except ImportError:  # an older PettingZoo: no registry
        return
    for env_id, module in PETTINGZOO_IDS.items():
        if env_id not in aec_registry:
            register("aec", env_id, entry_point=f"{module}:env")
            register("parallel", env_id, entry_point=f"{module}:parallel_env")
