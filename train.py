"""Self-play training of an All Fives agent with sb3-contrib's MaskablePPO.

    python train.py                                  # the default config: pagat, 2 players
    python train.py --config configs/smoke.yaml      # a few thousand steps (what CI runs)
    python train.py --config configs/team4.yaml --total_timesteps 2000000 --name team4-long

One readable script, top to bottom (CleanRL style):

1. ``Config`` — every field has a one-line docstring; ``configs/*.yaml`` use exactly these names
   (an unknown key or a bad value is an error before anything runs); ``--field value`` overrides.
2. The self-play environment — one learner seat (drawn at random each episode) against
   opponents, and in 4 players a partner, drawn from a pool of the learner's frozen past
   snapshots and baseline agents (``OpponentPool``).
3. Callbacks — pool snapshots, periodic evaluation against the baselines with the project's
   evaluator (duplicate deals, 95% confidence intervals), best and latest checkpoints,
   TensorBoard scalars, a progress bar, and a resume point after every update.
4. The end — a final evaluation, ``report.json`` and ``learning_curve.png`` in the run folder.

Resume: a run folder (``runs/<name>``) holds everything needed to continue: the model with its
optimizer, the pool, the counters, every environment's state and every RNG's state, saved after
each rollout. Running the same command again after Ctrl-C or a kill continues from there (it
says so); a finished run is not restarted, and a different config for the same name is refused
(use ``--name`` or ``--fresh``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import io
import json
import math
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

TRAIN_EXTRAS = ("yaml", "tyro", "torch", "stable_baselines3", "sb3_contrib", "tqdm", "matplotlib")
"""The modules of the ``[train]`` extras that training needs."""


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

from allfives_env.core.rules import Rules  # noqa: E402
from allfives_env.envs.single_agent import AllFivesSingleAgentEnv  # noqa: E402

ROOT = Path(__file__).resolve().parent


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
    action_features: bool = True
    """Show the learner, per legal placement, the points it scores and the best reply it allows."""
    total_timesteps: int = 1_000_000
    """Learner steps (its own decisions) to train for."""
    seed: int = 0
    """Seed of everything: deals, seats, opponents, network init and sampling."""
    n_envs: int = 8
    """Environments stepped together (in this process)."""
    n_steps: int = 256
    """Steps per environment per rollout."""
    batch_size: int = 512
    """Minibatch size of the PPO update."""
    n_epochs: int = 4
    """Passes over each rollout in the update."""
    learning_rate: float = 3e-4
    """Adam step size."""
    gamma: float = 0.995
    """Discount factor."""
    gae_lambda: float = 0.95
    """GAE lambda."""
    clip_range: float = 0.2
    """PPO clip range."""
    ent_coef: float = 0.01
    """Entropy bonus."""
    vf_coef: float = 0.5
    """Value-loss weight."""
    net_arch: list[int] = field(default_factory=lambda: [256, 256])
    """Hidden layer sizes of the policy and value networks."""
    pool_size: int = 8
    """Frozen snapshots of the learner kept as opponents (oldest dropped first)."""
    snapshot_every: int = 40_000
    """Learner steps between snapshots added to the pool."""
    baselines: list[str] = field(default_factory=lambda: ["random", "greedy", "heuristic"])
    """Baseline agent specs that may take an opponent's (or the partner's) seat."""
    baseline_prob: float = 0.5
    """Chance that a seat goes to a baseline rather than a snapshot."""
    latest_prob: float = 0.5
    """Chance that a snapshot seat gets the newest snapshot (else one drawn at random)."""
    eval_every: int = 100_000
    """Learner steps between evaluations."""
    eval_matches: int = 200
    """Duplicate-deal matches per baseline in each periodic evaluation."""
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "greedy", "heuristic"])
    """Agent specs evaluated against (the best checkpoint is the best mean win rate)."""
    final_eval_matches: int = 1000
    """Matches per opponent in the final evaluation."""
    eval_processes: int = 2
    """Processes the evaluator may use."""
    torch_threads: int = 1
    """Threads torch may use for the update."""
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
        for f in dataclasses.fields(self):
            _check_type(f.name, getattr(self, f.name), f.type)

    def check(self) -> None:
        """Validate every field, before anything runs (the agents named are made once).

        Raises:
            ConfigError: naming the first bad field.
        """
        from agents.errors import AgentError
        from agents.registry import make_agent
        from allfives_env import RulesError
        from allfives_env.envs.aec import EPISODES, FORCED, REWARDS

        self.check_types()
        try:
            self.rules()
        except RulesError as e:
            raise ConfigError(f"config: {e}") from None
        checks = [
            (self.episode in EPISODES, "episode", f"one of {', '.join(EPISODES)}"),
            (self.reward in REWARDS, "reward", f"one of {', '.join(REWARDS)}"),
            (self.forced_actions in FORCED, "forced_actions", f"one of {', '.join(FORCED)}"),
            (
                bool(self.name) and self.name.replace("-", "").replace("_", "").isalnum(),
                "name",
                "letters, digits, - or _",
            ),
            (0 <= self.seed < 2**32, "seed", "from 0 to 2**32 - 1 (what NumPy's seeding takes)"),
            (bool(self.eval_opponents), "eval_opponents", "at least one agent spec"),
        ]
        for key in (
            "total_timesteps", "n_envs", "n_steps", "batch_size", "n_epochs", "pool_size",
            "snapshot_every", "eval_every", "eval_matches", "eval_processes", "torch_threads",
        ):  # fmt: skip
            checks.append((getattr(self, key) >= 1, key, "at least 1"))
        checks.append((self.final_eval_matches >= 0, "final_eval_matches", "at least 0"))
        for f in dataclasses.fields(self):
            if f.type == "float":
                value = getattr(self, f.name)
                checks.append((math.isfinite(value), f.name, "a finite number"))
        for key in ("baseline_prob", "latest_prob", "gae_lambda", "gamma"):
            checks.append((0.0 <= getattr(self, key) <= 1.0, key, "between 0 and 1"))
        for key in ("learning_rate", "clip_range"):
            checks.append((getattr(self, key) > 0, key, "positive"))
        checks.append(
            (all(h >= 1 for h in self.net_arch) and bool(self.net_arch), "net_arch", "sizes ≥ 1")
        )
        for ok, key, what in checks:
            if not ok:
                raise ConfigError(f"config {key!r} must be {what}, not {getattr(self, key)!r}")
        for key in ("baselines", "eval_opponents"):
            for spec in getattr(self, key):
                try:
                    agent = make_agent(spec)
                    check_rules = getattr(agent, "check_rules", None)
                    if check_rules is not None:
                        check_rules(self.rules())
                except (AgentError, ValueError, OSError) as e:
                    raise ConfigError(f"config {key!r}: {e}") from None


class ConfigError(ValueError):
    """A config that cannot run: train.py prints its one line and exits with status 2."""


def _check_type(key: str, value: Any, kind: Any) -> None:
    """Check a field's value against its annotation (YAML values arrive untyped)."""
    want = {"str": str, "int": int, "float": (int, float), "bool": bool}
    if kind == "bool | None":
        ok = value is None or isinstance(value, bool)
    elif kind in ("list[int]", "list[str]"):
        item = int if kind == "list[int]" else str
        ok = isinstance(value, list) and all(
            isinstance(v, item) and not isinstance(v, bool) for v in value
        )
    else:
        ok = isinstance(value, want[kind]) and (kind == "bool" or not isinstance(value, bool))
    if not ok:
        raise ConfigError(f"config {key!r} must be of type {kind}, not {value!r}")


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
    print(f"train.py: error: {' '.join(message.split())}", file=sys.stderr)
    raise SystemExit(2)


