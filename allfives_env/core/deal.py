"""Deals and leaders: RULES.md §1 "Deal" and "Leader", and the "Leader" row of §2.

A :class:`Deal` fixes one hand's chance: every hand, the boneyard in draw order, and the leader
where the rules choose it by lot. It comes from a caller's seeded ``random.Random``
(:func:`random_deal`) or is given explicitly (records, tests) and then checked (:func:`check_deal`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from allfives_env.core.errors import DealError
from allfives_env.core.rules import Rules
from allfives_env.core.tiles import HIGH, IS_DOUBLE, PIPS, TILES, Tile


@dataclass(frozen=True, slots=True)
class Deal:
    """One hand's deal.

    Attributes:
        hands: each seat's tiles.
        boneyard: the undealt tiles, first drawn first.
        leader: the seat that leads, or ``None`` to let the rules decide (allowed only where
            they decide it; where they choose by lot it is required).
    """

    hands: tuple[tuple[Tile, ...], ...]
    boneyard: tuple[Tile, ...]
    leader: int | None = None

    @classmethod
    def of(
        cls,
        hands: Sequence[Sequence[int | str]],
        boneyard: Sequence[int | str],
        leader: int | None = None,
    ) -> Deal:
        """A deal from tile ids or ``"a-b"`` texts.

        Raises:
            NotationError: if a tile cannot be read.
        """

        def tile(x: int | str) -> Tile:
            return Tile.parse(x) if isinstance(x, str) else Tile(x)

        return cls(
            tuple(tuple(tile(t) for t in h) for h in hands),
            tuple(tile(t) for t in boneyard),
            leader,
        )


@dataclass(frozen=True, slots=True)
class LeaderChoice:
    """Who may lead a hand under the rules.

    Attributes:
        seats: the candidates. One seat: the rules decide. Several: chosen by lot among them.
        tile: the tile the leader must lead (``highest_double``), or ``None`` for any tile.
    """

    seats: tuple[int, ...]
    tile: Tile | None = None

    @property
    def by_lot(self) -> bool:
        """Whether the leader is chosen by lot."""
        return len(self.seats) > 1


@dataclass(frozen=True, slots=True)
class PreviousHand:
    """What the next leader depends on: how the last hand ended.

    Attributes:
        domino_seat: the seat that played its last tile, or ``None`` if the hand was blocked.
        winner_side: the side that won the hand, or ``None`` (a tie or no winner).
    """

    domino_seat: int | None
    winner_side: int | None


def leader_choice(
    rules: Rules, previous: PreviousHand | None, hands: Sequence[Sequence[int]]
) -> LeaderChoice:
    """Who leads the next hand, given how the last one ended (``None``: the first hand)."""
    everyone = tuple(range(rules.num_players))
    if rules.leader == "highest_double":
        return _highest_tile_holder(hands)
    if previous is None:
        return LeaderChoice(everyone)
    if previous.domino_seat is not None:
        return LeaderChoice((previous.domino_seat,))
    if rules.leader == "last_winner" and previous.winner_side is not None:
        return LeaderChoice(rules.seats_of(previous.winner_side))
    return LeaderChoice(everyone)


def _tile_rank(t: int) -> tuple[bool, int, int]:
    # A double beats any other tile; then more pips; then the higher high half (3-6 before 4-5).
    return (IS_DOUBLE[t], PIPS[t], HIGH[t])


def _highest_tile_holder(hands: Sequence[Sequence[int]]) -> LeaderChoice:
    best = max((t for h in hands for t in h), key=_tile_rank)
    seat = next(i for i, h in enumerate(hands) if best in h)
    return LeaderChoice((seat,), TILES[best])


def check_deal(rules: Rules, deal: Deal, choice_for: PreviousHand | None) -> int:
    """Check ``deal`` against the rules and return the seat that leads.

    Raises:
        DealError: if the hands are not ``num_players`` hands of ``hand_size`` tiles, the hands
            and boneyard are not the set's tiles (the 28 of double-six) exactly once, or the
            leader is missing where the rules choose by lot, or disagrees with the rules.
    """
    n = rules.num_players
    if len(deal.hands) != n:
        raise DealError(f"a deal for {n} players needs {n} hands, not {len(deal.hands)}")
    for seat, hand in enumerate(deal.hands):
        if len(hand) != rules.hand_size:
            raise DealError(
                f"seat {seat} is dealt {len(hand)} tiles; the rules deal {rules.hand_size}"
            )
    seen: set[int] = set()
    in_set = rules.tile_mask
    for t in [*(t for h in deal.hands for t in h), *deal.boneyard]:
        if not isinstance(t, int) or not 0 <= t < len(TILES):
            raise DealError(f"not a tile: {t!r}")
        if not in_set >> t & 1:
            raise DealError(f"tile {TILES[t]} is not in the double-{rules.max_pip} set")
        if t in seen:
            raise DealError(f"tile {TILES[t]} is dealt twice")
        seen.add(t)
    if len(seen) != rules.num_tiles:
        missing = ", ".join(str(t) for t in rules.tiles if t not in seen)
        raise DealError(f"the deal lacks tiles: {missing}")
    choice = leader_choice(rules, choice_for, deal.hands)
    if deal.leader is None:
        if choice.by_lot:
            raise DealError(
                "the leader is chosen by lot here, so the deal must name it"
                f" (one of seats {', '.join(map(str, choice.seats))})"
            )
        return choice.seats[0]
    if type(deal.leader) is not int or deal.leader not in choice.seats:
        rule = "by lot among seats" if choice.by_lot else "by the rules:"
        raise DealError(
            f"leader {deal.leader!r} disagrees with the rules (the leader is chosen {rule} "
            f"{', '.join(map(str, choice.seats))})"
        )
    return deal.leader


def random_deal(rules: Rules, rng: random.Random, previous: PreviousHand | None) -> Deal:
    """Shuffle and deal with ``rng``; draw the leader by lot (with ``rng``) where the rules say.

    The tiles are shuffled first, then the lot is drawn, so a seed fixes both.
    """
    tiles = list(rules.tiles)
    rng.shuffle(tiles)
    k = rules.hand_size
    hands = tuple(tuple(sorted(tiles[i * k : (i + 1) * k])) for i in range(rules.num_players))
    boneyard = tuple(tiles[rules.num_players * k :])
    choice = leader_choice(rules, previous, hands)
    leader = choice.seats[rng.randrange(len(choice.seats))] if choice.by_lot else None
    return Deal(hands, boneyard, leader)
