"""The search agent: determinized Monte Carlo search (perfect-information Monte Carlo, PIMC).

For each simulation round a *world* is sampled from the view (:func:`agents.sampler.sample_world`:
the unseen tiles dealt consistently with everything public) and built with
:meth:`Game.from_view`. Every candidate action is then tried in that same world (common random
numbers: the same world and the same rollout seed for each action, so their difference is not
drowned in deal noise): the action is applied and the rest of the hand is played out by a fast
rollout policy for every seat.

A simulation is worth the viewer's side's points gained from now to the end of the hand (the
hand award included) minus the mean of the other sides' gains. If a side reaches its target
during the rollout, the match ends there and the winner's side gets :data:`WIN_BONUS` times the
target (a loss costs as much). The action with the highest mean wins; ties go to the heavier
tile, then the lower action id.

Rollout policies: ``greedy`` (the placement that scores most now, exact target respected,
random tie-breaks; never draws by choice) and ``heuristic`` (:mod:`agents.heuristic` for every
seat, from that seat's knowledge of the world; much slower).

DRAW, where the rules let a player draw while able to place (five_up), is a candidate like any
placement. With ``hoard`` (``search:hoard=true``) the rollouts may draw too: every seat plays
the heuristic's ``hoard`` rule (:func:`agents.heuristic.choose`: draw while able unless the
chosen placement is decisive) over its rollout choice, so the search sees what a placement
that leaves the boneyard to the next seat costs, and what drawing it dry gains. Without it the
rollouts never draw by choice, and the search misjudges both.
"""

from __future__ import annotations

import functools
import random
import time as _time
from collections.abc import Callable, Sequence

from agents.heuristic import choose, decisive
from agents.sampler import sample_world
from allfives_env.core.actions import DRAW_ID, SLOT_OF, TILE_OF, Action
from allfives_env.core.game import Game
from allfives_env.core.scoring import admitted, count_points, reaches_target
from allfives_env.core.tiles import PIPS
from allfives_env.core.view import PlayerView
from allfives_env.envs.outlook import Position

WIN_BONUS = 1.0
"""Worth of winning the match in a rollout, as a multiple of the target (losing: minus it)."""
WIN_MARK = 10_000
"""What the rollout's greedy choice makes of a placement that reaches the target."""
ROLLOUTS = ("greedy", "heuristic")
"""The rollout policies."""


def greedy_step(game: Game, rng: random.Random) -> Action:
    """The rollout's greedy choice: most points now (exact target respected), random ties."""
    legal = game.legal_actions()
    if len(legal) == 1:
        return legal[0]
    lay = game.layout
    rules = game.rules
    unit = rules.unit
    seat = game.current_player
    assert seat is not None
    score = game.scores[rules.side_of(seat)]
    best = -1.0
    pick = legal[0]
    ties = 0
    for a in legal:
        if a >= DRAW_ID:
            continue
        pts = count_points(lay.count_after(TILE_OF[a], SLOT_OF[a]), unit)
        if pts:
            if not admitted(rules, score, pts):
                pts = 0
            elif reaches_target(rules, score + pts):
                pts = WIN_MARK
        if pts > best:
            best, pick, ties = pts, a, 1
        elif pts == best:
            ties += 1
            if rng.randrange(ties) == 0:
                pick = a
    return pick


def heuristic_step(game: Game, rng: random.Random, hoard: bool = False) -> Action:
    """The rollout's heuristic choice (:func:`agents.heuristic.choose` for the player to act,
    with its ``hoard`` rule or not)."""
    legal = game.legal_actions()
    if len(legal) == 1:
        return legal[0]
    return choose(Position.of_game(game), legal, hoard)


def hoarding_greedy_step(game: Game, rng: random.Random) -> Action:
    """:func:`greedy_step`, but DRAW where it is legal beside the chosen placement and that
    placement is not decisive (the heuristic's ``hoard`` rule over the greedy choice)."""
    action = greedy_step(game, rng)
    if action >= DRAW_ID or not game.rules.draw_when_able:
        return action
    draw = next((a for a in game.legal_actions() if a == DRAW_ID), None)
    if draw is None or decisive(Position.of_game(game), action):
        return action
    return draw


