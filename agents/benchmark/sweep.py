"""The sweep: recipes × settings × tracks × tiers × seeds, each run trained, measured and filed.

``allfives sweep`` plans every run first (:func:`plan`: an unknown recipe, a track or tier a
recipe does not offer, too few seeds, are one line before anything runs), then runs them one
after another here, or as Ray tasks on a cluster (``--address``). A run (:func:`run_one`):

1. trains with its recipe's command (:mod:`agents.benchmark.recipes`), its output in
   ``RUN/train.log``, into ``RUN/train/``;
2. reads back the trainer's ``report.json`` (env steps, imitation samples, teacher positions)
   and refuses a run that passed its tier;
3. measures the learning curve: each saved point against the protocol's opponents on
   validation deals (:meth:`TrainingProtocol.validation_seed`);
4. tests the final policy (never a chosen checkpoint) on the evaluation protocol's test deals;
   in an exact setting (the small track), every curve point and the final policy also get
   their exact NashConv (:mod:`agents.benchmark.exact_measure`);
5. writes ``RUN/result.json`` whole: the protocol, track, tier, recipe, framework and its
   version, the exact command, the seed, the samples, wall and CPU time over every attempt at
   training it (:mod:`agents.benchmark.attempts`), the machine, the commit, the libraries,
   the curve and the test (:mod:`agents.benchmark.provenance`).

A run whose ``result.json`` exists is done: a sweep stopped by Ctrl-C goes on where it stopped
when given the same command (``train.py``, ``train_rllib.py`` and BenchMARL's trainer resume
their interrupted run; OpenSpiel's NFSP starts its run again, as does a policy trainer whose
policy was finished but not yet measured). ``RUN`` is ``OUT/SETTING/TIER/TRACK/RECIPE/seedN``.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.benchmark import provenance
from agents.benchmark.attempts import ATTEMPTS, AttemptsError, run_attempt, totals
from agents.benchmark.recipes import Recipe, RecipeError, RunSpec, recipe
from agents.benchmark.training import TRACKS, TrainingProtocol
from agents.eval.match import EvalError
from agents.files import replace_whole
from agents.learned import META_FILE
from allfives_env.core import strict_json

RESULT = "result.json"
FORMAT = "allfives-train-result/1"


class SweepError(EvalError):
    """A run that failed or a sweep that cannot be planned (one line)."""


@dataclass(frozen=True)
class Planned:
    """A run of the sweep and its recipe."""

    recipe: Recipe
    run: RunSpec

    @property
    def result_file(self) -> Path:
        return self.run.folder / RESULT

    def describe(self) -> str:
        r = self.run
        return f"{self.recipe.name} {r.setting.name} {r.tier.name} {r.track} seed {r.seed}"


def plan(
    protocol: TrainingProtocol,
    recipes: Sequence[str],
    settings: Sequence[str],
    tracks: Sequence[str],
    tiers: Sequence[str],
    seeds: Sequence[int],
    out: Path,
) -> list[Planned]:
    """Every run of the sweep, checked before any runs. Fewer seeds than the protocol asks of
    a row may be run (a row is drawn only once it has them all:
    :func:`agents.benchmark.sweep_report.rows`).

    Raises:
        SweepError: for an unknown recipe, setting, track or tier, a recipe that does not offer
            a track or tier asked of it, no seed, or a seed given twice or negative.
    """
    if len(set(seeds)) != len(seeds):
        raise SweepError(f"--seeds gives a seed twice: {list(seeds)}")
    if not seeds:
        raise SweepError("give one or more --seeds")
    if any(s < 0 for s in seeds):
        raise SweepError(f"--seeds must be non-negative, not {list(seeds)}")
    out_plan = []
    for name in settings:
        try:
            setting = protocol.setting(name)
        except KeyError:
            known = ", ".join(s.name for s in protocol.settings)
            raise SweepError(f"unknown setting {name!r} (known: {known})") from None
        for track in tracks:
            if track not in TRACKS:
                raise SweepError(f"unknown track {track!r} (known: {', '.join(TRACKS)})")
            for tier_name in tiers:
                tier = protocol.tiers.get(tier_name)
                if tier is None:
                    raise SweepError(
                        f"unknown tier {tier_name!r} of {protocol.name} (known: "
                        f"{', '.join(protocol.tiers)})"
                    )
                for rname in recipes:
                    try:
                        r = recipe(rname)
                        r.check(setting, track, tier)
                    except RecipeError as e:
                        raise SweepError(str(e)) from None
                    for seed in seeds:
                        folder = out / setting.name / tier.name / track / r.name / f"seed{seed}"
                        spec = RunSpec(protocol, setting, track, tier, seed, folder)
                        out_plan.append(Planned(r, spec))
    return out_plan


def read_result(path: Path) -> dict[str, Any]:
    """A run's result file, read strictly.

    Raises:
        SweepError: naming the file, if it cannot be read or is not a run's result.
    """
    try:
        data = strict_json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise SweepError(f"cannot read the run result {str(path)!r}: {e}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SweepError(f"{str(path)!r} is not a run result of the sweep ({FORMAT})")
    for key in ("protocol", "setting", "tier", "track", "recipe", "seed", "command", "test"):
        if key not in data:
            raise SweepError(f"{str(path)!r}: the run result has no {key!r}")
    return data


def in_checkout(command: Sequence[str], root: Path | None = None) -> list[str]:
    """``command`` with each argument that is a path in the checkout at ``root`` made relative
    to it (``train.py``, ``configs/tabula_rasa.yaml``): the result's commit says which files
    they were, wherever the checkout lay. Without ``root``, the checkout is the folder of the
    command's script where that is an absolute path (as in the files of earlier sweeps)."""
    if root is None:
        script = Path(command[1]) if len(command) > 1 else Path()
        if not (script.is_absolute() and script.suffix == ".py"):
            return list(command)
        root = script.parent
    prefix = f"{root}/"
    return [a.removeprefix(prefix) if a.startswith(prefix) else a for a in command]


