"""The batched engine's measuring functions run, and its kernels cache by the whole package."""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

from allfives_env.vector import _jit, speed


def test_speed_rows_hold_the_settings_and_a_rate() -> None:
    rows = speed.speed_table(["five_up"], [4], [4], [1], seconds=0.02, action_features=True)
    assert len(rows) == 1
    row = rows[0]
    assert row["preset"] == "five_up" and row["games"] == 4 and row["threads"] == 1
    assert row["steps"] > 0 and row["steps_per_s"] > 0
    assert speed.format_rows(rows).count("\n") == 2


def test_memory_per_game_counts_the_state_arrays() -> None:
    row = speed.memory_per_game("pagat", 2, 16)
    assert 1_000 < row["state_bytes"] < row["state_bytes_with_action_features"] < 4_000
    assert row["observation_bytes"] == 4 * 222 and row["mask_bytes"] == 114


def test_the_kernel_cache_is_stamped_with_every_source_file_of_the_package() -> None:
    # numba checks only a kernel's own file; a stale helper from another file would survive
    assert _jit.PACKAGE_STAMP_ACTIVE
    from allfives_env.vector.kernels.step import step_batch

    locator = step_batch.parallel._cache._impl.locator  # type: ignore[attr-defined]
    assert locator.get_source_stamp() == _jit.package_stamp()
