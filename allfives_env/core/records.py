"""Game records (RULES.md §4): load, validate, save and replay.

A record fixes a whole match: the rules, every deal and every action. Any game played through
the engine becomes a record with :func:`record_of`, and replays to the identical result.

>>> import random
>>> from allfives_env.core.game import Game, check_scores
>>> g = Game("pagat", random.Random(3))
>>> while not g.is_hand_over:
...     _ = g.apply(g.legal_actions()[0])
>>> rec = record_of(g)
>>> replay(rec).to_json() == replay(parse_record(rec.to_json())).to_json()
True
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from allfives_env.core import strict_json
from allfives_env.core.actions import DRAW_ID, Action
from allfives_env.core.deal import Deal
from allfives_env.core.errors import (
    ArgumentError,
    DealError,
    IllegalActionError,
    NotationError,
    RecordError,
    RulesError,
)
from allfives_env.core.events import HandResult
from allfives_env.core.game import Game, check_scores
from allfives_env.core.rules import PRESETS, Rules
from allfives_env.core.tiles import MAX_PIP, Tile

FORMAT = "allfives-record/1"
"""The value of a record's ``format`` field."""

START_SCORES = "start_scores"
"""The key of the scores a match began at (this project's addition to RULES.md §4: a record
without it began at 0, as every record before it did)."""

_RULES_KEYS = ("preset", "num_players", "partnerships", "max_pip", "hand_size", "target")
_SET_KEYS = ("max_pip", "hand_size", "target")
"""The rules fields a record of a smaller set (``max_pip`` below 6) holds beside the preset's,
each written only where it differs: a smaller set needs smaller hands, and a target it reaches
in reasonable time. A record of the double-six set is RULES.md §4's exactly: ``rules`` holds
``preset``, ``num_players`` and ``partnerships``, and any other key is an error."""
_OMITTED = object()
_OWN_KEYS = ("format", "rules", "hands", START_SCORES)
"""The top-level keys a record's own fields take (never an extra's)."""
NAMED_EXTRAS = ("players", "seed", "human_seat", "date", "source")
"""The extra keys this project writes (``allfives play --save``, ``allfives demo``, the web
page's download): where a record holds one, it is checked (:func:`check_extra`); any other
extra key is kept as it is, unread."""