def _config_path(argv: Sequence[str]) -> Path | None:
    """The value of ``--config`` in ``argv``, read first: it sets the other fields' defaults."""
    for i, arg in enumerate(argv):
        if arg == "--config" and i + 1 < len(argv):
            return Path(argv[i + 1])
        if arg.startswith("--config="):
            return Path(arg.partition("=")[2])
    return None


def load_yaml(path: Path) -> Config:
    """The default config updated by the YAML file at ``path``.

    Raises:
        ConfigError: if the file cannot be read, is not a mapping, or names an unknown key.
    """
    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise ConfigError(f"cannot read config {str(path)!r}: {e}") from None
    if not isinstance(loaded, dict):
        raise ConfigError(f"config {str(path)!r} must be a mapping of field: value")
    names = [f.name for f in dataclasses.fields(Config)]
    for key in loaded:
        if key not in names:
            raise ConfigError(f"unknown config key {key!r} in {path} (known: {', '.join(names)})")
    cfg = dataclasses.replace(Config(), **loaded)
    cfg.check_types()
    return cfg


def parse_args(argv: Sequence[str]) -> Command:
    """The command line: ``--config FILE``, ``--fresh``, ``--runs DIR`` and ``--<field> VALUE``
    for each config field (tyro; ``--help`` lists every field with its doc). Errors are one line.
    """
    path = _config_path(argv)
    default = Command(config=path, cfg=load_yaml(path) if path is not None else Config())
    captured = io.StringIO()
    try:
        with contextlib.redirect_stderr(captured):
            command = tyro.cli(
                Command, args=list(argv), default=default, use_underscores=True,
                description=__doc__.split("\n\n")[0] if __doc__ else None,
            )  # fmt: skip
    except SystemExit as e:
        if e.code in (0, None):
            raise
        fail(_box_text(captured.getvalue()) or "bad arguments (see train.py --help)")
    command.cfg.check()
    return command


