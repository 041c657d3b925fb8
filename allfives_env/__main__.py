"""``python -m allfives_env``: the ``allfives`` command line."""

from allfives_env.cli import entry

entry()
