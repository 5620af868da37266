"""SimpleThresholdStrategy: a value is an anomaly outside fixed bounds."""

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

__all__ = ["SimpleThresholdStrategy"]


@dataclass(frozen=True)
class SimpleThresholdStrategy(AnomalyDetectionStrategy):
    """Flags values outside ``[lower_bound, upper_bound]`` (both included).

    Parameters
    ----------
    upper_bound
        Largest acceptable value.
    lower_bound
        Smallest acceptable value (default: no lower bound).

    Raises
    ------
    ParameterError
        If ``lower_bound > upper_bound``.

    Examples
    --------
    >>> SimpleThresholdStrategy(upper_bound=1.0).detect([0.5, 2.0])[0][0]
    1

    References
    ----------
    Deequ ``anomalydetection/SimpleThresholdStrategy.scala``.
    """

    upper_bound: float
    lower_bound: float = -math.inf

    name = "SimpleThreshold"

    def __post_init__(self) -> None:
        if self.lower_bound > self.upper_bound:
            raise ParameterError("the lower bound must be smaller or equal to the upper bound")

    def detect_points(
        self, series: Sequence[float], search_interval: SearchInterval = _ALL
    ) -> list[DetectionPoint]:
        """Each point in the interval against the fixed bounds."""
        points = []
        for i in check_interval(series, search_interval):
            value = series[i]
            message = (
                f"[SimpleThresholdStrategy]: Value {value} is not in bounds "
                f"{bounds_text(self.lower_bound, self.upper_bound)}"
            )
            points.append(
                DetectionPoint.against_bounds(
                    i, value, None, self.lower_bound, self.upper_bound, message
                )
            )
        return points
