"""RLlib's env runner and PPO on the learner's table, shipping arrays: no episodes, no
connectors.

RLlib's single-agent env runner records every step of every game in a ``SingleAgentEpisode``
and runs its connector pipelines around each forward pass; its learner turns the episodes back
into a batch and computes GAE in another pipeline. At 256 games a step, that bookkeeping cost
more than the games and the network together (:mod:`tools.trainer_speed`). Here

- :class:`TableEnvRunner` (RLlib's ``env_runner_cls``) plays ``rollout_fragment_length`` steps
  of every game of its :class:`~allfives_env.vector.single_agent.LearnerBatch` as ``train.py``
  collects a rollout (same-step autoreset, the policy sampled with the Gumbel trick over the
  masked logits of its module's network), values the rollout with the critic in one pass, and
  returns one :class:`Fragment` of flat arrays with GAE's advantages and returns already in it
  (:func:`agents.training.learner.gae`, the trainer's own);
- :class:`TablePPO` (PPO's ``training_step``) samples fragments from every env runner at once
  (rounds of them until ``train_batch_size`` steps are in), joins them, standardizes the
  advantages over the batch, and hands RLlib's learner group a ``MultiAgentBatch``: PPO's
  loss, minibatches, epochs, rate schedule and weight sync are RLlib's.

The env runner keeps the env (:class:`~allfives_env.vector.table.TableVectorEnv`) RLlib made,
so snapshots are seated at its table as before, and its metrics (steps, episodes, returns)
under RLlib's names. What it returns holds what PPO needs and nothing an agent could not see
but the critic's ``state`` (the full position, which only the centralized critic reads).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from ray.rllib.algorithms.ppo import PPO
from ray.rllib.core.columns import Columns
from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner
from ray.rllib.evaluation.postprocessing import Postprocessing
from ray.rllib.policy.sample_batch import MultiAgentBatch, SampleBatch
from ray.rllib.utils.metrics import (
    ALL_MODULES,
    ENV_RUNNER_RESULTS,
    ENV_RUNNER_SAMPLING_TIMER,
    LEARNER_RESULTS,
    LEARNER_UPDATE_TIMER,
    NUM_ENV_STEPS_SAMPLED_LIFETIME,
    NUM_MODULE_STEPS_TRAINED_LIFETIME,
    SYNCH_WORKER_WEIGHTS_TIMER,
    TIMERS,
)

from allfives_rllib.vector_env import TableVectorEnv

Fragment = dict[str, Any]
"""One env runner's rollout, flat (``steps · games`` rows): ``observations``, ``action_mask``
(bool), ``state`` (the critic's; 0 columns without ``critic_state``), ``actions``, ``logp``,
``logits``, ``values``, ``advantages``, ``returns``."""


class TableEnvRunner(SingleAgentEnvRunner):  # type: ignore[misc]
    """An env runner that plays its table as ``train.py`` does (see the module docstring)."""

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        import torch as th

        from allfives_env.vector import set_num_threads

        cpus = max(1, int(self.config.num_cpus_per_env_runner))  # engine_threads, or 1
        set_num_threads(cpus)  # the engine's: it and the network take turns on the same cores
        if self.worker_index:  # a remote env runner: as many torch threads as its CPUs
            th.set_num_threads(cpus)
        self._now: tuple[Any, Any] | None = None  # observations and masks where play stands
        self._returns: Any = None  # each game's return in its episode so far
        self._lengths: Any = None  # and its learner steps

    @property
    def table(self) -> TableVectorEnv:
        """The env runner's table (RLlib made it; snapshots are seated there)."""
        table = self.env.unwrapped
        assert isinstance(table, TableVectorEnv)
        return table

    def sample(self, **kwargs: Any) -> list[Fragment]:
        """Play ``rollout_fragment_length`` steps of every game; the rollout as one
        :class:`Fragment` (RLlib's arguments, for episodes, are not used)."""
        import torch as th

        from agents.training.learner import gae, sample_policy

        table, net = self.table, self.module.net
        batch = table.batch
        if self._now is None:  # the first rollout: deal (game i from (seed, i))
            first, _ = table.reset(seed=self._seed)
            self._now = first["observations"], first["action_mask"] > 0
            self._returns = np.zeros(batch.num_envs, np.float64)
            self._lengths = np.zeros(batch.num_envs, np.int64)
        steps, n = int(self.config.get_rollout_fragment_length(self.worker_index)), batch.num_envs
        size = steps * n
        obs, masks = self._now
        out: Fragment = {
            "observations": np.empty((steps, n, obs.shape[1]), np.float32),
            "action_mask": np.empty((steps, n, masks.shape[1]), bool),
            "state": np.empty((steps, n, table.state_size), np.float32),
            "actions": np.empty((steps, n), np.int64),
            "logp": np.empty((steps, n), np.float32),
            "logits": np.empty((steps, n, masks.shape[1]), np.float32),
        }
        rewards = np.empty((steps, n), np.float32)
        dones = np.empty((steps, n), np.float32)
        started, episodes = time.perf_counter(), 0
        for t in range(steps):
            out["observations"][t], out["action_mask"][t] = obs, masks
            if table.critic_state:
                out["state"][t] = batch.learner_state()
            logits, logp, action = sample_policy(net, th.from_numpy(obs), th.from_numpy(masks))
            out["logits"][t] = logits.numpy()
            out["actions"][t] = action.numpy()
            out["logp"][t] = logp.gather(1, action.unsqueeze(1)).squeeze(1).numpy()
            r = batch.step(out["actions"][t])
            done = r.terminated | r.truncated
            rewards[t], dones[t] = r.rewards, done
            self._returns += r.rewards
            self._lengths += 1
            for i in np.flatnonzero(done):
                self._log_episode_metrics(int(self._lengths[i]), float(self._returns[i]), 0.0)
            self._returns[done], self._lengths[done] = 0.0, 0
            episodes += int(done.sum())
            obs, masks = r.obs, r.masks > 0
        self._now = obs, masks
        flat = {k: v.reshape(size, *v.shape[2:]) for k, v in out.items()}
        with th.no_grad():  # the critic's values, in one pass over the rollout
            state = th.from_numpy(flat["state"]) if table.critic_state else None
            values = net.value(th.from_numpy(flat["observations"]), state).reshape(steps, n)
            last = th.from_numpy(batch.learner_state()) if table.critic_state else None
            next_value = net.value(th.from_numpy(obs), last)
        adv, ret = gae(
            th.from_numpy(rewards), values, th.from_numpy(dones), next_value,
            float(self.config.gamma), float(self.config.lambda_),
        )  # fmt: skip
        flat["values"] = values.reshape(size).numpy()
        flat["advantages"] = adv.reshape(size).numpy()
        flat["returns"] = ret.reshape(size).numpy()
        if self.worker_index:  # the arrays cross the network: their zeros stay here
            for key in SPARSE:
                flat[key] = pack(flat[key])
        TableVectorEnv.steps_in_process += size
        self._increase_sampled_metrics(size, episodes)
        self.metrics.log_value("fragment_seconds", time.perf_counter() - started, window=1)
        return [flat]


SPARSE = ("observations", "state")
"""The arrays a remote env runner ships as :func:`pack` makes them (some 96% of the outlook
observation's entries are 0: 117 MB a rollout of 16,384 steps becomes some 8 MB)."""


def pack(array: Any) -> dict[str, Any]:
    """``array`` as its shape, the flat indices of its nonzero entries and their values
    (:func:`unpack` gives it back exactly)."""
    flat = array.reshape(-1)
    index = np.flatnonzero(flat).astype(np.int64 if flat.size >= 2**31 else np.int32)
    return {"shape": array.shape, "dtype": array.dtype.str, "index": index, "values": flat[index]}


def unpack(packed: Any) -> Any:
    """The array :func:`pack` packed (an array that was not packed is given back as it is)."""
    if not isinstance(packed, dict):
        return packed
    out = np.zeros(packed["shape"], np.dtype(packed["dtype"]))
    out.reshape(-1)[packed["index"]] = packed["values"]
    return out


def train_batch(fragments: list[Fragment], module_id: str) -> MultiAgentBatch:
    """The fragments joined as PPO's train batch for ``module_id``, the advantages
    standardized over it (as RLlib's GAE connector does)."""
    fragments = [{k: unpack(v) for k, v in f.items()} for f in fragments]
    joined = fragments[0]
    if len(fragments) > 1:
        joined = {k: np.concatenate([f[k] for f in fragments]) for k in joined}
    adv = joined["advantages"]
    obs = {"observations": joined["observations"], "action_mask": joined["action_mask"]}
    if joined["state"].shape[1] > 0:
        obs["state"] = joined["state"]
    data = {
        Columns.OBS: obs,
        Columns.ACTIONS: joined["actions"],
        Columns.ACTION_LOGP: joined["logp"],
        Columns.ACTION_DIST_INPUTS: joined["logits"],
        Columns.VF_PREDS: joined["values"],
        Postprocessing.ADVANTAGES: (adv - adv.mean()) / max(float(adv.std()), 1e-4),
        Postprocessing.VALUE_TARGETS: joined["returns"],
    }
    return MultiAgentBatch({module_id: SampleBatch(data)}, env_steps=len(adv))


class TablePPO(PPO):  # type: ignore[misc]
    """PPO whose iteration samples :class:`TableEnvRunner` fragments (see the module
    docstring); everything else is RLlib's PPO."""

    def training_step(self) -> None:
        """Sample rounds of fragments until ``train_batch_size`` steps are in; one update;
        the new weights to every env runner."""
        from allfives_rllib.agent import TABLE_MODULE_ID

        group = self.env_runner_group
        remote = group.num_remote_env_runners() > 0
        fragments: list[Fragment] = []
        with self.metrics.log_time((TIMERS, ENV_RUNNER_SAMPLING_TIMER)):
            while sum(len(f["actions"]) for f in fragments) < self.config.total_train_batch_size:
                sampled = group.foreach_env_runner(
                    lambda r: (r.sample(), r.get_metrics()), local_env_runner=not remote
                )
                if not sampled:  # every env runner failed: RLlib has logged why
                    raise RuntimeError("no env runner returned a rollout")
                for part, metrics in sampled:
                    fragments.extend(part)
                    self.metrics.aggregate([metrics], key=ENV_RUNNER_RESULTS)
        with self.metrics.log_time((TIMERS, LEARNER_UPDATE_TIMER)):
            lifetime = self.metrics.peek((ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME))
            trained = self.metrics.peek(
                (LEARNER_RESULTS, ALL_MODULES, NUM_MODULE_STEPS_TRAINED_LIFETIME), default=0
            )
            results = self.learner_group.update(
                batch=train_batch(fragments, TABLE_MODULE_ID),
                timesteps={
                    NUM_ENV_STEPS_SAMPLED_LIFETIME: lifetime,
                    NUM_MODULE_STEPS_TRAINED_LIFETIME: trained,
                },
                num_epochs=self.config.num_epochs,
                minibatch_size=self.config.minibatch_size,
                shuffle_batch_per_epoch=self.config.shuffle_batch_per_epoch,
            )
            self.metrics.aggregate(results, key=LEARNER_RESULTS)
        with self.metrics.log_time((TIMERS, SYNCH_WORKER_WEIGHTS_TIMER)):
            group.sync_weights(
                from_worker_or_learner_group=self.learner_group,
                policies={TABLE_MODULE_ID},
                inference_only=True,
            )
