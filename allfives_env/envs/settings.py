"""The environments' settings and their checks, one rule for every front end (the AEC and
Gymnasium environments, the batched engine and its front ends, RLlib's and the trainers'
configs): what an environment plays, checked once (:class:`EnvSettings`, whose
:meth:`~EnvSettings.of` every front end calls with its keywords, :data:`SettingsArgs`), the
rules an environment is asked for (:func:`rules_of`), render modes, reset options, seeds,
seats; the errors they raise.
"""

from __future__ import annotations

import operator
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypedDict, Unpack, cast

from allfives_env.core.errors import IllegalActionError, RulesError
from allfives_env.core.rules import Rules
from allfives_env.core.seeds import SEED_LIMIT, SEED_RULE, as_seed
from allfives_env.envs.blocks import feature_set

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


def rules_of(
    rules: str | Rules,
    num_players: int | None = None,
    partnerships: bool | None = None,
    *,
    max_pip: int | None = None,
    hand_size: int | None = None,
    target: int | None = None,
) -> Rules:
    """The rules an environment (or a command, a config) is asked for: a :class:`Rules` (which
    ``num_players`` and ``partnerships``, if given, must agree with) or a preset name (2
    players by default; the preset's own partnerships unless given); ``max_pip``, ``hand_size``
    and ``target``, where given (``None``: the preset's, or the Rules' own), replace its set,
    hand size and target.

    Raises:
        EnvConfigError: for a disagreement, or rules that are neither.
        RulesError: for an unknown preset, a bad player count, or a set, hand size or target
            the rules refuse (:meth:`Rules.preset`, :meth:`Rules.replace`).
    """
    changed = {
        key: value
        for key, value in (("max_pip", max_pip), ("hand_size", hand_size), ("target", target))
        if value is not None
    }
    if isinstance(rules, Rules):
        if num_players is not None and num_players != rules.num_players:
            raise EnvConfigError(
                f"num_players={num_players!r} disagrees with the rules' {rules.num_players}"
            )
        if partnerships is not None and partnerships != rules.partnerships:
            raise EnvConfigError("partnerships disagrees with the rules given")
        return rules.replace(**changed) if changed else rules
    if not isinstance(rules, str):
        raise EnvConfigError(f"rules must be a preset name or a Rules, not {rules!r}")
    if partnerships is not None:
        changed["partnerships"] = partnerships
    return Rules.preset(rules, 2 if num_players is None else num_players, **changed)


class SettingsArgs(TypedDict, total=False):
    """The keyword arguments of :meth:`EnvSettings.of` (bar ``rules``), for an environment that
    takes them as ``**settings: Unpack[SettingsArgs]``; each left out takes its default there
    (or the environment's own, where it says so)."""

    num_players: int | None
    partnerships: bool | None
    episode: str
    reward: str
    forced_actions: str
    action_features: bool | str
    max_cycles: int | None


SETTINGS_DEFAULTS: SettingsArgs = {
    "num_players": None,
    "partnerships": None,
    "episode": "match",
    "reward": "win",
    "forced_actions": "explicit",
    "action_features": False,
    "max_cycles": DEFAULT_MAX_CYCLES,
}
""":meth:`EnvSettings.of`'s defaults."""


