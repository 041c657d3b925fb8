"""The OpenSpiel state of All Fives: chance (the deal, the lot, each draw's tile), the seats'
moves through the engine, rewards, what each seat has seen, and worlds resampled for search.

The game, its parameters and its chance nodes are described in :mod:`allfives_openspiel.game`.
pyspiel asks a state several times per move whose turn it is and what is legal, and copies
it attribute by attribute (``clone()`` deep-copies its ``__dict__``): the state caches both
answers, keeps few attributes, and shares whatever never changes (the rules, the encoding,
the game's :class:`Table`, :class:`Seen`).
"""

from __future__ import annotations

import numbers
import operator
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import pyspiel

from agents.sampler import sample_world
from allfives_env.core.actions import DRAW_ID
from allfives_env.core.deal import Deal, PreviousHand, leader_choice
from allfives_env.core.events import ActionResult, Event, HandResult
from allfives_env.core.game import Game
from allfives_env.core.rules import Rules
from allfives_env.core.tiles import MAX_PIP, NUM_TILES, TILES
from allfives_env.core.view import PlayerView
from allfives_env.envs.spaces import Encoding

CHANCE = int(pyspiel.PlayerId.CHANCE)
TERMINAL = int(pyspiel.PlayerId.TERMINAL)


class Ints(tuple[int, ...]):
    """A tuple of ints that a deep copy shares (a tuple is never changed, but
    ``copy.deepcopy`` would still visit every item of one, on every ``clone()``)."""

    __slots__ = ()

    def __deepcopy__(self, memo: dict[int, object]) -> Ints:
        return self


class Floats(tuple[float, ...]):
    """A tuple of floats that a deep copy shares (see :class:`Ints`)."""

    __slots__ = ()

    def __deepcopy__(self, memo: dict[int, object]) -> Floats:
        return self


@dataclass(frozen=True, slots=True)
class Table:
    """A game's constants that its states read on their hot paths (shared, never copied).

    Attributes:
        sides: each seat's side (score index).
        num_sides: the sides.
        hand_size: tiles dealt to each seat.
        max_hands: hands an episode lasts at most (1 for ``episode=hand``).
        match: whether an episode is a match (``episode=match``).
        terminal_rewards: whether rewards are paid only at the end (``rewards=terminal``).
        zero: a reward of zero for every seat.
        same_ids: whether the game's action ids are the engine's (16 slots: every double a
            spinner, and the double-six set).
        tiles: the set's tile ids, ascending (the 28 of double-six): what a deal deals.
    """

    sides: tuple[int, ...]
    num_sides: int
    hand_size: int
    max_hands: int
    match: bool
    terminal_rewards: bool
    zero: Floats
    same_ids: bool
    tiles: tuple[int, ...]

    def __deepcopy__(self, memo: dict[int, object]) -> Table:
        """Itself (it is never changed)."""
        return self


class GameParts(Protocol):
    """What a state and its observers read of their game
    (:class:`~allfives_openspiel.game.AllFivesGame` has it all)."""

    rules: Rules
    encoding: Encoding
    table: Table


_OUTCOMES = [[(t, 1.0 / n if n else 0.0) for t in range(NUM_TILES)] for n in range(NUM_TILES + 1)]
"""``_OUTCOMES[n][t]``: outcome ``t`` of ``n`` equally likely ones (prebuilt: the deal asks
for a list of them at every tile)."""

Private = tuple[str, int, tuple[int, ...]]
"""One entry of a seat's private history: ``("dealt", hand, tiles)``, ``("drew", hand,
(tile,))``, or in a resampled world ``("holds", hand, tiles)`` (the world's hand of another
seat, all that seat has seen of its own tiles there)."""


@dataclass(frozen=True, slots=True)
class Seen:
    """What the seats have seen that a world's engine does not keep (its log starts at the
    position it was built from): immutable, so a clone shares it and a change replaces it.

    Attributes:
        hands: hands dealt so far in the episode (the current or last hand's number).
        prev: how the last finished hand ended (who leads the next), ``None`` before.
        last: the last finished hand's result (its pips were shown to every seat).
        past: each finished hand: its number, its public moves and its result (how it
            ended, the pips shown, the award).
        private: per seat, its private history over the episode, in order (:data:`Private`).
    """

    hands: int
    prev: PreviousHand | None
    last: HandResult | None
    past: tuple[tuple[int, tuple[Event, ...], HandResult], ...]
    private: tuple[tuple[Private, ...], ...]

    def __deepcopy__(self, memo: dict[int, object]) -> Seen:
        """Itself (it is never changed)."""
        return self

    def dealt(self, hands: list[list[int]], draws: Ints) -> Seen:
        """After the last hand's ``draws`` (:attr:`AllFivesState.draws`), the next hand is
        dealt ``hands``."""
        k = self.hands + 1
        private = tuple(
            (*p, *_drew(self.hands, draws, seat), ("dealt", k, tuple(sorted(h))))
            for seat, (p, h) in enumerate(zip(self.private, hands, strict=True))
        )
        return Seen(k, self.prev, self.last, self.past, private)

    def ended(self, events: tuple[Event, ...], result: HandResult) -> Seen:
        """After the current hand's ``events`` ended it with ``result``."""
        prev = PreviousHand(result.domino_seat, result.winner)
        past = (*self.past, (self.hands, events, result))
        return Seen(self.hands, prev, result, past, self.private)


