"""Shared fixtures: one real local Spark session per test run, real DuckDB, the shared data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
LAKE = SHARED / "lake"
LAKE_MINI = SHARED / "lake-mini"
DIRTY_CLEAN = SHARED / "dirty-clean"


@pytest.fixture(scope="session")
def spark():
    """A real local[2] Spark session, started once and stopped at the end of the run."""
    from autovalidate.sparkutil import local_session

    session = local_session("autovalidate-tests", master="local[2]")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def lake_mini() -> Path:
    if not LAKE_MINI.exists():
        pytest.fail(f"{LAKE_MINI} is missing: the tests need ../shared beside the repository")
    return LAKE_MINI


@pytest.fixture(scope="session")
def mini_index(spark, lake_mini, tmp_path_factory) -> Path:
    """The lake-mini index, built once per run through the CLI (``autovalidate index build``)."""
    from typer.testing import CliRunner

    from autovalidate.cli import app

    out = tmp_path_factory.mktemp("mini") / "index"
    result = CliRunner().invoke(
        app, ["index", "build", "--lake", str(lake_mini), "--out", str(out), "--json"]
    )
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="session")
def dirty_clean() -> Path:
    if not DIRTY_CLEAN.exists():
        pytest.fail(f"{DIRTY_CLEAN} is missing: the tests need ../shared beside the repository")
    return DIRTY_CLEAN


os.environ.setdefault("PYSPARK_PYTHON", os.environ.get("PYSPARK_PYTHON", "python3"))
