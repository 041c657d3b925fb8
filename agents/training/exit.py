"""Expert iteration: a search and a network that improve each other, round after round.

``python -m agents.training.exit --config configs/exit.yaml`` runs ``rounds`` rounds. Round 0's
search is ``imitation_teacher`` (``batchsearch:worlds=…``, heuristic rollouts); in each round

1. a ``train.py`` run (:mod:`agents.training.selfplay`, its own folder ``roundR/`` inside the
   ExIt folder) learns that search's values: the actor its ``softmax(value / temperature)``
   over the legal actions (and, with ``value_head``, the critic its value of each position);
   both go into the round's ``best.zip``;
2. the next round's search is the same search guided by that network (``guide``):

   - ``prior`` (default): each action's mean value gains ``prior_weight`` times the network's
     log-probability of it (``batchsearch:…,prior=roundR/best.zip``). The network holds what
     it learned from every position the round searched, so the search starts from that and
     corrects it with its own worlds; the next network learns the corrected values, and so on
     (at ``prior_weight`` equal to the temperature, the new targets are the old policy times
     ``exp(value / temperature)``, renormalized: a policy improvement step);
   - ``value``: the network's critic cuts each rollout short after ``depth`` of the searching
     seat's turns (``batchsearch:…,value=roundR/best.zip,depth=D``; needs ``value_head``);

3. the round's network alone, and ``round_search`` guided by it, play ``round_matches``
   duplicate matches against each of ``round_opponents`` (deals apart from training's),
   written to ``rounds.json`` and printed as a table. ``round_search`` at the worlds of an
   opponent plays at its time per move: the guide costs one forward pass a move.

Each round's network starts from new weights and learns from its own round's positions. The ExIt
folder (``runs/NAME``) is held by one process at a time; run the same command again after an
interruption and finished rounds are kept, the round under way resumes where ``train.py`` left
it, and its evaluation is redone if it had not been written; ``--rounds`` may grow (more rounds
follow the last), other fields may not (the ones ``train.py`` lets change aside). ``--fresh``
starts over. Every field of ``train.py``'s config applies to each round (``name`` and ``seed``
excepted: the round's are ``roundR`` and ``seed + R``); ``imitation_targets: values`` and
``total_timesteps: 0`` are required.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import tyro
import yaml

from agents.files import replace_whole
from agents.training import config as train_config
from agents.training.config import ConfigError, check_agent_specs, parse_command, raise_first
from agents.training.entry import INTERRUPTS, Session, run_command
from agents.training.exit_rounds import read_rounds, table
from agents.training.ownership import CONFIG, MARKER, FolderKind, config_keys, config_record
from agents.training.run_folder import (
    RETIRED,
    WAY_OUT,
    check_same_config,
    open_run_folder,
    write_config,
)
from agents.training.selfplay_config import RUN_KIND, Config

PROG = "python -m agents.training.exit"
"""How expert iteration names itself in its one-line errors."""
GUIDES = ("prior", "value")
"""How a round's search uses the last round's network (``guide``)."""
EVAL_SEED = 1_000_003
"""Added to the seed for the rounds' evaluation deals (apart from every training evaluation's)."""


@dataclass
class ExitConfig(Config):
    """``train.py``'s config (each round's), and the rounds'."""

    rounds: int = 3
    """Rounds of expert iteration."""
    guide: str = "prior"
    """How the next round's search uses the network: ``prior`` (its policy's log-probability
    of each action, times prior_weight, joins the action's mean value) or ``value`` (its
    critic cuts the rollouts short after depth turns; needs value_head)."""
    prior_weight: float = 2.0
    """Points per nat of the network's prior (guide: prior)."""
    depth: int = 2
    """The searching seat's turns a rollout plays before the network's value cuts it short
    (guide: value)."""
    round_search: str = "batchsearch:worlds=512"
    """The search evaluated after each round, guided by the round's network as the next
    round's search is."""
    round_matches: int = 100
    """Duplicate-deal matches against each of round_opponents after each round, for the
    network alone and for the search with it."""
    round_opponents: list[str] = field(
        default_factory=lambda: ["search:sims=100", "batchsearch:worlds=512"]
    )
    """Agent specs each round's network and search play."""

    def check(self) -> None:
        """Validate every field (``train.py``'s and the rounds').

        Raises:
            ConfigError: naming the first bad field.
        """
        raise_first(
            self,
            [
                (self.guide in GUIDES, "guide", f"one of {', '.join(GUIDES)}"),
                (
                    self.guide != "value" or self.value_head,
                    "value_head",
                    "true with guide: value (the critic cuts the rollouts)",
                ),
                (
                    self.imitation_targets == "values",
                    "imitation_targets",
                    "values (the network learns the search's values)",
                ),
                (
                    self.total_timesteps == 0,
                    "total_timesteps",
                    "0 (each round learns a search's values, no PPO)",
                ),
                (0 <= self.prior_weight < 1e6, "prior_weight", "a number from 0 to 1e6"),
                (self.rounds >= 1, "rounds", "at least 1"),
                (self.depth >= 1, "depth", "at least 1"),
                (self.round_matches >= 1, "round_matches", "at least 1"),
                (bool(self.round_opponents), "round_opponents", "at least one agent spec"),
            ],
        )
        Config.check(self)
        check_agent_specs(self, ("round_opponents",))
        if not self.round_search.startswith("batchsearch"):
            raise ConfigError(
                "config 'round_search' must be a batchsearch spec (it takes the "
                f"round's network as its guide), not {self.round_search!r}"
            )
        check_agent_specs(self, ("round_search",))


