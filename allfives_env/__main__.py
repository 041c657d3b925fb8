"""``python -m allfives_env``: the ``allfives`` command (see :mod:`allfives_cli`).

An entry script, not a module anyone imports: it sits in the top layer with the command line
it runs.
"""

from allfives_cli import entry

entry()
