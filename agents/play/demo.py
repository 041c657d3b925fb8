"""A seeded match between agents, printed move by move (``allfives demo``).

The match is played by the one match loop, :class:`agents.eval.match.Match`, seeded by
:func:`agents.eval.match.match_seeds` from the seed: it is the first match that ``allfives eval``
plays with the same seed and agents.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from agents.eval.match import Match, Watcher, match_seeds
from agents.files import write_output
from agents.registry import make_agent
from allfives_env.core.actions import Action
from allfives_env.core.events import ActionResult, HandResult
from allfives_env.core.game import Game
from allfives_env.core.records import record_of
from allfives_env.core.render import render_layout
from allfives_env.core.rules import Rules


class DemoPrinter(Watcher):
    """Prints each action with the count and the scores, and each hand's end."""

    def __init__(self, names: Sequence[str], quiet: bool, out: TextIO):
        self.names = names
        self.quiet = quiet
        self.out = out
        self.text = ""

    def say(self, text: str) -> None:
        """Write one line, unless quiet."""
        if not self.quiet:
            print(text, file=self.out)

    def hand_started(self, game: Game) -> None:
        self.say(f"hand {game.hand_number}, seat {game.leader} leads")

    def acting(self, game: Game, seat: int, action: Action) -> None:
        self.text = game.notation(action)

    def acted(self, game: Game, result: ActionResult) -> None:
        h = result.hand
        award = h.award if h is not None else (0,) * len(game.scores)
        before = ":".join(str(s - a) for s, a in zip(game.scores, award, strict=True))
        gain = f"+{result.points}" if result.points else ""
        seat = result.player
        self.say(
            f"  seat {seat} {self.names[seat]:<8} {self.text:<6} count {game.count:<3}"
            f"{gain:>4}   {before}"
        )

    def hand_ended(self, game: Game, hand: HandResult) -> None:
        score = ":".join(str(s) for s in game.scores)
        for line in render_layout(game.layout):
            self.say("      " + line)
        award = ":".join(str(a) for a in hand.award)
        self.say(f"hand {game.hand_number} ends: {hand.end.value}; award {award}; scores {score}")


def play_demo(
    rules: Rules,
    agent_names: Sequence[str],
    seed: int,
    save: Path | None,
    quiet: bool,
    out: TextIO,
) -> int:
    """Play one match; print it to ``out``; write its record to ``save`` if given (whole, and
    ``record saved`` is printed only once it is written).

    Seat ``i`` is played by ``agent_names[i % len(agent_names)]``.

    Raises:
        UnknownAgentError: for an agent name the registry does not know.
        AgentError: for an agent that cannot play ``rules`` (:class:`Match` checks, before
            anything is printed).
        OutputFileError: if the record cannot be written (the match has been printed; no
            success line is).
    """
    n = rules.num_players
    names = [agent_names[i % len(agent_names)] for i in range(n)]
    printer = DemoPrinter(names, quiet, out)
    match = Match(rules, [make_agent(x) for x in names], *match_seeds(seed, 0, 0), printer)
    teams = ", ".join(f"seat {i}: {x}" for i, x in enumerate(names))
    printer.say(f"All Fives — {rules.describe()} — seed {seed} — {teams}")
    match.play()
    game = match.game
    winners = " and ".join(f"side {w}" for w in game.winners or ())
    print(
        f"match over after {game.hand_number} hands: {winners} won; final scores "
        + ":".join(str(s) for s in game.scores),
        file=out,
    )
    if save is not None:
        record = record_of(game, {"players": names, "seed": seed})
        text = json.dumps(record.to_json(), indent=1) + "\n"
        out.flush()
        write_output(save, text.encode("utf-8"), "--save")
        print(f"record saved to {save} (replay it: allfives replay {save})", file=out)
    return 0