@dataclass(frozen=True)
class EnvSettings:
    """What an environment plays, checked: the one value every front end (the AEC and
    Gymnasium environments, the batched engine and its front ends, the TorchRL and RLlib
    environments) builds from its keywords and passes down. Build it with :meth:`of`; the
    constructor checks the same (``rules`` must then be a :class:`Rules`), and so does
    ``dataclasses.replace``, so an ``EnvSettings`` is always a valid one.

    Raises:
        EnvConfigError: for a field of an unknown or out-of-range value (see :meth:`of`).
    """

    rules: Rules
    """The rules of every game."""
    episode: Episode = "match"
    """``"match"`` (between hands the next one is dealt at once) or ``"hand"``."""
    reward: RewardMode = "win"
    """``"win"`` (terminal, per side), ``"points"`` (dense) or ``"points+win"``."""
    forced_actions: ForcedActions = "explicit"
    """``"explicit"`` (a forced DRAW or PASS is an action to take) or ``"auto"`` (the
    environment takes it)."""
    action_features: bool | str = False
    """The observation's per-action blocks (:data:`~allfives_env.envs.blocks.FEATURE_SETS`:
    ``True`` and ``False`` are ``"basic"`` and ``"none"``), as given."""
    max_cycles: int | None = DEFAULT_MAX_CYCLES
    """Truncate an episode after this many steps (``None``: never)."""

    def __post_init__(self) -> None:
        if not isinstance(self.rules, Rules):
            raise EnvConfigError(f"rules must be a Rules, not {short_repr(self.rules)}")
        choose(self.episode, EPISODES, "episode")
        choose(self.reward, REWARDS, "reward")
        choose(self.forced_actions, FORCED, "forced_actions")
        max_cycles = self.max_cycles
        if max_cycles is not None and (type(max_cycles) is not int or max_cycles < 1):
            raise EnvConfigError(f"max_cycles must be a positive int or None, not {max_cycles!r}")
        try:
            feature_set(self.action_features)
        except ValueError as e:
            raise EnvConfigError(str(e)) from None

    @classmethod
    def of(
        cls,
        rules: str | Rules = "pagat",
        *,
        num_players: int | None = None,
        partnerships: bool | None = None,
        episode: str = "match",
        reward: str = "win",
        forced_actions: str = "explicit",
        action_features: bool | str = False,
        max_cycles: int | None = DEFAULT_MAX_CYCLES,
    ) -> EnvSettings:
        """The settings of these arguments, as every environment takes them: ``rules``,
        ``num_players`` and ``partnerships`` as :func:`rules_of`; ``episode``, ``reward``,
        ``forced_actions``, ``action_features`` and ``max_cycles`` the fields of the same
        names.

        Raises:
            EnvConfigError: for rules and a player count or partnerships that disagree, rules
                that are neither a name nor a :class:`Rules`, or an unknown or out-of-range
                ``episode``, ``reward``, ``forced_actions``, ``max_cycles`` (a positive int or
                ``None``) or ``action_features``, naming it (checked in that order).
            RulesError: for an unknown preset or a bad player count.
        """
        return cls(
            rules_of(rules, num_players, partnerships),
            cast(Episode, episode),
            cast(RewardMode, reward),
            cast(ForcedActions, forced_actions),
            action_features,
            max_cycles,
        )

    @property
    def num_players(self) -> int:
        """The players at the table (the rules')."""
        return self.rules.num_players


class SettingsFields:
    """The fields of an environment's :class:`EnvSettings` (its ``settings`` attribute) read as
    its own attributes: ``episode``, ``reward_mode`` (the ``reward`` setting),
    ``forced_actions``, ``action_features`` and ``max_cycles``."""

    settings: EnvSettings

    @property
    def episode(self) -> Episode:
        """``"match"`` or ``"hand"``."""
        return self.settings.episode

    @property
    def reward_mode(self) -> RewardMode:
        """The ``reward`` setting."""
        return self.settings.reward

    @property
    def forced_actions(self) -> ForcedActions:
        """``"explicit"`` or ``"auto"``."""
        return self.settings.forced_actions

    @property
    def action_features(self) -> bool | str:
        """The observation's per-action blocks, as given."""
        return self.settings.action_features

    @property
    def max_cycles(self) -> int | None:
        """The steps after which an episode is truncated (``None``: never)."""
        return self.settings.max_cycles


def settings_of(
    rules: str | Rules | EnvSettings,
    given: SettingsArgs,
    defaults: SettingsArgs | None = None,
) -> EnvSettings:
    """The settings an environment is given: ``rules`` itself where it is an
    :class:`EnvSettings` (then ``given``, the keywords the caller passed, must be empty), else
    :meth:`EnvSettings.of` of ``rules`` and ``given``, ``defaults`` filling in the keywords the
    caller left out (an environment whose defaults differ from :meth:`EnvSettings.of`'s).

    Raises:
        EnvConfigError: for keywords given beside an :class:`EnvSettings` (naming them), or as
            :meth:`EnvSettings.of`.
        RulesError: as :meth:`EnvSettings.of`.
        TypeError: for a keyword :meth:`EnvSettings.of` does not take.
    """
    if isinstance(rules, EnvSettings):
        if given:
            raise EnvConfigError(
                f"give the settings as an EnvSettings or as keywords, not both "
                f"({', '.join(sorted(given))} given beside an EnvSettings)"
            )
        return rules
    merged: SettingsArgs = {**(defaults or {}), **given}
    return EnvSettings.of(rules, **merged)


def given_settings(**settings: Unpack[SettingsArgs]) -> SettingsArgs:
    """The keywords of ``settings`` that differ from :data:`SETTINGS_DEFAULTS` (a value of
    another type counts as different): what a caller gave an environment whose signature
    spells the defaults out."""
    out: dict[str, object] = {}
    for key, value in settings.items():
        default = SETTINGS_DEFAULTS[key]  # type: ignore[literal-required]
        if type(value) is not type(default) or value != default:
            out[key] = value
    return cast(SettingsArgs, out)


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
