"""Self-play training of an All Fives agent: imitation of the heuristic, then PPO, on the
batched engine.

    python train.py                                  # the default config: pagat, 2 players
    python train.py --config configs/smoke.yaml      # a few thousand steps (what CI runs)
    python train.py --config configs/team4.yaml --total_timesteps 4000000 --name team4-long

One readable script, top to bottom (in the manner of CleanRL's ``ppo.py``):

1. ``Config`` — every field has a one-line docstring (``--help`` prints them); ``configs/*.yaml``
   use exactly these names; ``--field value`` overrides. Anything wrong is one line, exit 2,
   before anything runs.
2. The table — :class:`~allfives_env.vector.single_agent.LearnerBatch`: ``num_envs`` games on
   the batched engine, the learner at one seat of each (drawn every episode), every other seat
   (the partner too, in 4 players) drawn each episode from a pool of baseline agents (by
   default the heuristic, compiled, twice as often as greedy) and, when ``baseline_prob`` < 1,
   the learner's frozen snapshots.
3. The network — :class:`agents.policy_net.ScorerNet`: a trunk on the global observation, and
   one small network shared by all placements that scores each from its public outlook
   (``action_features="outlook"``), weighed by the position.
4. Warm start — imitation of the heuristic: the learner plays (at first mostly the teacher's
   moves), and is trained to pick what the heuristic picks in the positions it meets (its
   critic learns the returns at the same time). With ``imitation_targets: values`` and a search
   teacher, it learns the search's value of every legal action instead
   (:class:`agents.teacher.SearchTeacher`: softmax(value / imitation_temperature)).
5. PPO — clipped surrogate, GAE, masked actions, snapshots into the pool, periodic evaluation
   with the project's duplicate-deal evaluator, ``best.zip`` (best mean win rate) and
   ``latest.zip``, TensorBoard scalars, a progress bar, and a resume point after every update.
6. The end — ``best.zip`` settled between the best periodic evaluation and the final weights on
   deals of its own, its final evaluation on other deals, ``report.json`` and
   ``learning_curve.png``.

Resume: a run folder (``runs/<name>``) holds everything needed to continue: the network and its
optimizer, the pool, the games in the middle of play, the counters and every generator's state,
saved after each update. Running the same command again after Ctrl-C or a kill continues from
there, bit for bit; a finished run is not restarted unless ``total_timesteps`` grows; a
different config for the same name is refused (use ``--name`` or ``--fresh``).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import io
import json
import os
import pickle
import random
import shutil
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, NoReturn

_INTERRUPTED = False
"""Set by Ctrl-C (SIGINT) at any moment, even where an import or a library swallows the
KeyboardInterrupt: :func:`stop_if_interrupted` turns it back into one."""
_RAISE_ON_SIGINT = False
"""Whether Ctrl-C raises KeyboardInterrupt at once (from main on; during the imports above main
it is only noted, so it never ends in an import's traceback)."""


def _on_sigint(signum: int, frame: Any) -> None:
    global _INTERRUPTED
    _INTERRUPTED = True
    if _RAISE_ON_SIGINT:
        raise KeyboardInterrupt


def stop_if_interrupted() -> None:
    """Raise KeyboardInterrupt if Ctrl-C came since the start (checked between steps)."""
    if _INTERRUPTED:
        raise KeyboardInterrupt


if __name__ == "__main__":
    signal.signal(signal.SIGINT, _on_sigint)

TRAIN_EXTRAS = ("yaml", "tyro", "torch", "tensorboard", "tqdm", "matplotlib", "numba")
"""The modules of the ``[train]`` extras (and numba) that training needs."""


def _missing_extras() -> list[str]:
    return [m for m in TRAIN_EXTRAS if importlib.util.find_spec(m) is None]


if __name__ == "__main__" and _missing_extras():
    print(
        f"train.py: error: training needs the [train] extras (missing: "
        f"{', '.join(_missing_extras())}): pip install -e '.[train]'",
        file=sys.stderr,
    )
    raise SystemExit(2)

import numpy as np  # noqa: E402 - after the check above, which names what to install
import tyro  # noqa: E402
import yaml  # noqa: E402

from agents import train_config  # noqa: E402
from agents.files import replace_whole  # noqa: E402
from agents.run_folder import (  # noqa: E402
    check_space,
    full_disk_message,
    hold_run_folder,
    is_disk_full,
    quiet_full_disk_in_threads,
    remove_partial,
)
from agents.train_config import (  # noqa: E402
    ConfigError,
    check_agent_specs,
    check_types,
    common_checks,
    config_path,
    parse_command,
    raise_first,
)
from allfives_env.core.rules import Rules  # noqa: E402

ROOT = Path(__file__).resolve().parent
TARGETS = ("choice", "values")
"""What the warm start may imitate (``imitation_targets``)."""


# ----------------------------------------------------------------------------- 1. config


@dataclass
class Config:
    """Everything a training run depends on; the field names are the YAML keys."""

    name: str = "default"
    """Run name: outputs go to ``runs/<name>``."""
    preset: str = "pagat"
    """Rules preset: pagat, spruce, dominoes_cc, pyatyorka or five_up."""
    num_players: int = 2
    """Players at the table: 2, 3 or 4."""
    partnerships: bool | None = None
    """With 4 players: true for seats 0+2 v 1+3, false for each for himself; unset (null), the
    preset's own (pairs in pagat, spruce and five_up)."""
    episode: str = "match"
    """Episode length: a whole ``match`` or one ``hand``."""
    reward: str = "points+win"
    """Reward: ``win`` (terminal ±1), ``points`` (dense score difference / target) or both."""
    forced_actions: str = "auto"
    """``auto``: forced draws and passes are taken for the learner; ``explicit``: it takes them."""
    action_features: str = "outlook"
    """Per-placement inputs: ``basic`` (points now, best reply), ``outlook`` (also the threat,
    the chance the next seat is stuck, setup, pips kept, variety...) or ``lookahead`` (also the
    chance the next seat's reply wins the match or plays out his hand)."""
    total_timesteps: int = 8_000_000
    """Learner steps (its own decisions) of PPO, after the warm start; 0: the warm start alone."""
    seed: int = 0
    """Seed of everything: deals, seats, opponents, network init and sampling."""
    num_envs: int = 256
    """Games stepped together on the batched engine."""
    num_steps: int = 64
    """Steps per game per rollout (a rollout is num_envs × num_steps learner steps)."""
    num_minibatches: int = 8
    """Minibatches per rollout in each PPO epoch."""
    update_epochs: int = 4
    """Passes over each rollout in the update."""
    learning_rate: float = 2.5e-4
    """Adam step size (annealed linearly to 0 over the run when anneal_lr)."""
    anneal_lr: bool = True
    """Anneal the learning rate linearly to 0 over total_timesteps."""
    gamma: float = 1.0
    """Discount factor."""
    gae_lambda: float = 0.95
    """GAE lambda."""
    clip_coef: float = 0.2
    """PPO clip range."""
    ent_coef: float = 0.01
    """Entropy bonus."""
    vf_coef: float = 0.5
    """Value-loss weight."""
    max_grad_norm: float = 0.5
    """Gradient clipping."""
    actor_arch: list[int] = field(default_factory=lambda: [128, 128])
    """Hidden layer sizes of the actor's trunk."""
    critic_arch: list[int] = field(default_factory=lambda: [128, 128])
    """Hidden layer sizes of the critic."""
    context_dim: int = 32
    """Size of the context vector that weighs each placement's features."""
    feature_arch: list[int] = field(default_factory=list)
    """Hidden layer sizes of the network each placement's features go through (before its
    last layer, of context_dim)."""
    fused_features: bool = False
    """The network each placement's features go through also reads the trunk's output at
    its first layer, so that it reads them in the light of the whole position (the hand a
    placement leaves, the scores) rather than only being weighed by it afterwards."""
    tile_features: bool = False
    """Each placement's features also say what it is: the tile's pips, the pips it leaves open,
    its slot and that slot's observation entries (the network reads them from the observation
    and the action id)."""
    critic_state: bool = True
    """The critic reads the full position (every hand, the boneyard) and the learner's seat
    instead of the observation: it only trains (the checkpoint is the actor alone), so it may
    see what the player cannot."""
    imitation_samples: int = 500_000
    """Learner steps of the warm start (imitation of imitation_teacher); 0: none."""
    imitation_epochs: int = 2
    """Passes over each rollout in the warm start (over it and the replayed ones, with
    imitation_replay)."""
    imitation_replay: int = 0
    """Earlier warm-start rollouts kept and learned from again with each new one: each
    position's teacher targets are reused in imitation_replay + 1 updates (the teacher is what
    costs). 0: each rollout is learned from once. PPO never replays (it learns on-policy)."""
    imitation_refit_epochs: int = 0
    """After the warm start, passes over every position it met, all together and shuffled, in
    its minibatches, the rate annealed linearly from learning_rate to 0 over them: the teacher's
    targets learned from as one data set rather than only a rollout at a time as they come. The
    positions are kept in the run folder as the warm start goes (``positions/``, a few MB a
    rollout, removed once learned from) and held in memory for the refit (about 7 KB a position
    at ``strong.yaml``'s observation). 0: none."""
    imitation_teacher: str = "heuristic"
    """The agent imitated in the warm start."""
    teacher_prob: float = 0.5
    """In the warm start, the chance the teacher's move is played (else the learner's)."""
    start_scores: float = 0.0
    """The chance that a learner's match begins at random scores (each side's uniform over the
    scores below the target), in the warm start and PPO alike, to meet more matches' ends;
    evaluations always begin at 0."""
    imitation_targets: str = "choice"
    """What the warm start imitates: the teacher's ``choice`` (its action), or its ``values``
    (a search teacher's value of every legal action, the target softmax(value /
    imitation_temperature); the teacher must be batchsearch, or search without a time budget)."""
    imitation_temperature: float = 2.0
    """Temperature of the ``values`` targets, in points."""
    imitation_anneal_lr: bool = False
    """Anneal the learning rate linearly to 0 over the warm start (else it stays constant)."""
    teacher_processes: int = 1
    """Worker processes valuing positions for a ``values`` teacher (results do not depend on it)."""
    pool_size: int = 8
    """Frozen snapshots of the learner kept as opponents (oldest dropped first)."""
    snapshot_every: int = 400_000
    """Learner steps between snapshots added to the pool."""
    baselines: list[str] = field(default_factory=lambda: ["heuristic", "heuristic", "greedy"])
    """Baseline agent specs that may take an opponent's (or the partner's) seat, drawn
    uniformly from the list (repeat a spec to weigh it)."""
    baseline_prob: float = 1.0
    """Chance that a seat goes to a baseline rather than a snapshot."""
    latest_prob: float = 0.5
    """Chance that a snapshot seat gets the newest snapshot (else one drawn at random)."""
    eval_every: int = 1_000_000
    """Learner steps between evaluations."""
    eval_matches: int = 1000
    """Duplicate-deal matches per opponent in each periodic evaluation."""
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "greedy", "heuristic"])
    """Agent specs evaluated against (the best checkpoint is the best mean win rate)."""
    final_eval_matches: int = 1000
    """Matches per opponent in the final evaluation (and in the choice of best.zip between the
    best periodic evaluation and the final weights); 0: neither."""
    eval_processes: int = 2
    """Processes the evaluator may use."""
    torch_threads: int = 2
    """Threads torch may use."""
    engine_threads: int = 1
    """Threads the batched engine may use (torch's threads share the same cores)."""
    progress: bool = True
    """Show a progress bar."""

    def rules(self) -> Rules:
        """The rules this config trains on.

        Raises:
            RulesError: for an unknown preset or a bad player count.
        """
        extra = {} if self.partnerships is None else {"partnerships": self.partnerships}
        return Rules.preset(self.preset, self.num_players, **extra)

    def check_types(self) -> None:
        """Check every field's value against its annotation (YAML values arrive untyped).

        Raises:
            ConfigError: naming the first field of the wrong type.
        """
        check_types(self)

    def check(self) -> None:
        """Validate every field, before anything runs (the agents named are made once).

        Raises:
            ConfigError: naming the first bad field.
        """
        self.check_types()
        checks = common_checks(
            self,
            seed_limit=2**32,  # what NumPy's seeding takes
            at_least_1=(
                "num_envs", "num_steps", "num_minibatches", "update_epochs",
                "pool_size", "snapshot_every", "eval_every", "eval_matches", "eval_processes",
                "torch_threads", "engine_threads", "context_dim", "imitation_epochs",
                "teacher_processes",
            ),
            at_least_0=(
                "final_eval_matches", "imitation_samples", "total_timesteps", "imitation_replay",
                "imitation_refit_epochs",
            ),
            unit=("baseline_prob", "latest_prob", "gae_lambda", "gamma", "teacher_prob",
                  "start_scores"),
            positive=(
                "learning_rate", "clip_coef", "max_grad_norm", "imitation_temperature",
            ),
        )  # fmt: skip
        checks.append(
            (
                self.imitation_targets in TARGETS,
                "imitation_targets",
                f"one of {', '.join(TARGETS)}",
            )
        )
        checks.append(
            (
                self.total_timesteps + self.imitation_samples > 0,
                "total_timesteps",
                "positive when imitation_samples is 0 (something must train)",
            )
        )
        checks.append(
            (
                self.num_envs * self.num_steps % self.num_minibatches == 0,
                "num_minibatches",
                "a divisor of num_envs × num_steps",
            )
        )
        raise_first(self, checks)
        check_agent_specs(self, ("baselines", "eval_opponents", "imitation_teacher"))
        if self.imitation_targets == "values":
            from agents.teacher import value_agent

            try:
                value_agent(self.imitation_teacher)
            except ValueError as e:
                raise ConfigError(f"imitation_teacher: {e}") from None


