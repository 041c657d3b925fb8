"""All Fives as a batched, turn-based TorchRL multi-agent environment, on the batched engine.

:class:`AllFivesTorchEnv` holds N matches of a :class:`~allfives_env.vector.engine.VectorGame`
(``batch_size == (N,)``), one agent per seat (``player_0`` … ``player_{n-1}``), in agent
groups (BenchMARL trains a policy per group):

- each for himself (2 or 3 players, or 4 without partnerships): one group, ``"players"``, of
  every seat;
- 4 players in partnerships: one group per side, ``"team_0"`` (seats 0 and 2) and ``"team_1"``
  (seats 1 and 3), each seat rewarded with its side's reward, so a group's summed reward is its
  team's (what QMIX, VDN and a team critic learn). ``teams=False`` puts the four seats in one
  group of opponents instead.

Every step takes an action for every seat of every game; only the seat to act in a game acts
there. Below, ``G`` is a group and ``k`` its seats (``players``: all ``n``).

==========================  ==========================  ===================================
key                         shape, dtype                what it holds
==========================  ==========================  ===================================
``G/observation``           (N, k, obs_size) float32    each seat's own observation
                                                        (``Encoding.observe``: its hand,
                                                        the table, never another hand, the
                                                        boneyard's order or a seed)
``G/action_mask``           (N, k, A + 1) bool          the seat to act: its legal env
                                                        actions (``Encoding.mask``), WAIT
                                                        off; every other seat: WAIT only
``G/action``                (N, k) int64                env action ids, ``A`` is WAIT
``G/reward``                (N, k, 1) float32           each seat's reward of the step
                                                        (its side's, zero-sum)
``done``, ``terminated``,   (N, 1) bool                 the match (or hand) has ended, or
``truncated``                                           was cut at ``max_cycles``
==========================  ==========================  ===================================

``A`` is ``Encoding(rules).num_actions`` (``28·S + 2``, as in every front end of this project);
the extra id ``A``, :attr:`AllFivesTorchEnv.wait`, is the one legal action of a seat that is not
to act. A masked categorical policy then takes WAIT with probability 1 for those seats, so
their log-probability is 0 whatever the network says: they add nothing to a policy gradient,
and the seat to act is the only one that learns from a step. The action given for a seat that
is not to act is ignored; the seat to act must give a legal action, else
:class:`~allfives_env.vector.errors.VectorActionError` names the game (no game moves).

Resets follow TorchRL: ``reset()`` deals every game, ``reset(td)`` with a ``"_reset"`` entry
deals only the games it marks (what collectors do after an episode ends). Seeding: the seed given
to the constructor or :meth:`~torchrl.envs.EnvBase.set_seed` deals game ``i`` from ``(seed,
i)`` at the next full reset, and every later deal of game ``i`` from its own generator, so the
same seed plays the same games (a full reset without a new seed moves on to ``seed + 1``).
"""

from __future__ import annotations

from typing import Any, Unpack

import numpy as np
import torch
from tensordict import TensorDict, TensorDictBase
from torchrl.data import Categorical, Composite, Unbounded
from torchrl.envs import EnvBase

from agents.training.groups import GROUP as GROUP  # (the group's name, as this env's)
from agents.training.groups import seat_groups
from allfives_env.core.rules import Rules
from allfives_env.envs.settings import (
    EnvSettings,
    SettingsArgs,
    check_seed,
    next_seed,
    settings_of,
)
from allfives_env.vector.engine import VectorGame
from allfives_env.vector.errors import VectorActionError
from allfives_env.vector.rng import derive_seeds


def agent_names(num_players: int) -> list[str]:
    """The agents, one per seat, as the PettingZoo env names them."""
    return [f"player_{s}" for s in range(num_players)]