def _box_text(text: str) -> str:
    """tyro's boxed error message as one line: the message, without the title and help."""
    drawing = "╭╮╰╯─│┃━"
    lines = ["".join(c for c in line if c not in drawing).strip() for line in text.splitlines()]
    lines = [x for x in lines if x]
    for stop in ("Argument helptext", "For full helptext", "Perhaps you meant"):
        lines = lines[: next((i for i, x in enumerate(lines) if x.startswith(stop)), len(lines))]
    return " ".join(lines[1:] or lines)


# ----------------------------------------------------------------------------- 2. self-play env


class PolicyOpponent:
    """A frozen snapshot as an opponent: samples the policy's masked action distribution."""

    def __init__(self, policy: Any, rng: random.Random):
        self.policy = policy
        self.rng = rng

    def __call__(self, observation: dict[str, Any]) -> int:
        return int(
            self.policy.choose(observation["observation"], observation["action_mask"], self.rng)
        )


class OpponentPool:
    """The learner's frozen past snapshots plus baseline agents, sampled per seat."""

    def __init__(self, cfg: Config, rng: random.Random):
        from agents.registry import make_agent

        self.cfg = cfg
        self.rng = rng
        self.snapshots: list[Any] = []  # MlpPolicy, oldest first
        self.baselines = {spec: make_agent(spec) for spec in cfg.baselines}
        self.opponent_rng = random.Random(rng.random())

    def add(self, policy: Any) -> None:
        """Add a snapshot, dropping the oldest past ``pool_size``."""
        self.snapshots.append(policy)
        del self.snapshots[: -self.cfg.pool_size]

    def sample(self) -> Any:
        """An opponent for one seat of one episode.

        Before the first snapshot exists (while the environments are first reset, before the
        model is built) a pool without baselines seats the random agent.
        """
        cfg = self.cfg
        if not self.snapshots and not self.baselines:
            from agents.random_agent import RandomAgent

            return RandomAgent()
        if self.baselines and (not self.snapshots or self.rng.random() < cfg.baseline_prob):
            return self.baselines[self.rng.choice(sorted(self.baselines))]
        if self.rng.random() < cfg.latest_prob:
            policy = self.snapshots[-1]
        else:
            policy = self.snapshots[self.rng.randrange(len(self.snapshots))]
        return PolicyOpponent(policy, self.opponent_rng)


