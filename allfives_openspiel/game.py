"""All Fives as an OpenSpiel game: ``pyspiel.load_game("python_allfives(preset=pagat,players=2)")``.

The engine (:class:`allfives_env.core.game.Game`) plays every rule; this module only turns its
randomness into OpenSpiel's explicit chance nodes and its positions into OpenSpiel's views.

**Parameters.** ``preset`` (default ``pagat``), ``players`` (2–4), ``partnerships`` (4
players: ``true``/``false``; default the preset's) and ``episode``: ``hand`` (one hand; the
default) or ``match`` (hands are dealt until a side reaches the target).

**Chance.** A hand starts with one chance node per dealt tile: seat 0's tiles, then seat 1's,
each outcome a tile id (0–27) with probability 1/(tiles left). Where the rules choose the
leader by lot, one more chance node draws the seat (outcomes: seat numbers, equally likely).
Each draw from the boneyard is a player's ``draw`` action followed by a chance node for the
tile, uniform over the undrawn tiles (the engine's boneyard order is decided as it is drawn,
:meth:`Game.stack_next_draw`, so the game's record replays it).

**Actions** are the environment's action ids (:class:`allfives_env.envs.spaces.Encoding`:
``tile × slots + slot``, then draw and pass) and print in the project's notation (``"4-1 E"``,
``"draw"``, ``"pass"``); chance outcomes print as ``"deal 3-5 to seat 1"``, ``"lot: seat 2"``,
``"seat 0 draws 6-6"``.

**Rewards** (``REWARDS`` model): after every action each player receives the points his side
scored with it (placements, and awards when a hand ends, in the rules' unit) minus the mean
of what all sides scored, so the game is zero-sum; :meth:`AllFivesState.returns` sums them,
and :meth:`AllFivesState.scores` holds the plain scores.

**Observations.** The tensors (observation and information state alike) are the environment's
observation vector of the seat (``Encoding``, ``basic`` action features). The observation
string is the seat's view now: its hand, the layout, the hand sizes, the boneyard, the scores,
the known voids and this hand's public moves. The information state string adds the seat's
private history: the tiles dealt to it and the tiles it drew, in order, in every hand. Both
are built from what the seat may see (a test reshuffles every hidden tile and compares).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from allfives_env.core.actions import ACTIONS, DRAW_ID
from allfives_env.core.deal import Deal, leader_choice
from allfives_env.core.game import Game
from allfives_env.core.render import render_layout
from allfives_env.core.rules import Rules
from allfives_env.core.tiles import NUM_TILES, TILES
from allfives_env.core.view import PlayerView
from allfives_env.envs.settings import EPISODES, rules_of
from allfives_env.envs.spaces import Encoding

SHORT_NAME = "python_allfives"
MAX_HANDS = 200
"""The bound on hands in a match that :attr:`max_game_length` assumes."""
MOVES_PER_HAND = 28 + 28 + 29 * 4
"""A bound on one hand's moves: 28 placements, 28 draws, and fewer than 4 passes around each
placement (a hand ends once nobody can place or draw)."""

_DEFAULTS = {"preset": "pagat", "players": 2, "partnerships": "default", "episode": "hand"}

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="All Fives (Muggins) dominoes",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)


class ParameterError(ValueError):
    """A game parameter OpenSpiel was given that the game cannot take."""


def rules_from_params(params: dict[str, Any]) -> tuple[Rules, str]:
    """The rules and the episode kind the game parameters name.

    Raises:
        ParameterError: for an unknown parameter, preset, player count or episode.
    """
    unknown = sorted(set(params) - set(_DEFAULTS))
    if unknown:
        raise ParameterError(f"unknown parameter(s) {unknown} (known: {sorted(_DEFAULTS)})")
    p = {**_DEFAULTS, **params}
    episode = str(p["episode"])
    if episode not in EPISODES:
        raise ParameterError(f"episode must be hand or match, not {episode!r}")
    partnerships = p["partnerships"]
    pairs: bool | None = None
    if partnerships != "default":
        if isinstance(partnerships, str):
            if partnerships not in ("true", "false"):
                raise ParameterError(f"partnerships must be true or false, not {partnerships!r}")
            partnerships = partnerships == "true"
        pairs = bool(partnerships)
    try:
        rules = rules_of(str(p["preset"]), int(p["players"]), pairs)
    except ValueError as e:
        raise ParameterError(str(e)) from None
    return rules, episode


class AllFivesGame(pyspiel.Game):  # type: ignore[misc]
    """The game; ``pyspiel.load_game`` makes it from its parameters."""

    def __init__(self, params: dict[str, Any] | None = None):
        params = dict(params or {})
        self.rules, self.episode = rules_from_params(params)
        self.encoding = Encoding(self.rules)
        bound = float(self.rules.target + 230)  # a score never passes target + a hand's worth
        length = MOVES_PER_HAND * (MAX_HANDS if self.episode == "match" else 1)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.encoding.num_actions,
            max_chance_outcomes=NUM_TILES,
            num_players=self.rules.num_players,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=length,
        )
        super().__init__(GAME_TYPE, info, params)

    def new_initial_state(self) -> AllFivesState:
        """The state before the first tile is dealt."""
        return AllFivesState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> AllFivesObserver:
        """The observer OpenSpiel's ``make_observation`` asks for."""
        if params:
            raise ParameterError(f"observation parameters are not supported: {params}")
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return AllFivesObserver(self, perfect_recall)


