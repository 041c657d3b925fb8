"""The architecture holds: layers never import upward, and no module imports itself in a circle.

Every import statement of every module is read (also those inside functions and under
``TYPE_CHECKING``, and ``importlib.import_module`` or ``runpy.run_module`` of a literal name),
so lazy imports count.
The layers, bottom up:

1. ``allfives_env.core`` — the rules; the standard library only.
2. ``allfives_env.envs`` — spaces, environments, wrappers, images; imports the core.
3. ``allfives_env.vector`` — the batched engine; imports the core and the environments.
4. ``allfives_env`` itself (the package facade, ``speed``) — imports 1–3.
5. ``agents`` (the agents, their registry, the NumPy networks that play) — import 1–4.
6. ``agents.eval`` — the match loop, evaluations, reports; imports 1–5.
7. ``agents.training`` — what training needs (configs, run folders, the torch network, the
   teacher, the learner, evaluation during training); imports 1–6.
8. ``agents.play`` — terminal play and the demo; ``agents.benchmark`` — the benchmark
   protocol, its runner (its best response runs ``agents.training``'s trainer) and reports;
   import 1–7.
9. ``allfives_rllib`` — the RLlib environment, module, league, algorithm and agent;
   ``allfives_web`` — the web app; ``allfives_openspiel`` — the OpenSpiel game and bots;
   ``allfives_benchmarl`` — the TorchRL environment, the BenchMARL task and trainer; each
   imports 1–8 and none of the others (the registry reaches the RLlib, OpenSpiel and BenchMARL
   agents through an entry point, never an import).
10. ``allfives_cli`` (the ``allfives`` command), ``train.py``, ``train_rllib.py`` and
    ``tools/`` — the programs on top. An entry script of a package (``python -m allfives_env``'s
    ``__main__``) is a program too: nothing imports it, so it sits here with the command it runs.

The top-level folders follow the same order (``allfives_env`` → ``agents`` → the extras →
``allfives_cli`` → the scripts and ``tools``): every import from one into another runs down.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = (
    "allfives_env", "agents", "allfives_rllib", "allfives_web", "allfives_openspiel",
    "allfives_benchmarl", "allfives_cli", "tools",
)  # fmt: skip

LAYERS: list[tuple[str, ...]] = [
    ("allfives_env.core",),
    ("allfives_env.envs",),
    ("allfives_env.vector",),
    ("allfives_env",),
    ("agents",),
    ("agents.eval",),
    ("agents.training",),
    ("agents.play", "agents.benchmark"),
    ("allfives_rllib", "allfives_web", "allfives_openspiel", "allfives_benchmarl"),
    ("allfives_cli", "allfives_env.__main__", "train", "train_rllib", "tools"),
]

FOLDERS: list[tuple[str, ...]] = [
    ("allfives_env",),
    ("agents",),
    ("allfives_rllib", "allfives_web", "allfives_openspiel", "allfives_benchmarl"),
    ("allfives_cli",),
    ("train", "train_rllib", "tools"),
]
"""The top-level folders (and scripts), bottom up."""


def module_files() -> dict[str, Path]:
    """Every module of the project by dotted name (``train`` for ``train.py``)."""
    out: dict[str, Path] = {"train": ROOT / "train.py", "train_rllib": ROOT / "train_rllib.py"}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


MODULES = module_files()


def imports_of(name: str, path: Path) -> set[str]:
    """The modules ``name`` imports (absolute names; ``from p import m`` counts ``p.m`` when
    ``m`` is a module of the project)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join([*base, node.module] if node.module else base)
            else:
                mod = node.module or ""
            out.add(mod)
            for alias in node.names:
                if f"{mod}.{alias.name}" in MODULES:
                    out.add(f"{mod}.{alias.name}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id)
            in ("import_module", "__import__", "run_module")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            out.add(node.args[0].value)  # import_module("a.b"), run_module("a"): imports too
    return out


GRAPH = {name: imports_of(name, path) for name, path in MODULES.items()}


def layer_of(module: str) -> int:
    """The index in :data:`LAYERS` of the most specific layer that holds ``module``."""
    best, length = -1, -1
    for i, prefixes in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > length:
                best, length = i, len(p)
    return best


def project_imports(name: str) -> set[str]:
    return {m for m in GRAPH[name] if m in MODULES}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_imports_a_layer_above_its_own(name: str) -> None:
    mine = layer_of(name)
    assert mine >= 0, f"{name} is in no layer"
    upward = sorted(m for m in project_imports(name) if layer_of(m) > mine)
    assert not upward, f"{name} (layer {mine + 1}) imports from above: {upward}"


def test_the_rules_core_imports_the_standard_library_only() -> None:
    outside = {
        f"{name} imports {m}"
        for name in MODULES
        if layer_of(name) == 0
        for m in GRAPH[name]
        if m.split(".")[0] not in sys.stdlib_module_names
        and not m.startswith("allfives_env.core")
        and m != "__future__"
    }
    assert not outside, sorted(outside)


def test_no_import_circles() -> None:
    # Tarjan's strongly connected components over the project's own import graph
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in project_imports(v):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in sorted(MODULES):
        if v not in index:
            visit(v)
    assert not circles, circles


def test_the_layering_test_sees_lazy_imports() -> None:
    """A sanity check of the reader: an import inside a function is counted, and so is a module
    run by name."""
    assert "allfives_env.envs.allfives_v1" in GRAPH["allfives_env"]
    assert "allfives_cli" in GRAPH["allfives_env.__main__"]


def test_the_extras_packages_stay_apart() -> None:
    """Side by side in one layer: none needs another's extra."""
    extras = {"allfives_web", "allfives_rllib", "allfives_openspiel", "allfives_benchmarl"}
    crossing = sorted(
        f"{name} imports {m}"
        for name in MODULES
        for m in project_imports(name)
        if name.split(".")[0] in extras
        and m.split(".")[0] in extras
        and name.split(".")[0] != m.split(".")[0]
    )
    assert not crossing, crossing


def folder_of(module: str) -> int:
    """The index in :data:`FOLDERS` of ``module``'s top-level folder."""
    top = module.split(".")[0]
    return next(i for i, names in enumerate(FOLDERS) if top in names)


def test_every_import_between_top_level_folders_runs_down() -> None:
    upward = sorted(
        f"{name} imports {m}"
        for name in MODULES
        if not name.endswith(".__main__")  # an entry script: a program, nothing imports it
        for m in project_imports(name)
        if folder_of(m) > folder_of(name)
    )
    assert not upward, upward


def test_every_top_level_folder_is_placed() -> None:
    tops = {p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file()}
    tops |= {p.stem for p in ROOT.glob("*.py")}
    placed = {name for names in FOLDERS for name in names}
    assert tops <= placed | {"tests"}, tops - placed
