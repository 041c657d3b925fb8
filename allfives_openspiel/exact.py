"""OpenSpiel policies measured by the exact solver: any ``open_spiel.python.policy.Policy`` of
the ``python_allfives`` game read into a policy array of the solver's tree
(:mod:`agents.exact`), so that OpenSpiel's own algorithms (CFR, CFR+, MCCFR, NFSP) are measured
exactly and fast, on the games the solver builds.

:class:`PolicyReader` finds, once per tree, an OpenSpiel state of each of the tree's information
states: it replays the path to the state's first node in the OpenSpiel game (each hand dealt
in ascending order, which OpenSpiel's information states do not see: a seat sees its deal as
a set; the leader's lot; each action; each draw's tile as the core game replays it). Reading a
policy is then one ``action_probabilities`` call per state.

On a game with many information states (the small game has a million), ``light=True`` keeps,
instead of each OpenSpiel state, only what a tabular policy reads from it
(:class:`InfoKey`: the player, the legal actions, the information-state string): OpenSpiel's
MCCFR average policies and ``TabularPolicy`` read through it unchanged, in a fraction of the
memory; a policy that reads anything else of the state (NFSP's network reads its tensor) fails
with ``AttributeError``.
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


class InfoKey:
    """What a tabular policy reads of an OpenSpiel state: its player, legal actions and
    information-state string (for that player), with the methods of ``pyspiel.State`` that
    return them."""

    __slots__ = ("_key", "_legal", "_player")

    def __init__(self, state: Any):
        self._player: int = state.current_player()
        self._legal: list[int] = state.legal_actions()
        self._key: str = state.information_state_string(self._player)

    def current_player(self) -> int:
        return self._player

    def legal_actions(self, player: int | None = None) -> list[int]:
        return self._legal

    def information_state_string(self, player: int | None = None) -> str:
        if player is not None and player != self._player:
            raise ValueError(f"only player {self._player}'s information state is kept")
        return self._key


class PolicyReader:
    """Reads OpenSpiel policies of :func:`game_for` into the tree's policy arrays.

    ``light``: keep an :class:`InfoKey` of each information state, not the state (see the
    module's note)."""

    def __init__(self, tree: Tree, game: pyspiel.Game | None = None, *, light: bool = False):
        self.tree = tree
        self.game = game if game is not None else game_for(tree)
        all_deals = deals(tree.rules)
        self.states: list[Any] = []
        self.index: list[dict[int, int]] = []
        """Per information state: each legal action's OpenSpiel id → its slot in the tree."""
        for s, node in enumerate(homes(tree)):
            state = self._state_at(int(node), all_deals)
            to_env = state.encoding.to_env
            base, width = int(tree.offset[s]), int(tree.width[s])
            acts = tree.actions[base : base + width]
            self.index.append({to_env[int(a)]: j for j, a in enumerate(acts)})
            self.states.append(InfoKey(state) if light else state)

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
            base, index = int(t.offset[s]), self.index[s]
            for action, p in policy.action_probabilities(state).items():
                if p == 0:
                    continue
                if action not in index:
                    raise ValueError(f"probability {p} for action {action}, which is not legal")
                out[base + index[action]] = p
        return out
