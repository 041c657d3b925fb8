"""What a trainer's command does around its training: the extras it needs, Ctrl-C and SIGTERM,
and the exit statuses.

Both trainers (``train.py``, ``train_rllib.py``) run their body through :func:`run_command`:

- a user mistake (a :class:`~agents.training.config.ConfigError`: a bad config, a busy or
  damaged run folder, a full disk before the start) is one line on stderr, exit status 2;
- a full disk mid-run removes the half-written ``.tmp`` files and says, in one line, how much to
  free (what was saved before stays intact), exit status 2;
- Ctrl-C or SIGTERM at any moment, even inside a library that swallows the
  ``KeyboardInterrupt``, stops at the next step and says how to continue, exit status 130.

The script notes Ctrl-C from its first line (before its heavy imports) and hands what it noted
to :meth:`Interrupts.install`.
"""

from __future__ import annotations

import importlib.util
import signal
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.training.config import ConfigError, fail
from agents.training.run_folder import full_disk_message, is_disk_full, remove_partial

TRAIN_EXTRAS = ("yaml", "tyro", "torch", "tensorboard", "tqdm", "matplotlib", "filelock")
"""The modules of the ``[train]`` extra that ``train.py`` needs."""
RLLIB_EXTRAS = ("ray", "torch", "yaml", "tyro", "tensorboard", "tqdm", "filelock")
"""The modules of the ``[rllib]`` extra that ``train_rllib.py`` needs."""


def tell(prog: str, message: str) -> None:
    """Say what the trainer ``prog`` is doing now: one line on stderr, as each phase begins
    (before its slow imports, compiles or starts; the bars of the longer ones follow, with
    ``progress`` on)."""
    print(f"{prog}: {message}", file=sys.stderr, flush=True)


def missing_extras(modules: Iterable[str], extra: str, what: str) -> str | None:
    """The one line naming the install command of the ``extra`` that holds ``modules``, if one
    of them is missing (else ``None``); ``what`` says what needs them (``training``,
    ``training on RLlib``, ``--address``)."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if not missing:
        return None
    return (
        f"{what} needs the [{extra}] extra (missing: {', '.join(missing)}): "
        f"pip install -e '.[{extra}]'"
    )


def require_extras(prog: str, modules: Iterable[str], extra: str, what: str) -> None:
    """Exit with status 2 and one line naming the install command if a module is missing
    (:func:`missing_extras`)."""
    message = missing_extras(modules, extra, what)
    if message is not None:
        fail(prog, message)


class Interrupts:
    """Ctrl-C (SIGINT) and SIGTERM, noted at any moment and raised where it is safe.

    Once installed, a signal is noted, so that :meth:`check` (called between steps) raises
    ``KeyboardInterrupt``; with ``at_once`` it is also raised at once (a trainer whose steps are
    its own; RLlib's trainer lets the cluster finish its iteration).
    """

    def __init__(self) -> None:
        self.noted = False
        self.at_once = True

    def _note(self, signum: int, frame: Any) -> None:
        self.noted = True
        if self.at_once:
            raise KeyboardInterrupt

    def install(self, noted: bool = False, at_once: bool = True) -> None:
        """Take over SIGINT and SIGTERM; ``noted``: a Ctrl-C came before (the script's own
        handler, during its imports), so the first :meth:`check` stops."""
        self.noted = self.noted or noted
        self.at_once = at_once
        signal.signal(signal.SIGINT, self._note)
        signal.signal(signal.SIGTERM, self._note)

    def check(self) -> None:
        """Raise ``KeyboardInterrupt`` if a signal came since the start."""
        if self.noted:
            raise KeyboardInterrupt


INTERRUPTS = Interrupts()
"""The process's one :class:`Interrupts`."""


@dataclass
class Session:
    """What :func:`run_command` needs to know of the run as it goes: its folder (once known) and
    whether the folder holds something to continue from."""

    prog: str
    folder: Path | None = None
    resumable: Callable[[], bool] = lambda: False
    kept: str = "the last resume point"
    """What the folder keeps to continue from, as the interruption's line names it."""


def interrupted(session: Session) -> int:
    """Say how to continue after Ctrl-C (or a kill); return the exit status 130."""
    where = ""
    if session.folder is not None and session.resumable():
        where = f"; {session.kept} is in {session.folder}"
    print(f"\ninterrupted{where}: run the same command to continue", file=sys.stderr)
    return 130


def run_command(
    session: Session, body: Callable[[Session], int], noted: bool = False, at_once: bool = True
) -> int:
    """Run a trainer's ``body`` with :data:`INTERRUPTS` installed (``noted`` and ``at_once`` as
    :meth:`Interrupts.install` takes them); map what it raises to the exit statuses above.
    Returns the status (``body``'s own when it ends)."""
    INTERRUPTS.install(noted, at_once)
    try:
        INTERRUPTS.check()
        return body(session)
    except ConfigError as e:
        fail(session.prog, str(e))
    except KeyboardInterrupt:
        return interrupted(session)
    except OSError as e:
        if session.folder is None or not is_disk_full(e):
            raise
        remove_partial(session.folder)
        fail(session.prog, full_disk_message(session.folder))
    except Exception:
        if INTERRUPTS.noted:  # Ctrl-C inside a library that wrapped the KeyboardInterrupt (an
            return interrupted(session)  # import's "Error calling __set_name__")
        raise
