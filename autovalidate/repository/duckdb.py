"""A metrics repository in one DuckDB database file: the embedded default.

Concurrency: DuckDB lets one process at a time open a database file for
writing (and no other process open it at all meanwhile). So every operation
here opens the file, runs one short transaction and closes it again, and

* takes an advisory lock file beside the database (``<file>.lock``, POSIX
  ``flock``; exclusive for saves, shared for reads) so that processes using
  this class queue for the file instead of colliding;
* retries with exponential backoff (10 ms doubling to 0.5 s, with jitter)
  while the lock file is held, and when DuckDB still reports a conflicting lock
  (another program holding the file, or a platform without ``flock``), until
  ``timeout`` seconds (60 by default, ``$AUTOVALIDATE_REPOSITORY_TIMEOUT``) have
  passed, and then raises :class:`~autovalidate.errors.RepositoryError` naming
  the wait; it never waits silently for ever.

A save replaces the rows of its key in one transaction (delete, insert), so
concurrent writers lose nothing and readers never see half a save.

The table, ``autovalidate_metrics``, has one row per metric
(:data:`~autovalidate.repository.base.ROW_FIELDS`). A file written before
analyzers had a stable key lacks the ``analyzer_key`` column: it is read as
null (the rows are found by their analyzer's text, see
:mod:`autovalidate.repository.base`), and the first save adds it
(``ALTER TABLE ... ADD COLUMN``); the old rows keep their text only.
"""

from __future__ import annotations

import contextlib
import os
import random
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import duckdb
import pyarrow as pa

from autovalidate.errors import ParameterError, RepositoryError
from autovalidate.repository.base import (
    ROW_FIELDS,
    AnalysisResult,
    MetricsRepository,
    ResultKey,
    results_from_rows,
)

try:  # POSIX advisory locks; elsewhere the backoff alone serializes the writers
    import fcntl
except ImportError:  # pragma: no cover - not on the platforms CI runs
    fcntl = None  # type: ignore[assignment]

__all__ = ["DEFAULT_TIMEOUT", "TIMEOUT_ENV", "DuckDBMetricsRepository", "default_timeout"]

#: Seconds a repository operation waits for another process's lock.
DEFAULT_TIMEOUT = 60.0
#: Environment variable overriding :data:`DEFAULT_TIMEOUT` (seconds).
TIMEOUT_ENV = "AUTOVALIDATE_REPOSITORY_TIMEOUT"


def default_timeout() -> float:
    """Seconds to wait for a lock: ``$AUTOVALIDATE_REPOSITORY_TIMEOUT``, else 60.

    Raises
    ------
    ParameterError
        If the variable is set to something other than a non-negative number.
    """
    text = os.environ.get(TIMEOUT_ENV)
    if text is None or not text.strip():
        return DEFAULT_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0.0:
        raise ParameterError(f"{TIMEOUT_ENV}={text!r}: expected seconds, a number >= 0")
    return value


_TABLE = "autovalidate_metrics"
_SCHEMA = pa.schema(
    [
        ("dataset", pa.string()),
        ("dataset_date", pa.int64()),
        ("tags", pa.string()),
        ("analyzer", pa.string()),
        ("entity", pa.string()),
        ("instance", pa.string()),
        ("name", pa.string()),
        ("value", pa.float64()),
        ("value_json", pa.string()),
        ("saved_at_ns", pa.int64()),
        ("save_id", pa.string()),
        ("analyzer_key", pa.string()),
    ]
)
_CREATE = (
    f"CREATE TABLE IF NOT EXISTS {_TABLE} (dataset VARCHAR, dataset_date BIGINT, tags VARCHAR, "
    "analyzer VARCHAR, entity VARCHAR, instance VARCHAR, name VARCHAR, value DOUBLE, "
    "value_json VARCHAR, saved_at_ns BIGINT, save_id VARCHAR, analyzer_key VARCHAR)"
)
#: A table created before analyzers had keys gains the column on its first save.
_ADD_KEY = f"ALTER TABLE {_TABLE} ADD COLUMN IF NOT EXISTS analyzer_key VARCHAR"


