"""A run result of ``allfives sweep`` made by hand, for the tests of the table and the
leaderboard (the real ones come from ``tests/extras/test_sweep_runs.py``)."""

from __future__ import annotations

from typing import Any

from agents.benchmark.recipes import RECIPES
from agents.benchmark.sweep import FORMAT
from agents.benchmark.training import TRAIN_V1


def fake_result(recipe: str, seed: int, rate: float, **extra: Any) -> dict[str, Any]:
    point = {"matches": 50, "win_rate": rate, "win_rate_ci": [rate - 0.1, rate + 0.1],
             "points_per_hand": 1.0}  # fmt: skip
    result = {
        "format": FORMAT, "protocol": TRAIN_V1.name, "setting": "pagat-2p", "tier": "2M",
        "track": "tabula_rasa", "recipe": recipe, "label": RECIPES[recipe].label,
        "framework": "x", "framework_version": "1", "seed": seed,
        "command": ["train.py", "--seed", str(seed), "--runs", f"r{seed}", "--lr", "1"],
        "env_steps": 1_998_848, "imitation_samples": 0, "wall_seconds": 60.0, "cpu_seconds": 90.0,
        "curve": [{"env_steps": 1000 * i, "results": {o: point for o in TRAIN_V1.test_opponents}}
                  for i in (1, 2)],
        "test": {o: point for o in TRAIN_V1.test_opponents},
    }  # fmt: skip
    return result | extra
