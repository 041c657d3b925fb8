"""``python -m allfives_env``: runs the ``allfives`` command, as ``python -m allfives_cli`` does.

An entry script, not a module anyone imports: it runs the command line's own ``__main__`` by
name (:func:`runpy.run_module`), so the engine's package imports nothing from above it.
"""

import runpy

runpy.run_module("allfives_cli", run_name="__main__", alter_sys=True)
