"""The rules config: a frozen :class:`Rules` built from a preset, with single fields overridden.

The five presets are the columns of RULES.md §2; every row of that table is a field here.

>>> r = Rules.preset("five_up", 4)
>>> r.spinners, r.draw_when_able, r.unit, r.target, r.exact_target, r.num_sides
('every', True, 5, 61, True, 2)
>>> Rules.preset("pagat", 3, target=100).target
100
>>> Rules.preset("pagat", 4).num_sides, Rules.preset("pyatyorka", 4).num_sides
(2, 4)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

from allfives_env.core.errors import RulesError
from allfives_env.core.tiles import MAX_PIP, MIN_SET, SET_MASK, TILES, Tile, set_size, tiles_of

PRESETS: tuple[str, ...] = ("pagat", "spruce", "dominoes_cc", "pyatyorka", "five_up")
"""The preset names; ``pagat`` is the default."""

LeaderRule = Literal["lot", "highest_double", "last_winner"]
SpinnerRule = Literal["first", "every"]
BranchRule = Literal["after_straight", "at_once"]
AwardRule = Literal["round_once", "lose_own", "round_each", "net_fives", "pairwise_fives"]

LEADER_RULES: tuple[str, ...] = ("lot", "highest_double", "last_winner")
SPINNER_RULES: tuple[str, ...] = ("first", "every")
BRANCH_RULES: tuple[str, ...] = ("after_straight", "at_once")
AWARD_RULES: tuple[str, ...] = (
    "round_once",
    "lose_own",
    "round_each",
    "net_fives",
    "pairwise_fives",
)

# Preset table (RULES.md §2). Hand sizes and targets are indexed by player count 2, 3, 4;
# partnerships is the 4-player default (RULES.md §1 "Set and seats": pairs only where the seed
# plays four as pairs).
_PRESET_TABLE: dict[str, dict[str, Any]] = {
    "pagat": dict(
        hand_size=(9, 7, 5), leader="lot", spinners="first", branches="after_straight",
        stop_tiles=0, draw_when_able=False, unit=1, award="round_once",
        target=(250, 200, 200), exact_target=False, partnerships=True,
    ),
    "spruce": dict(
        hand_size=(9, 7, 5), leader="lot", spinners="first", branches="after_straight",
        stop_tiles=0, draw_when_able=False, unit=1, award="lose_own",
        target=(250, 200, 200), exact_target=False, partnerships=True,
    ),
    "dominoes_cc": dict(
        hand_size=(7, 6, 5), leader="highest_double", spinners="first",
        branches="after_straight", stop_tiles=0, draw_when_able=False, unit=1,
        award="round_each", target=(150, 150, 150), exact_target=False, partnerships=False,
    ),
    "pyatyorka": dict(
        hand_size=(7, 5, 5), leader="last_winner", spinners="first", branches="at_once",
        stop_tiles=1, draw_when_able=False, unit=1, award="net_fives",
        target=(250, 250, 250), exact_target=False, partnerships=False,
    ),
    "five_up": dict(
        hand_size=(5, 5, 5), leader="lot", spinners="every", branches="after_straight",
        stop_tiles=0, draw_when_able=True, unit=5, award="pairwise_fives",
        target=(61, 61, 61), exact_target=True, partnerships=True,
    ),
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Rules:
    """A complete, validated rules config. Build it with :meth:`preset`.

    Raises:
        RulesError: on construction, if any field is out of range or of the wrong type.
    """

    name: str = "pagat"
    """The preset this config started from (one of :data:`PRESETS`)."""
    num_players: int = 2
    """Players at the table, 2–4; seat ``i + 1`` plays after seat ``i``."""
    partnerships: bool = True
    """With 4 players: seats 0+2 v 1+3 share a score (else each plays for himself). The presets
    default to partnerships in ``pagat``, ``spruce`` and ``five_up`` and to each for himself in
    ``dominoes_cc`` and ``pyatyorka``. With 2–3 players it changes nothing (and reads ``True``)."""
    hand_size: int = 9
    """Tiles dealt to each player; the rest form the boneyard."""
    leader: LeaderRule = "lot"
    """Who leads: ``lot`` (lot; later who dominoed; after a block lot), ``highest_double``
    (each hand the highest double, else the heaviest tile, leads itself), ``last_winner``
    (lot; later the last hand's winner; a partnership's blocked win or a tie: lot)."""
    spinners: SpinnerRule = "first"
    """Which doubles are spinners: the ``first`` of the hand only, or ``every`` double."""
    branches: BranchRule = "after_straight"
    """When a spinner's branches open: ``after_straight`` (both straight sides covered), or
    ``at_once`` (all four sides open; the spinner counts until any two sides are covered)."""
    stop_tiles: int = 0
    """Boneyard tiles that may never be drawn (``pyatyorka``: 1, the stop tile)."""
    draw_when_able: bool = False
    """Whether DRAW is legal while a placement is available (``five_up``)."""
    unit: int = 1
    """Pips per scored point: 1 (pips) or 5 (fives: a count of 15 scores 3)."""
    award: AwardRule = "round_once"
    """The end-of-hand rule: ``round_once`` (pagat), ``lose_own`` (spruce), ``round_each``
    (dominoes_cc), ``net_fives`` (pyatyorka), ``pairwise_fives`` (five_up)."""
    target: int = 250
    """The score that wins the match."""
    exact_target: bool = False
    """Whether the target must be hit exactly; a score that would pass it is not scored."""
    max_pip: int = 6
    """The set: double-``max_pip``, the tiles whose halves are 0 to ``max_pip`` (2 to 6; 6, the
    default, is the 28 tiles of RULES.md). A smaller set keeps every rule and the double-six
    tile ids; the hands (``num_players · hand_size``) must fit in it."""

    def __post_init__(self) -> None:
        _check(self)
        if self.num_players != 4 and not self.partnerships:
            # "partnerships: false changes nothing with 2-3 players": keep one config for it
            object.__setattr__(self, "partnerships", True)

    def __deepcopy__(self, memo: dict[int, object]) -> Rules:
        """Itself: a frozen config is never changed, so a deep copy (of a game, of an
        OpenSpiel state) shares it."""
        return self

    @classmethod
    def preset(cls, name: str = "pagat", num_players: int = 2, **overrides: Any) -> Rules:
        """The rules of preset ``name`` for ``num_players``, with ``overrides`` of single fields.

        Raises:
            RulesError: for an unknown preset or field, or a value out of range.
        """
        if name not in _PRESET_TABLE:
            raise RulesError(f"unknown preset {name!r} (choose from {', '.join(PRESETS)})")
        if type(num_players) is not int or not 2 <= num_players <= 4:
            raise RulesError(f"num_players must be 2, 3 or 4, not {num_players!r}")
        fields = {f.name for f in dataclasses.fields(cls)}
        for key in overrides:
            if key not in fields or key in ("name", "num_players"):
                raise RulesError(
                    f"unknown rules field {key!r}"
                    if key not in fields
                    else f"{key!r} is not an override; pass it as an argument"
                )
        row = dict(_PRESET_TABLE[name])
        row["hand_size"] = row["hand_size"][num_players - 2]
        row["target"] = row["target"][num_players - 2]
        row.update(overrides)
        return cls(name=name, num_players=num_players, **row)

    def replace(self, **overrides: Any) -> Rules:
        """A copy with some fields changed (validated like :meth:`preset`).

        Raises:
            RulesError: for an unknown field or a value out of range.
        """
        fields = {f.name for f in dataclasses.fields(self)}
        for key in overrides:
            if key not in fields:
                raise RulesError(f"unknown rules field {key!r}")
        return dataclasses.replace(self, **overrides)

    @property
    def num_sides(self) -> int:
        """Scoring sides: 2 with 4 players in partnerships, else one per player."""
        return 2 if self.num_players == 4 and self.partnerships else self.num_players

    def side_of(self, seat: int) -> int:
        """The side (score index) of ``seat``: ``seat % 2`` in partnerships, else ``seat``."""
        return seat % 2 if self.num_players == 4 and self.partnerships else seat

    def seats_of(self, side: int) -> tuple[int, ...]:
        """The seats of ``side``."""
        return tuple(s for s in range(self.num_players) if self.side_of(s) == side)

    @property
    def num_slots(self) -> int:
        """Slot numbers an action may name: 4 (W E N S), or 16 with every double a spinner."""
        return 16 if self.spinners == "every" else 4

    @property
    def num_tiles(self) -> int:
        """Tiles in the set: 28 for double-six, 6 for double-two."""
        return set_size(self.max_pip)

    @property
    def tile_mask(self) -> int:
        """The set as a tile mask (bit ``t`` set: tile ``t`` is in play)."""
        return SET_MASK[self.max_pip]

    @property
    def tiles(self) -> tuple[Tile, ...]:
        """The set's tiles, in ascending id order."""
        return TILES if self.max_pip == MAX_PIP else tuple(tiles_of(SET_MASK[self.max_pip]))

    @property
    def boneyard_size(self) -> int:
        """Tiles left in the boneyard after the deal."""
        return self.num_tiles - self.num_players * self.hand_size

    def overrides(self) -> dict[str, Any]:
        """The fields that differ from the preset's own values."""
        base = Rules.preset(self.name, self.num_players)
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if getattr(self, f.name) != getattr(base, f.name)
        }

    def describe(self) -> str:
        """One line: preset, players and any overridden fields."""
        extra = "".join(f", {k}={v!r}" for k, v in self.overrides().items())
        teams = " partnerships" if self.num_players == 4 and self.partnerships else ""
        return f"{self.name} {self.num_players}p{teams}{extra}"


