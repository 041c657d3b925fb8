"""Draw the learning curves of several training runs in one figure (for the README).

    python tools/compare_curves.py OUT.png LABEL=runs/a/report.json LABEL=runs/b/report.json \
        [--opponent heuristic] [--opponent greedy] [--force]

Each run's ``report.json`` (written by ``train.py``) holds its periodic evaluations: the match
win rate against each opponent, with its 95% interval, at each number of learner steps. The
reports are read strictly and checked before anything is drawn; ``OUT.png`` must end in
``.png`` and is not replaced without ``--force``.
"""

from __future__ import annotations

import argparse
import io
import math
from pathlib import Path

Curve = list[tuple[float, float, float, float]]
"""``(step, win rate, low, high)`` per evaluation."""


def _rate(x: object) -> bool:
    return type(x) in (int, float) and math.isfinite(x) and 0 <= x <= 1  # type: ignore[arg-type,operator]


def read_curve(path: str, opponent: str) -> Curve:
    """The curve against ``opponent`` in the report at ``path``.

    Raises:
        ValueError: naming the file and the field, if it cannot be read, is not strict JSON
            (a key given twice, ``NaN``) or is not a report's ``history``.
    """
    from allfives_env.core import strict_json

    try:
        data = strict_json.loads(Path(path).read_bytes().decode("utf-8"))
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e.strerror or e}") from None
    except (UnicodeDecodeError, ValueError) as e:
        raise ValueError(f"{path} is not a report: {e}") from None
    history = data.get("history") if isinstance(data, dict) else None
    if not isinstance(history, list):
        raise ValueError(f"{path} is not a report: no 'history' list")
    out: Curve = []
    for i, h in enumerate(history):
        at = f"{path}: history[{i}]"
        if not isinstance(h, dict) or not isinstance(h.get("results"), dict):
            raise ValueError(f"{at} must be an object with 'step' and 'results'")
        step, r = h.get("step"), h["results"].get(opponent)
        if r is None:
            continue
        if type(step) is not int or not isinstance(r, dict):
            raise ValueError(
                f"{at}: 'step' must be a whole number, results[{opponent!r}] an object"
            )
        ci = r.get("ci95")
        if not (_rate(r.get("win_rate")) and isinstance(ci, list) and len(ci) == 2
                and all(_rate(x) for x in ci)):  # fmt: skip
            raise ValueError(f"{at}: results[{opponent!r}] needs a win_rate and ci95 in [0, 1]")
        out.append((step, r["win_rate"], ci[0], ci[1]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="the PNG to write")
    parser.add_argument("runs", nargs="+", metavar="LABEL=REPORT", help="a label and a report")
    parser.add_argument(
        "--opponent", action="append", help="opponents to draw (default: heuristic, greedy)"
    )
    parser.add_argument("--force", action="store_true", help="replace OUT if it exists")
    args = parser.parse_args()
    from agents.errors import AgentError
    from agents.files import check_output, write_output

    opponents = args.opponent or ["heuristic", "greedy"]
    curves: dict[str, list[tuple[str, Curve]]] = {spec: [] for spec in opponents}
    try:  # every mistake is one line, before anything is drawn
        check_output(args.out, "OUT", force=args.force, suffixes=(".png",))
        for item in args.runs:
            label, eq, path = item.partition("=")
            if not eq or not label or not path:
                raise ValueError(f"{item!r} is not LABEL=REPORT")
            for spec in opponents:
                curves[spec].append((label, read_curve(path, spec)))
    except (AgentError, ValueError) as e:
        parser.error(str(e))
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(opponents), figsize=(6 * len(opponents), 4), squeeze=False)
    for ax, spec in zip(axes[0], opponents, strict=True):
        for label, pts in curves[spec]:
            x = [p[0] for p in pts]
            ax.plot(x, [p[1] for p in pts], marker="o", label=label)
            ax.fill_between(x, [p[2] for p in pts], [p[3] for p in pts], alpha=0.15)
        ax.axhline(0.5, color="grey", lw=0.8, ls="--")
        ax.set_title(f"match win rate v {spec} (95% intervals)")
        ax.set_xlabel("learner steps")
        ax.set_ylim(0, 1)
        ax.legend()
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, dpi=100, format="png")
    try:
        write_output(args.out, buf.getvalue(), "OUT")
    except AgentError as e:
        parser.exit(2, f"{parser.prog}: error: {e}\n")


if __name__ == "__main__":
    main()
