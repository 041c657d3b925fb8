"""RLlib's PPO as ``train_rllib.py`` builds it: the environment, the masked actor-critic module,
the self-play league, on Ray started here or joined on a cluster.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from allfives_rllib.config import RLlibConfig

SOURCE = Path(__file__).resolve().parent.parent
"""The folder that holds the project's packages: the workers of a cluster joined by address
import them from there (a source checkout shared by the nodes)."""


def empty_league() -> dict[str, Any]:
    """The league record of a run that has not begun: no snapshots yet (see :func:`build`)."""
    return {"snapshots": [], "next_index": 0, "last_snapshot_step": 0}


def build(cfg: RLlibConfig, league: dict[str, Any], address: str | None) -> Any:
    """Start (or join, at ``address``) Ray and build PPO with the league as the trainer's
    record ``league`` holds it (``snapshots``, ``next_index``, ``last_snapshot_step``)."""
    import logging

    import ray
    import torch
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from allfives_rllib.agent import MODULE_ID
    from allfives_rllib.env import AllFivesMultiAgentEnv
    from allfives_rllib.league import LeagueCallback
    from allfives_rllib.module import MaskedActorCritic

    torch.set_num_threads(cfg.torch_threads)
    os.environ.setdefault("RAY_DEDUP_LOGS", "1")
    if not ray.is_initialized():
        ray.init(
            address=address,
            include_dashboard=False,
            logging_level=logging.ERROR,
            log_to_driver=False,
            configure_logging=True,
            runtime_env={"env_vars": {"PYTHONPATH": str(SOURCE)}} if address else None,
        )
    for name in ("ray.rllib", "ray._common.deprecation"):  # RLlib's notes to its developers
        logging.getLogger(name).setLevel(logging.ERROR)
    register_env("allfives", lambda c: AllFivesMultiAgentEnv(c))
    module = RLModuleSpec(
        module_class=MaskedActorCritic,
        model_config={
            "actor_arch": cfg.actor_arch,
            "critic_arch": cfg.critic_arch,
            "critic_state": cfg.critic_state,
        },
    )
    snapshots = list(league["snapshots"])
    league = json.loads(json.dumps(league))  # the callback's own copy

    def callback() -> LeagueCallback:
        return LeagueCallback(
            cfg.rules(), league, cfg.pool_size, cfg.snapshot_every,
            cfg.snapshot_win_rate, cfg.seed,
        )  # fmt: skip

    config = (
        PPOConfig()
        .environment("allfives", env_config=cfg.env_config(), disable_env_checking=True)
        .framework("torch")
        .env_runners(
            num_env_runners=cfg.num_env_runners,
            num_envs_per_env_runner=cfg.num_envs_per_env_runner,
            num_cpus_per_env_runner=1,
        )
        .learners(num_learners=cfg.num_learners, num_cpus_per_learner=1)
        .multi_agent(
            policies={MODULE_ID, *snapshots},
            policy_mapping_fn=callback().mapping(),
            policies_to_train=[MODULE_ID],
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={m: module for m in (MODULE_ID, *snapshots)}
            )
        )
        .training(
            lr=cfg.learning_rate,
            gamma=cfg.gamma,
            lambda_=cfg.gae_lambda,
            clip_param=cfg.clip_coef,
            entropy_coeff=cfg.ent_coef,
            vf_loss_coeff=cfg.vf_coef,
            grad_clip=cfg.max_grad_norm,
            num_epochs=cfg.update_epochs,
            train_batch_size_per_learner=cfg.train_batch_size,
            minibatch_size=cfg.minibatch_size,
        )
        .callbacks(callback)
        .reporting(metrics_num_episodes_for_smoothing=200)
        .debugging(seed=cfg.seed, log_level="ERROR")
    )
    return config.build_algo()
