"""The one match loop: seeding, seating and stepping, for ``allfives eval``, ``play`` and ``demo``.

**Seeding.** Chance and choice are seeded apart. Hand ``k`` of a match is dealt from its own
generator, seeded from ``(deal_seed, k)`` alone, and the agent at seat ``s`` draws from its own
generator, seeded from ``(agent_seed, s)``. No agent's choice can move a deal, so two matches
with one ``deal_seed`` get the same hand ``k`` (the same tiles to the same seats, the same
boneyard order, the same leader where it is drawn by lot) for as many hands as both last.

A *seed* given on the command line names match 0 of deal 0 (:func:`match_seeds`): ``allfives
demo --seed 5 --agents greedy random`` plays the very match that ``allfives eval greedy random
--seed 5`` plays first.

**Seating.** A *lineup* has one agent per side; in rotation ``r`` lineup entry ``i`` plays side
``(i + r) % k`` (:func:`seating`), every seat of that side.

**Stepping.** :class:`Match` deals, asks the agent to act for the seat to act, applies its
action, and deals the next hand, until the match is over (or ``max_hands`` hands). A
:class:`Watcher` sees every hand start, action and hand end (the terminal game and the demo
print from it).
"""

from __future__ import annotations

import hashlib
import os
import random
from collections.abc import Sequence
from dataclasses import dataclass

from agents.errors import AgentError
from agents.registry import check_plays, is_checkpoint, make_agent
from allfives_env.core.actions import Action
from allfives_env.core.deal import Deal
from allfives_env.core.events import ActionResult, HandResult
from allfives_env.core.game import Game
from allfives_env.core.player import Agent
from allfives_env.core.rules import Rules


class EvalError(AgentError):
    """A bad evaluation request: not one agent per seat, a lineup of the wrong size, a count
    that is not positive, rules an agent cannot play, an output file that cannot be written."""


@dataclass(frozen=True, slots=True)
class MatchResult:
    """One match as played.

    Attributes:
        scores: each side's final score.
        winners: the side(s) that won (several: a shared win).
        hands: hands dealt (the last one may have ended at the target, mid-hand).
        hand_points: per hand, the points each side scored in it (placements and award).
        moves: actions applied (placements, draws and passes).
        first_leader: the seat that led the first hand.
        deals: every hand's deal, if asked for (``keep_deals``); else empty.
    """

    scores: tuple[float, ...]
    winners: tuple[int, ...]
    hands: int
    hand_points: tuple[tuple[float, ...], ...]
    moves: int
    first_leader: int
    deals: tuple[Deal, ...] = ()


def derive_seed(*keys: object) -> int:
    """A 64-bit seed from ``keys`` (their ``str`` forms), the same in every process and run.

    >>> derive_seed(0, "deal", 3) == derive_seed(0, "deal", 3) != derive_seed(0, "deal", 4)
    True
    """
    text = "/".join(map(str, keys))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def match_seeds(seed: int, deal: int, match: int, *key: object) -> tuple[int, int]:
    """``(deal_seed, agent_seed)`` of match number ``match``, on deal number ``deal``, of an
    evaluation (or league pair ``key``) run with base ``seed``."""
    return derive_seed(seed, "deal", deal), derive_seed(seed, *key, "match", match)


def seating(rules: Rules, lineup: Sequence[str], rotation: int) -> tuple[str, ...]:
    """The spec of each seat when ``lineup`` (one spec per side) sits in ``rotation``.

    Lineup entry ``i`` plays side ``(i + rotation) % k``: every seat of that side.

    >>> seating(Rules.preset("pagat", 4), ["a", "b"], 1)
    ('b', 'a', 'b', 'a')
    >>> seating(Rules.preset("pagat", 3), ["a", "b", "c"], 1)
    ('c', 'a', 'b')
    """
    k = rules.num_sides
    return tuple(lineup[(rules.side_of(s) - rotation) % k] for s in range(rules.num_players))


_AGENTS: dict[tuple[str, int | None], Agent] = {}


def agent_of(spec: str) -> Agent:
    """The agent of ``spec``, made once per process (agents keep no state between calls).

    A checkpoint is made again when its file changes (a training run may overwrite it).

    Raises:
        UnknownAgentError: for a spec the registry does not know.
        CheckpointError: for a checkpoint that cannot be read.
    """
    stamp: int | None = None
    if is_checkpoint(spec):
        try:
            stamp = os.stat(spec).st_mtime_ns
        except OSError:
            stamp = None  # make_agent reports it
    key = (spec, stamp)
    agent = _AGENTS.get(key)
    if agent is None:
        agent = _AGENTS[key] = make_agent(spec)
    return agent


class Watcher:
    """Sees a match as it is played; every method does nothing unless overridden."""

    def hand_started(self, game: Game) -> None:
        """A hand has been dealt (``game.leader`` is to lead)."""

    def acting(self, game: Game, seat: int, action: Action) -> None:
        """``seat`` chose ``action``; it is about to be applied."""

    def acted(self, game: Game, result: ActionResult) -> None:
        """An action was applied."""

    def hand_ended(self, game: Game, hand: HandResult) -> None:
        """A hand ended (the match may be over: ``game.is_match_over``)."""


