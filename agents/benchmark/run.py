"""Running the benchmark: an agent's matches against the fixed opponents in every setting it
can play, its rating, and the best response's win rate against it.

The numbers depend on the agent and the protocol only: the deals are seeded by the protocol,
the evaluator gives the same results for any process count, and the best responses train
single-threaded from the protocol's seeds, so ``--processes`` changes the time, never a number.
"""

from __future__ import annotations

import math
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
from agents.eval.results import Evaluation, _rules_json
from agents.eval.runner import progress_bar
from agents.eval.tournament import check_specs, evaluate, labels_of
from allfives_env.core import strict_json
from allfives_env.core.rules import Rules

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


def play_against(
    rules: Rules,
    spec: str,
    opponent: str,
    deals: int,
    seed: int,
    processes: int,
    progress: bool = False,
    tick: Callable[[], object] | None = None,
) -> tuple[dict[str, Any], Evaluation]:
    """The agent ``spec`` at one side of ``rules``' table and ``opponent`` at every other, over
    ``deals`` duplicate deals from ``seed`` (each dealt once a side: ``deals·k`` matches,
    :func:`agents.eval.tournament.evaluate`, with its ``progress`` and ``tick``). Returns the
    agent's numbers, ``{"matches", "win_rate", "win_rate_ci", "points_per_hand"}``, and the
    whole evaluation (the agent is its ``agents[0]``)."""
    k = rules.num_sides
    ev = evaluate(rules, [spec] + [opponent] * (k - 1), deals * k, seed, processes, progress, tick)
    me = ev.agents[0]
    numbers = {
        "matches": ev.matches,
        "win_rate": me.wins.win_rate.value,
        "win_rate_ci": [me.wins.win_rate.low, me.wins.win_rate.high],
        "points_per_hand": me.points_per_hand.value,
    }
    return numbers, ev