class SelfPlayEnv(AllFivesSingleAgentEnv):
    """The learner at a random seat; every other seat drawn from the pool at each reset."""

    pool: OpponentPool | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        assert self.pool is not None, "bind a pool first"
        n = self.rules.num_players
        self.set_opponents({s: self.pool.sample() for s in range(n)})  # the learner's is unused
        return super().reset(seed=seed, options=options)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["pool"] = None  # saved on its own; rebound on resume
        return state


def make_selfplay_env(cfg: Config, pool: OpponentPool, index: int) -> SelfPlayEnv:
    """One training environment, seeded from the config seed and its index."""
    env = SelfPlayEnv(
        rules=cfg.rules(),
        episode=cfg.episode,
        reward=cfg.reward,
        forced_actions=cfg.forced_actions,
        action_features=cfg.action_features,
        illegal_action="raise",
    )
    env.pool = pool
    env.reset(seed=cfg.seed * 1000 + index)
    return env


# ----------------------------------------------------------------------------- 3. callbacks


class Run:
    """The run folder and the state that must survive an interruption."""

    def __init__(self, cfg: Config, runs: Path):
        self.cfg = cfg
        self.dir = runs / cfg.name
        self.latest = self.dir / "latest.zip"
        self.best = self.dir / "best.zip"
        self.state_file = self.dir / "state.pkl"
        self.report_file = self.dir / "report.json"
        self.curve_file = self.dir / "learning_curve.png"
        self.history: list[dict[str, Any]] = []
        self.best_score = -1.0
        self.next_snapshot = cfg.snapshot_every
        self.next_eval = cfg.eval_every
        self.timing = {"env": 0.0, "policy": 0.0, "update": 0.0, "eval": 0.0}

    def spec(self) -> Any:
        from agents.learned import PolicySpec

        return PolicySpec(self.cfg.rules(), self.cfg.action_features)


def evaluate_checkpoint(
    cfg: Config, path: Path, opponents: list[str], matches: int, seed: int
) -> dict[str, Any]:
    """Duplicate-deal evaluation of the checkpoint at ``path`` against each opponent spec."""
    from agents.eval.tournament import evaluate

    rules = cfg.rules()
    out: dict[str, Any] = {}
    for spec in opponents:
        res = evaluate(rules, [str(path), spec], matches, seed, cfg.eval_processes, progress=False)
        me = res.agents[0]
        rate = me.wins.win_rate
        out[spec] = {
            "win_rate": rate.value,
            "ci95": [rate.low, rate.high],
            "points_per_hand": me.points_per_hand.value,
            "opponent_points_per_hand": res.agents[1].points_per_hand.value,
            "matches": res.matches,
        }
    return out


