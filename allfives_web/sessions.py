"""Live games of the web app: matches to play or watch, and replays of records, with bounds.

A :class:`Session` is one game behind an unguessable id. :class:`PlaySession` wraps the
project's match loop (:class:`agents.eval.match.Match`, seeded like ``allfives play``): with a
person at one seat, the agents move until it is that person's turn (``pace="auto"``), or one
action per :meth:`PlaySession.step` (``pace="step"``: the page paces them); without one, agents
move one action per :meth:`PlaySession.step`. Every move of the person is checked by the engine
first; an illegal one raises :class:`MoveError` and changes nothing. :class:`ReplaySession` steps
back and forth through a game record. :class:`~allfives_web.store.SessionStore` keeps them.

What a person is sent never holds more than their seat may know at that moment: the table from
their seat (:func:`~allfives_web.table.table_json`), a record of the hands that have ended (the
whole match once it is over), and the match's seed only if they chose it or the match is over (a
seed the server drew rebuilds every deal).
"""

from __future__ import annotations

import random
import secrets
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from agents.base import Agent
from agents.eval.match import Match, match_seeds
from allfives_env.core.actions import Action
from allfives_env.core.errors import AllFivesError, NotationError
from allfives_env.core.game import Game
from allfives_env.core.records import Record, parse_record, record_of, replay
from allfives_env.core.rules import Rules
from allfives_env.core.view import PlayerView
from allfives_web.catalogue import HUMAN
from allfives_web.table import table_json


class WebError(Exception):
    """A request the app refuses: ``status`` is its HTTP status, the message its ``error``."""

    status = 400

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        if status is not None:
            self.status = status


class MoveError(WebError):
    """A move that is not the person's to make, or not legal: nothing changes."""

    status = 409


class NotFound(WebError):
    """No live game has this id (never had, or it expired)."""

    status = 404


class Full(WebError):
    """The server holds as many live games as it may."""

    status = 429


class PersonSeat(Agent):
    """The seat of the person at the page: the match loop never asks it to move."""

    name = HUMAN

    def act(self, view: PlayerView, rng: random.Random) -> Action:
        """Never called: the person's moves arrive as requests."""
        raise AssertionError("the person's moves arrive through PlaySession.move")


class Session:
    """One live game behind an id (see the subclasses)."""

    mode = ""

    def __init__(self) -> None:
        self.id = secrets.token_urlsafe(18)
        self.lock = threading.Lock()
        self.touched = time.monotonic()
        self.client = ""
        """Who opened it (the client's address), set when the store adds it."""

    def state(self) -> dict[str, Any]:
        """What the page shows now."""
        raise NotImplementedError

    def record(self) -> Record:
        """The game's record so far (RULES.md §4)."""
        raise NotImplementedError


Pace = Literal["auto", "step"]
"""How agents move in a game with a person: all at once after the person's move (``auto``), or
one action per :meth:`PlaySession.step` (``step``)."""


