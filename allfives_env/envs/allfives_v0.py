"""Version 0 of the All Fives environment, kept for results that were measured with it.

Everything is :mod:`allfives_env.envs.allfives_v1` (see there for the documentation) but one
default: with 4 players and a preset name, every preset plays as partnerships 0+2 v 1+3 unless
``partnerships=False`` (v1 follows the preset: each for himself in ``dominoes_cc`` and
``pyatyorka``). Registered as PettingZoo ``allfives/allfives-v0`` and Gymnasium
``allfives/AllFives-v0``.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.env import AECEnv, ParallelEnv

from allfives_env.envs import aec
from allfives_env.envs.parallel import parallel
from allfives_env.envs.registration import register_pettingzoo
from allfives_env.envs.settings import EnvConfigError
from allfives_env.envs.single_agent import AllFivesSingleAgentEnv


class raw_env(aec.raw_env):
    """The v1 AEC environment with v0's four-player default (see the module docstring)."""

    metadata = {**aec.raw_env.metadata, "name": "allfives_v0"}  # noqa: RUF012
    LEGACY_PAIRS = True


def env(**kwargs: Any) -> AECEnv[str, dict[str, Any], int]:
    """v0's ``raw_env`` in PettingZoo's standard wrappers (as :func:`allfives_v1.env`)."""
    return aec.wrap(raw_env(**kwargs))


def parallel_env(**kwargs: Any) -> ParallelEnv[str, dict[str, Any], int]:
    """v0 through PettingZoo's turn-based AEC → parallel conversion, checked as
    :func:`allfives_v1.parallel_env`'s."""
    return parallel(env(**kwargs))


class SingleAgentEnv(AllFivesSingleAgentEnv):
    """The single-agent environment over v0 (Gymnasium ``allfives/AllFives-v0``)."""

    AEC = raw_env


register_pettingzoo()

__all__ = ["EnvConfigError", "SingleAgentEnv", "env", "parallel_env", "raw_env"]
