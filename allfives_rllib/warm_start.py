"""The RLlib trainer's warm start: ``train.py``'s imitation of a teacher, then handed to RLlib.

RLlib's PPO has no imitation phase of its own, and its behaviour cloning learns from recorded
data only. So, as ``train.py`` does, the network first plays at the learner's table on the
batched engine while a teacher (the compiled heuristic by default) labels every position, and
learns its choices (the critic learns the returns meanwhile): the shared training package's
:class:`~agents.training.learner.Learner`, on the same table, the same network and the same
seed. :func:`imitate` returns the network's weights; :func:`load_into` puts them into RLlib's
module, on the learners and every env runner. PPO then starts from there.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

from agents.training.config import Settings
from allfives_rllib.config import RLlibConfig


def imitation_config(cfg: RLlibConfig) -> Any:
    """``train.py``'s config for the same game, table and network, imitating alone."""
    from agents.training.selfplay_config import Config

    own = {"total_timesteps", "eval_matches", "final_eval_matches", "progress"}
    shared = {
        f.name: getattr(cfg, f.name) for f in dataclasses.fields(Settings) if f.name not in own
    }
    return Config(
        **shared,
        progress=False,
        num_envs=cfg.num_envs_per_env_runner,
        num_steps=cfg.num_steps,
        num_minibatches=max(1, cfg.num_envs_per_env_runner * cfg.num_steps // cfg.minibatch_size),
        context_dim=cfg.context_dim,
        feature_arch=list(cfg.feature_arch),
        tile_features=cfg.tile_features,
        imitation_samples=cfg.imitation_samples,
        imitation_epochs=cfg.imitation_epochs,
        imitation_teacher=cfg.imitation_teacher,
        baselines=list(cfg.baselines),
        baseline_prob=cfg.baseline_prob,
        total_timesteps=0,
        eval_matches=0,
        final_eval_matches=0,
    )  # fmt: skip


def imitation_steps(cfg: RLlibConfig) -> int:
    """The learner steps the warm start takes (:func:`imitate`): ``imitation_samples`` rounded
    up to whole rollouts of ``num_envs_per_env_runner · num_steps``; 0 on the AEC env, which
    has no warm start."""
    if cfg.engine != "batched" or cfg.imitation_samples <= 0:
        return 0
    per_rollout = cfg.num_envs_per_env_runner * cfg.num_steps
    return -(-cfg.imitation_samples // per_rollout) * per_rollout


def teacher_positions(cfg: RLlibConfig) -> int:
    """The positions a search teacher labelled in the warm start: every learner step of it
    (:func:`imitation_steps`) when ``imitation_teacher`` is a search (``search``,
    ``batchsearch``: an :class:`agents.search.ValueSearch`), else 0 (a compiled or rule-based
    teacher searches nothing)."""
    steps = imitation_steps(cfg)
    if steps == 0:
        return 0
    from agents.registry import make_agent
    from agents.search import ValueSearch

    return steps if isinstance(make_agent(cfg.imitation_teacher), ValueSearch) else 0


def imitate(cfg: RLlibConfig, folder: Path) -> dict[str, Any]:
    """:func:`imitation_steps` learner steps of imitation (``cfg.imitation_samples`` rounded
    up to whole rollouts); the network's ``state_dict``."""
    from agents.training.learner import Learner
    from agents.training.resume import seed_everything
    from agents.training.run import Run

    sp = imitation_config(cfg)
    seed_everything(sp)
    learner = Learner.at_new_table(sp, Run(sp, folder))
    learner.attach_teacher()
    learner.batch.reset(sp.seed)
    per_rollout = sp.num_envs * sp.num_steps
    bar = None
    if cfg.progress:
        from tqdm import tqdm

        bar = tqdm(total=sp.imitation_samples, unit="step", desc="imitation", file=sys.stderr)
    done = 0
    try:
        while done < sp.imitation_samples:
            learner.collect(imitation=True)
            stats = learner.update(imitation=True)
            done += per_rollout
            if bar is not None:
                bar.update(per_rollout)
                bar.set_postfix(accuracy=f"{stats['imitation_accuracy']:.2f}")
    finally:
        if bar is not None:
            bar.close()
    return {k: v.detach().clone() for k, v in learner.net.state_dict().items()}


def load_into(algo: Any, module_id: str, state: dict[str, Any]) -> None:
    """Put the network's ``state`` into RLlib's module ``module_id``: the learners' copy, then
    every env runner's."""
    module_state = {f"net.{k}": v.numpy() for k, v in state.items()}
    algo.set_state({"learner_group": {"learner": {"rl_module": {module_id: module_state}}}})
    algo.env_runner_group.sync_weights(
        from_worker_or_learner_group=algo.learner_group, inference_only=True
    )
