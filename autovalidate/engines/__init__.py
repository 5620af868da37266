"""Execution engines: how analyzers run (DuckDB locally, Spark in pipelines).

:func:`engine_for` picks the engine from the data: a PySpark DataFrame runs on
Spark, anything :func:`autovalidate.io.to_relation` accepts (a path, pandas,
Arrow, a DuckDB relation) on DuckDB.
"""

from __future__ import annotations

from typing import Any

from autovalidate.engines.base import Engine, ExecutionStats

__all__ = ["Engine", "ExecutionStats", "engine_for"]


def engine_for(data: Any) -> Engine:
    """Return the engine for ``data``.

    Raises
    ------
    DataSourceError, DataError
        If DuckDB cannot read ``data`` (see :func:`autovalidate.io.to_relation`).
    """
    from autovalidate.engines.spark import SparkEngine, is_spark_dataframe

    if is_spark_dataframe(data):
        return SparkEngine(data)
    from autovalidate.engines.duckdb import DuckDBEngine

    return DuckDBEngine(data)
