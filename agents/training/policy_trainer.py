"""The command around a trainer that writes a policy folder (``python -m allfives_benchmarl.train``,
``python -m allfives_openspiel.train``): the folder's lock, the checks, the report.

:func:`run_policy_trainer` parses the command line, takes the run-folder lock of the policy
folder (``args.folder()``: one process a folder; ``--fresh`` deletes it first, only if the
trainer made it: :mod:`agents.training.ownership`), refuses a folder that already holds a
policy, or anything the trainer does not write, checks the disk, marks the folder as the
trainer's, trains, evaluates the policy against
``--eval_opponent`` over duplicate deals when ``--eval_matches`` asks, and writes
``report.json`` (the flags, what the run did, the evaluation) whole. A bad flag or a refused
folder is one line, exit status 2 (through :func:`agents.training.entry.run_command`).

**Env steps**, as every trainer of the project counts them: one decision of the policy being
trained, in whichever seat it plays: a turn at which its legal actions are more than a lone draw
or a lone pass (a forced draw or pass is no env step, whether the framework asks the policy for
it or the engine takes it). Each trainer reports ``env_steps`` so.

**Curve snapshots** (:class:`Curve`, ``--curve_points K``, checked by
:func:`agents.training.curve.check_points`): the policy being trained, saved as it stands at K
points of the budget into ``OUT/curve/<env steps, 12 digits>/`` (a policy folder that the
trainer's agent kind plays), listed in ``OUT/curve/index.json``
(:mod:`agents.training.curve`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

from agents.files import replace_whole
from agents.training.config import ConfigError, parse_command
from agents.training.curve import CURVE, Point, point_name, point_path, with_point, write_index
from agents.training.curve import due as point_due
from agents.training.entry import Session, run_command
from agents.training.ownership import MARKER, FolderKind, write_marker
from agents.training.run_folder import check_space, open_run_folder
from allfives_env.core.rules import Rules


class PolicyArgs(Protocol):
    """The flags every such trainer has."""

    fresh: bool
    eval_matches: int
    eval_opponent: str

    def __init__(self) -> None: ...

    def folder(self) -> Path:
        """The policy folder to write (``--out``)."""
        ...

    def check(self) -> None:
        """Refuse values that cannot train (raises ``ConfigError``)."""
        ...


A = TypeVar("A", bound=PolicyArgs)

EVAL_SEED = 10**9
"""The deals of the evaluation after training (none of them served the training)."""


def parse_policy_args(kind: type[A], argv: Sequence[str], prog: str, doc: str | None) -> A:
    """The command line as ``kind``'s flags (tyro; ``--help`` lists them; the first paragraph
    of ``doc`` describes the command), checked by ``kind.check()`` and :func:`check_opponent`.

    Raises:
        ConfigError: for a value the checks refuse (tyro's own errors exit 2 themselves).
    """
    description = doc.split("\n\n")[0] if doc else None
    args = parse_command(kind, kind(), argv, prog, description)
    args.check()
    check_opponent(args)
    return args


def check_opponent(args: PolicyArgs) -> None:
    """Refuse an ``--eval_opponent`` that is not an agent spec (when one will be played).

    Raises:
        ConfigError: naming the flag.
    """
    if args.eval_matches:
        from agents.registry import UnknownAgentError, make_agent

        try:
            make_agent(args.eval_opponent)
        except UnknownAgentError as e:
            raise ConfigError(f"--eval_opponent: {e}") from None


def policy_folder_kind(
    prog: str, weights_file: str, folders: tuple[str, ...] = (), files: tuple[str, ...] = ()
) -> FolderKind:
    """What the policy folder of the trainer ``prog`` holds: its marker, the policy's two
    files (``allfives.json`` and ``weights_file``), ``report.json``, the curve snapshots
    (:data:`agents.training.curve.CURVE`), its own ``folders`` (logs) and ``files`` (a resume
    point). A folder of an earlier version (no marker) is recognised by the policy's files."""
    from agents.learned import META_FILE

    policy = (META_FILE, weights_file)
    return FolderKind(
        made_by=prog,
        files=(MARKER, *policy, "report.json", *files, "*.tmp"),
        folders=(CURVE, *folders),
        legacy_files=policy,
        option="--out",
    )


class Curve:
    """The curve snapshots of a run (:mod:`agents.training.curve`): the policy being trained,
    saved at ``points`` points of its ``budget``, into ``FOLDER/curve/<env steps, 12 digits
    zero-padded>/``.

    The trainer measures its progress in the budget's unit (env steps, or episodes), and calls
    :meth:`due` at each moment it can save (an episode's or an iteration's end); when it is
    due, :meth:`save` writes the policy there. Threshold ``k`` (1 to ``points``) is
    ``budget·k/points``: the first such moment at or after it saves one point, which serves
    every threshold it reached (so a run whose moments are coarser than ``budget/points`` has
    fewer points). The progress of the run's end is at least ``budget``, so its last point is
    the final policy. After each point ``curve/index.json`` is written whole:
    ``{"points": [{"env_steps": N, "agent": "KIND:curve/<N>"}, ...]}``, the agent specs'
    paths relative to ``FOLDER``, the env steps increasing (a point saved again at the same
    env steps replaces the last). With ``points == 0`` nothing is ever due and nothing is
    written.
    """

    def __init__(self, folder: Path, kind: str, points: int, budget: int) -> None:
        """``folder``: the policy folder; ``kind``: the agent kind that plays a snapshot;
        ``points``: K (checked by :func:`agents.training.curve.check_points`); ``budget``: B,
        positive."""
        self.run_dir = folder
        self.folder = folder / CURVE
        self.kind = kind
        self.wanted = points
        self.budget = budget
        self.progress = 0
        """The progress at the last point saved (0: none yet)."""
        self.points: list[Point] = []
        """``index.json``'s points so far."""

    def due(self, progress: int) -> bool:
        """Whether ``progress`` (in the budget's unit) reaches a threshold not yet saved."""
        return point_due(self.progress, progress, self.budget, self.wanted)

    def save(self, progress: int, env_steps: int, write: Callable[[Path], None]) -> None:
        """Save the point of ``env_steps`` (the run's env steps now, at ``progress``): call
        ``write`` with its folder (which writes the policy folder there), then rewrite
        ``index.json`` whole.

        Raises:
            OSError: if a file cannot be written.
        """
        write(self.folder / point_name(env_steps))
        self.progress = progress
        point = {"env_steps": env_steps, "agent": f"{self.kind}:{point_path(env_steps)}"}
        self.points[:] = with_point(self.points, point)
        write_index(self.run_dir, self.points)


def run_policy_trainer(
    prog: str,
    argv: Sequence[str] | None,
    kind: str,
    parse: Callable[[Sequence[str]], A],
    is_policy_folder: Callable[[Path], bool],
    train: Callable[[A, Path], dict[str, Any]],
    rules_of: Callable[[Path], Rules],
    folder_kind: FolderKind,
    resume_file: str | None = None,
) -> int:
    """Run the trainer (see the module docstring); return the exit status.

    Args:
        prog: the command's name, for its messages.
        argv: the arguments (``sys.argv[1:]`` when ``None``).
        kind: the agent kind that plays the policy (``kind:FOLDER``).
        parse: the command line to the flags (raises ``ConfigError`` or exits 2).
        is_policy_folder: whether a folder already holds a policy.
        train: trains into the folder; returns what the run did, for the report.
        rules_of: the rules of the policy in a folder (what the evaluation plays).
        folder_kind: what the policy folder holds (:func:`policy_folder_kind`).
        resume_file: the trainer's resume point in the folder, if it saves one (an
            interruption's line then says the folder keeps it, while it exists).
    """
    arguments = sys.argv[1:] if argv is None else argv

    def body(session: Session) -> int:
        args = parse(arguments)
        folder = args.folder()
        session.folder = folder
        with open_run_folder(folder, args.fresh, folder_kind, "--out"):  # one process a folder
            if is_policy_folder(folder):
                raise ConfigError(
                    f"{folder} already holds a trained policy: give another --out, or --fresh "
                    "to train it anew"
                )
            check_space(folder)
            folder.mkdir(parents=True, exist_ok=True)
            write_marker(folder, folder_kind, None)  # the trainer's folder, from now on
            flags = {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()}
            record: dict[str, Any] = {"args": flags, **train(args, folder)}
            if args.eval_matches:
                from agents.eval.tournament import evaluate_against

                record["eval"] = evaluate_against(
                    rules_of(folder),
                    f"{kind}:{folder}",
                    [args.eval_opponent],
                    args.eval_matches,
                    seed=EVAL_SEED,
                    processes=1,
                )
            replace_whole(folder / "report.json", json.dumps(record, indent=1).encode("utf-8"))
        print(json.dumps({k: v for k, v in record.items() if k != "args"}, indent=1))
        print(f"policy: {folder} (play it as {kind}:{folder})")
        return 0

    session = Session(prog, kept="nothing")
    if resume_file is not None:
        session.kept = "the last resume point"
        session.resumable = lambda: (
            session.folder is not None and (session.folder / resume_file).exists()
        )
    return run_command(session, body)
