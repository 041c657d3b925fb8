"""The one seed rule (ints from 0 to 2**64 - 1) at the core's entry point, ``new_game``: anything
else is an ``ArgumentError`` naming the seed, never a seed read some other way (``random.Random``
takes -5 as 5, and 2.5 or "7" as seeds of their own)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from allfives_env import Rules, new_game
from allfives_env.core.errors import ArgumentError
from allfives_env.core.game import Game
from allfives_env.core.seeds import SEED_LIMIT, as_seed, check_seed


@pytest.mark.parametrize(
    "seed", [-5, -1, 2**64, 2.5, 7.0, "7", True, False, np.True_, b"7", [7], np.float64(3)]
)
def test_new_game_refuses_a_seed_that_is_not_one(seed: object) -> None:
    with pytest.raises(ArgumentError, match=r"^seed must be an int from 0 to 2\*\*64 - 1"):
        new_game("pagat", 2, seed=seed)  # type: ignore[arg-type]
    assert as_seed(seed) is None


@pytest.mark.parametrize("seed", [0, 5, SEED_LIMIT - 1, np.int64(5), np.uint64(2**64 - 1)])
def test_new_game_deals_from_every_seed_as_random_random_does(seed: object) -> None:
    game = new_game("pagat", 2, seed=seed)  # type: ignore[arg-type]
    same = Game(Rules.preset("pagat", 2), random.Random(int(seed)))  # type: ignore[call-overload]
    assert game.hand_log[0].deal == same.hand_log[0].deal
    assert check_seed(seed) == int(seed)  # type: ignore[call-overload]


def test_no_seed_is_fresh_entropy() -> None:
    assert new_game("five_up", 3).rules.num_players == 3


def test_check_seed_names_what_it_checks() -> None:
    with pytest.raises(ArgumentError, match=r"^the deal seed must be"):
        check_seed(-1, "the deal seed")
