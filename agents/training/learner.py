"""The learner: the network and its optimizer at the table; a rollout's collection, GAE, PPO's
clipped update, and the warm start's imitation (of a teacher's choices or of its values) with
its refit over every position it met.

The devices: the network being trained, its optimizer, GAE and the update run on the config's
``device`` (:mod:`agents.training.device`); the batched engine, the teacher and the baselines run
on the CPU. On a GPU the rollout is played by a copy of the actor on the CPU (synchronised after
each update), filled into CPU buffers and moved to the GPU in one copy per rollout; nothing
crosses between devices per step. Every random draw (sampling, the teacher's coin, the
minibatches' order) comes from torch's CPU generator, on any device.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from agents.training.run import Run
    from agents.training.selfplay_config import Config
    from agents.training.table import Pool
    from allfives_env.vector.single_agent import LearnerBatch


@dataclass
class Rollout:
    """One rollout's tensors, (num_steps, num_envs, …)."""

    obs: Any
    privileged: Any
    masks: Any
    actions: Any
    labels: Any
    targets: Any
    logprobs: Any
    rewards: Any
    dones: Any
    values: Any
    searched: Any
    """The teacher's value of each position over the target (NaN where it has one legal
    action); empty unless the critic learns it (``value_head``)."""

    def to(self, device: Any) -> Rollout:
        """This rollout on ``device`` (itself where it is there already; else one copy of each
        tensor, asynchronous from pinned memory)."""
        return Rollout(**{k: v.to(device, non_blocking=True) for k, v in vars(self).items()})

    def pin(self) -> Rollout:
        """This rollout in page-locked memory (for fast copies to a GPU)."""
        return Rollout(**{k: v.pin_memory() for k, v in vars(self).items()})


def new_rollout(cfg: Config, obs_size: int, privileged: int, num_actions: int) -> Rollout:
    """Zeroed tensors (``targets`` is empty unless the warm start imitates values)."""
    import torch as th

    t, n = cfg.num_steps, cfg.num_envs
    soft = cfg.imitation_targets == "values" and cfg.imitation_samples > 0
    return Rollout(
        obs=th.zeros((t, n, obs_size)),
        privileged=th.zeros((t, n, privileged)),
        masks=th.zeros((t, n, num_actions), dtype=th.bool),
        actions=th.zeros((t, n), dtype=th.long),
        labels=th.zeros((t, n), dtype=th.long),
        targets=th.zeros((t, n, num_actions) if soft else (0,)),
        logprobs=th.zeros((t, n)),
        rewards=th.zeros((t, n)),
        dones=th.zeros((t, n)),
        values=th.zeros((t, n)),
        searched=th.zeros((t, n) if cfg.value_head else (0,)),
    )


@dataclass
class Replayed:
    """What the warm start learns from in one rollout, flattened to (num_steps * num_envs,
    …): kept for the refit (``imitation_refit_epochs``)."""

    obs: Any
    privileged: Any
    masks: Any
    labels: Any
    targets: Any
    """The teacher's target distributions, or ``None`` when it imitates choices."""
    returns: Any
    """The critic's targets, as computed when the rollout was played (with ``value_head``: the
    teacher's values, NaN where there was nothing to search)."""

    def to_numpy(self) -> dict[str, Any]:
        """Its arrays, to save in a resume point (``targets`` left out when ``None``)."""
        return {k: v.cpu().numpy() for k, v in vars(self).items() if v is not None}


