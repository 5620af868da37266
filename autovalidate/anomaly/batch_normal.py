"""BatchNormalStrategy: a value is an anomaly far from the mean of the other values."""

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

__all__ = ["BatchNormalStrategy"]


@dataclass(frozen=True)
class BatchNormalStrategy(AnomalyDetectionStrategy):
    """Flags values outside ``mean ± factor * std`` of the values outside the search interval.

    The mean and the sample standard deviation (``n - 1`` in the denominator,
    as Breeze's ``meanAndVariance`` in Deequ; 0 for a single value) are computed
    over the series without the search interval, or over all of it with
    ``include_interval``. A missing factor means no bound on that side.

    Parameters
    ----------
    lower_deviation_factor, upper_deviation_factor
        How many standard deviations below / above the mean are acceptable
        (default 3.0 each); at least one is needed, none negative.
    include_interval
        Also use the values being decided on for the mean and deviation.

    Raises
    ------
    ParameterError
        If both factors are missing or one is negative; when detecting, if no
        value is left to compute the mean from.

    References
    ----------
    Deequ ``anomalydetection/BatchNormalStrategy.scala``.
    """

    lower_deviation_factor: float | None = 3.0
    upper_deviation_factor: float | None = 3.0
    include_interval: bool = False

    name = "BatchNormal"

    def __post_init__(self) -> None:
        factors = (self.lower_deviation_factor, self.upper_deviation_factor)
        if all(f is None for f in factors):
            raise ParameterError("at least one deviation factor must be given")
        if any(f is not None and f < 0 for f in factors):
            raise ParameterError("deviation factors must not be negative")

    def detect_points(
        self, series: Sequence[float], search_interval: SearchInterval = _ALL
    ) -> list[DetectionPoint]:
        """Every point in the interval against the bounds from the other values."""
        indices = check_interval(series, search_interval)
        reference = (
            list(series)
            if self.include_interval
            else [v for i, v in enumerate(series) if i not in indices]
        )
        if not reference:
            raise ParameterError(
                "no values outside the search interval to compute the mean and deviation from"
            )
        n = len(reference)
        mean = sum(reference) / n
        std = math.sqrt(sum((v - mean) ** 2 for v in reference) / (n - 1)) if n > 1 else 0.0
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
        points = []
        for i in indices:
            value = series[i]
            message = (
                f"[BatchNormalStrategy]: Value {value} is not in bounds "
                f"{bounds_text(lower, upper)}."
            )
            points.append(DetectionPoint.against_bounds(i, value, mean, lower, upper, message))
        return points
