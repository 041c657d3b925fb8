"""The table as the page draws it: a position as JSON, for one viewer.

:func:`table_json` is the only way a position reaches the page. For a seat it is built from that
seat's :class:`~allfives_env.core.view.PlayerView` alone (the engine's snapshot of what the seat
may know), so another hand or the boneyard's order cannot slip in: hands of other seats are
sizes, draws by others carry no tile. When a hand has ended, every seat's remaining tiles are
shown to everyone, as at a table where they are turned up to be counted for the award. A
spectator of agents, and a replay of a record, may be shown every hand (``reveal``); the
boneyard's order is never sent.

The layout is described for drawing (:func:`layout_json`): the line from W to E, the first
spinner's column on it and its N and S branches, every other spinner's branches as rows of
their own, and each open place with the value it shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from allfives_env.core.actions import DRAW_ID, PASS_ID, Action, slot_name
from allfives_env.core.events import Event, HandResult, Phase
from allfives_env.core.game import Game
from allfives_env.core.layout import Layout
from allfives_env.core.rules import Rules
from allfives_env.core.tiles import HIGH, IS_DOUBLE, LOW, Tile
from allfives_env.core.view import PlayerView

PHASES = {
    Phase.LEAD: "lead",
    Phase.PLAY: "play",
    Phase.DRAWN: "drawn",
    Phase.HAND_OVER: "hand_over",
    Phase.MATCH_OVER: "match_over",
}


def tile_json(tile: int) -> list[int]:
    """A tile as ``[low, high]``."""
    return [LOW[tile], HIGH[tile]]


def _chain(chain: list[tuple[int, int, int]]) -> list[list[int]]:
    """A branch outwards from where it starts, as ``[near half, far half, is double]``."""
    return [[near, far, int(IS_DOUBLE[t])] for t, near, far in chain]


def layout_json(layout: Layout) -> dict[str, Any]:
    """The layout, for drawing.

    Keys: ``line`` (W to E, each ``[west half, east half, is double]``), ``lead`` (the led
    tile's index on the line, -1 on an empty table), ``spinner`` (the first spinner's index on
    the line, or -1 when it is not on the line or there is none),
    ``north`` and ``south`` (its branches, outwards), ``branches`` (every other open or
    started branch: ``slot``, ``name``, ``spinner`` value and ``tiles``), ``open`` (each open
    place: ``slot``, ``name``, ``value``) and ``count``.
    """
    out: dict[str, Any] = {
        "line": [[a, b, int(IS_DOUBLE[t])] for t, a, b in layout.line()],
        "lead": -1 if layout.is_empty else len(layout.chains[0]),
        "spinner": -1,
        "north": [],
        "south": [],
        "branches": [],
        "open": [
            {"slot": s, "name": slot_name(s), "value": layout.value[s]} for s in layout.open_slots
        ],
        "count": layout.count,
    }
    if layout.is_empty:
        return out
    col = out["spinner"] = layout.spinner_column()
    if col >= 0:
        out["north"] = _chain(layout.chains[2])
        out["south"] = _chain(layout.chains[3])
    out["branches"] = [
        {"slot": s, "name": slot_name(s), "spinner": layout.sp_value[k],
         "tiles": _chain(layout.chains[s])}
        for s, k in layout.side_branches()
    ]  # fmt: skip
    return out


def action_json(action: Action) -> dict[str, Any]:
    """An action: its ``text`` (the project's notation), ``kind`` and, for a placement, its
    ``tile`` and ``slot``."""
    if action == DRAW_ID:
        return {"text": "draw", "kind": "draw"}
    if action == PASS_ID:
        return {"text": "pass", "kind": "pass"}
    tile, slot = action.tile, action.slot
    assert tile is not None and slot is not None
    return {"text": str(action), "kind": "place", "tile": tile_json(tile), "slot": slot}


def event_json(ev: Event, hand: int, lead: bool) -> dict[str, Any]:
    """A public move: ``hand``, ``seat``, ``text`` (a lead as its tile), ``points``."""
    a = ev.action
    text = a.lead_text() if lead and a < DRAW_ID else str(a)
    return {"hand": hand, "seat": ev.seat, "text": text, "points": ev.points}


def result_json(result: HandResult, hand: int) -> dict[str, Any]:
    """How a hand ended: ``end`` (domino, blocked, target), the ``award`` per side, the
    ``winner`` side, the ``domino_seat`` and each seat's remaining ``pips``."""
    return {
        "hand": hand,
        "end": str(result.end),
        "award": list(result.award),
        "winner": result.winner,
        "domino_seat": result.domino_seat,
        "pips": list(result.pips),
    }


def rules_json(rules: Rules) -> dict[str, Any]:
    """The rules the page shows: preset, players, sides, the set, the hand size and the
    target."""
    return {
        "preset": rules.name,
        "players": rules.num_players,
        "partnerships": rules.partnerships,
        "sides": [list(rules.seats_of(i)) for i in range(rules.num_sides)],
        "max_pip": rules.max_pip,
        "hand_size": rules.hand_size,
        "target": rules.target,
        "exact_target": rules.exact_target,
        "describe": rules.describe(),
    }


def last_tiles(events: Sequence[Event], num_players: int) -> list[list[int] | None]:
    """Each seat's last tile placed in the hand (public), as ``[low, high]``, or ``None``."""
    out: list[list[int] | None] = [None] * num_players
    for ev in events:
        tile = ev.action.tile
        if tile is not None:
            out[ev.seat] = tile_json(tile)
    return out


def table_json(game: Game, seat: int | None, reveal: bool = False) -> dict[str, Any]:
    """What the page shows of ``game``: from ``seat``'s view, or a spectator's (``None``).

    With ``reveal`` (a spectator only) every seat's tiles are included; otherwise only
    ``seat``'s own while the hand is in play, and every seat's once it has ended (the tiles
    left are counted for the award). The legal actions are listed only for ``seat``, and only
    on its turn.
    """
    if seat is not None and reveal:
        raise ValueError("a seat's view never reveals other hands")
    view: PlayerView = game.view(seat if seat is not None else 0)
    rules = game.rules
    events = view.events
    hand = view.hand_number
    finished = game.hand_log[:-1] if game.hand_log else []
    earlier = [
        event_json(ev, h, i == 0)
        for h, log in enumerate(finished[-1:], hand - 1)
        for i, ev in enumerate(log.events)
    ]
    ended = view.current_player is None  # the hand is over: what is left is turned up
    seats = []
    for s in range(rules.num_players):
        tiles: list[Tile] | None = None
        if reveal or ended:
            tiles = game.hand(s)
        elif s == seat:
            tiles = list(view.hand)
        seats.append(
            {
                "seat": s,
                "side": rules.side_of(s),
                "hand_size": view.hand_sizes[s],
                "tiles": None if tiles is None else [tile_json(t) for t in tiles],
                "voids": view.voids_of(s),
            }
        )
    mine = seat is not None and view.current_player == seat
    phase = game.phase
    if phase == Phase.DRAWN and not mine:  # whether the drawn tile fits is the drawer's secret
        phase = Phase.PLAY
    return {
        "rules": rules_json(rules),
        "hand_number": hand,
        "leader": view.leader,
        "current_player": view.current_player,
        "phase": PHASES[phase],
        "scores": list(view.scores),
        "winners": None if game.winners is None else list(game.winners),
        "boneyard": view.boneyard_size,
        "draws_this_turn": view.draws_this_turn,
        "required_lead": None if view.required_lead is None else tile_json(view.required_lead),
        "layout": layout_json(view.layout),
        "last_tiles": last_tiles(events, rules.num_players),
        "seats": seats,
        "legal": [action_json(a) for a in view.legal_actions] if mine else [],
        "moves": earlier + [event_json(ev, hand, i == 0) for i, ev in enumerate(events)],
        "results": [result_json(r, h) for h, r in enumerate(view.results, 1)],
    }
