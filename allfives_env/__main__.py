"""``python -m allfives_env``: runs the installed ``allfives`` command.

The command line belongs to the tools above the engine (``agents.cli``); this file finds it
through its console-script entry point, so the engine package imports nothing from above it.
"""

import sys
from importlib.metadata import entry_points


def _main() -> None:
    found = entry_points(group="console_scripts", name="allfives")
    if not found:
        sys.exit("allfives: error: the allfives command is not installed (pip install -e .)")
    next(iter(found)).load()()


_main()