def make_callback(cfg: Config, run: Run, pool: OpponentPool, timer: Any) -> Any:
    from stable_baselines3.common.callbacks import BaseCallback

    from agents.learned import MlpPolicy, write_checkpoint

    class SelfPlayCallback(BaseCallback):
        """Snapshots, evaluations, checkpoints, resume points, progress."""

        def _on_training_start(self) -> None:
            self.bar = None
            if cfg.progress:
                from tqdm import tqdm

                self.bar = tqdm(
                    total=cfg.total_timesteps,
                    initial=self.model.num_timesteps,
                    unit="step",
                    dynamic_ncols=True,
                    file=sys.stderr,
                )
            self.update_started: float | None = None
            if self.model.num_timesteps == 0 and not run.history:
                self.evaluate(0)  # the untrained policy: where the learning curve starts
            self.rollout_started = time.perf_counter()

        def _on_rollout_start(self) -> None:
            # the previous rollout's update is done: a clean point to resume from
            now = time.perf_counter()
            if self.update_started is not None:
                run.timing["update"] += now - self.update_started
                save_resume_point(self.model, run, pool)
                now = time.perf_counter()
            self.rollout_started = now
            timer.reset()

        def _on_step(self) -> bool:
            if self.bar is not None:
                self.bar.update(self.training_env.num_envs)
            return True

        def _on_rollout_end(self) -> None:
            now = time.perf_counter()
            run.timing["env"] += timer.seconds
            run.timing["policy"] += now - self.rollout_started - timer.seconds
            steps = self.model.num_timesteps
            if steps >= run.next_snapshot:
                pool.add(MlpPolicy.from_sb3(self.model))
                run.next_snapshot += cfg.snapshot_every
            if steps >= run.next_eval or steps >= cfg.total_timesteps:
                self.evaluate(steps)
                run.next_eval += cfg.eval_every
            self.update_started = time.perf_counter()

        def evaluate(self, steps: int) -> None:
            """Evaluate the current policy; keep it as best.zip if it is the best so far."""
            t0 = time.perf_counter()
            write_checkpoint(self.model, run.latest, run.spec())
            result = evaluate_checkpoint(
                cfg, run.latest, cfg.eval_opponents, cfg.eval_matches, cfg.seed + steps
            )
            score = float(np.mean([r["win_rate"] for r in result.values()]))
            entry = {"step": steps, "results": result, "score": score, "time": time.time()}
            run.history.append(entry)
            for spec, r in result.items():
                self.logger.record(f"eval/win_rate_vs_{spec}", r["win_rate"])
            if score > run.best_score:
                run.best_score = score
                shutil.copyfile(run.latest, run.best)
            run.timing["eval"] += time.perf_counter() - t0
            if self.bar is not None:
                self.bar.set_postfix({s: f"{r['win_rate']:.2f}" for s, r in result.items()})

        def _on_training_end(self) -> None:
            if self.update_started is not None:
                run.timing["update"] += time.perf_counter() - self.update_started
                self.update_started = None
                save_resume_point(self.model, run, pool)
            if self.bar is not None:
                self.bar.close()

    return SelfPlayCallback()


