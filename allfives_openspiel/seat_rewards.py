"""OpenSpiel's ``rl_environment`` with each seat handed what it earned since its last turn.

OpenSpiel's :class:`open_spiel.python.rl_environment.Environment` reports, in every time
step, ``state.rewards()``: the rewards of the last transition only. Its RL agents (NFSP, DQN,
policy gradients) are stepped on their own turns, so a reward that lands on someone else's
time step is never seen: in a turn-based game that pays as points are scored, a seat's own
scoring comes back on the opponent's time step and is lost, and the agent can learn only to
concede less. :class:`SeatRewardEnvironment` fixes that for every such agent:

- a time step handed to the player to act carries, for that player, the sum of its rewards
  since the last time step it was handed (its rewards for other players are 0: they are
  handed theirs when they next act);
- the last time step (which every agent is stepped with) carries each player's rewards since
  its last turn.

So the rewards each player is handed over an episode add up to exactly its return, whatever
the reward model (``rewards=step`` or ``rewards=terminal``) and the episode (one hand, or a
whole match). What a player is handed on its first time step (what was scored before it first
acted) is part of its return, but no action of its led to it: OpenSpiel's agents add no
transition for it, as they should.

**Its chance follows its seed.** OpenSpiel's ``Environment(game, seed=…)`` takes ``seed`` as a
game setting, which it ignores for a game object: its chance sampler is then seeded from fresh
entropy, and the same seed deals other games in every process. :class:`SeatRewardEnvironment`
takes ``seed`` itself and seeds the sampler with it.
"""

from __future__ import annotations

from typing import Any

from open_spiel.python import rl_environment


class SeatRewardEnvironment(rl_environment.Environment):  # type: ignore[misc]
    """``rl_environment.Environment`` whose time steps carry each seat's rewards since its last
    turn (see the module docstring); every other behaviour is OpenSpiel's."""

    def __init__(self, game: Any, *, seed: int | None, **kwargs: Any) -> None:
        """OpenSpiel's environment of ``game`` (the keyword arguments are its own), its chance
        sampled by a generator seeded with ``seed`` (``None``: fresh entropy)."""
        sampler = rl_environment.ChanceEventSampler(seed=seed)
        super().__init__(game, chance_event_sampler=sampler, **kwargs)
        self._pending = [0.0] * self.num_players

    def reset(self) -> rl_environment.TimeStep:
        """OpenSpiel's ``reset``; nothing is owed to anyone at the start."""
        self._pending = [0.0] * self.num_players
        return super().reset()

    def step(self, actions: list[int]) -> rl_environment.TimeStep:
        """OpenSpiel's ``step``, its rewards those the module docstring describes."""
        if self._should_reset:
            return self.reset()
        time_step = super().step(actions)
        pending = self._pending
        for player, reward in enumerate(time_step.rewards):
            pending[player] += reward
        if time_step.last():
            rewards, self._pending = pending, [0.0] * self.num_players
        else:
            player = time_step.observations["current_player"]
            rewards = [0.0] * self.num_players
            rewards[player], pending[player] = pending[player], 0.0
        return time_step._replace(rewards=rewards)