class Match:
    """One match between agents, one per seat, seeded as the module docstring says.

    Args:
        rules: the rules.
        agents: one agent per seat.
        deal_seed: seeds hand ``k``'s deal with ``(deal_seed, "hand", k)``.
        agent_seed: seeds seat ``s``'s generator with ``(agent_seed, "seat", s)``.
        watcher: sees every hand start, action and hand end.

    Attributes:
        game: the game, as far as it has been played (also after an agent raised).

    Raises:
        EvalError: if there is not one agent per seat.
        AgentError: for an agent that cannot play ``rules`` (a checkpoint trained for others),
            before anything is dealt or told to the watcher.
    """

    def __init__(
        self,
        rules: Rules,
        agents: Sequence[Agent],
        deal_seed: int,
        agent_seed: int,
        watcher: Watcher | None = None,
    ):
        n = rules.num_players
        if len(agents) != n:
            raise EvalError(f"{n} players need {n} agents, one per seat, not {len(agents)}")
        for agent in agents:
            check_plays(agent, rules)
        self.agents = tuple(agents)
        self.deal_seed = deal_seed
        self.rngs = [random.Random(derive_seed(agent_seed, "seat", s)) for s in range(n)]
        self.watcher = watcher if watcher is not None else Watcher()
        self.game = Game(rules, random.Random(derive_seed(deal_seed, "hand", 1)))
        self.first_leader = self.game.leader
        self.hand_points: list[tuple[float, ...]] = []
        self._before = self.game.scores
        self.moves = 0

    def play(self, max_hands: int | None = None) -> bool:
        """Play until the match is over, or ``max_hands`` hands have ended; return whether
        the match is over. Whatever an agent raises propagates (``game`` keeps the position).
        """
        game = self.game
        self.watcher.hand_started(game)
        while True:
            seat = game.current_player
            if seat is None:  # the hand is over
                if game.is_match_over:
                    return True
                if max_hands is not None and game.hand_number >= max_hands:
                    return False
                self.next_hand()
                continue
            self.apply(self.agents[seat].act(game.view(seat), self.rngs[seat]))

    def agent_action(self) -> Action:
        """What the agent of the seat to act chooses now (its own seeded generator)."""
        game = self.game
        seat = game.current_player
        if seat is None:
            raise EvalError("no seat is to act: the hand is over")
        return self.agents[seat].act(game.view(seat), self.rngs[seat])

    def apply(self, action: Action) -> ActionResult:
        """Apply the action of the seat to act, tell the watcher, and note a hand's points
        when it ends.

        Raises:
            IllegalActionError: for an action that is not legal now (the game is unchanged).
        """
        game = self.game
        seat = game.current_player
        if seat is not None:
            self.watcher.acting(game, seat, action)
        result = game.apply(action)
        self.moves += 1
        self.watcher.acted(game, result)
        if result.hand is not None:
            after = game.scores
            self.hand_points.append(tuple(a - b for a, b in zip(after, self._before, strict=True)))
            self._before = after
            self.watcher.hand_ended(game, result.hand)
        return result

    def next_hand(self) -> None:
        """Deal the next hand (seeded by the deal seed and its number) and tell the watcher.

        Raises:
            DealError: if the hand in play has not ended, or the match is over.
        """
        game = self.game
        game.deal(random.Random(derive_seed(self.deal_seed, "hand", game.hand_number + 1)))
        self.watcher.hand_started(game)

    def result(self, keep_deals: bool = False) -> MatchResult:
        """The finished match's result (``keep_deals``: with every hand's deal)."""
        game = self.game
        winners = game.winners
        if winners is None:
            raise EvalError("the match is not over")
        return MatchResult(
            scores=game.scores,
            winners=winners,
            hands=game.hand_number,
            hand_points=tuple(self.hand_points),
            moves=self.moves,
            first_leader=self.first_leader,
            deals=tuple(h.deal for h in game.hand_log) if keep_deals else (),
        )


def play_match(
    rules: Rules,
    agent_specs_by_seat: Sequence[str],
    deal_seed: int,
    agent_seed: int,
    *,
    keep_deals: bool = False,
) -> MatchResult:
    """Play one whole match between the agents the specs name, one per seat.

    Raises:
        EvalError: if there is not one spec per seat.
        UnknownAgentError: for a spec the registry does not know.
    """
    n = rules.num_players
    if len(agent_specs_by_seat) != n:
        raise EvalError(
            f"{n} players need {n} agents, one per seat, not {len(agent_specs_by_seat)}"
        )
    match = Match(rules, [agent_of(s) for s in agent_specs_by_seat], deal_seed, agent_seed)
    match.play()
    return match.result(keep_deals)
