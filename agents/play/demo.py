"""A seeded match between agents, printed move by move (``allfives demo``)."""

from __future__ import annotations

import random
from typing import TextIO

from allfives_env.core.game import Game
from allfives_env.core.render import render_layout
from allfives_env.core.rules import Rules


def _fmt(x: float) -> str:
    return str(x)


def play_demo(
    preset: str,
    num_players: int,
    agent_names: list[str],
    seed: int,
    save: TextIO | None,
    quiet: bool,
    out: TextIO,
) -> int:
    """Play one match; print it to ``out``; write its record to ``save`` if given.

    Seat ``i`` is played by ``agent_names[i % len(agent_names)]``. The deals come from
    ``random.Random(seed)`` and each agent's choices from its own generator seeded from it.

    Raises:
        UnknownAgentError: for an agent name the registry does not know.
    """
    import json

    from agents.registry import make_agent
    from allfives_env.core.records import record_of

    rules = Rules.preset(preset, num_players)
    names = [agent_names[i % len(agent_names)] for i in range(num_players)]
    agents = [make_agent(n) for n in names]
    deal_rng = random.Random(seed)
    agent_rngs = [random.Random(f"{seed}/seat{i}") for i in range(num_players)]
    game = Game(rules, deal_rng)

    def say(text: str) -> None:
        if not quiet:
            print(text, file=out)

    teams = ", ".join(f"seat {i}: {n}" for i, n in enumerate(names))
    say(f"All Fives — {rules.describe()} — seed {seed} — {teams}")
    say(f"hand 1, seat {game.leader} leads")
    while True:
        seat = game.current_player
        assert seat is not None
        action = agents[seat].act(game.view(seat), agent_rngs[seat])
        first = not game.events
        result = game.apply(action)
        text = action.lead_text() if first else str(action)
        h = result.hand
        award = h.award if h is not None else (0,) * len(game.scores)
        before = ":".join(_fmt(s - a) for s, a in zip(game.scores, award, strict=True))
        gain = f"+{_fmt(result.points)}" if result.points else ""
        say(f"  seat {seat} {names[seat]:<8} {text:<6} count {game.count:<3}{gain:>4}   {before}")
        if h is None:
            continue
        score = ":".join(_fmt(s) for s in game.scores)
        for line in render_layout(game.layout):
            say("      " + line)
        say(
            f"hand {game.hand_number} ends: {h.end.value}; award "
            + ":".join(_fmt(a) for a in h.award)
            + f"; scores {score}"
        )
        if result.winners is not None:
            break
        game.deal(deal_rng)
        say(f"hand {game.hand_number}, seat {game.leader} leads")
    winners = " and ".join(f"side {w}" for w in result.winners)
    print(
        f"match over after {game.hand_number} hands: {winners} won; final scores "
        + ":".join(_fmt(s) for s in game.scores),
        file=out,
    )
    if save is not None:
        record = record_of(game, {"players": names, "seed": seed})
        save.write(json.dumps(record.to_json(), indent=1) + "\n")
        print(f"record saved to {save.name} (replay it: allfives replay {save.name})", file=out)
    return 0
