"""The records the record tests share: deals written out tile by tile (RULES.md §3's worked
examples and their variants), record builders, and the rules every preset and player count
gives."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from allfives_env import (
    ACTIONS,
    PRESETS,
    TILES,
    Game,
    HandEnd,
    Phase,
    Rules,
    Tile,
    parse_record,
    record_of,
    replay,
)
from allfives_env.core.records import FORMAT

Obj = dict[str, Any]


def hand_entry(
    preset: str,
    n: int,
    hands: list[list[str]],
    boneyard_head: list[str] | tuple[str, ...] = (),
    leader: int | None = 0,
    actions: list[Any] | tuple[Any, ...] = (),
) -> Obj:
    """One hand of a record: ``hands`` as given (checked to be a legal deal here, so that a
    test's own typo cannot pass for an engine error), the boneyard starting with
    ``boneyard_head`` and going on with every other tile in ascending id order."""
    size = Rules.preset(preset, n).hand_size
    assert len(hands) == n and all(len(h) == size for h in hands), "bad test deal"
    named = [Tile.parse(t) for h in hands for t in h] + [Tile.parse(t) for t in boneyard_head]
    assert len(set(named)) == len(named), "bad test deal"
    rest = [str(t) for t in TILES if t not in named]
    entry: Obj = {"hands": [list(h) for h in hands], "boneyard": [*boneyard_head, *rest]}
    if leader is not None:
        entry["leader"] = leader
    entry["actions"] = list(actions)
    return entry


def record(preset: str, n: int, *hands: Obj, **rules: Any) -> Obj:
    """A record dict of ``preset`` for ``n`` players holding ``hands``."""
    return {
        "format": FORMAT,
        "rules": {"preset": preset, "num_players": n, **rules},
        "hands": list(hands),
    }


def run(obj: object) -> dict[str, Any]:
    """Parse and replay a decoded record; return RULES.md §4's output object."""
    return replay(parse_record(obj)).to_json()


def points_of(obj: object) -> list[float]:
    return run(obj)["points"]


# --- Deal A: RULES.md §3 worked examples 1-3 (pagat, 2 players; seat 0 leads).
A0 = ["6-4", "6-3", "1-5", "1-0", "2-6", "0-0", "3-3", "4-4", "5-5"]
A1 = ["4-1", "1-1", "1-2", "2-2", "0-2", "2-3", "2-4", "2-5", "0-6"]
A_ACTIONS = ["6-4", "4-1 E", "6-3 W", "1-1 E", "1-5 E", "1-2 N", "1-0 S", "2-2 N", "2-6 N"]
A_POINTS = [10, 0, 0, 5, 0, 10, 10, 0, 0]


def deal_a(actions: list[Any] | tuple[Any, ...] = (), preset: str = "pagat", **kw: Any) -> Obj:
    return hand_entry(preset, 2, [A0, A1], actions=actions, **kw)


def rec_a(actions: list[Any] | tuple[Any, ...] = (), **kw: Any) -> Obj:
    return record("pagat", 2, deal_a(actions, **kw))


# --- Deal B (pagat, 2 players): seat 1 holds no 6 and no 4, so after the lead 6-4 he must draw;
# the first tile drawn (2-2) does not fit, the second (5-6) does.
B0 = ["4-6", "6-6", "4-4", "0-4", "1-4", "2-4", "3-4", "4-5", "0-6"]
B1 = ["0-0", "0-1", "0-2", "0-3", "0-5", "1-1", "1-2", "1-3", "1-5"]


def rec_b(actions: list[Any], preset: str = "pagat") -> Obj:
    return record(preset, 2, hand_entry(preset, 2, [B0, B1], ["2-2", "5-6"], actions=actions))


# --- Deal C (4 players, 5 tiles each): seat 0 leads 6-6 (the highest double); seat 1 holds no 6
# and neither does the boneyard, so seat 1 draws the whole boneyard (8 tiles) and then passes.
C_HANDS = [
    ["6-6", "0-6", "1-6", "0-0", "0-1"],
    ["1-1", "1-2", "1-3", "1-4", "1-5"],
    ["2-6", "3-6", "2-2", "2-3", "2-4"],
    ["4-6", "5-6", "2-5", "3-3", "3-4"],
]


def rec_c(actions: list[Any], preset: str = "pagat", leader: int | None = 0) -> Obj:
    return record(preset, 4, hand_entry(preset, 4, C_HANDS, leader=leader, actions=actions))


# --- Deal D (five_up, 2 players, 5 tiles each): Deal A cut down.
D0 = ["6-4", "6-3", "1-5", "1-0", "2-6"]
D1 = ["4-1", "1-1", "1-2", "2-2", "0-2"]


def rec_d(actions: list[Any], preset: str = "five_up") -> Obj:
    return record(preset, 2, hand_entry(preset, 2, [D0, D1], actions=actions))


def play_random(
    rules: Rules,
    seed: int,
    *,
    stop: Callable[[Game, int], bool] = lambda g, steps: False,
) -> tuple[Game, list[float]]:
    """Seeded random legal play (leads mirrored at random); stop when ``stop(game, steps)``
    holds after an action, or when the match is over. Returns the game and every action's
    points."""
    rng = random.Random(seed)
    game = Game(rules, rng)
    points: list[float] = []
    steps = 0
    while not game.is_match_over:
        if game.is_hand_over:
            game.deal(rng)
        action = rng.choice(game.legal_actions())
        if game.phase == Phase.LEAD and not TILES[action >> 4].is_double and rng.random() < 0.5:
            action = ACTIONS[action + 1]  # the mirrored lead: same tile on slot E
        points.append(game.apply(action).points)
        steps += 1
        if stop(game, steps):
            break
    return game, points


def find_position(
    rules: Rules, want: Callable[[Game], bool], seeds: range = range(300)
) -> tuple[Game, list[float]]:
    """The first position reached by seeded random legal play where ``want(game)`` holds."""
    for seed in seeds:
        game, points = play_random(rules, seed, stop=lambda g, _s: want(g))
        if want(game):
            return game, points
    raise AssertionError(f"no position found for {rules.describe()}")


def ended(end: HandEnd, *, match_over: bool) -> Callable[[Game], bool]:
    """A predicate: the last hand has just ended by ``end`` (and the match is / is not over)."""

    def want(g: Game) -> bool:
        return (
            g.is_hand_over
            and g.is_match_over == match_over
            and bool(g.hand_results)
            and len(g.hand_results) == g.hand_number
            and g.hand_results[-1].end == end
        )

    return want


def record_dict(game: Game, extra: dict[str, Any] | None = None) -> Obj:
    """``record_of(game)`` as decoded JSON."""
    obj: Obj = json.loads(json.dumps(record_of(game, extra).to_json()))
    return obj


def assert_replays_live(game: Game, points: list[float], result: Any) -> None:
    """A replay result agrees with the live game in every public and private respect."""
    assert list(result.points) == points
    assert tuple(result.hands) == tuple(game.hand_results)
    assert tuple(result.scores) == tuple(game.scores)
    assert result.winners == game.winners
    g = result.game
    assert g is not None
    assert g.phase == game.phase
    assert g.current_player == game.current_player
    assert g.hand_number == game.hand_number
    assert [g.hand(s) for s in range(g.rules.num_players)] == [
        game.hand(s) for s in range(game.rules.num_players)
    ]
    assert g.boneyard == game.boneyard
    assert g.count == game.count
    assert g.layout.line() == game.layout.line()
    assert g.events == game.events
    assert g.drawn_tile == game.drawn_tile
    winner = result.to_json()["winner"]
    if game.winners is None:
        assert winner is None
    elif len(game.winners) == 1:
        assert winner == game.winners[0]
    else:
        assert winner == list(game.winners)


CONFIGS = [(p, n, True) for p in PRESETS for n in (2, 3, 4)] + [(p, 4, False) for p in PRESETS]
CONFIG_IDS = [f"{p}-{n}p{'' if ps else '-solo'}" for p, n, ps in CONFIGS]


def preset_rules(preset: str, n: int, partnerships: bool) -> Rules:
    return Rules.preset(preset, n, partnerships=partnerships)
