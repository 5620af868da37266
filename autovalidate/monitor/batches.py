"""Batch validation by forecasts of column statistics (Redyuk, Markl & Schelter, 2020).

For every batch of a dataset, record as time series in a metrics repository
(:func:`record_batch`):

* the completeness and the approximate number of distinct values of every
  column (:class:`~autovalidate.metrics.Completeness`,
  :class:`~autovalidate.metrics.ApproxCountDistinct`);
* the mean, standard deviation (population), minimum and maximum of every
  numeric column (:class:`~autovalidate.metrics.Mean`,
  :class:`~autovalidate.metrics.StandardDeviation`,
  :class:`~autovalidate.metrics.Minimum`, :class:`~autovalidate.metrics.Maximum`).

A column is numeric when its values are (the profiler's Integral or
Fractional, see :mod:`autovalidate.profiles`) or when the history
already tracks its mean: then it is cast to numbers (a value that is not a
number is null for these statistics) so that the series go on.

Accepting a new batch (:func:`validate_batch`): each statistic tracked in the
history (at least ``min_history`` earlier values) is forecast from its
history by an anomaly detection strategy, by default the exponential-smoothing
forecast with a 90 % prediction interval
(:class:`~autovalidate.anomaly.ExponentialSmoothingStrategy`). The batch is
accepted iff every such statistic of the batch lies inside its interval; a
tracked statistic the batch does not have (a column gone, a mean over no
number) rejects it too. Statistics with less history are reported, not
decided on.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from autovalidate.anomaly.base import AnomalyDetectionStrategy, AnomalyDetector
from autovalidate.anomaly.exponential_smoothing import ExponentialSmoothingStrategy
from autovalidate.errors import InsufficientHistoryError, ParameterError
from autovalidate.metrics import (
    ApproxCountDistinct,
    Completeness,
    DataTypeInstance,
    Maximum,
    Mean,
    Minimum,
    StandardDeviation,
)
from autovalidate.metrics.base import Analyzer, Metric
from autovalidate.metrics.codec import analyzer_key
from autovalidate.profiles import profile_columns
from autovalidate.repository.base import (
    AnalysisResult,
    DataPoint,
    MetricsRepository,
    ResultKey,
)

__all__ = [
    "BATCH_STATISTICS",
    "BatchValidationResult",
    "StatisticDecision",
    "batch_statistics",
    "record_batch",
    "validate_batch",
]

#: Metric names recorded per batch, in report order.
BATCH_STATISTICS = (
    "Completeness",
    "ApproxCountDistinct",
    "Mean",
    "StandardDeviation",
    "Minimum",
    "Maximum",
)


def batch_statistics(data: Any, *, numeric_columns: Iterable[str] = ()) -> dict[Analyzer, Metric]:
    """The statistics of one batch (see the module docstring), computed in two shared scans.

    Parameters
    ----------
    data
        The batch: a CSV (read as text) or Parquet path, pandas, Arrow, a
        DuckDB relation or a PySpark DataFrame.
    numeric_columns
        Columns to treat as numeric whatever their values (those the history
        tracks); columns not in the batch are ignored.

    Returns
    -------
    dict
        Analyzer -> metric; a metric that could not be computed is a failure.
    """
    predefined = {c: DataTypeInstance.FRACTIONAL for c in numeric_columns}
    profiles = profile_columns(data, low_cardinality_threshold=0, predefined_types=predefined)
    out: dict[Analyzer, Metric] = {}
    for profile in profiles:
        c = profile.column
        analyzers: list[Analyzer] = [Completeness(c), ApproxCountDistinct(c)]
        if profile.is_numeric:
            analyzers += [Mean(c), StandardDeviation(c), Minimum(c), Maximum(c)]
        for analyzer in analyzers:
            out[analyzer] = profiles.metrics[analyzer]
    return out


def _history(
    repository: MetricsRepository,
    dataset: str,
    tags: Mapping[str, str] | None,
    before: int | None,
) -> list[AnalysisResult]:
    loader = repository.load().for_dataset(dataset).with_tag_values(tags or {})
    if before is not None:
        loader = loader.before(before)
    return loader.get()


def _tracked_numeric(history: Iterable[AnalysisResult]) -> set[str]:
    return {m.instance for r in history for m in r.metrics.values() if m.name == "Mean"}


def record_batch(
    data: Any,
    repository: MetricsRepository,
    key: ResultKey,
    *,
    numeric_columns: Iterable[str] = (),
) -> dict[Analyzer, Metric]:
    """Compute a batch's statistics and save them under ``key``.

    Columns whose mean the dataset's history (results with ``key``'s tags)
    tracks stay numeric, as do ``numeric_columns``.

    Returns
    -------
    dict
        The statistics saved (failed ones are not).

    Raises
    ------
    RepositoryError
        If the repository cannot be read or written.
    """
    history = _history(repository, key.dataset, key.tags, None)
    numeric = _tracked_numeric(history) | set(numeric_columns)
    metrics = batch_statistics(data, numeric_columns=numeric)
    repository.save(key, metrics)
    return metrics


@dataclass(frozen=True)
class StatisticDecision:
    """The decision on one statistic of a new batch.

    Attributes
    ----------
    analyzer
        The statistic's analyzer, as its text (e.g. ``Completeness(price,None)``).
    name, column
        The metric's name and column.
    value
        The batch's value, ``None`` if the batch does not have it.
    history
        Earlier values the decision rests on.
    expected, lower, upper
        The forecast and the acceptable range (``None`` when not decided).
    status
        ``"accepted"``, ``"rejected"`` (outside the range), ``"missing"`` (the
        batch lacks a tracked statistic) or ``"not checked"`` (too little history).
    detail
        Why, for the last three.
    """

    analyzer: str
    name: str
    column: str
    value: float | None
    history: int
    expected: float | None
    lower: float | None
    upper: float | None
    status: str
    detail: str | None = None

    @property
    def rejects(self) -> bool:
        """True when this statistic makes the batch fail."""
        return self.status in ("rejected", "missing")

    def to_dict(self) -> dict[str, Any]:
        """The decision as plain data."""
        return dict(self.__dict__)


@dataclass(frozen=True)
class BatchValidationResult:
    """Whether a new batch is accepted, with the decision on each statistic.

    Attributes
    ----------
    dataset
        The dataset whose history was used.
    accepted
        True iff no statistic rejects the batch.
    statistics
        One decision per statistic tracked in the history.
    history_results
        Earlier results of the dataset (with the tags) in the repository.
    strategy
        The strategy, as data.
    batch_metrics
        The batch's statistics as computed for the decision (what
        :meth:`record` saves); not part of :meth:`to_dict`.
    history
        The earlier results the decision read (what a report charts).
    """

    dataset: str
    accepted: bool
    statistics: tuple[StatisticDecision, ...]
    history_results: int
    strategy: Mapping[str, Any]
    batch_metrics: Mapping[Analyzer, Metric] = field(
        default_factory=dict, repr=False, compare=False
    )
    history: tuple[AnalysisResult, ...] = field(default=(), repr=False, compare=False)

    def record(self, repository: MetricsRepository, key: ResultKey) -> None:
        """Save the batch's statistics under ``key``, as :func:`record_batch` would.

        The statistics the decision computed: the batch is not profiled, nor
        the history read, again.

        Raises
        ------
        RepositoryError
            If the repository cannot be written.
        """
        repository.save(key, dict(self.batch_metrics))

    @property
    def rejecting(self) -> list[StatisticDecision]:
        """The statistics that reject the batch."""
        return [s for s in self.statistics if s.rejects]

    def reasons(self) -> str:
        """Why the batch is rejected, in words; ``""`` when nothing rejects it.

        The statistics outside their interval and those the batch lacks (a
        column it does not have, a statistic not computed), each group named:
        ``"outside the interval: Mean(price); missing from the batch:
        ApproxCountDistinct(dest)"``.
        """
        parts = []
        for status, words in (
            ("rejected", "outside the interval"),
            ("missing", "missing from the batch"),
        ):
            names = [f"{s.name}({s.column})" for s in self.statistics if s.status == status]
            if names:
                parts.append(f"{words}: {', '.join(names)}")
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """The result as plain data."""
        return {
            "dataset": self.dataset,
            "accepted": self.accepted,
            "history_results": self.history_results,
            "strategy": dict(self.strategy),
            "statistics": [s.to_dict() for s in self.statistics],
        }


def validate_batch(
    data: Any,
    repository: MetricsRepository,
    dataset: str,
    *,
    strategy: AnomalyDetectionStrategy | None = None,
    tags: Mapping[str, str] | None = None,
    before: int | None = None,
    min_history: int = 3,
) -> BatchValidationResult:
    """Accept or reject a new batch by forecasts of its statistics (see the module docstring).

    Parameters
    ----------
    data
        The new batch (as for :func:`batch_statistics`).
    repository
        Holds the statistics of earlier, accepted batches (:func:`record_batch`).
    dataset
        The dataset's name in the repository.
    strategy
        Decides whether a statistic is an anomaly; default
        ``ExponentialSmoothingStrategy(confidence=0.9)``.
    tags
        Only earlier results with these tags form the history.
    before
        Only earlier results with ``dataset_date <= before`` (ms since the epoch).
    min_history
        Fewest earlier values a statistic needs to be decided on.

    Returns
    -------
    BatchValidationResult

    Raises
    ------
    InsufficientHistoryError
        If fewer than ``min_history`` earlier results exist.
    ParameterError
        If ``min_history < 1``.
    RepositoryError
        If the repository cannot be read.

    References
    ----------
    Redyuk, Markl & Schelter, "Towards Unsupervised Data Quality Validation on
    Dynamic Data", EDBT/ICDT workshops 2020.
    """
    if min_history < 1:
        raise ParameterError(f"min_history must be >= 1, got {min_history}")
    strategy = strategy or ExponentialSmoothingStrategy(0.9)
    history = _history(repository, dataset, tags, before)
    if len(history) < min_history:
        raise InsufficientHistoryError(dataset, len(history), min_history)
    computed = batch_statistics(data, numeric_columns=_tracked_numeric(history))
    # results saved before analyzer keys hold their metrics under the analyzers' text
    history = [r.with_keys_of(computed) for r in history]
    tracked: dict[str, tuple[Metric, str]] = {}
    for result in history:
        for key, metric in result.metrics.items():
            if metric.name in BATCH_STATISTICS:
                tracked.setdefault(key, (metric, result.description(key)))
    current = {analyzer_key(a): m for a, m in computed.items()}
    order = {name: i for i, name in enumerate(BATCH_STATISTICS)}
    columns = list(dict.fromkeys(m.instance for m in current.values()))
    column_order = {c: i for i, c in enumerate(columns)}
    decisions = []
    newest = max(r.result_key.dataset_date for r in history)
    for key, (metric, text) in sorted(
        tracked.items(),
        key=lambda kv: (column_order.get(kv[1][0].instance, len(columns)), order[kv[1][0].name]),
    ):
        series = [
            DataPoint(r.result_key.dataset_date, r.value(key))
            for r in history
            if r.value(key) is not None
        ]
        new = current.get(key)
        value = None if new is None or new.error is not None else new.value
        base = {"analyzer": text, "name": metric.name, "column": metric.instance}
        if not isinstance(value, (int, float)):
            why = "the batch has no such column" if new is None else f"not computed: {new.error}"
            decisions.append(
                StatisticDecision(
                    **base,
                    value=None,
                    history=len(series),
                    expected=None,
                    lower=None,
                    upper=None,
                    status="missing",
                    detail=why,
                )
            )
            continue
        if len(series) < min_history:
            decisions.append(
                StatisticDecision(
                    **base,
                    value=float(value),
                    history=len(series),
                    expected=None,
                    lower=None,
                    upper=None,
                    status="not checked",
                    detail=f"{len(series)} earlier value(s), fewer than {min_history}",
                )
            )
            continue
        detection = AnomalyDetector(strategy).is_new_point_anomalous(
            series, DataPoint(newest + 1, float(value))
        )
        point = detection.points[-1][1]
        status = "rejected" if point.is_anomaly else "accepted"
        if point.lower is None and point.upper is None and not point.is_anomaly and point.detail:
            status = "not checked"
        decisions.append(
            StatisticDecision(
                **base,
                value=float(value),
                history=len(series),
                expected=point.expected,
                lower=point.lower,
                upper=point.upper,
                status=status,
                detail=point.detail,
            )
        )
    accepted = not any(d.rejects for d in decisions)
    return BatchValidationResult(
        dataset,
        accepted,
        tuple(decisions),
        len(history),
        strategy.to_dict(),
        computed,
        tuple(history),
    )
