"""OpenSpiel's search bots as agents: ``openspiel-ismcts:sims=100`` and ``openspiel-mcts:sims=100``.

Both search the rest of the hand in the OpenSpiel game (:mod:`allfives_openspiel.game`, episode
``hand``), from a *world*: the unseen tiles dealt out consistently with the seat's view
(:func:`agents.sampler.sample_world`, honouring every known void), and value a line by its
zero-sum reward (the side's points minus the mean of all sides', to the hand's end), with
OpenSpiel's random-rollout evaluator.

* ``openspiel-ismcts`` is OpenSpiel's information-set MCTS
  (:class:`open_spiel.python.algorithms.ismcts.ISMCTSBot`) with its default settings: each
  simulation resamples a world (:meth:`AllFivesState.resample_from_infostate`, drawing from
  the agent's generator) and the tree's nodes are the acting seat's information states, so a
  node gathers every world that seat cannot tell apart.
* ``openspiel-mcts`` is determinized MCTS: OpenSpiel's
  :class:`open_spiel.python.algorithms.mcts.MCTSBot` on ``worlds`` sampled worlds, ``sims``
  simulations shared among them, the visit counts summed.

Parameters: ``sims`` (simulations per move, default 100), ``uct`` (the exploration constant, in
points; default 15, divided by 5 where scores count fives), ``worlds`` (``openspiel-mcts``: the
worlds per move, default 4; ``openspiel-ismcts``: at most this many distinct worlds, default
0: a new one every simulation), ``rollouts`` (random rollouts per leaf, default 1), read as
every spec's parameters are (:func:`agents.registry.parse_params`: a key given twice, or one
the bot does not take, is refused, the error quoting the spec). Every random choice comes from
the agent's generator, so a seeded match replays.
"""

from __future__ import annotations

import random

import numpy as np
from open_spiel.python.algorithms import ismcts, mcts

from agents.errors import AgentError
from agents.registry import parse_params
from agents.sampler import sample_world
from allfives_env.core.actions import ACTIONS, Action
from allfives_env.core.game import Game
from allfives_env.core.rules import Rules
from allfives_env.core.view import PlayerView
from allfives_openspiel.game import AllFivesGame
from allfives_openspiel.state import AllFivesState

_PARAMS = {"sims": int, "uct": float, "worlds": int, "rollouts": int}


class OpenSpielAgentError(AgentError):
    """A bad ``openspiel-*`` agent spec."""


def hand_game(rules: Rules) -> AllFivesGame:
    """The OpenSpiel game of one hand under ``rules`` exactly (any overrides), with terminal
    rewards, as :class:`mcts.MCTSBot` requires (the returns are the same either way)."""
    return AllFivesGame.for_rules(rules, episode="hand", rewards="terminal")


def world_state(game: AllFivesGame, view: PlayerView, rng: random.Random) -> AllFivesState:
    """An OpenSpiel state of a world consistent with ``view`` (a fresh episode from there)."""
    hands, boneyard = sample_world(view, rng)
    return AllFivesState.from_world(game, Game.from_view(view, hands, boneyard), view.hand_number)


class OpenSpielSearchAgent:
    """An OpenSpiel search bot at one seat (see the module docstring)."""

    def __init__(
        self,
        kind: str,
        sims: int = 100,
        uct: float | None = None,
        worlds: int | None = None,
        rollouts: int = 1,
    ):
        if kind not in ("ismcts", "mcts"):
            raise OpenSpielAgentError(f"no OpenSpiel agent {kind!r}")
        for key, value, low in (("sims", sims, 1), ("rollouts", rollouts, 1)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise OpenSpielAgentError(f"{key} must be an integer ≥ {low}, not {value!r}")
        if worlds is not None and (isinstance(worlds, bool) or not isinstance(worlds, int)
                                   or worlds < (1 if kind == "mcts" else 0)):  # fmt: skip
            raise OpenSpielAgentError(f"worlds must be a whole number ≥ 1, not {worlds!r}")
        if uct is not None and (isinstance(uct, bool) or not isinstance(uct, int | float)
                                or not uct > 0):  # fmt: skip
            raise OpenSpielAgentError(f"uct must be a positive number, not {uct!r}")
        self.kind = kind
        self.sims = sims
        self.uct = None if uct is None else float(uct)
        self.worlds = worlds if worlds is not None else (4 if kind == "mcts" else 0)
        self.rollouts = rollouts
        self.name = f"openspiel-{kind}"
        self._games: dict[Rules, AllFivesGame] = {}

    def __repr__(self) -> str:
        return (
            f"OpenSpielSearchAgent({self.kind!r}, sims={self.sims}, uct={self.uct}, "
            f"worlds={self.worlds}, rollouts={self.rollouts})"
        )

    def _game(self, rules: Rules) -> AllFivesGame:
        game = self._games.get(rules)
        if game is None:
            game = self._games[rules] = hand_game(rules)
        return game

    def act(self, view: PlayerView, rng: random.Random) -> Action:
        """The bot's choice for ``view``'s seat (the only legal action, without a search)."""
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        rules = view.rules
        game = self._game(rules)
        uct = self.uct if self.uct is not None else 15.0 / rules.unit
        np_rng = np.random.RandomState(rng.randrange(2**32))
        evaluator = mcts.RandomRolloutEvaluator(self.rollouts, np_rng)
        if self.kind == "ismcts":
            bot = ismcts.ISMCTSBot(
                game, evaluator, uct, self.sims,
                max_world_samples=self.worlds or ismcts.UNLIMITED_NUM_WORLD_SAMPLES,
                random_state=np_rng,
            )  # fmt: skip
            bot.set_resampler(lambda s, player: s.resample_from_infostate(player, rng.random))
            action = int(bot.step(world_state(game, view, rng)))
        else:
            counts: dict[int, int] = {}
            share = [self.sims // self.worlds + (k < self.sims % self.worlds)
                     for k in range(self.worlds)]  # fmt: skip
            for sims in share:
                if not sims:
                    continue
                bot = mcts.MCTSBot(game, uct, sims, evaluator, random_state=np_rng, solve=False)
                root = bot.mcts_search(world_state(game, view, rng))
                for child in root.children:
                    counts[child.action] = counts.get(child.action, 0) + child.explore_count
            action = max(sorted(counts), key=lambda a: counts[a])
        return ACTIONS[game.encoding.to_engine[action]]


def make_ismcts(argument: str) -> OpenSpielSearchAgent:
    """The entry point's factory: ``openspiel-ismcts:sims=100,uct=15`` → its agent.

    Raises:
        AgentError: quoting the spec, for a malformed or unknown parameter, a key given twice
            or a value out of range.
    """
    return _make("ismcts", argument)


def make_mcts(argument: str) -> OpenSpielSearchAgent:
    """The entry point's factory: ``openspiel-mcts:sims=100,worlds=4`` → its agent.

    Raises:
        AgentError: as :func:`make_ismcts`.
    """
    return _make("mcts", argument)


def _make(kind: str, argument: str) -> OpenSpielSearchAgent:
    spec = f"openspiel-{kind}:{argument}"
    params = parse_params(argument, spec)
    unknown = sorted(set(params) - set(_PARAMS))
    if unknown:
        raise OpenSpielAgentError(
            f"bad agent spec {spec!r}: unknown parameter(s) {', '.join(unknown)} "
            f"(known: {', '.join(_PARAMS)})"
        )
    try:
        return OpenSpielSearchAgent(kind, **params)
    except OpenSpielAgentError as e:
        raise OpenSpielAgentError(f"bad agent spec {spec!r}: {e}") from None