@dataclass
class Command:
    """Self-play training of an All Fives agent (see the top of train.py)."""

    config: Path | None = None
    """A YAML file of config fields (the field names below); command-line flags override it."""
    fresh: bool = False
    """Delete the run folder and start over."""
    runs: Path = ROOT / "runs"
    """Where run folders go."""
    cfg: Annotated[Config, tyro.conf.OmitArgPrefixes] = field(default_factory=Config)


def fail(message: str) -> NoReturn:
    """Stop with one line on stderr and exit status 2 (a user mistake, not a crash)."""
    train_config.fail("train.py", message)


def load_yaml(path: Path) -> Config:
    """The default config updated by the YAML file at ``path``.

    Raises:
        ConfigError: if the file cannot be read, is not a mapping, or names an unknown key.
    """
    return train_config.load_yaml(path, Config())


def parse_args(argv: Sequence[str]) -> Command:
    """The command line: ``--config FILE``, ``--fresh``, ``--runs DIR`` and ``--<field> VALUE``
    for each config field (tyro; ``--help`` lists every field with its doc). Errors are one line.
    """
    path = config_path(argv)
    default = Command(config=path, cfg=load_yaml(path) if path is not None else Config())
    description = __doc__.split("\n\n")[0] if __doc__ else None
    command = parse_command(Command, default, argv, "train.py", description)
    command.cfg.check()
    return command


