"""Text pictures of a position, for terminals, logs and bug reports.

The line runs W to E, each tile as ``[a|b]`` read in that direction; a double (lying crosswise)
is drawn ``[a=a]``. The first spinner's branches hang from it: N upwards, S downwards, one tile
per row, each written with its upper half first. Branches of later spinners (every double a
spinner) are listed below the line, each read outwards.
"""

from __future__ import annotations

from typing import Protocol

from allfives_env.core.actions import slot_name
from allfives_env.core.events import Phase
from allfives_env.core.layout import Layout
from allfives_env.core.rules import Rules
from allfives_env.core.tiles import IS_DOUBLE, tiles_of


class Position(Protocol):
    """What the text pictures read of a game (:class:`~allfives_env.core.game.Game` has it)."""

    @property
    def rules(self) -> Rules: ...
    @property
    def layout(self) -> Layout: ...
    @property
    def scores(self) -> tuple[float, ...]: ...
    @property
    def hand_number(self) -> int: ...
    @property
    def hand_sizes(self) -> tuple[int, ...]: ...
    @property
    def boneyard_size(self) -> int: ...
    @property
    def current_player(self) -> int | None: ...
    @property
    def phase(self) -> Phase: ...
    @property
    def winners(self) -> tuple[int, ...] | None: ...
    @property
    def is_hand_over(self) -> bool: ...
    @property
    def is_match_over(self) -> bool: ...
    def hand_mask(self, seat: int) -> int: ...
    def known_voids(self, seat: int) -> list[int]: ...


_CELL = 5  # width of "[a|b]"


def _cell(tile: int, near: int, far: int) -> str:
    return f"[{near}={far}]" if IS_DOUBLE[tile] else f"[{near}|{far}]"


def render_layout(layout: Layout) -> list[str]:
    """The layout as lines of text (``["(empty table)"]`` before the lead)."""
    if layout.is_empty:
        return ["(empty table)"]
    line = layout.line()
    spin_col = layout.spinner_column()  # the first spinner's branches hang from it
    row = "".join(_cell(t, a, b) for t, a, b in line)
    out: list[str] = []
    pad = " " * (_CELL * spin_col) if spin_col >= 0 else ""
    if spin_col >= 0:
        north = layout.chains[2]
        for t, near, far in reversed(north):
            out.append(pad + _cell(t, far, near))
    out.append(row)
    if spin_col >= 0:
        for t, near, far in layout.chains[3]:
            out.append(pad + _cell(t, near, far))
    for s, k in layout.side_branches():
        tiles = "".join(_cell(t, a, b) for t, a, b in layout.chains[s]) or "(open)"
        out.append(
            f"{slot_name(s)} from spinner {layout.sp_value[k]}={layout.sp_value[k]}: {tiles}"
        )
    return out


def _score(x: float) -> str:
    return str(x)


def describe_game(game: Position) -> str:
    """A one-line summary of a game: rules, hand, layout, scores, who acts."""
    r = game.rules
    scores = ":".join(_score(s) for s in game.scores)
    who = game.current_player
    if game.is_match_over:
        state = f"match over, winner {'/'.join(map(str, game.winners or ()))}"
    elif who is None:
        state = "hand over"
    else:
        state = f"p{who} to {game.phase.name.lower()}"
    sizes = "/".join(map(str, game.hand_sizes))
    return (
        f"<Game {r.describe()} | hand {game.hand_number} | {game.layout.describe()} | "
        f"scores {scores} | {state} | hands {sizes} | boneyard {game.boneyard_size}>"
    )


def render_public(game: Position) -> str:
    """The position as text with every hand hidden (what a spectator may see)."""
    return render_game(game, -1)


def render_game(game: Position, seat: int | None = None) -> str:
    """The position as text: with ``seat``, only what that seat may see (``-1``: no hand at
    all); with ``None``, everything."""
    r = game.rules
    lines = [f"All Fives — {r.describe()} — hand {game.hand_number}"]
    sides = " | ".join(
        f"side {i} ({'+'.join(map(str, r.seats_of(i)))}): {_score(s)}"
        for i, s in enumerate(game.scores)
    )
    lines.append(f"scores: {sides}   (target {r.target}{' exactly' if r.exact_target else ''})")
    lines.append("")
    lines.extend("  " + x for x in render_layout(game.layout))
    lines.append("")
    lines.append(f"open: {game.layout.describe()}   boneyard: {game.boneyard_size}")
    for s in range(r.num_players):
        mark = ">" if game.current_player == s else " "
        if seat is None or seat == s:
            tiles = " ".join(str(t) for t in tiles_of(game.hand_mask(s)))
        else:
            tiles = f"{game.hand_sizes[s]} tiles"
        voids = game.known_voids(s)
        void_txt = f"   void: {','.join(map(str, voids))}" if voids else ""
        lines.append(f"{mark} seat {s}: {tiles}{void_txt}")
    if game.is_match_over:
        lines.append(f"match over — winner: side {'/'.join(map(str, game.winners or ()))}")
    elif game.is_hand_over:
        lines.append("hand over")
    return "\n".join(lines)