@dataclass(frozen=True, slots=True)
class RecordHand:
    """One hand of a record: the deal (leader ``None`` where omitted) and the action texts."""

    deal: Deal
    actions: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Record:
    """A parsed, well-formed record (its actions not yet checked against the rules).

    Attributes:
        rules: the preset rules of the match.
        hands: the hands, in order.
        extra: the record's other top-level keys (names, dates...), kept as they were.
        start_scores: the sides' scores when the match began (``None``: all 0). A record
            writes them as ``start_scores`` only when some is not 0, so that a match from 0
            reads as RULES.md §4 has it.
    """

    rules: Rules
    hands: tuple[RecordHand, ...]
    extra: dict[str, Any] = field(default_factory=dict)
    start_scores: tuple[float, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON-ready dict in the format of RULES.md §4."""
        rules: dict[str, Any] = {"preset": self.rules.name, "num_players": self.rules.num_players}
        if self.rules.num_players == 4:  # written out: the record does not lean on a default
            rules["partnerships"] = self.rules.partnerships
        changed = self.rules.overrides()
        rules.update((k, changed[k]) for k in _SET_KEYS if k in changed)
        hands = []
        for h in self.hands:
            entry: dict[str, Any] = {
                "hands": [[str(t) for t in hand] for hand in h.deal.hands],
                "boneyard": [str(t) for t in h.deal.boneyard],
            }
            if h.deal.leader is not None:
                entry["leader"] = h.deal.leader
            entry["actions"] = list(h.actions)
            hands.append(entry)
        out = {**self.extra, "format": FORMAT, "rules": rules}
        if self.start_scores is not None and any(self.start_scores):
            out[START_SCORES] = list(self.start_scores)
        return {**out, "hands": hands}


@dataclass(frozen=True, slots=True)
class ReplayResult:
    """The outcome of replaying a record (RULES.md §4's output).

    Attributes:
        points: per action, over all hands, the points it scored for the acting side.
        hands: the finished hands' results.
        scores: the final score per side.
        winners: the winning side(s), or ``None`` if the match is not over.
        game: the game after the last action (``None`` for a record of no hands).
    """

    points: tuple[float, ...]
    hands: tuple[HandResult, ...]
    scores: tuple[float, ...]
    winners: tuple[int, ...] | None
    game: Game | None

    def to_json(self) -> dict[str, Any]:
        """``{"points", "hands", "scores", "winner"}`` exactly as RULES.md §4 defines."""
        winner: int | list[int] | None
        if self.winners is None:
            winner = None
        elif len(self.winners) == 1:
            winner = self.winners[0]
        else:
            winner = list(self.winners)
        return {
            "points": list(self.points),
            "hands": [{"end": h.end.value, "award": list(h.award)} for h in self.hands],
            "scores": list(self.scores),
            "winner": winner,
        }


# ---------------------------------------------------------------------- parsing


def _is_int(x: object) -> bool:
    return type(x) is int


def _parse_rules(obj: object) -> Rules:
    if not isinstance(obj, dict):
        raise RecordError("must be an object with preset and num_players", field="rules")
    small = "max_pip" in obj and obj["max_pip"] != MAX_PIP
    for key in obj:
        if key not in _RULES_KEYS or (key in _SET_KEYS[1:] and not small):
            where = f"rules.{key}" if key.isidentifier() else f"rules[{key!r}]"
            why = " (a record of the double-six set plays the preset's)" if key in _SET_KEYS else ""
            raise RecordError(f"unknown key {key!r}{why}", field=where)
    if "preset" not in obj:
        raise RecordError("missing", field="rules.preset")
    preset = obj["preset"]
    if not isinstance(preset, str) or preset not in PRESETS:
        raise RecordError(
            f"unknown preset {preset!r} (choose from {', '.join(PRESETS)})", field="rules.preset"
        )
    if "num_players" not in obj:
        raise RecordError("missing", field="rules.num_players")
    n = obj["num_players"]
    if not _is_int(n) or not 2 <= n <= 4:
        raise RecordError(f"must be 2, 3 or 4, not {n!r}", field="rules.num_players")
    fields: dict[str, Any] = {}
    if "partnerships" in obj:  # left out: the preset's default (RULES.md §2)
        partnerships = obj["partnerships"]
        if type(partnerships) is not bool:
            raise RecordError(
                f"must be true or false, not {partnerships!r}", field="rules.partnerships"
            )
        fields["partnerships"] = partnerships
    for key in _SET_KEYS:
        if key in obj:
            if not _is_int(obj[key]):
                raise RecordError(f"must be a whole number, not {obj[key]!r}", field=f"rules.{key}")
            fields[key] = obj[key]
    try:
        return Rules.preset(preset, n, **fields)
    except RulesError as e:
        raise RecordError(str(e), field="rules") from None


def _tiles(obj: object, what: str, hand: int) -> tuple[Tile, ...]:
    if not isinstance(obj, list):
        raise RecordError(f"{what} must be a list of tiles", hand=hand)
    try:
        return tuple(Tile.parse(t) for t in obj)
    except NotationError as e:
        raise RecordError(f"{what}: {e}", hand=hand) from None


def _parse_hand(obj: object, rules: Rules, k: int) -> RecordHand:
    if not isinstance(obj, dict):
        raise RecordError("a hand must be an object with hands, boneyard and actions", hand=k)
    for key in ("hands", "boneyard", "actions"):
        if key not in obj:
            raise RecordError(f"missing {key!r}", hand=k)
    seats = obj["hands"]
    if not isinstance(seats, list):
        raise RecordError("'hands' must be a list of one tile list per seat", hand=k)
    hands = tuple(_tiles(h, f"hand of seat {i}", k) for i, h in enumerate(seats))
    boneyard = _tiles(obj["boneyard"], "boneyard", k)
    leader = obj.get("leader", _OMITTED)
    if leader is _OMITTED:
        leader = None
    elif not _is_int(leader) or not 0 <= leader < rules.num_players:
        raise RecordError(
            f"'leader' must be a seat 0-{rules.num_players - 1}, not {leader!r}", hand=k
        )
    actions = obj["actions"]
    if not isinstance(actions, list):
        raise RecordError("'actions' must be a list of action strings", hand=k)
    return RecordHand(Deal(hands, boneyard, leader), tuple(actions))


def _parse_start(obj: dict[str, Any], rules: Rules) -> tuple[float, ...] | None:
    """The record's starting scores (``None`` where it has none: all 0).

    Raises:
        RecordError: for anything but one number per side, each below the target.
    """
    if START_SCORES not in obj:
        return None
    scores = obj[START_SCORES]
    try:
        if not isinstance(scores, list):
            raise RulesError("not a list")
        check_scores(rules, scores)
    except RulesError:
        raise RecordError(
            f"must be {rules.num_sides} numbers below the target {rules.target}, not {scores!r}",
            field=START_SCORES,
        ) from None
    return tuple(scores)


def check_extra(extra: dict[str, Any], rules: Rules) -> None:
    """Check the extra keys this project writes, where ``extra`` holds them: ``players``, one
    name (a string) per seat; ``seed``, the whole number the match was seeded with (as
    ``allfives play --seed`` took it); ``human_seat``, a seat; ``date`` and ``source``, strings.

    Raises:
        RecordError: naming the field, for a value of another type or length, or a seat out
            of range.
    """
    n = rules.num_players
    if "players" in extra:
        names = extra["players"]
        if (
            not isinstance(names, list | tuple)  # a list in JSON; a tuple given in Python
            or len(names) != n
            or not all(isinstance(x, str) for x in names)
        ):
            raise RecordError(
                f"must be a list of {n} names (strings), one per seat, not {names!r}",
                field="players",
            )
    if "seed" in extra and not _is_int(extra["seed"]):
        raise RecordError(f"must be a whole number, not {extra['seed']!r}", field="seed")
    if "human_seat" in extra:
        seat = extra["human_seat"]
        if not _is_int(seat) or not 0 <= seat < n:
            raise RecordError(f"must be a seat 0-{n - 1}, not {seat!r}", field="human_seat")
    for key in ("date", "source"):
        if key in extra and not isinstance(extra[key], str):
            raise RecordError(f"must be a string, not {extra[key]!r}", field=key)


def _parse_extra(obj: dict[str, Any], rules: Rules) -> dict[str, Any]:
    """The record's extra keys (all but its own), checked by :func:`check_extra`."""
    extra = {k: v for k, v in obj.items() if k not in _OWN_KEYS}
    check_extra(extra, rules)
    return extra


def _parse_header(obj: object) -> tuple[Rules, list[Any]]:
    if not isinstance(obj, dict):
        raise RecordError("a record must be a JSON object", field="record")
    if "format" not in obj:
        raise RecordError("missing", field="format")
    if obj["format"] == "":
        raise RecordError(f"empty; must be {FORMAT!r}", field="format")
    if obj["format"] != FORMAT:
        raise RecordError(f"must be {FORMAT!r}, not {obj['format']!r}", field="format")
    if "rules" not in obj:
        raise RecordError("missing", field="rules")
    rules = _parse_rules(obj["rules"])
    hands = obj.get("hands")
    if not isinstance(hands, list):
        raise RecordError("must be a list of hands", field="hands")
    return rules, hands


def parse_record(obj: object) -> Record:
    """Check a decoded JSON record's shape and read it (actions are checked by :func:`replay`).

    Raises:
        RecordError: naming the field, hand or action at fault.
    """
    rules, raw = _parse_header(obj)
    hands = tuple(_parse_hand(h, rules, k) for k, h in enumerate(raw, 1))
    for k, h in enumerate(hands, 1):
        for i, a in enumerate(h.actions, 1):
            if not isinstance(a, str):
                raise RecordError(f"an action must be a string, not {a!r}", hand=k, action=i)
    assert isinstance(obj, dict)
    start = _parse_start(obj, rules)
    extra = _parse_extra(obj, rules)
    return Record(rules, hands, extra, start)


def replay_json(obj: object) -> ReplayResult:
    """Check and replay a decoded JSON record, reporting the first error in record order.

    Unlike ``replay(parse_record(obj))``, each hand is read only once the hands before it have
    replayed, so an illegal action in hand 1 is reported before a malformed deal in hand 3.

    Raises:
        RecordError: naming the field, hand or action at fault.
    """
    rules, raw = _parse_header(obj)
    assert isinstance(obj, dict)
    start = _parse_start(obj, rules)
    _parse_extra(obj, rules)
    return _replay(rules, (_parse_hand(h, rules, k) for k, h in enumerate(raw, 1)), start)


def decode_json(text: str) -> object:
    """``text`` as JSON, strictly (:func:`allfives_env.core.strict_json.loads`: no NaN or
    Infinity, no key twice in an object; what every reader of records takes: ``allfives
    replay``, the web page's upload).

    Raises:
        RecordError: (field ``file``) for anything else.
    """
    try:
        return strict_json.loads(text)
    except ValueError as e:  # json.JSONDecodeError included
        raise RecordError(f"malformed JSON: {e}", field="file") from None


def load_json(path: str | os.PathLike[str]) -> object:
    """Read a JSON file (strict JSON: no NaN or Infinity, no key twice in an object).

    Raises:
        RecordError: if the file cannot be read or is not JSON.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise RecordError(f"cannot read {str(path)!r}: {e}", field="file") from None
    return decode_json(text)


def load_record(path: str | Path) -> Record:
    """Read and check a record file.

    Raises:
        RecordError: if the file cannot be read, is not JSON, or is not a well-formed record.
    """
    return parse_record(load_json(path))


def save_record(record: Record, path: str | Path) -> None:
    """Write ``record`` as JSON to ``path``."""
    Path(path).write_text(json.dumps(record.to_json(), indent=1) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------- replay


def replay(record: Record | str | os.PathLike[str] | dict[str, Any]) -> ReplayResult:
    """Replay every hand and action of a record through the engine.

    ``record`` is a :class:`Record`, the path of a record file, or a decoded JSON record (a
    ``dict``, checked hand by hand in record order as :func:`replay_json` does).

    Raises:
        RecordError: for a file that cannot be read or is not a record, or at the first hand or
            action that is not legal under the rules, naming it (hand and action counted from
            1) and saying why.
        ArgumentError: if ``record`` is none of these.
    """
    if isinstance(record, Record):
        return _replay(record.rules, record.hands, record.start_scores)
    if isinstance(record, str | os.PathLike):
        return replay_json(load_json(record))
    if isinstance(record, dict):
        return replay_json(record)
    raise ArgumentError(
        f"replay takes a Record, a record file's path or a decoded JSON record, not {record!r}"
    )


def _replay(
    rules: Rules, hands: Iterable[RecordHand], start: tuple[float, ...] | None = None
) -> ReplayResult:
    game: Game | None = None
    points: list[float] = []
    for k, rh in enumerate(hands, 1):
        try:
            if game is None:
                game = Game(rules, deal=rh.deal, scores=start)
            elif game.is_match_over:
                raise RecordError("a hand after the match has ended", hand=k)
            elif not game.is_hand_over:
                raise RecordError(f"a hand dealt before hand {k - 1} ended", hand=k)
            else:
                game.deal(deal=rh.deal)
        except DealError as e:
            raise RecordError(str(e), hand=k) from None
        lead = True
        for i, text in enumerate(rh.actions, 1):
            if game.is_match_over:
                raise RecordError("an action after the match has ended", hand=k, action=i)
            if game.is_hand_over:
                raise RecordError("an action after the hand has ended", hand=k, action=i)
            try:
                action = _parse_action(text, lead)
                result = game.apply(action)
            except NotationError as e:
                raise RecordError(str(e), hand=k, action=i) from None
            except IllegalActionError:
                why = game.why_illegal(action) or "not legal"
                raise RecordError(f"{text!r}: {why}", hand=k, action=i) from None
            lead = False
            points.append(result.points)
    if game is None:
        return ReplayResult((), (), (0,) * rules.num_sides, None, None)
    return ReplayResult(tuple(points), tuple(game.hand_results), game.scores, game.winners, game)


def _parse_action(text: object, lead: bool) -> Action:
    """Read a record action: a bare tile as the lead, ``"c-d X"``, ``"draw"``, ``"pass"``."""
    if not isinstance(text, str):
        raise NotationError(f"an action must be a string, not {text!r}")
    action = Action.parse(text)
    if action < DRAW_ID and lead != (" " not in text):
        if lead:
            raise NotationError(f"the lead is a bare tile 'a-b', not {text!r}")
        raise NotationError(f"a placement names its slot ('c-d X'), not {text!r}")
    return action


def record_of(game: Game, extra: dict[str, Any] | None = None) -> Record:
    """The record of every hand ``game`` has dealt, up to now, with the top-level keys
    ``extra`` (names, a seed, a date...).

    Raises:
        RecordError: if the game's rules are not a preset's (a record holds only preset,
            num_players, partnerships and, for a set smaller than double-six, the set, hand
            size and target), or ``extra`` names one of the record's own keys
            or holds a value :func:`check_extra` refuses (nothing is written that would not
            read back).
    """
    r = game.rules
    extra = dict(extra or {})
    own = [k for k in extra if k in _OWN_KEYS]
    if own:
        raise RecordError(f"extra keys may not be the record's own: {own}", field=own[0])
    check_extra(extra, r)
    kept = {k: v for k, v in r.overrides().items() if k in _SET_KEYS and r.max_pip != MAX_PIP}
    base = Rules.preset(r.name, r.num_players, partnerships=r.partnerships, **kept)
    if r != base:
        changed = ", ".join(sorted(k for k in r.overrides() if k not in kept))
        raise RecordError(
            f"a record holds preset rules only; this game overrides {changed}", field="rules"
        )
    hands = []
    for log in game.hand_log:
        actions: list[str] = []
        for n, ev in enumerate(log.events):
            a = ev.action
            actions.append(a.lead_text() if n == 0 and a < DRAW_ID else str(a))
        deal = Deal(log.deal.hands, log.deal.boneyard, log.leader if log.by_lot else None)
        hands.append(RecordHand(deal, tuple(actions)))
    start = game.start_scores
    return Record(r, tuple(hands), extra, start if any(start) else None)


def replay_text(text: str) -> dict[str, Any]:
    """Replay a record given as JSON text; return RULES.md §4's output object.

    Raises:
        RecordError: for malformed JSON or an invalid record.
    """
    return replay_json(decode_json(text)).to_json()


__all__ = [
    "FORMAT",
    "NAMED_EXTRAS",
    "Record",
    "RecordHand",
    "ReplayResult",
    "check_extra",
    "decode_json",
    "load_json",
    "load_record",
    "parse_record",
    "record_of",
    "replay",
    "replay_json",
    "replay_text",
    "save_record",
]
