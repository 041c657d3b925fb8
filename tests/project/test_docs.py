"""The README's commands stay true: CI runs exactly its test command."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Quick start.*?```bash\n(.*?)```", text, re.S)
    assert block, "README.md lost its Quick start block"
    return [line for line in block.group(1).splitlines() if line and not line.startswith("#")]


def test_readme_has_the_main_job_and_the_test_command() -> None:
    main_job, tests = readme_commands()
    assert main_job.endswith("python train.py")
    assert tests.endswith("python -m pytest -q")
    assert main_job.rsplit("&&", 1)[0] == tests.rsplit("&&", 1)[0]  # the same setup


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert readme_commands()[1] in ci


def test_docs_rules_is_the_project_spec() -> None:
    shared = ROOT.parent / "shared" / "RULES.md"
    if not shared.exists():
        pytest.skip("no ../shared beside this checkout")
    assert (ROOT / "docs" / "RULES.md").read_text() == shared.read_text()


def test_readme_examples_run() -> None:
    """Every Python example in README.md runs as written (training examples shortened)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 4
    for i, block in enumerate(blocks):
        code = re.sub(r"\.learn\(\d[\d_]*\)", ".learn(256)", block)
        exec(compile(code, f"README.md python block {i + 1}", "exec"), {"__name__": "readme"})