class EnvTimer:
    """Accumulates the time spent stepping the environments (opponents' moves included)."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def reset(self) -> None:
        self.seconds = 0.0


def timed_vec_env(venv: Any, timer: EnvTimer) -> Any:
    from stable_baselines3.common.vec_env import VecEnvWrapper

    class Timed(VecEnvWrapper):
        def reset(self) -> Any:
            return self.venv.reset()

        def step_async(self, actions: Any) -> None:
            self._t = time.perf_counter()
            self.venv.step_async(actions)

        def step_wait(self) -> Any:
            out = self.venv.step_wait()
            timer.seconds += time.perf_counter() - self._t
            return out

    return Timed(venv)


# ----------------------------------------------------------------------------- resume


def save_resume_point(model: Any, run: Run, pool: OpponentPool) -> None:
    """Everything needed to continue exactly from here (written atomically)."""
    import torch

    from agents.learned import write_checkpoint

    tmp = run.dir / "resume.zip.tmp"
    write_checkpoint(model, tmp, run.spec())
    venv = model.get_env()
    envs = list(venv.venv.envs)  # Monitor-wrapped (their episode state counts too)
    state = {
        "config": dataclasses.asdict(run.cfg),
        "num_timesteps": model.num_timesteps,
        "history": run.history,
        "best_score": run.best_score,
        "next_snapshot": run.next_snapshot,
        "next_eval": run.next_eval,
        "timing": run.timing,
        "pool": [p.to_npz() for p in pool.snapshots],
        "pool_rng": pool.rng.getstate(),
        "opponent_rng": pool.opponent_rng.getstate(),
        "envs": pickle.dumps(envs),
        "last_obs": model._last_obs,
        "last_episode_starts": model._last_episode_starts,
        "ep_info_buffer": list(model.ep_info_buffer or []),
        "rng": {
            "python": random.getstate(),
            "numpy": np.random.get_state(),
            "torch": torch.get_rng_state(),
        },
    }
    with open(run.dir / "state.pkl.tmp", "wb") as f:
        pickle.dump(state, f)
    os.replace(tmp, run.dir / "resume.zip")
    os.replace(run.dir / "state.pkl.tmp", run.state_file)


# ----------------------------------------------------------------------------- main


def build(
    cfg: Config, run: Run, resume: dict[str, Any] | None
) -> tuple[Any, OpponentPool, EnvTimer]:
    """The pool, the vectorized self-play envs and the model (fresh, or as saved)."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    from agents.learned import MlpPolicy
    from allfives_env.envs.spaces import Encoding

    torch.set_num_threads(cfg.torch_threads)
    pool = OpponentPool(cfg, random.Random(cfg.seed))
    if resume is None:
        random.seed(cfg.seed)
        np.random.seed(cfg.seed)
        torch.manual_seed(cfg.seed)
        envs = [Monitor(make_selfplay_env(cfg, pool, i)) for i in range(cfg.n_envs)]
    else:
        envs = pickle.loads(resume["envs"])
        pool.snapshots = [MlpPolicy.from_npz(b) for b in resume["pool"]]
        pool.rng.setstate(resume["pool_rng"])
        pool.opponent_rng.setstate(resume["opponent_rng"])
        for e in envs:  # the pickled envs sampled from the pool object they were saved with
            rebind_pool(e.env, pool)
    timer = EnvTimer()
    venv = timed_vec_env(DummyVecEnv([_returning(e) for e in envs]), timer)
    if resume is None:
        from agents.policy_net import AllFivesPolicy

        policy_kwargs: dict[str, Any] = {"net_arch": list(cfg.net_arch)}
        if cfg.action_features:
            enc = Encoding(cfg.rules(), action_features=True)
            policy_kwargs["skip"] = (
                enc.block_range("action_points")[0],
                enc.block_range("action_replies")[1],
            )
        model = MaskablePPO(
            AllFivesPolicy,
            venv,
            learning_rate=cfg.learning_rate,
            n_steps=cfg.n_steps,
            batch_size=cfg.batch_size,
            n_epochs=cfg.n_epochs,
            gamma=cfg.gamma,
            gae_lambda=cfg.gae_lambda,
            clip_range=cfg.clip_range,
            ent_coef=cfg.ent_coef,
            vf_coef=cfg.vf_coef,
            policy_kwargs=policy_kwargs,
            tensorboard_log=str(run.dir / "tb"),
            seed=cfg.seed,
            device="cpu",
            verbose=0,
        )
        pool.add(MlpPolicy.from_sb3(model))  # the untrained policy: the first self-play opponent
    else:
        model = MaskablePPO.load(run.dir / "resume.zip", env=venv, device="cpu")
        model.num_timesteps = resume["num_timesteps"]
        model._last_obs = resume["last_obs"]
        model._last_episode_starts = resume["last_episode_starts"]
        model._episode_num = 0
        from collections import deque

        model.ep_info_buffer = deque(resume["ep_info_buffer"], maxlen=100)
        model.ep_success_buffer = deque(maxlen=100)
        random.setstate(resume["rng"]["python"])
        np.random.set_state(resume["rng"]["numpy"])
        torch.set_rng_state(resume["rng"]["torch"])
        run.history = resume["history"]
        run.best_score = resume["best_score"]
        run.next_snapshot = resume["next_snapshot"]
        run.next_eval = resume["next_eval"]
        run.timing = resume["timing"]
    return model, pool, timer


def _returning(env: Any) -> Any:
    return lambda: env


def rebind_pool(env: SelfPlayEnv, pool: OpponentPool) -> None:
    """Attach an unpickled environment to the restored pool (and its opponents to its RNG)."""
    env.pool = pool
    for opp in env._opponents.values():
        if isinstance(opp, PolicyOpponent):
            opp.rng = pool.opponent_rng


INERT_FIELDS = ("eval_processes", "progress")
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
        raise ConfigError(
            f"{run.state_file} is damaged ({e or type(e).__name__}); {way_out}"
        ) from None
    if not (run.dir / "resume.zip").is_file():
        raise ConfigError(f"{run.dir / 'resume.zip'} is missing; {way_out}")
    now = dataclasses.asdict(cfg)
    diff = sorted(
        k
        for k, v in now.items()
        if k not in (*INERT_FIELDS, "total_timesteps") and config.get(k) != v
    )
    if diff:
        raise ConfigError(
            f"{run.dir} was started with a different config ({', '.join(diff)}); {way_out}"
        )
    if cfg.total_timesteps < steps:
        raise ConfigError(
            f"{run.dir} has already trained {steps:,} steps, more than total_timesteps "
            f"{cfg.total_timesteps:,}; {way_out}"
        )
    return saved


