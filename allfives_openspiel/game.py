"""All Fives as an OpenSpiel game: ``pyspiel.load_game("python_allfives(preset=pagat,players=2)")``.

The engine (:class:`allfives_env.core.game.Game`) plays every rule; this module only turns its
randomness into OpenSpiel's explicit chance nodes and keeps what OpenSpiel asks of a state
(rewards, whose turn, what each seat has seen). Observations and information states are
:mod:`allfives_openspiel.observer`'s.

**Parameters** (pyspiel checks each against its default's type):

======================  ==========  ======================================================
``preset``              ``pagat``   ``pagat``, ``spruce``, ``dominoes_cc``, ``pyatyorka``,
                                    ``five_up``
``players``             ``2``       2, 3 or 4
``partnerships``        ``preset``  the seating, as every front end names it: ``preset``, the
                                    preset's own (4 players: pairs 0+2 v 1+3 in ``pagat``,
                                    ``spruce`` and ``five_up``, each for himself in
                                    ``dominoes_cc`` and ``pyatyorka``); ``pairs`` (PettingZoo's
                                    ``partnerships=True``); ``each``, each for himself
                                    (``partnerships=False``). With 2–3 players all three are
                                    the same game.
``episode``             ``hand``    ``hand`` (one hand) or ``match`` (hands are dealt until a
                                    side reaches the target, or :data:`MAX_HANDS` have ended)
``rewards``             ``step``    ``step`` (``REWARDS`` model: points as they are scored)
                                    or ``terminal`` (``TERMINAL`` model: everything at the end)
``max_pip``             ``6``       the set, double-``max_pip`` (2 to 6; :attr:`Rules.max_pip`):
                                    6 is the 28 tiles, 2 the six tiles of double-two
``hand_size``           ``0``       tiles dealt to each seat; 0: the preset's (a smaller set
                                    needs a smaller hand: the hands must fit in the set)
``target``              ``0``       the score that wins a match; 0: the preset's
======================  ==========  ======================================================

A game's string (``str(game)``) names ``max_pip``, ``hand_size`` and ``target`` only where they
are not their defaults, so a double-six game of the preset's hands and target has the string of
earlier versions. Parameters the rules refuse (a set too small for the hands, a negative target)
raise :class:`ParameterError` in one line. The smallest game,
``python_allfives(preset=pagat,players=2,max_pip=2,hand_size=2)``, is small enough for exact
algorithms (``exploitability.nash_conv`` of a policy).

**Seating, and game strings of 0.16 and before.** OpenSpiel's parameters cannot be ``None``,
so the three seatings that the environments spell ``partnerships=None/True/False`` are spelled
``preset``, ``pairs`` and ``each`` here: the same three games. Up to 0.16 this parameter was a
bool, ``true`` meaning the preset's own seating; pyspiel now refuses such a string with its type
error, and :func:`upgrade_game_string` (or :func:`load_game`, which upgrades and loads) turns it
into today's spelling of the same game (``true`` → ``preset``, ``false`` → ``each``).

**Chance.** A hand starts with one chance node per dealt tile: seat 0's tiles, then seat 1's,
each outcome a tile id of the set (0–27 for double-six; a smaller set keeps the double-six ids
of its tiles, so ``max_chance_outcomes`` is its largest id + 1) with probability 1/(tiles
left). Where the rules choose the leader by lot, one more chance node draws the seat
(outcomes: seat numbers, equally likely). Each draw from the boneyard is a player's ``draw``
action followed by a chance node for the tile, uniform over the undrawn tiles (the engine's
boneyard order is decided as it is drawn, :meth:`Game.stack_next_draw`, so the game's record
replays it). :meth:`AllFivesState.chance_outcomes` raises ``pyspiel.SpielError`` anywhere
else, as OpenSpiel's C++ games do.

**Actions** are the environment's action ids (:class:`allfives_env.envs.spaces.Encoding`:
``tile × slots + slot``, then draw and pass; for a smaller set ``tile`` is the tile's rank in
the set, so ``num_distinct_actions`` is ``T × slots + 2`` for its T tiles) and print in the
project's notation (``"4-1 E"``, ``"draw"``, ``"pass"``); chance outcomes print as ``"deal 3-5
to seat 1"``, ``"lot: seat 2"``, ``"seat 0 draws 6-6"``.

**Rewards.** A player's return is his side's points (placements, and awards when a hand ends,
in the rules' unit) minus the mean of all sides' points, so the game is zero-sum.
``rewards=step`` pays them as they are scored: after each action, what it and the chance
events after it scored. ``rewards=terminal`` pays nothing until the end, then the whole
return (``rewards()`` and ``returns()`` are zero before). :meth:`AllFivesState.scores` holds
the plain scores.

**Matches** end when a side reaches its target or when hand :data:`MAX_HANDS` has ended, as
the project's match loop stops after ``max_hands`` hands (:meth:`agents.eval.match.Match.play`):
the returns are then the margins so far and nobody has won.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pyspiel

from allfives_env.core.errors import RulesError
from allfives_env.core.rules import Rules
from allfives_env.core.tiles import MAX_PIP, set_size
from allfives_env.envs.settings import EPISODES, rules_of
from allfives_env.envs.spaces import Encoding
from allfives_openspiel.observer import AllFivesObserver
from allfives_openspiel.state import AllFivesState, Floats, Ints, Table

SHORT_NAME = "python_allfives"
MAX_HANDS = 200
"""The most hands a match lasts (the project's match-length cap): after hand 200 ends, the
episode is over whatever the scores."""


def moves_per_hand(num_tiles: int) -> int:
    """A bound on one hand's player moves with a set of ``num_tiles`` tiles (chance nodes apart,
    as OpenSpiel counts a game's length): a placement per tile, at most a draw per tile, and
    fewer than 4 passes around each placement (a hand ends once nobody can place or draw)."""
    return num_tiles + num_tiles + (num_tiles + 1) * 4


MOVES_PER_HAND = moves_per_hand(set_size(MAX_PIP))
""":func:`moves_per_hand` of the double-six set: 28 placements, at most 28 draws, and fewer
than 4 passes around each placement."""
REWARD_MODES = ("step", "terminal")
SEATINGS: dict[str, bool | None] = {"preset": None, "pairs": True, "each": False}
"""The ``partnerships`` parameter's values, and the environments' ``partnerships`` each names."""

_DEFAULTS: dict[str, Any] = {
    "preset": "pagat",
    "players": 2,
    "partnerships": "preset",
    "episode": "hand",
    "rewards": "step",
    "max_pip": MAX_PIP,
    "hand_size": 0,
    "target": 0,
}
_SET_PARAMS = ("max_pip", "hand_size", "target")
"""The parameters a game string names only where they are not their defaults."""


def game_type(rewards: str = "step") -> pyspiel.GameType:
    """The game's type; its reward model follows the ``rewards`` parameter."""
    model = pyspiel.GameType.RewardModel
    return pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name="All Fives (Muggins) dominoes",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=model.TERMINAL if rewards == "terminal" else model.REWARDS,
        max_num_players=4,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_DEFAULTS,
    )


