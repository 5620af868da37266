"""The DuckDB metrics repository never waits silently: a held lock times out with a message.

Issue 10: ``metrics record`` waited for ever, printing nothing, while another
process held the repository's lock; and a repository in a folder the process
cannot write could not even be read. A real second process holds the real lock
file here; real DuckDB files.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pandas as pd
import pytest
from typer.testing import CliRunner

from autovalidate.analysis import AnalysisRunner
from autovalidate.cli import app
from autovalidate.errors import ParameterError, RepositoryError
from autovalidate.metrics import Completeness
from autovalidate.repository import ResultKey, open_repository
from autovalidate.repository.duckdb import TIMEOUT_ENV, DuckDBMetricsRepository, default_timeout

KEY = ResultKey.at("orders", "2024-01-01")


def _context():
    return (
        AnalysisRunner.on_data(pd.DataFrame({"a": [1, None]})).add_analyzer(Completeness("a")).run()
    )


@pytest.fixture()
def held_lock(tmp_path):
    """Another process holding the repository's lock file exclusively until the test ends."""
    db = tmp_path / "metrics.duckdb"
    DuckDBMetricsRepository(db).save(KEY, _context())
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import fcntl, sys, time
                handle = open({str(db) + ".lock"!r}, "a+b")
                fcntl.flock(handle, fcntl.LOCK_EX)
                print("held", flush=True)
                sys.stdin.read()
                """
            ),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    yield db
    holder.communicate("")  # closing stdin ends the holder


def test_a_held_lock_times_out_with_a_message(held_lock):
    repo = DuckDBMetricsRepository(held_lock, timeout=0.5)
    with pytest.raises(
        RepositoryError, match=f"has held metrics.duckdb.lock for 0.5 s.*{TIMEOUT_ENV}"
    ):
        repo.save(KEY, _context())
    with pytest.raises(RepositoryError):  # a read waits for the writer too, and gives up as well
        repo.load().get()


def test_the_cli_gives_up_after_the_configured_timeout(held_lock, tmp_path, monkeypatch):
    batch = tmp_path / "batch.csv"
    batch.write_text("a,b\n1,x\n2,y\n")
    monkeypatch.setenv(TIMEOUT_ENV, "0.5")
    res = CliRunner().invoke(
        app, ["metrics", "record", str(batch), "-r", str(held_lock), "-d", "orders"]
    )
    assert res.exit_code == 2, res.output
    line = res.output.strip()
    assert line.startswith("error:") and "\n" not in line and "for 0.5 s" in line


def test_the_timeout_is_60_s_unless_configured(monkeypatch):
    monkeypatch.delenv(TIMEOUT_ENV, raising=False)
    assert default_timeout() == 60.0
    assert DuckDBMetricsRepository("x.duckdb").timeout == 60.0
    monkeypatch.setenv(TIMEOUT_ENV, "5")
    assert open_repository("x.duckdb").timeout == 5.0  # type: ignore[attr-defined]
    monkeypatch.setenv(TIMEOUT_ENV, "soon")
    with pytest.raises(ParameterError, match=TIMEOUT_ENV):
        DuckDBMetricsRepository("x.duckdb")


def test_readable_where_no_lock_file_can_be_made(tmp_path):
    db = tmp_path / "metrics.duckdb"
    DuckDBMetricsRepository(db).save(KEY, _context())
    os.remove(str(db) + ".lock")
    os.mkdir(str(db) + ".lock")  # opening it fails for every user, root included
    repo = DuckDBMetricsRepository(db, timeout=1)
    assert repo.load().get()[0].result_key == KEY
    with pytest.raises(RepositoryError, match="cannot open lock file"):
        repo.save(KEY, _context())


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_readable_in_a_read_only_folder(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    db = folder / "metrics.duckdb"
    DuckDBMetricsRepository(db).save(KEY, _context())
    os.remove(str(db) + ".lock")
    folder.chmod(0o555)
    try:
        assert DuckDBMetricsRepository(db).load().get()[0].result_key == KEY
    finally:
        folder.chmod(0o755)
