"""Expert iteration's record of its rounds: ``rounds.json``, read back strictly and checked
round by round, and printed as a Markdown table."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.training.ownership import damaged
from allfives_env.core import strict_json


def table(rounds: list[dict[str, Any]], opponents: Sequence[str]) -> str:
    """The rounds as a Markdown table: each round's network and search, win rate and interval
    against each opponent."""
    head = "| round | agent | " + " | ".join(f"v {o}" for o in opponents) + " |"
    lines = [head, "|---|---|" + "---|" * len(opponents)]
    for row in rounds:
        for key in ("network", "search"):
            cells = []
            for o in opponents:
                res = row[key]["results"][o]
                low, high = res["ci95"]
                cells.append(f"{res['win_rate']:.1%} [{low:.1%}, {high:.1%}]")
            lines.append(f"| {row['round']} | {key} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def read_rounds(path: Path, opponents: Sequence[str]) -> list[dict[str, Any]]:
    """The finished rounds that ``rounds.json`` holds, strictly read (a key given twice or
    ``NaN`` refused) and checked: round ``R`` at place ``R``, its network's and its search's
    results against each of ``opponents`` (what :func:`table` prints).

    Raises:
        ConfigError: naming the file, if it cannot be read or is not the rounds' record.
    """
    try:
        rounds = strict_json.loads(path.read_bytes())
    except (OSError, ValueError) as e:
        raise damaged(path, e) from None
    if not isinstance(rounds, list):
        raise damaged(path, "not a list of rounds")
    for r, row in enumerate(rounds):
        if not _round_row(row, r, opponents):
            raise damaged(path, f"its round {r} is not a round's record")
    return rounds


def _round_row(row: Any, r: int, opponents: Sequence[str]) -> bool:
    """Whether ``row`` is round ``r``'s record against ``opponents``."""

    def rate(x: Any) -> bool:
        return type(x) in (int, float) and math.isfinite(x) and 0 <= x <= 1

    def result(x: Any) -> bool:
        if not isinstance(x, dict):
            return False
        ci = x.get("ci95")
        return (
            rate(x.get("win_rate")) and isinstance(ci, list) and len(ci) == 2 and all(map(rate, ci))
        )

    if not isinstance(row, dict) or row.get("round") != r:
        return False
    for key in ("network", "search"):
        part = row.get(key)
        results = part.get("results") if isinstance(part, dict) else None
        if not isinstance(results, dict) or not all(result(results.get(o)) for o in opponents):
            return False
    return True
