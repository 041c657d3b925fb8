"""The agent groups of a table's seats, as a multi-agent trainer that trains one policy per group
sees them (BenchMARL's: :mod:`allfives_benchmarl`), and the one rule for the algorithms that
learn a group's summed reward (QMIX, VDN).

- each for himself (2 or 3 players, or 4 without partnerships): one group, ``"players"``
  (:data:`GROUP`), of every seat;
- 4 players in partnerships: one group per side, ``"team_0"`` (seats 0 and 2) and ``"team_1"``
  (seats 1 and 3), so that a group's summed reward is its team's. ``teams=False`` puts the four
  seats in one group of opponents instead.

The rules alone decide them: nothing here imports torch, TorchRL or BenchMARL, so the sweep's
recipes (:mod:`agents.benchmark.recipes`) refuse what the trainer would
(:func:`allfives_benchmarl.task.check_algorithm`) without the ``[benchmarl]`` extra.
"""

from __future__ import annotations

from allfives_env.core.rules import Rules
from allfives_env.envs.settings import EnvConfigError

GROUP = "players"
"""The one agent group of a table where each plays for himself (BenchMARL trains one policy
per group)."""
TEAM_ALGORITHMS = ("qmix", "vdn")
"""BenchMARL's algorithms that learn one value for their group's summed reward."""


def seat_groups(rules: Rules, teams: bool | None = None) -> dict[str, list[int]]:
    """The agent groups of ``rules``' seats (see the module docstring): one per side in
    partnerships (``teams`` ``None`` or ``True``), else ``{"players": every seat}``.

    Raises:
        EnvConfigError: for ``teams=True`` at a table without partnerships.
    """
    n, sides = rules.num_players, rules.num_sides
    if teams and sides == n:
        raise EnvConfigError(
            f"teams=True needs partnerships, and {rules.describe()} has none: each seat is "
            "its own side"
        )
    if sides == n or teams is False:
        return {GROUP: list(range(n))}
    return {f"team_{k}": [s for s in range(n) if rules.side_of(s) == k] for k in range(sides)}


def groups_hold_opponents(groups: dict[str, list[int]], rules: Rules) -> list[str]:
    """The groups that hold seats of more than one side: their summed reward is a margin
    between opponents, not something the group can maximise together."""
    return [g for g, seats in groups.items() if len({rules.side_of(s) for s in seats}) > 1]


def summed_over_opponents(algorithm: str, rules: Rules, teams: bool | None = None) -> str | None:
    """The rule for QMIX and VDN (:data:`TEAM_ALGORITHMS`, in any case): the first group of
    ``rules``' seats (:func:`seat_groups` with ``teams``) that holds opponents, whose summed
    reward, the one thing ``algorithm`` learns, is zero; ``None`` where every group is a team,
    or for any other algorithm (its groups are not asked for).

    Raises:
        EnvConfigError: as :func:`seat_groups`.
    """
    if algorithm.lower() not in TEAM_ALGORITHMS:
        return None
    bad = groups_hold_opponents(seat_groups(rules, teams), rules)
    return bad[0] if bad else None
