"""OpenSpiel policies measured by the exact solver: any ``open_spiel.python.policy.Policy`` of
the ``python_allfives`` game read into a policy array of the solver's tree
(:mod:`agents.exact`), so that OpenSpiel's own algorithms (CFR, CFR+, MCCFR, NFSP) are measured
exactly and fast, on the games the solver builds.

:class:`PolicyReader` finds, once per tree, an OpenSpiel state of each of the tree's information
states: it replays the path to the state's first node in the OpenSpiel game (each hand dealt
in ascending order, which OpenSpiel's information states do not see: a seat sees its deal as
a set; the leader's lot; each action; each draw's tile as the core game replays it). Reading a
policy is then one ``action_probabilities`` call per state.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pyspiel

from agents.exact.policy import homes
from agents.exact.tree import CHANCE, Tree, deals, path_to
from allfives_env.core.actions import DRAW_ID
from allfives_env.core.game import Game
from allfives_openspiel.game import params_of

F64 = npt.NDArray[np.float64]


def game_for(tree: Tree) -> pyspiel.Game:
    """The ``python_allfives`` game of the tree's rules: one hand."""
    import allfives_openspiel  # noqa: F401  (registers the game)

    params = params_of(tree.rules, episode="hand")
    return pyspiel.load_game("python_allfives", params)


class PolicyReader:
    """Reads OpenSpiel policies of :func:`game_for` into the tree's policy arrays."""

    def __init__(self, tree: Tree, game: pyspiel.Game | None = None):
        self.tree = tree
        self.game = game if game is not None else game_for(tree)
        all_deals = deals(tree.rules)
        self.states = [self._state_at(int(node), all_deals) for node in homes(tree)]

    def _state_at(self, node: int, all_deals: list[Any]) -> Any:
        t = self.tree
        path = path_to(t, node)
        deal = all_deals[int(t.slot[path[0]])][0]
        core = Game(t.rules, deal=deal)
        state = self.game.new_initial_state()
        for hand in deal.hands:
            for tile in sorted(int(x) for x in hand):
                state.apply_action(tile)
        if state.is_chance_node():  # the leader's lot
            state.apply_action(core.leader)
        to_env = state.encoding.to_env
        for child in path[1:]:
            par = int(t.parent[child])
            k = int(t.slot[child])
            if t.kind[par] == CHANCE:
                tile = int(core.boneyard[k])
                core.stack_next_draw(tile)
                core.apply(DRAW_ID)
                state.apply_action(tile)  # the draw's chance outcome
                continue
            action = int(t.actions[t.offset[t.infoset[par]] + k])
            state.apply_action(to_env[action])
            if action != DRAW_ID:
                core.apply(action)
        assert state.current_player() == core.current_player
        return state

    def read(self, policy: Any) -> F64:
        """``policy`` (an OpenSpiel ``Policy`` of the game) as the tree's policy array.

        Raises:
            ValueError: if it gives probability to an action that is not legal.
        """
        t = self.tree
        out = np.zeros(len(t.actions), np.float64)
        for s, state in enumerate(self.states):
            base, width = int(t.offset[s]), int(t.width[s])
            to_env = state.encoding.to_env
            index = {to_env[int(a)]: j for j, a in enumerate(t.actions[base : base + width])}
            for action, p in policy.action_probabilities(state).items():
                if p == 0:
                    continue
                if action not in index:
                    raise ValueError(f"probability {p} for action {action}, which is not legal")
                out[base + index[action]] = p
        return out
