"""Engine speed: random legal games, timed (``allfives bench engine``).

A *move* is one applied action (placement, draw or pass). Each game is a whole match: hands are
dealt until a side reaches its target. Actions are chosen uniformly with a seeded
``random.Random``; the time includes dealing, listing legal actions, choosing and applying.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from allfives_env.game import Game
from allfives_env.rules import PRESETS, Rules


@dataclass(frozen=True, slots=True)
class EngineBench:
    """One benchmark row."""

    preset: str
    num_players: int
    moves: int
    hands: int
    matches: int
    seconds: float

    @property
    def moves_per_s(self) -> float:
        """Applied actions per second."""
        return self.moves / self.seconds

    @property
    def hands_per_s(self) -> float:
        """Finished hands per second."""
        return self.hands / self.seconds


def bench_engine(rules: Rules, seconds: float = 2.0, seed: int = 0) -> EngineBench:
    """Play random legal matches under ``rules`` for about ``seconds`` (at least one match)."""
    rng = random.Random(seed)
    moves = hands = matches = 0
    clock = time.perf_counter
    start = clock()
    while not matches or clock() - start < seconds:
        game = Game(rules, rng)
        legal_actions = game.legal_actions
        apply = game.apply
        choose = rng.randrange
        while True:
            legal = legal_actions()
            result = apply(legal[choose(len(legal))])
            moves += 1
            if result.hand is not None:
                hands += 1
                if result.winners is not None:
                    break
                game.deal(rng)
        matches += 1
    return EngineBench(rules.name, rules.num_players, moves, hands, matches, clock() - start)


def run(presets: list[str], players: list[int], seconds: float, seed: int = 0) -> list[EngineBench]:
    """Benchmark every preset × player count."""
    return [bench_engine(Rules.preset(p, n), seconds, seed) for p in presets for n in players]


def table(rows: list[EngineBench]) -> str:
    """The rows as a Markdown table."""
    lines = [
        "| preset | players | moves/s | hands/s | moves | seconds |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.preset} | {r.num_players} | {r.moves_per_s:,.0f} | {r.hands_per_s:,.0f} "
            f"| {r.moves:,} | {r.seconds:.1f} |"
        )
    return "\n".join(lines)


DEFAULT_PRESETS = list(PRESETS)
