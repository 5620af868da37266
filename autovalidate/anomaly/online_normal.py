"""OnlineNormalStrategy: an anomaly is far from the running mean, in running deviations."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from autovalidate.anomaly.base import (
    _ALL,
    AnomalyDetectionStrategy,
    DetectionPoint,
    SearchInterval,
    bounds_text,
    check_interval,
)
from autovalidate.errors import ParameterError

__all__ = ["OnlineNormalStrategy"]


@dataclass(frozen=True)
class OnlineNormalStrategy(AnomalyDetectionStrategy):
    """Flags values outside ``mean ± factor * std`` of the running mean and standard deviation.

    Walking the series from its start, the running mean and (population)
    variance are updated with each value by Welford's method, the value
    included, and the value is compared with the bounds from them, as in Deequ.
    The first ``ignore_start_percentage`` of the series is never flagged (too
    little history); with ``ignore_anomalies`` an anomalous value does not
    update the running statistics. A missing factor means no bound on that side.
    Because the value itself enters the mean and (population) deviation it is
    compared with, the ``n``-th value can be at most ``sqrt(n - 1)`` deviations
    away: a factor of 3 flags nothing among the first 10 points.

    Parameters
    ----------
    lower_deviation_factor, upper_deviation_factor
        How many standard deviations below / above the mean are acceptable
        (default 3.0 each); at least one is needed, none negative.
    ignore_start_percentage
        Fraction of the series, from its start, in which nothing is flagged.
    ignore_anomalies
        Keep anomalies out of the running mean and variance.

    Raises
    ------
    ParameterError
        If both factors are missing, one is negative, or the percentage is outside [0, 1].

    References
    ----------
    Schelter et al., PVLDB 2018, §3.4 and §5.4; Deequ
    ``anomalydetection/OnlineNormalStrategy.scala``.
    """

    lower_deviation_factor: float | None = 3.0
    upper_deviation_factor: float | None = 3.0
    ignore_start_percentage: float = 0.1
    ignore_anomalies: bool = True

    name = "OnlineNormal"

    def __post_init__(self) -> None:
        factors = (self.lower_deviation_factor, self.upper_deviation_factor)
        if all(f is None for f in factors):
            raise ParameterError("at least one deviation factor must be given")
        if any(f is not None and f < 0 for f in factors):
            raise ParameterError("deviation factors must not be negative")
        if not 0.0 <= self.ignore_start_percentage <= 1.0:
            raise ParameterError("ignore_start_percentage must be in [0, 1]")

    def detect_points(
        self, series: Sequence[float], search_interval: SearchInterval = _ALL
    ) -> list[DetectionPoint]:
        """One pass over the series from its start, deciding on the points in the interval."""
        indices = check_interval(series, search_interval)
        skip = len(series) * self.ignore_start_percentage
        mean = variance = sn = 0.0
        points = []
        for i, value in enumerate(series[: indices.stop]):
            last_mean, last_variance, last_sn = mean, variance, sn
            mean = value if i == 0 else last_mean + (value - last_mean) / (i + 1)
            sn += (value - last_mean) * (value - mean)
            variance = sn / (i + 1)
            std = math.sqrt(variance)
            lower = (
                None
                if self.lower_deviation_factor is None
                else mean - self.lower_deviation_factor * std
            )
            upper = (
                None
                if self.upper_deviation_factor is None
                else mean + self.upper_deviation_factor * std
            )
            outside = (lower is not None and value < lower) or (upper is not None and value > upper)
            expected = mean
            decided = i in indices
            anomalous = decided and i >= skip and outside
            if anomalous and self.ignore_anomalies:
                mean, variance, sn = last_mean, last_variance, last_sn
            if decided:
                detail = None
                if anomalous:
                    detail = (
                        f"[OnlineNormalStrategy]: Value {value} is not in bounds "
                        f"{bounds_text(lower, upper)}."
                    )
                elif i < skip:
                    detail = "within the ignored start of the series"
                points.append(DetectionPoint(i, value, expected, lower, upper, anomalous, detail))
        return points