def play_setting(
    spec: str,
    label: str,
    setting: Setting,
    protocol: Protocol,
    processes: int,
    progress: bool,
    bar: Any = None,
) -> tuple[dict[str, Any], list[Match]]:
    """The agent against every fixed opponent in ``setting``: results and rated matches.

    With ``bar`` (a tqdm bar over the whole benchmark), it is told of every match and says
    which opponent is playing, and no bar of its own is shown.
    """
    rules = setting.rules()
    k = rules.num_sides
    out: dict[str, Any] = {}
    matches: list[Match] = []
    for opponent in protocol.opponents:
        if opponent == spec:  # a mirror match says nothing about the agent
            out[opponent] = {"skipped": "the agent itself"}
            continue
        if bar is not None:
            bar.set_description(f"{label}: {setting.name} v {opponent}")
        numbers, ev = play_against(
            rules, spec, opponent, protocol.deals_against(opponent, spec),
            protocol.seed_of(setting, opponent), processes, progress and bar is None,
            None if bar is None else bar.update,
        )  # fmt: skip
        me = ev.agents[0]
        out[opponent] = {
            **numbers,
            "points_per_hand_ci": [me.points_per_hand.low, me.points_per_hand.high],
            "opponent_points_per_hand": ev.agents[1].points_per_hand.value,
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
        path = Path(tmp) / "best_response" / "report.json"
        try:
            final = strict_json.loads(path.read_text(encoding="utf-8"))["final_eval"][spec]
            win_rate, ci95, played = final["win_rate"], list(final["ci95"]), final["matches"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise EvalError(
                f"the best response to {spec!r} in {setting.name} left no final evaluation "
                f"in its report ({type(e).__name__}: {e})"
            ) from None
    return {
        "win_rate": win_rate,
        "win_rate_ci": ci95,
        "matches": played,
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


SEARCH_MATCH_SECONDS = 2.5
"""A rough cost of one match against (or of) a search agent on one core: from 0.6 s in
pagat-4p to 4.4 s in five_up-2p with ``batchsearch:hoard=true`` here."""
MATCH_SECONDS = 0.02
"""A rough cost of one match between fast agents on one core (3 to 40 ms here)."""
BEST_RESPONSE_SECONDS = 150.0
"""A rough cost of one best response against an agent that plays compiled (2 to 3 minutes)."""


def planned_matches(spec: str, protocol: Protocol) -> dict[str, dict[str, int]]:
    """The matches ``spec`` will play under ``protocol``: per setting it can play, per fixed
    opponent (not itself)."""
    out: dict[str, dict[str, int]] = {}
    for setting in protocol.settings:
        if plays(spec, setting) is not None:
            continue
        k = setting.rules().num_sides
        out[setting.name] = {
            o: protocol.deals_against(o, spec) * k for o in protocol.opponents if o != spec
        }
    return out


def estimate(spec: str, protocol: Protocol, processes: int, exploitability: bool) -> str:
    """A rough guess of the benchmark's length for ``spec``, in words: its matches, its best
    responses and about how long they take with ``processes`` (from :data:`MATCH_SECONDS`,
    :data:`SEARCH_MATCH_SECONDS` and :data:`BEST_RESPONSE_SECONDS`)."""
    planned = planned_matches(spec, protocol)
    matches = sum(n for per in planned.values() for n in per.values())
    seconds = sum(
        n * (SEARCH_MATCH_SECONDS if is_search(o) or is_search(spec) else MATCH_SECONDS)
        for per in planned.values()
        for o, n in per.items()
    ) / max(1, processes)
    trained = len(planned) if exploitability and exploitability_skipped(spec) is None else 0
    if trained:
        rounds = -(-trained // max(1, min(processes, trained)))
        seconds += rounds * BEST_RESPONSE_SECONDS
    what = f"{matches:,} matches in {len(planned)} setting{'s' if len(planned) != 1 else ''}"
    if trained:
        what += f" and {trained} best response{'s' if trained != 1 else ''}"
    minutes = max(1, round(seconds / 60))
    workers = f"{processes} process{'es' if processes != 1 else ''}"
    return f"{what}: about {minutes} min with {workers} (a rough guess; the bar shows the rest)"


Ratings = dict[str, dict[str, tuple[float, float]]]
"""Per setting, each fixed opponent's OpenSkill ``(mu, sigma)``."""


def reference_file(protocol: Protocol) -> Path:
    """Where the package keeps the fixed opponents' ratings of ``protocol``."""
    slug = protocol.name.replace("/", "-")
    return Path(__file__).resolve().parent / f"reference-{slug}.json"


def shipped_reference(protocol: Protocol) -> Ratings | None:
    """The fixed opponents' ratings shipped for ``protocol``, if any.

    Raises:
        EvalError: naming the file and the field, if it is not strict JSON or not the
            protocol's reference: ``format`` the protocol's name, ``ratings`` every setting's
            ``[mu, sigma]`` of every fixed opponent, finite numbers, sigma above 0.
    """
    path = reference_file(protocol)
    if not path.is_file():
        return None
    try:
        data = strict_json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise EvalError(f"cannot read the reference ratings {str(path)!r}: {e}") from None
    return read_reference(data, protocol, str(path))


def read_reference(data: Any, protocol: Protocol, where: str) -> Ratings:
    """The ratings of a reference file's decoded JSON ``data`` (from ``where``), checked.

    Raises:
        EvalError: as :func:`shipped_reference`.
    """

    def bad(what: str) -> EvalError:
        return EvalError(
            f"{where} is not the reference of {protocol.name}: {what} (remake it with "
            f"'allfives benchmark --reference --protocol {protocol.name}')"
        )

    if not isinstance(data, dict) or data.get("format") != protocol.name:
        raise bad("its 'format' is not the protocol's name")
    ratings = data.get("ratings")
    if not isinstance(ratings, dict) or set(ratings) != {x.name for x in protocol.settings}:
        raise bad("'ratings' must hold every setting of the protocol")
    out: Ratings = {}
    for name, per in ratings.items():
        if not isinstance(per, dict) or set(per) != set(protocol.opponents):
            raise bad(f"ratings[{name!r}] must hold every fixed opponent")
        out[name] = {}
        for opponent, pair in per.items():
            ok = (
                isinstance(pair, list)
                and len(pair) == 2
                and all(type(x) in (int, float) and math.isfinite(x) for x in pair)
                and pair[1] > 0
            )
            if not ok:
                raise bad(f"ratings[{name!r}][{opponent!r}] must be [mu, sigma], not {pair!r}")
            out[name][opponent] = (float(pair[0]), float(pair[1]))
    return out


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
    note(f"{label} under {protocol.name}: {estimate(spec, protocol, processes, exploitability)}")
    settings: dict[str, Any] = {}
    matches: dict[str, list[Match]] = {}
    total = sum(n for per in planned_matches(spec, protocol).values() for n in per.values())
    bar = progress_bar(total, label) if progress else None
    try:
        for setting in protocol.settings:
            entry: dict[str, Any] = {"rules": _rules_json(setting.rules())}
            why = plays(spec, setting)
            if why is not None:
                settings[setting.name] = {**entry, "skipped": why}
                continue
            opponents, matches[setting.name] = play_setting(
                spec, label, setting, protocol, processes, progress, bar
            )
            settings[setting.name] = {**entry, "opponents": opponents}
    finally:
        if bar is not None:
            bar.close()
    played = [s for s in protocol.settings if "skipped" not in settings[s.name]]
    why_not = exploitability_skipped(spec) if exploitability else "not asked for"
    if why_not is not None:
        for s in played:
            settings[s.name]["exploitability"] = {"skipped": why_not}
    else:
        workers = max(1, min(processes, len(played)))
        rounds = -(-len(played) // workers)
        note(
            f"best responses: {', '.join(s.name for s in played)} (about "
            f"{max(1, round(rounds * BEST_RESPONSE_SECONDS / 60))} min; no bar: each trains "
            "in a process of its own)"
        )
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
