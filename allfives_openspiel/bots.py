"""The project's agents as OpenSpiel bots: ``AgentBot(1, "heuristic")`` plays seat 1 of a
``python_allfives`` state, so OpenSpiel's ``evaluate_bots`` can set a policy trained in
OpenSpiel against any agent the registry knows (``heuristic``, ``search:sims=200``, a
checkpoint ``runs/default/best.zip``, ...).

The bot hands the agent the seat's :class:`~allfives_env.core.view.PlayerView` of the state's
engine, which holds only what the seat may know (the agents' contract), and turns the action it
returns into the game's action id.
"""

from __future__ import annotations

import operator
import random
from typing import Any

import pyspiel

from agents.registry import make_agent
from allfives_env.core.errors import ArgumentError
from allfives_env.core.player import Agent
from allfives_env.core.seeds import check_seed


class AgentBot(pyspiel.Bot):  # type: ignore[misc]
    """A project agent at one seat, as a :class:`pyspiel.Bot`.

    Args:
        player_id: the seat it plays.
        agent: an agent spec (``"heuristic"``, ``"search:sims=200"``, a checkpoint path) or an
            :class:`~allfives_env.core.player.Agent`.
        seed: seeds the generator the agent draws from (a seeded bot replays).

    Raises:
        agents.errors.AgentError: for a spec the registry refuses.
        ArgumentError: for a ``player_id`` that is no seat (an int from 0 to 3, NumPy ints
            too), or a seed that is not an int from 0 to 2**64 - 1
            (:func:`allfives_env.core.seeds.check_seed`).
    """

    def __init__(self, player_id: int, agent: str | Agent, seed: int = 0):
        pyspiel.Bot.__init__(self)
        try:
            seat = -1 if isinstance(player_id, bool) else operator.index(player_id)
        except TypeError:
            seat = -1
        if not 0 <= seat < 4:
            raise ArgumentError(f"player_id must be a seat from 0 to 3, not {player_id!r}")
        checked = check_seed(seed)
        self.seat = seat
        self.agent: Agent = make_agent(agent) if isinstance(agent, str) else agent
        self.rng = random.Random(checked)

    def player_id(self) -> int:
        """The seat the bot plays."""
        return self.seat

    def restart_at(self, state: Any) -> None:
        """Nothing to do: the agent reads each position afresh."""

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        """Nothing to do (see :meth:`restart_at`)."""

    def step(self, state: Any) -> int:
        """The agent's action at ``state``, as the game's action id.

        Raises:
            pyspiel.SpielError: if it is not this bot's seat's turn, or the agent answers with
                an action that is not legal.
        """
        seat = state.current_player()
        if seat != self.seat:
            raise pyspiel.SpielError(f"{self.agent.name} plays seat {self.seat}, not {seat}")
        action = self.agent.act(state.view(seat), self.rng)
        chosen = int(state.encoding.to_env[int(action)])
        if chosen not in state.legal_actions():
            raise pyspiel.SpielError(f"{self.agent.name} chose {action}, which is not legal")
        return chosen
