"""The CLI starts without the heavy libraries: they load where a command uses them (issue 31)."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("scipy", "numpy", "pandas", "pyarrow", "duckdb", "pyspark", "matplotlib", "jinja2")


def _loaded_after(code: str) -> list[str]:
    """The heavy libraries a fresh interpreter has imported after running ``code``."""
    loaded = f"sorted(m for m in {HEAVY!r} if m in sys.modules)"
    probe = f"{code}\nimport json, sys\nprint(json.dumps({loaded}))"
    res = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
        check=True,
    )
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_the_package_and_the_cli_import_no_heavy_library():
    assert _loaded_after("import autovalidate, autovalidate.cli") == []


def test_help_imports_no_heavy_library():
    code = (
        "import sys\nfrom autovalidate.cli import app\n"
        "sys.argv = ['autovalidate', '--help']\n"
        "try:\n    app()\nexcept SystemExit:\n    pass"
    )
    assert _loaded_after(code) == []


def test_a_test_without_a_table_to_test_needs_no_scipy():
    """A batch as clean as its training gets p = 1 without Fisher's test (and without scipy)."""
    assert _loaded_after("import autovalidate as av; av.drift_test(0, 10, 0, 10)") == []
    assert "scipy" in _loaded_after("import autovalidate as av; av.drift_test(0, 10, 3, 10)")


@pytest.mark.parametrize("package", ["autovalidate", "autovalidate.checks", "autovalidate.suggest"])
def test_every_public_name_resolves_on_first_use(package):
    module = importlib.import_module(package)
    exported = set(module.__all__) - {"__version__"}
    assert exported == set(module._LAZY)
    for name in sorted(exported):
        value = getattr(module, name)
        assert getattr(importlib.import_module(module._LAZY[name]), name) is value
    assert exported <= set(dir(module))
    with pytest.raises(AttributeError, match="no_such_name"):
        module.no_such_name  # noqa: B018


def test_export_targets_are_the_cli_choices():
    from autovalidate.cli.export import Target
    from autovalidate.export import TARGETS

    assert {t.value for t in Target} == set(TARGETS)