def best_index(legal: Sequence[Action], values: Sequence[float]) -> int:
    """The index of the action of highest value; ties go to the heavier tile, then the lower
    action id (a draw or pass counts as the lightest)."""
    return max(
        range(len(legal)),
        key=lambda i: (
            values[i],
            PIPS[TILE_OF[legal[i]]] if legal[i].is_placement else -1,
            -legal[i],
        ),
    )


class ValueSearch:
    """An agent that values every legal action (:meth:`evaluate`) and plays the best
    (:func:`best_index`). A forced action is played at once."""

    def evaluate(self, view: PlayerView, rng: random.Random) -> list[float]:
        """Each legal action's value (same order as ``view.legal_actions``)."""
        raise NotImplementedError

    def rounds(self) -> int | None:
        """How many rollouts each of :meth:`evaluate`'s values sums; ``None`` where it varies
        from move to move."""
        return None

    def act(self, view: PlayerView, rng: random.Random) -> Action:
        """The action of highest value."""
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        return legal[best_index(legal, self.evaluate(view, rng))]


class SearchAgent(ValueSearch):
    """Determinized Monte Carlo search over the legal actions (see the module docstring).

    Args:
        sims: simulation rounds per move (each samples one world for every candidate).
        time: a budget in seconds per move; the search stops after the round that spends it
            (at least one round). Unset: exactly ``sims`` rounds, deterministic under a seed.
        rollout: the rollout policy, ``"greedy"`` or ``"heuristic"``.
        hoard: the rollouts draw while able by the heuristic's ``hoard`` rule, where the rules
            allow it (see the module docstring); default off.

    Raises:
        ValueError: for ``sims`` below 1, a ``time`` that is not positive, an unknown
            ``rollout``, or a ``hoard`` that is not a bool.
    """

    name = "search"

    def __init__(
        self,
        sims: int = 100,
        time: float | None = None,
        rollout: str = "greedy",
        hoard: bool = False,
    ):
        if type(sims) is not int or sims < 1:
            raise ValueError(f"sims must be an int of at least 1, not {sims!r}")
        if time is not None and (
            isinstance(time, bool) or not isinstance(time, int | float) or not time > 0
        ):
            raise ValueError(f"time must be a positive number of seconds, not {time!r}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout must be one of {', '.join(ROLLOUTS)}, not {rollout!r}")
        if not isinstance(hoard, bool):
            raise ValueError(f"hoard must be true or false, not {hoard!r}")
        self.sims = sims
        self.time = None if time is None else float(time)
        self.rollout = rollout
        self.hoard = hoard
        steps: dict[tuple[str, bool], Callable[[Game, random.Random], Action]] = {
            ("greedy", False): greedy_step,
            ("greedy", True): hoarding_greedy_step,
            ("heuristic", False): heuristic_step,
            ("heuristic", True): functools.partial(heuristic_step, hoard=True),
        }
        self._step = steps[rollout, hoard]

    def __repr__(self) -> str:
        return (
            f"SearchAgent(sims={self.sims}, time={self.time}, rollout={self.rollout!r}, "
            f"hoard={self.hoard})"
        )

    def rounds(self) -> int | None:
        """``sims``, or ``None`` under a time budget (the rounds played then vary)."""
        return self.sims if self.time is None else None

    def evaluate(self, view: PlayerView, rng: random.Random) -> list[float]:
        """Each legal action's summed simulation value (same order as ``view.legal_actions``)."""
        legal = view.legal_actions
        rules = view.rules
        side = view.side
        sides = rules.num_sides
        start = view.scores
        bonus = WIN_BONUS * rules.target
        step = self._step
        totals = [0.0] * len(legal)
        deadline = None if self.time is None else _time.perf_counter() + self.time
        for _ in range(self.sims):
            hands, boneyard = sample_world(view, rng)
            world = Game.from_view(view, hands, boneyard)
            seed = rng.getrandbits(64)
            for i, action in enumerate(legal):
                game = world.clone()
                game.apply(action)
                roll = random.Random(seed)
                while not game.is_hand_over:
                    game.apply(step(game, roll))
                scores = game.scores
                mine = scores[side] - start[side]
                others = sum(scores[s] - start[s] for s in range(sides) if s != side)
                value = mine - others / (sides - 1)
                winners = game.winners
                if winners is not None:
                    value += bonus if side in winners else -bonus
                totals[i] += value
            if deadline is not None and _time.perf_counter() >= deadline:
                break
        return totals
