"""``allfives solve`` (CFR+ on a small set's whole tree, the average policy saved as an agent),
``allfives exploitability`` (exact best responses and NashConv of agents) and ``allfives
tree-size`` (a game's histories, information states and deals), for two-player hands of a small
set (:mod:`agents.exact`)."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

from allfives_cli.options import add_force_option, positive_int
from allfives_env.core.rules import PRESETS, Rules
from allfives_env.envs.settings import rules_of


def _add_game_options(p: argparse.ArgumentParser, players: bool = False) -> None:
    p.add_argument("--preset", choices=PRESETS, default="pagat", help="rules (default pagat)")
    if players:
        p.add_argument(
            "--players", type=int, choices=(2, 3, 4), default=2, help="2, 3 or 4 (default 2)"
        )
    p.add_argument(
        "--max_pip", type=int, default=2, help="the set: double-N, N from 2 to 6 (default 2)"
    )
    p.add_argument(
        "--hand_size", type=int, default=2, help="tiles dealt to each player (default 2)"
    )
    p.add_argument("--target", type=int, help="the target (default: the preset's)")
    p.add_argument(
        "--max_nodes",
        type=positive_int,
        default=None,
        help="refuse a tree of more nodes than this, before building it (default 40,000,000)",
    )


def _rules(args: argparse.Namespace) -> Rules:
    """The rules of the game options (:func:`rules_of`; only tree-size takes ``--players``).

    Raises:
        RulesError: for rules the engine refuses.
    """
    return rules_of(
        args.preset,
        getattr(args, "players", 2),
        max_pip=args.max_pip,
        hand_size=args.hand_size,
        target=args.target,
    )


def add_solve_parsers(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``solve``, ``exploitability`` and ``tree-size`` to ``subparsers``."""
    p = subparsers.add_parser(
        "solve",
        help="CFR+ on a small set's whole game tree; the average policy is saved as an agent",
        description="Build the whole tree of one two-player hand of a small set, run CFR+ on "
        "it and measure the average policy's exact NashConv as it goes. The policy file plays "
        "as the agent exact:FILE.",
    )
    _add_game_options(p)
    p.add_argument("--iterations", type=positive_int, default=1000, help="(default 1000)")
    p.add_argument(
        "--measure_every", type=positive_int, default=50,
        help="measure NashConv every this many iterations (default 50)",
    )  # fmt: skip
    p.add_argument(
        "--stop_below", type=float, default=0.0,
        help="stop once NashConv is below this (default 0: run every iteration)",
    )  # fmt: skip
    p.add_argument("--out", required=True, help="the policy file to write (.npz)")
    p.add_argument("--curve", help="also write the NashConv curve here (JSON)")
    add_force_option(p, "the --out and --curve files")

    p = subparsers.add_parser(
        "exploitability",
        help="exact best responses and NashConv of agents on a small set's game",
    )
    p.add_argument("agents", nargs="+", metavar="AGENT", help="agent specs, one per argument")
    p.add_argument(
        "--sample",
        action="store_true",
        help="read a checkpoint's policy as it samples (the softmax over the legal actions) "
        "instead of its most likely action",
    )
    _add_game_options(p)

    p = subparsers.add_parser(
        "tree-size", help="histories, information states and deals of a small set's game"
    )
    _add_game_options(p, players=True)
    p.add_argument(
        "--estimate", action="store_true", help="only estimate the node count (no tree built)"
    )


def _tree(args: argparse.Namespace, rules: Rules) -> Any:
    from agents.exact.tree import DEFAULT_MAX_NODES, build_tree

    return build_tree(rules, args.max_nodes or DEFAULT_MAX_NODES)


def _sizes(tree: Any, seconds: float) -> dict[str, Any]:
    return {
        "game": tree.rules.describe(),
        "histories": tree.num_nodes,
        "infosets": [tree.infosets_of(p) for p in range(tree.rules.num_players)],
        "deals": tree.deals,
        "utility_range": tree.utility_range,
        "build_seconds": round(seconds, 3),
    }


def run_solve_command(args: argparse.Namespace, out: Callable[[str], None] = print) -> int:
    """Run ``allfives solve``, ``exploitability`` or ``tree-size``."""
    from agents.exact.solver import Solver
    from agents.exact.tree import check_rules, estimate_nodes
    from agents.files import check_output, check_outputs

    rules = _rules(args)
    if args.command != "tree-size":
        check_rules(rules)
    if args.command == "tree-size" and args.estimate:
        out(json.dumps({"game": rules.describe(), "estimated_histories": estimate_nodes(rules)}))
        return 0
    if args.command == "solve":
        check_output(args.out, "--out", force=args.force, suffixes=(".npz",))
        if args.curve:
            check_output(args.curve, "--curve", force=args.force)
            check_outputs([(args.out, "--out"), (args.curve, "--curve")])
    agents = []
    if args.command == "exploitability":
        from agents.exact.policy import measured_agent
        from allfives_cli.options import agent_specs

        agents = [
            (spec, measured_agent(spec, rules, args.sample))
            for spec in agent_specs("AGENT", args.agents)
        ]
    start = time.perf_counter()
    tree = _tree(args, rules)
    sizes = _sizes(tree, time.perf_counter() - start)
    if args.command == "tree-size":
        out(json.dumps(sizes))
        return 0
    solver = Solver(tree)
    if args.command == "exploitability":
        from agents.exact.policy import policy_of_agent

        for spec, agent in agents:
            policy = policy_of_agent(tree, agent)
            br0, br1 = solver.best_response(policy, 0)[0], solver.best_response(policy, 1)[0]
            row = {
                "agent": spec,
                "sampled_checkpoint": bool(getattr(agent, "sample", False)),
                "value": solver.value(policy),
                "best_response": [br0, br1],
                "nash_conv": br0 + br1,
                "nash_conv_of_range": (br0 + br1) / tree.utility_range,
            }
            out(json.dumps({**row, **sizes}))
        return 0
    from agents.exact.policy import policy_bytes
    from agents.files import write_output

    def progress(point: Any) -> None:
        out(
            f"iteration {point.iteration:,}: NashConv {point.nash_conv:.6g} "
            f"({point.nash_conv / tree.utility_range:.4%} of the range) after "
            f"{point.seconds:.1f} s"
        )

    policy, curve = solver.cfr_plus(
        args.iterations, args.measure_every, progress, stop_below=args.stop_below
    )
    about = {
        "solver": "cfr+",
        "iterations": curve[-1].iteration,
        "nash_conv": curve[-1].nash_conv,
        **sizes,
    }
    write_output(args.out, policy_bytes(tree, policy, about), "--out")
    if args.curve:
        points = [vars(p) for p in curve]
        text = json.dumps({**about, "curve": points}, indent=1) + "\n"
        write_output(args.curve, text.encode("utf-8"), "--curve")
    out(f"wrote {args.out}: play it as exact:{args.out}")
    return 0