class AllFivesState(pyspiel.State):  # type: ignore[misc]
    """A position: dealing (chance), playing (the engine), drawing (chance), or over."""

    def __init__(self, game: AllFivesGame, world: Game | None = None):
        super().__init__(game)
        self.rules = game.rules
        self.episode = game.episode
        self.encoding = game.encoding
        n = self.rules.num_players
        self.engine: Game | None = world
        self.dealing: list[list[int]] = [] if world is not None else [[] for _ in range(n)]
        self.lot: tuple[int, ...] = ()  # seats a lot chooses among, when one is pending
        self.drawing = False  # a draw action awaits its chance node
        self.private: list[list[str]] = [[] for _ in range(n)]  # per seat: dealt, drew
        self.returns_ = [0.0] * n
        self.rewards_ = [0.0] * n

    # ------------------------------------------------------------------ whose turn

    def current_player(self) -> int:
        """The seat to act, ``CHANCE`` or ``TERMINAL``."""
        if self.dealing or self.lot or self.drawing:
            return int(pyspiel.PlayerId.CHANCE)
        g = self.engine
        assert g is not None
        if g.is_match_over or (g.current_player is None and self.episode == "hand"):
            return int(pyspiel.PlayerId.TERMINAL)
        if g.current_player is None:  # the next hand is to be dealt: a chance node
            return int(pyspiel.PlayerId.CHANCE)
        return g.current_player

    def is_terminal(self) -> bool:
        """Whether the episode is over."""
        return bool(self.current_player() == pyspiel.PlayerId.TERMINAL)

    def _legal_actions(self, player: int) -> list[int]:
        g = self.engine
        assert g is not None and player == g.current_player
        to_env = self.encoding.to_env
        return sorted(to_env[a] for a in g.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The chance outcomes and their probabilities: a tile to deal or draw, or a seat."""
        if self.lot:
            return [(s, 1.0 / len(self.lot)) for s in self.lot]
        if self.drawing:
            assert self.engine is not None
            pool = sorted(int(t) for t in self.engine.boneyard)
        else:  # dealing (between hands of a match, nothing is dealt yet)
            dealt = {t for h in self.dealing for t in h}
            pool = [t for t in range(NUM_TILES) if t not in dealt]
        return [(t, 1.0 / len(pool)) for t in pool]

    # ------------------------------------------------------------------ moves

    def _apply_action(self, action: int) -> None:
        if self.is_chance_node():  # what chance brings adds to the last move's rewards
            self._apply_chance(int(action))
            return
        self.rewards_ = [0.0] * self.rules.num_players
        g = self.engine
        assert g is not None
        engine_action = ACTIONS[self.encoding.to_engine[action]]
        if not g.is_legal(engine_action):
            raise pyspiel.SpielError(
                f"illegal action {engine_action} for seat {g.current_player}: "
                f"{g.why_illegal(engine_action)}"
            )
        if engine_action == DRAW_ID:
            self.drawing = True  # the tile is chance's
            return
        self._engine_step(engine_action)

    def _apply_chance(self, outcome: int) -> None:
        if self.lot:
            leader = outcome
            self.lot = ()
            self._start_hand(leader)
            return
        if self.drawing:
            g = self.engine
            assert g is not None
            g.stack_next_draw(outcome)
            seat = g.current_player
            assert seat is not None
            self.private[seat].append(f"drew {TILES[outcome]}")
            self.drawing = False
            self._engine_step(ACTIONS[DRAW_ID])
            return
        if not self.dealing:
            self.dealing = [[] for _ in range(self.rules.num_players)]
        seat = self._dealing_to()
        self.dealing[seat].append(outcome)
        if all(len(h) == self.rules.hand_size for h in self.dealing):
            hands = [sorted(h) for h in self.dealing]
            choice = (
                self.engine.leader_choice_for(hands)
                if self.engine is not None
                else leader_choice(self.rules, None, hands)
            )
            if choice.by_lot:
                self.lot = choice.seats
            else:
                self._start_hand(None)

    def _dealing_to(self) -> int:
        """The seat the next dealt tile goes to (seat 0's tiles first, then seat 1's...)."""
        k = self.rules.hand_size
        return next((s for s, h in enumerate(self.dealing) if len(h) < k), 0)

    def _start_hand(self, leader: int | None) -> None:
        hands = tuple(tuple(TILES[t] for t in sorted(h)) for h in self.dealing)
        dealt = {t for h in self.dealing for t in h}
        boneyard = tuple(TILES[t] for t in range(NUM_TILES) if t not in dealt)
        deal = Deal(hands, boneyard, leader)
        if self.engine is None:
            self.engine = Game(self.rules, deal=deal)
        else:
            before = self.engine.scores
            self.engine.deal(deal=deal)
            assert self.engine.scores == before
        hand = self.engine.hand_number
        for s, h in enumerate(hands):
            self.private[s].append(f"hand {hand} dealt {' '.join(map(str, h))}")
        self.dealing = []

    def _engine_step(self, action: Any) -> None:
        g = self.engine
        assert g is not None
        before = g.scores
        g.apply(action)
        delta = [a - b for a, b in zip(g.scores, before, strict=True)]
        mean = sum(delta) / len(delta)
        got = [float(delta[self.rules.side_of(s)] - mean) for s in range(len(self.rewards_))]
        self.rewards_ = [a + b for a, b in zip(self.rewards_, got, strict=True)]
        self.returns_ = [a + b for a, b in zip(self.returns_, got, strict=True)]

    # ------------------------------------------------------------------ outcomes

    def rewards(self) -> list[float]:
        """What each player received since the last decision: for the last player action and
        the chance events after it (a draw that blocks the hand scores; zero-sum)."""
        return list(self.rewards_)

    def returns(self) -> list[float]:
        """Each player's rewards summed over the episode so far."""
        return list(self.returns_)

    def scores(self) -> tuple[float, ...]:
        """Each side's score, as the engine keeps it (all zero before the first deal)."""
        if self.engine is None:
            return (0,) * self.rules.num_sides
        return self.engine.scores

    # ------------------------------------------------------------------ text

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self.lot:
                return f"lot: seat {action}"
            if self.drawing:
                seat = self.engine.current_player if self.engine is not None else "?"
                return f"seat {seat} draws {TILES[action]}"
            seat = self._dealing_to()
            return f"deal {TILES[action]} to seat {seat}"
        return self.encoding.action_name(action)

    def view(self, player: int) -> PlayerView | None:
        """``player``'s view, once a hand has been dealt."""
        return None if self.engine is None else self.engine.view(player)

    def __str__(self) -> str:
        if self.engine is None:
            return f"dealing: {[len(h) for h in self.dealing]} tiles dealt"
        return str(self.engine)

    def __deepcopy__(self, memo: dict[int, Any]) -> AllFivesState:
        """A copy that shares nothing mutable (for ``clone``)."""
        c = AllFivesState(self.get_game(), self.engine.clone() if self.engine else None)
        c.dealing = [h[:] for h in self.dealing]
        c.lot = self.lot
        c.drawing = self.drawing
        c.private = [p[:] for p in self.private]
        c.returns_ = self.returns_[:]
        c.rewards_ = self.rewards_[:]
        return c


def observation_text(view: PlayerView) -> str:
    """A seat's view as one line: what :class:`AllFivesObserver` prints."""
    events = " ".join(f"{e.seat}:{ACTIONS[e.action]}" for e in view.events)
    voids = ",".join(
        "".join(map(str, view.voids_of(s))) or "-" for s in range(len(view.hand_sizes))
    )
    drawn = f" (drew {view.drawn_tile}, to place)" if view.drawn_tile is not None else ""
    return (
        f"seat {view.seat} | hand {view.hand_number} | mine {' '.join(map(str, view.hand))}"
        f"{drawn} | layout {' / '.join(render_layout(view.layout))} ({view.layout.describe()})"
        f" | sizes {'/'.join(map(str, view.hand_sizes))} | boneyard {view.boneyard_size}"
        f" | scores {':'.join(map(str, view.scores))} | to act {view.current_player}"
        f" | phase {view.phase.name} | draws {view.draws_this_turn} | voids {voids}"
        f" | moves {events}"
    )


class AllFivesObserver:
    """OpenSpiel's observer: a tensor (the environment's observation) and a string."""

    def __init__(self, game: AllFivesGame, perfect_recall: bool):
        self.game = game
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(game.encoding.obs_size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: AllFivesState, player: int) -> None:
        """Fill :attr:`tensor` with ``player``'s observation (zeros before the first deal)."""
        if state.engine is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = self.game.encoding.observe(state.engine, player)

    def string_from(self, state: AllFivesState, player: int) -> str:
        """``player``'s observation string; with perfect recall, with its private history."""
        view = state.view(player)
        now = f"seat {player} | dealing" if view is None else observation_text(view)
        if not self.perfect_recall:
            return now
        past = [
            f"hand {k + 1}: {' '.join(f'{e.seat}:{ACTIONS[e.action]}' for e in log.events)}"
            for k, log in enumerate(state.engine.hand_log[:-1] if state.engine else [])
        ]
        return " || ".join([now, *state.private[player], *past])


pyspiel.register_game(GAME_TYPE, AllFivesGame)
