"""Change strategies: a value is an anomaly when its change from earlier values is out of bounds.

:class:`AbsoluteChangeStrategy` bounds the ``order``-th difference of the
series; :class:`RelativeRateOfChangeStrategy` bounds the ratio of a value to
the value ``order`` points before it. Both follow Deequ's
``BaseChangeStrategy``: the first ``order`` points of the series have no change
and are never anomalies; a search interval starting at ``start`` looks back at
the ``order`` points before it.
"""

from __future__ import annotations

import math
from abc import abstractmethod
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

__all__ = ["AbsoluteChangeStrategy", "RelativeRateOfChangeStrategy"]


def difference(series: Sequence[float], order: int) -> list[float]:
    """The ``order``-th discrete difference (``order`` values shorter than ``series``)."""
    values = list(series)
    for _ in range(min(order, len(values))):  # empty after len(series): an order of 10**9 hung
        values = [b - a for a, b in zip(values, values[1:], strict=False)]
    return values


@dataclass(frozen=True)
class _ChangeStrategy(AnomalyDetectionStrategy):
    max_rate_decrease: float | None = None
    max_rate_increase: float | None = None
    order: int = 1

    def __post_init__(self) -> None:
        if self.max_rate_decrease is None and self.max_rate_increase is None:
            raise ParameterError(
                "at least one of max_rate_decrease and max_rate_increase must be given"
            )
        low = -math.inf if self.max_rate_decrease is None else self.max_rate_decrease
        high = math.inf if self.max_rate_increase is None else self.max_rate_increase
        if low > high:
            raise ParameterError("max_rate_increase must not be below max_rate_decrease")
        if self.order < 1:
            raise ParameterError(f"order must be >= 1, got {self.order}")

    @abstractmethod
    def changes(self, series: Sequence[float]) -> list[float]:
        """The change at each point from index ``order`` on."""

    @abstractmethod
    def value_bounds(
        self, series: Sequence[float], index: int, change: float
    ) -> tuple[float | None, float | None]:
        """The range of values at ``index`` whose change would be within the limits."""

    def detect_points(
        self, series: Sequence[float], search_interval: SearchInterval = _ALL
    ) -> list[DetectionPoint]:
        """Each point's change against the limits; the first ``order`` points are not decided."""
        indices = check_interval(series, search_interval)
        if not indices:
            return []
        first = max(indices.start - self.order, 0)
        changes = self.changes(series[first : indices.stop])
        low = -math.inf if self.max_rate_decrease is None else self.max_rate_decrease
        high = math.inf if self.max_rate_increase is None else self.max_rate_increase
        points = []
        for i in indices:
            value = series[i]
            k = i - first - self.order
            if k < 0:
                points.append(
                    DetectionPoint(i, value, None, None, None, False, "no earlier value to compare")
                )
                continue
            change = changes[k]
            anomalous = change < low or change > high
            lower, upper = self.value_bounds(series, i, change)
            detail = (
                f"[{type(self).__name__}]: Change of {change} is not in bounds "
                f"{bounds_text(low, high)}. Order={self.order}"
                if anomalous
                else None
            )
            points.append(DetectionPoint(i, value, None, lower, upper, anomalous, detail))
        return points


@dataclass(frozen=True)
class AbsoluteChangeStrategy(_ChangeStrategy):
    """Flags values whose ``order``-th difference is outside the limits.

    With ``order=1`` the change is ``x[i] - x[i-1]``; higher orders difference
    again. At least one limit is needed.

    Parameters
    ----------
    max_rate_decrease
        Smallest acceptable change (a negative number for a decrease).
    max_rate_increase
        Largest acceptable change.
    order
        Order of the difference, at least 1.

    Raises
    ------
    ParameterError
        If neither limit is given, they are inverted, or ``order < 1``.

    Examples
    --------
    >>> [(i, a.detail) for i, a in AbsoluteChangeStrategy(-2.0, 2.0).detect([1.0, 2.0, 10.0])]
    [(2, '[AbsoluteChangeStrategy]: Change of 8.0 is not in bounds [-2.0, 2.0]. Order=1')]

    References
    ----------
    Deequ ``anomalydetection/AbsoluteChangeStrategy.scala`` and ``BaseChangeStrategy.scala``.
    """

    name = "AbsoluteChange"

    def changes(self, series: Sequence[float]) -> list[float]:
        """The ``order``-th difference."""
        return difference(series, self.order)

    def value_bounds(
        self, series: Sequence[float], index: int, change: float
    ) -> tuple[float | None, float | None]:
        """The change is the value plus a term of earlier values, so the bounds shift by it."""
        base = series[index] - change
        low = None if self.max_rate_decrease is None else base + self.max_rate_decrease
        high = None if self.max_rate_increase is None else base + self.max_rate_increase
        return low, high


@dataclass(frozen=True)
class RelativeRateOfChangeStrategy(_ChangeStrategy):
    """Flags values whose ratio to the value ``order`` points earlier is out of bounds.

    The change at ``i`` is ``x[i] / x[i - order]`` (a ratio, not a difference
    of differences, as in Deequ); ``RelativeRateOfChangeStrategy(0.9, 1.1)``
    flags a value that moved by more than 10 % in one step. Division by zero
    gives an infinite ratio (an anomaly above any finite limit) or, for 0/0, no
    ratio (never an anomaly), as floating-point division in Deequ.

    Parameters
    ----------
    max_rate_decrease
        Smallest acceptable ratio.
    max_rate_increase
        Largest acceptable ratio.
    order
        How many points back the value is compared with, at least 1.

    Raises
    ------
    ParameterError
        If neither limit is given, they are inverted, or ``order < 1``.

    References
    ----------
    Deequ ``anomalydetection/RelativeRateOfChangeStrategy.scala``.
    """

    name = "RelativeRateOfChange"

    def changes(self, series: Sequence[float]) -> list[float]:
        """``x[i] / x[i - order]``."""
        out = []
        for old, new in zip(series, series[self.order :], strict=False):
            if old != 0:
                out.append(new / old)
            else:
                out.append(math.nan if new == 0 else math.copysign(math.inf, new))
        return out

    def value_bounds(
        self, series: Sequence[float], index: int, change: float
    ) -> tuple[float | None, float | None]:
        """The earlier value times the limits (swapped when it is negative)."""
        old = series[index - self.order]
        if old == 0:
            return None, None
        low = None if self.max_rate_decrease is None else old * self.max_rate_decrease
        high = None if self.max_rate_increase is None else old * self.max_rate_increase
        return (low, high) if old > 0 else (high, low)
