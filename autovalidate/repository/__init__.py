"""Metrics repositories: the history of metrics by dataset, date and tags (Deequ's ``repository``).

:func:`open_repository` opens a store from a location: a ``.duckdb`` (or
``.db``) file is a :class:`DuckDBMetricsRepository`, anything else a directory
of a :class:`FileSystemMetricsRepository`.
"""

from __future__ import annotations

import os
from pathlib import Path

from autovalidate.repository.base import (
    AnalysisResult,
    DataPoint,
    MetricsRepository,
    MetricsRepositoryLoader,
    ResultKey,
    date_to_ms,
)
from autovalidate.repository.duckdb import DuckDBMetricsRepository
from autovalidate.repository.filesystem import FileSystemMetricsRepository
from autovalidate.repository.memory import InMemoryMetricsRepository

__all__ = [
    "AnalysisResult",
    "DataPoint",
    "DuckDBMetricsRepository",
    "FileSystemMetricsRepository",
    "InMemoryMetricsRepository",
    "MetricsRepository",
    "MetricsRepositoryLoader",
    "ResultKey",
    "date_to_ms",
    "open_repository",
]

#: Suffixes of DuckDB database files.
DUCKDB_SUFFIXES = (".duckdb", ".db")


def open_repository(
    location: str | os.PathLike[str], *, file_format: str = "json"
) -> MetricsRepository:
    """Open the metrics repository at ``location``.

    Parameters
    ----------
    location
        A DuckDB file (suffix ``.duckdb`` or ``.db``) or a directory of JSON
        and Parquet files; neither needs to exist before the first save.
    file_format
        For a directory: how new saves are written, ``"json"`` or ``"parquet"``.

    Returns
    -------
    MetricsRepository

    Raises
    ------
    ParameterError
        If ``file_format`` is unknown.
    """
    path = Path(location)
    if path.suffix.lower() in DUCKDB_SUFFIXES:
        return DuckDBMetricsRepository(path)
    return FileSystemMetricsRepository(path, file_format=file_format)