# ----------------------------------------------------------------------------- 2. the table


class Pool:
    """Who may sit at the learner's table: baseline agents and the learner's frozen snapshots.

    The lineup is the baselines, then every snapshot ever taken (so a game's seating stays
    valid while new snapshots arrive); a seat is drawn among the baselines and the newest
    ``pool_size`` snapshots.
    """

    def __init__(self, cfg: Config, spec: Any):
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
        snap = np.where(u_latest < cfg.latest_prob, nb + ns - 1, old)
        if ns == 0:
            return base
        if nb == 0:
            return snap
        return np.where(u_kind < cfg.baseline_prob, base, snap)


def make_table(cfg: Config, pool: Pool) -> Any:
    """The learner's games: ``num_envs`` games on the batched engine, dealt from the seed."""
    from allfives_env.vector.single_agent import LearnerBatch

    batch = LearnerBatch(
        cfg.num_envs,
        cfg.rules(),
        opponents="random",  # replaced by the pool's picks below
        episode=cfg.episode,
        reward=cfg.reward,
        forced_actions=cfg.forced_actions,
        action_features=cfg.action_features,
        start_scores=cfg.start_scores,
    )
    batch.set_lineup(pool.agents, pool.pick)
    return batch


# ----------------------------------------------------------------------------- 3. rollouts


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
    )