class Learner:
    """The network, its optimizer, and the table it plays at."""

    def __init__(self, cfg: Config, run: Run, pool: Pool, batch: LearnerBatch):
        import torch as th

        from agents.numpy_networks import ScorerLayout
        from agents.training.device import resolve_device
        from agents.training.torch_networks import ScorerNet
        from allfives_env.vector.single_agent import learner_state_size

        self.cfg = cfg
        self.run = run
        self.pool = pool
        self.batch = batch
        layout = ScorerLayout.of(batch.encoding, cfg.tile_features)
        enc = batch.encoding
        privileged = learner_state_size(enc) if cfg.critic_state else 0
        self.device = resolve_device(cfg.device)
        net = ScorerNet(
            layout,
            cfg.actor_arch,
            cfg.critic_arch,
            cfg.context_dim,
            privileged,
            tuple(cfg.feature_arch),
        )  # initialised on the CPU: the same weights on any device
        self.actor = net
        """The network that plays the rollouts, on the CPU: :attr:`net` itself on the CPU, else
        its copy (:meth:`sync_actor`)."""
        self.net = net if self.device.type == "cpu" else copy.deepcopy(net).to(self.device)
        """The network being trained, on :attr:`device`."""
        self.optimizer = th.optim.Adam(self.net.parameters(), lr=cfg.learning_rate, eps=1e-5)
        self.rollout = new_rollout(cfg, enc.obs_size, privileged, enc.num_actions)
        if self.device.type == "cuda":
            self.rollout = self.rollout.pin()
        self.on_device = self.rollout
        """The last rollout on :attr:`device` (with the critic's values), as the update reads it."""
        self.teacher: Any = None
        self.teacher_rng: Any = None

    @classmethod
    def at_new_table(cls, cfg: Config, run: Run) -> Learner:
        """A new network at a new table of ``cfg``: the pool of baselines, the games
        (:func:`~agents.training.table.make_table`), not dealt yet."""
        from agents.training.table import Pool, make_table

        pool = Pool(cfg, run.spec())
        return cls(cfg, run, pool, make_table(cfg, pool))

    def sync_actor(self) -> None:
        """Copy the trained weights into the CPU actor (one copy; nothing on the CPU)."""
        if self.actor is not self.net:
            self.actor.load_state_dict(self.net.state_dict())

    def attach_teacher(self, address: str | None = None) -> None:
        """The warm start's teacher, as the config names it: a
        :class:`~agents.training.teacher.SearchTeacher` when imitating values (valuing on the
        Ray cluster at ``address`` if given: the same targets), else the agent (compiled where
        it can be), with its generator (:func:`teacher_rng`).

        Raises:
            ValueError: for an ``address`` with a teacher that is not a value search.
            ConfigError: for an ``address`` with no Ray cluster behind it.
        """
        from agents.training.teacher import SearchTeacher
        from allfives_env.vector.agents import batch_agent

        cfg = self.cfg
        if cfg.imitation_targets == "values":
            self.teacher = SearchTeacher(
                cfg.imitation_teacher, cfg.imitation_temperature, cfg.teacher_processes, address
            )
        elif address is not None:
            raise ValueError("a teacher on a Ray cluster must be a teacher of values")
        else:
            self.teacher = batch_agent(cfg.imitation_teacher)
        self.teacher_rng = teacher_rng(cfg)

    def close_teacher(self) -> None:
        """Stop the teacher's worker processes or Ray actors, if it has any (it restarts them
        if asked again)."""
        close = getattr(self.teacher, "close", None)
        if close is not None:
            close()

    def state_now(self) -> tuple[Any, Any]:
        """The learner's observations and masks in every game now."""
        import torch as th

        vg = self.batch.vg
        return th.from_numpy(vg.observe().copy()), th.from_numpy(vg.masks() > 0)

    def privileged(self) -> Any:
        """What the critic sees besides the observation: the full position of every game and
        the learner's seat (one-hot); an empty tensor without ``critic_state``."""
        import torch as th

        batch = self.batch
        if not self.cfg.critic_state:
            return th.zeros((batch.num_envs, 0))
        return th.from_numpy(batch.learner_state())

    def collect(self, imitation: bool) -> dict[str, float]:
        """Play ``num_steps`` steps in every game; fill the rollout. With ``imitation``, the
        teacher's choice is the label (and, imitating values, its target distribution is
        kept), and is played with chance ``teacher_prob``."""
        import torch as th

        cfg, ro, batch, timing = self.cfg, self.rollout, self.batch, self.run.timing
        obs, masks = self.state_now()
        privileged = self.privileged()
        finished = won = 0
        for t in range(cfg.num_steps):
            t0 = time.perf_counter()
            _, logp, action = sample_policy(self.actor, obs, masks)
            labels = action
            if imitation:
                games = np.arange(cfg.num_envs)
                if cfg.imitation_targets == "values":
                    choice, targets, values = self.teacher.valued(batch.vg, games, self.teacher_rng)
                    ro.targets[t] = th.from_numpy(targets)
                    if cfg.value_head:
                        ro.searched[t] = th.from_numpy(searched_value(values, cfg.rules().target))
                else:
                    choice = self.teacher.act_batch(batch.vg, games, self.teacher_rng)
                teacher = th.from_numpy(np.asarray(choice))
                play_teacher = th.rand(cfg.num_envs) < cfg.teacher_prob
                action = th.where(play_teacher, teacher, action)
                labels = teacher
            ro.obs[t], ro.masks[t], ro.actions[t], ro.labels[t] = obs, masks, action, labels
            ro.privileged[t] = privileged
            ro.logprobs[t] = logp.gather(1, action.unsqueeze(1)).squeeze(1)
            t1 = time.perf_counter()
            r = batch.step(action.numpy())
            t2 = time.perf_counter()
            timing["policy"] += t1 - t0
            timing["env"] += t2 - t1
            done = r.terminated | r.truncated
            ro.rewards[t] = th.from_numpy(r.rewards)
            ro.dones[t] = th.from_numpy(done.astype(np.float32))
            finished += int(r.terminated.sum())
            won += int(r.final_won[r.terminated].sum())
            obs, masks = th.from_numpy(r.obs), th.from_numpy(r.masks > 0)
            privileged = self.privileged()
        t0 = time.perf_counter()
        dev = self.on_device = ro.to(self.device)  # one copy a rollout
        with th.no_grad():  # the critic's values, in one pass over the rollout
            size = cfg.num_steps * cfg.num_envs
            flat = self.net.value(dev.obs.reshape(size, -1), dev.privileged.reshape(size, -1))
            dev.values[:] = flat.reshape(cfg.num_steps, cfg.num_envs)
            self.next_value = self.net.value(obs.to(self.device), privileged.to(self.device))
        timing["policy"] += time.perf_counter() - t0
        return {"episodes": finished, "won": won}

    def advantages(self) -> tuple[Any, Any]:
        """GAE advantages and returns of the rollout (:func:`gae`), on :attr:`device`."""
        cfg, ro = self.cfg, self.on_device
        return gae(ro.rewards, ro.values, ro.dones, self.next_value, cfg.gamma, cfg.gae_lambda)

    def imitation_loss(
        self, part: tuple[Any, ...], idx: Any, stats: dict[str, float]
    ) -> tuple[Any, Any, Any, Any]:
        """The warm start's loss on the minibatch ``idx`` of ``part`` (obs, privileged, masks,
        labels, targets, returns: :class:`Replayed`'s fields in order), on :attr:`device`:
        cross-entropy on the teacher's labels or target distributions plus the critic's
        regression. Returns (loss, policy loss, value loss, entropy); sets
        ``stats["imitation_accuracy"]``."""
        import torch as th
        from torch import nn

        on: list[Any] = [
            None if x is None else x[idx].to(self.device, non_blocking=True) for x in part
        ]
        obs, privileged, masks, labels, targets, returns = on
        logits = self.net.logits(obs, masks)
        logp = th.log_softmax(logits, dim=1)
        value = self.net.value(obs, privileged)
        v_loss = value_loss(value, returns)
        entropy = -(logp.exp() * logp).sum(dim=1).mean()
        if targets is not None:
            pg_loss = soft_cross_entropy(logp, targets)
        else:
            pg_loss = nn.functional.cross_entropy(logits, labels)
        stats["imitation_accuracy"] = float((logits.argmax(1) == labels).float().mean())
        return pg_loss + self.cfg.vf_coef * v_loss, pg_loss, v_loss, entropy

    def descend(self, loss: Any) -> None:
        """One optimizer step on ``loss``, the gradient's norm clipped to ``max_grad_norm``."""
        from torch import nn

        self.optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(self.net.parameters(), self.cfg.max_grad_norm)
        self.optimizer.step()

    def keep(self, part: Replayed) -> None:
        """Save one warm-start rollout's positions for the refit, as ``positions/NNNN.npz``
        (NNNN the rollout's index: a rollout played again after a resume overwrites its file;
        written atomically)."""
        self.run.positions_dir.mkdir(parents=True, exist_ok=True)
        path = self.run.kept_file(self.run.imitated // (self.cfg.num_envs * self.cfg.num_steps))
        tmp = path.with_suffix(".tmp")
        with open(tmp, "wb") as f:
            np.savez_compressed(f, **part.to_numpy())
        os.replace(tmp, path)

    def kept(self) -> tuple[Any, ...]:
        """Every warm-start rollout's positions kept so far, end to end, in the field order of
        :class:`Replayed` (read into tensors allocated once: the refit's memory is the
        positions' own)."""
        import torch as th

        paths = self.run.kept_files(self.run.imitated)
        names = [f.name for f in dataclasses.fields(Replayed)]
        out: dict[str, Any] = {}
        at = 0
        for path in paths:
            with np.load(path) as data:
                n = len(data["obs"])
                for k in names:
                    if k in data.files:
                        a = data[k]
                        if k not in out:
                            out[k] = th.empty(
                                (n * len(paths), *a.shape[1:]), dtype=th.from_numpy(a[:0]).dtype
                            )
                        out[k][at : at + n] = th.from_numpy(a)
            at += n
        return tuple(out.get(k) for k in names)

    def refit(self) -> dict[str, float]:
        """``imitation_refit_epochs`` passes over every position the warm start kept
        (:meth:`kept`), shuffled, in the warm start's minibatches, the rate annealed linearly
        from ``learning_rate`` to 0 over them; returns the last minibatch's statistics and the
        number of positions. The positions stay on the CPU; each minibatch is copied to
        :attr:`device` whole."""
        import torch as th

        cfg = self.cfg
        t0 = time.perf_counter()
        part = self.kept()
        size = part[0].shape[0]
        minibatch = cfg.num_envs * cfg.num_steps // cfg.num_minibatches
        total = cfg.imitation_refit_epochs * -(-size // minibatch)
        stats: dict[str, float] = {}
        done = 0
        for _ in range(cfg.imitation_refit_epochs):
            order = th.randperm(size)
            for start in range(0, size, minibatch):
                self.optimizer.param_groups[0]["lr"] = cfg.learning_rate * (1 - done / total)
                loss, pg_loss, v_loss, _ = self.imitation_loss(
                    part, order[start : start + minibatch], stats
                )
                self.descend(loss)
                done += 1
        stats.update(policy_loss=pg_loss.item(), value_loss=v_loss.item(), positions=size)
        self.sync_actor()
        self.run.timing["update"] += time.perf_counter() - t0
        return stats

    def update(self, imitation: bool) -> dict[str, float]:
        """PPO's clipped update (or, with ``imitation``, cross-entropy on the teacher's
        labels or target distributions) and the critic's regression, over ``update_epochs``
        epochs (``imitation_epochs`` in the warm start)."""
        import torch as th

        cfg, ro = self.cfg, self.on_device
        t0 = time.perf_counter()
        adv, returns = self.advantages()
        if imitation and cfg.value_head:
            returns = ro.searched
        size = cfg.num_steps * cfg.num_envs
        obs = ro.obs.reshape(size, -1)
        privileged = ro.privileged.reshape(size, -1)
        masks = ro.masks.reshape(size, -1)
        actions, labels = ro.actions.reshape(size), ro.labels.reshape(size)
        soft = imitation and cfg.imitation_targets == "values"
        targets = ro.targets.reshape(size, -1) if soft else None
        logprobs, adv, returns = ro.logprobs.reshape(size), adv.reshape(size), returns.reshape(size)
        minibatch = size // cfg.num_minibatches
        now = Replayed(obs, privileged, masks, labels, targets, returns)
        if imitation and cfg.imitation_refit_epochs > 0:
            self.keep(now)
        epochs = cfg.imitation_epochs if imitation else cfg.update_epochs
        stats: dict[str, float] = {}
        for _ in range(epochs):
            order = th.randperm(size).to(self.device)  # drawn on the CPU, on any device
            for start in range(0, size, minibatch):
                idx = order[start : start + minibatch]
                if imitation:
                    part = (obs, privileged, masks, labels, targets, returns)
                    loss, pg_loss, v_loss, entropy = self.imitation_loss(part, idx, stats)
                else:
                    logits = self.net.logits(obs[idx], masks[idx])
                    logp = th.log_softmax(logits, dim=1)
                    value = self.net.value(obs[idx], privileged[idx])
                    v_loss = value_loss(value, returns[idx])
                    entropy = -(logp.exp() * logp).sum(dim=1).mean()
                    chosen = logp.gather(1, actions[idx].unsqueeze(1)).squeeze(1)
                    ratio = (chosen - logprobs[idx]).exp()
                    a = adv[idx]
                    a = (a - a.mean()) / (a.std() + 1e-8)
                    pg_loss = th.max(
                        -a * ratio, -a * th.clamp(ratio, 1 - cfg.clip_coef, 1 + cfg.clip_coef)
                    ).mean()
                    loss = pg_loss - cfg.ent_coef * entropy + cfg.vf_coef * v_loss
                    stats["clip_fraction"] = float(
                        ((ratio - 1).abs() > cfg.clip_coef).float().mean()
                    )
                self.descend(loss)
        stats.update(policy_loss=pg_loss.item(), value_loss=v_loss.item(), entropy=entropy.item())
        self.sync_actor()
        self.run.timing["update"] += time.perf_counter() - t0
        return stats


def searched_value(values: np.ndarray, target: int) -> np.ndarray:
    """(B,) float32: each row's best value over ``target`` (the critic's target with
    ``value_head``), NaN where fewer than two actions were valued (nothing was searched).
    ``values``: a teacher's mean values (:meth:`SearchTeacher.valued`, NaN on illegal actions)."""
    valued = np.isfinite(values)
    best = np.where(valued, values, -np.inf).max(axis=1) / target
    return np.where(valued.sum(axis=1) > 1, best, np.nan).astype(np.float32)


def value_loss(value: Any, target: Any) -> Any:
    """Half the mean squared error of the critic's ``value`` against ``target``, over the
    entries whose target is not NaN (0 if none is)."""
    import torch as th

    known = ~th.isnan(target)
    if not bool(known.any()):
        return (value * 0.0).sum()
    return 0.5 * ((value[known] - target[known]) ** 2).mean()


def sample_policy(net: Any, obs: Any, masks: Any) -> tuple[Any, Any, Any]:
    """A sample of ``net``'s masked policy in every game (the Gumbel trick, from torch's
    generator), without gradients: the logits, the log-probabilities of every action and the
    actions drawn (what a rollout of either trainer plays)."""
    import torch as th

    with th.no_grad():
        logits = net.logits(obs, masks)
        logp = th.log_softmax(logits, dim=1)
        gumbel = -th.log(-th.log(th.rand_like(logp).clamp_min(1e-20)))
        return logits, logp, (logp + gumbel).argmax(dim=1)


def gae(
    rewards: Any, values: Any, dones: Any, next_value: Any, gamma: float, lam: float
) -> tuple[Any, Any]:
    """GAE advantages and returns (tensors of ``(steps, games)``) of a rollout with same-step
    autoreset: ``dones[t]`` means the episode ended by action ``t`` (the next observation is a
    new episode's), which cuts the bootstrap; ``next_value`` is the critic's value of the
    observation after the last step."""
    import torch as th

    adv = th.zeros_like(rewards)
    last = th.zeros_like(next_value)
    for t in reversed(range(rewards.shape[0])):
        nonterminal = 1.0 - dones[t]
        following = next_value if t == rewards.shape[0] - 1 else values[t + 1]
        delta = rewards[t] + gamma * following * nonterminal - values[t]
        last = delta + gamma * lam * nonterminal * last
        adv[t] = last
    return adv, adv + values


def teacher_rng(cfg: Config) -> Any:
    """The generators the warm start's teacher draws from, one a game, seeded by the run's
    seed (apart from every other stream of the run)."""
    from allfives_env.vector.engine import policy_rng

    return policy_rng(cfg.seed + 17, cfg.num_envs)


def soft_cross_entropy(logp: Any, targets: Any) -> Any:
    """The warm start's loss on a teacher's target distributions: ``−Σ p·log π`` over the
    actions with ``p > 0`` (the illegal ones have ``p = 0`` and ``log π = −inf``), averaged
    over the batch. ``logp`` and ``targets`` are (B, num_actions) tensors."""
    import torch as th

    return -th.where(targets > 0, targets * logp, 0.0).sum(dim=1).mean()
