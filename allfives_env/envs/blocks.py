"""The observation and state layouts, block by block, and their documentation.

:func:`observation_blocks` and :func:`state_blocks` list the named runs of entries of the
vectors that :class:`~allfives_env.envs.spaces.Encoding` builds; ``python -m
allfives_env.envs.blocks`` prints them index by index (``docs/spaces.md`` is that output,
checked by a test).

**The set.** The layouts follow the rules' set, double-N (:attr:`Rules.max_pip`, 2 to 6): a set
of T = (N + 1)(N + 2) / 2 tiles indexes its tile blocks by a tile's *rank* in the set (its place
among the set's tile ids, ascending: :func:`tile_indices`), so every tile-indexed block has T
entries and every pip-value one-hot N + 1; the divisions by 28 (hand sizes, the boneyard's size
and order, draws this turn) divide by T. The count's scales (/ 60, a slot's share / 12) are the
game's, whatever the set. For double-six (the default) a rank is the tile id and every layout is
the one of earlier versions, entry for entry.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from allfives_env.core.tiles import HIGH, MAX_PIP, NUM_TILES, set_size

SLOT_FEATURES = 12
"""Features per slot of the double-six set: open, value one-hot (7), ordinary double at the end,
spinner's free side, that spinner still counting, contribution to the count / 12
(:func:`slot_features` for any set)."""


def slot_features(max_pip: int = MAX_PIP) -> int:
    """Features per slot for the double-``max_pip`` set: the value one-hot has ``max_pip + 1``
    entries, beside the 5 others (12 for double-six, :data:`SLOT_FEATURES`)."""
    return max_pip + 1 + SLOT_FEATURES - (MAX_PIP + 1)


@cache
def tile_indices(max_pip: int = MAX_PIP) -> tuple[int, ...]:
    """``out[t]``: the rank of tile id ``t`` (0–27) in the double-``max_pip`` set (its index in
    the tile blocks and placement action ids), or -1 for a tile outside the set. Ranks follow
    ids, so they increase with the id; for double-six the rank is the id."""
    out = [-1] * NUM_TILES
    rank = 0
    for t in range(NUM_TILES):
        if HIGH[t] <= max_pip:
            out[t] = rank
            rank += 1
    return tuple(out)


COUNT_SCALE = 60.0
SCORE_CLIP = 2.0


@dataclass(frozen=True, slots=True)
class Block:
    """One named run of observation entries."""

    name: str
    size: int
    meaning: str


ACTION_POINTS_MEANING = (
    "per placement action id (tile · S + slot), when the observer is to act and it is legal: "
    "the points it would score now (as scored: 0 past an exact target) × unit / 60, clipped to 1"
)
ACTION_REPLIES_MEANING = (
    "per placement action id, when legal for the observer: the most the next player could "
    "score right after it, with any tile he may hold (one the observer cannot see, with no "
    "half he is known to lack) — the count / 60, clipped to 1"
)


OUTLOOK_ENTRIES = (
    "the points it scores now (pip-equivalents) / 60, clipped to 1",
    "1 if it takes the side to its target (the match is won)",
    "1 if it is the observer's last tile (a domino)",
    "the next seat's expected best reply / 60 (a reply that reaches his target counts 60), "
    "clipped to 1",
    "the chance the next seat holds no tile that fits",
    "the best the observer's remaining tiles would score on the layout left / 60, clipped to 1",
    "the pips left in the observer's hand / 60, clipped to 1",
    "the distinct pip values left in the observer's hand / 7",
    "1 if the tile is a double",
    "1 if no tile left in the observer's hand fits the layout left",
    "4 players in partnerships: the partner's expected best placement / 60, clipped to 1",
    "4 players in partnerships: the chance the partner holds no tile that fits",
)
"""The ``action_outlook`` entries of one placement (:mod:`allfives_env.envs.outlook`; all 0 after
a placement that wins the match or plays out the hand, but for the first three and ``double``)."""

OUTLOOK_SIZE = len(OUTLOOK_ENTRIES)

LOOKAHEAD_ENTRIES = (
    "the chance the next seat holds a tile whose reply takes his side to its target (the "
    "match is lost)",
    "the chance the next seat plays out his hand with his reply (he holds one tile, and it fits)",
)
"""The ``action_lookahead`` entries of one placement (:func:`allfives_env.envs.outlook.reply_risk`;
both 0 after a placement that wins the match or plays out the hand). What the next seat's reply
may end, the match or the hand: the outlook's ``threat`` counts a winning reply as 60 points, where
a match's end is worth the whole match."""

LOOKAHEAD_SIZE = len(LOOKAHEAD_ENTRIES)
FEATURE_SETS = ("none", "basic", "outlook", "lookahead")
"""The ``action_features`` values: ``none`` (``False``), ``basic`` (``True``: ``action_points``
and ``action_replies``), ``outlook`` (those and ``action_outlook``), ``lookahead`` (those and
``action_lookahead``)."""

OUTLOOK_SETS = ("outlook", "lookahead")
"""The feature sets with an ``action_outlook`` block."""


