"""The package's layers, read from the imports themselves (issue 14).

Every ``import`` in ``autovalidate/`` counts: module-level, function-local and
``TYPE_CHECKING`` ones alike, since a function-local back-edge is still a
cycle a reader has to untangle. A module may import its own layer and the
layers below it, never a layer above. And only the modules that own engine
work import an engine's library (DuckDB, PySpark): everyone else asks an
:class:`~autovalidate.engines.Engine`.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "autovalidate"

#: Lowest first. A unit is a subpackage or a top-level module of ``autovalidate``.
LAYERS: list[set[str]] = [
    {
        "_version",
        "_lazy",
        "wording",
        "progress",
        "errors",
        "portable_regex",
        "nulls",
        "user_code",
        "schemas",
    },
    {"metrics"},  # analyzer and expression declarations: no engine
    {"patterns", "drift"},
    # engines read local data (engines.io), start Spark (engines.spark_session), render and
    # run metrics; the index stores patterns
    {"engines", "index"},
    {"analysis", "solver"},  # the analysis runner; FMDV over the index
    {"repository", "profiles", "pattern_constraint", "pattern_inference", "spark"},
    {"anomaly"},  # anomaly detection strategies (forecasts, AVH bounds): no data, no I/O
    # batch monitoring workflows over the strategies: record a batch's statistics, accept or
    # reject the batch (below checks: an AVH program is also a suite, checks.avh_suite)
    {"monitor"},
    {"checks"},  # checks, constraints (the anomaly constraint among them), suite files
    {"suggest"},
    {"export", "report"},  # a suite in other tools' formats; reports of runs
    {"pipeline"},  # one call to validate and split a batch (the CLI's validate runs it)
    {"cli", "__main__", "__init__"},
]

#: The engines' libraries, and the only modules (paths under ``autovalidate/``;
#: a folder holds all its modules) that may import them.
ENGINE_LIBRARIES = {"duckdb", "pyspark"}
ENGINE_WORK = (
    "engines/",
    "index/reader.py",
    "index/build.py",  # the Spark job of the index build
    "index/merge.py",  # adds index states up in DuckDB, as the reader looks them up
    "repository/duckdb.py",
)


def _layer_of(unit: str) -> int | None:
    for i, layer in enumerate(LAYERS):
        if unit in layer:
            return i
    return None


def _unit(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "autovalidate":
        return None
    return parts[1] if len(parts) > 1 else "__init__"


def _imported_modules(tree: ast.AST, package: Path) -> list[tuple[str, int]]:
    """Every module an AST imports (absolute imports), with the line."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "autovalidate":  # a submodule, or a name of the root
                for a in node.names:
                    sub = (package / a.name).is_dir() or (package / f"{a.name}.py").is_file()
                    found.append((f"autovalidate.{a.name}" if sub else "autovalidate", node.lineno))
            else:
                found.append((node.module, node.lineno))
    return found


def _modules(package: Path) -> list[tuple[Path, list[tuple[str, int]]]]:
    return [
        (p.relative_to(package), _imported_modules(ast.parse(p.read_text(), str(p)), package))
        for p in sorted(package.rglob("*.py"))
    ]


def _edges_against_the_order(package: Path) -> list[str]:
    bad = []
    for rel, imported in _modules(package):
        unit = rel.parts[0] if len(rel.parts) > 1 else rel.stem
        here = _layer_of(unit)
        if here is None:
            bad.append(f"{rel}: autovalidate.{unit} is in no layer (add it to LAYERS)")
            continue
        for target, line in [(u, line) for m, line in imported if (u := _unit(m)) is not None]:
            there = _layer_of(target)
            if target == "__init__" and unit != "__init__":
                bad.append(f"{rel}:{line} imports the package root")
            elif target != unit and (there is None or there > here):
                bad.append(f"{rel}:{line} ({unit}, layer {here}) imports {target} (layer {there})")
    return bad


def _engine_imports_outside_the_engines(package: Path) -> list[str]:
    bad = []
    for rel, imported in _modules(package):
        if rel.as_posix().startswith(ENGINE_WORK):
            continue
        for module, line in imported:
            if module.split(".")[0] in ENGINE_LIBRARIES:
                bad.append(f"{rel}:{line} imports {module}")
    return bad


#: Above every layer of the package: its entry points (spark-submit scripts,
#: build steps), which import the package and are never imported by it.
ENTRY_POINTS = {"index_jobs"}


