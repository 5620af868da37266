"""Metrics repositories: metrics history, keyed by dataset, date and tags (Deequ's ``repository``).

A run's metrics are saved under a :class:`ResultKey`: the dataset's name, the
date the data describes (``dataset_date``, milliseconds since the Unix epoch,
UTC, as Deequ's ``ResultKey.dataSetDate``) and free tags (a partition, a
region). Saving again under the same key replaces what was saved there. Only
successful metrics are stored.

A metric is identified by its analyzer's stable key
(:func:`~autovalidate.metrics.codec.analyzer_key`, canonical JSON of the
analyzer's class and fields, e.g. ``{"analyzer":"Completeness","column":"price"}``),
which no change in how SQL is rendered can change. A stored row holds the key
(``analyzer_key``) and, for people reading the store, the analyzer's text
(``analyzer``, ``str(analyzer)`` when it was saved, e.g.
``Completeness(price,None)``); results print the text.

Stores written before the key existed keep loading: their rows have the text
only, and are *read under both keys* rather than migrated (an analyzer cannot
be rebuilt from its text, whose SQL may hold any comma): a metric of such a row
is filed under its text, and looking up an analyzer finds its key first, then
its text (:meth:`AnalysisResult.metric`); :meth:`AnalysisResult.with_keys_of`
files such metrics under the keys of given analyzers, for code that follows
series across old and new results. An old row is thus found as long as the
analyzer's text is what it was when the row was saved; rows saved since carry
the key and no longer depend on the text. Nothing is rewritten: the DuckDB
store gains the ``analyzer_key`` column on its first save by this version (old
rows read it as null), and JSON and Parquet files without it stay as they are.

Results load back by key or through a :class:`MetricsRepositoryLoader`
(Deequ's ``MetricsRepositoryMultipleResultsLoader``): by dataset, by tags
(every given tag must match), by analyzers, and by date range ``after <=
dataset_date <= before`` (both ends included, as Deequ).

Stores: :class:`~autovalidate.repository.duckdb.DuckDBMetricsRepository`
(the embedded default, one DuckDB file),
:class:`~autovalidate.repository.filesystem.FileSystemMetricsRepository`
(JSON or Parquet files in a directory) and
:class:`~autovalidate.repository.memory.InMemoryMetricsRepository`.

References
----------
Schelter et al., PVLDB 2018, §4 (metrics history for anomaly detection);
Deequ ``repository/MetricsRepository.scala``, ``ResultKey``, ``AnalysisResult``.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from autovalidate.analysis.runner import AnalyzerContext
from autovalidate.errors import ParameterError
from autovalidate.metrics.base import (
    Analyzer,
    Distribution,
    DistributionValue,
    Entity,
    Metric,
    MetricValue,
    TableSchema,
    plain,
)
from autovalidate.metrics.codec import analyzer_key, keys_by_text

__all__ = [
    "ROW_FIELDS",
    "AnalysisResult",
    "DataPoint",
    "MetricsRepository",
    "MetricsRepositoryLoader",
    "ResultKey",
    "date_to_ms",
    "results_from_rows",
    "rows_of",
]

#: Columns of a stored metric row, shared by every store.
ROW_FIELDS = (
    "dataset",
    "dataset_date",
    "tags",
    "analyzer",
    "entity",
    "instance",
    "name",
    "value",
    "value_json",
    "saved_at_ns",
    "save_id",
    "analyzer_key",
)


def date_to_ms(when: int | float | str | dt.date | dt.datetime) -> int:
    """Milliseconds since the Unix epoch (UTC) of a date, a datetime or an ISO-8601 string.

    A date is its midnight in UTC; a naive datetime is taken as UTC; a number is
    already milliseconds.

    Raises
    ------
    ParameterError
        If a string is not ISO 8601.

    Examples
    --------
    >>> date_to_ms("2024-01-02")
    1704153600000
    """
    if isinstance(when, bool):
        raise ParameterError(f"not a date: {when!r}")
    if isinstance(when, (int, float)):
        return int(when)
    if isinstance(when, str):
        try:
            parsed: dt.date | dt.datetime = dt.datetime.fromisoformat(when)
        except ValueError as exc:
            raise ParameterError(f"not an ISO-8601 date or datetime: {when!r}") from exc
        when = parsed
    if not isinstance(when, dt.datetime):
        when = dt.datetime(when.year, when.month, when.day)
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    return int(when.timestamp() * 1000)


@dataclass(frozen=True)
class ResultKey:
    """Where a run's metrics are saved (Deequ's ``ResultKey``, with the dataset's name).

    Attributes
    ----------
    dataset
        Name of the dataset the metrics describe.
    dataset_date
        The date the data describe, milliseconds since the Unix epoch (UTC).
    tags
        Further key parts, e.g. ``{"partition": "eu"}``.
    """

    dataset: str
    dataset_date: int
    tags: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.dataset:
            raise ParameterError("a result key needs a dataset name")
        object.__setattr__(self, "dataset_date", int(self.dataset_date))
        object.__setattr__(self, "tags", {str(k): str(v) for k, v in dict(self.tags).items()})

    def __hash__(self) -> int:
        return hash((self.dataset, self.dataset_date, self.tags_json))

    @classmethod
    def at(
        cls,
        dataset: str,
        when: int | float | str | dt.date | dt.datetime | None = None,
        tags: Mapping[str, str] | None = None,
    ) -> ResultKey:
        """A key for ``dataset`` at ``when`` (see :func:`date_to_ms`; ``None``: now)."""
        ms = int(time.time() * 1000) if when is None else date_to_ms(when)
        return cls(dataset, ms, dict(tags or {}))

    @property
    def tags_json(self) -> str:
        """The tags as canonical JSON (sorted keys): how stores keep them."""
        return json.dumps(dict(sorted(self.tags.items())), ensure_ascii=False)

    @property
    def date(self) -> dt.datetime:
        """``dataset_date`` as a UTC datetime."""
        return dt.datetime.fromtimestamp(self.dataset_date / 1000, tz=dt.timezone.utc)

    def to_dict(self) -> dict[str, Any]:
        """The key as plain data."""
        return {
            "dataset": self.dataset,
            "dataset_date": self.dataset_date,
            "date": self.date.isoformat(),
            "tags": dict(self.tags),
        }


@dataclass(frozen=True)
class DataPoint:
    """One point of a metric's history (Deequ's ``DataPoint``).

    Attributes
    ----------
    time
        ``dataset_date`` of the result, milliseconds since the epoch.
    value
        The metric value, ``None`` where the result has no such metric.
    """

    time: int
    value: float | None


@dataclass(frozen=True)
class AnalysisResult:
    """The metrics saved under one key (Deequ's ``AnalysisResult``).

    Attributes
    ----------
    result_key
        The key.
    metrics
        Analyzer key (:func:`~autovalidate.metrics.codec.analyzer_key`) ->
        metric; a metric saved before keys existed is under its analyzer's
        text (see the module docstring).
    descriptions
        Analyzer key -> the analyzer's text when it was saved
        (``str(analyzer)``); a key not in it is its own text.
    """

    result_key: ResultKey
    metrics: Mapping[str, Metric]
    descriptions: Mapping[str, str] = field(default_factory=dict)

    def description(self, key: str) -> str:
        """The text of the analyzer stored under ``key`` (a key of :attr:`metrics`)."""
        return self.descriptions.get(key, key)

    def _entry(self, analyzer: Analyzer | str) -> str | None:
        """The key of :attr:`metrics` holding ``analyzer``'s metric, ``None`` if none does."""
        if isinstance(analyzer, Analyzer):
            found = [analyzer_key(analyzer), str(analyzer)]  # a row saved before keys: its text
        else:
            found = [analyzer, *(k for k, text in self.descriptions.items() if text == analyzer)]
        return next((k for k in found if k in self.metrics), None)

    def metric(self, analyzer: Analyzer | str) -> Metric | None:
        """The metric of ``analyzer``, ``None`` if not saved.

        ``analyzer`` is an analyzer, its key or its text (``str(analyzer)``);
        an analyzer is found by its key, or in a result saved before keys
        existed by its text.
        """
        entry = self._entry(analyzer)
        return None if entry is None else self.metrics[entry]

    def value(self, analyzer: Analyzer | str) -> float | None:
        """The numeric value of ``analyzer``'s metric, ``None`` if absent or not a number."""
        metric = self.metric(analyzer)
        value = None if metric is None else metric.value
        return float(value) if isinstance(value, (int, float)) else None

    def with_keys_of(self, analyzers: Iterable[Analyzer]) -> AnalysisResult:
        """The result with each metric saved before keys existed under the key of its analyzer.

        A metric stored under an analyzer's text (``str(analyzer)`` of one of
        ``analyzers``) moves to that analyzer's key, so that it joins the
        series of the results saved with keys; others stay as they are.
        """
        keys = keys_by_text(analyzers)
        moved = {k: keys[k] for k in self.metrics if k in keys and keys[k] not in self.metrics}
        if not moved:
            return self
        return AnalysisResult(
            self.result_key,
            {moved.get(k, k): m for k, m in self.metrics.items()},
            {moved.get(k, k): self.description(k) for k in self.metrics},
        )

    def to_dict(self) -> dict[str, Any]:
        """Key and metrics as plain data, each metric with its analyzer's text (``analyzer``)."""
        return {
            **self.result_key.to_dict(),
            "metrics": [
                {"analyzer": self.description(a), **m.to_dict()} for a, m in self.metrics.items()
            ],
        }


def _metrics_of(metrics: AnalyzerContext | Mapping[Analyzer, Metric]) -> Mapping[Analyzer, Metric]:
    return metrics.metrics if isinstance(metrics, AnalyzerContext) else metrics


def rows_of(key: ResultKey, metrics: Mapping[Analyzer, Metric]) -> list[dict[str, Any]]:
    """The stored rows of one save: one per successful metric, all with one ``save_id``.

    Each row holds the analyzer's key (``analyzer_key``) and its text (``analyzer``).

    Raises
    ------
    ConstraintFormatError
        If an analyzer has no key (:func:`~autovalidate.metrics.codec.analyzer_key`).
    """
    saved_at, save_id = time.time_ns(), uuid.uuid4().hex
    rows = []
    for analyzer, metric in metrics.items():
        if metric.error is not None or metric.value is None:
            continue
        scalar = isinstance(metric.value, (int, float)) and not isinstance(metric.value, bool)
        rows.append(
            {
                "dataset": key.dataset,
                "dataset_date": key.dataset_date,
                "tags": key.tags_json,
                "analyzer": str(analyzer),
                "entity": metric.entity.value,
                "instance": metric.instance,
                "name": metric.name,
                "value": float(metric.value) if scalar else None,  # type: ignore[arg-type]
                "value_json": None if scalar else json.dumps(plain(metric.value)),
                "saved_at_ns": saved_at,
                "save_id": save_id,
                "analyzer_key": analyzer_key(analyzer),
            }
        )
    return rows


def _value_from(row: Mapping[str, Any]) -> MetricValue:
    if row.get("value_json") is None:
        value = row["value"]
        return math.nan if value is None else float(value)
    data = json.loads(row["value_json"])
    if isinstance(data, dict) and set(data) == {"columns"}:
        return TableSchema(tuple((str(n), str(t)) for n, t in data["columns"]))
    if isinstance(data, dict) and set(data) == {"number_of_bins", "values"}:
        return Distribution(
            {
                k: DistributionValue(int(v["absolute"]), float(v["ratio"]))
                for k, v in data["values"].items()
            },
            int(data["number_of_bins"]),
        )
    return {k: float(v) for k, v in data.items()}


def results_from_rows(rows: Iterable[Mapping[str, Any]]) -> list[AnalysisResult]:
    """Group stored rows into results; for a key saved more than once the newest save wins.

    A row's metric is filed under its ``analyzer_key``, or under its text
    (``analyzer``) when it has none (saved before keys existed). Results are
    ordered by ``dataset_date``, then dataset and tags.
    """
    saves: dict[tuple[str, int, str], tuple[tuple[int, str], list[Mapping[str, Any]]]] = {}
    for row in rows:
        key = (row["dataset"], int(row["dataset_date"]), row["tags"])
        version = (int(row["saved_at_ns"]), str(row["save_id"]))
        current = saves.get(key)
        if current is None or version > current[0]:
            saves[key] = (version, [row])
        elif version == current[0]:
            current[1].append(row)
    results = []
    for (dataset, date, tags), (_, members) in saves.items():
        metrics, descriptions = {}, {}
        for r in members:
            entry = r.get("analyzer_key") or r["analyzer"]
            metrics[entry] = Metric(Entity(r["entity"]), r["instance"], r["name"], _value_from(r))
            descriptions[entry] = r["analyzer"]
        result_key = ResultKey(dataset, date, json.loads(tags))
        results.append(AnalysisResult(result_key, metrics, descriptions))
    results.sort(
        key=lambda r: (r.result_key.dataset_date, r.result_key.dataset, r.result_key.tags_json)
    )
    return results


class MetricsRepository(ABC):
    """Stores the metrics of runs under result keys (Deequ's ``MetricsRepository``).

    Stores implement :meth:`_write` (replace the rows of one key) and
    :meth:`_read` (rows, optionally of one dataset and date range).
    """

    def save(self, key: ResultKey, metrics: AnalyzerContext | Mapping[Analyzer, Metric]) -> None:
        """Save the successful metrics under ``key``, replacing what was saved there.

        Raises
        ------
        ParameterError
            If no metric succeeded: there is nothing to save.
        RepositoryError
            If the store cannot be written.
        """
        rows = rows_of(key, _metrics_of(metrics))
        if not rows:
            raise ParameterError(f"nothing to save under {key}: no metric succeeded")
        self._write(key, rows)

    def load_by_key(self, key: ResultKey) -> AnalysisResult | None:
        """The result saved under ``key``, or ``None``.

        Raises
        ------
        RepositoryError
            If the store cannot be read.
        """
        for result in (
            self.load()
            .for_dataset(key.dataset)
            .after(key.dataset_date)
            .before(key.dataset_date)
            .get()
        ):
            if result.result_key == key:
                return result
        return None

    def load(self) -> MetricsRepositoryLoader:
        """Start a query over the saved results."""
        return MetricsRepositoryLoader(self)

    @abstractmethod
    def _write(self, key: ResultKey, rows: Sequence[Mapping[str, Any]]) -> None:
        """Replace the rows of ``key`` with ``rows`` (at least one, all of one save), atomically."""

    @abstractmethod
    def _read(
        self, dataset: str | None, after: int | None, before: int | None
    ) -> list[AnalysisResult]:
        """Results of ``dataset`` (all if ``None``) with ``after <= dataset_date <= before``."""


class MetricsRepositoryLoader:
    """A query over a repository's results (Deequ's ``MetricsRepositoryMultipleResultsLoader``).

    Every method returns the loader, so queries chain::

        repository.load().for_dataset("orders").with_tag_values({"region": "eu"}).after(t).get()
    """

    def __init__(self, repository: MetricsRepository) -> None:
        self._repository = repository
        self._dataset: str | None = None
        self._tags: dict[str, str] = {}
        self._analyzers: list[Analyzer | str] | None = None
        self._after: int | None = None
        self._before: int | None = None

    def for_dataset(self, dataset: str) -> MetricsRepositoryLoader:
        """Only results of ``dataset``."""
        self._dataset = dataset
        return self

    def with_tag_values(self, tags: Mapping[str, str]) -> MetricsRepositoryLoader:
        """Only results whose tags include all of ``tags``."""
        self._tags = {str(k): str(v) for k, v in tags.items()}
        return self

    def for_analyzers(self, analyzers: Iterable[Analyzer | str]) -> MetricsRepositoryLoader:
        """Keep only these analyzers' metrics in each result.

        An analyzer is found as :meth:`AnalysisResult.metric` finds it.
        """
        self._analyzers = list(analyzers)
        return self

    def after(self, when: int | float | str | dt.date | dt.datetime) -> MetricsRepositoryLoader:
        """Only results with ``dataset_date >= when`` (see :func:`date_to_ms`)."""
        self._after = date_to_ms(when)
        return self

    def before(self, when: int | float | str | dt.date | dt.datetime) -> MetricsRepositoryLoader:
        """Only results with ``dataset_date <= when`` (see :func:`date_to_ms`)."""
        self._before = date_to_ms(when)
        return self

    def get(self) -> list[AnalysisResult]:
        """The matching results, ordered by ``dataset_date``.

        Raises
        ------
        RepositoryError
            If the store cannot be read.
        """
        results = self._repository._read(self._dataset, self._after, self._before)
        out = []
        for result in results:
            tags = result.result_key.tags
            if any(tags.get(k) != v for k, v in self._tags.items()):
                continue
            if self._analyzers is not None:
                wanted = {result._entry(a) for a in self._analyzers}
                result = AnalysisResult(
                    result.result_key,
                    {a: m for a, m in result.metrics.items() if a in wanted},
                    {a: t for a, t in result.descriptions.items() if a in wanted},
                )
            out.append(result)
        return out

    def series(self, analyzer: Analyzer | str) -> list[DataPoint]:
        """The history of one metric: its value in each matching result, ordered by date."""
        return [DataPoint(r.result_key.dataset_date, r.value(analyzer)) for r in self.get()]
