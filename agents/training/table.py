"""The learner's table: ``num_envs`` games on the batched engine, the learner at one seat of
each (drawn every episode), every other seat drawn each episode from a :class:`Pool` of baseline
agents (compiled, inside the batch) and the learner's frozen snapshots.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    from agents.learned import PolicySpec
    from agents.training.selfplay_config import Config
    from allfives_env.vector.single_agent import LearnerBatch

LATEST_PROB = 0.5
"""The chance that a snapshot seat gets the newest snapshot (else one of the newest
``pool_size`` drawn at random)."""


class TableSettings(Protocol):
    """What :class:`Pool` reads of a config (``train.py``'s, or the RLlib table's)."""

    baselines: list[str]
    baseline_prob: float
    pool_size: int


class Pool:
    """Who may sit at the learner's table: baseline agents and the learner's frozen snapshots.

    The lineup is the baselines, then every snapshot ever taken (so a game's seating stays
    valid while new snapshots arrive); a seat is drawn among the baselines and the newest
    ``pool_size`` snapshots.
    """

    def __init__(self, cfg: TableSettings, spec: PolicySpec):
        from allfives_env.vector.agents import batch_agent

        self.cfg = cfg
        self.spec = spec
        self.baselines = [batch_agent(s) for s in cfg.baselines]
        self.snapshots: list[Any] = []  # ScorerPolicy, oldest first
        self.agents: list[Any] = list(self.baselines)

    def add(self, policy: Any) -> None:
        """Add a snapshot (it plays by sampling its policy)."""
        from agents.learned import LearnedAgent

        self.snapshots.append(policy)
        k = len(self.snapshots)
        self.agents.append(LearnedAgent(self.spec, policy, name=f"snapshot{k}", sample=True))

    def pick(self, games: Any, seats: Any, rng: Any) -> Any:
        """Lineup indices for ``seats`` of ``games`` in the episodes starting now."""
        from allfives_env.vector.agents import draw_bits

        def uniforms() -> Any:
            return (draw_bits(rng, games) >> np.uint64(11)).astype(np.float64) / 2.0**53

        cfg = self.cfg
        nb, ns = len(self.baselines), len(self.snapshots)
        u_kind, u_base, u_latest, u_old = uniforms(), uniforms(), uniforms(), uniforms()
        recent = min(ns, cfg.pool_size)
        base = np.minimum((u_base * max(nb, 1)).astype(np.int64), max(nb, 1) - 1)
        old = nb + ns - recent + np.minimum((u_old * max(recent, 1)).astype(np.int64), recent - 1)
        snap = np.where(u_latest < LATEST_PROB, nb + ns - 1, old)
        if ns == 0:
            return base
        if nb == 0:
            return snap
        return np.where(u_kind < cfg.baseline_prob, base, snap)


def make_table(cfg: Config, pool: Pool) -> LearnerBatch:
    """The learner's games: ``num_envs`` games on the batched engine, dealt from the seed."""
    from allfives_env.vector.single_agent import LearnerBatch

    batch = LearnerBatch(
        cfg.num_envs,
        cfg.env_settings(),
        opponents="random",  # replaced by the pool's picks below
        start_scores=cfg.start_scores,
    )
    batch.set_lineup(pool.agents, pool.pick)
    return batch
