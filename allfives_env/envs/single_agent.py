"""One learner seat against given opponents, as a Gymnasium environment.

:class:`AllFivesSingleAgentEnv` (registered with Gymnasium as ``allfives/AllFives-v1`` by
``import allfives_env``) runs the AEC environment and plays every other seat — the partner
too, in 4 players — with the given opponents, so the learner sees only its own
turns. It offers ``action_masks()`` for sb3-contrib's ``MaskablePPO``.

Opponents are agents (anything with ``act(view, rng) -> Action``, such as ``agents.RandomAgent``),
agent names from the agent registry (``"random"``, ``"greedy"``), or callables
``policy(observation: dict) -> int`` that map the seat's observation dict (``observation``,
``action_mask``) to an env action id, e.g. a frozen network.
"""

from __future__ import annotations

import operator
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from allfives_env.core.errors import ArgumentError, IllegalActionError
from allfives_env.core.player import Agent
from allfives_env.core.rules import Rules
from allfives_env.envs.aec import raw_env
from allfives_env.envs.opponents import make_agent
from allfives_env.envs.settings import (
    DEFAULT_MAX_CYCLES,
    EnvConfigError,
    EnvSettings,
    EpisodeOverError,
    ResetRequiredError,
    check_options,
    check_seat,
    check_seed,
)
from allfives_env.envs.spaces import MaskArray, ObsArray

Policy = Callable[[dict[str, Any]], int]
Opponent = Agent | Policy | str
"""An opponent: an agent, an agent name, or a policy from an observation dict to an action id."""


def _resolve(opponent: Opponent) -> Agent | Policy:
    if isinstance(opponent, str):
        try:
            return make_agent(opponent)
        except ValueError as e:
            raise EnvConfigError(f"opponent {opponent!r}: {e}") from None
    if hasattr(opponent, "act") or callable(opponent):
        return opponent
    raise EnvConfigError(f"an opponent must be an agent, an agent name or a callable: {opponent!r}")


