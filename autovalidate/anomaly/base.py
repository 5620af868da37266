"""Anomaly detection on metric time series: the strategy interface and the detector.

A strategy looks at a series of metric values (oldest first) and decides, for
each point of a search interval ``[start, end)`` of indices, whether it is an
anomaly; it reports the bounds it held the point to (Deequ's extended
results). The :class:`AnomalyDetector` prepares a history of
:class:`~autovalidate.repository.DataPoint` for it: points without a value
are dropped, the rest sorted by time, and a time interval mapped to indices.

References
----------
Schelter et al., PVLDB 2018, §3.4; Deequ ``anomalydetection/AnomalyDetector.scala``,
``AnomalyDetectionStrategy.scala``, ``DetectionResult.scala``.
"""

from __future__ import annotations

import bisect
import math
import sys
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

from autovalidate.errors import ParameterError
from autovalidate.repository.base import DataPoint

__all__ = [
    "Anomaly",
    "AnomalyDetectionResult",
    "AnomalyDetectionStrategy",
    "AnomalyDetector",
    "DetectionPoint",
    "SearchInterval",
]

#: Indices ``[start, end)`` of the points to decide on.
SearchInterval = tuple[int, int]
_ALL: SearchInterval = (0, sys.maxsize)


@dataclass(frozen=True)
class Anomaly:
    """An anomalous point (Deequ's ``Anomaly``).

    Attributes
    ----------
    value
        The metric value.
    confidence
        Always 1.0, as in Deequ's strategies.
    detail
        Why it is an anomaly, with the bounds.
    """

    value: float
    confidence: float
    detail: str


@dataclass(frozen=True)
class DetectionPoint:
    """A strategy's decision on one point (Deequ's ``AnomalyDetectionDataPoint``).

    Attributes
    ----------
    index
        Position in the series.
    value
        The metric value.
    expected
        What the strategy expected (a forecast or a mean), if it has such a value.
    lower, upper
        The acceptable range of the value (inclusive); ``None`` for no bound
        (or no decision: too little history before the point).
    is_anomaly
        Whether the value lies outside the range.
    detail
        Why, for anomalies and undecided points.
    """

    index: int
    value: float
    expected: float | None
    lower: float | None
    upper: float | None
    is_anomaly: bool
    detail: str | None = None

    @classmethod
    def against_bounds(
        cls,
        index: int,
        value: float,
        expected: float | None,
        lower: float | None,
        upper: float | None,
        message: str,
    ) -> DetectionPoint:
        """The point, an anomaly iff ``value < lower`` or ``value > upper``; ``message`` its detail.

        A bound of ``None`` is no bound; a NaN value is never outside.
        """
        anomalous = (lower is not None and value < lower) or (upper is not None and value > upper)
        return cls(index, value, expected, lower, upper, anomalous, message if anomalous else None)

    def to_dict(self) -> dict[str, Any]:
        """The decision as plain data (infinite bounds as ``None``)."""
        out = asdict(self)
        for key in ("expected", "lower", "upper"):
            if out[key] is not None and not math.isfinite(out[key]):
                out[key] = None
        return out


def check_interval(series: Sequence[float], search_interval: SearchInterval) -> range:
    """The indices of ``series`` inside ``[start, end)``.

    Raises
    ------
    ParameterError
        If ``start > end``.
    """
    start, end = search_interval
    if start > end:
        raise ParameterError(f"the search interval's start {start} is after its end {end}")
    return range(max(start, 0), min(end, len(series)))