def interrupted(run: Run | None) -> int:
    """Say how to continue after Ctrl-C (or a kill); return the exit status 130."""
    where = (
        f"; the last resume point is in {run.dir}"
        if run is not None and run.state_file.exists()
        else ""
    )
    print(f"\ninterrupted{where}: run the same command to continue", file=sys.stderr)
    return 130


def main(argv: Sequence[str] | None = None) -> int:
    """Train as the command line says; return the exit status."""
    run: Run | None = None
    try:
        command = parse_args(sys.argv[1:] if argv is None else argv)
        cfg = command.cfg
        run = Run(cfg, command.runs)
        if command.fresh and run.dir.exists():
            shutil.rmtree(run.dir)
        resume = load_resume_point(run, cfg)
        if resume is not None:
            done = resume["num_timesteps"]
            if done >= cfg.total_timesteps and run.report_file.exists():
                print(f"{run.dir} is complete ({done:,} steps): {run.report_file}")
                return 0
            print(f"resuming {run.dir} from step {done:,}", flush=True)
        run.dir.mkdir(parents=True, exist_ok=True)
        (run.dir / "config.yaml").write_text(_yaml(cfg), encoding="utf-8")
        model, pool, timer = build(cfg, run, resume)
        callback = make_callback(cfg, run, pool, timer)
        started = time.perf_counter()
        start_steps = model.num_timesteps
        signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
        remaining = cfg.total_timesteps - model.num_timesteps
        if remaining > 0:
            model.learn(
                total_timesteps=remaining,
                callback=callback,
                reset_num_timesteps=False,
                tb_log_name="ppo",
            )
        learn_seconds = time.perf_counter() - started
        final = finish(cfg, run, model.num_timesteps - start_steps, learn_seconds)
    except ConfigError as e:
        fail(str(e))
    except KeyboardInterrupt:
        return interrupted(run)
    print(json.dumps(final["final_eval"], indent=1))
    print(f"report: {run.report_file}\ncurve: {run.curve_file}\nbest: {run.best}")
    return 0


def finish(cfg: Config, run: Run, steps: int, seconds: float) -> dict[str, Any]:
    """The final evaluation of the best checkpoint, the report and the learning curve."""
    t0 = time.perf_counter()
    final: dict[str, Any] = {}
    if cfg.final_eval_matches > 0 and run.best.exists():
        final = evaluate_checkpoint(
            cfg, run.best, cfg.eval_opponents, cfg.final_eval_matches, 10**6 + cfg.seed
        )
    eval_seconds = time.perf_counter() - t0
    timing = run.timing
    rollout = timing["env"] + timing["policy"]
    report = {
        "config": dataclasses.asdict(cfg),
        "steps": cfg.total_timesteps,
        "history": run.history,
        "best_score": run.best_score,
        "final_eval": final,
        "final_eval_seconds": eval_seconds,
        "throughput": {
            "steps_per_second_this_session": steps / seconds if seconds else None,
            "seconds_this_session": seconds,
            "time_share": {k: v / max(1e-9, sum(timing.values())) for k, v in timing.items()},
            "env_share_of_rollout": timing["env"] / rollout if rollout else None,
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
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("learner steps")
    ax.set_ylabel("match win rate")
    ax.set_ylim(0, 1)
    ax.set_title(f"{run.cfg.name}: {run.cfg.preset}, {run.cfg.num_players} players")
    ax.legend()
    fig.tight_layout()
    fig.savefig(run.curve_file, dpi=100)
    plt.close(fig)


def _yaml(cfg: Config) -> str:
    return str(yaml.safe_dump(dataclasses.asdict(cfg), sort_keys=False))


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # before main() could catch it (imports)
        sys.exit(interrupted(None))
