"""Reports of evaluations: readable tables, JSON files and PNG charts.

:func:`table` prints an :class:`~agents.eval.results.Evaluation` or a
:class:`~agents.eval.results.League`; :func:`write_json` writes its ``to_json()``;
:func:`write_png` charts it (matplotlib, Agg backend, pyplot untouched).
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.eval.results import (
    ELO_ANCHOR_RATING,
    AgentStats,
    Evaluation,
    League,
    SeatStats,
    WinStats,
)
from agents.eval.stats import Estimate
from agents.files import write_output

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def table(result: Evaluation | League) -> str:
    """A readable report of ``result``."""
    return evaluation_table(result) if isinstance(result, Evaluation) else league_table(result)


def evaluation_table(ev: Evaluation) -> str:
    """A readable report."""
    title = " v ".join(a.label for a in ev.agents)
    lines = [
        f"{title} — {ev.rules.describe()} — {ev.matches} matches "
        f"({ev.deals} deals × {ev.rotations} seatings), seed {ev.seed}",
        "",
        f"{'agent':<{_w(ev.agents)}}  {'win rate':>8}  {'95% CI':<16}  {'points/hand':>11}  95% CI",
    ]
    for a in ev.agents:
        p = a.points_per_hand
        lines.append(
            f"{a.label:<{_w(ev.agents)}}  {_pct(a.wins.win_rate.value):>8}  "
            f"{_ci_pct(a.wins.win_rate):<16}  {p.value:>11.2f}  [{p.low:.2f}, {p.high:.2f}]"
        )
    return "\n".join([*lines, "", *_footer(ev)])


def league_table(lg: League) -> str:
    """A readable report: the cross-play matrix, then the ratings."""
    labels = [a.label for a in lg.agents]
    w = max(8, *(len(x) for x in labels))
    lines = [
        f"league — {lg.rules.describe()} — {lg.matches_per_pair} matches per pair "
        f"({lg.deals_per_pair} deals × {lg.rotations} seatings), seed {lg.seed}",
        "",
        "win rate of row v column",
        " " * w + "".join(f"  {x:>{w}}" for x in labels),
    ]
    for label, row in zip(labels, lg.matrix, strict=True):
        cells = "".join(f"  {'—' if c is None else _pct(c.wins.win_rate.value):>{w}}" for c in row)
        lines.append(f"{label:<{w}}{cells}")
    lines += ["", f"{'rating':>6}  {'95% CI':<14}  {'win rate':>8}  agent"]
    order = sorted(range(len(lg.agents)), key=lambda i: -lg.agents[i].rating.value)
    for i in order:
        a = lg.agents[i]
        ci = "(anchor)" if i == lg.anchor else f"[{a.rating.low:.0f}, {a.rating.high:.0f}]"
        lines.append(
            f"{a.rating.value:>6.0f}  {ci:<14}  {_pct(a.wins.win_rate.value):>8}  {a.label}"
        )
    return "\n".join([*lines, "", *_footer(lg)])


def _footer(r: Evaluation | League) -> list[str]:
    """The seat effects, then the hands, moves and shared wins per match."""
    return [
        *_seat_lines(r.seats, r.first_leader),
        f"{r.hands_per_match:.1f} hands and {r.moves_per_match:.0f} moves per match; "
        f"{r.shared_wins} shared wins",
    ]


def _w(agents: Sequence[AgentStats]) -> int:
    return max(5, *(len(a.label) for a in agents))


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _ci_pct(e: Estimate) -> str:
    return f"[{_pct(e.low)}, {_pct(e.high)}]"


def _seat_name(seats: Sequence[int]) -> str:
    return ("seats " if len(seats) > 1 else "seat ") + "+".join(map(str, seats))


def _seat_lines(seats: Sequence[SeatStats], first: WinStats) -> list[str]:
    lines = ["seat effects (win rate of whoever sits there)"]
    for s in seats:
        lines.append(
            f"  {_seat_name(s.seats):<20}{_pct(s.wins.win_rate.value):>7}  "
            f"{_ci_pct(s.wins.win_rate)}"
        )
    lines.append(
        f"  {'first leader side':<20}{_pct(first.win_rate.value):>7}  {_ci_pct(first.win_rate)}"
    )
    return lines


def write_json(result: Evaluation | League, path: str | Path, option: str = "--json") -> None:
    """Write ``result.to_json()`` to ``path`` whole (indented, ``nan`` as ``null``).

    Raises:
        OutputFileError: if it cannot be written (named as ``option``).
    """
    text = json.dumps(result.to_json(), indent=2, allow_nan=False) + "\n"
    write_output(path, text.encode("utf-8"), option)


def write_png(result: Evaluation | League, path: str | Path, option: str = "--png") -> None:
    """Chart ``result`` as a PNG, written whole: win rates with 95% error bars, or a league's
    cross-play heatmap and ratings. Needs matplotlib (drawn with its Agg backend, pyplot
    untouched). The format is PNG whatever the suffix.

    Raises:
        OutputFileError: if it cannot be written (named as ``option``).
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 4.8), layout="constrained")
    FigureCanvasAgg(fig)
    if isinstance(result, Evaluation):
        _plot_evaluation(fig, result)
    else:
        _plot_league(fig, result)
    buf = io.BytesIO()
    fig.savefig(buf, dpi=100, format="png")
    write_output(path, buf.getvalue(), option)


