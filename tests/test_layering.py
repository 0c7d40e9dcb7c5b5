"""Imports run one way (docs/SPEC.md, "Layers"): a wrong-way arrow fails here, naming the file."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "bench"

ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "tasks": {"core"},
    "suites": {"core", "tasks"},
    "corpus": {"core"},
    "world": {"core", "tasks", "corpus"},
    "targets": {"core", "tasks", "corpus"},
    "scorers": {"core", "tasks", "stats", "targets", "suites"},
    "stats": {"core"},
    "testing": {"core"},
    "baselines": {"core", "targets"},
    "records": {"core"},
    "runner": {"core", "tasks", "corpus", "world", "targets", "scorers", "records"},
    "reports": {"core", "records", "stats"},
    "schemas": {"core", "tasks", "records", "targets", "reports", "board"},
    "board": {"core", "records", "stats", "reports", "verify", "signing",
              "suites"},  # an imported suite's categories, as bench suite scores reads them
    "signing": {"core", "records"},
    "verify": {"core", "records", "signing", "scorers", "tasks", "corpus", "targets", "runner",
               "world", "baselines"},  # a reference row's responses, recomputed (DECISIONS 49)
    "api": {"core", "tasks", "corpus", "world", "targets", "scorers", "stats", "records",
            "runner", "reports", "signing", "verify", "board"},
    "cli": {"core", "tasks", "corpus", "world", "targets", "scorers", "stats", "records",
            "runner", "reports", "schemas", "testing", "signing", "verify", "board", "baselines",
            "suites"},
}  # fmt: skip
HEAVY = {"numpy", "scipy"}


def _package(path: Path) -> str:
    rel = path.relative_to(SRC)
    return rel.parts[0].removesuffix(".py")


def _imports(path: Path) -> list[tuple[str, int, bool]]:
    """(module, line, at module level) for every import in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, int, bool]] = []
    top_level = {id(node) for node in tree.body}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno, id(node) in top_level) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, node.lineno, id(node) in top_level))
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            continue  # relative imports stay inside their package
    return found


def test_imports_run_one_way() -> None:
    wrong = []
    for path in sorted(SRC.rglob("*.py")):
        if path.parent == SRC and path.name == "__init__.py":
            continue
        package = _package(path)
        allowed = ALLOWED[package] | {package}
        for module, line, _ in _imports(path):
            parts = module.split(".")
            if parts[0] != "bench" or len(parts) == 1:
                continue
            if parts[1] not in allowed:
                wrong.append(f"{path.relative_to(SRC)}:{line} imports {module}")
    assert wrong == []


def test_nothing_imports_the_cli() -> None:
    offenders = [
        f"{path.relative_to(SRC)}:{line}"
        for path in SRC.rglob("*.py")
        if _package(path) != "cli"
        for module, line, _ in _imports(path)
        if module.startswith("bench.cli")
    ]
    assert offenders == []


def test_heavy_libraries_are_imported_only_in_stats_or_lazily() -> None:
    offenders = [
        f"{path.relative_to(SRC)}:{line} imports {module} at module level"
        for path in SRC.rglob("*.py")
        if _package(path) != "stats"
        for module, line, top in _imports(path)
        if top and module.split(".")[0] in HEAVY
    ]
    assert offenders == []


def test_every_package_is_in_the_table() -> None:
    packages = {p.name for p in SRC.iterdir() if p.is_dir() and (p / "__init__.py").exists()} | {
        p.stem for p in SRC.glob("*.py") if p.name != "__init__.py"
    }
    assert packages - set(ALLOWED) == set(), "a package missing from the layering table"
