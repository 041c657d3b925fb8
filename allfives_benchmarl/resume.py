"""A BenchMARL run's resume point, ``OUT/resume.pt``: everything needed to go on bit for bit
after an interruption, saved at the end of an iteration, put back when the same command runs
again on the same ``--out``.

BenchMARL's own checkpoint (:meth:`benchmarl.experiment.Experiment.state_dict`) holds each
group's loss module (its networks and target networks), the collector's policy and counters,
the replay buffers and the experiment's counters. It leaves out what a bit-for-bit resume also
needs, which the resume point adds:

- each optimizer's state (Adam's moments and step);
- the games in the middle of play: the engine's state with each game's generator, and the
  env's seeding (:class:`~allfives_benchmarl.env.AllFivesTorchEnv` ``vg``, ``_seed``,
  ``_pending``);
- each replay buffer's sampler (where the buffer itself is left out, below);
- the collector's carrier (the step its next rollout starts from) and its trajectory counter;
- the python, numpy and torch generators (BenchMARL seeds them again at the start of
  :meth:`~benchmarl.experiment.Experiment.run`; a resumed run does not);
- the learning curve's points so far, and the training seconds the point stands for;
- the flags that shape the training and the versions of BenchMARL, TorchRL and torch.

An on-policy algorithm (MAPPO, IPPO) fills its buffer anew each iteration, so its buffer is left
out but for its sampler's state (the order of the next minibatches, drawn as the last pass ran
out); an off-policy one's replay buffer is saved whole. A point is written whole (through a
``.tmp`` file and a rename) once at least ``--resume_every`` seconds have passed since the last
(0: after every iteration), and deleted once the policy is exported.

A run interrupted and resumed ends with the same weights as one never interrupted, byte for
byte, where both ran on the same kind of CPU (torch's kernels may round differently on
another). A rerun whose training flags or library versions differ from the point's is refused
in one line, as is a damaged point; ``--fresh`` trains the run anew.
"""

from __future__ import annotations

import io
import pickle
import random
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.files import replace_whole
from agents.training.config import ConfigError
from agents.training.ownership import damaged

if TYPE_CHECKING:
    from agents.training.policy_trainer import Curve

RESUME_FILE = "resume.pt"
FORMAT = "allfives-benchmarl-resume/1"
PARTS = ("benchmarl", "optimizers", "samplers", "env", "carrier", "trajectories", "curve",
         "seconds", "rng")  # fmt: skip
"""What a resume point holds beside its format and identity."""
UNTRAINED = ("out", "fresh", "eval_matches", "eval_opponent", "resume_every", "device",
             "engine_threads")  # fmt: skip
"""Flags that may differ on a resume: where the run goes and what follows it, and where it
computes (``engine_threads`` steps the same games; a run resumed on another device goes on from
the same state, though its kernels may round differently from there)."""


def identity(args: object) -> dict[str, Any]:
    """What a resume point must agree with: the training flags (``args``, the trainer's
    :class:`allfives_benchmarl.train.Args`) and the libraries' versions."""
    from importlib.metadata import version

    flags = {
        k: list(v) if isinstance(v, tuple) else v
        for k, v in vars(args).items()
        if k not in UNTRAINED
    }
    return {
        "flags": flags,
        "versions": {lib: version(lib) for lib in ("benchmarl", "torchrl", "torch")},
    }


def load_resume_point(folder: Path, args: object) -> dict[str, Any] | None:
    """The resume point in ``folder`` (``None`` if it holds none), checked against ``args``.

    Raises:
        ConfigError: if the file is damaged or another run's (other training flags or library
            versions): one line, with the way out.
    """
    path = folder / RESUME_FILE
    if not path.exists():
        return None
    import torch

    try:
        saved = torch.load(path, map_location="cpu", weights_only=False)
        if not isinstance(saved, dict) or saved.get("format") != FORMAT:
            raise ValueError(f"not a resume point of {FORMAT}")
        theirs = saved["identity"]
        if not isinstance(theirs, dict) or not all(
            isinstance(theirs.get(part), dict) for part in ("flags", "versions")
        ):
            raise ValueError("no flags and versions it was saved with")
        for key in PARTS:
            if key not in saved:
                raise ValueError(f"no {key!r}")
        int(saved["benchmarl"]["state"]["total_frames"])
    except Exception as e:  # unpickling a damaged file raises any kind of error
        raise damaged(path, e) from None
    mine = identity(args)
    for part in ("flags", "versions"):
        ours, other = mine[part], theirs[part]
        for key in sorted(set(ours) | set(other)):
            if ours.get(key) != other.get(key):
                what = f"--{key}" if part == "flags" else key
                raise ConfigError(
                    f"{path} was saved by another run ({what} {other.get(key)} there, "
                    f"{ours.get(key)} here): run the same command again to resume it, or "
                    "--fresh to train anew"
                )
    return saved