def _last_line(log: Path) -> str:
    try:
        lines = [ln for ln in log.read_text(encoding="utf-8", errors="replace").splitlines() if ln]
    except OSError:
        return ""
    return lines[-1] if lines else ""


def _point_spec(folder: Path, agent: str) -> str:
    """A curve point's agent spec (relative to the trainer's folder) made absolute."""
    kind, colon, path = agent.rpartition(":")
    if not colon:
        return str(folder / agent)
    return f"{kind}:{folder / path}"


def _measure(
    run: RunSpec, spec: str, opponent: str, deals: int, seed: int, processes: int
) -> dict[str, Any]:
    """``spec`` against ``opponent`` in the run's setting: the numbers of
    :func:`agents.benchmark.run.play_against`."""
    from agents.benchmark.run import play_against

    return play_against(run.setting.rules(), spec, opponent, deals, seed, processes)[0]


def _exact(run: RunSpec, spec: str) -> dict[str, Any]:
    """``{"exact": ...}``: the policy's exact NashConv where the setting is exact
    (:mod:`agents.benchmark.exact_measure`), else nothing."""
    if not run.setting.exact:
        return {}
    from agents.benchmark.exact_measure import exact_numbers

    return {"exact": exact_numbers(spec, run.setting.rules())}


def train(planned: Planned, log: Callable[[str], None]) -> dict[str, Any]:
    """Run the recipe's trainer for the run (its output in ``RUN/train.log``, its attempts in
    ``RUN/attempts.json``: :mod:`agents.benchmark.attempts`); return the command, the wall and
    CPU seconds over every attempt of the run (:func:`~agents.benchmark.attempts.totals`) and
    the trainer's report.

    Raises:
        SweepError: if the trainer fails (its last line), writes no report, or passes the tier,
            or the run's attempts cannot be read.
    """
    r, run = planned.recipe, planned.run
    run.folder.mkdir(parents=True, exist_ok=True)
    argv = r.command(run)
    trained = r.folder(run)
    # a trainer that cannot resume starts again; so does a policy trainer whose policy was
    # finished but not measured (it refuses a folder that holds one): their time starts anew
    finished = r.policy_trainer and (trained / META_FILE).exists()
    anew = r.restarts or finished
    if anew and trained.exists():
        argv.append("--fresh")
    log_file = run.folder / "train.log"
    log(f"{planned.describe()}: training ({shlex.join(argv[1:])})")
    try:
        code, attempts = run_attempt(argv, log_file, run.folder / ATTEMPTS, fresh=anew)
    except AttemptsError as e:
        raise SweepError(
            f"{planned.describe()}: {e}; the time of its earlier attempts is lost: remove the "
            "file to go on (the run's time then counts from the next attempt)"
        ) from None
    if code != 0:
        raise SweepError(
            f"{planned.describe()}: the trainer exited with status {code}: "
            f"{_last_line(log_file)} (see {log_file})"
        )
    report_file = trained / "report.json"
    try:
        report = strict_json.loads(report_file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise SweepError(f"{planned.describe()}: no readable {report_file}: {e}") from None
    samples = {k: int(report.get(k, 0)) for k in ("env_steps", "imitation_samples")}
    if not run.tier.allows(samples["env_steps"], samples["imitation_samples"]):
        raise SweepError(
            f"{planned.describe()}: {samples['env_steps']:,} env steps and "
            f"{samples['imitation_samples']:,} imitation samples pass the {run.tier.name} tier"
        )
    return {"command": argv, **totals(attempts), "report": report}


def run_one(planned: Planned, processes: int = 1, log: Callable[[str], None] = print) -> dict:  # type: ignore[type-arg]
    """Train, measure and file one run (see the module docstring); return its result (read
    back when it is done already).

    Raises:
        SweepError: as :func:`train`, or a trainer that saved no curve.
    """
    if planned.result_file.exists():
        return read_result(planned.result_file)
    r, run = planned.recipe, planned.run
    p = run.protocol
    trained = train(planned, log)
    report = trained["report"]
    folder = r.folder(run)
    points = report.get("curve") or []
    if not points:
        raise SweepError(f"{planned.describe()}: the trainer saved no learning curve")
    log(f"{planned.describe()}: the learning curve ({len(points)} points) and the test")
    curve = []
    for i, point in enumerate(points):
        spec = _point_spec(folder, str(point["agent"]))
        curve.append(
            {
                "env_steps": int(point["env_steps"]),
                "results": {
                    o: _measure(
                        run, spec, o, p.curve_deals, p.validation_seed(run.setting, o, i),
                        processes,
                    )
                    for o in p.test_opponents
                },
                **_exact(run, spec),
            }
        )  # fmt: skip
    final = _point_spec(folder, str(points[-1]["agent"]))
    test = {
        o: _measure(run, final, o, p.test_deals, p.test_seed(run.setting, o), processes)
        for o in p.test_opponents
    }
    versions = provenance.versions()
    result = {
        "format": FORMAT,
        "protocol": p.name,
        "setting": run.setting.name,
        "tier": run.tier.name,
        "track": run.track,
        "recipe": r.name,
        "label": r.label,
        "algorithm": r.algorithm,
        "framework": r.framework,
        "framework_version": versions.get(r.framework),
        "observation": r.observation,
        "seed": run.seed,
        "command": in_checkout(
            [Path(trained["command"][0]).name, *trained["command"][1:]], provenance.ROOT
        ),
        "env_steps": int(report.get("env_steps", 0)),
        "imitation_samples": int(report.get("imitation_samples", 0)),
        "teacher_positions": int(report.get("teacher_positions", 0)),
        "wall_seconds": trained["wall_seconds"],
        "cpu_seconds": trained["cpu_seconds"],
        "cpu_seconds_complete": trained["cpu_seconds_complete"],
        "attempts": trained["attempts"],
        "attempt_cpus": trained["attempt_cpus"],
        "selection": "the final policy (no checkpoint chosen)",
        "agent": final,
        "curve": curve,
        "test": test,
        **({"exact": curve[-1]["exact"]} if "exact" in curve[-1] else {}),  # the final point's
        "trainer_report": {k: v for k, v in report.items() if k != "curve"},
        "machine": provenance.machine(),
        "source": provenance.source(),
        "versions": versions,
    }
    text = json.dumps(result, indent=1, allow_nan=False) + "\n"
    replace_whole(planned.result_file, text.encode("utf-8"))
    return result


def run_sweep(
    planned: Sequence[Planned],
    processes: int = 1,
    address: str | None = None,
    progress: bool = True,
    log: Callable[[str], None] = print,
) -> list[dict[str, Any]]:
    """Run every planned run not done yet, here one after another, or as Ray tasks on the
    cluster at ``address`` (one CPU each; every node must see ``OUT``: a shared folder, or
    one machine's local cluster); return every run's result.

    Raises:
        SweepError: for the first run that fails (the runs done so far are kept).
    """
    todo = [p for p in planned if not p.result_file.exists()]
    log(f"sweep: {len(planned)} runs, {len(planned) - len(todo)} done already, {len(todo)} to go")
    if address is not None and todo:
        _on_cluster(todo, address, processes)
    else:
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=len(planned), initial=len(planned) - len(todo), unit="run")
        try:
            for p in todo:
                run_one(p, processes, log)
                if bar is not None:
                    bar.update(1)
        finally:
            if bar is not None:
                bar.close()
    return [read_result(p.result_file) for p in planned]


def _remote_run(planned: Planned, processes: int) -> str:
    """A Ray task: one run; its result file's path (or the error's line, prefixed)."""
    try:
        run_one(planned, processes, log=lambda _line: None)
    except (SweepError, RecipeError) as e:
        return f"error: {e}"
    return str(planned.result_file)


def _on_cluster(todo: Sequence[Planned], address: str, processes: int) -> None:
    import ray

    from agents.training.cluster import join

    started = join(address)
    try:
        task = ray.remote(num_cpus=1)(_remote_run)
        refs = [task.remote(p, processes) for p in todo]
        for answer in ray.get(refs):
            if answer.startswith("error: "):
                raise SweepError(answer.removeprefix("error: "))
    finally:
        if started:
            ray.shutdown()
