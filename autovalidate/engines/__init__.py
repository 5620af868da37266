"""Execution engines: how analyzers run (DuckDB locally, Spark in pipelines).

:func:`engine_for` picks the engine from the data: a PySpark DataFrame runs on
Spark, anything :func:`autovalidate.engines.io.to_relation` accepts (a path, pandas,
Arrow, a DuckDB relation) on DuckDB. CSV files are read as text exactly as
written, on every path into the package (see :mod:`autovalidate.engines.io`).
:func:`open_engine` is the same as a context manager that also accepts an
engine, so that one function serves data and engines alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from autovalidate.engines.base import Engine, ExecutionStats

__all__ = ["Engine", "ExecutionStats", "engine_for", "open_engine"]


def engine_for(data: Any, *, sandbox: bool = False) -> Engine:
    """Return a new engine for ``data``.

    With ``sandbox``, a DuckDB engine runs user SQL with external access off
    (see :class:`~autovalidate.engines.duckdb.DuckDBEngine`); Spark has no
    such switch (the SQL is parsed and checked instead:
    :mod:`autovalidate.user_code`).

    Raises
    ------
    DataSourceError, DataError
        If DuckDB cannot read ``data`` (see :func:`autovalidate.engines.io.to_relation`).
    """
    from autovalidate.engines.spark import SparkEngine, is_spark_dataframe

    if is_spark_dataframe(data):
        return SparkEngine(data)
    from autovalidate.engines.duckdb import DuckDBEngine

    return DuckDBEngine(data, sandbox=sandbox)


@contextmanager
def open_engine(data: Any, *, sandbox: bool = False) -> Iterator[Engine]:
    """Yield the engine for ``data``: ``data`` itself if it is an engine, else a new one.

    A new engine is closed when the block ends; an engine passed in is left
    open for its owner.

    Raises
    ------
    DataSourceError, DataError
        As :func:`engine_for`.
    """
    if isinstance(data, Engine):
        yield data
        return
    engine = engine_for(data, sandbox=sandbox)
    try:
        yield engine
    finally:
        engine.close()