@dataclass
class Replayed:
    """What the warm start learns from in one rollout, flattened to (num_steps * num_envs,
    …): kept to be learned from again (``imitation_replay``)."""

    obs: Any
    privileged: Any
    masks: Any
    labels: Any
    targets: Any
    """The teacher's target distributions, or ``None`` when it imitates choices."""
    returns: Any
    """The critic's targets, as computed when the rollout was played."""

    def copy(self) -> Replayed:
        """A copy that owns its tensors (the rollout's are overwritten by the next one)."""
        return Replayed(**{k: None if v is None else v.clone() for k, v in vars(self).items()})

    @staticmethod
    def join(parts: list[Replayed]) -> tuple[Any, ...]:
        """The rollouts' tensors end to end, in field order: obs, privileged, masks, labels,
        targets, returns."""
        import torch as th

        columns = zip(*(vars(p).values() for p in parts), strict=True)
        return tuple(None if c[0] is None else th.cat(c) for c in columns)

    def to_numpy(self) -> dict[str, Any]:
        """Its arrays, to save in a resume point (``targets`` left out when ``None``)."""
        return {k: v.numpy() for k, v in vars(self).items() if v is not None}

    @staticmethod
    def from_numpy(data: dict[str, Any]) -> Replayed:
        """What :meth:`to_numpy` saved."""
        import torch as th

        names = (f.name for f in dataclasses.fields(Replayed))
        return Replayed(**{k: th.from_numpy(data[k]) if k in data else None for k in names})


