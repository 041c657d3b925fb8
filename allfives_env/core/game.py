"""The game: turns, draws, passes, scoring, hand ends and the match (RULES.md §1–2).

:class:`Game` holds a whole match. It decides whose turn it is, which actions are legal, and when
a hand or the match ends; callers (the environment, agents, records) only read it and apply
actions. Between hands it waits for :meth:`Game.deal`.

>>> import random
>>> g = Game(Rules.preset("pagat", 2), deal=Deal.of(
...     [["6-4", "6-3", "1-5", "1-0", "2-6", "0-0", "3-3", "4-4", "5-5"],
...      ["4-1", "1-1", "1-2", "2-2", "0-2", "2-3", "2-4", "2-5", "0-6"]],
...     ["0-3", "0-4", "0-5", "1-3", "1-6", "3-4", "3-5", "4-5", "5-6", "6-6"], leader=0))
>>> g.apply("6-4").points, g.apply("4-1 E").points, g.apply("6-3 W").points
(10, 0, 0)
>>> g.apply("1-1 E").points, g.legal_actions()
(5, [Action('0-1 E'), Action('1-5 E'), Action('3-3 W')])
"""

from __future__ import annotations

import math
import operator
import random
from collections.abc import Mapping, Sequence

from allfives_env.core.actions import ACTIONS, DRAW_ID, MAX_SLOTS, PASS_ID, Action, slot_name
from allfives_env.core.deal import (
    Deal,
    LeaderChoice,
    PreviousHand,
    check_deal,
    leader_choice,
    random_deal,
)
from allfives_env.core.errors import (
    ArgumentError,
    DealError,
    IllegalActionError,
    NotationError,
    RulesError,
)
from allfives_env.core.events import ActionResult, Event, HandEnd, HandLog, HandResult, Phase
from allfives_env.core.layout import Layout
from allfives_env.core.render import describe_game, render_game
from allfives_env.core.rules import Rules
from allfives_env.core.scoring import admitted, count_points, hand_award, reaches_target
from allfives_env.core.seeds import check_seed
from allfives_env.core.tiles import (
    HIGH,
    IS_DOUBLE,
    LOW,
    NUM_TILES,
    PIPS,
    TILE_VALUE_BITS,
    TILES,
    Tile,
    mask_of,
    tiles_of,
)
from allfives_env.core.view import PlayerView

# the phases as module constants: the hot paths compare against them
_LEAD, _PLAY, _DRAWN = Phase.LEAD, Phase.PLAY, Phase.DRAWN
_HAND_OVER, _MATCH_OVER = Phase.HAND_OVER, Phase.MATCH_OVER
_INT_TYPES = (Action, int)


def _num(x: float) -> float:
    """Keep whole scores as ints (half points exist only under one tie rule)."""
    return int(x) if isinstance(x, float) and x.is_integer() else x


def check_scores(rules: Rules, scores: Sequence[float]) -> None:
    """Check starting scores: one number per side, each below the target.

    Raises:
        RulesError: otherwise.
    """
    if len(scores) != rules.num_sides or not all(
        isinstance(x, int | float)
        and not isinstance(x, bool)
        and math.isfinite(x)
        and x < rules.target
        for x in scores
    ):
        raise RulesError(
            f"scores must be {rules.num_sides} numbers below the target {rules.target}, "
            f"not {list(scores)!r}"
        )