def feature_set(action_features: bool | str) -> str:
    """``action_features`` as one of :data:`FEATURE_SETS`.

    Raises:
        ValueError: for any other value.
    """
    if action_features is False or action_features is True:
        return "basic" if action_features else "none"
    if isinstance(action_features, str) and action_features in FEATURE_SETS:
        return action_features
    raise ValueError(
        f"action_features must be a bool or one of {', '.join(FEATURE_SETS)}, "
        f"not {action_features!r}"
    )


def observation_blocks(
    num_players: int,
    num_sides: int,
    num_slots: int,
    action_features: bool | str = False,
    max_pip: int = MAX_PIP,
) -> list[Block]:
    """The observation layout for a table of this shape and the double-``max_pip`` set, in
    order (see the module docstring for a smaller set).

    Raises:
        ValueError: for an unknown ``action_features``.
    """
    n, k, s = num_players, num_sides, num_slots
    t, v = set_size(max_pip), max_pip + 1
    by = "by id" if max_pip == MAX_PIP else "by its rank in the set"
    features = feature_set(action_features)
    extra = []
    if features != "none":
        extra += [
            Block("action_points", t * s, ACTION_POINTS_MEANING),
            Block("action_replies", t * s, ACTION_REPLIES_MEANING),
        ]
    if features in OUTLOOK_SETS:
        meaning = (
            f"per placement action id (tile · S + slot; {OUTLOOK_SIZE} entries each, all 0 "
            "unless the observer is to act and it is legal): " + "; ".join(OUTLOOK_ENTRIES)
        )
        extra.append(Block("action_outlook", t * s * OUTLOOK_SIZE, meaning))
    if features == "lookahead":
        meaning = (
            f"per placement action id (tile · S + slot; {LOOKAHEAD_SIZE} entries each, all 0 "
            "unless the observer is to act and it is legal): " + "; ".join(LOOKAHEAD_ENTRIES)
        )
        extra.append(Block("action_lookahead", t * s * LOOKAHEAD_SIZE, meaning))
    return [
        Block("hand", t, f"1 if the tile ({by}) is in the observer's hand"),
        Block("table", t, "1 if the tile is on the table"),
        Block(
            "played_by",
            t * n,
            f"per relative seat r ({t} entries each, r = 0 first): 1 if seat r placed the tile "
            "this hand",
        ),
        Block("drawn", t, "1 for the drawn tile the observer must place now (else all 0)"),
        Block(
            "slots",
            slot_features(max_pip) * s,
            f"per slot (W, E, N, S{', @4 … @15' if s > 4 else ''}; {slot_features(max_pip)} "
            f"entries each): open; open value one-hot 0–{max_pip} ({v}); an ordinary double "
            "ends the arm; the arm ends at a spinner's free side (or an unstarted branch); "
            "that spinner still counts 2·v; the slot's contribution to the count / 12",
        ),
        Block("count", 1, f"the count / {COUNT_SCALE:g}, clipped to 1"),
        Block("count_mod5", 5, "the count modulo 5, one-hot"),
        Block("hand_sizes", n, f"tiles in hand per relative seat / {t}"),
        Block("boneyard_size", 2, f"boneyard size / {t}; 1 if a tile may be drawn"),
        Block(
            "scores",
            k,
            f"score / target per relative side (own side first), clipped to ±{SCORE_CLIP:g}",
        ),
        Block(
            "voids",
            v * n,
            f"per relative seat ({v} entries each): 1 if that seat is publicly known to hold no "
            "tile with that pip value (from draws and passes)",
        ),
        Block("phase", 3, "one-hot: lead, play, must place the drawn tile (own turn only)"),
        Block("to_act", n, "one-hot relative seat to act (all 0 when no one is)"),
        Block("draws_this_turn", 1, f"tiles the player to act has drawn this turn / {t}"),
        Block("leader", n, "one-hot relative seat that led this hand"),
        *extra,
    ]


def state_blocks(
    num_players: int, num_sides: int, num_slots: int, max_pip: int = MAX_PIP
) -> list[Block]:
    """The global state layout (absolute seats and sides) for the double-``max_pip`` set, in
    order."""
    n, k, s = num_players, num_sides, num_slots
    t, v = set_size(max_pip), max_pip + 1
    return [
        Block("hands", t * n, f"per seat ({t} entries each): 1 if the tile is in that hand"),
        Block("boneyard", t, "1 if the tile is in the boneyard"),
        Block(
            "boneyard_order",
            t,
            f"for a boneyard tile, (its place in the draw order + 1) / {t}; else 0",
        ),
        Block("table", t, "1 if the tile is on the table"),
        Block("played_by", t * n, "per seat: 1 if that seat placed the tile this hand"),
        Block("drawn", t, "1 for the drawn tile the player to act must place"),
        Block("slots", slot_features(max_pip) * s, "per slot, as in the observation"),
        Block("count", 1, f"the count / {COUNT_SCALE:g}, clipped to 1"),
        Block("count_mod5", 5, "the count modulo 5, one-hot"),
        Block("hand_sizes", n, f"tiles in hand per seat / {t}"),
        Block("boneyard_size", 2, f"boneyard size / {t}; 1 if a tile may be drawn"),
        Block("scores", k, f"score / target per side, clipped to ±{SCORE_CLIP:g}"),
        Block("voids", v * n, "per seat: publicly known voids"),
        Block("phase", 3, "one-hot: lead, play, must place the drawn tile"),
        Block("to_act", n, "one-hot seat to act"),
        Block("draws_this_turn", 1, f"tiles the player to act has drawn this turn / {t}"),
        Block("leader", n, "one-hot seat that led this hand"),
    ]