EXIT_KIND = FolderKind(
    made_by=PROG,
    files=(CONFIG, MARKER, "rounds.json", "round*.yaml", ".round*.lock", "*.tmp"),
    runs=(("round*", RUN_KIND),),
    config_keys=config_keys(ExitConfig, retired=RETIRED),
)
"""What an ExIt folder holds (:mod:`agents.training.ownership`): its config, ``rounds.json``,
each round's ``train.py`` config and run folder (and that folder's lock)."""


@dataclass
class Command:
    """Expert iteration of a search and a network (``python -m agents.training.exit``)."""

    config: Path | None = None
    """A YAML file of config fields (train.py's, and the rounds'); flags override it."""
    fresh: bool = False
    """Delete the ExIt folder and start over (only a folder expert iteration made: one that
    holds anything else is refused)."""
    runs: Path = Path("runs")
    """Where the ExIt folder goes."""
    cfg: Annotated[ExitConfig, tyro.conf.OmitArgPrefixes] = field(default_factory=ExitConfig)


def parse_args(argv: Sequence[str]) -> Command:
    """The command line, as ``train.py``'s (``--help`` lists every field). Errors are one line."""
    path = train_config.config_path(argv)
    cfg = train_config.load_yaml(path, ExitConfig()) if path is not None else ExitConfig()
    command = parse_command(Command, Command(config=path, cfg=cfg), argv, PROG, __doc__)
    command.cfg.check()
    return command


def round_folder(cfg: ExitConfig, runs: Path, r: int) -> Path:
    """Round ``r``'s ``train.py`` run folder."""
    return runs / cfg.name / f"round{r}"


def guided(cfg: ExitConfig, search: str, network: Path) -> str:
    """The search spec ``search`` guided by the checkpoint ``network`` as ``cfg.guide`` says."""
    sep = "," if ":" in search else ":"
    if cfg.guide == "value":
        return f"{search}{sep}value={network},depth={cfg.depth}"
    return f"{search}{sep}prior={network},prior_weight={cfg.prior_weight:g}"


def search_spec(cfg: ExitConfig, runs: Path, r: int) -> str:
    """Round ``r``'s search: the first teacher, then guided by round ``r - 1``'s network."""
    if r == 0:
        return cfg.imitation_teacher
    return guided(cfg, cfg.imitation_teacher, round_folder(cfg, runs, r - 1) / "best.zip")


def round_config(cfg: ExitConfig, runs: Path, r: int) -> Config:
    """Round ``r``'s ``train.py`` config."""
    own = {f.name for f in dataclasses.fields(Config)}
    base = {k: v for k, v in dataclasses.asdict(cfg).items() if k in own}
    teacher = search_spec(cfg, runs, r)
    base |= {"name": f"round{r}", "seed": cfg.seed + r, "imitation_teacher": teacher}
    return Config(**base)


