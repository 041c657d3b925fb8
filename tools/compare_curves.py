"""Draw the learning curves of several training runs in one figure (for the README).

    python tools/compare_curves.py OUT.png LABEL=runs/a/report.json LABEL=runs/b/report.json \
        [--opponent heuristic] [--opponent greedy]

Each run's ``report.json`` (written by ``train.py``) holds its periodic evaluations: the match
win rate against each opponent, with its 95% interval, at each number of learner steps.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="the PNG to write")
    parser.add_argument("runs", nargs="+", metavar="LABEL=REPORT", help="a label and a report")
    parser.add_argument(
        "--opponent", action="append", help="opponents to draw (default: heuristic, greedy)"
    )
    args = parser.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    opponents = args.opponent or ["heuristic", "greedy"]
    fig, axes = plt.subplots(1, len(opponents), figsize=(6 * len(opponents), 4), squeeze=False)
    for ax, spec in zip(axes[0], opponents, strict=True):
        for item in args.runs:
            label, _, path = item.partition("=")
            history = json.loads(Path(path).read_text())["history"]
            pts = [(h["step"], h["results"][spec]) for h in history if spec in h["results"]]
            x = [p[0] for p in pts]
            ax.plot(x, [p[1]["win_rate"] for p in pts], marker="o", label=label)
            low = [p[1]["ci95"][0] for p in pts]
            high = [p[1]["ci95"][1] for p in pts]
            ax.fill_between(x, low, high, alpha=0.15)
        ax.axhline(0.5, color="grey", lw=0.8, ls="--")
        ax.set_title(f"match win rate v {spec} (95% intervals)")
        ax.set_xlabel("learner steps")
        ax.set_ylim(0, 1)
        ax.legend()
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)


if __name__ == "__main__":
    main()