class Game:
    """A match of All Fives under some :class:`Rules`.

    Args:
        rules: a :class:`Rules`, or a preset name (2 players).
        rng: a ``random.Random`` that deals the first hand (and draws its leader by lot).
            Deal every hand of a match from one generator: ``game.deal(rng)``.
        deal: or an explicit first deal.
        scores: the sides' scores to start from (default all 0), e.g. to set up an endgame.

    Seats are ``int`` (NumPy integers too) from 0 to ``num_players - 1``; actions are an
    :class:`Action`, its ``int`` id (NumPy integers too) or its text (``"4-1 E"``; a lead is the
    bare tile ``"6-4"``, see :meth:`notation`).

    Raises:
        ArgumentError: if ``rules`` is not a :class:`Rules` or a preset name, or ``rng`` is not
            a ``random.Random`` (an int seed is refused: ``random.Random(seed)`` is one).
        DealError: if neither or both of ``rng`` and ``deal`` are given, or ``deal`` is not
            legal under the rules.
        RulesError: for an unknown preset name, or ``scores`` of the wrong length or at or
            past the target.
    """

    __slots__ = (
        "_bone",
        "_bpos",
        "_cur",
        "_drawn",
        "_drew",
        "_dwa",
        "_forced_lead",
        "_hands",
        "_legal",
        "_log",
        "_n",
        "_phase",
        "_pips",
        "_played",
        "_prev",
        "_scores",
        "_side",
        "_sizes",
        "_start",
        "_stop",
        "_turn_draws",
        "_unit",
        "_void_pending",
        "_voids",
        "_winners",
        "layout",
        "rules",
    )  # fmt: skip

    def __init__(
        self,
        rules: Rules | str = "pagat",
        rng: random.Random | None = None,
        *,
        deal: Deal | None = None,
        scores: Sequence[float] | None = None,
    ):
        if isinstance(rules, str):
            rules = Rules.preset(rules)
        elif not isinstance(rules, Rules):
            raise ArgumentError(f"rules must be a Rules or a preset name, not {rules!r}")
        if scores is not None:
            check_scores(rules, scores)
        self._init_rules(rules)
        self._scores: list[float] = list(scores) if scores is not None else [0] * rules.num_sides
        self._start = tuple(self._scores)
        self._log: list[HandLog] = []
        self._winners: tuple[int, ...] | None = None
        self._prev: PreviousHand | None = None
        self._phase = _HAND_OVER
        self.deal(rng, deal=deal)

    def _init_rules(self, rules: Rules) -> None:
        """Cache the rules' fields the hot paths read."""
        self.rules = rules
        self._n = rules.num_players
        self._side = [rules.side_of(s) for s in range(self._n)]
        self._unit = rules.unit
        self._stop = rules.stop_tiles
        self._dwa = rules.draw_when_able

    # ================================================================ hands

    def deal(self, rng: random.Random | None = None, *, deal: Deal | None = None) -> Deal:
        """Start the next hand, dealt from ``rng`` or as ``deal``; return the deal.

        Raises:
            ArgumentError: if ``rng`` is not a ``random.Random`` or ``deal`` not a :class:`Deal`.
            DealError: if the hand in play has not ended, the match is over, neither or both
                of ``rng`` and ``deal`` are given, or ``deal`` is not legal under the rules.
        """
        if rng is not None and not isinstance(rng, random.Random):
            raise ArgumentError(f"rng must be a random.Random (e.g. random.Random(7)), not {rng!r}")
        if deal is not None and not isinstance(deal, Deal):
            raise ArgumentError(f"deal must be a Deal, not {deal!r}")
        if self._phase == _MATCH_OVER:
            raise DealError("the match is over; no more hands are dealt")
        if self._phase != _HAND_OVER:
            raise DealError("the hand in play has not ended")
        if (rng is None) == (deal is None):
            raise DealError("deal from exactly one of: a seeded rng, an explicit deal")
        if deal is None:
            assert rng is not None
            deal = random_deal(self.rules, rng, self._prev)
        leader = check_deal(self.rules, deal, self._prev)
        choice = leader_choice(self.rules, self._prev, deal.hands)
        r = self.rules
        self.layout = Layout(r.spinners == "every", r.branches == "at_once")
        self._hands = [mask_of(h) for h in deal.hands]
        self._pips = [sum(PIPS[t] for t in h) for h in deal.hands]
        self._sizes = [len(h) for h in deal.hands]
        self._bone = [int(t) for t in deal.boneyard]
        self._bpos = 0
        self._cur = leader
        self._phase = _LEAD
        self._drawn = -1
        self._turn_draws = 0
        self._void_pending = 0
        self._forced_lead = choice.tile if choice.tile is not None else -1
        self._voids = [0] * self._n
        self._played = [0] * self._n
        self._drew: list[list[int]] = [[] for _ in range(self._n)]
        self._legal: tuple[Action, ...] | None = None
        self._log.append(HandLog(deal, leader, choice.by_lot, []))
        return deal

    # ================================================================ queries

    @property
    def phase(self) -> Phase:
        """Where the game stands (see :class:`Phase`)."""
        return self._phase

    @property
    def current_player(self) -> int | None:
        """The seat to act, or ``None`` between hands and after the match."""
        return self._cur if self._phase < _HAND_OVER else None

    @property
    def is_hand_over(self) -> bool:
        """Whether no hand is in play (between hands, or the match is over)."""
        return self._phase >= _HAND_OVER

    @property
    def is_match_over(self) -> bool:
        """Whether a side has won the match."""
        return self._phase == _MATCH_OVER

    @property
    def winners(self) -> tuple[int, ...] | None:
        """The side(s) that won the match (several only for a shared win), or ``None``."""
        return self._winners

    @property
    def start_scores(self) -> tuple[float, ...]:
        """The sides' scores when the match began (all 0 unless given; a record keeps them)."""
        return self._start

    @property
    def scores(self) -> tuple[float, ...]:
        """The score of each side (side 0 = seats 0+2 in partnerships)."""
        return tuple(self._scores)

    @property
    def hand_number(self) -> int:
        """The current (or last) hand, counted from 1."""
        return len(self._log)

    @property
    def leader(self) -> int:
        """The seat that led (or leads) the current hand."""
        return self._log[-1].leader

    @property
    def hand_log(self) -> list[HandLog]:
        """Every hand dealt so far, in order (deals included: not for players' eyes)."""
        return self._log

    @property
    def events(self) -> list[Event]:
        """The public events of the current hand."""
        return self._log[-1].events

    @property
    def hand_results(self) -> list[HandResult]:
        """The results of the finished hands."""
        return [h.result for h in self._log if h.result is not None]

    def _seat(self, seat: int) -> int:
        """``seat`` as an ``int``, checked.

        Raises:
            ArgumentError: if it is not a seat of this game.
        """
        if type(seat) is int and 0 <= seat < self._n:
            return seat
        try:
            s = operator.index(seat) if type(seat) is not bool else -1
        except TypeError:
            s = -1
        if not 0 <= s < self._n:
            raise ArgumentError(f"no seat {seat!r} in a {self._n}-player game")
        return s

    def hand(self, seat: int) -> list[Tile]:
        """The tiles in ``seat``'s hand (hidden from the other players).

        Raises:
            ArgumentError: if ``seat`` is not a seat of this game (so for every seat method).
        """
        return tiles_of(self._hands[self._seat(seat)])

    def played_mask(self, seat: int) -> int:
        """The tiles ``seat`` has placed this hand, as a tile mask (public)."""
        return self._played[self._seat(seat)]

    def hand_mask(self, seat: int) -> int:
        """``seat``'s hand as a tile mask."""
        return self._hands[self._seat(seat)]

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        """Tiles in each seat's hand."""
        return tuple(self._sizes)

    def pips(self, seat: int) -> int:
        """The pips in ``seat``'s hand."""
        return self._pips[self._seat(seat)]

    @property
    def played_masks(self) -> tuple[int, ...]:
        """Each seat's placed tiles this hand, as tile masks (public)."""
        return tuple(self._played)

    @property
    def void_sets(self) -> tuple[int, ...]:
        """Each seat's known voids as 7-bit value sets (public; see :meth:`void_bits`)."""
        return tuple(self._voids)

    @property
    def boneyard_size(self) -> int:
        """Tiles left in the boneyard (the stop tile included)."""
        return len(self._bone) - self._bpos

    @property
    def boneyard(self) -> list[Tile]:
        """The boneyard in draw order (hidden from every player)."""
        return [TILES[t] for t in self._bone[self._bpos :]]

    def stack_next_draw(self, tile: int | str) -> None:
        """Put ``tile`` on top of the boneyard, so that the next draw takes it.

        For games whose draws are chance events (the OpenSpiel game): the boneyard's order is
        decided as it is drawn. Only the undrawn part moves, which no player has seen, and the
        hand's logged deal takes the new order, so the record still replays the hand.

        Raises:
            DealError: if ``tile`` is not in the boneyard, or no hand is in play.
            NotationError: if ``tile`` is not a tile.
        """
        t = Tile.parse(tile) if isinstance(tile, str) else tile
        if not isinstance(t, int) or not 0 <= t < NUM_TILES:
            raise DealError(f"not a tile: {tile!r}")
        if self._phase >= _HAND_OVER:
            raise DealError("no hand is in play")
        try:
            i = self._bone.index(int(t), self._bpos)
        except ValueError:
            raise DealError(f"{TILES[t]} is not in the boneyard") from None
        bone = self._bone
        bone[self._bpos], bone[i] = bone[i], bone[self._bpos]
        log = self._log[-1]
        log.deal = Deal(log.deal.hands, tuple(TILES[x] for x in bone), log.deal.leader)

    def leader_choice_for(self, hands: Sequence[Sequence[int]]) -> LeaderChoice:
        """Who may lead the next hand if it were dealt ``hands`` (how the last hand ended
        decides: RULES.md §1 "Leader"); several seats: chosen by lot among them."""
        return leader_choice(self.rules, self._prev, hands)

    @property
    def can_draw(self) -> bool:
        """Whether the boneyard holds a tile that may be drawn."""
        return len(self._bone) - self._bpos > self._stop

    @property
    def count(self) -> int:
        """The count of the layout now."""
        return self.layout.count

    @property
    def drawn_tile(self) -> Tile | None:
        """The drawn tile the player to act must place (phase DRAWN; private to him)."""
        return TILES[self._drawn] if self._phase == _DRAWN else None

    @property
    def draws_this_turn(self) -> int:
        """Tiles the player to act has drawn this turn (public)."""
        return self._turn_draws

    @property
    def required_lead(self) -> Tile | None:
        """The tile the leader must lead, where the rules name it (``highest_double``)."""
        if self._phase == _LEAD and self._forced_lead >= 0:
            return TILES[self._forced_lead]
        return None

    def known_voids(self, seat: int) -> list[int]:
        """The pip values ``seat`` is publicly known not to hold (see :meth:`void_bits`)."""
        bits = self._voids[self._seat(seat)]
        return [v for v in range(7) if bits >> v & 1]

    def void_bits(self, seat: int) -> int:
        """``seat``'s known voids as a 7-bit value set.

        Sound, public inference from draws and passes. A player who must draw or pass shows that
        no tile in his hand matches an open value. While he holds a tile just drawn that nobody
        has seen, nothing is known (it may carry any value); his next action settles it: placing
        it restores what was known before the draw (plus the open values), drawing again or
        passing shows it did not fit, leaving the open values only. Under ``draw_when_able`` a
        draw shows nothing and clears every void; a pass still shows the open values.
        """
        return self._voids[self._seat(seat)]

    @property
    def pending_voids(self) -> int:
        """The acting seat's voids to restore if he places the tile he just drew (a 7-bit
        value set; see :meth:`void_bits`). Meaningful while a drawn tile is pending."""
        return self._void_pending

    def view(self, seat: int) -> PlayerView:
        """What ``seat`` may know now (a snapshot; see :class:`~allfives_env.core.view.PlayerView`).

        It holds copies only; whether a tile another seat just drew fits stays hidden (its
        phase shows ``PLAY``).

        Raises:
            ArgumentError: if ``seat`` is not a seat of this game.
        """
        seat = self._seat(seat)
        me = self.current_player == seat
        phase = self._phase
        if phase == _DRAWN and not me:
            phase = _PLAY
        return PlayerView(
            rules=self.rules,
            seat=seat,
            hand=tuple(tiles_of(self._hands[seat])),
            layout=self.layout.clone(),
            hand_sizes=self.hand_sizes,
            boneyard_size=self.boneyard_size,
            can_draw=self.can_draw,
            scores=self.scores,
            current_player=self.current_player,
            phase=phase,
            draws_this_turn=self._turn_draws,
            drawn_tile=self.drawn_tile if me else None,
            legal_actions=tuple(self.legal_actions()) if me else (),
            required_lead=self.required_lead,
            known_voids=self.void_sets,
            played=self.played_masks,
            hand_number=self.hand_number,
            leader=self.leader,
            events=tuple(self.events),
            results=tuple(self.hand_results),
            drew=tuple(TILES[t] for t in self._drew[seat]),
        )

    # ================================================================ legality

    def legal_actions(self) -> list[Action]:
        """The legal actions of the player to act, in ascending id order (empty if none).

        A lead is listed on slot W only; its mirror on E is legal too (see ``actions``).
        """
        if self._legal is not None:
            return list(self._legal)
        out = self._legal_actions()
        self._legal = tuple(out)
        return out

    def _legal_actions(self) -> list[Action]:
        ph = self._phase
        p = self._cur
        if ph == _PLAY:
            lay = self.layout
            playable = self._hands[p] & lay.playable_mask()
            if not playable:
                if len(self._bone) - self._bpos > self._stop:
                    return [ACTIONS[DRAW_ID]]
                return [ACTIONS[PASS_ID]]
            out = []
            value = lay.value
            slots = lay.open_slots
            while playable:
                low = playable & -playable
                t = low.bit_length() - 1
                playable ^= low
                a, b = LOW[t], HIGH[t]
                base = t * MAX_SLOTS
                for s in slots:
                    v = value[s]
                    if v == a or v == b:
                        out.append(ACTIONS[base + s])
            if self._dwa and len(self._bone) - self._bpos > self._stop:
                out.append(ACTIONS[DRAW_ID])
            return out
        if ph == _LEAD:
            if self._forced_lead >= 0:
                return [ACTIONS[self._forced_lead * MAX_SLOTS]]
            return [ACTIONS[t * MAX_SLOTS] for t in tiles_of(self._hands[p])]
        if ph == _DRAWN:
            t = self._drawn
            lay = self.layout
            value = lay.value
            return [
                ACTIONS[t * MAX_SLOTS + s]
                for s in lay.open_slots
                if value[s] == LOW[t] or value[s] == HIGH[t]
            ]
        return []

    def is_legal_listed(self, action: int) -> bool:
        """Whether ``action`` (an int engine id) is one of :meth:`legal_actions`."""
        legal = self._legal
        if legal is None:
            legal = self._legal = tuple(self._legal_actions())
        return action in legal

    @staticmethod
    def _action_id(action: object) -> int:
        """``action`` (an :class:`Action`, an ``int`` or NumPy integer id, or text) as an id.

        Raises:
            NotationError: if it names no action.
        """
        a: int
        if isinstance(action, str):
            return Action.parse(action)
        if isinstance(action, int) and type(action) is not bool:
            a = int(action)
        else:
            try:
                a = -1 if type(action) is bool else operator.index(action)  # type: ignore[arg-type]
            except TypeError:
                raise NotationError(f"not an action: {action!r}") from None
        if not 0 <= a <= PASS_ID:
            raise NotationError(f"not an action: {action!r} (engine ids are 0-{PASS_ID})")
        return a

    def is_legal(self, action: object) -> bool:
        """Whether ``action`` may be applied now (the mirrored lead included); it may be an
        :class:`Action`, an ``int`` or NumPy integer id, or text."""
        if self._phase >= _HAND_OVER:
            return False
        try:
            a = self._action_id(action)
        except NotationError:
            return False
        return self._is_legal_id(a)

    def _is_legal_id(self, action: int) -> bool:
        ph = self._phase
        if ph >= _HAND_OVER:
            return False
        p = self._cur
        if action < DRAW_ID:
            t = action >> 4
            s = action & 15
            if not self._hands[p] >> t & 1:
                return False
            if ph == _LEAD:
                if self._forced_lead >= 0 and t != self._forced_lead:
                    return False
                return s == 0 or (s == 1 and not IS_DOUBLE[t])
            if ph == _DRAWN and t != self._drawn:
                return False
            return self.layout.fits(t, s)
        if ph != _PLAY:
            return False
        drawable = len(self._bone) - self._bpos > self._stop
        if action == DRAW_ID:
            return drawable and (self._dwa or not self._hands[p] & self.layout.playable_mask())
        return not drawable and not self._hands[p] & self.layout.playable_mask()

    def why_illegal(self, action: object) -> str | None:
        """Why ``action`` may not be applied now, in words; ``None`` exactly when :meth:`apply`
        would accept it (it takes the same forms: :class:`Action`, int or NumPy id, text)."""
        if self._phase == _MATCH_OVER:
            return "the match is over"
        if self._phase == _HAND_OVER:
            return "the hand is over; deal the next one first"
        try:
            action = self._action_id(action)
        except NotationError as e:
            return str(e)
        p = self._cur
        ph = self._phase
        hand = self._hands[p]
        lay = self.layout
        can_place = bool(hand & lay.playable_mask()) if ph != _LEAD else True
        drawable = len(self._bone) - self._bpos > self._stop
        if action < DRAW_ID:
            t, s = action >> 4, action & 15
            if not hand >> t & 1:
                return f"tile {TILES[t]} is not in seat {p}'s hand"
            if ph == _LEAD:
                if self._forced_lead >= 0 and t != self._forced_lead:
                    return f"the leader must lead {TILES[self._forced_lead]}"
                if s > 1 or (s == 1 and IS_DOUBLE[t]):
                    return "a lead is a bare tile (on W, or mirrored on E)"
                return None
            if ph == _DRAWN and t != self._drawn:
                return f"seat {p} must place the tile just drawn, {TILES[self._drawn]}"
            if lay.value[s] < 0:
                return f"slot {slot_name(s)} is not open"
            if not lay.fits(t, s):
                shows = lay.value[s]
                return f"tile {TILES[t]} does not match slot {slot_name(s)}, which shows {shows}"
            return None
        what = "draw" if action == DRAW_ID else "pass"
        if ph == _LEAD:
            return f"the leader must lead a tile, not {what}"
        if ph == _DRAWN:
            return f"seat {p} must place the tile just drawn, not {what}"
        if action == DRAW_ID:
            if not drawable:
                return "the boneyard holds no tile that may be drawn"
            if can_place and not self._dwa:
                return "a placement is available, so drawing is not allowed"
            return None
        if can_place:
            return "a placement is available, so passing is not allowed"
        if drawable:
            return "a tile can be drawn, so passing is not allowed"
        return None

    def notation(self, action: int) -> str:
        """``action`` written as in a game record (RULES.md §4) at this position.

        A lead is the bare tile ``"a-b"`` with ``a`` facing W (the mirrored lead ``"b-a"``);
        any other placement ``"c-d X"``; ``"draw"``; ``"pass"``. This is the one notation the
        project writes (records, messages, the command line); :meth:`apply` reads it, and also
        ``str(action)`` (``"6-4 W"`` at the lead).

        Raises:
            NotationError: if ``action`` is not an engine action id.
        """
        a = ACTIONS[self._action_id(action)]
        return a.lead_text() if self._phase == _LEAD and a < DRAW_ID else str(a)

    def _refuse(self, action: object, why: str | None = None) -> IllegalActionError:
        player = self.current_player
        legal = self.legal_actions()
        reason = why or self.why_illegal(action) or "not legal"
        shown = ", ".join(map(self.notation, legal)) or "none"
        who = f"seat {player}" if player is not None else "nobody"
        return IllegalActionError(
            f"illegal action {action!s} by {who}: {reason} (legal: {shown})",
            action,
            player,
            legal,
        )

    # ================================================================ acting

    def apply(self, action: object) -> ActionResult:
        """Apply the player to act's ``action``: an :class:`Action`, its engine id (``int`` or
        NumPy integer), or its text (:meth:`notation`, or ``str(action)``).

        Raises:
            IllegalActionError: if the action is not legal now, or names no action (the game is
                left unchanged).
        """
        legal = self._legal  # listed by legal_actions(): a fast path past the checks
        if legal is not None and type(action) in _INT_TYPES and action in legal:
            a = ACTIONS[action]
        else:
            try:
                aid = self._action_id(action)
            except NotationError as e:
                raise self._refuse(action, str(e)) from None
            if not self._is_legal_id(aid):
                raise self._refuse(action)
            a = ACTIONS[aid]
        self._legal = None
        if a < DRAW_ID:
            return self._place(a)
        if a == DRAW_ID:
            return self._draw(a)
        return self._pass(a)

    def _place(self, a: Action) -> ActionResult:
        p = self._cur
        t = a >> 4
        lay = self.layout
        if self._phase == _LEAD:
            count = lay.lead(t, a & 15 == 1)
        else:
            count = lay.place(t, a & 15)
        self._hands[p] ^= 1 << t
        self._pips[p] -= PIPS[t]
        self._sizes[p] -= 1
        self._played[p] |= 1 << t
        if self._turn_draws:
            if not self._dwa:  # he placed the tile he drew: his hand is as before the draws
                self._voids[p] = self._void_pending
            self._turn_draws = 0
        self._drawn = -1
        pts: float = count_points(count, self._unit)
        reached = False
        if pts:
            side = self._side[p]
            score = self._scores[side]
            pts = admitted(self.rules, score, pts)
            if pts:
                self._scores[side] = score + pts
                reached = reaches_target(self.rules, score + pts)
        self._log[-1].events.append(Event(p, a, pts))
        if reached:
            return ActionResult(p, a, pts, None, *self._end_target(self._side[p]))
        if not self._sizes[p]:
            return ActionResult(p, a, pts, None, *self._end_hand(HandEnd.DOMINO, p))
        if len(self._bone) - self._bpos <= self._stop and self._nobody_can_place():
            return ActionResult(p, a, pts, None, *self._end_hand(HandEnd.BLOCKED, None))
        self._cur = p + 1 if p + 1 < self._n else 0
        self._phase = _PLAY
        return ActionResult(p, a, pts, None, None, None)

    def _draw(self, a: Action) -> ActionResult:
        p = self._cur
        if not self._dwa:  # he could not place: no open value in hand, bar tiles drawn unseen
            open_bits = self.layout.open_bits
            if self._turn_draws:  # the tile drawn before did not fit
                self._void_pending = open_bits
            else:
                self._void_pending = self._voids[p] | open_bits
        self._voids[p] = 0  # the tile just drawn may carry any value
        t = self._bone[self._bpos]
        self._bpos += 1
        self._drew[p].append(t)
        self._hands[p] |= 1 << t
        self._pips[p] += PIPS[t]
        self._sizes[p] += 1
        self._turn_draws += 1
        self._log[-1].events.append(Event(p, a, 0))
        if not self._dwa and self.layout.playable_mask() >> t & 1:
            self._phase = _DRAWN
            self._drawn = t
        elif len(self._bone) - self._bpos <= self._stop and self._nobody_can_place():
            return ActionResult(p, a, 0, TILES[t], *self._end_hand(HandEnd.BLOCKED, None))
        return ActionResult(p, a, 0, TILES[t], None, None)

    def _pass(self, a: Action) -> ActionResult:
        p = self._cur
        open_bits = self.layout.open_bits
        if self._turn_draws and not self._dwa:  # the last tile drawn did not fit
            self._voids[p] = open_bits
        else:
            self._voids[p] |= open_bits
        self._log[-1].events.append(Event(p, a, 0))
        self._turn_draws = 0
        self._cur = p + 1 if p + 1 < self._n else 0
        return ActionResult(p, a, 0, None, None, None)

    def _nobody_can_place(self) -> bool:
        playable = self.layout.playable_mask()
        return not any(h & playable for h in self._hands)

    def _end_target(self, side: int) -> tuple[HandResult, tuple[int, ...]]:
        result = HandResult(HandEnd.TARGET, (0,) * len(self._scores), None, None, tuple(self._pips))
        self._log[-1].result = result
        self._phase = _MATCH_OVER
        self._winners = (side,)
        return result, self._winners

    def _end_hand(
        self, end: HandEnd, domino_seat: int | None
    ) -> tuple[HandResult, tuple[int, ...] | None]:
        award = hand_award(self.rules, domino_seat, self._pips, self._sizes)
        points = award.points
        scores = self._scores
        rules = self.rules
        for i, x in enumerate(points):
            points[i] = admitted(rules, scores[i], x)
            scores[i] = _num(scores[i] + points[i])
        result = HandResult(end, tuple(points), award.winner, domino_seat, tuple(self._pips))
        self._log[-1].result = result
        reached = [i for i, s in enumerate(scores) if reaches_target(rules, s)]
        if reached:
            best = max(scores[i] for i in reached)
            self._winners = tuple(i for i in reached if scores[i] == best)
            self._phase = _MATCH_OVER
            return result, self._winners
        self._prev = PreviousHand(domino_seat, award.winner)
        self._phase = _HAND_OVER
        return result, None

    @classmethod
    def from_view(
        cls,
        view: PlayerView,
        hands: Mapping[int, Sequence[int]],
        boneyard: Sequence[int],
        *,
        strict: bool = True,
    ) -> Game:
        """A game in ``view``'s position with the unseen tiles placed as given (a *world*).

        For search: ``hands`` gives every other seat's tiles and ``boneyard`` the draw order of
        the rest; together with the viewer's hand and the table they must be the set's tiles, with
        the hand sizes the view shows. The world's hand log starts at this position (its deal
        is the position, not the hand's real deal), so records of it are not meaningful.

        With ``strict=False`` the world need not agree with the known voids or the required
        lead (for a stand-in whose hidden tiles are never looked at, as when encoding a view).

        Raises:
            DealError: if the tiles or sizes disagree with the view, or (``strict``) a seat gets
                a value it is known to lack, or the leader lacks the tile he must lead.
        """
        r = view.rules
        n = r.num_players
        me = view.seat
        all_hands: list[list[int]] = []
        for seat in range(n):
            tiles = [int(t) for t in (view.hand if seat == me else hands.get(seat, ()))]
            if len(tiles) != view.hand_sizes[seat]:
                raise DealError(
                    f"seat {seat} holds {view.hand_sizes[seat]} tiles, not {len(tiles)}"
                )
            all_hands.append(tiles)
        bone = [int(t) for t in boneyard]
        if len(bone) != view.boneyard_size:
            raise DealError(f"the boneyard holds {view.boneyard_size} tiles, not {len(bone)}")
        placed = [t for h in all_hands for t in h] + bone
        if len(set(placed)) != len(placed) or mask_of(placed) != (
            r.tile_mask & ~view.layout.on_table
        ):
            raise DealError("the hands and boneyard must be exactly the tiles off the table")
        for seat, tiles in enumerate(all_hands if strict else ()):
            lacking = view.known_voids[seat]
            if any(TILE_VALUE_BITS[t] & lacking for t in tiles):
                raise DealError(f"seat {seat} is known to hold none of the values given to it")
        lead, leader = view.required_lead, view.current_player
        if strict and lead is not None and leader is not None and lead not in all_hands[leader]:
            raise DealError(f"the leader must hold {lead}, the tile the rules make him lead")
        g = cls.__new__(cls)
        g._init_rules(r)
        g.layout = view.layout.clone()
        g._hands = [mask_of(h) for h in all_hands]
        g._pips = [sum(PIPS[t] for t in h) for h in all_hands]
        g._sizes = [len(h) for h in all_hands]
        g._bone = bone
        g._bpos = 0
        g._phase = view.phase if view.current_player is not None else _HAND_OVER
        g._cur = view.current_player if view.current_player is not None else 0
        g._drawn = int(view.drawn_tile) if view.drawn_tile is not None else -1
        if g._phase == _DRAWN and g._drawn < 0:
            g._phase = _PLAY  # another seat's pending drawn tile: it is (re)drawn in the world
        g._turn_draws = view.draws_this_turn
        g._forced_lead = int(view.required_lead) if view.required_lead is not None else -1
        g._scores = list(view.scores)
        g._start = tuple(view.scores)  # a world of this hand: its match begins here
        g._voids = list(view.known_voids)
        g._void_pending = view.known_voids[g._cur]
        g._played = list(view.played)
        g._drew = [[int(t) for t in view.drew] if s == me else [] for s in range(n)]
        deal = Deal(
            tuple(tuple(TILES[t] for t in h) for h in all_hands),
            tuple(TILES[t] for t in bone),
            view.leader,
        )
        g._log = [HandLog(deal, view.leader, False, list(view.events))]
        g._winners = None
        g._prev = None
        g._legal = None
        return g

    # ================================================================ copies & text

    def __deepcopy__(self, memo: dict[int, object]) -> Game:
        """:meth:`clone` (what ``copy.deepcopy`` makes, and OpenSpiel's ``state.clone()``,
        which deep-copies a Python state attribute by attribute)."""
        return self.clone()

    def clone(self) -> Game:
        """An independent copy (the hand log is shared up to now, then kept apart).

        Copies the cached rules fields rather than re-deriving them: search clones a lot.
        """
        g = Game.__new__(Game)
        g.rules = self.rules
        g._n = self._n
        g._side = self._side
        g._unit = self._unit
        g._stop = self._stop
        g._dwa = self._dwa
        g.layout = self.layout.clone()
        g._hands = self._hands[:]
        g._pips = self._pips[:]
        g._sizes = self._sizes[:]
        g._bone = self._bone[:]
        g._bpos = self._bpos
        g._cur = self._cur
        g._phase = self._phase
        g._drawn = self._drawn
        g._turn_draws = self._turn_draws
        g._legal = self._legal
        g._void_pending = self._void_pending
        g._forced_lead = self._forced_lead
        g._scores = self._scores[:]
        g._start = self._start
        g._voids = self._voids[:]
        g._played = self._played[:]
        g._drew = [d[:] for d in self._drew]
        last = self._log[-1]
        g._log = [
            *self._log[:-1],
            HandLog(last.deal, last.leader, last.by_lot, last.events[:], last.result),
        ]
        g._winners = self._winners
        g._prev = self._prev
        return g

    def render(self, seat: int | None = None) -> str:
        """The position as text: the layout, scores, and hands (only ``seat``'s if given)."""
        return render_game(self, seat)

    def __str__(self) -> str:
        return self.render()

    def __repr__(self) -> str:
        return describe_game(self)


def new_game(
    preset: str = "pagat", num_players: int = 2, seed: int | None = None, **overrides: object
) -> Game:
    """A match under ``Rules.preset(preset, num_players, **overrides)`` dealt from ``seed``
    (``None``: fresh entropy).

    Raises:
        ArgumentError: for a seed that is not an int from 0 to 2**64 - 1
            (:func:`allfives_env.core.seeds.check_seed`).
        RulesError: for an unknown preset, player count or override.
    """
    checked = None if seed is None else check_seed(seed)
    return Game(Rules.preset(preset, num_players, **overrides), random.Random(checked))