def evaluate_round(cfg: ExitConfig, runs: Path, r: int) -> dict[str, Any]:
    """Round ``r``'s network alone and ``round_search`` guided by it against
    ``round_opponents``."""
    from agents.eval.tournament import evaluate_against

    best = round_folder(cfg, runs, r) / "best.zip"
    seed = cfg.seed + EVAL_SEED + r
    out: dict[str, Any] = {"round": r, "teacher": search_spec(cfg, runs, r)}
    for key, spec in (("network", str(best)), ("search", guided(cfg, cfg.round_search, best))):
        t0 = time.perf_counter()
        results = evaluate_against(
            cfg.rules(), spec, cfg.round_opponents, cfg.round_matches, seed, cfg.eval_processes
        )
        out[key] = {"spec": spec, "results": results, "seconds": time.perf_counter() - t0}
    return out


def check_rounds(cfg: ExitConfig, runs: Path, rounds: list[dict[str, Any]]) -> None:
    """Before anything is written: the last finished round's network (the next round's search
    is guided by it) must be whole, and the round under way's folder must be one ``train.py``
    can go on from (:mod:`agents.training.resume_check`).

    Raises:
        ConfigError: naming the file missing or damaged, and the way out.
    """
    from agents.learned import CheckpointError, read_checkpoint
    from agents.training.ownership import check_folder, damaged
    from agents.training.resume_check import check_resume_files, load_resume_point
    from agents.training.run import Run

    if rounds and len(rounds) < cfg.rounds:
        best = round_folder(cfg, runs, len(rounds) - 1) / "best.zip"
        if not best.is_file():
            raise ConfigError(f"{best} is missing: the next round's search needs it; {WAY_OUT}")
        try:
            read_checkpoint(best)
        except CheckpointError as e:
            raise damaged(best, e) from None
    r = len(rounds)
    if r < cfg.rounds and round_folder(cfg, runs, r).exists():
        rcfg = round_config(cfg, runs, r)
        run = Run(rcfg, runs / cfg.name)
        check_folder(run.dir, RUN_KIND, fresh=False)
        saved = load_resume_point(run, rcfg)
        done = saved is not None and saved["num_timesteps"] >= rcfg.total_timesteps
        if saved is not None and not (done and run.report_file.exists()):
            check_resume_files(run, rcfg, saved)


def main(argv: Sequence[str] | None = None) -> int:
    """Run expert iteration as the command line says; return the exit status."""
    args = sys.argv[1:] if argv is None else argv
    return run_command(Session(PROG), lambda session: _run(session, args))


def _run(session: Session, argv: Sequence[str]) -> int:
    from agents.training import selfplay

    command = parse_args(argv)
    cfg, runs = command.cfg, command.runs
    folder = runs / cfg.name
    session.folder = folder
    session.resumable = folder.exists
    session.kept = "every finished round, and the round under way,"
    report = folder / "rounds.json"
    with open_run_folder(folder, command.fresh, EXIT_KIND):
        before = config_record(folder, EXIT_KIND)  # a hand edit: refused, never overwritten
        if before is not None:
            check_same_config(folder, before, dataclasses.asdict(cfg), may_grow=("rounds",))
        rounds = read_rounds(report, cfg.round_opponents) if report.exists() else []
        check_rounds(cfg, runs, rounds)  # every file a resume reads: nothing written before
        write_config(folder, cfg, EXIT_KIND)
        for r in range(len(rounds), cfg.rounds):
            rcfg = round_config(cfg, runs, r)
            path = folder / f"round{r}.yaml"
            replace_whole(path, yaml.safe_dump(dataclasses.asdict(rcfg), sort_keys=False).encode())
            print(f"round {r}: the network learns {rcfg.imitation_teacher}", flush=True)
            status = selfplay._run(session, ["--config", str(path), "--runs", str(folder)])
            if status != 0:
                return status
            session.folder = folder
            INTERRUPTS.check()
            rounds.append(evaluate_round(cfg, runs, r))
            replace_whole(report, json.dumps(rounds, indent=1).encode("utf-8"))
            print(table(rounds, cfg.round_opponents), flush=True)
    print(f"rounds: {report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
