"""The PettingZoo AEC environment over the engine: see :mod:`allfives_env.envs.allfives_v1`.

It only translates: the :class:`~allfives_env.core.game.Game` decides whose turn it is, what is
legal and when anything ends; :class:`~allfives_env.envs.spaces.Encoding` owns ids and arrays.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from allfives_env.core.deal import Deal
from allfives_env.core.errors import IllegalActionError
from allfives_env.core.events import ActionResult
from allfives_env.core.game import Game
from allfives_env.core.rules import Rules
from allfives_env.envs.rewards import points_rewards, win_rewards
from allfives_env.envs.settings import (
    DEFAULT_MAX_CYCLES,
    RENDER_MODES,
    EnvConfigError,
    EnvSettings,
    Episode,
    EpisodeOverError,
    ForcedActions,
    ResetRequiredError,
    RewardMode,
    SettingsFields,
    UnknownAgentError,
    check_options,
    check_seed,
    choose,
    done_agent_error,
    given_settings,
    settings_of,
    short_repr,
)
from allfives_env.envs.spaces import Encoding, MaskArray, ObsArray


class ActionSpace(spaces.Discrete):  # type: ignore[type-arg, unused-ignore]  # generic in gymnasium 1.2
    """``Discrete(n)`` whose ``contains`` answers a plain ``int`` without a NumPy round trip
    (PettingZoo's ``AssertOutOfBoundsWrapper`` asks it on every step)."""

    def __init__(self, n: int):
        super().__init__(n)
        self._size = int(n)

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is an action id of this space."""
        if type(x) is int:
            return 0 <= x < self._size
        if isinstance(x, bool | np.bool_):  # the env takes no bool for an action id
            return False
        return bool(super().contains(x))


class raw_env(SettingsFields, AECEnv[str, dict[str, Any], int]):
    """All Fives as a PettingZoo AEC environment (see :mod:`allfives_env.envs.allfives_v1`).

    The settings (``rules``, ``num_players``, ``partnerships``, ``episode``, ``reward``,
    ``forced_actions``, ``max_cycles``, ``action_features``) are :class:`EnvSettings`' fields,
    checked by :meth:`EnvSettings.of` and held as :attr:`settings`; ``rules`` may also be an
    :class:`EnvSettings` itself, the other settings then left at their defaults.

    Raises:
        EnvConfigError: for an unknown or out-of-range argument (a :class:`RulesError`), or
            settings given both as an :class:`EnvSettings` and as keywords.
        RulesError: for an unknown preset.
    """

    metadata = {  # noqa: RUF012 - PettingZoo reads it from the class
        "name": "allfives_v1",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": True,
        "render_fps": 2,
    }
    LEGACY_PAIRS = False
    """Version 0's default: 4 players of every preset play as partnerships (v1 follows the
    preset: each for himself in ``dominoes_cc`` and ``pyatyorka``)."""

    def __init__(
        self,
        num_players: int | None = None,
        rules: str | Rules | EnvSettings = "pagat",
        episode: Episode = "match",
        reward: RewardMode = "win",
        forced_actions: ForcedActions = "explicit",
        render_mode: str | None = None,
        max_cycles: int | None = DEFAULT_MAX_CYCLES,
        partnerships: bool | None = None,
        action_features: bool | str = False,
    ):
        super().__init__()
        if isinstance(rules, str) and partnerships is None and self.LEGACY_PAIRS:
            partnerships = True if num_players == 4 else None
        given = given_settings(
            num_players=num_players,
            partnerships=partnerships,
            episode=episode,
            reward=reward,
            forced_actions=forced_actions,
            max_cycles=max_cycles,
            action_features=action_features,
        )
        self.settings = settings_of(rules, given)
        """What this environment plays (every setting but ``render_mode``)."""
        self._auto = self.settings.forced_actions == "auto"
        if render_mode is not None:
            choose(render_mode, RENDER_MODES, "render_mode")
        self.render_mode = render_mode
        self.encoding = enc = Encoding(self.rules, self.settings.action_features)
        self._zero_mask: MaskArray = np.zeros(enc.num_actions, np.int8)
        self._zero_mask.flags.writeable = False
        n = self.rules.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents: list[str] = []
        self._seat_of = {a: i for i, a in enumerate(self.possible_agents)}
        self._side_of_agent = {a: self.rules.side_of(i) for i, a in enumerate(self.possible_agents)}
        low, high = enc.observation_bounds()
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(low, high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (enc.num_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: ActionSpace(enc.num_actions) for a in self.possible_agents}
        slow, shigh = enc.state_bounds()
        self.state_space = spaces.Box(slow, shigh, dtype=np.float32)
        self._rng = random.Random()
        self.game: Game | None = None
        self._steps = 0
        self._hand_start: list[float] = []

    # ------------------------------------------------------------------ settings

    @property
    def rules(self) -> Rules:
        """The rules (:attr:`settings`')."""
        return self.settings.rules

    # ------------------------------------------------------------------ spaces

    def seat_of(self, agent: str) -> int:
        """The seat of ``agent`` (``"player_2"`` → 2).

        Raises:
            UnknownAgentError: for a name that is not one of ``possible_agents``.
        """
        seat = self._seat_of.get(agent) if isinstance(agent, str) else None
        if seat is None:
            raise UnknownAgentError(
                f"no agent {short_repr(agent)} in this game (its agents: "
                f"{', '.join(self.possible_agents)})"
            )
        return seat

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of ``agent`` (the same object every call).

        Raises:
            UnknownAgentError: for a name that is not one of ``possible_agents``.
        """
        return self.observation_spaces[self.possible_agents[self.seat_of(agent)]]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The action space of ``agent`` (the same object every call).

        Raises:
            UnknownAgentError: for a name that is not one of ``possible_agents``.
        """
        return self.action_spaces[self.possible_agents[self.seat_of(agent)]]

    def last(
        self, observe: bool = True
    ) -> tuple[dict[str, Any] | None, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last()``: what ``agent_selection`` sees, and its reward, ends, info.

        Raises:
            ResetRequiredError: before the first ``reset``.
            EpisodeOverError: once every agent is done and removed (no agent is selected).
        """
        if self.game is None:
            raise ResetRequiredError("last() before reset(): call reset() first")
        if not self.agents:
            raise EpisodeOverError(
                "last() after the episode ended: no agent is left to act; call reset()"
            )
        return super().last(observe)  # type: ignore[no-any-return]

    # ------------------------------------------------------------------ episode

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new episode (a match, or a hand); ``seed`` reseeds the deals.

        ``seed`` is an ``int`` (NumPy integers too). ``options`` may hold ``"deal"`` (a
        :class:`Deal` for the first hand) and ``"scores"`` (the sides' starting scores).

        Raises:
            EnvConfigError: for a seed that is not an int, options that are not a dict, or an
                unknown option key (nothing is changed).
            DealError: for an illegal ``options["deal"]``.
            RulesError: for bad ``options["scores"]``.
        """
        seed = check_seed(seed)
        options = check_options(options)
        if seed is not None:
            self._rng = random.Random(seed)
        deal = options.get("deal")
        if deal is not None and not isinstance(deal, Deal):
            raise EnvConfigError(f"options['deal'] must be a Deal, not {deal!r}")
        scores = options.get("scores")
        if deal is not None:
            self.game = Game(self.rules, deal=deal, scores=scores)
        else:
            self.game = Game(self.rules, self._rng, scores=scores)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._steps = 0
        self._hand_start = list(self.game.scores)
        self._masks: dict[str, MaskArray] = dict.fromkeys(self.agents, self._zero_mask)
        self.infos = {a: {"action_mask": self._zero_mask} for a in self.agents}
        self._mask_agent: str | None = None
        self._auto_play()
        self._update()

    def _auto_play(self) -> list[ActionResult]:
        """Under ``forced_actions="auto"``, take forced draws and passes for the players."""
        game = self.game
        assert game is not None
        done: list[ActionResult] = []
        if not self._auto:
            return done
        while not game.is_hand_over:
            legal = game.legal_actions()
            if len(legal) != 1 or legal[0].is_placement:  # forced = DRAW or PASS alone
                break
            done.append(game.apply(legal[0]))
        return done

    def _update(self) -> None:
        """Refresh agent_selection and infos from the game."""
        game = self.game
        assert game is not None
        cur = game.current_player
        if cur is not None:
            self.agent_selection = self.possible_agents[cur]
        # Only the agent to act has legal actions; the others share one read-only zero mask.
        # An info dict whose mask changes is replaced, never mutated, so a caller who kept
        # last step's info still holds last step's mask.
        masks, infos = self._masks, self.infos
        was = self._mask_agent
        if was is not None and was in infos:
            masks[was] = self._zero_mask
            infos[was] = {"action_mask": self._zero_mask}
        self._mask_agent = None
        if cur is not None:
            agent = self.possible_agents[cur]
            if agent in infos:
                masks[agent] = m = self.encoding.mask(game, cur)
                infos[agent] = {"action_mask": m}
                self._mask_agent = agent

    def step(self, action: int | None) -> None:
        """Apply ``action`` (an env action id: an ``int`` or NumPy integer) for
        ``agent_selection``; for an agent that is done, ``None`` removes it (PettingZoo's rule).

        Raises:
            IllegalActionError: if the action is not in the agent's action mask (a bool, a
                float, text or ``None`` included), or the agent is done and the action is not
                ``None`` (state unchanged).
            EpisodeOverError: once every agent is done and removed (nothing changes).
            ResetRequiredError: before the first ``reset``.
        """
        if self.game is None:
            raise ResetRequiredError("step() before reset(): call reset() first")
        if not self.agents:
            raise EpisodeOverError(
                f"step({short_repr(action)}) after the episode ended: no agent is left to act; "
                "call reset()"
            )
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise done_agent_error(agent, self.terminations[agent], action)
            self._was_dead_step(action)
            return
        game = self.game
        assert game is not None
        result = game.apply(self._engine_action(action))
        self._cumulative_rewards[agent] = 0.0
        results = [result]
        if self._auto and result.hand is None:
            results += self._auto_play()
        ended = results[-1].hand is not None
        self._steps += 1
        self._reward(results)
        over = False
        if ended:
            if game.is_match_over or self.episode == "hand":
                over = True
                self.terminations = dict.fromkeys(self.agents, True)
            else:
                game.deal(self._rng)
                self._hand_start = list(game.scores)
                self._auto_play()  # a lead is never forced, so the new hand cannot end here
        if not over and self._steps == self.max_cycles:
            over = True
            self.truncations = dict.fromkeys(self.agents, True)
        self._update()
        self._accumulate_rewards()
        if over:
            self._deads_step_first()

    def _engine_action(self, action: Any) -> int:
        """The engine action for env action ``action``, if it is in the mask."""
        game = self.game
        assert game is not None
        enc = self.encoding
        if type(action) is int or isinstance(action, np.integer):  # not a bool, float or text
            a = int(action)
            if 0 <= a < enc.num_actions:
                engine = enc.to_engine[a]
                if game.is_legal_listed(engine):
                    return engine
        legal = game.legal_actions()
        names = ", ".join(f"{enc.to_env[x]} ({x})" for x in legal)
        raise IllegalActionError(
            f"illegal action {action!r} for {self.agent_selection}: not in its action mask "
            f"(legal: {names})",
            action,
            game.current_player,
            [enc.to_env[x] for x in legal],
        )

    def _reward(self, results: list[ActionResult]) -> None:
        game = self.game
        assert game is not None
        last = results[-1]
        if last.hand is None and not any(r.points for r in results):
            self.rewards = dict.fromkeys(self.agents, 0.0)
            return
        rules = self.rules
        k = rules.num_sides
        side_reward = [0.0] * k
        if "points" in self.reward_mode:
            gains = [0.0] * k
            for r in results:
                if r.points:
                    gains[rules.side_of(r.player)] += r.points
                if r.hand is not None:
                    for i, x in enumerate(r.hand.award):
                        gains[i] += x
            if any(gains):
                side_reward = points_rewards(k, gains, rules.target)
        if "win" in self.reward_mode:
            winners: Sequence[int] | None = None
            if last.winners is not None:
                winners = last.winners
            elif last.hand is not None and self.episode == "hand":
                gain = [s - s0 for s, s0 in zip(game.scores, self._hand_start, strict=True)]
                best = max(gain)
                winners = [i for i, g in enumerate(gain) if g == best]
            if winners is not None:
                for i, x in enumerate(win_rewards(k, winners)):
                    side_reward[i] += x
        side = self._side_of_agent
        self.rewards = {a: side_reward[side[a]] for a in self.agents}

    # ------------------------------------------------------------------ views

    def observe(self, agent: str) -> dict[str, Any]:
        """``{"observation": vector, "action_mask": mask}`` of ``agent``: nothing it cannot see.

        Raises:
            ResetRequiredError: before the first ``reset``.
            UnknownAgentError: for a name that is not one of ``possible_agents``.
        """
        game = self.game
        if game is None:
            raise ResetRequiredError("observe() before reset(): call reset() first")
        seat = self.seat_of(agent)
        mask = self._masks.get(agent)
        if mask is None:
            mask = self.encoding.mask(game, seat)
        return {"observation": self.encoding.observe(game, seat), "action_mask": mask}

    def state(self) -> ObsArray:
        """The global state (every hand, the boneyard in draw order): for centralized critics.

        Raises:
            ResetRequiredError: before the first ``reset``.
        """
        if self.game is None:
            raise ResetRequiredError("state() before reset(): call reset() first")
        return self.encoding.state(self.game)

    def render(self) -> Any:
        """``ansi``: the full position as text (all hands); ``human``: print the public
        position (no hands); ``rgb_array``: an image of the table (no hands)."""
        game = self.game
        if self.render_mode is None or game is None:
            return None
        if self.render_mode == "ansi":
            return game.render()
        if self.render_mode == "human":
            from allfives_env.core.render import render_public

            print(render_public(game))
            return None
        from allfives_env.envs.image import render_image

        return render_image(game)

    def close(self) -> None:
        """Nothing to release."""


def env(**kwargs: Any) -> AECEnv[str, dict[str, Any], int]:
    """``raw_env`` in PettingZoo's standard wrappers (``TerminateIllegalWrapper``,
    ``AssertOutOfBoundsWrapper``, ``OrderEnforcingWrapper``; see :mod:`allfives_env.envs.wrappers`):
    an illegal action ends the game with −1 for the player who took it (0 for the others)
    instead of raising."""
    return wrap(raw_env(**kwargs))


def wrap(raw: raw_env) -> AECEnv[str, dict[str, Any], int]:
    """``raw`` in PettingZoo's standard wrappers, as :func:`env` gives it."""
    from allfives_env.envs import wrappers

    e: AECEnv[str, dict[str, Any], int] = raw
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e