GAME_TYPE = game_type()
"""The registered type (``rewards=step``); a game made with ``rewards=terminal`` reports the
``TERMINAL`` reward model from ``get_type()``."""


class ParameterError(ValueError):
    """A game parameter OpenSpiel was given that the game cannot take."""


@dataclass(frozen=True, slots=True)
class Settings:
    """The game parameters, read and checked."""

    rules: Rules
    episode: str
    rewards: str


def settings_from_params(params: dict[str, Any]) -> Settings:
    """The rules, episode and reward mode the game parameters name (defaults filled in).

    Raises:
        ParameterError: for an unknown parameter, preset, player count, episode or reward
            mode, a ``partnerships`` that is not one of :data:`SEATINGS`, or a ``max_pip``,
            ``hand_size`` or ``target`` the rules refuse (a set too small for the hands),
            in one line.
    """
    unknown = sorted(set(params) - set(_DEFAULTS))
    if unknown:
        raise ParameterError(f"unknown parameter(s) {unknown} (known: {sorted(_DEFAULTS)})")
    p = {**_DEFAULTS, **params}
    episode, rewards, partnerships = str(p["episode"]), str(p["rewards"]), p["partnerships"]
    if episode not in EPISODES:
        raise ParameterError(f"episode must be hand or match, not {episode!r}")
    if rewards not in REWARD_MODES:
        raise ParameterError(f"rewards must be step or terminal, not {rewards!r}")
    if not isinstance(partnerships, str) or partnerships not in SEATINGS:
        old = isinstance(partnerships, bool)
        raise ParameterError(
            f"partnerships must be preset, pairs or each, not {partnerships!r}"
            + (
                f" (the bool of 0.16 and before: {str(partnerships).lower()} is now "
                f"{'preset' if partnerships else 'each'}; allfives_openspiel.game."
                "upgrade_game_string rewrites a game string)"
                if old
                else ""
            )
        )
    try:
        rules = rules_of(str(p["preset"]), int(p["players"]), SEATINGS[partnerships])
    except ValueError as e:
        raise ParameterError(str(e)) from None
    fields: dict[str, int] = {}
    for key in _SET_PARAMS:
        value = p[key]
        if type(value) is not int or value < 0:
            raise ParameterError(f"{key} must be a whole number of at least 0, not {value!r}")
        if value != _DEFAULTS[key] and (value or key == "max_pip"):  # 0: the preset's
            fields[key] = value
    if fields:
        try:
            rules = Rules.preset(
                rules.name, rules.num_players, partnerships=rules.partnerships, **fields
            )
        except RulesError as e:
            raise ParameterError(str(e)) from None
    return Settings(rules, episode, rewards)