class Learner:
    """The network, its optimizer, and the table it plays at."""

    def __init__(self, cfg: Config, run: Run, pool: Pool, batch: Any):
        import torch as th

        from agents.networks import ScorerLayout
        from agents.policy_net import ScorerNet

        self.cfg = cfg
        self.run = run
        self.pool = pool
        self.batch = batch
        layout = ScorerLayout.of(batch.encoding, cfg.tile_features)
        enc = batch.encoding
        privileged = enc.state_size + enc.num_players if cfg.critic_state else 0
        self.net = ScorerNet(
            layout,
            cfg.actor_arch,
            cfg.critic_arch,
            cfg.context_dim,
            privileged,
            tuple(cfg.feature_arch),
            cfg.fused_features,
        )
        self.optimizer = th.optim.Adam(self.net.parameters(), lr=cfg.learning_rate, eps=1e-5)
        self.rollout = new_rollout(cfg, enc.obs_size, privileged, enc.num_actions)
        self.teacher: Any = None
        self.teacher_rng: Any = None
        self.replay: list[Replayed] = []
        """The last ``imitation_replay`` warm-start rollouts, newest first."""

    def close_teacher(self) -> None:
        """Stop the teacher's worker processes, if it has any (it restarts them if asked
        again)."""
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
        seats = np.eye(batch.rules.num_players, dtype=np.float32)[batch.seats]
        return th.from_numpy(np.concatenate([batch.vg.state(), seats], axis=1))

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
            with th.no_grad():
                logp = th.log_softmax(self.net.logits(obs, masks), dim=1)
                gumbel = -th.log(-th.log(th.rand_like(logp).clamp_min(1e-20)))
                action = (logp + gumbel).argmax(dim=1)  # a sample of the masked policy
            labels = action
            if imitation:
                games = np.arange(cfg.num_envs)
                if cfg.imitation_targets == "values":
                    choice, targets = self.teacher.targets(batch.vg, games, self.teacher_rng)
                    ro.targets[t] = th.from_numpy(targets)
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
        with th.no_grad():  # the critic's values, in one pass over the rollout
            size = cfg.num_steps * cfg.num_envs
            flat = self.net.value(ro.obs.reshape(size, -1), ro.privileged.reshape(size, -1))
            ro.values[:] = flat.reshape(cfg.num_steps, cfg.num_envs)
            self.next_value = self.net.value(obs, privileged)
        timing["policy"] += time.perf_counter() - t0
        return {"episodes": finished, "won": won}

    def advantages(self) -> tuple[Any, Any]:
        """GAE advantages and returns of the rollout. An episode's end cuts the bootstrap: a
        done flag at step t means the episode ended by action t (the next obs is a new one)."""
        import torch as th

        cfg, ro = self.cfg, self.rollout
        adv = th.zeros_like(ro.rewards)
        last = th.zeros(cfg.num_envs)
        for t in reversed(range(cfg.num_steps)):
            nonterminal = 1.0 - ro.dones[t]
            next_value = self.next_value if t == cfg.num_steps - 1 else ro.values[t + 1]
            delta = ro.rewards[t] + cfg.gamma * next_value * nonterminal - ro.values[t]
            last = delta + cfg.gamma * cfg.gae_lambda * nonterminal * last
            adv[t] = last
        return adv, adv + ro.values

    def imitation_loss(
        self, part: tuple[Any, ...], idx: Any, stats: dict[str, float]
    ) -> tuple[Any, Any, Any, Any]:
        """The warm start's loss on the minibatch ``idx`` of ``part`` (obs, privileged, masks,
        labels, targets, returns, as :meth:`Replayed.join` gives them): cross-entropy on the
        teacher's labels or target distributions plus the critic's regression. Returns (loss,
        policy loss, value loss, entropy); sets ``stats["imitation_accuracy"]``."""
        import torch as th
        from torch import nn

        obs, privileged, masks, labels, targets, returns = part
        logits = self.net.logits(obs[idx], masks[idx])
        logp = th.log_softmax(logits, dim=1)
        value = self.net.value(obs[idx], privileged[idx])
        v_loss = 0.5 * ((value - returns[idx]) ** 2).mean()
        entropy = -(logp.exp() * logp).sum(dim=1).mean()
        if targets is not None:
            pg_loss = soft_cross_entropy(logp, targets[idx])
        else:
            pg_loss = nn.functional.cross_entropy(logits, labels[idx])
        stats["imitation_accuracy"] = float((logits.argmax(1) == labels[idx]).float().mean())
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
        :meth:`Replayed.join` (read into tensors allocated once: the refit's memory is the
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
        number of positions."""
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
        self.run.timing["update"] += time.perf_counter() - t0
        return stats

    def update(self, imitation: bool) -> dict[str, float]:
        """PPO's clipped update (or, with ``imitation``, cross-entropy on the teacher's
        labels or target distributions) and the critic's regression, over ``update_epochs``
        epochs (``imitation_epochs`` in the warm start). The warm start also learns from the
        last ``imitation_replay`` rollouts again (:attr:`replay`), then keeps this one there."""
        import torch as th

        cfg, ro = self.cfg, self.rollout
        t0 = time.perf_counter()
        adv, returns = self.advantages()
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
        if imitation and cfg.imitation_replay > 0:
            obs, privileged, masks, labels, targets, returns = Replayed.join([now, *self.replay])
            self.replay = [now.copy(), *self.replay][: cfg.imitation_replay]
            size = obs.shape[0]
        epochs = cfg.imitation_epochs if imitation else cfg.update_epochs
        stats: dict[str, float] = {}
        for _ in range(epochs):
            order = th.randperm(size)
            for start in range(0, size, minibatch):
                idx = order[start : start + minibatch]
                if imitation:
                    part = (obs, privileged, masks, labels, targets, returns)
                    loss, pg_loss, v_loss, entropy = self.imitation_loss(part, idx, stats)
                else:
                    logits = self.net.logits(obs[idx], masks[idx])
                    logp = th.log_softmax(logits, dim=1)
                    value = self.net.value(obs[idx], privileged[idx])
                    v_loss = 0.5 * ((value - returns[idx]) ** 2).mean()
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
        self.run.timing["update"] += time.perf_counter() - t0
        return stats


def soft_cross_entropy(logp: Any, targets: Any) -> Any:
    """The warm start's loss on a teacher's target distributions: ``−Σ p·log π`` over the
    actions with ``p > 0`` (the illegal ones have ``p = 0`` and ``log π = −inf``), averaged
    over the batch. ``logp`` and ``targets`` are (B, num_actions) tensors."""
    import torch as th

    return -th.where(targets > 0, targets * logp, 0.0).sum(dim=1).mean()


# ----------------------------------------------------------------------------- 4. evaluation


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

    def spec(self) -> Any:
        from agents.learned import PolicySpec

        return PolicySpec(self.cfg.rules(), self.cfg.action_features)


def say(cfg: Config, message: str) -> None:
    """Tell what the run is doing now: one line on stderr, as each phase begins (the bars of
    the longer ones follow, with ``progress`` on)."""
    print(f"train.py: {message}", file=sys.stderr, flush=True)


def evaluate_checkpoint(
    cfg: Config, path: Path, opponents: list[str], matches: int, seed: int, bars: bool = False
) -> dict[str, Any]:
    """Duplicate-deal evaluation of the checkpoint at ``path`` against each opponent spec (at
    every other side): :func:`agents.eval.tournament.evaluate_against`. ``bars``: a progress
    bar per opponent (where no training bar is open)."""
    from agents.eval.tournament import evaluate_against

    return evaluate_against(
        cfg.rules(), str(path), opponents, matches, seed, cfg.eval_processes, bars and cfg.progress
    )


def evaluate_now(learner: Learner, label: str, writer: Any) -> None:
    """Evaluate the current policy; keep it as ``best.zip`` if it is the best so far."""
    from agents.learned import write_checkpoint

    cfg, run = learner.cfg, learner.run
    t0 = time.perf_counter()
    write_checkpoint(run.latest, run.spec(), learner.net.to_numpy())
    step = run.imitated + run.step
    first = label == "untrained"  # before the training bar: this one shows its own
    if first:
        say(cfg, f"evaluating the untrained policy: {cfg.eval_matches} matches against each "
            f"of {', '.join(cfg.eval_opponents)}")  # fmt: skip
    result = evaluate_checkpoint(
        cfg, run.latest, cfg.eval_opponents, cfg.eval_matches, cfg.seed + step, bars=first
    )
    score = float(np.mean([r["win_rate"] for r in result.values()]))
    run.history.append(
        {"step": step, "phase": label, "results": result, "score": score, "time": time.time()}
    )
    for spec, r in result.items():
        writer.add_scalar(f"eval/win_rate_vs_{spec}", r["win_rate"], step)
    if score > run.best_score and label != "untrained":
        run.best_score = score
        replace_whole(run.best, run.latest.read_bytes())
    run.timing["eval"] += time.perf_counter() - t0


# ----------------------------------------------------------------------------- 5. resume


def save_resume_point(learner: Learner) -> None:
    """Everything needed to continue exactly from here (written atomically)."""
    import torch as th

    from agents.learned import write_checkpoint

    run, batch = learner.run, learner.batch
    trainer = io.BytesIO()
    th.save({"net": learner.net.state_dict(), "optimizer": learner.optimizer.state_dict()}, trainer)
    tmp = run.dir / "resume.zip.tmp"
    write_checkpoint(tmp, run.spec(), learner.net.to_numpy(), {"trainer.pt": trainer.getvalue()})
    lineup, picker = batch.lineup, batch.picker
    batch.set_lineup([], None)  # the agents are rebuilt on resume
    try:
        table = pickle.dumps(batch)
    finally:
        batch.set_lineup(lineup, picker)
    state = {
        "config": dataclasses.asdict(run.cfg),
        "num_timesteps": run.step,
        "imitated": run.imitated,
        "history": run.history,
        "best_score": run.best_score,
        "next_snapshot": run.next_snapshot,
        "next_eval": run.next_eval,
        "timing": run.timing,
        "seconds": run.seconds,
        "pool": [p.to_npz() for p in learner.pool.snapshots],
        "table": table,
        "teacher_rng": learner.teacher_rng,
        "replay": [r.to_numpy() for r in learner.replay],
        "rng": {
            "python": random.getstate(),
            "numpy": np.random.get_state(),
            "torch": th.get_rng_state(),
        },
    }
    with open(run.dir / "state.pkl.tmp", "wb") as f:
        pickle.dump(state, f)
    os.replace(tmp, run.resume_file)
    os.replace(run.dir / "state.pkl.tmp", run.state_file)


def restore(learner: Learner, saved: dict[str, Any]) -> None:
    """Put ``learner`` (freshly built) back in the saved state."""
    import zipfile

    import torch as th

    from agents.networks import policy_from_npz

    run, pool = learner.run, learner.pool
    with zipfile.ZipFile(run.resume_file) as z:
        trainer = th.load(io.BytesIO(z.read("trainer.pt")), weights_only=False)
    learner.net.load_state_dict(trainer["net"])
    learner.optimizer.load_state_dict(trainer["optimizer"])
    for data in saved["pool"]:
        pool.add(policy_from_npz(data))
    learner.batch = pickle.loads(saved["table"])
    learner.batch.set_lineup(pool.agents, pool.pick)
    learner.teacher_rng = saved["teacher_rng"]
    learner.replay = [Replayed.from_numpy(r) for r in saved.get("replay", [])]
    run.step = saved["num_timesteps"]
    run.imitated = saved["imitated"]
    run.history = saved["history"]
    run.best_score = saved["best_score"]
    run.next_snapshot = saved["next_snapshot"]
    run.next_eval = saved["next_eval"]
    run.timing = saved["timing"]
    run.seconds = saved["seconds"]
    random.setstate(saved["rng"]["python"])
    np.random.set_state(saved["rng"]["numpy"])
    th.set_rng_state(saved["rng"]["torch"])


INERT_FIELDS = ("eval_processes", "progress", "teacher_processes")
"""Config fields that cannot change a run's results: they may differ when it is resumed."""


