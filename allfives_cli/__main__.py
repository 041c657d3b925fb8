"""``python -m allfives_cli``: the ``allfives`` command."""

from allfives_cli import entry

entry()
