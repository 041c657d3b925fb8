"""``train.py``'s run: the folder's files and the record of the run (what must survive an
interruption), and the one line that says what it is doing now.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.training.curve import CURVE, point_path

if TYPE_CHECKING:
    from agents.training.selfplay_config import Config


class Run:
    """The run folder and the record of the run (what must survive an interruption)."""

    def __init__(self, cfg: Config, runs: Path):
        self.cfg = cfg
        self.dir = runs / cfg.name
        self.latest = self.dir / "latest.zip"
        self.best = self.dir / "best.zip"
        self.state_file = self.dir / "state.pkl"
        self.resume_file = self.dir / "resume.zip"
        self.report_file = self.dir / "report.json"
        self.curve_file = self.dir / "learning_curve.png"
        self.curve_dir = self.dir / CURVE
        """The policies kept for a learning curve (``curve_points``) and their index
        (:mod:`agents.training.curve`)."""
        self.curve: list[dict[str, Any]] = []
        """The points of ``curve/index.json`` so far: ``{"env_steps", "agent"}`` each (the
        checkpoint's path relative to the run folder), in order of steps."""
        self.history: list[dict[str, Any]] = []
        self.best_score = -1.0
        self.step = 0  # learner steps of PPO
        self.imitated = 0  # learner steps of the warm start
        self.next_snapshot = cfg.snapshot_every
        self.next_eval = cfg.eval_every
        self.timing = {"env": 0.0, "policy": 0.0, "update": 0.0, "eval": 0.0}
        self.seconds = 0.0  # of training (not evaluation), over every session
        self.positions_dir = self.dir / "positions"
        """Where the warm start's positions are kept for the refit (``imitation_refit_epochs``),
        until it is done."""

    def kept_file(self, rollout: int) -> Path:
        """The file of the warm start's rollout ``rollout`` (from 0) in :attr:`positions_dir`."""
        return self.positions_dir / f"{rollout:04d}.npz"

    def kept_files(self, imitated: int) -> list[Path]:
        """The files of the rollouts the warm start's first ``imitated`` steps played."""
        per_rollout = self.cfg.num_envs * self.cfg.num_steps
        return [self.kept_file(i) for i in range(imitated // per_rollout)]

    def curve_file_of(self, steps: int) -> Path:
        """The curve's checkpoint at ``steps`` PPO steps: ``curve/<steps, 12 digits>.zip``."""
        return self.dir / point_path(steps, ".zip")

    def spec(self) -> Any:
        from agents.learned import PolicySpec

        return PolicySpec(self.cfg.rules(), self.cfg.action_features)


def say(cfg: Config, message: str) -> None:
    """Tell what the run is doing now: one line on stderr, as each phase begins (the bars of
    the longer ones follow, with ``progress`` on)."""
    from agents.training.entry import tell

    tell("train.py", message)