def load_resume_point(run: Run, cfg: Config) -> dict[str, Any] | None:
    """The saved state of ``run`` to continue from, or ``None`` to start it.

    Raises:
        ConfigError: if the run was started with another config (bar :data:`INERT_FIELDS` and a
            larger ``total_timesteps``), or its files are damaged; each message names the way
            out (``--fresh``, or another ``--name``).
    """
    if not run.state_file.exists():
        return None
    way_out = "use --fresh to start it over, or another --name"
    try:
        with open(run.state_file, "rb") as f:
            saved: dict[str, Any] = pickle.load(f)
        steps = int(saved["num_timesteps"])
        config = dict(saved["config"])
    except (OSError, EOFError, pickle.UnpicklingError, KeyError, TypeError, ValueError) as e:
        detail = str(e) or type(e).__name__
        raise ConfigError(f"{run.state_file} is damaged ({detail}); {way_out}") from None
    if not run.resume_file.is_file():
        raise ConfigError(f"{run.resume_file} is missing; {way_out}")
    now = dataclasses.asdict(cfg)
    diff = sorted(
        k
        for k, v in now.items()
        if k not in (*INERT_FIELDS, "total_timesteps") and config.get(k) != v
    )
    if diff:
        changed = ", ".join(diff)
        raise ConfigError(f"{run.dir} was started with a different config ({changed}); {way_out}")
    # a run ends a little past its total (whole rollouts): that is not a shorter total
    if cfg.total_timesteps < steps and cfg.total_timesteps < config.get("total_timesteps", steps):
        raise ConfigError(
            f"{run.dir} has already trained {steps:,} steps, more than total_timesteps "
            f"{cfg.total_timesteps:,}; {way_out}"
        )
    imitated = int(saved.get("imitated", 0))
    if cfg.imitation_refit_epochs > 0 and imitated < cfg.imitation_samples:
        files = run.kept_files(imitated)
        lost = [path for path in files if not path.is_file()]
        if lost:
            raise ConfigError(
                f"{run.positions_dir} lacks {len(lost)} of the {len(files)} rollouts' positions "
                f"the refit learns from (first: {lost[0].name}); {way_out}"
            )
    return saved


# ----------------------------------------------------------------------------- 6. main


def seed_everything(cfg: Config) -> None:
    import torch as th

    random.seed(cfg.seed)
    np.random.seed(cfg.seed)
    th.manual_seed(cfg.seed)


