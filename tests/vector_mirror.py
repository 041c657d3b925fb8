"""Core games that follow the batched engine's games, for the tests that compare the two.

Each game ``i`` of a :class:`~allfives_env.vector.VectorGame` is mirrored by a core
:class:`~allfives_env.core.game.Game` dealt the same deals; after every batched step
:func:`follow` plays the same actions on the mirrors, deals their next hands, and restarts ended
episodes (the batched game from a fresh seed, its mirror from the new deal).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from allfives_env.core.game import Game
from allfives_env.core.rules import PRESETS
from allfives_env.vector import VectorGame

#: every preset at 2, 3 and 4 players in partnerships (1) and 4 each for himself (0)
TABLES = [(p, n, partners) for p in PRESETS for n, partners in ((2, 1), (3, 1), (4, 1), (4, 0))]
IDS = [f"{p}-{n}p{'' if t else '-solo'}" for p, n, t in TABLES]


def mirror(vg: VectorGame, i: int) -> Game:
    """A core game at the start of game ``i``'s episode (its first deal, no score)."""
    return Game(vg.rules, deal=vg.deal(i))


def follow(
    vg: VectorGame,
    games: list[Game],
    actions: np.ndarray,
    ended: np.ndarray,
    next_seed: int,
    met: Counter[str],
) -> int:
    """Play the env ``actions`` just stepped on the mirrors ``games``; where ``ended[i]``
    restart game ``i`` from seed ``next_seed + 1`` (then the next), else deal a mirror's next
    hand when its hand is over. Counts ``met["episodes"]``; returns the last seed used."""
    enc = vg.encoding
    for i, g in enumerate(games):
        g.apply(enc.to_engine[int(actions[i])])
        if ended[i]:
            met["episodes"] += 1
            next_seed += 1
            vg.reset_games([i], [next_seed])
            games[i] = mirror(vg, i)
        elif g.is_hand_over:
            g.deal(deal=vg.deal(i))
    return next_seed