def params_of(rules: Rules, episode: str = "hand", rewards: str = "step") -> dict[str, Any]:
    """The parameters that name ``rules`` as nearly as they can: preset, players and seating
    (``preset`` where it is the preset's own, else ``pairs`` or ``each``), and ``max_pip``,
    ``hand_size`` and ``target`` where they differ from the preset's. Other overrides have no
    parameter."""
    own = Rules.preset(rules.name, rules.num_players)
    seating = (
        "preset" if rules.partnerships == own.partnerships else "pairs" if rules.partnerships
        else "each"
    )  # fmt: skip
    params: dict[str, Any] = {
        "preset": rules.name,
        "players": rules.num_players,
        "partnerships": seating,
        "episode": episode,
        "rewards": rewards,
    }
    for key in _SET_PARAMS:
        if getattr(rules, key) != getattr(own, key):
            params[key] = getattr(rules, key)
    return params


def game_string_params(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` with every default filled in, less ``max_pip``, ``hand_size`` and ``target``
    where they are their defaults: what ``str(game)`` names."""
    full = {**_DEFAULTS, **params}
    return {k: v for k, v in full.items() if k not in _SET_PARAMS or v != _DEFAULTS[k]}


class AllFivesGame(pyspiel.Game):  # type: ignore[misc]
    """The game; ``pyspiel.load_game`` makes it from its parameters.

    Args:
        params: the game parameters (see the module docstring); pyspiel passes every one,
            defaults filled in.
        rules: (Python only) play these rules instead of the ones ``params`` name, for a search
            over rules no parameter can name (an exact target, another leader rule):
            ``str(game)`` then names only what :func:`params_of` can, so such a game
            is for in-process use, not for ``load_game`` or serialization. See
            :meth:`for_rules`.

    Raises:
        ParameterError: for parameters :func:`settings_from_params` refuses, or ``rules`` with
            another player count.
    """

    def __init__(self, params: dict[str, Any] | None = None, *, rules: Rules | None = None):
        params = dict(params or {})
        settings = settings_from_params(params)
        if rules is not None and rules.num_players != settings.rules.num_players:
            raise ParameterError(f"rules for {rules.num_players} players, params for another")
        self.rules = rules if rules is not None else settings.rules
        self.episode = settings.episode
        self.reward_mode = settings.rewards
        self.max_hands = 1 if self.episode == "hand" else MAX_HANDS
        self.encoding = Encoding(self.rules)
        n = self.rules.num_players
        tiles = Ints(int(t) for t in self.rules.tiles)
        self.table = Table(
            sides=tuple(self.rules.side_of(s) for s in range(n)),
            num_sides=self.rules.num_sides,
            hand_size=self.rules.hand_size,
            max_hands=self.max_hands,
            match=self.episode == "match",
            terminal_rewards=self.reward_mode == "terminal",
            zero=Floats((0.0,) * n),
            same_ids=self.encoding.to_env[: self.encoding.num_actions]
            == list(range(self.encoding.num_actions)),
            tiles=tiles,
        )
        # a score never passes the target by more than a hand's worth; only spruce's hand end
        # takes points away: at most round5(168) a side per hand
        loss = 170 * self.max_hands if self.rules.award == "lose_own" else 0
        bound = float(self.rules.target + 230 + loss)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.encoding.num_actions,
            max_chance_outcomes=tiles[-1] + 1,  # the set's largest id (27 for double-six)
            num_players=self.rules.num_players,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=moves_per_hand(len(tiles)) * self.max_hands,
        )
        super().__init__(game_type(self.reward_mode), info, game_string_params(params))

    @classmethod
    def for_rules(cls, rules: Rules, episode: str = "hand", rewards: str = "step") -> AllFivesGame:
        """The game of ``rules`` exactly, parameters or not (see ``rules`` above).

        Raises:
            ParameterError: for an unknown episode or reward mode.
        """
        return cls(params_of(rules, episode, rewards), rules=rules)

    def new_initial_state(self) -> AllFivesState:
        """The state before the first tile is dealt."""
        return AllFivesState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> AllFivesObserver:
        """The observer OpenSpiel's ``make_observation`` asks for (``None``: the default
        observation; see :class:`allfives_openspiel.observer.AllFivesObserver`).

        Raises:
            ParameterError: for any observation parameter (there are none).
        """
        if params:
            raise ParameterError(f"observation parameters are not supported: {params}")
        return AllFivesObserver(self, iig_obs_type)


_LEGACY_SEATING = re.compile(r"(?<=[(,])(\s*partnerships\s*=\s*)(true|false)(?=\s*[,)])", re.I)


def upgrade_game_string(game_string: str) -> str:
    """``game_string`` with a ``partnerships`` of 0.16 and before (a bool) in today's spelling of
    the same game: ``true`` → ``preset`` (the preset's own seating), ``false`` → ``each``.
    Anything else is returned as it is."""
    if not game_string.lstrip().startswith(SHORT_NAME):
        return game_string
    return _LEGACY_SEATING.sub(
        lambda m: m.group(1) + ("preset" if m.group(2).lower() == "true" else "each"), game_string
    )


def load_game(game_string: str) -> pyspiel.Game:
    """``pyspiel.load_game`` of :func:`upgrade_game_string` ``(game_string)``: a game string of
    any version of this package loads the game it named."""
    return pyspiel.load_game(upgrade_game_string(game_string))


pyspiel.register_game(GAME_TYPE, AllFivesGame)
