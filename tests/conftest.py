"""Shared helpers for scripted deals."""

from __future__ import annotations

from collections.abc import Sequence

from allfives_env import Deal, Game, Rules, Tile


def scripted_deal(
    rules: Rules,
    hands: Sequence[Sequence[str]],
    boneyard: Sequence[str] = (),
    leader: int | None = 0,
) -> Deal:
    """A deal with the given hands and the boneyard starting with ``boneyard``.

    The rest of the boneyard is every tile not named, in ascending id order; hands must have
    the rules' hand size.
    """
    named = {Tile.parse(t) for h in hands for t in h} | {Tile.parse(t) for t in boneyard}
    rest = [str(Tile(t)) for t in range(28) if Tile(t) not in named]
    return Deal.of(hands, [*boneyard, *rest], leader)


def scripted_game(
    preset: str,
    hands: Sequence[Sequence[str]],
    boneyard: Sequence[str] = (),
    leader: int | None = 0,
    **overrides: object,
) -> Game:
    """A game of ``preset`` (player count from ``hands``) dealt as :func:`scripted_deal`."""
    rules = Rules.preset(preset, len(hands), **overrides)
    return Game(rules, deal=scripted_deal(rules, hands, boneyard, leader))


def play(game: Game, *actions: str) -> list[float]:
    """Apply actions given as text; return the points each scored."""
    return [game.apply(a).points for a in actions]