def train(cfg: Config, run: Run, saved: dict[str, Any] | None) -> None:
    """The warm start and PPO, from the start or from ``saved``."""
    import torch as th
    from torch.utils.tensorboard import SummaryWriter

    from allfives_env.vector import set_num_threads
    from allfives_env.vector.agents import batch_agent
    from allfives_env.vector.engine import policy_rng

    th.set_num_threads(cfg.torch_threads)
    set_num_threads(cfg.engine_threads)
    seed_everything(cfg)
    say(cfg, "making the table of games and the network (compiling the engine the first time)")
    pool = Pool(cfg, run.spec())
    batch = make_table(cfg, pool)
    learner = Learner(cfg, run, pool, batch)
    if cfg.imitation_targets == "values":
        from agents.teacher import SearchTeacher

        learner.teacher = SearchTeacher(
            cfg.imitation_teacher, cfg.imitation_temperature, cfg.teacher_processes
        )
    else:
        learner.teacher = batch_agent(cfg.imitation_teacher)
    learner.teacher_rng = policy_rng(cfg.seed + 17, cfg.num_envs)
    writer = SummaryWriter(str(run.dir / "tb"))
    if saved is None:
        pool.add(learner.net.to_numpy())  # the untrained policy: the first snapshot
        batch.reset(cfg.seed)
        evaluate_now(learner, "untrained", writer)
    else:
        restore(learner, saved)
    bar = None
    total = cfg.imitation_samples + cfg.total_timesteps
    if cfg.progress:
        from tqdm import tqdm

        done = run.imitated + run.step
        bar = tqdm(total=total, initial=done, unit="step", dynamic_ncols=True, file=sys.stderr)
    per_rollout = cfg.num_envs * cfg.num_steps
    started = time.perf_counter()
    try:
        while run.imitated < cfg.imitation_samples:  # 4. the warm start
            if cfg.imitation_anneal_lr:
                frac = 1.0 - run.imitated / cfg.imitation_samples
                learner.optimizer.param_groups[0]["lr"] = frac * cfg.learning_rate
            info = learner.collect(imitation=True)
            stats = learner.update(imitation=True)
            run.imitated += per_rollout
            log(writer, run, info, stats, run.imitated, "imitation")
            if bar is not None:
                bar.update(per_rollout)
                bar.set_postfix(imitation=f"{stats['imitation_accuracy']:.2f}")
            if run.imitated >= cfg.imitation_samples:
                learner.replay = []  # PPO learns on-policy
                learner.close_teacher()  # its worker processes, before the evaluation's
                if cfg.imitation_refit_epochs > 0:
                    refit = learner.refit()
                    log(writer, run, {"episodes": 0}, refit, run.imitated, "refit")
                    print(
                        f"refit: {cfg.imitation_refit_epochs} epochs over the warm start's "
                        f"{int(refit['positions']):,} positions",
                        flush=True,
                    )
                pool.add(learner.net.to_numpy())
                evaluate_now(learner, "imitation", writer)
            run.seconds += time.perf_counter() - started
            started = time.perf_counter()
            save_resume_point(learner)
            if run.imitated >= cfg.imitation_samples:
                shutil.rmtree(run.positions_dir, ignore_errors=True)  # learned from
            stop_if_interrupted()
        while run.step < cfg.total_timesteps:  # 5. PPO
            if cfg.anneal_lr:
                frac = 1.0 - run.step / cfg.total_timesteps
                learner.optimizer.param_groups[0]["lr"] = frac * cfg.learning_rate
            info = learner.collect(imitation=False)
            stats = learner.update(imitation=False)
            run.step += per_rollout
            log(writer, run, info, stats, run.imitated + run.step, "ppo")
            if bar is not None:
                bar.update(per_rollout)
            if run.step >= run.next_snapshot:
                pool.add(learner.net.to_numpy())
                run.next_snapshot += cfg.snapshot_every
            if run.step >= run.next_eval or run.step >= cfg.total_timesteps:
                evaluate_now(learner, "ppo", writer)
                run.next_eval += cfg.eval_every
                if bar is not None:
                    last = run.history[-1]["results"]
                    bar.set_postfix({s: f"{r['win_rate']:.2f}" for s, r in last.items()})
            run.seconds += time.perf_counter() - started
            started = time.perf_counter()
            save_resume_point(learner)
            stop_if_interrupted()
    finally:
        learner.close_teacher()
        if bar is not None:
            bar.close()
        writer.close()


def log(
    writer: Any, run: Run, info: dict[str, float], stats: dict[str, float], step: int, phase: str
) -> None:
    """TensorBoard scalars of one rollout and update."""
    for key, value in stats.items():
        writer.add_scalar(f"{phase}/{key}", value, step)
    if info["episodes"]:
        writer.add_scalar(f"{phase}/table_win_rate", info["won"] / info["episodes"], step)
    seconds = sum(run.timing[k] for k in ("env", "policy", "update"))
    if seconds:
        writer.add_scalar("charts/learner_steps_per_s", (run.imitated + run.step) / seconds, step)


def choose_best(cfg: Config, run: Run) -> dict[str, Any]:
    """Settle ``best.zip``: the best periodic evaluation, or the final weights (``latest.zip``)
    if they do at least as well on deals of their own (seed 2·10⁶ + seed,
    ``final_eval_matches`` per opponent, the same deals for both).

    Each periodic evaluation is one noisy sample, and the best of many is flattered by its
    noise, while the final weights have had the whole annealed run; a fresh, paired comparison
    settles it. The final evaluation's deals (seed 10⁶ + seed) serve neither choice, so its
    figures stay unbiased. Returns what was compared and kept (empty when nothing was)."""
    if cfg.final_eval_matches <= 0 or not run.best.exists() or not run.latest.exists():
        return {}
    if run.best.read_bytes() == run.latest.read_bytes():
        return {"kept": "final weights (also the best periodic evaluation)"}
    seed = 2 * 10**6 + cfg.seed
    n = cfg.final_eval_matches
    scores = {}
    say(cfg, f"choosing best.zip: the best periodic evaluation or the final weights, {n} "
        "matches each against each opponent")  # fmt: skip
    for label, path in (("best periodic", run.best), ("final weights", run.latest)):
        result = evaluate_checkpoint(cfg, path, cfg.eval_opponents, n, seed, True)
        scores[label] = float(np.mean([r["win_rate"] for r in result.values()]))
    final_wins = scores["final weights"] >= scores["best periodic"]
    kept = "final weights" if final_wins else "best periodic"
    if final_wins:
        replace_whole(run.best, run.latest.read_bytes())
    return {"mean_win_rate": scores, "matches": n, "seed": seed, "kept": kept}


