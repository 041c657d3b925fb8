"""The table as an image of dominoes (``render_mode="rgb_array"``), drawn with Pillow.

The line runs left (W) to right (E); doubles lie crosswise. The first spinner's branches run up
(N) and down (S) from it; later spinners' branches (every double a spinner) are drawn as rows
below the table, each labelled with its slot. Only public information is drawn: the layout, the
count, scores, hand sizes and the boneyard size.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from allfives_env.core.actions import slot_name
from allfives_env.core.tiles import IS_DOUBLE

if TYPE_CHECKING:
    from PIL import ImageDraw

    from allfives_env.core.game import Game

U = 26  # half a tile, in pixels
PAD = 12
FELT = (24, 98, 62)
IVORY = (246, 241, 226)
INK = (25, 25, 25)
TEXT = (240, 240, 240)

# pip centres in a unit square, for 0–6
_PIPS: dict[int, list[tuple[float, float]]] = {
    0: [],
    1: [(0.5, 0.5)],
    2: [(0.25, 0.25), (0.75, 0.75)],
    3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
    4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
    5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
    6: [(0.25, 0.22), (0.75, 0.22), (0.25, 0.5), (0.75, 0.5), (0.25, 0.78), (0.75, 0.78)],
}


def _half(draw: ImageDraw.ImageDraw, x: float, y: float, v: int) -> None:
    r = U * 0.1
    for px, py in _PIPS[v]:
        cx, cy = x + px * U, y + py * U
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=INK)


def _tile(draw: ImageDraw.ImageDraw, x: float, y: float, a: int, b: int, across: bool) -> None:
    """A tile at (x, y): ``a`` then ``b`` left to right, or top to bottom if ``across``."""
    w, h = (U, 2 * U) if across else (2 * U, U)
    draw.rounded_rectangle((x + 1, y + 1, x + w - 1, y + h - 1), radius=4, fill=IVORY, outline=INK)
    if across:
        draw.line((x + 4, y + U, x + U - 4, y + U), fill=INK)
        _half(draw, x, y, a)
        _half(draw, x, y + U, b)
    else:
        draw.line((x + U, y + 4, x + U, y + U - 4), fill=INK)
        _half(draw, x, y, a)
        _half(draw, x + U, y, b)


def _width(chain: list[tuple[int, int, int]]) -> int:
    return sum(U if IS_DOUBLE[t] else 2 * U for t, _, _ in chain)


def render_image(game: Game) -> npt.NDArray[np.uint8]:
    """The table as an ``(H, W, 3)`` uint8 RGB array.

    Raises:
        ImportError: if Pillow is not installed (``pip install pillow``).
    """
    from PIL import Image, ImageDraw

    lay = game.layout
    line = lay.line()
    widths = [U if IS_DOUBLE[t] else 2 * U for t, _, _ in line]
    # the first spinner on the line, whose branches hang from it
    spin_idx = -1
    if lay.num_spinners:
        slot, idx = lay.sp_where[0]
        west = len(lay.chains[0])
        spin_idx = {-1: west, 0: west - 1 - idx, 1: west + 1 + idx}.get(slot, -1)
    north = lay.chains[2] if spin_idx >= 0 else []
    south = lay.chains[3] if spin_idx >= 0 else []
    up = sum(U if IS_DOUBLE[t] else 2 * U for t, _, _ in north)
    down = sum(U if IS_DOUBLE[t] else 2 * U for t, _, _ in south)
    extra = [
        (s, k)
        for k in range(lay.num_spinners)
        for s in (2 + 2 * k, 3 + 2 * k)
        if (k > 0 or spin_idx < 0) and lay.chains[s]
    ]
    header = 3 * 14
    row_h = 2 * U
    width = max(
        2 * PAD + sum(widths),
        2 * PAD + max((_width(lay.chains[s]) + 60 for s, _ in extra), default=0),
        480,
    )
    height = header + PAD + up + row_h + down + len(extra) * (row_h + 8) + 3 * 14 + 2 * PAD
    img = Image.new("RGB", (width, height), FELT)
    draw = ImageDraw.Draw(img)
    r = game.rules
    scores = "   ".join(
        f"side {i} (seat {'+'.join(map(str, r.seats_of(i)))}): {s}"
        for i, s in enumerate(game.scores)
    )
    draw.text((PAD, PAD), f"All Fives - {r.describe()} - hand {game.hand_number}", fill=TEXT)
    draw.text((PAD, PAD + 14), f"scores: {scores}   (target {r.target})", fill=TEXT)
    draw.text((PAD, PAD + 28), f"count {lay.count}", fill=TEXT)
    y_line = header + PAD + up
    x = PAD
    spin_x = 0.0
    for i, ((t, a, b), w) in enumerate(zip(line, widths, strict=True)):
        if IS_DOUBLE[t]:
            _tile(draw, x, y_line, a, b, across=True)
        else:
            _tile(draw, x, y_line + U / 2, a, b, across=False)
        if i == spin_idx:
            spin_x = x
        x += w
    # N runs upwards from the spinner, S downwards, tiles read outwards
    y = y_line
    for t, near, far in north:
        h = U if IS_DOUBLE[t] else 2 * U
        y -= h
        if IS_DOUBLE[t]:
            _tile(draw, spin_x - U / 2, y, near, far, across=False)
        else:
            _tile(draw, spin_x, y, far, near, across=True)
    y = y_line + 2 * U
    for t, near, far in south:
        h = U if IS_DOUBLE[t] else 2 * U
        if IS_DOUBLE[t]:
            _tile(draw, spin_x - U / 2, y, near, far, across=False)
        else:
            _tile(draw, spin_x, y, near, far, across=True)
        y += h
    y = y_line + 2 * U + down + 8
    for s, k in extra:
        v = lay.sp_value[k]
        draw.text((PAD, y + U - 6), f"{slot_name(s)} ({v}={v})", fill=TEXT)
        x = PAD + 60
        for t, near, far in lay.chains[s]:
            if IS_DOUBLE[t]:
                _tile(draw, x, y, near, far, across=True)
                x += U
            else:
                _tile(draw, x, y + U / 2, near, far, across=False)
                x += 2 * U
        y += row_h + 8
    sizes = "   ".join(f"seat {i}: {n}" for i, n in enumerate(game.hand_sizes))
    draw.text((PAD, height - PAD - 28), f"tiles in hand:  {sizes}", fill=TEXT)
    draw.text((PAD, height - PAD - 14), f"boneyard {game.boneyard_size}", fill=TEXT)
    return np.asarray(img, dtype=np.uint8).copy()


def main(argv: list[str] | None = None) -> int:
    """``python -m allfives_env.envs.image OUT.png``: draw a seeded position to a PNG file.

    A bad argument or an unwritable file prints one line on stderr and exits with status 2.
    """
    import argparse
    import random
    import sys

    from PIL import Image

    from allfives_env.core.game import Game
    from allfives_env.core.rules import PRESETS, Rules
    from allfives_env.envs.opponents import make_agent

    p = argparse.ArgumentParser(prog="python -m allfives_env.envs.image", description=main.__doc__)
    p.add_argument("out", help="the PNG file to write")
    p.add_argument("--preset", choices=PRESETS, default="pagat")
    p.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--moves", type=int, default=14, help="placements to play first (greedy)")
    args = p.parse_args(argv)
    rng = random.Random(args.seed)
    game = Game(Rules.preset(args.preset, args.players), rng)
    greedy = make_agent("greedy")
    placed = 0
    while placed < args.moves and not game.is_hand_over:
        seat = game.current_player
        assert seat is not None
        result = game.apply(greedy.act(game.view(seat), rng))
        placed += result.action.is_placement
    try:
        Image.fromarray(render_image(game)).save(args.out)
    except (OSError, ValueError) as e:
        print(f"{p.prog}: error: cannot write {args.out!r}: {e}", file=sys.stderr)
        return 2
    print(f"wrote {args.out}: {game!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
