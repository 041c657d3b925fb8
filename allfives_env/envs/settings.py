"""The environments' settings and their checks, one rule for every front end (the AEC and
Gymnasium environments, the batched engine's front ends, RLlib's and the trainers' configs):
episode lengths, reward modes, forced actions, render modes, reset options, seeds, seats, and
the rules an environment is asked for (:func:`rules_of`); the errors they raise.
"""

from __future__ import annotations

import operator
import secrets
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from allfives_env.core.errors import IllegalActionError, RulesError
from allfives_env.core.rules import Rules
from allfives_env.core.seeds import SEED_LIMIT, SEED_RULE, as_seed

Episode = Literal["match", "hand"]
RewardMode = Literal["win", "points", "points+win"]
ForcedActions = Literal["explicit", "auto"]

EPISODES = ("match", "hand")
REWARDS = ("win", "points", "points+win")
FORCED = ("explicit", "auto")
RENDER_MODES = ("ansi", "human", "rgb_array")
DEFAULT_MAX_CYCLES = 10_000


class EnvConfigError(RulesError):
    """An environment argument or reset option that is unknown or out of range."""


class UnknownAgentError(EnvConfigError, KeyError):
    """An agent name that is not one of the env's ``possible_agents`` (a ``KeyError`` too, as
    a dict lookup would raise)."""

    def __str__(self) -> str:
        return str(self.args[0])


class ResetRequiredError(RuntimeError):
    """``step`` (or ``observe``, ``state``) was called before ``reset``, or after an error inside
    ``step`` left the episode unusable: call ``reset()``."""


class EpisodeOverError(ResetRequiredError, ValueError):
    """An action given after the episode ended: no agent is left to act (every agent is done
    and has been removed), so nothing can take it; call ``reset()``. Both a
    :class:`ResetRequiredError` and a ``ValueError`` (the action is refused, nothing changes)."""


class ActionSpaceError(IllegalActionError, AssertionError):
    """An action outside the acting agent's action space, given to the wrapped ``env()``
    (PettingZoo's ``AssertOutOfBoundsWrapper`` asserts this; here it is a typed error, and an
    ``AssertionError`` too, so that code written against PettingZoo's wrapper still catches
    it). Nothing changes."""


def done_agent_error(agent: str, terminated: bool, action: object) -> IllegalActionError:
    """The error for ``action`` given for ``agent`` once it is done: PettingZoo's rule is
    that such an agent's only action is ``None`` (which removes it)."""
    end = "terminated" if terminated else "truncated"
    return IllegalActionError(
        f"{agent} is done ({end}): the only action it may take is None, not {short_repr(action)}",
        action,
        None,
        (),
    )


RESET_OPTIONS = ("deal", "scores")
"""The keys ``reset(options=...)`` understands."""
PROBE_OPTION = "options"
"""The one unknown key ``reset`` lets pass (ignored): PettingZoo's own ``api_test`` sends
``options={"options": 1}`` to check that ``reset`` takes options."""


def check_seed(seed: object) -> int | None:
    """``seed`` as an ``int`` (NumPy integers too), or ``None``: Gymnasium's rule, one for
    every front end (``None`` leaves the choice to fresh entropy, an int seeds; the core's
    :func:`allfives_env.core.seeds.as_seed` decides what is a seed).

    Raises:
        EnvConfigError: for anything else (a negative number, one of 2**64 or more, a float, a
            string, a bool), naming it.
    """
    if seed is None:
        return None
    value = as_seed(seed)
    if value is None:
        raise EnvConfigError(f"seed must be {SEED_RULE}, or None, not {short_repr(seed)}")
    return value


def next_seed(seed: object, last: int | None) -> int:
    """The seed of a batch's reset: ``seed`` (checked by :func:`check_seed`), or for ``None``
    the last one plus one (fresh entropy on the first reset), as Gymnasium continues its
    generator when ``reset`` is given no seed.

    Raises:
        EnvConfigError: for a seed :func:`check_seed` refuses.
    """
    value = check_seed(seed)
    if value is not None:
        return value
    if last is None:
        return secrets.randbits(64)
    return (last + 1) % SEED_LIMIT


def short_repr(value: object, limit: int = 80) -> str:
    """``repr(value)``, cut to ``limit`` characters for an error message."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[: limit - 3]}..."


def check_seat(seat: object, num_players: int, what: str) -> int:
    """``seat`` as an ``int`` seat of a ``num_players`` game (NumPy integers too).

    Raises:
        EnvConfigError: naming ``what``, for anything else.
    """
    try:
        s = -1 if type(seat) is bool else operator.index(seat)  # type: ignore[arg-type]
    except TypeError:
        s = -1
    if not 0 <= s < num_players:
        raise EnvConfigError(f"{what}: no seat {seat!r} in a {num_players}-player game")
    return s


def rules_of(rules: str | Rules, num_players: int | None, partnerships: bool | None) -> Rules:
    """The rules an environment is asked for: a :class:`Rules` (which ``num_players`` and
    ``partnerships``, if given, must agree with) or a preset name (2 players by default; the
    preset's own partnerships unless given).

    Raises:
        EnvConfigError: for a disagreement, or rules that are neither.
        RulesError: for an unknown preset or a bad player count.
    """
    if isinstance(rules, Rules):
        if num_players is not None and num_players != rules.num_players:
            raise EnvConfigError(
                f"num_players={num_players!r} disagrees with the rules' {rules.num_players}"
            )
        if partnerships is not None and partnerships != rules.partnerships:
            raise EnvConfigError("partnerships disagrees with the rules given")
        return rules
    if not isinstance(rules, str):
        raise EnvConfigError(f"rules must be a preset name or a Rules, not {rules!r}")
    extra = {} if partnerships is None else {"partnerships": partnerships}
    return Rules.preset(rules, 2 if num_players is None else num_players, **extra)


def check_options(options: object) -> dict[str, Any]:
    """``reset``'s ``options`` as a dict of known keys.

    Raises:
        EnvConfigError: if it is not a mapping, or names an unknown key (bar
            :data:`PROBE_OPTION`).
    """
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise EnvConfigError(f"options must be a dict or None, not {options!r}")
    for key in options:
        if key not in RESET_OPTIONS and key != PROBE_OPTION:
            raise EnvConfigError(
                f"unknown reset option {key!r} (known: {', '.join(RESET_OPTIONS)})"
            )
    return dict(options)


def choose(value: Any, allowed: Sequence[str], name: str) -> Any:
    """``value`` if it is one of ``allowed``.

    Raises:
        EnvConfigError: naming the setting ``name`` and what it may be.
    """
    if value not in allowed:
        raise EnvConfigError(f"{name} must be one of {', '.join(allowed)}, not {value!r}")
    return value
