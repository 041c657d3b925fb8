"""One learner seat per game, opponents inside the batch: the batched single-agent game.

:class:`LearnerBatch` runs N games of a :class:`~allfives_env.vector.engine.VectorGame` for a
learner that holds one seat in each. After :meth:`~LearnerBatch.reset` and after every
:meth:`~LearnerBatch.step`, every game waits for the learner: the other seats (the partner too,
in 4-player partnerships) have been played by their agents, batched (the compiled ``random``,
``greedy`` and ``heuristic``, frozen policies on the whole batch at once, and any other agent
through its ``act(view, rng)``; see :mod:`allfives_env.vector.agents`). A game that ends is
dealt again at once (*same-step* autoreset): the step returns the new episode's first
observation, and the last one of the finished episode in ``final_obs``.

The reward is the learner's seat's, summed over everything that happened since its last action
(its own action and the opponents' that followed; at the start of an episode, what happened
before its first turn comes with its first step), exactly as
:class:`~allfives_env.envs.single_agent.AllFivesSingleAgentEnv` sums it.

Two front ends wrap it: :class:`AllFivesVectorEnv` (a Gymnasium ``VectorEnv``) here, and
:class:`allfives_env.vector.sb3.AllFivesVecEnv` (a stable-baselines3 ``VecEnv`` with the
``action_masks()`` that sb3-contrib's MaskablePPO reads).

Randomness: game ``i`` draws its deals, its learner seat and its opponents' choices from
generators seeded by ``(seed, i)`` alone, so a game plays the same whatever the batch size.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Unpack

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from allfives_env.core.errors import ArgumentError
from allfives_env.core.rules import Rules
from allfives_env.envs.settings import (
    EnvConfigError,
    EnvSettings,
    ResetRequiredError,
    SettingsArgs,
    check_seat,
    next_seed,
    settings_of,
    short_repr,
)
from allfives_env.envs.spaces import Encoding
from allfives_env.vector.agents import BatchAgent, batch_agent, draw_bits
from allfives_env.vector.engine import VectorGame
from allfives_env.vector.rng import derive_seeds, seed_states
from allfives_env.vector.state import F32, F64, I8, I64, U64, BoolArray

Opponent = object
"""A batch agent, an agent, an agent spec, or a policy (see :func:`batch_agent`)."""

SeatPicker = Callable[[I64, I64, U64], I64]
"""``picker(games, seats, rng) -> lineup indices``: who plays seat ``seats[k]`` of game
``games[k]`` in the episode starting now (an index into the lineup), drawing from ``rng``."""

_OPPONENT_SALT = 0x0990
_SEAT_SALT = 0x5EA7
_SCORE_SALT = 0x5C0E


@dataclass
class StepResult:
    """One step of the learner in every game.

    Attributes:
        obs: (N, obs_size) the learner's observation in each game (a new episode's first where
            the last one ended).
        rewards: (N,) the learner's reward since its last action.
        terminated, truncated: (N,) whether the game's episode ended in this step.
        final_obs: (N, obs_size) the learner's last observation of the episodes that ended
            (zeros elsewhere).
        masks: (N, num_actions) the learner's legal actions now.
        final_scores: (N, num_sides) the final scores of the episodes that ended (zeros
            elsewhere).
        final_won: (N,) whether the learner's side was among the match's winners in an episode
            that ended (``False`` elsewhere, and where the match went on: a hand episode).
        final_seats: (N,) the learner's seat in the episodes that ended (-1 elsewhere).
    """

    obs: F32
    rewards: F32
    terminated: BoolArray
    truncated: BoolArray
    final_obs: F32
    masks: I8
    final_scores: F64
    final_won: BoolArray
    final_seats: I64


class LearnerBatch:
    """N games, one learner seat in each, the other seats played by agents (see the module
    docstring).

    ``rules`` and the keywords ``num_players``, ``partnerships``, ``episode``, ``reward``,
    ``forced_actions``, ``action_features`` and ``max_cycles`` are as for
    :func:`allfives_env.env`: :class:`EnvSettings`' fields, with :meth:`EnvSettings.of`'s
    defaults but ``forced_actions``, ``"auto"`` here (the learner sees only real choices),
    held as :attr:`settings`; ``rules`` may be an :class:`EnvSettings` itself (then give none
    of those keywords).

    Args:
        num_envs: games in the batch.
        opponents: one opponent for every other seat, a sequence (one per seat, the learner's
            entry ignored), or a mapping seat → opponent. Default ``"random"``.
        learner_seat: the learner's seat, or ``"random"``: drawn in each game at each episode.
        start_scores: the chance that an episode begins at random scores instead of 0 (to meet
            more matches' ends): each side's drawn, independently and uniformly, from the
            scores a side may hold below the target (multiples of 5 pips), from a generator of
            each game seeded by :meth:`reset`'s seed. 0 (the default) draws nothing.

    Raises:
        EnvConfigError: for a bad argument, an unknown agent spec, opponents that leave a
            seat the learner may not take without one, or settings given both as an
            :class:`EnvSettings` and as keywords.
    """

    DEFAULTS: SettingsArgs = {"forced_actions": "auto"}  # noqa: RUF012
    """The settings' defaults that differ from :meth:`EnvSettings.of`'s."""

    def __init__(
        self,
        num_envs: int,
        rules: str | Rules | EnvSettings = "pagat",
        *,
        opponents: Opponent | Sequence[Opponent] | Mapping[int, Opponent] = "random",
        learner_seat: int | str = "random",
        start_scores: float = 0.0,
        **settings: Unpack[SettingsArgs],
    ):
        self.settings = settings_of(rules, settings, self.DEFAULTS)
        """What every game plays."""
        if type(start_scores) not in (int, float) or not 0.0 <= start_scores <= 1.0:
            raise EnvConfigError(f"start_scores must be from 0 to 1, not {start_scores!r}")
        self.start_scores = float(start_scores)
        if type(num_envs) is not int or num_envs < 1:
            raise EnvConfigError(f"num_envs must be a positive int, not {num_envs!r}")
        n = self.rules.num_players
        if learner_seat != "random" and (
            type(learner_seat) is not int or not 0 <= learner_seat < n
        ):
            raise EnvConfigError(
                f"learner_seat must be 0-{n - 1} or 'random', not {learner_seat!r}"
            )
        self.learner_seat_rule = learner_seat
        self.vg = VectorGame(self.settings, num_envs)
        self.num_envs = num_envs
        self.encoding = self.vg.encoding
        self.lineup: list[BatchAgent] = []
        self.table = np.full((num_envs, n), -1, np.int64)
        self.picker: SeatPicker | None = None
        self.set_opponents(opponents)
        self.seats = np.zeros(num_envs, np.int64)
        self._carry = np.zeros(num_envs, np.float32)
        self._rows = np.arange(num_envs)
        self._side_of = np.array([self.rules.side_of(s) for s in range(n)], np.int64)
        self._ready = False

    @property
    def rules(self) -> Rules:
        """The rules of every game (:attr:`settings`')."""
        return self.settings.rules

    # ------------------------------------------------------------------ opponents

    def set_opponents(
        self, opponents: Opponent | Sequence[Opponent] | Mapping[int, Opponent]
    ) -> None:
        """Seat these opponents from the next episode of each game on (see the class doc).

        Raises:
            EnvConfigError: as for the constructor; nothing is changed.
        """
        n = self.rules.num_players
        by_seat: dict[int, Opponent] = {}
        if isinstance(opponents, Mapping):
            for seat, opp in opponents.items():
                by_seat[check_seat(seat, n, "opponents")] = opp
        elif isinstance(opponents, Sequence) and not isinstance(opponents, str):
            if len(opponents) != n:
                raise EnvConfigError(f"give {n} opponents, one per seat, not {len(opponents)}")
            by_seat = dict(enumerate(opponents))
        else:
            by_seat = dict.fromkeys(range(n), opponents)
        rule = self.learner_seat_rule
        missing = [s for s in range(n) if s not in by_seat and (rule == "random" or s != rule)]
        if missing:
            raise EnvConfigError(f"opponents: no opponent for seat {missing[0]}")
        lineup: list[BatchAgent] = []
        index: dict[tuple[str, object], int] = {}
        for seat, opp in sorted(by_seat.items()):
            key = ("spec", opp) if isinstance(opp, str) else ("object", id(opp))
            if key not in index:
                try:
                    lineup.append(batch_agent(opp))
                except ValueError as e:
                    raise EnvConfigError(f"opponent {opp!r}: {e}") from None
                index[key] = len(lineup) - 1
            by_seat[seat] = index[key]
        self.set_lineup(lineup, None)
        self._static = np.array([by_seat.get(s, -1) for s in range(n)], np.int64)

    def set_lineup(self, lineup: list[BatchAgent], picker: SeatPicker | None) -> None:
        """For self-play: the agents that may sit at a table, and ``picker`` choosing among
        them for each seat of each new episode (``None``: the opponents last given).

        The list is kept, not copied: the caller may append agents to it (new snapshots) and
        ``picker`` may pick them from then on.
        """
        self.lineup = lineup
        self.picker = picker

    # ------------------------------------------------------------------ episodes

    def reset(self, seed: int | None) -> StepResult:
        """Deal every game (game ``i`` from ``(seed, i)``); play until the learner's turns.
        ``None`` draws a seed from fresh entropy.

        Raises:
            EnvConfigError: for a seed :func:`~allfives_env.envs.settings.check_seed` refuses.
        """
        seed = next_seed(seed, None)
        n = self.num_envs
        self.score_rng = seed_states(derive_seeds(seed ^ _SCORE_SALT, n))
        self.vg.reset(derive_seeds(seed, n), self._start_scores(self._rows))
        self.rng = seed_states(derive_seeds(seed ^ _OPPONENT_SALT, n))
        self.seat_rng = seed_states(derive_seeds(seed ^ _SEAT_SALT, n))
        self._carry[:] = 0
        self._ready = False
        self._start(self._rows)
        self._ready = True
        zeros = np.zeros(n, bool)
        obs = self.vg.observe().copy()
        return StepResult(
            obs,
            np.zeros(n, np.float32),
            zeros,
            zeros.copy(),
            np.zeros_like(obs),
            self.masks(),
            np.zeros((n, self.rules.num_sides)),
            zeros.copy(),
            np.full(n, -1, np.int64),
        )

    def _start_scores(self, games: I64) -> F64 | None:
        """The scores the new episodes of ``games`` begin at (``None``: all 0)."""
        if not self.start_scores:
            return None
        rules = self.rules
        step = 5 // rules.unit  # 5 pips, in the rules' points
        levels = np.uint64((rules.target - 1) // step + 1)  # 0, step, ... below the target
        uniform = (draw_bits(self.score_rng, games) >> np.uint64(11)).astype(np.float64)
        chosen = uniform * 2.0**-53 < self.start_scores
        out = np.zeros((len(games), rules.num_sides))
        for side in range(rules.num_sides):
            bits = draw_bits(self.score_rng, games) >> np.uint64(32)
            with np.errstate(over="ignore"):
                level = (bits * levels) >> np.uint64(32)
            out[:, side] = np.where(chosen, step * level.astype(np.float64), 0.0)
        return out

    def _start(self, games: I64) -> None:
        """New episodes in ``games`` (already dealt): seats, opponents, play to the learner.

        A match begun at random scores may end before the learner's first turn (another seat
        reaches the target): it is begun again, its rewards dropped, until the learner acts.
        """
        n = self.rules.num_players
        vg = self.vg
        while len(games):
            if self.learner_seat_rule == "random":
                bits = draw_bits(self.seat_rng, games) >> np.uint64(32)
                with np.errstate(over="ignore"):
                    seats = ((bits * np.uint64(n)) >> np.uint64(32)).astype(np.int64)
                self.seats[games] = seats
            else:
                self.seats[games] = int(self.learner_seat_rule)
            if self.picker is None:
                self.table[games] = self._static
            else:
                for seat in range(n):
                    self.table[games, seat] = self.picker(
                        games, np.full(len(games), seat, np.int64), self.rng
                    )
            self.table[games, self.seats[games]] = -1
            self._play_others(self._carry)
            games = games[vg.terminated[games] | vg.truncated[games]]
            if len(games):
                self._carry[games] = 0
                vg.reset_games(games, scores=self._start_scores(games))

    def _play_others(self, rewards: F32) -> None:
        """Step the games where another seat is to act until every live game waits for the
        learner; add the learner's rewards to ``rewards``."""
        vg = self.vg
        rows = self._rows
        actions = np.full(self.num_envs, -1, np.int64)
        while True:
            cur = vg.current_player
            need = ~vg.done & (cur != self.seats)
            if not need.any():
                return
            who = self.table[rows, cur]
            actions[:] = -1
            for j in np.unique(who[need]).tolist():
                games = np.flatnonzero(need & (who == j))
                actions[games] = self.lineup[j].act_batch(vg, games, self.rng)
            r, _, _ = vg.step(actions)
            rewards += r[rows, self.seats]

    def step(self, actions: object, wait: BoolArray | None = None) -> StepResult:
        """The learner's action in every game; the others play; ended games are dealt again.

        ``wait`` (N bools) leaves the games it marks as they are: their actions are checked to
        be action ids and otherwise ignored, their rewards are 0 and what happened before their
        learner's first turn waits for their next step. This serves *next-step* autoreset
        (the step after an episode's last is its successor's reset, whatever the action).

        Raises:
            ResetRequiredError: before :meth:`reset`, or after an error inside an earlier step.
            ArgumentError: for actions that are not N integers, or a ``wait`` that is not N
                bools.
            VectorActionError: for an action that is not an action id (-1 included) or is
                outside its game's mask, naming the game (no game is changed).
        """
        if not self._ready:
            raise ResetRequiredError(
                "reset() first (or again: an error inside an earlier step left the batch unusable)"
            )
        vg = self.vg
        acts = vg.action_ids(actions)  # -1 and every other id outside the space refused
        rows = self._rows
        rewards = self._carry.copy()
        if wait is not None:
            waiting = np.asarray(wait)
            if waiting.dtype != np.bool_ or waiting.shape != (self.num_envs,):
                raise ArgumentError(f"wait must be {self.num_envs} bools, not {short_repr(wait)}")
            acts = np.where(waiting, -1, acts)  # (the caller's array untouched)
            rewards[waiting] = 0
        r, _, _ = vg.step(acts)  # refused: raises, nothing changed
        self._ready = False  # an opponent may raise below
        if wait is None:
            self._carry[:] = 0
        else:
            self._carry[~waiting] = 0
        rewards += r[rows, self.seats]
        self._play_others(rewards)
        terminated = vg.terminated.copy()
        truncated = vg.truncated.copy()
        done = np.flatnonzero(terminated | truncated)
        n = self.num_envs
        final_obs = np.zeros((n, self.encoding.obs_size), np.float32)
        final_scores = np.zeros((n, self.rules.num_sides))
        final_won = np.zeros(n, bool)
        final_seats = np.full(n, -1, np.int64)
        if len(done):
            final_obs[done] = vg.observe_games(done, self.seats[done])
            final_scores[done] = vg.scores[done]
            sides = self._side_of[self.seats[done]]
            final_won[done] = vg.winners[done, sides]
            final_seats[done] = self.seats[done]
            vg.reset_games(done, scores=self._start_scores(done))
            self._start(done)
        self._ready = True
        return StepResult(
            vg.observe().copy(),
            rewards,
            terminated,
            truncated,
            final_obs,
            self.masks(),
            final_scores,
            final_won,
            final_seats,
        )

    def masks(self) -> I8:
        """(N, num_actions) the learner's legal actions in each game now."""
        out: I8 = self.vg.masks().copy()
        return out

    def learner_state(self) -> F32:
        """(N, :func:`learner_state_size`) what a centralized critic reads of each game now:
        the full position (every hand, the boneyard in draw order) and the learner's seat,
        one-hot. Never an observation: it shows every hidden tile."""
        seats = np.eye(self.rules.num_players, dtype=np.float32)[self.seats]
        out: F32 = np.concatenate([self.vg.state(), seats], axis=1)
        return out


def learner_state_size(encoding: Encoding) -> int:
    """The size of :meth:`LearnerBatch.learner_state`'s rows for ``encoding``'s rules."""
    return encoding.state_size + encoding.num_players


class AllFivesVectorEnv(VectorEnv[F32, Any, Any]):
    """The batched single-agent game as a Gymnasium ``VectorEnv`` (same-step autoreset).

    Takes :class:`LearnerBatch`'s arguments (the settings :class:`EnvSettings`' fields, held as
    :attr:`settings`). ``reset`` and ``step`` return the learner's
    observations; ``infos["action_mask"]`` (and :meth:`action_masks`) its legal actions, and
    where an episode ended ``infos["final_obs"]`` its last observation (``infos["_final_obs"]``
    marks those games).

    >>> envs = AllFivesVectorEnv(8, opponents="greedy")
    >>> obs, infos = envs.reset(seed=0)
    >>> obs.shape, infos["action_mask"].shape
    ((8, 222), (8, 114))
    >>> import numpy as np
    >>> legal = [int(np.flatnonzero(m)[0]) for m in envs.action_masks()]
    >>> obs, rewards, terminated, truncated, infos = envs.step(np.array(legal))
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012

    def __init__(self, num_envs: int, rules: str | Rules | EnvSettings = "pagat", **kwargs: Any):
        self.batch = LearnerBatch(num_envs, rules, **kwargs)
        enc = self.batch.encoding
        low, high = enc.observation_bounds()
        self.num_envs = num_envs
        self.single_observation_space = spaces.Box(low, high, dtype=np.float32)
        self.single_action_space = spaces.Discrete(enc.num_actions)
        self.observation_space = gym.vector.utils.batch_space(
            self.single_observation_space, num_envs
        )
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, num_envs)
        self._masks = np.zeros((num_envs, enc.num_actions), np.int8)
        self._seed: int | None = None

    @property
    def settings(self) -> EnvSettings:
        """What every game plays (its :class:`LearnerBatch`'s)."""
        return self.batch.settings

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[F32, dict[str, Any]]:
        """Deal every game; ``seed`` seeds game ``i`` by ``(seed, i)``; without one, the last
        one plus one (the first time: fresh entropy). ``options`` is not used (give ``None``).

        Raises:
            EnvConfigError: for a seed :func:`~allfives_env.envs.settings.check_seed` refuses, or
                any options.
        """
        if options:
            raise EnvConfigError(f"this vector env takes no reset options, not {options!r}")
        self._seed = next_seed(seed, self._seed)
        result = self.batch.reset(self._seed)
        self._masks = result.masks
        return result.obs, {"action_mask": result.masks, "seat": self.batch.seats.copy()}

    def step(self, actions: Any) -> tuple[F32, F32, BoolArray, BoolArray, dict[str, Any]]:
        """Every game's learner acts (see :meth:`LearnerBatch.step`)."""
        r = self.batch.step(actions)
        self._masks = r.masks
        done = r.terminated | r.truncated
        infos: dict[str, Any] = {"action_mask": r.masks, "seat": self.batch.seats.copy()}
        if done.any():
            infos["final_obs"] = r.final_obs
            infos["_final_obs"] = done
            infos["final_scores"] = r.final_scores
            infos["final_won"] = r.final_won
        return r.obs, r.rewards, r.terminated, r.truncated, infos

    def action_masks(self) -> I8:
        """(N, num_actions) the learner's legal actions in each game now."""
        return self._masks
