"""Train NFSP in OpenSpiel on All Fives, as OpenSpiel's own examples do, and export the policy.

    python -m allfives_openspiel.train --episodes 2000 --seed 0 --out runs/openspiel/nfsp
    allfives eval openspiel-nfsp:runs/openspiel/nfsp heuristic --matches 200

1. The game: ``pyspiel.load_game("python_allfives(preset=…,players=…,episode=match)")``, whole
   matches (``--episode hand``: single hands), points as the reward, through OpenSpiel's
   ``rl_environment`` with the observation tensor as each player's state (the seat's own
   observation vector). Each learner is handed the sum of its seat's rewards since its last
   turn (:class:`allfives_openspiel.seat_rewards.SeatRewardEnvironment`): OpenSpiel's own
   environment hands each time step's last transition alone, so a seat's own scoring, which
   lands on the opponent's time step, would never reach it.
2. The learners: one OpenSpiel ``nfsp.NFSP`` (PyTorch) per player, stepped as OpenSpiel's
   ``kuhn_nfsp``/``leduc_nfsp`` examples step them (every player steps at the episode's end);
   the flags below set their sizes and rates.
3. The policy: each player's average-policy network, written to ``--out``
   (:mod:`allfives_openspiel.nfsp_policy`), which ``openspiel-nfsp:OUT`` plays as an agent.
   With ``--eval_matches`` the policy is then evaluated against ``--eval_opponent`` over
   duplicate deals (``OUT/report.json`` holds it, and what the run did).

The budget: ``--episodes``, or ``--env_steps`` (episodes until that many env steps, the episode
in progress finished). An env step is a decision of a learner that is more than a forced move:
OpenSpiel asks the player to act for a forced draw or pass too (a lone legal action), and each
learner steps with it, but such a step is no env step (:func:`play_episode`;
:mod:`agents.training.policy_trainer` defines the count every trainer reports). With
``--curve_points K`` the average-policy networks are saved at K points of the budget
(:class:`agents.training.policy_trainer.Curve`: ``OUT/curve/<env steps>/``, each playable as
``openspiel-nfsp:OUT/curve/<env steps>``, and ``OUT/curve/index.json``).

Seeding: ``--seed`` seeds the environment's chance, numpy's and torch's generators, and the
networks: the same seed trains the same weights in one thread. A bad flag is one line, exit
status 2, before anything runs; so is an ``--out`` that another run holds or that already holds
a policy (``--fresh`` deletes it first).
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NamedTuple, Protocol

from agents.training.config import ConfigError
from agents.training.curve import check_points
from agents.training.policy_trainer import (
    Curve,
    parse_policy_args,
    policy_folder_kind,
    run_policy_trainer,
)

PROG = "python -m allfives_openspiel.train"


@dataclass
class Args:
    """Train NFSP in OpenSpiel on All Fives (see the top of allfives_openspiel/train.py)."""

    out: Path = Path("runs", "openspiel", "nfsp")
    """The policy folder to write; one run at a time."""
    fresh: bool = False
    """Delete --out first (only a folder this trainer made; without --fresh, one that already
    holds a policy is refused)."""
    preset: Literal["pagat", "spruce", "dominoes_cc", "pyatyorka", "five_up"] = "pagat"
    """The rules preset of the game."""
    players: Literal[2, 3, 4] = 2
    """Seats, each an NFSP learner."""
    max_pip: int = 6
    """The set: double-N, N from 2 to 6 (6: the 28 tiles); a smaller set needs --hand_size."""
    hand_size: int = 0
    """Tiles dealt to each seat (0: the preset's)."""
    episode: Literal["match", "hand"] = "match"
    """What an episode is: a whole match (what ``allfives eval`` and the benchmark play) or
    one hand."""
    episodes: int = 2000
    """Episodes (matches, or hands) to train for (unless --env_steps is given)."""
    env_steps: int = 0
    """The budget in env steps instead (0: --episodes is the budget): play episodes until at
    least this many env steps (a learner's decisions, forced draws and passes apart), the
    episode in progress finished. Give it alone: --episodes is then refused unless left at its
    default."""
    curve_points: int = 0
    """Save the average policy at this many points of the budget (0 to 1000; 0: none), into
    --out's curve/ folder (see the top of allfives_openspiel/train.py)."""
    seed: int = 0
    """Seeds chance, numpy, torch and the networks."""
    hidden: tuple[int, ...] = (128,)
    """The hidden layer widths of both of NFSP's networks."""
    anticipatory: float = 0.1
    """NFSP's η: the chance an episode is played with the best response."""
    rl_lr: float = 0.01
    """The best response's (DQN's) learning rate."""
    sl_lr: float = 0.01
    """The average policy's learning rate."""
    batch_size: int = 128
    """Samples per gradient step."""
    learn_every: int = 64
    """A gradient step every this many of a player's steps."""
    replay_capacity: int = 200_000
    """The best response's replay buffer."""
    reservoir_capacity: int = 1_000_000
    """The average policy's reservoir."""
    eval_matches: int = 0
    """After training, evaluate the policy in this many duplicate-deal matches (0: none)."""
    eval_opponent: str = "heuristic"
    """The opponent agent spec of that evaluation."""
    progress: bool = True
    """A progress bar on stderr."""

    def folder(self) -> Path:
        """The policy folder, --out."""
        return self.out

    def game_string(self) -> str:
        """The OpenSpiel game it trains on."""
        extra = "".join(
            f",{name}={value}"
            for name, value, default in (
                ("max_pip", self.max_pip, 6),
                ("hand_size", self.hand_size, 0),
            )
            if value != default
        )
        return (
            f"python_allfives(preset={self.preset},players={self.players},"
            f"episode={self.episode}{extra})"
        )

    def check(self) -> None:
        """Refuse values that cannot train.

        Raises:
            ConfigError: naming the flag.
        """
        for name in ("episodes", "batch_size", "learn_every", "replay_capacity"):
            if getattr(self, name) < 1:
                raise ConfigError(f"--{name} must be a positive integer, not {getattr(self, name)}")
        if self.env_steps < 0:
            raise ConfigError(f"--env_steps must be non-negative, not {self.env_steps}")
        if self.env_steps and self.episodes != Args.episodes:
            raise ConfigError("--env_steps and --episodes are exclusive: give one budget")
        check_points(self.curve_points)
        from allfives_env.core.errors import RulesError
        from allfives_env.core.rules import Rules

        try:
            size = {"hand_size": self.hand_size} if self.hand_size else {}
            Rules.preset(self.preset, self.players, max_pip=self.max_pip, **size)
        except RulesError as e:
            raise ConfigError(str(e)) from None
        if self.reservoir_capacity < self.batch_size:
            raise ConfigError("--reservoir_capacity must be at least --batch_size")
        if not 0 <= self.anticipatory <= 1:
            raise ConfigError(f"--anticipatory must be in [0, 1], not {self.anticipatory}")
        if not self.rl_lr > 0 or not self.sl_lr > 0:
            raise ConfigError("--rl_lr and --sl_lr must be positive")
        if not self.hidden or min(self.hidden) < 1:
            raise ConfigError("--hidden must be one or more positive widths")
        if self.seed < 0 or self.eval_matches < 0:
            raise ConfigError("--seed and --eval_matches must be non-negative")


def parse_args(argv: Sequence[str]) -> Args:
    """The command line (tyro; ``--help`` lists every flag). Errors are one line, exit 2.

    Raises:
        ConfigError: for a value :meth:`Args.check` refuses.
    """
    return parse_policy_args(Args, argv, PROG, __doc__)


def train(args: Args, folder: Path) -> dict[str, Any]:
    """Train one NFSP learner per player and write the policy folder; return what the run did."""
    import numpy as np
    import pyspiel
    import torch
    from open_spiel.python import rl_environment
    from open_spiel.python.pytorch import nfsp
    from tqdm import tqdm

    import allfives_openspiel  # noqa: F401  (registers python_allfives)
    from allfives_openspiel.nfsp_policy import NetworkShape, save_policy
    from allfives_openspiel.seat_rewards import SeatRewardEnvironment

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    game = pyspiel.load_game(args.game_string())
    env = SeatRewardEnvironment(
        game, observation_type=rl_environment.ObservationType.OBSERVATION, seed=args.seed
    )
    obs_size = env.observation_spec()["info_state"][0]
    num_actions = env.action_spec()["num_actions"]
    learners = [
        nfsp.NFSP(
            p,
            obs_size,
            num_actions,
            list(args.hidden),
            args.reservoir_capacity,
            args.anticipatory,
            batch_size=args.batch_size,
            rl_learning_rate=args.rl_lr,
            sl_learning_rate=args.sl_lr,
            min_buffer_size_to_learn=max(args.batch_size, 1000),
            learn_every=args.learn_every,
            replay_buffer_capacity=args.replay_capacity,
            epsilon_start=0.06,
            epsilon_end=0.001,
            seed=args.seed + p,
        )
        for p in range(game.num_players())
    ]
    shape = NetworkShape(
        "nfsp", args.game_string(), game.num_players(), obs_size, num_actions, args.hidden
    )
    networks = [learner._avg_network for learner in learners]

    def write(path: Path) -> None:
        save_policy(path, game.rules, shape, networks)

    budget = args.env_steps or args.episodes
    curve = Curve(folder, "openspiel-nfsp", args.curve_points, budget)
    unit = "env step" if args.env_steps else "episode"
    start, episodes, decisions, env_steps, progress = time.monotonic(), 0, 0, 0, 0
    with tqdm(total=budget, desc="NFSP", unit=unit, disable=not args.progress) as bar:
        while progress < budget:
            played = play_episode(env, learners)
            episodes += 1
            decisions += played.decisions
            env_steps += played.env_steps
            moved = env_steps if args.env_steps else episodes
            bar.update(moved - progress)
            progress = moved
            if curve.due(progress):
                curve.save(progress, env_steps, write)
    seconds = time.monotonic() - start
    write(folder)
    return {
        "episodes": episodes,
        "env_steps": env_steps,
        "decisions": decisions,
        "imitation_samples": 0,
        "teacher_positions": 0,
        "curve": curve.points,
        "seconds": round(seconds, 1),
    }


class Learner(Protocol):
    """What the loop asks of an OpenSpiel RL agent: ``step(time_step)`` returning an output with
    an ``action`` (``None`` at the last time step)."""

    def step(self, time_step: Any) -> Any: ...


class Played(NamedTuple):
    """What one episode counted."""

    decisions: int
    """The players' steps: every time step a learner was asked to act on."""
    env_steps: int
    """The decisions that were more than a forced move (a lone legal draw or pass)."""


def play_episode(env: Any, learners: Sequence[Learner]) -> Played:
    """Play one episode, as OpenSpiel's ``kuhn_nfsp``/``leduc_nfsp`` examples do: the player to
    act steps with each time step and its action is applied; at the end every learner steps
    with the last time step. Return its decisions and env steps (:class:`Played`).

    ``env`` is an ``rl_environment.Environment`` of ``python_allfives``: its legal actions
    are the game's env action ids, whose draw and pass are ``env.game.encoding``'s."""
    encoding = env.game.encoding
    forced = ([encoding.draw], [encoding.pass_])
    step, decisions, env_steps = env.reset(), 0, 0
    while not step.last():
        player = step.observations["current_player"]
        decisions += 1
        env_steps += list(step.observations["legal_actions"][player]) not in forced
        step = env.step([learners[player].step(step).action])
    for learner in learners:
        learner.step(step)
    return Played(decisions, env_steps)


def _rules_of(folder: Path) -> Any:
    from allfives_openspiel.nfsp_policy import load_policy

    return load_policy(folder)[0]


def main(argv: Sequence[str] | None = None) -> int:
    """Train as the command line says (``sys.argv`` by default); return the exit status."""
    from allfives_openspiel.nfsp_policy import WEIGHTS_FILE, is_policy_folder

    kind = policy_folder_kind(PROG, WEIGHTS_FILE)
    return run_policy_trainer(
        PROG, argv, "openspiel-nfsp", parse_args, is_policy_folder, train, _rules_of, kind
    )


if __name__ == "__main__":
    sys.exit(main())