class AllFivesTorchEnv(EnvBase):  # type: ignore[misc]
    """N games of All Fives, every seat an agent of the ``"players"`` group (see the module
    docstring for the keys, turns and masks).

    ``rules`` and the keywords ``num_players``, ``partnerships``, ``episode``, ``reward``,
    ``forced_actions``, ``action_features`` and ``max_cycles`` are as for
    :func:`allfives_env.env`: :class:`EnvSettings`' fields, with :meth:`EnvSettings.of`'s
    defaults but ``forced_actions``, ``"auto"`` here, held as :attr:`settings`; ``rules`` may
    be an :class:`EnvSettings` itself (then give none of those keywords). ``teams`` is as
    :func:`agents.training.groups.seat_groups`.

    Args:
        num_envs: N, the games in the batch.
        seed: deals the first reset's games (``None``: fresh entropy).
        device: where the tensors live (the engine runs on the CPU).

    Raises:
        EnvConfigError: for a bad argument (a ``RulesError`` for bad rules), or settings given
            both as an :class:`EnvSettings` and as keywords.
    """

    batch_locked = True
    DEFAULTS: SettingsArgs = {"forced_actions": "auto"}  # noqa: RUF012
    """The settings' defaults that differ from :meth:`EnvSettings.of`'s."""

    def __init__(
        self,
        num_envs: int,
        rules: str | Rules | EnvSettings = "pagat",
        *,
        teams: bool | None = None,
        seed: int | None = None,
        device: Any = "cpu",
        **settings: Unpack[SettingsArgs],
    ):
        chosen = settings_of(rules, settings, self.DEFAULTS)
        table = chosen.rules
        groups = seat_groups(table, teams)
        self.vg = VectorGame(chosen, num_envs)
        super().__init__(device=device, batch_size=torch.Size([num_envs]))
        self.settings = chosen
        """What every game plays."""
        self.rules = table
        self.encoding = self.vg.encoding
        self.num_envs = num_envs
        self.num_players = n = table.num_players
        self.wait = self.encoding.num_actions
        """The action id of a seat that is not to act (the last one)."""
        self.num_env_actions = self.wait + 1
        self.groups = groups
        """Each group's seats, in order."""
        names = agent_names(n)
        self.group_map = {g: [names[s] for s in seats] for g, seats in groups.items()}
        self._seed: int | None = None
        self._pending: int | None = check_seed(seed)
        self._games = np.arange(num_envs)
        self._make_specs()

    def _make_specs(self) -> None:
        N, A, dev = self.num_envs, self.num_env_actions, self.device

        def per_group(entries: Any) -> Composite:
            return Composite(
                {
                    g: Composite(entries(len(seats)), shape=(N, len(seats)), device=dev)
                    for g, seats in self.groups.items()
                },
                shape=(N,),
                device=dev,
            )

        size = self.encoding.obs_size
        self.full_observation_spec = per_group(
            lambda k: {
                "observation": Unbounded((N, k, size), dtype=torch.float32, device=dev),
                "action_mask": Categorical(2, (N, k, A), dtype=torch.bool, device=dev),
            }
        )
        self.full_action_spec = per_group(
            lambda k: {"action": Categorical(A, (N, k), dtype=torch.int64, device=dev)}
        )
        self.full_reward_spec = per_group(
            lambda k: {"reward": Unbounded((N, k, 1), dtype=torch.float32, device=dev)}
        )
        self.full_done_spec = Composite(
            {
                key: Categorical(2, (N, 1), dtype=torch.bool, device=dev)
                for key in ("done", "terminated", "truncated")
            },
            shape=(N,),
            device=dev,
        )

    # ------------------------------------------------------------------ reading the engine

    def observations(self) -> np.ndarray:
        """(N, n, obs_size) float32: every seat's own observation in every game."""
        vg = self.vg
        out = np.empty((self.num_envs, self.num_players, self.encoding.obs_size), np.float32)
        for s in range(self.num_players):
            out[:, s] = vg.observe_seat(np.full(self.num_envs, s, np.int64))
        return out

    def action_masks(self) -> np.ndarray:
        """(N, n, A + 1) bool: the seat to act's legal actions, WAIT alone for every other seat
        (and for every seat of a game that is done)."""
        vg = self.vg
        out = np.zeros((self.num_envs, self.num_players, self.num_env_actions), bool)
        out[:, :, self.wait] = True
        live = ~vg.done
        seats = vg.current_player
        legal = vg.masks().astype(bool)
        games = self._games[live]
        out[games, seats[live], : self.wait] = legal[live]
        out[games, seats[live], self.wait] = False
        return out

    def _output(self, rewards: np.ndarray | None = None) -> TensorDictBase:
        vg = self.vg
        N, dev = self.num_envs, self.device
        masks, observations = self.action_masks(), self.observations()
        out: dict[str, Any] = {}
        for g, seats in self.groups.items():
            mask = torch.as_tensor(masks[:, seats], device=dev)
            self.full_action_spec[g, "action"].update_mask(mask.clone())
            group: dict[str, torch.Tensor] = {
                "observation": torch.as_tensor(observations[:, seats], device=dev),
                "action_mask": mask,
            }
            if rewards is not None:
                group["reward"] = torch.as_tensor(rewards[:, seats], device=dev).reshape(
                    N, len(seats), 1
                )
            out[g] = TensorDict(group, batch_size=(N, len(seats)), device=dev)
        terminated = torch.as_tensor(vg.terminated, device=dev).reshape(N, 1)
        truncated = torch.as_tensor(vg.truncated, device=dev).reshape(N, 1)
        out.update(done=terminated | truncated, terminated=terminated, truncated=truncated)
        return TensorDict(out, batch_size=self.batch_size, device=dev)

    # ------------------------------------------------------------------ the TorchRL API

    def _reset(self, tensordict: TensorDictBase | None = None, **kwargs: Any) -> TensorDictBase:
        partial = None
        marked = tensordict.get("_reset", None) if tensordict is not None else None
        if marked is not None:
            partial = marked.reshape(self.num_envs).cpu().numpy()
        if partial is not None and self._seed is not None and not partial.all():
            self.vg.reset_games(np.flatnonzero(partial))
        else:
            self._seed = next_seed(self._pending, self._seed)
            self._pending = None
            self.vg.reset(derive_seeds(self._seed, self.num_envs))
        return self._output()

    def _step(self, tensordict: TensorDictBase) -> TensorDictBase:
        vg = self.vg
        actions = np.empty((self.num_envs, self.num_players), np.int64)
        for g, members in self.groups.items():
            got = tensordict.get((g, "action")).reshape(self.num_envs, len(members))
            actions[:, members] = got.cpu().numpy()
        seats = vg.current_player
        acting = actions[self._games, seats].astype(np.int64)
        done = vg.done
        acting[done] = -1  # a game that ended waits for its reset
        bad = np.flatnonzero(~done & ((acting < 0) | (acting >= self.wait)))
        if len(bad):  # WAIT (or no id at all) from the seat to act; the engine checks the rest
            i = int(bad[0])
            raise VectorActionError(
                f"game {i}: seat {int(seats[i])} is to act and gave {int(acting[i])}, not an "
                f"action id (0 to {self.wait - 1}); no game was stepped",
                i,
                int(acting[i]),
                int(seats[i]),
                vg.legal_actions(i),
            )
        rewards, _terminated, _truncated = vg.step(acting)
        return self._output(rewards)

    def _set_seed(self, seed: int | None) -> None:
        self._pending = check_seed(seed)
