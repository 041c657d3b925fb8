"""The typed errors of the rules engine.

Every error a caller can cause is a ``ValueError`` subclass that names the bad input and where it
was met. None of them is raised after a state change: a refused call leaves everything as it was.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

LONGEST_WORD = 160
"""The longest run without a space an error's text quotes whole (a value given, a path)."""
LONGEST_MESSAGE = 600
"""The longest text an error shows."""


def shorten(text: str) -> str:
    """``text`` cut to a readable length: a run of more than :data:`LONGEST_WORD` characters
    without a space (a long value quoted) keeps its first 100 and last 40 and says how long it
    was; the whole keeps :data:`LONGEST_MESSAGE` characters.

    >>> shorten("unknown preset '" + "p" * 1000 + "'")[-40:]
    "ppppppppppppppppppppp' (1002 characters)"
    >>> len(shorten("x" * 10**6)) < 200
    True
    """
    out = re.sub(
        rf"\S{{{LONGEST_WORD + 1},}}",
        lambda m: f"{m.group()[:100]}...{m.group()[-40:]} ({len(m.group())} characters)",
        text,
    )
    return out if len(out) <= LONGEST_MESSAGE else f"{out[: LONGEST_MESSAGE - 3]}..."


class AllFivesError(ValueError):
    """Base class of every error the engine raises for bad caller input.

    Its text quotes what it was given cut to a readable length (:func:`shorten`); ``args``
    keep the message whole.
    """

    def __str__(self) -> str:
        return shorten(super().__str__())


class NotationError(AllFivesError):
    """A tile, slot or action written in text could not be read."""


class RulesError(AllFivesError):
    """An unknown preset or rules field, or a field value out of range."""


class DealError(AllFivesError):
    """An explicit deal that is not a legal deal under the rules (tiles, hand sizes, leader)."""


class IllegalActionError(AllFivesError):
    """An action that is not legal in the current position.

    Attributes:
        action: the refused action, as the caller gave it.
        player: the seat that was to act (``None`` when no one is, e.g. between hands).
        legal: the legal actions at that moment (empty when no one is to act).
    """

    def __init__(self, message: str, action: object, player: int | None, legal: Sequence[object]):
        super().__init__(message)
        self.action = action
        self.player = player
        self.legal = tuple(legal)


class RecordError(AllFivesError):
    """A game record that is malformed or does not replay under the rules.

    Attributes:
        hand: the hand the error is in, counted from 1 (``None`` for an error in the header).
        action: the action the error is at, counted from 1 within its hand (``None`` for an
            error in the deal, the leader or the header).
        field: the header field at fault (``"format"``, ``"rules.preset"``, ...), if any.
        reason: the reason alone, without the position.
    """

    def __init__(
        self,
        reason: str,
        *,
        hand: int | None = None,
        action: int | None = None,
        field: str | None = None,
    ):
        self.reason = reason
        self.hand = hand
        self.action = action
        self.field = field
        super().__init__(f"{self.position}: {reason}")

    @property
    def position(self) -> str:
        """Where the error is, as text: ``hand 2, action 7``, ``hand 1``, ``rules.preset``."""
        if self.field is not None:
            return self.field
        if self.hand is None:
            return "record"
        if self.action is None:
            return f"hand {self.hand}"
        return f"hand {self.hand}, action {self.action}"


class ArgumentError(AllFivesError, TypeError):
    """A call argument of the wrong kind or out of range: a seat that is not one, an ``int``
    where a ``random.Random`` is needed. Both a ``ValueError`` and a ``TypeError``."""
