"""The recipes of the baseline table: one interface over every trainer of the project.

A :class:`Recipe` is how one algorithm of one framework is trained under the training protocol
(:mod:`agents.benchmark.training`): the command that trains it for a setting, a track, a budget
tier and a seed (:meth:`Recipe.command`), where that command leaves its policy folder
(:meth:`Recipe.folder`) and how the policy is played as an agent. Every trainer keeps its own
run loop (``train.py``'s :mod:`agents.training.selfplay`, ``train_rllib.py``, the policy
trainers of :mod:`agents.training.policy_trainer`); a recipe only drives it from its command
line, and reads back what every trainer writes the same way:

- ``report.json``: ``env_steps`` (the protocol's count), ``imitation_samples``,
  ``teacher_positions``;
- ``curve/index.json``: the policy saved at :attr:`TrainingProtocol.curve_points` points along
  the budget, each as an agent spec relative to the folder, the last the final policy.

The sweep (:mod:`agents.benchmark.sweep`) runs recipes; :data:`RECIPES` lists them.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from agents.benchmark.protocol import Setting
from agents.benchmark.training import TIERS, TRACKS, Tier, TrainingProtocol
from agents.eval.match import EvalError
from agents.training.groups import summed_over_opponents


class RecipeError(EvalError):
    """A run a recipe cannot make (a track, tier or setting it does not offer)."""


@dataclass(frozen=True)
class RunSpec:
    """One run of a sweep: what to train, where, and with which seed."""

    protocol: TrainingProtocol
    setting: Setting
    track: str
    tier: Tier
    seed: int
    folder: Path
    """The folder the recipe's trainer writes (its run or policy folder)."""


@dataclass(frozen=True)
class Recipe:
    """How one algorithm is trained (see the module docstring).

    Args:
        name: the recipe's id on the command line (``trainpy-ppo``).
        label: its row's name in tables.
        algorithm: the learning algorithm.
        framework: the distribution that implements it (its version goes in the result).
        tracks: the tracks it can run.
        max_tier: the largest tier it reaches in reasonable time here (a larger one is refused).
        observation: what its policy reads, in words (the table says it).
    """

    name: str
    label: str
    algorithm: str
    framework: str
    tracks: tuple[str, ...]
    max_tier: str
    observation: str

    def check(self, setting: Setting, track: str, tier: Tier) -> None:
        """Refuse a run this recipe cannot make.

        Raises:
            RecipeError: naming what it offers instead.
        """
        if track not in self.tracks:
            raise RecipeError(
                f"{self.name} runs the track(s) {', '.join(self.tracks)}, not {track!r}"
            )
        if tier.budget > TIERS[self.max_tier].budget:
            raise RecipeError(
                f"{self.name} reaches the {self.max_tier} tier at most on this hardware, not "
                f"{tier.name}"
            )
        benchmarl = self.framework == "benchmarl"
        if benchmarl and summed_over_opponents(self.algorithm, setting.rules()) is not None:
            raise RecipeError(
                f"{self.name} learns a team's summed reward: it needs a partnership "
                f"setting, not {setting.name}"
            )

    @property
    def restarts(self) -> bool:
        """Whether an interrupted run of its trainer starts again (OpenSpiel's NFSP), rather
        than resuming (``train.py``, ``train_rllib.py``, BenchMARL's trainer)."""
        return self.framework == "open_spiel"

    @property
    def policy_trainer(self) -> bool:
        """Whether its trainer writes a policy folder (:mod:`agents.training.policy_trainer`),
        which refuses to train again into a folder that holds a finished policy."""
        return self.framework in ("benchmarl", "open_spiel")

    def folder(self, run: RunSpec) -> Path:
        """The folder its trainer writes for ``run`` (``train_rllib.py`` puts its run folders
        under ``rllib/``)."""
        if self.name == "rllib-ppo":
            return run.folder / "rllib" / "train"
        return run.folder / "train"

    def command(self, run: RunSpec) -> list[str]:
        """The command line that trains ``run`` (``sys.executable`` first).

        Raises:
            RecipeError: as :meth:`check`.
        """
        self.check(run.setting, run.track, run.tier)
        s, k = run.setting, run.protocol.curve_points
        out = self.folder(run)
        py = sys.executable
        if self.name in ("trainpy-ppo", "rllib-ppo"):
            return self._ppo(run, out, k)
        smoke = run.protocol.smoke
        if self.name.startswith("benchmarl-"):
            batch = 512 if smoke else 6_400
            frames = run.tier.budget // batch * batch
            argv = [
                py, "-m", "allfives_benchmarl.train", "--algorithm", self.algorithm.lower(),
                "--task", f"{s.preset.upper()}_{s.num_players}P", "--frames", str(frames),
                "--frames_per_batch", str(batch), "--seed", str(run.seed), "--out", str(out),
                "--action_features", run.protocol.action_features, "--curve_points", str(k),
                *s.trainer_flags(),
            ]  # fmt: skip
            if smoke:
                argv += ["--envs", "32", "--minibatch_size", "256", "--epochs", "1"]
                argv += ["--hidden", "32"]
            return argv
        if self.name == "openspiel-nfsp":
            # it finishes the match in progress past its budget: stop short by more than a
            # match's env steps, so that the tier is never passed
            margin = 512 if smoke else 5_000
            steps = run.tier.budget - margin
            argv = [
                py, "-m", "allfives_openspiel.train", "--preset", s.preset, "--players",
                str(s.num_players), "--episode", s.episode or "match", "--env_steps",
                str(steps), "--seed", str(run.seed), "--out", str(out), "--curve_points",
                str(k), "--no-progress",
                *s.trainer_flags(episode=False, reward=False),
            ]  # fmt: skip
            if smoke:
                argv += ["--hidden", "16", "--batch_size", "16", "--learn_every", "16"]
            return argv
        raise RecipeError(f"no command for the recipe {self.name!r}")  # pragma: no cover

    def _ppo(self, run: RunSpec, out: Path, points: int) -> list[str]:
        """``train.py``'s or ``train_rllib.py``'s command: the track's config, the budget
        floored to whole rollouts of 16,384 learner steps (so the tier is never passed)."""
        s = run.setting
        rllib = self.name == "rllib-ppo"
        smoke = run.protocol.smoke
        warm = (512 if smoke else 500_000) if run.track == "open" else 0
        rollout = 512 if smoke else 16_384
        ppo = (run.tier.budget - warm) // rollout * rollout
        if rllib:
            config = "rllib.yaml" if run.track == "open" else "rllib_tabula_rasa.yaml"
            script, runs = "train_rllib.py", run.folder
        else:
            config = "default.yaml" if run.track == "open" else "tabula_rasa.yaml"
            script, runs = "train.py", run.folder
        root = Path(__file__).resolve().parents[2]
        argv = [
            sys.executable, str(root / script), "--config", str(root / "configs" / config),
            "--runs", str(runs), "--name", out.name, "--preset", s.preset, "--num_players",
            str(s.num_players), "--seed", str(run.seed), "--total_timesteps", str(ppo),
            "--imitation_samples", str(warm), "--curve_points", str(points),
            "--action_features", run.protocol.action_features, "--no-progress",
        ]  # fmt: skip
        if s.partnerships is not None:
            argv += ["--partnerships", str(s.partnerships)]
        argv += s.trainer_flags()
        if smoke:
            argv += list(SMOKE_RLLIB if rllib else SMOKE_TRAINPY)
        return argv