def offsets(blocks: list[Block]) -> dict[str, int]:
    """Each block's first index, by name."""
    out: dict[str, int] = {}
    at = 0
    for b in blocks:
        out[b.name] = at
        at += b.size
    return out


def table(blocks: list[Block]) -> str:
    """A Markdown table of ``blocks``: index range, name, size, meaning."""
    lines = ["| indices | block | size | meaning |", "|---|---|---:|---|"]
    at = 0
    for b in blocks:
        span = f"{at}" if b.size == 1 else f"{at}–{at + b.size - 1}"
        lines.append(f"| {span} | `{b.name}` | {b.size} | {b.meaning} |")
        at += b.size
    return "\n".join(lines)


def _tables(
    title: str,
    layout: Callable[[int, int, int], list[Block]],
    shapes: list[tuple[str, int, int]],
) -> list[str]:
    out: list[str] = []
    for s in (4, 16):
        for name, n, k in shapes:
            blocks = layout(n, k, s)
            size = sum(b.size for b in blocks)
            out += ["", f"## {title}: {name}, {s} slots ({size} entries, float32)", ""]
            out.append(table(blocks))
    return out


def spaces_markdown() -> str:
    """The document ``docs/spaces.md``: every layout, index by index, generated from the code."""
    out = [
        "# Spaces of `allfives_v1`",
        "",
        "Generated by `python -m allfives_env.envs.blocks` from `allfives_env/envs/blocks.py`;",
        "a test checks that this file matches the code. Do not edit by hand.",
        "",
        "## Actions",
        "",
        "`Discrete(28 * S + 2)` with S = 4 slots (W E N S), or S = 16 where every double is a",
        "spinner (`five_up`). Placing tile `t` on slot `s` is `t * S + s`; the lead is slot 0;",
        "DRAW is `28 * S`, PASS is `28 * S + 1`. Tile ids: `0-0`=0, `0-1`=1, … `0-6`=6,",
        "`1-1`=7, … `6-6`=27.",
        "",
        "A smaller set (`Rules.max_pip` N = 2 to 5: the double-N set's T = (N + 1)(N + 2) / 2",
        "tiles) shrinks every tile block to T entries, a tile's entry being its rank among the",
        "set's ids (ascending); placing it on slot `s` is `rank * S + s`, DRAW `T * S`, PASS",
        "`T * S + 1`. Value one-hots (`slots`, `voids`) have N + 1 entries (a slot N + 6), and",
        "what is divided by 28 here is divided by T (the outlook's distinct values by N + 1).",
        "The tables below are the double-six set's.",
        "",
        "| slots S | actions | DRAW | PASS |",
        "|---:|---:|---:|---:|",
    ]
    for s in (4, 16):
        out.append(f"| {s} | {28 * s + 2} | {28 * s} | {28 * s + 1} |")
    shapes = [
        ("2 players", 2, 2),
        ("3 players", 3, 3),
        ("4 players, partnerships", 4, 2),
        ("4 players, each for himself", 4, 4),
    ]
    out += _tables("Observation", observation_blocks, shapes)
    out += [
        "",
        "## Optional blocks: `action_features=True`",
        "",
        "With `action_features=True` (an argument of the environments) the observation ends",
        "with two more blocks of 28 · S entries each, indexed like the action ids. Both are",
        "public (from the observer's hand, the table and the known voids) and spare a learner",
        "the count's arithmetic:",
        "",
        f"- `action_points`: {ACTION_POINTS_MEANING}.",
        f"- `action_replies`: {ACTION_REPLIES_MEANING}.",
        "",
        f'With `action_features="outlook"` a third block follows, `action_outlook`: '
        f"{OUTLOOK_SIZE} entries per placement action id (entry `a · {OUTLOOK_SIZE} + j`), the",
        "placement's public outlook (`allfives_env/envs/outlook.py`, what the heuristic agent",
        "weighs), all 0 unless the observer is to act and the placement is legal:",
        "",
        *[f"{j}. {text}" for j, text in enumerate(OUTLOOK_ENTRIES)],
        "",
        f'With `action_features="lookahead"` a fourth block follows the outlook, '
        f"`action_lookahead`: {LOOKAHEAD_SIZE} entries per placement action id (entry "
        f"`a · {LOOKAHEAD_SIZE} + j`), what the next seat's reply may end, read from the same",
        "public information, all 0 unless the observer is to act and the placement is legal:",
        "",
        *[f"{j}. {text}" for j, text in enumerate(LOOKAHEAD_ENTRIES)],
    ]
    out += _tables("State", state_blocks, shapes)
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(spaces_markdown())
