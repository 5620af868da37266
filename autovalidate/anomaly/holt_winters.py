"""HoltWintersStrategy: seasonal forecasts by additive Holt-Winters (triple smoothing)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

from autovalidate.anomaly.base import (
    _ALL,
    AnomalyDetectionStrategy,
    DetectionPoint,
    SearchInterval,
    check_interval,
)
from autovalidate.errors import ParameterError

__all__ = ["HoltWintersStrategy", "additive_holt_winters"]

#: Deequ's periodicities: (Weekly, Daily) and (Yearly, Monthly).
WEEKLY_DAILY = 7
YEARLY_MONTHLY = 12


def additive_holt_winters(
    series: Sequence[float],
    periodicity: int,
    horizon: int,
    alpha: float,
    beta: float,
    gamma: float,
) -> tuple[list[float], list[float]]:
    """Additive Holt-Winters, ETS(A, A, A), as Deequ initializes and runs it.

    Level starts at the mean of the first period, trend at the difference of
    the first two periods' means divided by the period, seasonal terms at the
    first period minus the level. The series is smoothed, then ``horizon``
    points are forecast (each forecast fed back as the next observation).

    Returns
    -------
    forecasts, residuals
        ``horizon`` forecasts; the residuals ``series[t] - fit[t]`` with
        ``fit[0] = level0 + trend0 + season0`` and ``fit[t]`` the one-step
        forecast of ``t`` (``len(series)`` of them).
    """
    p = periodicity
    first = sum(series[:p])
    second = sum(series[p : 2 * p])
    level = [first / p]
    trend = [(second - first) / (p * p)]
    season = [v - level[0] for v in series[:p]]
    fitted = [level[0] + trend[0] + season[0]]
    observed = list(series)
    for t in range(len(series) + horizon):
        if t >= len(series):
            observed.append(level[-1] + trend[-1] + season[len(season) - p])
        level.append(alpha * (observed[t] - season[t]) + (1 - alpha) * (level[t] + trend[t]))
        trend.append(beta * (level[t + 1] - level[t]) + (1 - beta) * trend[t])
        season.append(gamma * (observed[t] - level[t] - trend[t]) + (1 - gamma) * season[t])
        fitted.append(level[t + 1] + trend[t + 1] + season[t + 1])
    residuals = [v - f for v, f in zip(series, fitted, strict=False)]
    return observed[len(series) :], residuals


@dataclass(frozen=True)
class HoltWintersStrategy(AnomalyDetectionStrategy):
    """Flags values farther than 1.96 residual deviations from an additive Holt-Winters forecast.

    The model is fitted on the points before the search interval (at least two
    full periods): the smoothing parameters alpha, beta, gamma in [0, 1]
    minimize the sum of squared residuals (L-BFGS-B from (0.3, 0.1, 0.1), as
    Deequ with Breeze's LBFGSB), then the interval's points are forecast. A
    point is an anomaly when ``|value - forecast| > 1.96 * sd``, where ``sd`` is
    the sample standard deviation of the absolute residuals, Deequ's choice.

    Parameters
    ----------
    periodicity
        Length of a season in points: 7 for a weekly cycle of daily metrics, 12
        for a yearly cycle of monthly ones (Deequ's two settings).

    Raises
    ------
    ParameterError
        If ``periodicity < 2``; when detecting, if fewer than two periods
        precede the search interval or the interval is empty.

    References
    ----------
    Deequ ``anomalydetection/seasonal/HoltWinters.scala``; Hyndman &
    Athanasopoulos, *Forecasting: Principles and Practice*, §7.3.
    """

    periodicity: int = WEEKLY_DAILY

    name = "HoltWinters"

    def __post_init__(self) -> None:
        if self.periodicity < 2:
            raise ParameterError(f"periodicity must be >= 2, got {self.periodicity}")

    def fit(self, series: Sequence[float], horizon: int) -> tuple[float, float, float]:
        """Smoothing parameters minimizing the sum of squared residuals on ``series``."""

        def rss(x: np.ndarray) -> float:
            _, residuals = additive_holt_winters(
                series, self.periodicity, horizon, float(x[0]), float(x[1]), float(x[2])
            )
            return float(sum(r * r for r in residuals))

        best = minimize(rss, np.array([0.3, 0.1, 0.1]), method="L-BFGS-B", bounds=[(0, 1)] * 3)
        alpha, beta, gamma = (float(v) for v in best.x)
        return alpha, beta, gamma

    def detect_points(
        self, series: Sequence[float], search_interval: SearchInterval = _ALL
    ) -> list[DetectionPoint]:
        """Forecast the interval's points from the points before it."""
        indices = check_interval(series, search_interval)
        if not indices:
            raise ParameterError("the search interval holds no point")
        start = indices.start
        if start < 2 * self.periodicity:
            raise ParameterError(
                f"need at least two full periods ({2 * self.periodicity} points) before the "
                f"search interval, got {start}"
            )
        training = list(series[:start])
        alpha, beta, gamma = self.fit(training, len(indices))
        forecasts, residuals = additive_holt_winters(
            training, self.periodicity, len(indices), alpha, beta, gamma
        )
        sd = statistics.stdev(abs(r) for r in residuals)
        points = []
        for i, forecast in zip(indices, forecasts, strict=True):
            value = series[i]
            points.append(
                DetectionPoint.against_bounds(
                    i,
                    value,
                    forecast,
                    forecast - 1.96 * sd,
                    forecast + 1.96 * sd,
                    f"Forecasted {forecast} for observed value {value}",
                )
            )
        return points
