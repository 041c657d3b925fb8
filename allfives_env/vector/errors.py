"""The typed errors of the batched engine (all ``ValueError`` subclasses, as in the core)."""

from __future__ import annotations

from collections.abc import Sequence

from allfives_env.core.errors import AllFivesError, ArgumentError, IllegalActionError


class VectorActionError(IllegalActionError):
    """An action a game may not take now: not in its mask, or the game is done.

    Attributes:
        game: the index of the game at fault (the first one, if several are).
        action: its env action id; player: the seat to act (``None`` if done); legal: the
            legal env action ids then.
    """

    def __init__(
        self,
        message: str,
        game: int,
        action: int,
        player: int | None,
        legal: Sequence[int],
    ):
        super().__init__(message, action, player, legal)
        self.game = game


class ActionArrayError(ArgumentError):
    """An action array of the wrong shape or type (a ``ValueError`` and a ``TypeError``)."""


class VectorConfigError(AllFivesError):
    """A bad argument to a :class:`~allfives_env.vector.engine.VectorGame` method other than
    the actions (a seed, an index, a seat, an ``out`` array), or a call that needs an option the
    engine was built without."""
