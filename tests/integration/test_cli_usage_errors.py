"""Every usage error is one ``error:`` line and exit 2, through the real entry point (issue 30).

typer (click) printed its usage text and a five-line box for a missing option,
an unknown command or option, a bad value, a file argument that does not
exist; ``autovalidate.cli.main`` turns each into the documented one line.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

CASES = {
    "missing argument": (["validate"], "Missing argument 'FILE'"),
    "missing option": (["index", "build", "--lake", "."], "Missing option '--out'"),
    "unknown command": (["nosuch"], "No such command 'nosuch'"),
    "unknown option": (["validate", "x.csv", "--nope"], "No such option: --nope"),
    "bad value": (["suggest", "x.csv", "--max-values", "abc"], "Invalid value for '--max-values'"),
    "bad choice": (["export", "s.json", "--to", "nope"], "Invalid value for '--to'"),
    "unreadable suite file": (
        ["validate", "x.csv", "-c", "/nonexistent/suite.json"],
        "/nonexistent/suite.json",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_usage_error_is_one_error_line_with_exit_2(case, tmp_path):
    args, needle = CASES[case]
    run = subprocess.run(
        [sys.executable, "-m", "autovalidate", *args],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "80"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2, run.stderr
    assert run.stdout == ""
    line = run.stderr.strip()
    assert line.startswith("error:") and "\n" not in line, run.stderr
    assert needle in line and "╭" not in line


def test_help_still_works():
    run = subprocess.run(
        [sys.executable, "-m", "autovalidate", "validate", "--help"],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0 and "Usage" in run.stdout
