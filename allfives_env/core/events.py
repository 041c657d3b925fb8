"""The value types of a game: where it stands (:class:`Phase`), what an action did
(:class:`ActionResult`), the public events of a hand (:class:`Event`), how a hand ended
(:class:`HandEnd`, :class:`HandResult`) and a hand as played (:class:`HandLog`).

They hold values only; :class:`~allfives_env.core.game.Game` makes them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import NamedTuple

from allfives_env.core.actions import Action
from allfives_env.core.deal import Deal
from allfives_env.core.tiles import Tile


class Phase(IntEnum):
    """Where the game stands.

    ``DRAWN`` (the player must place the tile he just drew) is known only to that player; a
    :class:`~allfives_env.core.view.PlayerView` of anyone else shows ``PLAY``.
    """

    LEAD = 0
    """The leader must lead a tile; no drawing."""
    PLAY = 1
    """The player to act places, draws or passes, as the rules force."""
    DRAWN = 2
    """The player drew a tile that fits and must place that tile."""
    HAND_OVER = 3
    """The hand has ended and the match goes on: :meth:`Game.deal` starts the next hand."""
    MATCH_OVER = 4
    """A side has reached its target."""


class HandEnd(StrEnum):
    """How a hand ended."""

    DOMINO = "domino"
    """A player placed his last tile."""
    BLOCKED = "blocked"
    """Nothing could be drawn and no player could place."""
    TARGET = "target"
    """A placement took a side to its target: the match ended mid-hand, with no award."""


@dataclass(frozen=True, slots=True)
class HandResult:
    """The end of one hand.

    Attributes:
        end: how it ended.
        award: end-of-hand points per side, as scored (0 where none or not scored).
        winner: the side that won the hand (``None``: a tie, no award winner, or ``target``).
        domino_seat: the seat that played out, if the hand ended by a domino.
        pips: each seat's remaining pips when the hand ended.
    """

    end: HandEnd
    award: tuple[float, ...]
    winner: int | None
    domino_seat: int | None
    pips: tuple[int, ...]


class ActionResult(NamedTuple):
    """What applying one action did.

    Attributes:
        player: the seat that acted.
        action: the action applied.
        points: points the action scored for the player's side (0 for draws and passes, and
            for a score an exact target refused), in the rules' unit.
        drawn: the tile drawn, for DRAW (private to the player).
        hand: the hand's result, if the action ended the hand (or the match).
        winners: the winning side(s), if the action ended the match.
    """

    player: int
    action: Action
    points: float
    drawn: Tile | None
    hand: HandResult | None
    winners: tuple[int, ...] | None


class Event(NamedTuple):
    """One public event of a hand: who did what, scoring how much. Draws carry no tile."""

    seat: int
    action: Action
    points: float


@dataclass(slots=True)
class HandLog:
    """One hand as played: its deal (private), the leader and the public actions.

    Attributes:
        deal: the deal, as given or drawn.
        leader: the seat that led.
        by_lot: whether the rules chose the leader by lot (a record must then name it).
        events: the actions, in order.
        result: how the hand ended, once it has.
    """

    deal: Deal
    leader: int
    by_lot: bool
    events: list[Event]
    result: HandResult | None = None
