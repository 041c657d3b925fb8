"""What one player may know: :class:`PlayerView`, a snapshot built by :meth:`Game.view`.

A view holds copies, never a reference to the game, so hidden tiles (other hands, the boneyard
and its order) cannot be reached from it. Whether the tile a player just drew fits is also hidden
from the others until he acts: their view shows phase ``PLAY`` and the number of draws.
"""

from __future__ import annotations

from dataclasses import dataclass

from allfives_env.core.actions import Action
from allfives_env.core.events import Event, HandResult, Phase
from allfives_env.core.layout import Layout
from allfives_env.core.rules import Rules
from allfives_env.core.tiles import Tile, mask_of


@dataclass(frozen=True, slots=True)
class PlayerView:
    """Everything ``seat`` may know at one moment.

    Attributes:
        rules: the rules in force.
        seat: the viewing seat.
        hand: the seat's own tiles.
        layout: a copy of the table.
        hand_sizes: tiles in each seat's hand.
        boneyard_size: tiles in the boneyard.
        can_draw: whether the boneyard holds a drawable tile.
        scores: each side's score.
        current_player: the seat to act (``None`` between hands).
        phase: the phase as this seat may know it (``DRAWN`` only for the seat itself).
        draws_this_turn: tiles the player to act has drawn this turn.
        drawn_tile: the drawn tile this seat must place, if in phase ``DRAWN``.
        legal_actions: this seat's legal actions (empty unless it is to act).
        required_lead: the tile the leader must lead, where the rules name it (public).
        known_voids: per seat, the 7-bit set of pip values it is publicly known not to hold.
        played: per seat, the tiles it has placed this hand (a tile mask).
        hand_number: the current hand, from 1.
        leader: the seat that led this hand.
        events: the public events of this hand so far.
        results: the results of the finished hands.
        drew: the tiles this seat drew this hand, in the order drawn (its own knowledge: with
            ``hand``, ``played`` and ``events`` it fixes all the seat has seen of the hand, so a
            view is a perfect-recall information state within a hand). A world built from a
            view (:meth:`Game.from_view`) knows only the viewer's draws before it.
    """

    rules: Rules
    seat: int
    hand: tuple[Tile, ...]
    layout: Layout
    hand_sizes: tuple[int, ...]
    boneyard_size: int
    can_draw: bool
    scores: tuple[float, ...]
    current_player: int | None
    phase: Phase
    draws_this_turn: int
    drawn_tile: Tile | None
    legal_actions: tuple[Action, ...]
    required_lead: Tile | None
    known_voids: tuple[int, ...]
    played: tuple[int, ...]
    hand_number: int
    leader: int
    events: tuple[Event, ...]
    results: tuple[HandResult, ...]
    drew: tuple[Tile, ...] = ()

    @property
    def side(self) -> int:
        """The viewing seat's side."""
        return self.rules.side_of(self.seat)

    @property
    def unseen_mask(self) -> int:
        """Tiles this seat cannot see: the other hands and the boneyard, as a tile mask."""
        return self.rules.tile_mask & ~mask_of(self.hand) & ~self.layout.on_table

    def voids_of(self, seat: int) -> list[int]:
        """The pip values ``seat`` is publicly known not to hold."""
        return [v for v in range(7) if self.known_voids[seat] >> v & 1]
