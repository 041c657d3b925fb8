"""The batched search agent: determinized Monte Carlo search whose rollouts run on the batched
engine, played out by a strong policy for every seat.

It asks what :class:`agents.search.SearchAgent` asks: for each sampled *world* (the unseen tiles
dealt consistently with the view, :func:`agents.sampler.sample_world`), every candidate action
is tried and the rest of the hand played out; the action with the best mean outcome is chosen,
with the same worth of an outcome (the viewer's side's points from now to the hand's end, the
hand award included, minus the mean of the other sides', and ± :data:`agents.search.WIN_BONUS`
times the target where the match ends in the rollout) and the same tie-break (the heavier tile,
then the lower action id).

What differs is where the rollouts run and who plays them:

- the first world is built in the core (:meth:`Game.from_view`) and loaded into a
  :class:`~allfives_env.vector.engine.VectorGame` (:meth:`~VectorGame.load`), copied into one
  row per world and candidate (:meth:`~VectorGame.copy_games`), and every row's hidden tiles
  are dealt as its world's (:meth:`~VectorGame.redeal`, in arrays); then every copy of every
  world is stepped together by the compiled kernels, so a move costs a few batched steps
  instead of thousands of Python ones;
- the rollout policy is any batch agent: by default the compiled ``heuristic`` for every seat
  (far stronger than the greedy rollouts of ``search``), or ``greedy``, or a trained network
  (a checkpoint path: its policy, most likely action, for every seat). Each seat's rollout
  choice is made from that seat's own knowledge of the world (its hand and the public table),
  never from the other hands.

With ``equity=true`` a rollout that ends the hand without ending the match is worth the match's
value of the scores it leaves (:mod:`agents.equity`) instead of the hand's points: the chance
of winning the match from them, times twice the win's worth, less the win's worth, so that a
won match is worth what it is worth without it.

With ``value=PATH`` a rollout stops at the searching seat's ``depth``-th turn after the candidate
and adds a learned value of that position (:mod:`agents.value_network`), read from the seat's
own observation of the world there.

The heuristic and greedy rollouts are deterministic given the world, so every candidate meets
exactly the same futures but for its own consequences (common random numbers). Everything
random is drawn from the ``rng`` given to :meth:`BatchSearchAgent.act`: same seed, same move.

This module imports the batched engine (numba) only when the agent first moves, so
``import agents`` stays cheap.
"""

from __future__ import annotations

import functools
import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.equity import equity_for
from agents.inference import DEFAULT_MODEL, decisions, world_weights
from agents.learned import check_trained_rules, load_learned
from agents.sampler import sample_world
from agents.search import WIN_BONUS, ValueSearch
from allfives_env.core.game import Game
from allfives_env.core.rules import Rules
from allfives_env.core.tiles import mask_of
from allfives_env.core.view import PlayerView

if TYPE_CHECKING:
    from threadpoolctl import ThreadpoolController

    from allfives_env.vector.engine import VectorGame

ROLLOUTS = ("heuristic", "greedy")
"""The built-in rollout policies; a checkpoint path (``.zip``) names a trained one."""