class DuckDBMetricsRepository(MetricsRepository):
    """Metrics history in a DuckDB file (created on the first save).

    Parameters
    ----------
    path
        The database file, e.g. ``metrics.duckdb``.
    timeout
        Seconds to wait, at most, while another process holds the file or its
        lock file; then :class:`~autovalidate.errors.RepositoryError` says so.
        Default: the environment variable ``AUTOVALIDATE_REPOSITORY_TIMEOUT``,
        else 60.

    Examples
    --------
    >>> import tempfile, pandas as pd
    >>> from autovalidate.analysis import AnalysisRunner
    >>> from autovalidate.metrics import Completeness
    >>> repo = DuckDBMetricsRepository(tempfile.mkdtemp() + "/metrics.duckdb")
    >>> context = AnalysisRunner.on_data(pd.DataFrame({"a": [1, None]})).add_analyzer(
    ...     Completeness("a")).run()
    >>> repo.save(ResultKey.at("orders", "2024-01-01", {"region": "eu"}), context)
    >>> repo.load().for_dataset("orders").series(Completeness("a"))[0].value
    0.5
    """

    def __init__(self, path: str | os.PathLike[str], *, timeout: float | None = None) -> None:
        self.path = Path(path)
        self.timeout = default_timeout() if timeout is None else float(timeout)

    def __repr__(self) -> str:
        return f"DuckDBMetricsRepository({str(self.path)!r})"

    @contextlib.contextmanager
    def _locked(self, exclusive: bool, deadline: float) -> Iterator[None]:
        """Hold the advisory lock file, waiting with backoff until ``deadline`` at most.

        A repository in a folder this process cannot write (a read-only
        mount, say) is still readable: reads take the shared lock on an
        existing lock file opened read-only, or none when there is none (nobody
        can write there to be waited for).
        """
        if fcntl is None:
            yield
            return
        lock_path = self.path.with_name(self.path.name + ".lock")
        handle: IO[bytes]
        try:
            handle = open(lock_path, "a+b")  # noqa: SIM115 - closed below
        except OSError as exc:
            if exclusive:
                raise RepositoryError(str(self.path), f"cannot open lock file: {exc}") from exc
            try:
                handle = open(lock_path, "rb")  # noqa: SIM115 - closed below
            except OSError:
                yield  # a read-only folder without a lock file: no writer to wait for
                return
        try:
            delay = 0.01
            while True:
                try:
                    fcntl.flock(
                        handle, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB
                    )
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise RepositoryError(
                            str(self.path),
                            f"another process has held {lock_path.name} for {self.timeout:g} s; "
                            f"gave up (set {TIMEOUT_ENV} to wait longer)",
                        ) from None
                    time.sleep(delay * (0.5 + random.random()))
                    delay = min(delay * 2, 0.5)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
        finally:
            handle.close()

    @contextlib.contextmanager
    def _connect(self, *, write: bool) -> Iterator[duckdb.DuckDBPyConnection]:
        """A connection to the file, under the lock file, retried while DuckDB says locked."""
        deadline = time.monotonic() + self.timeout
        with self._locked(exclusive=write, deadline=deadline):
            delay = 0.01
            while True:
                try:
                    con = duckdb.connect(str(self.path), read_only=not write)
                    break
                except duckdb.IOException as exc:
                    if "lock" not in str(exc).lower() or time.monotonic() > deadline:
                        raise RepositoryError(str(self.path), f"cannot open: {exc}") from exc
                    time.sleep(delay * (0.5 + random.random()))
                    delay = min(delay * 2, 0.5)
                except duckdb.Error as exc:
                    raise RepositoryError(str(self.path), f"cannot open: {exc}") from exc
            try:
                yield con
            finally:
                con.close()

    def _write(self, key: ResultKey, rows: Sequence[Mapping[str, Any]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        table = pa.Table.from_pylist([dict(r) for r in rows], schema=_SCHEMA)
        with self._connect(write=True) as con:
            try:
                con.execute(_CREATE)
                con.execute(_ADD_KEY)
                con.execute("BEGIN TRANSACTION")
                con.execute(
                    f"DELETE FROM {_TABLE} WHERE dataset = ? AND dataset_date = ? AND tags = ?",
                    [key.dataset, key.dataset_date, key.tags_json],
                )
                con.register("_av_rows", table)
                columns = ", ".join(ROW_FIELDS)
                con.execute(f"INSERT INTO {_TABLE} ({columns}) SELECT {columns} FROM _av_rows")
                con.execute("COMMIT")
            except duckdb.Error as exc:
                with contextlib.suppress(duckdb.Error):
                    con.execute("ROLLBACK")
                raise RepositoryError(str(self.path), f"cannot save {key}: {exc}") from exc

    def _read(
        self, dataset: str | None, after: int | None, before: int | None
    ) -> list[AnalysisResult]:
        if not self.path.exists():
            return []
        conditions, params = [], []
        for sql, value in (
            ("dataset = ?", dataset),
            ("dataset_date >= ?", after),
            ("dataset_date <= ?", before),
        ):
            if value is not None:
                conditions.append(sql)
                params.append(value)
        where = f" WHERE {' AND '.join(conditions)}" if conditions else ""
        with self._connect(write=False) as con:
            try:
                stored = {
                    name
                    for (name,) in con.execute(
                        "SELECT column_name FROM information_schema.columns WHERE table_name = ?",
                        [_TABLE],
                    ).fetchall()
                }
                if not stored:
                    return []
                columns = ", ".join(f if f in stored else f"NULL AS {f}" for f in ROW_FIELDS)
                rows = con.execute(f"SELECT {columns} FROM {_TABLE}{where}", params).fetchall()
            except duckdb.Error as exc:
                raise RepositoryError(str(self.path), f"cannot read: {exc}") from exc
        return results_from_rows(dict(zip(ROW_FIELDS, row, strict=True)) for row in rows)
