"""Running the benchmark: an agent's matches against the fixed opponents in every setting it
can play, its rating, and the best response's win rate against it.

The numbers depend on the agent and the protocol only: the deals are seeded by the protocol,
the evaluator gives the same results for any process count, and the best responses train
single-threaded from the protocol's seeds, so ``--processes`` changes the time, never a number.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from agents.benchmark.protocol import Protocol, Setting, is_search
from agents.benchmark.rating import Match, fit_reference, rate_agent
from agents.eval.match import EvalError, agent_of
from agents.eval.results import _rules_json
from agents.eval.tournament import check_specs, evaluate, labels_of

TRAINER = "agents.training.selfplay"
"""The trainer that the best responses use (what ``train.py`` runs; the ``[train]`` extra)."""


def plays(spec: str, setting: Setting) -> str | None:
    """None if the agent can play ``setting``, else why not (a checkpoint of other rules)."""
    check = getattr(agent_of(spec), "check_rules", None)
    if check is None:
        return None
    try:
        check(setting.rules())
    except (EvalError, ValueError) as e:
        return str(e)
    return None


def play_setting(
    spec: str, label: str, setting: Setting, protocol: Protocol, processes: int, progress: bool
) -> tuple[dict[str, Any], list[Match]]:
    """The agent against every fixed opponent in ``setting``: results and rated matches."""
    rules = setting.rules()
    k = rules.num_sides
    out: dict[str, Any] = {}
    matches: list[Match] = []
    for opponent in protocol.opponents:
        if opponent == spec:  # a mirror match says nothing about the agent
            out[opponent] = {"skipped": "the agent itself"}
            continue
        ev = evaluate(
            rules, [spec] + [opponent] * (k - 1), protocol.deals_against(opponent, spec) * k,
            protocol.seed_of(setting, opponent), processes, progress,
        )  # fmt: skip
        me = ev.agents[0]
        them = ev.agents[1]
        out[opponent] = {
            "matches": ev.matches,
            "win_rate": me.wins.win_rate.value,
            "win_rate_ci": [me.wins.win_rate.low, me.wins.win_rate.high],
            "points_per_hand": me.points_per_hand.value,
            "points_per_hand_ci": [me.points_per_hand.low, me.points_per_hand.high],
            "opponent_points_per_hand": them.points_per_hand.value,
        }
        for m, r in enumerate(ev.results):
            matches.append((label, opponent, r.scores, r.winners, m % k))
    return out, matches


def best_response_command(
    spec: str, setting: Setting, protocol: Protocol, runs: Path, processes: int
) -> list[str]:
    """The command (``train.py``'s trainer, as ``python -m``) that trains the best response to
    ``spec`` in ``setting``."""
    br = protocol.best_response
    cmd = [
        sys.executable, "-m", TRAINER, "--runs", str(runs), "--name", "best_response",
        "--preset", setting.preset, "--num_players", str(setting.num_players),
        "--baselines", spec, "--eval_opponents", spec,
        "--imitation_samples", str(br.imitation_samples),
        "--total_timesteps", str(br.total_timesteps),
        "--eval_every", str(br.total_timesteps),
        "--final_eval_matches", str(br.final_eval_matches),
        "--seed", str(protocol.seed_of(setting, "best_response")),
        "--eval_processes", str(processes), "--torch_threads", "1",
        "--no_progress", *br.extra,
    ]  # fmt: skip
    if setting.partnerships is not None:
        cmd += ["--partnerships", str(setting.partnerships)]
    return cmd


def best_response(
    spec: str, setting: Setting, protocol: Protocol, processes: int
) -> dict[str, Any]:
    """Train the protocol's best response to ``spec`` in ``setting``; its final win rate.

    Raises:
        EvalError: if the training fails.
    """
    with tempfile.TemporaryDirectory(prefix="allfives-br-") as tmp:
        cmd = best_response_command(spec, setting, protocol, Path(tmp), processes)
        t0 = time.perf_counter()
        env = dict(os.environ, PYTHONHASHSEED="0")
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            raise EvalError(f"the best response to {spec!r} in {setting.name} failed: {tail}")
        report = json.loads((Path(tmp) / "best_response" / "report.json").read_text())
    final = report["final_eval"][spec]
    return {
        "win_rate": final["win_rate"],
        "win_rate_ci": final["ci95"],
        "matches": final["matches"],
        "budget": protocol.best_response.describe(),
        "seconds": round(time.perf_counter() - t0, 1),
    }


def exploitability_skipped(spec: str) -> str | None:
    """Why the best response is not trained against ``spec`` (None: it is)."""
    if is_search(spec):
        return (
            "not measured for search agents: the best response meets the agent at every move "
            "it learns from, and the budget's 300,000 moves at 20 to 70 ms each take two to "
            "six hours per setting here (three times that in pagat-4p), against about two "
            "minutes for an agent that plays compiled"
        )
    return None


Ratings = dict[str, dict[str, tuple[float, float]]]
"""Per setting, each fixed opponent's OpenSkill ``(mu, sigma)``."""


def reference_file(protocol: Protocol) -> Path:
    """Where the package keeps the fixed opponents' ratings of ``protocol``."""
    slug = protocol.name.replace("/", "-")
    return Path(__file__).resolve().parent / f"reference-{slug}.json"


def shipped_reference(protocol: Protocol) -> Ratings | None:
    """The fixed opponents' ratings shipped for ``protocol``, if any."""
    path = reference_file(protocol)
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    return {s: {k: (v[0], v[1]) for k, v in r.items()} for s, r in data["ratings"].items()}


def play_agent(
    spec: str,
    protocol: Protocol,
    processes: int = 1,
    progress: bool = False,
    exploitability: bool = True,
    note: Callable[[str], None] = lambda _: None,
) -> tuple[dict[str, Any], dict[str, list[Match]]]:
    """Play ``spec`` under ``protocol`` (matches and best responses, no ratings yet): the
    result as a JSON-ready dict and the rated matches of each setting.

    Raises:
        UnknownAgentError: for a spec the registry does not know.
        EvalError: for an agent that cannot be made or a best response that fails.
    """
    check_specs([spec])
    (label,) = labels_of([spec])
    settings: dict[str, Any] = {}
    matches: dict[str, list[Match]] = {}
    for setting in protocol.settings:
        entry: dict[str, Any] = {"rules": _rules_json(setting.rules())}
        why = plays(spec, setting)
        if why is not None:
            settings[setting.name] = {**entry, "skipped": why}
            continue
        note(f"{setting.name}: {label} v {', '.join(protocol.opponents)}")
        opponents, matches[setting.name] = play_setting(
            spec, label, setting, protocol, processes, progress
        )
        settings[setting.name] = {**entry, "opponents": opponents}
    played = [s for s in protocol.settings if "skipped" not in settings[s.name]]
    why_not = exploitability_skipped(spec) if exploitability else "not asked for"
    if why_not is not None:
        for s in played:
            settings[s.name]["exploitability"] = {"skipped": why_not}
    else:
        note(f"best responses: {', '.join(s.name for s in played)}")
        workers = max(1, min(processes, len(played)))
        with ThreadPoolExecutor(workers) as pool:  # each is a single-threaded subprocess
            found = list(pool.map(lambda s: best_response(spec, s, protocol, 1), played))
        for s, br in zip(played, found, strict=True):
            settings[s.name]["exploitability"] = br
    result = {
        "format": protocol.name,
        "agent": {"spec": spec, "label": label},
        "opponents": list(protocol.opponents),
        "deals": {o: protocol.deals_against(o, spec) for o in protocol.opponents},
        "settings": settings,
    }
    return result, matches


def add_ratings(
    result: dict[str, Any], matches: dict[str, list[Match]], reference: Ratings
) -> dict[str, Any]:
    """``result`` with each played setting's rating against the frozen ``reference``."""
    for name, rated in matches.items():
        mu, sigma = rate_agent(rated, reference[name])
        result["settings"][name]["rating"] = {"mu": mu, "sigma": sigma}
    result["rating_model"] = "openskill.models.PlackettLuce (mu, sigma; prior 25, 25/3)"
    result["reference_ratings"] = {
        s: {k: list(v) for k, v in r.items()} for s, r in reference.items()
    }
    return result


def play_reference(
    protocol: Protocol,
    processes: int,
    progress: bool,
    exploitability: bool = False,
    note: Callable[[str], None] = lambda _: None,
) -> tuple[Ratings, list[dict[str, Any]]]:
    """Benchmark the fixed opponents themselves and fit their ratings on those matches (each
    against each); their results, rated against that reference, come back too."""
    played = [
        play_agent(o, protocol, processes, progress, exploitability, note)
        for o in protocol.opponents
    ]
    reference: Ratings = {}
    for setting in protocol.settings:
        pooled = [m for _, matches in played for m in matches.get(setting.name, [])]
        reference[setting.name] = fit_reference(pooled)
    return reference, [add_ratings(r, m, reference) for r, m in played]


def benchmark(
    spec: str,
    protocol: Protocol,
    processes: int = 1,
    progress: bool = False,
    exploitability: bool = True,
    note: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    """The benchmark of ``spec`` under ``protocol``, as a JSON-ready dict: its matches, best
    responses and ratings against the protocol's reference (the shipped one, or, where none
    is shipped, the fixed opponents played now).

    Raises:
        UnknownAgentError: for a spec the registry does not know.
        EvalError: for an agent that cannot be made or a best response that fails.
    """
    result, matches = play_agent(spec, protocol, processes, progress, exploitability, note)
    reference = shipped_reference(protocol)
    if reference is None:
        reference = play_reference(protocol, processes, progress)[0]
    return add_ratings(result, matches, reference)


def result_numbers(result: dict[str, Any]) -> Any:
    """``result`` without its timings (what must not depend on the process count)."""
    if isinstance(result, dict):
        return {k: result_numbers(v) for k, v in result.items() if k != "seconds"}
    if isinstance(result, list):
        return [result_numbers(v) for v in result]
    return result
