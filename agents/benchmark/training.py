"""The training protocol, ``allfives-train/1``: how a learned row of the baseline table is made.

The evaluation protocol (:mod:`agents.benchmark.protocol`) fixes what an agent is measured
against. This one fixes what a *learning algorithm* may use before it is measured, so that rows
made by different algorithms and frameworks compare:

- **Tracks** (:data:`TRACKS`). *tabula rasa*: the learner meets only itself (self-play, or a
  league of its own snapshots); no hand-written agent, imitation or search teacher anywhere in
  training. *open*: anything goes, and every sample is declared: the learner's env steps,
  imitation samples, teacher-labelled positions and CPU-seconds.
- **Budget tiers** (:data:`TIERS`): a tier caps a run's env steps plus imitation samples.
- **An env step** is one decision of the policy being trained, in whichever seat it plays: a
  turn at which its legal actions are more than a lone draw or a lone pass. Forced draws and
  passes are not counted, whether the framework asks the policy for them (OpenSpiel) or the
  engine takes them (``forced_actions="auto"``: ``train.py``, RLlib, BenchMARL). A seat of a
  frozen opponent (a snapshot in a league) is not the policy being trained; every seat of pure
  self-play is. Each trainer reports its count as ``env_steps`` in its report.
- **The information**: every row of a table sees the same observation, the seat's own
  (:class:`allfives_env.envs.spaces.Encoding`) with :attr:`TrainingProtocol.action_features`.
- **Selection and evaluation**: the final policy is evaluated, never a checkpoint chosen on the
  test deals. The test is the evaluation protocol's own deals for the setting
  (:meth:`agents.benchmark.protocol.Protocol.seed_of`) against :attr:`TrainingProtocol.
  test_opponents`; the learning curve is measured on validation deals drawn from other seeds
  (:meth:`TrainingProtocol.validation_seed`), so nothing measured along the way touches the test.
- **The exact setting** (:data:`~agents.benchmark.protocol.TINY_2P`, ``tiny-2p``: the small
  track): a set small enough for the exact solver. Its runs train on one-hand episodes with
  the hand's points as the reward, and every curve point and the final policy get their exact
  NashConv beside their matches (:mod:`agents.benchmark.exact_measure`). Its 300k tier is the
  small track's budget.
- **Seeds**: at least :attr:`TrainingProtocol.min_seeds` per row; the table gives the mean,
  each seed's result, and a bootstrap interval over seeds (:mod:`agents.benchmark.over_seeds`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agents.benchmark.protocol import FULL, TINY_2P, Protocol, Setting
from agents.eval.match import derive_seed

TRACKS: dict[str, str] = {
    "tabula_rasa": "the learner meets only itself; no hand-written agent, imitation or search "
    "teacher anywhere in training",
    "open": "anything goes; env steps, imitation samples, teacher-labelled positions and "
    "CPU-seconds are declared",
}
"""The tracks, and what each allows."""


@dataclass(frozen=True)
class Tier:
    """A budget tier: env steps plus imitation samples, at most :attr:`budget`."""

    name: str
    budget: int

    def allows(self, env_steps: int, imitation_samples: int) -> bool:
        """Whether a run that took these samples stays within the tier."""
        return env_steps + imitation_samples <= self.budget


TIERS: dict[str, Tier] = {
    t.name: t for t in (Tier("300k", 300_000), Tier("2M", 2_000_000), Tier("10M", 10_000_000))
}
"""The budget tiers: 2M, which every algorithm runs on the full set; 10M, for those fast enough
here; 300k, the small track's (the exact setting's)."""


@dataclass(frozen=True)
class TrainingProtocol:
    """A training protocol (see the module docstring)."""

    name: str
    evaluation: Protocol
    """The evaluation protocol whose settings and test deals it uses."""
    test_opponents: tuple[str, ...]
    test_deals: int
    """Deals per test opponent (each played once per rotation of the sides)."""
    curve_points: int
    """Points of the learning curve along the budget (the last is the final policy)."""
    curve_deals: int
    """Validation deals per curve opponent and point."""
    min_seeds: int
    action_features: str
    """The observation's per-action blocks every row uses."""
    tiers: dict[str, Tier] = field(default_factory=lambda: dict(TIERS))
    """Its budget tiers."""
    exact_settings: tuple[Setting, ...] = (TINY_2P,)
    """Its settings beyond the evaluation protocol's, measured exactly."""

    @property
    def smoke(self) -> bool:
        """Whether this is a configuration for tests (tiny networks and batches)."""
        return self.name.endswith("-reduced")

    @property
    def settings(self) -> tuple[Setting, ...]:
        """Every setting it trains in: the evaluation protocol's and its exact ones."""
        return self.evaluation.settings + self.exact_settings

    def setting(self, name: str) -> Setting:
        """The setting ``name`` (of :attr:`settings`).

        Raises:
            KeyError: if there is none.
        """
        for s in self.settings:
            if s.name == name:
                return s
        raise KeyError(name)

    def test_seed(self, setting: Setting, opponent: str) -> int:
        """The test deals' seed: the evaluation protocol's own for ``setting`` and
        ``opponent``."""
        return self.evaluation.seed_of(setting, opponent)

    def validation_seed(self, setting: Setting, opponent: str, point: int) -> int:
        """The validation deals of curve point ``point`` (a seed the test never uses: derived
        under this protocol's name, not the evaluation protocol's)."""
        return derive_seed(self.name, "validation", setting.name, opponent, point) % 2**31


TRAIN_V1 = TrainingProtocol(
    name="allfives-train/1",
    evaluation=FULL,
    test_opponents=("greedy", "heuristic:hoard=true"),
    test_deals=FULL.deals,
    curve_points=10,
    curve_deals=25,
    min_seeds=3,
    action_features="outlook",
)
"""The training protocol (its current version)."""

TRAIN_REDUCED = TrainingProtocol(
    name="allfives-train/1-reduced",
    evaluation=FULL,
    test_opponents=("greedy", "heuristic:hoard=true"),
    test_deals=2,
    curve_points=2,
    curve_deals=1,
    min_seeds=1,
    action_features="outlook",
    tiers={"smoke": Tier("smoke", 4_096)},
)
"""A small configuration of the same code for tests (not comparable with :data:`TRAIN_V1`)."""

TRAINING_PROTOCOLS = {p.name: p for p in (TRAIN_V1, TRAIN_REDUCED)}