def check_full_set(rules: Rules, layer: str) -> None:
    """Refuse a set smaller than double-six in ``layer``, a part of the project that plays the
    28 tiles only (its arrays are laid out for them).

    Raises:
        RulesError: naming the layer and the set, for ``max_pip`` below 6.
    """
    if rules.max_pip != MAX_PIP:
        raise RulesError(
            f"{layer}: the double-six set only, not the double-{rules.max_pip} set "
            f"(max_pip={rules.max_pip}); the core game, the environments and the batched "
            "engine play every set"
        )


def _check(r: Rules) -> None:
    """Validate every field of ``r``; raise RulesError naming the first bad one."""

    def need(ok: bool, field: str, what: str) -> None:
        if not ok:
            raise RulesError(f"rules field {field!r} must be {what}, not {getattr(r, field)!r}")

    def is_int(x: object) -> bool:
        return type(x) is int

    need(r.name in _PRESET_TABLE, "name", f"one of {', '.join(PRESETS)}")
    need(is_int(r.num_players) and 2 <= r.num_players <= 4, "num_players", "2, 3 or 4")
    need(type(r.partnerships) is bool, "partnerships", "a bool")
    need(r.leader in LEADER_RULES, "leader", f"one of {', '.join(LEADER_RULES)}")
    need(r.spinners in SPINNER_RULES, "spinners", f"one of {', '.join(SPINNER_RULES)}")
    need(r.branches in BRANCH_RULES, "branches", f"one of {', '.join(BRANCH_RULES)}")
    need(type(r.draw_when_able) is bool, "draw_when_able", "a bool")
    need(is_int(r.unit) and r.unit in (1, 5), "unit", "1 (pips) or 5 (fives)")
    need(r.award in AWARD_RULES, "award", f"one of {', '.join(AWARD_RULES)}")
    need(is_int(r.target) and r.target >= 1, "target", "a positive int")
    need(type(r.exact_target) is bool, "exact_target", "a bool")
    _check_set(r)


def _check_set(r: Rules) -> None:
    """Validate the set against the hands and stop tiles (``num_players`` already checked)."""
    if type(r.max_pip) is not int or not MIN_SET <= r.max_pip <= MAX_PIP:
        raise RulesError(
            f"rules field 'max_pip' must be an int from {MIN_SET} to {MAX_PIP} (the double-N "
            f"set), not {r.max_pip!r}"
        )
    tiles = set_size(r.max_pip)
    most = tiles // r.num_players
    if type(r.hand_size) is not int or not 1 <= r.hand_size <= most:
        raise RulesError(
            f"rules field 'hand_size' must be an int from 1 to {most} (the double-{r.max_pip} "
            f"set's {tiles} tiles dealt to {r.num_players} players), not {r.hand_size!r}"
        )
    if type(r.stop_tiles) is not int or not 0 <= r.stop_tiles < tiles:
        raise RulesError(
            f"rules field 'stop_tiles' must be an int from 0 to {tiles - 1}, not {r.stop_tiles!r}"
        )
