"""The self-play league: the main module, shared by its seats, against itself and frozen
snapshots of itself.

- :class:`LeagueMapping` is the agent → module mapping: in each episode one seat, drawn, is the
  main module's (with its partner in 4-player partnerships: one module for a side); every
  other side is the main module with probability :data:`MAIN_PROB`, otherwise a snapshot drawn
  uniformly. Draws come from a generator seeded by the run's seed.
- :class:`LeagueCallback` measures how often the main module wins against snapshots (a side
  wins an episode when its return is the highest) and, once that rate reaches
  ``snapshot_win_rate`` with at least ``snapshot_every`` env steps since the last snapshot,
  freezes a copy of the main module as ``main_v<k>`` (keeping at most ``pool_size``).
"""

from __future__ import annotations

import random
from collections import OrderedDict
from typing import Any

from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME

from allfives_env.core.rules import Rules
from allfives_rllib.agent import MODULE_ID

MAIN_PROB = 0.5
"""The chance that a side other than the main module's is played by the main module too (else
by a snapshot)."""
WIN_RATE = "league_win_rate"
"""The env runners' metric: the main module's wins against snapshots (window of 200)."""


class LeagueMapping:
    """Agent → module for each episode (picklable: it travels to the env runners)."""

    def __init__(self, rules: Rules, snapshots: list[str], latest_prob: float, seed: int):
        self.sides = [rules.side_of(s) for s in range(rules.num_players)]
        self.snapshots = list(snapshots)
        self.latest_prob = latest_prob
        self.rng = random.Random(seed)
        self.seen: OrderedDict[Any, dict[int, str]] = OrderedDict()

    def lineup(self) -> dict[int, str]:
        """A fresh draw: the module of each side."""
        k = max(self.sides) + 1
        main_side = self.rng.randrange(k)
        out = {}
        for side in range(k):
            if side == main_side or not self.snapshots or self.rng.random() < self.latest_prob:
                out[side] = MODULE_ID
            else:
                out[side] = self.rng.choice(self.snapshots)
        return out

    def __call__(self, agent_id: str, episode: Any, **kwargs: Any) -> str:
        key = episode.id_
        sides = self.seen.get(key)
        if sides is None:
            sides = self.seen[key] = self.lineup()
            while len(self.seen) > 4096:
                self.seen.popitem(last=False)
        return sides[self.sides[int(agent_id.rpartition("_")[2])]]


class LeagueCallback(RLlibCallback):  # type: ignore[misc]
    """Grows the league as the main module improves (see the module docstring).

    ``league`` is the trainer's league record (a dict: ``snapshots``, ``next_index``,
    ``last_snapshot_step``), read and updated here so that it is saved with each checkpoint.
    """

    def __init__(
        self,
        rules: Rules,
        league: dict[str, Any],
        pool_size: int,
        snapshot_every: int,
        snapshot_win_rate: float,
        seed: int,
    ):
        super().__init__()
        self.rules = rules
        self.league = league
        self.pool_size = pool_size
        self.snapshot_every = snapshot_every
        self.snapshot_win_rate = snapshot_win_rate
        self.seed = seed

    def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
        """Log whether the main module won, when it played a snapshot."""
        returns: dict[str, float] = {}
        modules: dict[str, str] = {}
        for agent_id, agent_episode in episode.agent_episodes.items():
            returns[agent_id] = float(agent_episode.get_return())
            modules[agent_id] = episode.module_for(agent_id)
        if not returns or MODULE_ID not in modules.values():
            return
        if all(m == MODULE_ID for m in modules.values()):
            return
        best = max(returns.values())
        main_best = max(r for a, r in returns.items() if modules[a] == MODULE_ID)
        others = max((r for a, r in returns.items() if modules[a] != MODULE_ID), default=best)
        won = main_best == best and main_best > others
        metrics_logger.log_value(WIN_RATE, float(won), reduce="mean", window=200)

    def mapping(self) -> LeagueMapping:
        """The mapping for the league as it is now (seeded by the seed and the league size)."""
        snapshots = list(self.league["snapshots"])
        return LeagueMapping(
            self.rules, snapshots, MAIN_PROB, self.seed * 1000 + self.league["next_index"]
        )

    def on_train_result(self, *, algorithm: Any, result: dict[str, Any], **kwargs: Any) -> None:
        """Freeze a snapshot when the main module has earned it."""
        runners = result.get(ENV_RUNNER_RESULTS, {})
        steps = int(runners.get(NUM_ENV_STEPS_SAMPLED_LIFETIME, 0))
        rate = runners.get(WIN_RATE)
        league = self.league
        result["league_size"] = len(league["snapshots"])
        if rate is not None:
            result["league_win_rate"] = float(rate)
        due = steps - league["last_snapshot_step"] >= self.snapshot_every
        if not due or (rate is not None and rate < self.snapshot_win_rate):
            return
        add_snapshot(algorithm, self, steps)
        while len(league["snapshots"]) > self.pool_size:
            old = league["snapshots"].pop(0)
            algorithm.remove_module(old, new_agent_to_module_mapping_fn=self.mapping())
        result["league_size"] = len(league["snapshots"])


def league_callback(algorithm: Any) -> LeagueCallback:
    """The driver's :class:`LeagueCallback` of ``algorithm``."""
    found = algorithm.callbacks
    for cb in found if isinstance(found, list) else [found]:
        if isinstance(cb, LeagueCallback):
            return cb
    raise LookupError("the algorithm has no LeagueCallback")


def add_snapshot(algorithm: Any, callback: LeagueCallback, steps: int) -> str:
    """Freeze a copy of the main module as ``main_v<k>``; the league record is updated and the
    env runners get the new mapping."""
    league = callback.league
    module_id = f"{MODULE_ID}_v{league['next_index']}"
    league["next_index"] += 1
    league["snapshots"].append(module_id)
    league["last_snapshot_step"] = steps
    main = algorithm.get_module(MODULE_ID)
    algorithm.add_module(
        module_id=module_id,
        module_spec=RLModuleSpec(
            module_class=type(main),
            observation_space=main.observation_space,
            action_space=main.action_space,
            model_config=main.model_config,
        ),
        new_agent_to_module_mapping_fn=callback.mapping(),
    )
    algorithm.set_state(
        {"learner_group": {"learner": {"rl_module": {module_id: main.get_state()}}}}
    )
    return module_id
