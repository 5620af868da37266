"""``has_no_anomalies``: a constraint deciding a metric against its history in a metrics repository.

The metric is computed on the batch as any other; its history is read from
the repository (the dataset's results, optionally only those with some tags
and in a date range), and the strategy decides whether the new value is an
anomaly, the new point placed just after the newest result, as Deequ's
``isNewestPointNonAnomalous``. The constraint fails when it is, and also (a
finding, not an error) when the history holds no value of the metric.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from autovalidate.anomaly.base import AnomalyDetectionStrategy, AnomalyDetector
from autovalidate.checks.constraints import (
    ASSERTION_EXCEPTION,
    Constraint,
    ConstraintResult,
    ConstraintStatus,
)
from autovalidate.metrics.base import Metric
from autovalidate.repository.base import DataPoint

if TYPE_CHECKING:
    from autovalidate.repository.base import MetricsRepository

__all__ = ["AnomalyConstraint", "NO_HISTORY"]

#: Deequ's message when the repository has no earlier result.
NO_HISTORY = "There have to be previous results in the MetricsRepository!"


@dataclass(frozen=True, eq=False, kw_only=True)
class AnomalyConstraint(Constraint):
    """The batch's metric is not an anomaly in the metric's history (Deequ's anomaly constraint).

    Attributes
    ----------
    strategy
        Decides whether the new value is an anomaly.
    repository
        Holds the history.
    dataset
        Whose results form the history.
    tags
        Only results with these tags (all must match).
    after, before
        Only results with ``after <= dataset_date <= before`` (ms since the epoch).

    The result's ``details`` hold the history length and the strategy's
    decision (expected value and acceptable range).

    References
    ----------
    Schelter et al., PVLDB 2018, §3.4; Deequ ``Check.isNewestPointNonAnomalous``.
    """

    strategy: AnomalyDetectionStrategy
    repository: MetricsRepository
    dataset: str
    tags: Mapping[str, str] = field(default_factory=dict)
    after: int | None = None
    before: int | None = None

    def row_violation(self) -> None:
        """None: an anomaly is a finding on the batch's metric, not on a row."""
        return None

    def history(self) -> list[DataPoint]:
        """The metric's earlier values, oldest first (results without it left out)."""
        loader = self.repository.load().for_dataset(self.dataset).with_tag_values(self.tags)
        if self.after is not None:
            loader = loader.after(self.after)
        if self.before is not None:
            loader = loader.before(self.before)
        return [p for p in loader.series(self.analyzer) if p.value is not None]

    def decide(self, metric: Metric) -> ConstraintResult:
        """Detect whether the metric's value is an anomaly after its history."""
        value = metric.value
        if not isinstance(value, (int, float)):
            return self._result(
                ConstraintStatus.FAILURE,
                f"{ASSERTION_EXCEPTION}: anomaly detection needs a numeric metric!",
                metric=metric,
            )
        history = self.history()
        details: dict[str, Any] = {
            "strategy": self.strategy.to_dict(),
            "dataset": self.dataset,
            "history": len(history),
        }

        def failure(message: str) -> ConstraintResult:
            return self._result(
                ConstraintStatus.FAILURE, message, metric=metric, value=value, details=details
            )

        if not history:
            return failure(f"{ASSERTION_EXCEPTION}: {NO_HISTORY}")
        new_point = DataPoint(max(p.time for p in history) + 1, float(value))
        try:
            result = AnomalyDetector(self.strategy).is_new_point_anomalous(history, new_point)
        except Exception as exc:  # noqa: BLE001 - a strategy that cannot decide is a finding
            return failure(f"{ASSERTION_EXCEPTION}: {exc}!")
        if result.points:
            details.update(result.points[-1][1].to_dict())
        if result.is_anomalous:
            return failure(f"Value: {value} is an anomaly. {result.anomalies[-1][1].detail}")
        return self._result(ConstraintStatus.SUCCESS, metric=metric, value=value, details=details)