def _drew(hand: int, draws: Ints, seat: int) -> list[Private]:
    """``seat``'s entries for its ``draws`` (codes ``seat · 32 + tile``) in hand ``hand``."""
    return [("drew", hand, (code & 31,)) for code in draws if code >> 5 == seat]


class AllFivesState(pyspiel.State):  # type: ignore[misc]
    """A position: dealing (chance), playing (the engine), drawing (chance), or over.

    ``engine`` is the match's :class:`Game` (``None`` until the first hand is dealt; a
    :meth:`resample_from_infostate` world's engine starts at the position it was sampled in).
    ``seen`` (:class:`Seen`) keeps the hand count, the finished hands and the seats' private
    histories.
    """

    def __init__(self, game: GameParts):
        super().__init__(game)
        self.rules = game.rules
        self.encoding = game.encoding
        self.table = t = game.table
        self.engine: Game | None = None
        self.dealt: list[list[int]] | None = [[] for _ in t.sides]  # the deal in progress
        # what chance may bring next, ascending: the tiles left to deal during a deal (a list,
        # as the deal takes them one by one), then the boneyard's
        self.pool: list[int] | Ints = list(t.tiles)
        self.deal_seat = 0  # the seat whose tiles are being dealt
        self.lot = Ints()  # seats a lot chooses among, when one is pending
        self.drawing = False  # a draw action awaits its chance node
        self.draws = Ints()  # this hand's draws, in order, as seat · 32 + tile
        self.seen = Seen(0, None, None, (), ((),) * len(t.sides))
        self.returns_ = self.rewards_ = t.zero
        self.to_act = CHANCE  # cached: pyspiel asks several times per move
        self.legal: Ints | None = None  # cached legal actions of the seat to act

    @classmethod
    def from_world(cls, game: GameParts, world: Game, hand_number: int = 1) -> AllFivesState:
        """A state at ``world``'s position, a fresh history from there (for a search from one
        seat's view: ``world`` is :meth:`Game.from_view`'s), numbered hand ``hand_number``."""
        state = cls(game)
        state.engine = world
        state.dealt = None
        state.pool = Ints(sorted(map(int, world.boneyard)))
        state.seen = Seen(hand_number, None, None, (), state.seen.private)
        state.to_act = state._whose_turn()
        return state

    # ------------------------------------------------------------------ whose turn

    def current_player(self) -> int:
        """The seat to act, ``CHANCE`` or ``TERMINAL``."""
        return self.to_act

    def _whose_turn(self) -> int:
        if self.dealt is not None or self.lot or self.drawing:
            return CHANCE
        g = self.engine
        assert g is not None
        seat = g.current_player
        if seat is not None:
            return seat
        if g.is_match_over or self.seen.hands >= self.table.max_hands:
            return TERMINAL
        return CHANCE  # the next hand is to be dealt

    def is_terminal(self) -> bool:
        """Whether the episode is over."""
        return self.to_act == TERMINAL

    def is_chance_node(self) -> bool:
        """Whether chance moves next (pyspiel's own answer, without the trip through C++)."""
        return self.to_act == CHANCE

    def legal_actions(self, player: int | None = None) -> list[int]:
        """The legal actions of ``player`` (default: whoever moves), ascending: pyspiel's own
        answer (chance outcomes at a chance node, none at the end or for a seat not to act),
        from the cache, without the trip through C++."""
        to_act = self.to_act
        if player is None or player == to_act:
            if to_act >= 0:
                legal = self.legal
                if legal is None:
                    legal = self._legal_actions(to_act)
                return list(legal)
            if to_act == CHANCE:
                return [a for a, _ in self.chance_outcomes()]
        return []

    def _legal_actions(self, player: int) -> Ints:
        legal = self.legal
        if legal is None:
            g = self.engine
            assert g is not None and player == g.current_player
            if self.table.same_ids:
                legal = self.legal = Ints(g.legal_actions())
            else:
                to_env = self.encoding.to_env  # increasing, so the ids stay sorted
                legal = self.legal = Ints([to_env[a] for a in g.legal_actions()])
        return legal

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The chance outcomes and their probabilities: a tile to deal or draw, or a seat.

        Raises:
            pyspiel.SpielError: if this is not a chance node.
        """
        if self.to_act != CHANCE:
            raise pyspiel.SpielError(f"chance_outcomes() at a node of player {self.to_act}")
        if self.lot:
            pool: Sequence[int] = self.lot
        elif self.drawing or self.dealt is not None:
            pool = self.pool
        else:  # the next hand's deal
            pool = self.table.tiles
        row = _OUTCOMES[len(pool)]
        return [row[t] for t in pool]

    # ------------------------------------------------------------------ moves

    def _apply_action(self, action: int) -> None:
        """pyspiel's ``apply_action``: a seat's move, or chance's outcome at a chance node.

        Raises:
            pyspiel.SpielError: for an action that is not legal here: any at a terminal
                state, a seat's action that is not in its legal actions, an outcome chance
                cannot bring (a tile dealt or drawn already, a seat outside the lot); the
                state is unchanged.
        """
        to_act = self.to_act
        if to_act >= 0:  # a seat's move (the hot path: kept flat)
            legal = self.legal if self.legal is not None else self._legal_actions(to_act)
            if action not in legal:
                raise self._illegal(action)
            self.legal = None
            self.rewards_ = self.table.zero
            engine_action = self.encoding.to_engine[action]
            if engine_action == DRAW_ID:
                self.drawing = True  # the tile is chance's
                self.to_act = CHANCE
                return
            g = self.engine
            assert g is not None
            result = g.apply(engine_action)
            if result.points or result.hand is not None:
                self._scored(result)
            seat = g.current_player
            self.to_act = seat if seat is not None else self._whose_turn()
        elif to_act == TERMINAL:
            raise pyspiel.SpielError(
                f"apply_action({action}) at a terminal state: the episode is over"
            )
        elif self.dealt is not None and not self.lot:
            self._deal(action)
        elif self.lot:
            if action not in self.lot:
                raise pyspiel.SpielError(f"no seat {action} in the lot {self.lot}")
            self.lot = Ints()
            self._start_hand(action)
        elif self.drawing:  # what chance brings adds to the last move's rewards
            g = self.engine
            assert g is not None
            drawer = g.current_player
            assert drawer is not None
            pool = self.pool
            if action not in pool:
                raise pyspiel.SpielError(f"tile {action} is not in the boneyard")
            i = pool.index(action)
            self.pool = Ints(pool[:i] + pool[i + 1 :])  # type: ignore[operator]
            g.stack_next_draw(action)
            self.draws = Ints((*self.draws, drawer << 5 | action))
            self.drawing = False
            result = g.apply(DRAW_ID)
            if result.hand is not None:  # the draw blocked the hand (a draw scores nothing)
                self._scored(result)
            seat = g.current_player
            self.to_act = seat if seat is not None else self._whose_turn()
        else:  # the first tile of the next hand
            if not (0 <= action < NUM_TILES and self.rules.tile_mask >> action & 1):
                raise pyspiel.SpielError(f"tile {action} is not left to deal")
            self.dealt = [[] for _ in self.table.sides]
            self.pool = list(self.table.tiles)
            self.deal_seat = 0
            self._deal(action)

    def _illegal(self, action: int) -> pyspiel.SpielError:
        """The error for a seat's ``action`` that is not legal now."""
        g = self.engine
        assert g is not None
        to_engine = self.encoding.to_engine
        why = g.why_illegal(to_engine[action]) if 0 <= action < len(to_engine) else None
        return pyspiel.SpielError(
            f"illegal action {action} for seat {g.current_player}: {why or 'no such id'}"
        )

    def _deal(self, tile: int) -> None:
        """Deal ``tile`` to the seat whose hand is being dealt; start the hand after the last."""
        dealt = self.dealt
        assert dealt is not None
        try:
            self.pool.remove(tile)  # type: ignore[union-attr]  # a list during the deal
        except ValueError:
            raise pyspiel.SpielError(f"tile {tile} is not left to deal") from None
        hand = dealt[self.deal_seat]
        hand.append(tile)
        if len(hand) == self.table.hand_size:
            self.deal_seat += 1
            if self.deal_seat == len(dealt):
                choice = leader_choice(self.rules, self.seen.prev, dealt)
                if choice.by_lot:
                    self.lot = Ints(choice.seats)
                else:
                    self._start_hand(choice.seats[0])

    def _start_hand(self, leader: int) -> None:
        dealt = self.dealt
        assert dealt is not None
        tile = TILES.__getitem__
        hands = tuple([tuple(map(tile, sorted(h))) for h in dealt])
        deal = Deal(hands, tuple(map(tile, self.pool)), leader)
        if self.engine is None:
            self.engine = Game(self.rules, deal=deal)
        else:
            self.engine.deal(deal=deal)
        self.seen = self.seen.dealt(dealt, self.draws)
        self.draws = Ints()
        self.dealt = None
        self.pool = Ints(self.pool)
        self.to_act = self._whose_turn()

    def _scored(self, result: ActionResult) -> None:
        """Pay what ``result`` scored (zero-sum), and note the end of a hand."""
        hand = result.hand
        t = self.table
        sides = t.sides
        if hand is None:  # a placement scored: the placer's side gains, the mean is paid back
            side = sides[result.player]
            points = result.points
            mean = points / t.num_sides
            got = [points - mean if s == side else -mean for s in sides]
        else:
            award = list(hand.award)
            award[sides[result.player]] += result.points
            mean = sum(award) / t.num_sides
            got = [award[s] - mean for s in sides]
        if any(got):
            self.rewards_ = Floats([a + b for a, b in zip(self.rewards_, got, strict=True)])
            self.returns_ = Floats([a + b for a, b in zip(self.returns_, got, strict=True)])
        if hand is not None:
            assert self.engine is not None
            self.seen = self.seen.ended(tuple(self.engine.events), hand)

    # ------------------------------------------------------------------ outcomes

    def rewards(self) -> list[float]:
        """What each player received for the last player action and the chance events after
        it (``rewards=step``; a draw that blocks the hand scores), or at the end the whole
        return (``rewards=terminal``; zero before)."""
        if self.table.terminal_rewards:
            return list(self.returns_ if self.to_act == TERMINAL else self.table.zero)
        return list(self.rewards_)

    def returns(self) -> list[float]:
        """Each player's return so far (``rewards=terminal``: zero until the end)."""
        if self.table.terminal_rewards and self.to_act != TERMINAL:
            return list(self.table.zero)
        return list(self.returns_)

    def scores(self) -> tuple[float, ...]:
        """Each side's score, as the engine keeps it (all zero before the first deal)."""
        if self.engine is None:
            return (0,) * self.table.num_sides
        return self.engine.scores

    def check_seat(self, seat: object) -> int:
        """``seat`` as one of the game's seats (NumPy integers too).

        Raises:
            pyspiel.SpielError: for anything else (a negative seat does not count from the end).
        """
        n = len(self.table.sides)
        try:
            s = -1 if isinstance(seat, bool) else operator.index(seat)  # type: ignore[arg-type]
        except TypeError:
            s = -1
        if not 0 <= s < n:
            raise pyspiel.SpielError(f"no seat {seat!r} in a {n}-player game")
        return s

    def private_history(self, seat: int) -> tuple[Private, ...]:
        """``seat``'s private history over the episode, in order (:data:`Private`).

        Raises:
            pyspiel.SpielError: if ``seat`` is not one of the game's.
        """
        seat = self.check_seat(seat)
        return (*self.seen.private[seat], *_drew(self.seen.hands, self.draws, seat))

    def drew(self, seat: int) -> list[int]:
        """The tiles ``seat`` drew this hand, in order.

        Raises:
            pyspiel.SpielError: if ``seat`` is not one of the game's.
        """
        seat = self.check_seat(seat)
        return [code & 31 for code in self.draws if code >> 5 == seat]

    def view(self, player: int) -> PlayerView | None:
        """``player``'s view of the engine, once a hand has been dealt.

        Raises:
            pyspiel.SpielError: if ``player`` is not one of the game's seats.
        """
        player = self.check_seat(player)
        return None if self.engine is None else self.engine.view(player)

    # ------------------------------------------------------------------ resampling

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> AllFivesState:
        """A state that ``player_id`` cannot tell from this one, the hidden tiles dealt anew.

        Every tile the seat cannot see (the other hands and the boneyard, or the tiles dealt
        to the others so far during a deal) is dealt at random among the places that hide
        it, honouring every public fact the engine keeps (hand sizes, known voids, a named
        lead: :func:`agents.sampler.sample_world`, uniform among such worlds); the randomness
        comes from ``probability_sampler`` (OpenSpiel's: a callable returning a float in
        ``[0, 1)``; one call seeds the world). The seat's observations and information state
        (strings and tensors) are this state's; each other seat's private history becomes
        its world hand. A world is not checked against the order of the others' past draws,
        which the engine's public facts summarize (a rare world may be one that no whole
        history leads to: the determinization prior of the project's search agents).

        The world is a fresh history from this position (``history()`` is empty: OpenSpiel
        could not replay one), for search, not for serialization.

        Raises:
            pyspiel.SpielError: if ``player_id`` is not a seat, or ``probability_sampler``
                returns anything but a float in ``[0, 1)``.
        """
        n = len(self.table.sides)
        player_id = self.check_seat(player_id)
        drawn = probability_sampler()
        u = (
            float(drawn)
            if isinstance(drawn, numbers.Real) and not isinstance(drawn, bool)
            else -1.0
        )
        if not 0.0 <= u < 1.0:  # (NaN fails too)
            raise pyspiel.SpielError(
                f"probability_sampler() must return a float in [0, 1), not {drawn!r}"
            )
        rng = random.Random(int(u * 2**52))
        world = AllFivesState(self.get_game())
        world.lot, world.drawing, world.to_act = self.lot, self.drawing, self.to_act
        world.draws = Ints(code for code in self.draws if code >> 5 == player_id)
        world.returns_, world.rewards_ = self.returns_, self.rewards_
        seen = self.seen
        private: list[tuple[Private, ...]] = [()] * n
        private[player_id] = seen.private[player_id]
        if self.engine is not None:
            view = self.engine.view(player_id)
            hands, boneyard = sample_world(self._facts(view), rng)
            world.engine = Game.from_view(view, hands, boneyard)
            world.pool = Ints(sorted(map(int, boneyard)))
            if view.current_player is not None:  # a hand in play
                for seat, tiles in hands.items():
                    private[seat] = (("holds", seen.hands, tuple(map(int, tiles))),)
        if self.dealt is None:
            world.dealt = None
        else:  # the tiles dealt to the others so far, dealt anew
            mine = self.dealt[player_id]
            rest = [t for t in self.table.tiles if t not in mine]
            rng.shuffle(rest)
            world.dealt = []
            for seat, dealt in enumerate(self.dealt):
                if seat == player_id:
                    world.dealt.append(mine[:])
                else:
                    world.dealt.append(rest[: len(dealt)])
                    rest = rest[len(dealt) :]
            world.pool = sorted(rest)  # a list: the deal goes on
            world.deal_seat = self.deal_seat
        world.seen = Seen(seen.hands, seen.prev, seen.last, seen.past, tuple(private))
        return world

    def _facts(self, view: PlayerView) -> PlayerView:
        """``view`` with the one public fact the engine has not recorded yet: while a forced
        draw awaits its tile, the drawer holds no tile that fits (his void in the open values
        is noted once the draw is applied)."""
        drawer = view.current_player
        if not self.drawing or self.rules.draw_when_able or drawer in (None, view.seat):
            return view
        voids = list(view.known_voids)
        voids[drawer] |= view.layout.open_bits
        return replace(view, known_voids=tuple(voids))

    # ------------------------------------------------------------------ text

    def _action_to_string(self, player: int, action: int) -> str:
        """pyspiel's ``action_to_string``: a seat's action in the project's notation, or a
        chance outcome (a tile dealt or drawn, a seat the lot picks).

        Raises:
            pyspiel.SpielError: for an id that is no action of the game (a tile id outside
                the set, 0-27 for double-six, at a chance node), rather than the text of
                another.
        """
        if player == CHANCE:
            if self.lot:
                if not 0 <= action < len(self.table.sides):
                    raise pyspiel.SpielError(f"no seat {action} to draw by lot")
                return f"lot: seat {action}"
            if not (0 <= action < NUM_TILES and self.rules.tile_mask >> action & 1):
                pips = self.rules.max_pip
                ids = "0-27" if pips == MAX_PIP else f"an id of the double-{pips} set"
                raise pyspiel.SpielError(f"chance outcome {action} is not a tile ({ids})")
            if self.drawing:
                seat = self.engine.current_player if self.engine is not None else "?"
                return f"seat {seat} draws {TILES[action]}"
            return f"deal {TILES[action]} to seat {self.deal_seat if self.dealt else 0}"
        if not 0 <= action < self.encoding.num_actions:
            raise pyspiel.SpielError(
                f"action {action} is not an action id (0-{self.encoding.num_actions - 1})"
            )
        return self.encoding.action_name(action)

    def __str__(self) -> str:
        if self.engine is None or self.dealt is not None:
            sizes = [len(h) for h in self.dealt or ()]
            before = "" if self.engine is None else f"{self.engine}\n"
            return f"{before}dealing hand {self.seen.hands + 1}: {sizes} tiles dealt"
        return str(self.engine)
