"""A metrics repository of files in a directory: one JSON or Parquet file per save.

Layout: ``<root>/<dataset>/<dataset_date>-<save id>.json`` (or ``.parquet``),
the dataset's name percent-encoded (``/`` included, and the names ``.`` and
``..``, which would be the repository and its parent, as ``%2E`` and
``%2E%2E``: every name has a directory of its own inside ``<root>``). Each
save writes a new file (to a temporary name, then renamed into place, which is
atomic on a POSIX filesystem) and never rewrites one, so any number of
processes may save concurrently without a lock and lose nothing. Saving a key
again adds a newer file; reads keep, per key, the newest save (by its time in
nanoseconds, then its random id). A file holds the same rows as the DuckDB
store (:data:`~autovalidate.repository.base.ROW_FIELDS`); a directory may mix
both formats, and files written before analyzers had a stable key, whose rows
lack ``analyzer_key`` (they are found by their analyzer's text, see
:mod:`autovalidate.repository.base`; no file is rewritten).

This is Deequ's ``FileSystemMetricsRepository`` made safe for concurrent
writers: Deequ rewrites one JSON file, and of two concurrent writers one loses.
"""

from __future__ import annotations

import json
import os
import tempfile
import urllib.parse
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from autovalidate.errors import ParameterError, RepositoryError
from autovalidate.repository.base import (
    AnalysisResult,
    MetricsRepository,
    ResultKey,
    results_from_rows,
)
from autovalidate.repository.duckdb import _SCHEMA
from autovalidate.schemas import parse_json

__all__ = ["FileSystemMetricsRepository"]

_FORMATS = ("json", "parquet")


class FileSystemMetricsRepository(MetricsRepository):
    """Metrics history as files under a directory (created on the first save).

    Parameters
    ----------
    root
        The directory.
    file_format
        ``"json"`` or ``"parquet"``: how new saves are written (both are read).

    Raises
    ------
    ParameterError
        If ``file_format`` is neither.
    """

    def __init__(self, root: str | os.PathLike[str], *, file_format: str = "json") -> None:
        if file_format not in _FORMATS:
            raise ParameterError(f"file_format must be 'json' or 'parquet', got {file_format!r}")
        self.root = Path(root)
        self.file_format = file_format

    def __repr__(self) -> str:
        return f"FileSystemMetricsRepository({str(self.root)!r}, file_format={self.file_format!r})"

    def _dataset_dir(self, dataset: str) -> Path:
        return self.root / _directory_name(dataset)

    def _write(self, key: ResultKey, rows: Sequence[Mapping[str, Any]]) -> None:
        directory = self._dataset_dir(key.dataset)
        save_id = rows[0]["save_id"]
        final = directory / f"{key.dataset_date}-{save_id}.{self.file_format}"
        try:
            directory.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".part")
            try:
                with os.fdopen(fd, "wb") as handle:
                    if self.file_format == "json":
                        doc = {"key": key.to_dict(), "rows": [dict(r) for r in rows]}
                        handle.write(json.dumps(doc, ensure_ascii=False).encode("utf-8"))
                    else:
                        pq.write_table(
                            pa.Table.from_pylist([dict(r) for r in rows], schema=_SCHEMA), handle
                        )
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(tmp, final)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as exc:
            raise RepositoryError(str(self.root), f"cannot save {key}: {exc}") from exc

    def _read(
        self, dataset: str | None, after: int | None, before: int | None
    ) -> list[AnalysisResult]:
        if dataset is not None:
            # no result has an empty name (ResultKey refuses it), so none has a directory
            directories = [self._dataset_dir(dataset)] if dataset else []
        elif self.root.is_dir():
            directories = [d for d in self.root.iterdir() if d.is_dir()]
        else:
            directories = []
        rows: list[dict[str, Any]] = []
        for directory in directories:
            try:
                paths = list(directory.iterdir()) if directory.is_dir() else []
            except OSError as exc:  # a dataset's name longer than a file's (255 bytes)
                raise RepositoryError(str(self.root), f"cannot read: {exc}") from exc
            for path in paths:
                if path.name.startswith(".") or path.suffix not in (".json", ".parquet"):
                    continue
                try:
                    date = int(path.stem.rsplit("-", 1)[0])
                except ValueError:
                    raise RepositoryError(
                        str(path), "not a metrics file of this repository (DATE-ID.json expected)"
                    ) from None
                if (after is not None and date < after) or (before is not None and date > before):
                    continue
                rows.extend(_read_file(path))
        return results_from_rows(rows)


def _directory_name(dataset: str) -> str:
    """The name of ``dataset``'s directory: one of its own, inside the repository.

    ``urllib.parse.quote`` with no safe character, as every repository was
    written, except for the two names it leaves as they are but a file system
    does not take as a directory's: ``.`` (the repository itself) and ``..``
    (its parent, outside it; a suite's ``has_no_anomalies`` may name any
    dataset). Their dots are percent-encoded, ``%2E``, which ``quote`` never
    writes (a dot is left as it is), so no other name's directory changes and
    distinct names keep distinct directories; ``urllib.parse.unquote`` reads
    every directory's name back. A name longer than a file system takes (255
    bytes, encoded) is refused by it, as a :class:`RepositoryError`; the empty
    name has no directory (see ``_read``).
    """
    if not dataset:
        raise ParameterError("a dataset needs a name")
    if dataset in (".", ".."):
        return "%2E" * len(dataset)
    return urllib.parse.quote(dataset, safe="")


#: The fields every stored row has (and ``value`` or ``value_json``; ``analyzer_key``
#: unless it was saved before keys existed).
_ROW_FIELDS = frozenset(
    {"dataset", "dataset_date", "tags", "analyzer", "entity", "instance", "name"}
    | {"saved_at_ns", "save_id"}
)


def _read_file(path: Path) -> list[dict[str, Any]]:
    try:
        if path.suffix == ".json":
            rows: list[dict[str, Any]] = parse_json(path.read_text(encoding="utf-8"))["rows"]
        else:
            rows = pq.read_table(path).to_pylist()
    except (OSError, ValueError, KeyError, TypeError, pa.ArrowException) as exc:
        raise RepositoryError(str(path), f"unreadable metrics file: {exc!r}") from exc
    for row in rows if isinstance(rows, list) else [None]:
        missing = _ROW_FIELDS - set(row) if isinstance(row, dict) else _ROW_FIELDS
        if missing:
            raise RepositoryError(
                str(path), f"unreadable metrics file: a row lacks {', '.join(sorted(missing))}"
            )
    return rows
