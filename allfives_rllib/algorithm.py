"""RLlib's PPO as ``train_rllib.py`` builds it: the environment, the masked actor-critic module,
the self-play league, on Ray started here or joined on a cluster.
"""

from __future__ import annotations

import json
import os
from typing import Any

from allfives_rllib.config import RLlibConfig


def empty_league() -> dict[str, Any]:
    """The league record of a run that has not begun: no snapshots yet (see :func:`build`)."""
    return {"snapshots": [], "next_index": 0, "last_snapshot_step": 0}


def module_id(cfg: RLlibConfig) -> str:
    """The id of the module PPO trains: RLlib's single-agent default with the batched engine,
    the league's ``main`` with the AEC env."""
    from allfives_rllib.agent import MODULE_ID, TABLE_MODULE_ID

    return TABLE_MODULE_ID if cfg.engine == "batched" else MODULE_ID


def start_ray(cfg: RLlibConfig, address: str | None) -> None:
    """Start Ray here, or join the cluster at ``address`` (once per process;
    :func:`agents.training.cluster.join`, which keeps the trainer's Ctrl-C and SIGTERM)."""
    import logging

    import torch

    from agents.training.cluster import join

    torch.set_num_threads(cfg.torch_threads)
    os.environ.setdefault("RAY_DEDUP_LOGS", "1")
    join(address)
    for name in ("ray.rllib", "ray._common.deprecation"):  # RLlib's notes to its developers
        logging.getLogger(name).setLevel(logging.ERROR)


def learner_resources(cfg: RLlibConfig) -> dict[str, Any]:
    """RLlib's ``learners()`` settings for ``cfg.device``: a CPU each, or a GPU each
    (``num_gpus_per_learner``; with no remote learners, ``cuda:N`` is the driver's
    ``local_gpu_idx``).

    Raises:
        ConfigError: for a GPU torch does not see (:func:`agents.training.device.resolve_device`).
    """
    from agents.training.device import resolve_device

    device = resolve_device(cfg.device)
    if device.type != "cuda":
        return {"num_learners": cfg.num_learners, "num_cpus_per_learner": 1}
    return {
        "num_learners": cfg.num_learners,
        "num_gpus_per_learner": 1,
        "local_gpu_idx": device.index or 0,
    }


def table_config(cfg: RLlibConfig) -> dict[str, Any]:
    """The env config of :class:`allfives_rllib.vector_env.TableVectorEnv` for ``cfg``."""
    import dataclasses

    return {
        "rules": dataclasses.asdict(cfg.rules()),
        "episode": cfg.episode,
        "reward": cfg.reward,
        "forced_actions": cfg.forced_actions,
        "action_features": cfg.action_features,
        "critic_state": cfg.critic_state,
        "baselines": list(cfg.baselines),
        "baseline_prob": cfg.baseline_prob,
        "pool_size": cfg.pool_size,
    }


def build_batched(cfg: RLlibConfig, address: str | None) -> Any:
    """PPO on the learner's table on the batched engine, with ``train.py``'s network: each env
    runner steps ``num_envs_per_env_runner`` games in one vector env, and ships its rollout
    as arrays (:mod:`allfives_rllib.table_runner`)."""
    start_ray(cfg, address)
    return batched_config(cfg).build_algo()


def batched_config(cfg: RLlibConfig) -> Any:
    """RLlib's config of :func:`build_batched`'s PPO (the table's env registered)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from agents.learned import PolicySpec
    from allfives_rllib.scorer_module import ScorerModule
    from allfives_rllib.table_runner import TableEnvRunner, TablePPO
    from allfives_rllib.vector_env import TableVectorEnv

    register_env("allfives_table", lambda c: TableVectorEnv(dict(c)))
    module = RLModuleSpec(
        module_class=ScorerModule,
        model_config={
            "spec": PolicySpec(cfg.rules(), cfg.action_features).to_json(),
            "actor_arch": cfg.actor_arch,
            "critic_arch": cfg.critic_arch,
            "context_dim": cfg.context_dim,
            "feature_arch": cfg.feature_arch,
            "tile_features": cfg.tile_features,
            "critic_state": cfg.critic_state,
        },
    )
    config = (
        PPOConfig(algo_class=TablePPO)
        .environment("allfives_table", env_config=table_config(cfg), disable_env_checking=True)
        .framework("torch")
        .env_runners(
            num_env_runners=cfg.num_env_runners,
            num_envs_per_env_runner=cfg.num_envs_per_env_runner,
            num_cpus_per_env_runner=max(1, cfg.engine_threads),  # the engine's threads
            gym_env_vectorize_mode="vector_entry_point",
            rollout_fragment_length=fragment_length(cfg),
            env_runner_cls=TableEnvRunner,
        )
        .learners(**learner_resources(cfg))
        .rl_module(rl_module_spec=module)
        .training(**ppo_settings(cfg))
        .reporting(metrics_num_episodes_for_smoothing=200)
        .debugging(seed=cfg.seed, log_level="ERROR")
    )
    return config


def fragment_length(cfg: RLlibConfig) -> int:
    """Steps each game of an env runner plays per iteration on the batched engine: the
    iteration's ``train_batch_size`` shared among the env runners' games (RLlib wants the
    whole within 10% of it)."""
    return max(1, cfg.train_batch_size // cfg.table_games())


def ppo_settings(cfg: RLlibConfig) -> dict[str, Any]:
    """PPO's coefficients, in RLlib's names. With the batched engine, PPO as ``train.py`` runs
    it: no KL penalty (the clipped surrogate alone), the rate annealed to 0 with
    ``anneal_lr``."""
    batched: dict[str, Any] = {}
    if cfg.engine == "batched":
        batched["use_kl_loss"] = False
        if cfg.anneal_lr:
            batched["lr"] = [[0, cfg.learning_rate], [cfg.total_timesteps, 0.0]]
    return {
        "lr": cfg.learning_rate,
        "gamma": cfg.gamma,
        "lambda_": cfg.gae_lambda,
        "clip_param": cfg.clip_coef,
        "entropy_coeff": cfg.ent_coef,
        "vf_loss_coeff": cfg.vf_coef,
        "grad_clip": cfg.max_grad_norm,
        "num_epochs": cfg.update_epochs,
        "train_batch_size_per_learner": cfg.train_batch_size,
        "minibatch_size": cfg.minibatch_size,
    } | batched


def build(cfg: RLlibConfig, league: dict[str, Any], address: str | None) -> Any:
    """Start (or join, at ``address``) Ray and build PPO: on the batched engine's table
    (:func:`build_batched`), or on the AEC env with the league as the trainer's record
    ``league`` holds it (``snapshots``, ``next_index``, ``last_snapshot_step``)."""
    if cfg.engine == "batched":
        return build_batched(cfg, address)
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from allfives_rllib.agent import MODULE_ID
    from allfives_rllib.env import AllFivesMultiAgentEnv
    from allfives_rllib.league import LeagueCallback
    from allfives_rllib.module import MaskedActorCritic

    start_ray(cfg, address)
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
        .learners(**learner_resources(cfg))
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
        .training(**ppo_settings(cfg))
        .callbacks(callback)
        .reporting(metrics_num_episodes_for_smoothing=200)
        .debugging(seed=cfg.seed, log_level="ERROR")
    )
    return config.build_algo()