SMOKE_TRAINPY = (
    "--num_envs", "16", "--num_steps", "32", "--num_minibatches", "4", "--update_epochs", "1",
    "--imitation_epochs", "1", "--actor_arch", "16", "--critic_arch", "16", "--context_dim",
    "4", "--eval_matches", "2", "--final_eval_matches", "0", "--eval_processes", "1",
    "--torch_threads", "1",
)  # fmt: skip
"""The reduced protocol's ``train.py`` flags: a tiny network and table (512 steps a rollout)."""

SMOKE_RLLIB = (
    "--num_envs_per_env_runner", "16", "--num_steps", "32", "--train_batch_size", "512",
    "--minibatch_size", "128", "--update_epochs", "1", "--actor_arch", "32", "--critic_arch",
    "32", "--context_dim", "8", "--eval_matches", "2", "--final_eval_matches", "2",
    "--eval_processes", "1",
)  # fmt: skip
"""The reduced protocol's ``train_rllib.py`` flags."""


def _recipes() -> dict[str, Recipe]:
    both = tuple(TRACKS)
    own = ("tabula_rasa",)
    outlook = "the seat's own view, with per-action outlook blocks"
    rows = [
        Recipe("trainpy-ppo", "train.py PPO", "PPO", "allfives", both, "10M", outlook),
        Recipe("rllib-ppo", "RLlib PPO", "PPO", "ray", both, "10M", outlook),
        Recipe("benchmarl-mappo", "BenchMARL MAPPO", "MAPPO", "benchmarl", own, "10M", outlook),
        Recipe("benchmarl-ippo", "BenchMARL IPPO", "IPPO", "benchmarl", own, "10M", outlook),
        Recipe("benchmarl-iql", "BenchMARL IQL", "IQL", "benchmarl", own, "2M", outlook),
        Recipe("benchmarl-qmix", "BenchMARL QMIX", "QMIX", "benchmarl", own, "2M", outlook),
        Recipe(
            "openspiel-nfsp",
            "OpenSpiel NFSP",
            "NFSP",
            "open_spiel",
            own,
            "2M",
            "the seat's own view (OpenSpiel's observation tensor, no per-action blocks)",
        ),
    ]
    return {r.name: r for r in rows}


RECIPES = _recipes()
"""Every recipe, by name."""


def recipe(name: str) -> Recipe:
    """The recipe called ``name``.

    Raises:
        RecipeError: for an unknown name, listing the known ones.
    """
    try:
        return RECIPES[name]
    except KeyError:
        raise RecipeError(f"unknown recipe {name!r} (known: {', '.join(RECIPES)})") from None
