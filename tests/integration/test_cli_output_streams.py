"""The CLI's stdout as CI sees it: a pipe its reader may close early, a log file.

Through the real entry point (``python -m autovalidate``): a reader that closes
stdout (``| head``, ``| true``) gets exit code 141, never 1, which means a check
failed; output to a pipe keeps each table cell whole, where rich cut at 80
columns (``pattern('ZipCode…``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import autovalidate as av
from autovalidate.checks.spec import ConstraintSuite
from tests.conftest import ROOT

#: A column name long enough that an 80-column table cut its constraint label.
COLUMN = "customer_billing_address_postal_code"


@pytest.fixture(scope="module")
def batch(tmp_path_factory) -> tuple[Path, Path]:
    """A CSV of 5-digit codes and a suite whose pattern constraint it passes."""
    folder = tmp_path_factory.mktemp("streams")
    values = [f"{10000 + 37 * i}" for i in range(200)]
    data = folder / "batch.csv"
    data.write_text(COLUMN + "\n" + "".join(f"{v}\n" for v in values))
    constraint = av.suggest_pattern(values, column=COLUMN)
    assert constraint is not None and constraint.validate(values).passed
    suite = folder / "suite.json"
    suite.write_text(ConstraintSuite.of_patterns([constraint]).to_json())
    return data, suite


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("COLUMNS", None)  # the width a CI job gets: no terminal, no COLUMNS
    return env


def _closed_early(*args: object) -> subprocess.CompletedProcess[str]:
    """Run the CLI with a stdout whose reader closed it before the first write."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "autovalidate", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
        text=True,
    )
    assert proc.stdout is not None
    proc.stdout.close()  # as `| true` does: the reader is gone before Python starts up
    _, stderr = proc.communicate(timeout=120)
    return subprocess.CompletedProcess(proc.args, proc.returncode, "", stderr)


@pytest.mark.parametrize("json", [False, True], ids=["table", "json"])
def test_a_closed_stdout_is_exit_141_not_a_failed_check(batch, json):
    data, suite = batch
    closed = _closed_early("validate", data, "-c", suite, *(["--json"] if json else []))
    assert closed.returncode == 141, closed.stderr
    assert closed.stderr == ""  # as a shell's tools: no traceback, no "Exception ignored"


def test_output_to_a_pipe_keeps_a_long_constraint_whole(batch):
    data, suite = batch
    run = subprocess.run(
        [sys.executable, "-m", "autovalidate", "validate", str(data), "-c", str(suite)],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    label = f"pattern('{COLUMN}', <digit>{{5}})"
    assert len(label) + 50 > 80  # the table would not fit 80 columns
    (row,) = [line for line in run.stdout.splitlines() if line.startswith("│")]
    assert label in row and "…" not in row, run.stdout
    assert row.split("│")[3].strip() == "passed"