class AnomalyDetectionStrategy(ABC):
    """How to decide which points of a metric series are anomalies.

    Subclasses are frozen dataclasses whose fields are their parameters, so a
    strategy serializes as ``{"strategy": name, **fields}`` (see
    :func:`autovalidate.anomaly.strategy_from_dict`).
    """

    #: Name in serialized form, e.g. ``"OnlineNormal"``.
    name: ClassVar[str]

    @abstractmethod
    def detect_points(
        self, series: Sequence[float], search_interval: SearchInterval = _ALL
    ) -> list[DetectionPoint]:
        """Decide on every point of ``series`` in the search interval, in order."""

    def detect(
        self, series: Sequence[float], search_interval: SearchInterval = _ALL
    ) -> list[tuple[int, Anomaly]]:
        """The anomalies among the points in the search interval (Deequ's ``detect``).

        Parameters
        ----------
        series
            Metric values, oldest first.
        search_interval
            Indices ``[start, end)`` to decide on; earlier points are history.

        Returns
        -------
        list of (index, Anomaly)
        """
        return [
            (p.index, Anomaly(p.value, 1.0, p.detail or ""))
            for p in self.detect_points(series, search_interval)
            if p.is_anomaly
        ]

    def to_dict(self) -> dict[str, Any]:
        """The strategy as plain data."""
        return {"strategy": self.name, **asdict(self)}  # type: ignore[call-overload]


def bounds_text(lower: float | None, upper: float | None) -> str:
    """``[lower, upper]`` with open ends shown as infinities."""
    low = -math.inf if lower is None else lower
    high = math.inf if upper is None else upper
    return f"[{low}, {high}]"


@dataclass(frozen=True)
class AnomalyDetectionResult:
    """Anomalies found in a history (Deequ's ``AnomalyDetectionResult``).

    Attributes
    ----------
    anomalies
        ``(time, anomaly)`` per anomalous point.
    points
        ``(time, decision)`` per point decided on.
    """

    anomalies: tuple[tuple[int, Anomaly], ...]
    points: tuple[tuple[int, DetectionPoint], ...]

    @property
    def is_anomalous(self) -> bool:
        """True when some point is an anomaly."""
        return bool(self.anomalies)


@dataclass(frozen=True)
class AnomalyDetector:
    """Runs a strategy on a history of data points (Deequ's ``AnomalyDetector``).

    Parameters
    ----------
    strategy
        The anomaly detection strategy.
    """

    strategy: AnomalyDetectionStrategy

    def is_new_point_anomalous(
        self, history: Sequence[DataPoint], new_point: DataPoint
    ) -> AnomalyDetectionResult:
        """Decide whether ``new_point`` is an anomaly, given the points before it.

        Raises
        ------
        ParameterError
            If the history is empty or not all of it is older than the new point.
        """
        if not history:
            raise ParameterError("the history must not be empty")
        latest = max(p.time for p in history)
        if latest >= new_point.time:
            raise ParameterError(
                f"the new point's time {new_point.time} is within the history (up to {latest})"
            )
        return self.detect_anomalies_in_history(
            [*history, new_point], (new_point.time, sys.maxsize)
        )

    def detect_anomalies_in_history(
        self,
        series: Sequence[DataPoint],
        search_interval: tuple[int, int] = (-sys.maxsize, sys.maxsize),
    ) -> AnomalyDetectionResult:
        """The anomalies among the points with ``start <= time < end``.

        Points without a value are dropped and the rest sorted by time (stably)
        before the strategy sees them.

        Raises
        ------
        ParameterError
            If ``start > end``.
        """
        start, end = search_interval
        if start > end:
            raise ParameterError(f"the search interval's start {start} is after its end {end}")
        points = sorted((p for p in series if p.value is not None), key=lambda p: p.time)
        times = [p.time for p in points]
        values = [float(p.value) for p in points]  # type: ignore[arg-type]
        interval = (bisect.bisect_left(times, start), bisect.bisect_left(times, end))
        decided = self.strategy.detect_points(values, interval)
        return AnomalyDetectionResult(
            tuple(
                (times[p.index], Anomaly(p.value, 1.0, p.detail or ""))
                for p in decided
                if p.is_anomaly
            ),
            tuple((times[p.index], p) for p in decided),
        )
