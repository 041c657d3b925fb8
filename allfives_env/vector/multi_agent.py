"""The batched multi-agent game, for self-play MARL: every seat is a learner's.

:class:`AllFivesMultiAgentVectorEnv` steps N games of a
:class:`~allfives_env.vector.engine.VectorGame` with same-step autoreset. Each step takes one
action per game, for the seat to act in it; it returns that seat's observation and mask in
every game, which seat that is, the rewards of every seat (the side's reward, zero-sum; a seat
collects what it earns while others act, so sum them per seat between its turns), and
``state()`` — every hand and the boneyard in draw order — for centralized critics::

    env = AllFivesMultiAgentVectorEnv(256, "pagat", num_players=4, reward="points+win")
    obs, masks, seats = env.reset(seed=0)
    while training:
        actions = policy(obs, masks, seats)       # one action per game
        obs, masks, seats, rewards, terminated, truncated = env.step(actions)
        critic_input = env.state()                # (N, state_size)

Where a game's episode ends, ``rewards`` holds its final rewards for every seat, ``terminated``
or ``truncated`` is set, and the game is dealt again: ``obs``, ``masks`` and ``seats`` already
belong to its next episode.

>>> env = AllFivesMultiAgentVectorEnv(4, "pagat", num_players=3)
>>> obs, masks, seats = env.reset(seed=1)
>>> obs.shape, masks.shape, seats.shape, env.state().shape
((4, 261), (4, 114), (4,), (4, 373))
"""

from __future__ import annotations

from typing import Any, Unpack

import numpy as np

from allfives_env.core.rules import Rules
from allfives_env.envs.settings import (
    EnvSettings,
    ResetRequiredError,
    SettingsArgs,
    next_seed,
    settings_of,
)
from allfives_env.vector.engine import VectorGame
from allfives_env.vector.rng import derive_seeds
from allfives_env.vector.state import F32, I8, I64, BoolArray


class AllFivesMultiAgentVectorEnv:
    """N games, every seat played by the caller (see the module docstring).

    ``rules`` and the keywords ``num_players``, ``partnerships``, ``episode``, ``reward``,
    ``forced_actions``, ``action_features`` and ``max_cycles`` are as for
    :func:`allfives_env.env`: :class:`EnvSettings`' fields, with :meth:`EnvSettings.of`'s
    defaults, held as :attr:`settings`; ``rules`` may be an :class:`EnvSettings` itself (then
    give none of those keywords).

    Args:
        num_envs: games in the batch.

    Raises:
        EnvConfigError: for a bad argument, or settings given both as an :class:`EnvSettings`
            and as keywords.
    """

    def __init__(
        self,
        num_envs: int,
        rules: str | Rules | EnvSettings = "pagat",
        **settings: Unpack[SettingsArgs],
    ):
        self.settings = settings_of(rules, settings)
        """What every game plays."""
        self.vg = VectorGame(self.settings, num_envs)
        self.rules = self.settings.rules
        self.num_envs = num_envs
        self.encoding = self.vg.encoding
        self._ready = False
        self._seed: int | None = None

    def reset(self, seed: int | None = None) -> tuple[F32, I8, I64]:
        """Deal every game (game ``i`` from ``(seed, i)``): observations, masks, seats to act.
        Without a seed, the last one plus one (the first time: fresh entropy).

        Raises:
            EnvConfigError: for a seed :func:`~allfives_env.envs.settings.check_seed` refuses.
        """
        self._seed = next_seed(seed, self._seed)
        self.vg.reset(derive_seeds(self._seed, self.num_envs))
        self._ready = True
        return self._now()

    def _now(self) -> tuple[F32, I8, I64]:
        vg = self.vg
        return vg.observe().copy(), vg.masks().copy(), vg.current_player.copy()

    def step(self, actions: Any) -> tuple[F32, I8, I64, F32, BoolArray, BoolArray]:
        """One action per game for its seat to act; ended games are dealt again.

        Returns ``(obs, masks, seats, rewards, terminated, truncated)``; ``rewards`` is
        (N, num_players).

        Raises:
            ResetRequiredError: before :meth:`reset`.
            ActionArrayError, VectorActionError: for a bad action array, an entry that is not
                an action id (-1 included) or an illegal action, naming the game (no game is
                changed).
        """
        if not self._ready:
            raise ResetRequiredError("reset() first")
        vg = self.vg
        rewards, terminated, truncated = vg.step(vg.action_ids(actions))
        rewards, terminated, truncated = rewards.copy(), terminated.copy(), truncated.copy()
        done = np.flatnonzero(terminated | truncated)
        if len(done):
            vg.reset_games(done)
        obs, masks, seats = self._now()
        return obs, masks, seats, rewards, terminated, truncated

    def state(self) -> F32:
        """(N, state_size) every game's full position, hidden tiles included."""
        out: F32 = self.vg.state().copy()
        return out