@functools.cache
def _blas() -> ThreadpoolController:
    """The process's thread pools (found once: looking them up costs far more than a limit)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


class BatchSearchAgent(ValueSearch):
    """Determinized search with batched rollouts (see the module docstring).

    Args:
        worlds: worlds sampled per move; each candidate action is rolled out once in each.
        rollout: ``"heuristic"`` (default), ``"greedy"``, or the path of a checkpoint whose
            network plays the rollouts for every seat (it must have been trained on the rules
            played).
        infer: how much the other players' choices so far weigh the worlds
            (:mod:`agents.inference`): the scale of :data:`agents.inference.DEFAULT_MODEL`'s
            weights; 0 (default) weighs every world alike, 1 is the fitted model.
        value: the path of a checkpoint holding a value network (``train.py`` with
            ``value_head``, :mod:`agents.value_network`) that cuts every rollout short: a
            rollout stops when the searching seat is to act for the ``depth``-th time after the
            candidate (or at the hand's end, whichever comes first), and is worth what it scored
            so far plus the network's value of that position from the searching seat's own
            observation there (its hand and the public table of that world); ``""``
            (default): rollouts play to the hand's end.
        depth: the searching seat's turns a rollout plays before the value cuts it (at least
            1; only with ``value``).
        prior: the path of a checkpoint whose policy network (trained on a search's values,
            ``imitation_targets: values``) is the search's prior: each action's mean value
            gains ``prior_weight`` times the network's log-probability of it in the view,
            so that what the network learned from many searched positions joins what this
            search finds in its worlds; ``""`` (default): none.
        prior_weight: points per nat of the prior (at least 0; only with ``prior``). A network
            trained at ``imitation_temperature`` T holds ``log π(a) = value(a) / T`` plus a
            constant, so ``prior_weight`` T adds its values as they were learned.
        equity: value each rollout that ends the hand, the match going on, by the chance of
            winning the match from the scores it leaves (:mod:`agents.equity`): ``(2p - 1)``
            times the won match's worth (:data:`agents.search.WIN_BONUS` times the target),
            instead of the hand's points. Only for rules with a fitted equity
            (:data:`agents.equity.EQUITIES`), and not with ``value``. Default off.
        hoard: the heuristic rollouts play its ``hoard`` rule (:mod:`agents.heuristic`):
            where the rules let a player draw while able (five_up), every seat draws while it
            can unless its placement is decisive, so a placement that leaves the boneyard to
            the next seat is valued as such; DRAW is always a candidate where legal. Default
            off (the rollouts never draw by choice).

    Raises:
        ValueError: for ``worlds`` below 1, more than the machine's memory can roll out, an
            unknown ``rollout``, an ``infer`` that is not a number from 0 to 1e6, or a
            ``hoard`` that is not a bool or comes with other rollouts than the heuristic, a
            ``value`` or ``prior`` that is not a checkpoint path, a ``depth`` below 1 or a
            ``prior_weight`` that is not a number from 0 to 1e6, an ``equity`` that is not a
            bool or comes with ``value``.
        CheckpointError: for a rollout or value checkpoint that cannot be read, or that holds
            no value network.
    """

    name = "batchsearch"

    def __init__(
        self,
        worlds: int = 128,
        rollout: str = "heuristic",
        infer: float = 0.0,
        hoard: bool = False,
        value: str = "",
        depth: int = 1,
        prior: str = "",
        prior_weight: float = 2.0,
        equity: bool = False,
    ):
        if not isinstance(hoard, bool):
            raise ValueError(f"hoard must be true or false, not {hoard!r}")
        if hoard and rollout != "heuristic":
            raise ValueError(
                f"hoard is the heuristic's rule: it needs rollout=heuristic, not {rollout!r}"
            )
        if not isinstance(equity, bool):
            raise ValueError(f"equity must be true or false, not {equity!r}")
        if equity and value:
            raise ValueError("equity values a hand's end; a value network cuts the hand short")
        if type(worlds) is not int or worlds < 1:
            raise ValueError(f"worlds must be an int of at least 1, not {worlds!r}")
        if isinstance(infer, bool) or not isinstance(infer, int | float) or not 0 <= infer < 1e6:
            raise ValueError(f"infer must be a number from 0 to 1e6, not {infer!r}")
        if not isinstance(rollout, str) or (
            rollout not in ROLLOUTS and not rollout.endswith(".zip")
        ):
            raise ValueError(
                f"rollout must be one of {', '.join(ROLLOUTS)} or a checkpoint path ending in "
                f".zip, not {rollout!r}"
            )
        if not isinstance(value, str) or (value and not value.endswith(".zip")):
            raise ValueError(f"value must be a checkpoint path ending in .zip, not {value!r}")
        if type(depth) is not int or depth < 1:
            raise ValueError(f"depth must be an int of at least 1, not {depth!r}")
        if not isinstance(prior, str) or (prior and not prior.endswith(".zip")):
            raise ValueError(f"prior must be a checkpoint path ending in .zip, not {prior!r}")
        if (
            isinstance(prior_weight, bool)
            or not isinstance(prior_weight, int | float)
            or not 0 <= prior_weight < 1e6
        ):
            raise ValueError(f"prior_weight must be a number from 0 to 1e6, not {prior_weight!r}")
        self.worlds = worlds
        self.rollout = rollout
        self.value = value
        self.depth = depth
        self.prior = prior
        self.prior_weight = float(prior_weight)
        self.infer = float(infer)
        self.hoard = hoard
        self.equity = equity
        self._trained: list[tuple[str, Rules]] = []
        """Each network's name and the rules it was trained on (rollout, value, prior)."""
        self._policy: Any = None
        self._features: bool | str = False
        if rollout.endswith(".zip"):
            self._policy = load_learned(rollout)
            self._features = self._policy.spec.action_features
            self._trained.append((self._policy.name, self._policy.spec.rules))
        self._value_net: Any = None
        if value:
            from agents.value_network import read_value

            value_spec, self._value_net = read_value(value)
            self._trained.append((Path(value).stem, value_spec.rules))
        self._prior: Any = None
        if prior:
            self._prior = load_learned(prior)
            self._trained.append((self._prior.name, self._prior.spec.rules))
        self._vg: VectorGame | None = None
        # a move rolls out at least one candidate in every world: refuse what cannot fit
        from allfives_env.vector.engine import bytes_per_game
        from allfives_env.vector.memory import check_fits

        least = bytes_per_game(Rules.preset("pagat", 2), self._features)
        check_fits(worlds * least, f"batchsearch with {worlds:,} worlds")

    def __repr__(self) -> str:
        return (
            f"BatchSearchAgent(worlds={self.worlds}, rollout={self.rollout!r}, infer={self.infer}, "
            f"hoard={self.hoard}, value={self.value!r}, depth={self.depth}, "
            f"prior={self.prior!r}, prior_weight={self.prior_weight}, equity={self.equity})"
        )

    @property
    def trained_for(self) -> Rules | None:
        """The rules its networks (rollout, value, prior) were trained on; ``None``: it has
        none, and plays any rules."""
        return self._trained[0][1] if self._trained else None

    def check_rules(self, rules: Rules) -> None:
        """Refuse rules other than those its networks were trained on, and (``equity``) rules
        with no fitted equity. Every set plays: the world sampler, the batched engine and the
        compiled rollout policies follow the rules' set.

        Raises:
            CheckpointError: naming the network trained for other rules.
            AgentError: for rules with no fitted equity.
        """
        for name, trained in self._trained:
            check_trained_rules(name, trained, rules)
        if self.equity:
            equity_for(rules)

    def rounds(self) -> int:
        """``worlds``: each value sums one rollout per world."""
        return self.worlds

    def _engine(self, rules: Rules, rows: int) -> VectorGame:
        """A batch of at least ``rows`` games under ``rules`` (made again when too small)."""
        vg = self._vg
        if vg is None or vg.rules != rules or vg.num_games < rows:
            from allfives_env.vector.engine import VectorGame

            self.check_rules(rules)
            size = max(rows, vg.num_games if vg is not None and vg.rules == rules else 0)
            vg = VectorGame(
                rules, size, episode="hand", forced_actions="auto",
                action_features=self._features,
            )  # fmt: skip
            vg.reset(0)
            self._vg = vg
        return vg

    def _rollout_policy(self) -> Any:
        if self._policy is not None:
            return self._policy
        if self.rollout == "greedy":
            from allfives_env.vector.agents import GreedyBatch

            return GreedyBatch()
        from agents.heuristic import HeuristicAgent

        return HeuristicAgent(self.hoard)

    def evaluate(self, view: PlayerView, rng: random.Random) -> list[float]:
        """Each legal action's summed rollout value over the worlds (same order as
        ``view.legal_actions``). The kernels and a rollout network's matrix products run on
        this thread alone (evaluations run one agent per core; more threads would only
        contend)."""
        from allfives_env.vector._jit import get_num_threads, set_num_threads

        threads = get_num_threads()
        set_num_threads(1)
        try:
            with _blas().limit(limits=1, user_api="blas"):
                return self._evaluate(view, rng)
        finally:
            set_num_threads(threads)

    def _evaluate(self, view: PlayerView, rng: random.Random) -> list[float]:
        from allfives_env.vector.engine import policy_rng
        from allfives_env.vector.state import CUR, LIVE, STATUS

        legal = view.legal_actions
        rules = view.rules
        k = len(legal)
        worlds = self.worlds
        rows = worlds * k
        vg = self._engine(rules, rows)
        enc = vg.encoding
        first = np.array([enc.to_env[a] for a in legal], np.int64)
        n = rules.num_players
        masks = np.empty((worlds, n), np.int64)
        bones = np.empty((worlds, view.boneyard_size), np.int64)
        for w in range(worlds):
            hands, bone = sample_world(view, rng)
            if w == 0:
                vg.load(0, Game.from_view(view, hands, bone), copy=False)
            for seat in range(n):
                masks[w, seat] = mask_of(view.hand if seat == view.seat else hands[seat])
            bones[w] = bone
        # one world loaded, copied to every row, and each row's hidden tiles dealt as its world
        vg.copy_games(0, np.arange(1, rows))
        vg.redeal(np.arange(rows), np.repeat(masks, k, axis=0), np.repeat(bones, k, axis=0))
        acts = np.full(vg.num_games, -1, np.int64)
        acts[:rows] = np.tile(first, worlds)
        vg.step(acts)
        policy = self._rollout_policy()
        prng = policy_rng(rng.getrandbits(63), vg.num_games)
        status = vg.st[:, STATUS]
        seat = view.seat
        cut = self._value_net is not None
        turns = np.zeros(rows, np.int64)
        stopped = np.zeros(rows, bool)
        while True:
            live = np.flatnonzero(status[:rows] == LIVE)
            if cut and live.size:  # the searching seat to act: its depth-th turn stops the row
                mine = live[(vg.st[live, CUR] == seat) & ~stopped[live]]
                turns[mine] += 1
                stopped[mine[turns[mine] >= self.depth]] = True
                live = live[~stopped[live]]
            if not live.size:
                break
            acts[:] = -1
            acts[live] = policy.act_batch(vg, live, prng)
            vg.step(acts)
        side = view.side
        sides = rules.num_sides
        start = np.array(view.scores[:sides], np.float64)
        gain = vg.scores[:rows, :sides] - start
        mine = gain[:, side]
        others = (gain.sum(axis=1) - mine) / (sides - 1)
        value = mine - others
        winners = vg.winners[:rows, :sides]
        over = winners.any(axis=1)
        bonus = WIN_BONUS * rules.target
        won = np.where(winners[:, side], bonus, -bonus)
        if self.equity:  # the match's value of the scores the hand leaves
            end = vg.scores[:rows, :sides]
            p = equity_for(rules).win_probability(end[:, side], end[:, 1 - side], rules.target)
            value = np.where(over, won, bonus * (2.0 * p - 1.0))
        else:
            value += np.where(over, won, 0.0)
        if cut and stopped.any():  # the rest of the hand, as the value network sees it
            at = np.flatnonzero(stopped)
            obs = vg.observe_games(at, np.full(at.size, seat, np.int64))
            value[at] += self._value_net.values(obs)
        per_world = value.reshape(worlds, k)
        if self.infer > 0:  # the worlds weighed by the other players' choices so far
            found = decisions(view, DEFAULT_MODEL.softened(self.infer))
            if found:
                per_world = per_world * world_weights(found, masks)[:, None]
        totals = per_world.sum(axis=0)
        if self._prior is not None:  # the network's learned values, as many worlds' worth
            totals = totals + worlds * self.prior_weight * self._prior.log_policy(view)
        return [float(x) for x in totals]
