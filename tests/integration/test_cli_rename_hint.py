"""``validate`` of a file without a column the suite reads names the ``--rename`` to give.

The message named the closest column (``closest: 'zip'``) but not how to use
it; ``validate`` is the command with ``--rename``, so it says which one.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import autovalidate as av
from autovalidate.checks.spec import ConstraintSuite
from autovalidate.cli import app

runner = CliRunner()
ZIPS = [f"{10000 + 37 * i}" for i in range(100)]


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> Path:
    """A suite of one pattern constraint on ``ZipCode``."""
    constraint = av.suggest_pattern(ZIPS, column="ZipCode")
    assert constraint is not None
    path = tmp_path_factory.mktemp("rename") / "zip.json"
    path.write_text(ConstraintSuite.of_patterns([constraint]).to_json())
    return path


def _batch(tmp_path: Path, header: str) -> Path:
    path = tmp_path / "batch.csv"
    path.write_text(f"{header},city\n" + "".join(f"{z},x\n" for z in ZIPS))
    return path


def _error(*args: object) -> str:
    res = runner.invoke(app, ["validate", *map(str, args)])
    assert res.exit_code == 2, res.output
    line = res.output.strip()
    assert line.startswith("error:") and "\n" not in line, res.output
    return line


def test_the_closest_column_comes_with_its_rename(suite, tmp_path):
    batch = _batch(tmp_path, "zip")
    line = _error(batch, "-c", suite)
    assert "column 'ZipCode' not found; closest: 'zip'" in line
    assert "to check the suite's 'ZipCode' on 'zip': --rename ZipCode=zip;" in line
    # the option as the message gives it checks the column there
    res = runner.invoke(app, ["validate", str(batch), "-c", str(suite), "--rename", "ZipCode=zip"])
    assert res.exit_code == 0, res.output


def test_a_rename_to_a_column_the_file_lacks_names_the_suites_column(suite, tmp_path):
    line = _error(_batch(tmp_path, "zip"), "-c", suite, "--rename", "ZipCode=zipp")
    assert "column 'zipp' not found" in line and "--rename ZipCode=zip;" in line


def test_without_a_close_column_the_form_of_the_option(suite, tmp_path):
    line = _error(_batch(tmp_path, "plz"), "-c", suite)
    assert "closest" not in line
    assert "to check it on a column of another name: --rename ZipCode=FILE_COLUMN" in line