def _base_env(env: Any) -> Any:
    """The :class:`~allfives_benchmarl.env.AllFivesTorchEnv` under the collector's transforms."""
    return getattr(env, "base_env", env)


def capture(experiment: Any, curve: Curve, seconds: float, ident: dict[str, Any]) -> dict[str, Any]:
    """The resume point of ``experiment`` as it stands between two iterations."""
    import torch

    collector = experiment.collector
    env = _base_env(collector.env)
    return {
        "format": FORMAT,
        "identity": ident,
        "benchmarl": experiment.state_dict(),
        "optimizers": {
            group: {name: opt.state_dict() for name, opt in opts.items()}
            for group, opts in experiment.optimizers.items()
        },
        "env": pickle.dumps((env.vg, env._seed, env._pending)),
        "samplers": {g: b._sampler.state_dict() for g, b in experiment.replay_buffers.items()},
        "carrier": collector._carrier.clone(),
        "trajectories": int(collector._traj_pool._traj_id.item()),
        "curve": {"points": list(curve.points), "progress": curve.progress},
        "seconds": seconds,
        "rng": {
            "python": random.getstate(),
            "numpy": np.random.get_state(),
            "torch": torch.get_rng_state(),
        },
    }


def restore(experiment: Any, saved: dict[str, Any], curve: Curve) -> None:
    """Put ``experiment`` (freshly built, not yet run) and ``curve`` back in the state
    ``saved`` holds, the generators last."""
    import torch

    experiment.load_state_dict(saved["benchmarl"])
    for group, opts in saved["optimizers"].items():
        for name, state in opts.items():
            experiment.optimizers[group][name].load_state_dict(state)
    for group, state in saved["samplers"].items():  # (an on-policy buffer's is not in it)
        experiment.replay_buffers[group]._sampler.load_state_dict(state)
    collector = experiment.collector
    env = _base_env(collector.env)
    env.vg, env._seed, env._pending = pickle.loads(saved["env"])
    collector._carrier = saved["carrier"]
    collector._traj_pool._traj_id.fill_(saved["trajectories"])
    curve.points[:] = saved["curve"]["points"]
    curve.progress = saved["curve"]["progress"]
    rng = saved["rng"]
    random.setstate(rng["python"])
    np.random.set_state(rng["numpy"])
    torch.set_rng_state(rng["torch"])


class Saver:
    """Writes ``FOLDER/resume.pt`` when BenchMARL asks at the end of an iteration (its
    ``_save_experiment``), at most once every ``every`` seconds, and counts the training
    seconds: those of the attempts the point stands for, then this one's."""

    def __init__(
        self, folder: Path, curve: Curve, ident: dict[str, Any], every: float, before: float
    ) -> None:
        self.path = folder / RESUME_FILE
        self.curve = curve
        self.ident = ident
        self.every = every
        self.before = before
        self.started = self.last = time.monotonic()

    def seconds(self) -> float:
        """The training seconds of the run so far."""
        return self.before + time.monotonic() - self.started

    def maybe_save(self, experiment: Any) -> None:
        """Write the resume point if ``every`` seconds have passed since the last (none at the
        run's last iteration: the policy is exported next)."""
        import torch

        now = time.monotonic()
        done = experiment.total_frames >= experiment.config.max_n_frames
        if done or now - self.last < self.every:
            return
        data = io.BytesIO()
        torch.save(capture(experiment, self.curve, self.seconds(), self.ident), data)
        replace_whole(self.path, data.getvalue())
        self.last = time.monotonic()


def resumable_experiment(saver: Saver, **kwargs: Any) -> Any:
    """BenchMARL's ``Experiment`` built from ``kwargs``, whose checkpoints go to ``saver``
    (BenchMARL calls ``_save_experiment`` at the end of each iteration whose frames divide its
    ``checkpoint_interval``), and which can run on from a resume point (:func:`run_from`)."""
    from benchmarl.experiment import Experiment

    class ResumableExperiment(Experiment):  # type: ignore[misc]
        def _save_experiment(self) -> None:
            saver.maybe_save(self)

    return ResumableExperiment(**kwargs)


def run_from(experiment: Any, saved: dict[str, Any] | None, curve: Curve, path: Path) -> None:
    """Run ``experiment`` to its end: from the start (BenchMARL's ``run``), or from the resume
    point ``saved``, read from ``path`` (put back by :func:`restore`, then BenchMARL's loop
    without seeding its generators again). The experiment is closed however the run ends.

    Raises:
        ConfigError: if the point does not fit the experiment (a damaged file).
    """
    if saved is None:
        experiment.run()
        return
    try:
        restore(experiment, saved, curve)
    except Exception as e:  # a tensor of another shape, a missing key, a foreign object
        experiment.close()
        raise damaged(path, e) from None
    try:
        experiment._collection_loop()  # closes the experiment at its end
    except BaseException:
        experiment.close()
        raise