def _bars(ax: Any, names: Sequence[str], rates: Sequence[Estimate], color: str) -> None:
    values = [e.value for e in rates]
    err = [[e.value - e.low for e in rates], [e.high - e.value for e in rates]]
    ax.bar(range(len(values)), values, yerr=err, capsize=6, color=color)
    ax.set_xticks(range(len(values)), names)
    for x, e in enumerate(rates):
        ax.text(x, e.high + 0.02, _pct(e.value), ha="center", va="bottom", fontsize=9)
    ax.set_ylim(0, 1.1)


def _plot_evaluation(fig: Figure, ev: Evaluation) -> None:
    left, right = fig.subplots(1, 2, width_ratios=[max(2, len(ev.agents)), len(ev.seats) + 1])
    _bars(left, [a.label for a in ev.agents], [a.wins.win_rate for a in ev.agents], "tab:blue")
    left.axhline(1 / ev.rotations, color="grey", lw=0.8, ls="--")
    left.set_ylabel("match win rate (95% CI)")
    left.set_title(f"{ev.rules.describe()}: {ev.matches} duplicate matches, seed {ev.seed}")
    seat_rates = [s.wins.win_rate for s in ev.seats] + [ev.first_leader.win_rate]
    names = [_seat_name(s.seats) for s in ev.seats] + ["first\nleader"]
    _bars(right, names, seat_rates, "tab:gray")
    right.axhline(1 / ev.rotations, color="grey", lw=0.8, ls="--")
    right.set_title("seat effects")


def _plot_league(fig: Figure, lg: League) -> None:
    import numpy as np

    left, right = fig.subplots(1, 2, width_ratios=[3, 2])
    labels = [a.label for a in lg.agents]
    m = len(labels)
    grid = np.full((m, m), np.nan)
    for i, row in enumerate(lg.matrix):
        for j, c in enumerate(row):
            if c is not None:
                grid[i, j] = c.wins.win_rate.value
    image = left.imshow(grid, cmap="RdBu", vmin=0, vmax=1)
    for i, row in enumerate(lg.matrix):
        for j, c in enumerate(row):
            if c is not None:
                e = c.wins.win_rate
                text = f"{_pct(e.value)}\n[{100 * e.low:.0f}, {100 * e.high:.0f}]"
                ink = "white" if abs(e.value - 0.5) > 0.3 else "black"
                left.text(j, i, text, ha="center", va="center", fontsize=8, color=ink)
    left.set_xticks(range(m), labels, rotation=30, ha="right")
    left.set_yticks(range(m), labels)
    left.set_title(f"win rate of row v column ({lg.matches_per_pair} matches per pair)")
    fig.colorbar(image, ax=left, shrink=0.8)
    order = sorted(range(m), key=lambda i: lg.agents[i].rating.value)
    r = [lg.agents[i].rating for i in order]
    right.errorbar(
        [e.value for e in r],
        range(m),
        xerr=[[e.value - e.low for e in r], [e.high - e.value for e in r]],
        fmt="o",
        capsize=4,
    )
    for y, e in enumerate(r):
        right.annotate(
            f"{e.value:.0f}",
            (e.value, y),
            (0, 6),
            textcoords="offset points",
            ha="center",
            va="bottom",
            fontsize=9,
        )
    right.set_ylim(-0.5, m - 0.5)
    right.set_yticks(range(m), [labels[i] for i in order])
    right.set_xlabel(f"Elo (anchor {labels[lg.anchor]} = {ELO_ANCHOR_RATING:.0f}; 95% CI)")
    right.set_title(lg.rules.describe())