class PlaySession(Session):
    """A match between agents, with a person at one seat or none (watching).

    Args:
        rules: the rules.
        names: each seat's catalogue name (``"human"`` at the person's seat, if any).
        agents: each seat's agent (a :class:`PersonSeat` at the person's seat: never asked).
        seed: seeds the deals and the agents as match 0 of ``allfives eval --seed SEED``.
        seed_given: whether the person chose ``seed`` (then it is theirs to see); a seed the
            server drew is shown only once the match is over.
        pace: with a person, whether the agents move by themselves or one per :meth:`step`.
    """

    def __init__(
        self,
        rules: Rules,
        names: Sequence[str],
        agents: Sequence[Agent],
        seed: int,
        seed_given: bool = True,
        pace: Pace = "auto",
    ) -> None:
        super().__init__()
        self.names = list(names)
        self.person = self.names.index(HUMAN) if HUMAN in self.names else None
        self.mode = "play" if self.person is not None else "watch"
        self.seed = seed
        self.seed_given = seed_given
        self.pace: Pace = pace
        self.match = Match(rules, agents, *match_seeds(seed, 0, 0))
        self._agents_move()

    @property
    def game(self) -> Game:
        """The game as far as it has been played."""
        return self.match.game

    def _agents_move(self) -> None:
        """With a person at ``auto`` pace: let the agents move until the person is to act, or
        the hand is over."""
        if self.person is None or self.pace != "auto":
            return
        game = self.game
        while game.current_player is not None and game.current_player != self.person:
            self.match.apply(self.match.agent_action())

    def move(self, text: str) -> None:
        """The person's move, in the project's notation (``"4-1 E"``, ``"draw"``, ``"pass"``;
        a lead is ``"a-b W"`` or the bare tile).

        Raises:
            MoveError: when watching, when it is not the person's turn, or for a move the
                engine refuses (the message says why); nothing changes.
            WebError: for text that is not a move (status 422).
        """
        game = self.game
        if self.person is None:
            raise MoveError("nobody plays in a game of agents: step it instead")
        if game.current_player != self.person:
            raise MoveError("it is not your turn")
        try:
            action = Action.parse(text.strip())
        except NotationError as e:
            raise WebError(str(e), 422) from None
        why = game.why_illegal(action)
        if why is not None:
            raise MoveError(f"illegal move {str(action)!r}: {why}")
        self.match.apply(action)
        self._agents_move()

    def step(self) -> None:
        """The next action of the agent to act; watching, at a hand's end, the next deal.

        Raises:
            MoveError: with a person at ``auto`` pace (agents move by themselves), on the
                person's turn, at a hand's end with a person (they deal with :meth:`next_hand`),
                or once the match is over.
        """
        game = self.game
        if self.person is not None:
            if self.pace == "auto":
                raise MoveError("in a game you play, the agents move by themselves")
            if game.current_player == self.person:
                raise MoveError("it is your turn")
        if game.is_match_over:
            raise MoveError("the match is over")
        if game.current_player is None:
            if self.person is not None:
                raise MoveError("the hand is over: deal the next one")
            self.match.next_hand()
        else:
            self.match.apply(self.match.agent_action())

    def next_hand(self) -> None:
        """Deal the next hand once one has ended (then agents move up to the person's turn).

        Raises:
            MoveError: while a hand is in play, or once the match is over.
        """
        game = self.game
        if game.is_match_over:
            raise MoveError("the match is over")
        if game.current_player is not None:
            raise MoveError("the hand is still in play")
        self.match.next_hand()
        self._agents_move()

    @property
    def seed_shown(self) -> bool:
        """Whether the seed may be sent: the person chose it, nobody plays, or it is over."""
        return self.seed_given or self.person is None or self.game.is_match_over

    def state(self) -> dict[str, Any]:
        """The table from the person's seat; watching, every hand is shown."""
        out = table_json(self.game, self.person, reveal=self.person is None)
        out.update(
            id=self.id,
            mode=self.mode,
            you=self.person,
            names=self.names,
            seed=self.seed if self.seed_shown else None,
            pace=self.pace,
            status=self._status(),
        )
        return out

    def _status(self) -> str:
        game = self.game
        if game.is_match_over:
            return "match_over"
        if game.current_player is None:
            return "hand_over"
        if game.current_player == self.person:
            return "your_turn"
        return "agent_turn"

    def record(self) -> Record:
        """The record so far, with the seats' names (and the seed where it may be shown).

        Watching, it holds every hand dealt; with a person, the hands that have ended (the
        hand in play stays on the server).

        Raises:
            MoveError: with a person, before any hand has ended.
        """
        extra: dict[str, Any] = {"players": self.names, "source": "allfives serve"}
        if self.seed_shown:
            extra["seed"] = self.seed
        if self.person is not None:
            extra["human_seat"] = self.person
        full = record_of(self.game, extra)
        if self.person is None or self.game.current_player is None:
            return full
        if len(full.hands) == 1:
            raise MoveError("no hand has ended yet: the record holds the hands that have ended")
        return Record(full.rules, full.hands[:-1], full.extra)


@dataclass(frozen=True)
class _Step:
    """One step of a replay: deal hand ``hand``, or apply ``action`` (its record text)."""

    hand: int
    action: str | None


class ReplaySession(Session):
    """A game record, stepped through: position ``at`` is the record after ``at + 1`` steps
    (step 0 deals hand 1; a step deals a hand or applies one action). Every hand is shown."""

    mode = "replay"

    def __init__(self, data: object) -> None:
        """Check the decoded JSON record ``data`` whole, by replaying it.

        Raises:
            WebError: (422) naming the first thing wrong with the record.
        """
        super().__init__()
        try:
            self.rec = parse_record(data)
            replay(self.rec)
        except AllFivesError as e:
            raise WebError(f"not a valid game record: {e}", 422) from None
        if not self.rec.hands:
            raise WebError("not a valid game record: it holds no hand", 422)
        self.steps = [
            s
            for k, h in enumerate(self.rec.hands)
            for s in [_Step(k, None)] + [_Step(k, str(a)) for a in h.actions]
        ]
        self.at = 0
        self.game = self._position(0)

    def _position(self, at: int) -> Game:
        """The game after steps ``0..at``, replayed from the record."""
        game: Game | None = None
        for step in self.steps[: at + 1]:
            if step.action is None:
                deal = self.rec.hands[step.hand].deal
                if game is None:
                    game = Game(self.rec.rules, deal=deal, scores=self.rec.start_scores)
                else:
                    game.deal(deal=deal)
            else:
                assert game is not None
                game.apply(Action.parse(step.action))  # a lead is its bare tile
        assert game is not None
        return game

    def seek(self, at: int) -> None:
        """Go to position ``at`` (clamped to the record).

        Raises:
            WebError: (422) for a position that is not an integer.
        """
        if type(at) is not int:
            raise WebError(f"a position is a whole number, not {at!r}", 422)
        at = max(0, min(at, len(self.steps) - 1))
        self.game = self._position(at)
        self.at = at

    def state(self) -> dict[str, Any]:
        """The position, every hand shown, with where it stands in the record."""
        out = table_json(self.game, None, reveal=True)
        names = self.rec.extra.get("players")
        n = self.rec.rules.num_players
        if (
            not isinstance(names, list)
            or len(names) != n
            or not all(isinstance(x, str) for x in names)
        ):
            names = [f"seat {s}" for s in range(n)]
        out.update(
            id=self.id,
            mode=self.mode,
            you=None,
            names=names,
            seed=None,
            status="replay",
            at=self.at,
            steps=len(self.steps),
        )
        return out

    def record(self) -> Record:
        """The record as uploaded."""
        return self.rec
