"""JSON read strictly: the one decoder behind every JSON file or body the project reads back
(records, result files, checkpoints' metadata, run folders' reports, the web API's bodies).

Python's ``json`` keeps the last value of a key given twice and accepts ``NaN`` and
``Infinity``; a file read back with either would be silently wrong, so both are refused.

>>> loads('{"a": 1}')
{'a': 1}
>>> loads('{"a": 1, "a": 2}')
Traceback (most recent call last):
...
ValueError: duplicate key 'a'
>>> loads('[NaN]')
Traceback (most recent call last):
...
ValueError: NaN is not JSON
"""

from __future__ import annotations

import json
from typing import Any


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An ``object_pairs_hook`` that refuses a key given twice in one object.

    Raises:
        ValueError: ``duplicate key 'KEY'``.
    """
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r}")
        out[key] = value
    return out


def loads(text: str | bytes) -> Any:
    """``text`` as JSON, strictly: no ``NaN`` or ``Infinity``, no key twice in an object.

    Raises:
        ValueError: saying what is wrong (``json.JSONDecodeError`` for malformed text; a
            nesting too deep for the parser is a ``ValueError`` too).
    """
    try:
        return json.loads(text, parse_constant=_reject_constant, object_pairs_hook=unique_keys)
    except RecursionError:
        raise ValueError("nested too deeply") from None