def _entry_point_imports(package: Path) -> list[str]:
    return [
        f"{rel}:{line} imports {module}"
        for rel, imported in _modules(package)
        for module, line in imported
        if module.split(".")[0] in ENTRY_POINTS
    ]


def test_every_import_points_down_the_layers() -> None:
    assert _edges_against_the_order(PACKAGE) == []


def test_only_the_engine_modules_import_duckdb_or_pyspark() -> None:
    assert _engine_imports_outside_the_engines(PACKAGE) == []


def _own_package_root_imports(package: Path) -> list[str]:
    """Modules of a subpackage that import from its ``__init__``, which imports them back."""
    bad = []
    for rel, _ in _modules(package):
        if len(rel.parts) < 2 or rel.name == "__init__.py":
            continue
        root = f"autovalidate.{rel.parts[0]}"
        tree = ast.parse((package / rel).read_text(), str(rel))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == root:
                bad.append(f"{rel}:{node.lineno} imports from {root}")
    return bad


def test_no_module_imports_its_own_package_root() -> None:
    assert _own_package_root_imports(PACKAGE) == []


def test_an_own_package_root_import_is_caught(tmp_path: Path) -> None:
    """The test can fail: the import the metrics modules had (issue 32)."""
    pkg = tmp_path / "autovalidate"
    (pkg / "metrics").mkdir(parents=True)
    (pkg / "metrics" / "__init__.py").write_text("from autovalidate.metrics.counts import Size\n")
    (pkg / "metrics" / "counts.py").write_text(
        "from autovalidate.metrics import expressions as E\n"
    )
    assert _own_package_root_imports(pkg) == [
        "metrics/counts.py:1 imports from autovalidate.metrics"
    ]


def test_the_package_never_imports_its_entry_points() -> None:
    assert _entry_point_imports(PACKAGE) == []


def test_an_entry_point_import_is_caught(tmp_path: Path) -> None:
    """The test can fail: the CLI running the index job through ``index_jobs`` (issue 32)."""
    pkg = tmp_path / "autovalidate"
    (pkg / "cli").mkdir(parents=True)
    (pkg / "cli" / "index.py").write_text(
        "def build():\n    from index_jobs.build_index import build_index\n"
    )
    assert _entry_point_imports(pkg) == ["cli/index.py:2 imports index_jobs.build_index"]


def test_every_unit_has_a_layer() -> None:
    units = {
        p.name.removesuffix(".py")
        for p in PACKAGE.iterdir()
        if p.suffix == ".py" or (p / "__init__.py").exists()
    }
    assert sorted(u for u in units if _layer_of(u) is None) == []


def test_a_back_edge_is_caught(tmp_path: Path) -> None:
    """The test can fail: a metrics module importing an engine inside a function."""
    pkg = tmp_path / "autovalidate"
    (pkg / "metrics").mkdir(parents=True)
    (pkg / "engines").mkdir()
    (pkg / "metrics" / "base.py").write_text(
        "def name(e):\n    from autovalidate.engines.duckdb import render\n    return render(e)\n"
    )
    (pkg / "engines" / "duckdb.py").write_text("from autovalidate.metrics.base import name\n")
    bad = _edges_against_the_order(pkg)
    assert len(bad) == 1 and "metrics" in bad[0] and "engines" in bad[0]


def test_an_engine_import_outside_the_engines_is_caught(tmp_path: Path) -> None:
    """The test can fail: a profile module importing DuckDB (under TYPE_CHECKING too)."""
    pkg = tmp_path / "autovalidate"
    (pkg / "engines").mkdir(parents=True)
    (pkg / "engines" / "duckdb.py").write_text("import duckdb\n")
    (pkg / "profiles.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import duckdb\n"
        "def f():\n    from pyspark.sql import functions\n"
    )
    assert _engine_imports_outside_the_engines(pkg) == [
        "profiles.py:3 imports duckdb",
        "profiles.py:5 imports pyspark.sql",
    ]


def test_the_solver_reads_the_index_through_its_protocol_only():
    # issue 14: solver/ defines PatternLookup; no module of it imports the DuckDB reader
    offenders = [
        f"{path}:{line} imports {module}"
        for path, imports in _modules(PACKAGE)
        if path.parts[0] == "solver"
        for module, line in imports
        if module == "autovalidate.index.reader" or module.split(".")[0] in ENGINE_LIBRARIES
    ]
    assert offenders == []
