"""The project as a user installs it: an sdist and a wheel built from the source tree pass
``twine check`` and carry their metadata; the wheel, installed into a fresh virtual environment
outside the repository, runs ``allfives``, serves the web page and trains."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest
from source_tree import copy_source_tree

pytest.importorskip("fastapi")

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = (
    "allfives_env", "agents", "allfives_rllib", "allfives_web", "allfives_openspiel",
    "allfives_benchmarl", "allfives_cli",
)  # fmt: skip
STATIC = ("index.html", "app.js", "board.js", "style.css")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("wheel")
    src = copy_source_tree(tmp / "src")
    # the sdist first, then the wheel built from the unpacked sdist (what `python -m build`
    # does): a file the sdist leaves out is missing from the wheel too
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "-o", str(tmp / "dist"), str(src)],
        check=True, capture_output=True,
    )  # fmt: skip
    (found,) = (tmp / "dist").glob("allfives-*.whl")
    return found


def test_twine_passes_the_wheel_and_the_sdist(wheel: Path) -> None:
    dists = sorted(str(f) for f in wheel.parent.iterdir())
    assert len(dists) == 2, dists  # the wheel and the sdist
    check = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *dists],
        capture_output=True, text=True,
    )  # fmt: skip
    assert check.returncode == 0, check.stdout + check.stderr


def test_the_metadata_names_license_python_and_classifiers(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as z:
        (meta,) = (n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        text = z.read(meta).decode()
        info = meta.rsplit("/", 1)[0]
        assert z.read(f"{info}/licenses/LICENSE") == (ROOT / "LICENSE").read_bytes()
    fields = [line.split(": ", 1) for line in text.split("\n\n", 1)[0].splitlines()]
    values: dict[str, list[str]] = {}
    for key, value in fields:
        values.setdefault(key, []).append(value)
    assert values["License-Expression"] == ["MIT"]
    assert values["Requires-Python"] == [">=3.11"]
    python = "Programming Language :: Python :: {}.{}".format(*sys.version_info[:2])
    assert python in values["Classifier"]
    assert "Typing :: Typed" in values["Classifier"]
    assert {"train", "rllib", "web", "openspiel", "benchmarl", "docs", "test"} <= set(
        values["Provides-Extra"]
    )


def test_the_wheel_holds_the_page_and_marks_every_package_typed(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for package in PACKAGES:
        assert f"{package}/py.typed" in names, package
    for name in STATIC:
        assert f"allfives_web/static/{name}" in names, name
    assert "agents/benchmark/reference-allfives-bench-1.json" in names


def test_a_wheel_installed_elsewhere_serves_the_page_and_trains(
    wheel: Path, tmp_path: Path
) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True,
    )
    # what the project needs (numpy, FastAPI...) from this environment's site-packages, on the
    # path without its .pth files, so that the repository's editable install stays out
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": sysconfig.get_paths()["purelib"]}
    where = subprocess.run(
        [str(python), "-c", "import allfives_web; print(allfives_web.__file__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert where.startswith(str(venv)), where
    usage = subprocess.run(
        [str(venv / "bin" / "allfives"), "--help"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert usage.returncode == 0, usage.stderr
    assert all(c in usage.stdout for c in ("replay", "eval", "play", "benchmark", "serve"))
    proc = subprocess.Popen(
        [str(venv / "bin" / "allfives"), "serve", "--port", "0"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("allfives serve: http://"), (line, proc.poll())
        url = line.split()[2].rstrip("/")
        deadline = time.monotonic() + 60
        while True:
            try:
                page = urllib.request.urlopen(f"{url}/", timeout=5).read().decode()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.2)
        assert '<script type="module" src="/static/app.js">' in page
        for name in STATIC:
            with urllib.request.urlopen(f"{url}/static/{name}", timeout=5) as r:
                assert r.read() == (ROOT / "allfives_web" / "static" / name).read_bytes(), name
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert "Traceback" not in err, err
    # the benchmark's best response trains with the package's trainer: no source checkout needed
    from agents.benchmark.run import TRAINER

    trainer = subprocess.run(
        [str(python), "-m", TRAINER, "--help"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert trainer.returncode == 0 and "--imitation_samples" in trainer.stdout, trainer.stderr
    assert where.startswith(str(venv))