class AllFivesSingleAgentEnv(gym.Env[ObsArray, int]):
    """All Fives from one seat; the other seats are played by ``opponents``.

    ``num_players``, ``rules``, ``episode``, ``reward``, ``forced_actions``, ``render_mode``,
    ``max_cycles``, ``partnerships`` and ``action_features`` are as for :func:`allfives_env.env`
    (the AEC environment it runs): all but ``render_mode`` are :class:`EnvSettings`' fields,
    held as :attr:`settings` (``rules`` may be an :class:`EnvSettings`, the other settings then
    left at their defaults).

    Args:
        opponents: one opponent for every other seat, a sequence (one per other seat, in seat
            order), or a mapping seat → opponent. Default: ``"random"``.
        learner_seat: the learner's seat, or ``"random"`` to draw it at every reset.
        illegal_action: ``"penalize"`` (end the episode with reward −1) or ``"raise"``
            (:class:`IllegalActionError`, state unchanged).

    Observations are the learner's observation vector; ``info["action_mask"]`` and
    :meth:`action_masks` give its legal actions. The reward is the learner's side's reward,
    summed over everything that happened since its last action.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 2}  # noqa: RUF012
    AEC = raw_env
    """The AEC environment class it runs (its version's)."""

    def __init__(
        self,
        num_players: int | None = None,
        rules: str | Rules | EnvSettings = "pagat",
        opponents: Opponent | Sequence[Opponent] | Mapping[int, Opponent] = "random",
        learner_seat: int | str = "random",
        episode: str = "match",
        reward: str = "win",
        forced_actions: str = "explicit",
        illegal_action: str = "penalize",
        render_mode: str | None = None,
        max_cycles: int | None = DEFAULT_MAX_CYCLES,
        partnerships: bool | None = None,
        action_features: bool | str = False,
    ):
        self.aec = self.AEC(
            num_players=num_players,
            rules=rules,
            episode=episode,  # type: ignore[arg-type]
            reward=reward,  # type: ignore[arg-type]
            forced_actions=forced_actions,  # type: ignore[arg-type]
            render_mode=render_mode,
            max_cycles=max_cycles,
            partnerships=partnerships,
            action_features=action_features,
        )
        self.settings = self.aec.settings
        """What this environment plays (its AEC environment's settings)."""
        self.rules = self.settings.rules
        n = self.rules.num_players
        if learner_seat != "random" and (
            type(learner_seat) is not int or not 0 <= learner_seat < n
        ):
            raise EnvConfigError(
                f"learner_seat must be 0-{n - 1} or 'random', not {learner_seat!r}"
            )
        if illegal_action not in ("penalize", "raise"):
            raise EnvConfigError(
                f"illegal_action must be 'penalize' or 'raise', not {illegal_action!r}"
            )
        self.learner_seat_rule = learner_seat
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        enc = self.aec.encoding
        low, high = enc.observation_bounds()
        self.observation_space = spaces.Box(low, high, dtype=np.float32)
        self.action_space: spaces.Discrete = spaces.Discrete(enc.num_actions)  # type: ignore[assignment, type-arg, unused-ignore]
        self._opponents: dict[int, Agent | Policy] = {}
        self.set_opponents(opponents)
        self.seat = 0 if learner_seat == "random" else int(learner_seat)
        self._agent_rng = random.Random()
        self._mask: MaskArray = np.zeros(enc.num_actions, np.int8)
        self._done = True
        self._broken = True  # reset() has not run

    def set_opponents(
        self, opponents: Opponent | Sequence[Opponent] | Mapping[int, Opponent]
    ) -> None:
        """Replace the opponents (takes effect at once; use between episodes).

        Raises:
            EnvConfigError: for a sequence of the wrong length, a mapping with a seat out of
                range or without a seat the learner may leave free, or an unknown agent name
                (the opponents are left as they were).
        """
        n = self.rules.num_players
        table: dict[int, Agent | Policy] = {}
        if isinstance(opponents, Mapping):
            for seat, opp in opponents.items():
                table[check_seat(seat, n, "opponents")] = _resolve(opp)
            rule = self.learner_seat_rule
            free = [s for s in range(n) if rule == "random" or s != rule]
            missing = [s for s in free if s not in table]
            if missing:
                who = "any seat may be the learner's" if rule == "random" else f"seat {rule}"
                raise EnvConfigError(
                    f"opponents: no opponent for seat {missing[0]} ({who}; give every other "
                    "seat one)"
                )
        elif isinstance(opponents, Sequence) and not isinstance(opponents, str):
            if len(opponents) != n - 1:
                raise EnvConfigError(
                    f"give {n - 1} opponents (one per other seat), not {len(opponents)}"
                )
            self._opponent_list = [_resolve(o) for o in opponents]
            self._opponents = {}
            return
        else:
            one = _resolve(opponents)
            table = {seat: one for seat in range(n)}
        self._opponent_list = []
        self._opponents = table

    def _opponent(self, seat: int) -> Agent | Policy:
        if self._opponent_list:
            others = [s for s in range(self.rules.num_players) if s != self.seat]
            return self._opponent_list[others.index(seat)]
        try:
            return self._opponents[seat]
        except KeyError:
            raise EnvConfigError(f"no opponent for seat {seat}") from None

    # ------------------------------------------------------------------ gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsArray, dict[str, Any]]:
        """Start an episode; ``seed`` seeds the deals, the learner's seat and the opponents.

        Raises:
            EnvConfigError: for a seed that is not a non-negative int (NumPy integers are
                ints), or bad ``options`` (see :meth:`raw_env.reset`); nothing is changed.
        """
        seed = check_seed(seed)
        check_options(options)
        self._broken = True  # until this reset has finished
        super().reset(seed=seed)
        if seed is not None:
            self._agent_rng = random.Random(f"{seed}/opponents")
            self._seat_rng = random.Random(f"{seed}/seat")
        elif not hasattr(self, "_seat_rng"):
            self._seat_rng = random.Random(int(self.np_random.integers(2**63)))
            self._agent_rng = random.Random(int(self.np_random.integers(2**63)))
        if self.learner_seat_rule == "random":
            self.seat = self._seat_rng.randrange(self.rules.num_players)
        self.aec.reset(seed=None if seed is None else seed, options=options)
        self._done = False
        self._play_others()
        self._broken = False
        return self._observe()

    def step(self, action: int) -> tuple[ObsArray, float, bool, bool, dict[str, Any]]:
        """The learner's action; then the other seats play until its next turn or the end.

        ``action`` is an action id: an ``int`` or a NumPy integer (a 0-d integer array too).

        Raises:
            ArgumentError: for an action that is not an integer (``None``, ``40.9``, ``"40"``);
                nothing is changed.
            IllegalActionError: with ``illegal_action="raise"``, for an action not in the mask
                (nothing is changed).
            EpisodeOverError: if the episode is over (a :class:`ResetRequiredError`).
            ResetRequiredError: if the episode was never reset, or an error inside an earlier
                ``step`` (an opponent's, say) left it unusable: call :meth:`reset`.
        """
        if self._broken:
            raise ResetRequiredError(
                "an earlier error left this episode unusable (or it was never reset): call reset()"
            )
        if self._done:
            raise EpisodeOverError("the episode is over; call reset()")
        if isinstance(action, bool | float | str) or action is None:
            raise ArgumentError(f"an action is an integer action id, not {action!r}")
        try:
            action = operator.index(action)
        except TypeError:
            raise ArgumentError(f"an action is an integer action id, not {action!r}") from None
        aec = self.aec
        me = aec.possible_agents[self.seat]
        carried = aec._cumulative_rewards.get(me, 0.0)  # what happened before this turn
        try:
            aec.step(action)
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            self._done = True
            obs, info = self._observe()
            info["illegal_action"] = True
            return obs, -1.0, True, False, info
        self._broken = True  # an opponent may raise below: the turn order would be lost
        self._play_others()
        self._broken = False
        reward = carried + aec._cumulative_rewards.get(me, 0.0)
        aec._cumulative_rewards[me] = 0.0
        obs, info = self._observe()
        terminated = bool(aec.terminations.get(me, False))
        truncated = bool(aec.truncations.get(me, False)) and not terminated
        return obs, float(reward), terminated, truncated, info

    def _play_others(self) -> None:
        """Play the other seats until the learner is to act or the episode ends."""
        aec = self.aec
        me = aec.possible_agents[self.seat]
        game = aec.game
        assert game is not None
        while True:
            if aec.terminations.get(me) or aec.truncations.get(me):
                self._done = True
                return
            seat = aec._seat_of[aec.agent_selection]
            if seat == self.seat:
                return
            opp = self._opponent(seat)
            if hasattr(opp, "act"):
                action = aec.encoding.to_env[opp.act(game.view(seat), self._agent_rng)]
            else:
                action = int(opp(aec.observe(aec.agent_selection)))
            aec.step(action)

    def _observe(self) -> tuple[ObsArray, dict[str, Any]]:
        aec = self.aec
        game = aec.game
        assert game is not None
        enc = aec.encoding
        self._mask = enc.mask(game, self.seat)
        info: dict[str, Any] = {"action_mask": self._mask, "seat": self.seat}
        if game.is_match_over or game.is_hand_over:
            info["scores"] = game.scores
            info["winners"] = game.winners
        return enc.observe(game, self.seat), info

    def action_masks(self) -> MaskArray:
        """The learner's legal actions now, as a boolean-like mask (for MaskablePPO)."""
        return self._mask

    def render(self) -> Any:
        """As :meth:`raw_env.render`."""
        return self.aec.render()
