"""The information state of a seat within one hand, as a key: what the exact solver's tables are
indexed by, computed from a :class:`~allfives_env.core.view.PlayerView` alone.

A view holds the seat's hand, the tiles it placed and drew (in order), the leader and the
public events of the hand; together they fix everything the seat has seen of the hand, in
order: the tiles it was dealt (its hand and placed tiles, less its draws), then each public
event, its own draws revealing their tiles. That is a perfect-recall information state, and the
key is that sequence, so two views get one key exactly when the seat cannot tell their
histories apart. The solver builds its tree with the same function (on the views the core game
gives it), so a policy solved over the tree plays from a view with the identical lookup.

The key covers one hand from its deal: it holds no earlier hand and no score, so it is the
information state of a one-hand episode from zero scores (the solver's game).
"""

from __future__ import annotations

from allfives_env.core.actions import DRAW_ID
from allfives_env.core.view import PlayerView

KEY_VERSION = 1
"""Bumped whenever :func:`infoset_key` changes; saved with every solved policy."""


def dealt_tiles(view: PlayerView) -> tuple[int, ...]:
    """The tiles the viewing seat was dealt this hand, ascending: its hand and the tiles it
    placed, less the tiles it drew."""
    placed = view.played[view.seat]
    drew = {int(t) for t in view.drew}
    tiles = {int(t) for t in view.hand} | {t for t in range(placed.bit_length()) if placed >> t & 1}
    return tuple(sorted(tiles - drew))


def infoset_key(view: PlayerView) -> bytes:
    """The seat's information state in the hand (see the module docstring) as bytes: the seat,
    the leader, the dealt tiles, then per public event its seat and action, with the tile of
    each of the seat's own draws after its draw."""
    out = bytearray((view.seat, view.leader, *dealt_tiles(view), 255))
    drew = iter(view.drew)
    for ev in view.events:
        action = int(ev.action)
        out += bytes((ev.seat, action >> 8, action & 255))
        if action == DRAW_ID and ev.seat == view.seat:
            out.append(int(next(drew)))
    return bytes(out)