def finish(cfg: Config, run: Run) -> dict[str, Any]:
    """The choice of ``best.zip``, its final evaluation, the report and the learning curve."""
    t0 = time.perf_counter()
    selection = choose_best(cfg, run)
    final: dict[str, Any] = {}
    if cfg.final_eval_matches > 0 and run.best.exists():
        say(cfg, f"the final evaluation: {cfg.final_eval_matches} matches against each of "
            f"{', '.join(cfg.eval_opponents)}")  # fmt: skip
        final = evaluate_checkpoint(
            cfg, run.best, cfg.eval_opponents, cfg.final_eval_matches, 10**6 + cfg.seed, True
        )
    eval_seconds = time.perf_counter() - t0
    timing = run.timing
    learn = timing["env"] + timing["policy"] + timing["update"]
    report = {
        "config": dataclasses.asdict(cfg),
        "steps": {"imitation": run.imitated, "ppo": run.step},
        "history": run.history,
        "best_score": run.best_score,
        "selection": selection,
        "final_eval": final,
        "final_eval_seconds": eval_seconds,
        "throughput": {
            "learner_steps_per_second": (run.imitated + run.step) / learn if learn else None,
            "training_seconds": run.seconds,
            "time_share": {k: v / max(1e-9, sum(timing.values())) for k, v in timing.items()},
        },
    }
    run.report_file.write_text(json.dumps(report, indent=1), encoding="utf-8")
    plot_curve(run)
    return report


def plot_curve(run: Run) -> None:
    """Win rate against each evaluation opponent over training steps, with 95% CIs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for spec in run.cfg.eval_opponents:
        pts = [(h["step"], h["results"][spec]) for h in run.history if spec in h["results"]]
        if not pts:
            continue
        x = [p[0] for p in pts]
        y = [p[1]["win_rate"] for p in pts]
        lo = [p[1]["ci95"][0] for p in pts]
        hi = [p[1]["ci95"][1] for p in pts]
        ax.plot(x, y, marker="o", label=f"vs {spec}")
        ax.fill_between(x, lo, hi, alpha=0.2)
    if run.imitated:
        ax.axvline(run.imitated, color="grey", lw=0.8, ls=":", label="end of the warm start")
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("learner steps")
    ax.set_ylabel("match win rate")
    ax.set_ylim(0, 1)
    ax.set_title(f"{run.cfg.name}: {run.cfg.rules().describe()}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(run.curve_file, dpi=100)
    plt.close(fig)


def interrupted(run: Run | None) -> int:
    """Say how to continue after Ctrl-C (or a kill); return the exit status 130."""
    where = ""
    if run is not None and run.state_file.exists():
        where = f"; the last resume point is in {run.dir}"
    print(f"\ninterrupted{where}: run the same command to continue", file=sys.stderr)
    return 130


def _yaml(cfg: Config) -> str:
    return str(yaml.safe_dump(dataclasses.asdict(cfg), sort_keys=False))


def main(argv: Sequence[str] | None = None) -> int:
    """Train as the command line says; return the exit status."""
    run: Run | None = None
    try:
        stop_if_interrupted()
        command = parse_args(sys.argv[1:] if argv is None else argv)
        cfg = command.cfg
        run = Run(cfg, command.runs)
        with hold_run_folder(run.dir):  # one process a run folder: a second is refused
            if command.fresh and run.dir.exists():
                shutil.rmtree(run.dir)
            saved = load_resume_point(run, cfg)
            if saved is not None:
                done = saved["num_timesteps"]
                if done >= cfg.total_timesteps and run.report_file.exists():
                    print(f"{run.dir} is complete ({done:,} steps): {run.report_file}")
                    return 0
                print(f"resuming {run.dir} from step {done:,}", flush=True)
            check_space(run.dir)  # a full disk: one line, before anything is written
            quiet_full_disk_in_threads()
            run.dir.mkdir(parents=True, exist_ok=True)
            replace_whole(run.dir / "config.yaml", _yaml(cfg).encode("utf-8"))
            warm = (
                f" after a warm start of {cfg.imitation_samples:,}" if cfg.imitation_samples else ""
            )
            say(cfg, f"run {cfg.name!r}: {cfg.rules().describe()}, {cfg.total_timesteps:,} steps "
                f"of PPO{warm}, into {run.dir}/ (config.yaml holds every setting)")  # fmt: skip
            signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
            stop_if_interrupted()
            train(cfg, run, saved)
            final = finish(cfg, run)
    except ConfigError as e:
        fail(str(e))
    except KeyboardInterrupt:
        return interrupted(run)
    except OSError as e:
        if run is None or not is_disk_full(e):
            raise
        remove_partial(run.dir)
        fail(full_disk_message(run.dir))
    except Exception:
        if _INTERRUPTED:  # Ctrl-C inside a library that wrapped the KeyboardInterrupt (e.g. an
            return interrupted(run)  # import: "Error calling __set_name__")
        raise
    print(json.dumps(final["final_eval"], indent=1))
    print(f"report: {run.report_file}\ncurve: {run.curve_file}\nbest: {run.best}")
    return 0


if __name__ == "__main__":
    _RAISE_ON_SIGINT = True
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # before main() could catch it (imports)
        sys.exit(interrupted(None))
