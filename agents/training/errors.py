"""The trainers' one error: a config that cannot run (its own module, below every part that
raises it)."""

from __future__ import annotations


class ConfigError(ValueError):
    """A config that cannot run: the trainer prints its one line and exits with status 2."""
