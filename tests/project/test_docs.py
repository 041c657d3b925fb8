"""The README and the docs site stay true.

* CI runs exactly the README's test command, and its main job is ``python train.py``.
* The site builds with ``mkdocs build --strict``: every page in the navigation, no broken link,
  anchor or API reference.
* Every Python example on the README and the site's pages runs as written (a training example
  shortened); every shell example runs too, page by page in order, in a copy of the source
  tree, with the budgets of the ones that train or measure cut short (``SHORTER``). A command
  that cannot run here is listed in ``NOT_RUN`` with the reason and what proves it instead; a
  command that is neither fails the test, so a new example cannot go unchecked.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from source_tree import copy_source_tree

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"


def pages() -> list[Path]:
    """README.md, then every page of the site."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


def blocks(page: Path, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", page.read_text(encoding="utf-8"), re.S)


def readme_commands() -> list[str]:
    text = README.read_text(encoding="utf-8")
    block = re.search(r"## Quick start.*?```bash\n(.*?)```", text, re.S)
    assert block, "README.md lost its Quick start block"
    return [line for line in block.group(1).splitlines() if line and not line.startswith("#")]


def test_readme_has_the_main_job_and_the_test_command() -> None:
    """The main job installs what training needs, the tests what the tests need, from the same
    venv steps."""
    main_job, tests = readme_commands()
    assert main_job.endswith("&& pip install torch==2.13.0 -e '.[train]' && python train.py")
    assert tests.endswith(
        "&& pip install torch==2.13.0 -e '.[test,rllib]' && python -m pytest -q -n auto"
    )
    assert main_job.split("&& pip")[0] == tests.split("&& pip")[0]  # the same venv


def test_the_main_jobs_extra_holds_what_train_py_needs() -> None:
    """``[train]`` names a distribution for every module ``train.py`` checks it has."""
    import tomllib

    from agents.training.entry import TRAIN_EXTRAS

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    train = {re.split(r"[<>=\[ ]", d)[0].lower() for d in extras["optional-dependencies"]["train"]}
    modules = {"yaml": "pyyaml"}  # a module whose distribution has another name
    assert {modules.get(m, m) for m in TRAIN_EXTRAS} <= train


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert readme_commands()[1] in ci


def test_readme_is_short_and_links_into_the_docs() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    for target in re.findall(r"\]\(((?:docs/|CHANGELOG|LICENSE)[^)#]*)", text):
        assert (ROOT / target).is_file(), target


def test_docs_rules_is_the_project_spec() -> None:
    shared = ROOT.parent / "shared" / "RULES.md"
    if not shared.exists():
        pytest.skip("no ../shared beside this checkout")
    assert (DOCS / "RULES.md").read_text() == shared.read_text()


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr[-4000:]
    reference = (tmp_path / "site" / "reference" / "allfives_env" / "index.html").read_text()
    assert 'id="allfives_env.core.game.Game.apply"' in reference  # the docstrings made it in
    assert ":class:" not in reference  # Sphinx's roles dropped (tools/mkdocs_hooks.py)
    changelog = (tmp_path / "site" / "changelog" / "index.html").read_text()
    assert "0.1.0" in changelog and "0.15.0" in changelog


@pytest.mark.parametrize("page", [p for p in pages() if blocks(p, "python")], ids=page_id)
def test_python_examples_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every Python example runs as written, in an empty folder (training examples shortened)."""
    monkeypatch.chdir(tmp_path)
    for i, block in enumerate(blocks(page, "python")):
        code = re.sub(r"\.learn\(\d[\d_]*\)", ".learn(256)", block)
        exec(compile(code, f"{page_id(page)} python block {i + 1}", "exec"), {"__name__": "doc"})


# --- shell examples --------------------------------------------------------------------------

RLLIB_SMALL = (
    "--total_timesteps 512 --imitation_samples 256 --num_envs_per_env_runner 8 --num_steps 32 "
    "--train_batch_size 256 --minibatch_size 128 --num_env_runners 0 --eval_every 1000000 "
    "--final_eval_matches 0 --no_progress"
)
SHORTER: list[tuple[str, str]] = [
    # regex → replacement, applied in turn to every command: the same command at a test's size
    (r"^python train\.py$", "python train.py --config configs/smoke.yaml --name default"),
    (
        r"^python train\.py (--max_pip .*)--total_timesteps \d+(.*)$",
        r"python train.py --config configs/smoke.yaml \1--total_timesteps 1024\2",
    ),
    (
        r"^python train_rllib\.py$",
        "python train_rllib.py --config configs/rllib_batched_smoke.yaml --name default",
    ),
    (r"^(python train_rllib\.py --config configs/(?!rllib_\w*smoke)\S+.*)$", rf"\1 {RLLIB_SMALL}"),
    (r"--matches \d+", "--matches 4"),
    (r"^(allfives benchmark .*)$", r"\1 --protocol allfives-bench/2-reduced --force"),
    (
        r"^allfives sweep --recipes (.*) --seeds [\d ]+$",
        r"allfives sweep --protocol allfives-train/1-reduced --tiers smoke --recipes \1 "
        r"--seeds 0 --quiet",
    ),
    (
        r"^python -m agents\.training\.exit --config configs/exit\.yaml$",
        "python -m agents.training.exit --config configs/exit_smoke.yaml",
    ),
    (r"^allfives speed vector$", "allfives speed vector --seconds 0.2 --repeat 1 --games 64"),
    (r"^python -m build$", "python -m build --no-isolation"),  # no download of setuptools
    (r"^(python tools/device_speed\.py cycles .*)--threads [\d ]+--cycles \d+$",
     r"\1--threads 1 --cycles 1"),
    (r"^(python tools/device_speed\.py learner .*)--updates \d+$", r"\1--updates 1"),
    (
        r"^(python tools/small_track\.py .*)--seeds [\d ]+$",
        r"\1--seeds 0 --protocol allfives-train/1-reduced --tier smoke --opponents",
    ),
    (r"^(python tools/teacher_scaling\.py) .*$", r"\1 --positions 8 --spec batchsearch:worlds=2"),
    (
        r"^(python -m allfives_openspiel\.train .*)--episodes \d+(.*)$",
        r"\1--episodes 3\2 --hidden 16 --batch_size 16 --learn_every 16",
    ),
    (
        r"^(python -m allfives_benchmarl\.train .*) --frames \d+ (.*)$",
        r"\1 --frames 1024 \2 --frames_per_batch 512 --envs 32 --minibatch_size 256 --epochs 1 "
        r"--hidden 32",
    ),
]  # fmt: skip

NOT_RUN: dict[str, str] = {
    "bash tools/device_check.sh runs/device_check": "measures a GPU machine; "
    "tests/cli/test_device_check.py runs every step of it here at a toy size (SMOKE=1)",
    # a command (one step of a `&&` chain) → why it does not run here, and what proves it
    "python3 -m venv .venv": "makes the venv; CI runs the README's setup, this step included",
    ". .venv/bin/activate": "CI runs the README's setup, this step included",
    "pip install torch==2.13.0 -e '.[test,rllib]'": "CI runs the README's setup, this step "
    "included",
    "pip install torch==2.13.0 -e '.[train]'": "installs an extra that CI's '.[test,rllib]' "
    "holds; test_the_main_jobs_extra_holds_what_train_py_needs checks it is what train.py needs",
    "pip install -e '.[web]'": "installs an extra that CI's '.[test,rllib]' holds",
    "pip install -e '.[openspiel]'": "installs an extra that CI's '.[test,rllib]' holds",
    "pip install torch==2.13.0 -e '.[benchmarl]'": "installs an extra that CI's '.[test,rllib]' "
    "holds",
    "python -m pytest -q -n auto": "the README's test command: this test is part of that run",
    "mypy allfives_env agents allfives_cli allfives_rllib allfives_web allfives_openspiel "
    "allfives_benchmarl train.py train_rllib.py tools": "CI runs it after the tests (.ci/run)",
    "bash .ci/run": "CI itself",
    "python train_rllib.py --config configs/rllib_batched_smoke.yaml": "the run that "
    "`python train_rllib.py` makes at this size (SHORTER), already run on the page; "
    "tests/extras/test_rllib_table.py trains this config",
    "allfives benchmark RUN/train/curve/000001998848.zip --provenance RUN/result.json": "a "
    "placeholder RUN: tests/agents/test_benchmark.py benchmarks a checkpoint with --provenance",
    "export RAY_AUTH_MODE=token RAY_AUTH_TOKEN=…": "a cluster of machines: "
    "tests/extras/test_rllib_cluster.py starts two nodes here, token authentication on",
    "ray start --head --port 6379": "tests/extras/test_rllib_cluster.py starts a head node",
    "ray start --address HEAD_IP:6379": "tests/extras/test_rllib_cluster.py joins a second node",
    "python train_rllib.py --address HEAD_IP:6379 --num_env_runners 32 --num_learners 2 "
    "--name big": "tests/extras/test_rllib_cluster.py trains on its two nodes with --address",
    "python train.py --config configs/strong.yaml --address HEAD_IP:6379": "a cluster of "
    "machines: tests/training/test_teacher_cluster.py trains with --address on its two nodes",
    "python tools/offline_fit.py collect values.npz --config configs/strong.yaml --address "
    "HEAD_IP:6379": "tests/training/test_teacher_cluster.py collects with --address on its two "
    "nodes",
}

PREREQUISITES = ("python train.py", "python train_rllib.py")
"""What later commands play (``runs/default/best.zip``, ``rllib:runs/rllib/default``): run first,
so that any one page can be tested alone."""


def commands(page: Path) -> list[str]:
    """The page's shell commands in order, comments and blank lines dropped."""
    out = []
    for block in blocks(page, "bash"):
        for line in block.splitlines():
            command = re.sub(r"\s+#.*$", "", line).strip()
            if command and not command.startswith("#"):
                out.extend(step.strip() for step in command.split(" && "))
    return out


def shorter(command: str) -> str:
    for pattern, replacement in SHORTER:
        command = re.sub(pattern, replacement, command)
    return command


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Sandbox:
    """A copy of the source tree where the examples run, and what already ran there."""

    path: Path
    env: dict[str, str]
    done: set[str] = field(default_factory=set)

    def run(self, command: str) -> None:
        if command in NOT_RUN:
            return
        command = shorter(command)
        if command in self.done:
            return  # the same example on another page: its outputs are here
        if command.startswith(("allfives serve", "mkdocs serve")):
            self.serve(command)
        else:
            stdin = "quit\n" if command.startswith("allfives play") else ""
            done = subprocess.run(
                ["bash", "-c", command], cwd=self.path, env=self.env, input=stdin,
                capture_output=True, text=True, timeout=900,
            )  # fmt: skip
            assert done.returncode == 0, (command, done.stdout[-2000:], done.stderr[-4000:])
            assert "Traceback" not in done.stderr, (command, done.stderr[-4000:])
        self.done.add(command)

    def serve(self, command: str) -> None:
        """Start the server, load its page (and the web app's agents), stop it."""
        port = free_port()
        if command.startswith("allfives serve"):
            command = re.sub(r" --port \d+", "", command) + f" --port {port}"
        else:
            command += f" -a 127.0.0.1:{port}"
        proc = subprocess.Popen(
            ["bash", "-c", f"exec {command}"], cwd=self.path, env=self.env,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 180
            while True:
                try:
                    page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).read()
                    break
                except OSError:
                    assert proc.poll() is None, (command, proc.communicate()[1][-4000:])
                    assert time.monotonic() < deadline, command
                    time.sleep(0.5)
            assert b"allfives" in page.lower(), command
            if command.startswith("allfives serve"):
                url = f"http://127.0.0.1:{port}/api/options"
                options = urllib.request.urlopen(url, timeout=30).read().decode()
                for name in re.findall(r"--agent (?:(\w+)=|rllib:\S+/(\w+))", command):
                    assert any(n and n in options for n in name), (command, options)
        finally:
            proc.terminate()
            _, err = proc.communicate(timeout=60)
        assert "Traceback" not in err, (command, err[-4000:])


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    pytest.importorskip("torch")
    pytest.importorskip("ray.rllib")
    pytest.importorskip("fastapi")
    path = copy_source_tree(tmp_path_factory.mktemp("docs") / "allfives")
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    # `python train.py` imports the installed package, not the copy, whose compiled kernels
    # would have to be compiled anew
    env["PYTHONSAFEPATH"] = "1"
    box = Sandbox(path, env)
    for command in PREREQUISITES:
        box.run(command)
    yield box


@pytest.mark.parametrize("page", [p for p in pages() if blocks(p, "bash")], ids=page_id)
def test_shell_examples_run(page: Path, sandbox: Sandbox) -> None:
    """Every shell command on the page runs, in order, at a test's size (see ``SHORTER``)."""
    for command in commands(page):
        sandbox.run(command)


def test_every_command_not_run_is_still_on_a_page() -> None:
    """``NOT_RUN`` names only commands the pages hold (a stale entry hides nothing)."""
    on_pages = {c for page in pages() for c in commands(page)}
    assert set(NOT_RUN) <= on_pages, set(NOT_RUN) - on_pages
