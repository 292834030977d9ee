"""The package's import graph: every module's imports (top-level and inside functions) among the
project's own modules form a DAG, and every import between packages runs down the layers of
docs/architecture.md, so the flow of the code runs one way (issue 28)."""

from __future__ import annotations

import ast
from pathlib import Path

import safeactbench

PACKAGE = Path(safeactbench.__file__).resolve().parent


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, name: str, known: set[str]) -> set[str]:
    """The project modules `path` imports (a name imported from a package is the package's
    __init__, unless it is one of its modules)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            # `from pkg import mod` needs the module; `from pkg import name` the package (or module)
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        found |= {t for t in targets if t in known and t != name}
    return found


def graph() -> dict[str, set[str]]:
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    known = set(paths)
    return {name: imports(path, name, known) for name, path in paths.items()}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_the_detector_finds_a_circle() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_package_imports_form_no_circle() -> None:
    edges = graph()
    assert "safeactbench.harness.family_cli" in edges and edges["safeactbench.runs.runner"]  # the graph was read
    assert circles(edges) == []


def test_the_engine_imports_nothing_else_of_the_project() -> None:
    edges = graph()
    core = {name for name in edges if name.startswith("safeactbench.core")}
    assert len(core) > 5
    outside = {(name, target) for name in core for target in edges[name] if not target.startswith("safeactbench.core")}
    assert outside == set()


# top to bottom: a package imports only packages on lower rows (docs/architecture.md, "Layers")
LAYERS: tuple[tuple[str, ...], ...] = (
    ("cli",),
    ("harness", "analysis", "audit", "importers"),
    ("runs",),
    ("agents",),
    ("suite",),
    ("domains",),
    ("authoring",),
    ("core",),
)
FACES = {"safeactbench", "safeactbench.__main__"}  # the package's face and entry point: above every layer


def layer_of(module: str) -> int:
    package = module.split(".")[1]
    for depth, row in enumerate(LAYERS):
        if package in row:
            return depth
    raise KeyError(f"{module}: its package {package!r} is in no layer of LAYERS")


def upward(edges: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Imports that do not run strictly down the layers (a package's own modules may import each
    other; nothing may import the package's face)."""
    found = []
    for source, targets in edges.items():
        for target in targets:
            if target in FACES:
                found.append((source, target))
            elif source in FACES or source.split(".")[1] == target.split(".")[1]:
                continue
            elif layer_of(source) >= layer_of(target):
                found.append((source, target))
    return sorted(found)


def test_the_layer_check_finds_an_import_that_runs_up_or_sideways() -> None:
    edges = {
        "safeactbench.runs.store": {"safeactbench.core.model", "safeactbench.runs.records"},
        "safeactbench.core.model": {"safeactbench.suite.data"},  # up
        "safeactbench.harness.lean": {"safeactbench.analysis.metrics"},  # sideways
        "safeactbench.agents.scripted": {"safeactbench"},  # the face
    }
    assert upward(edges) == [
        ("safeactbench.agents.scripted", "safeactbench"),
        ("safeactbench.core.model", "safeactbench.suite.data"),
        ("safeactbench.harness.lean", "safeactbench.analysis.metrics"),
    ]


def test_every_import_between_packages_runs_down_the_layers() -> None:
    edges = graph()
    packages = {name.split(".")[1] for name in edges if name not in FACES}
    assert packages == {package for row in LAYERS for package in row}  # every package has its layer
    assert upward(edges) == []


def test_the_top_level_holds_only_packages_the_face_and_the_entry_point() -> None:
    modules = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert modules == ["__init__.py", "__main__.py"]
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert packages == {package for row in LAYERS for package in row}


def test_the_public_api_is_importable_from_the_top() -> None:
    assert len(safeactbench.__all__) > 10
    missing = [name for name in safeactbench.__all__ if not hasattr(safeactbench, name)]
    assert missing == []
