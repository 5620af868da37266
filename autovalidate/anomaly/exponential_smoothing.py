"""ExponentialSmoothingStrategy: the forecast of Redyuk et al. (2020) with a prediction interval.

Simple exponential smoothing, i.e. the additive-error model without trend or
season, ETS(A, N, N) (Hyndman & Athanasopoulos, *Forecasting: Principles and
Practice*, §8.1 and §8.7; Montgomery et al. 2015, ch. 4, which Redyuk et al. cite):

    forecast:  y_hat[t] = l[t-1]
    level:     l[t] = l[t-1] + alpha * (y[t] - l[t-1])

For a point at index ``i``, the model is fitted on the ``n = i`` points before
it: ``alpha`` in [0, 1] and the initial level ``l[-1]`` minimize the sum of
squared one-step errors ``SSE = sum (y[t] - y_hat[t])**2`` (for a given
``alpha`` the errors are linear in ``l[-1]``, whose optimum is therefore exact;
``alpha`` is searched on a grid of step 0.05, then refined by bounded Brent
search around the best grid point). The one-step forecast is ``y_hat[i] =
l[i-1]`` and its prediction interval at confidence ``c`` is

    y_hat[i] ± z * sigma,   z = Phi^-1((1 + c) / 2),   sigma^2 = SSE / (n - 2)

(two parameters estimated; z = 1.645 for the 90 % interval of 001). The
point is accepted iff it lies inside the interval (ends included); to absorb
floating-point noise when the history is constant (``sigma = 0``), the
half-width is at least ``1e-9 * max(1, |y_hat|)``.

Redyuk, Markl & Schelter, "Towards Unsupervised Data Quality Validation on
Dynamic Data", EDBT/ICDT workshops 2020: exponential smoothing with "inclusion
in a 90% confidence interval" as the decision. The paper does not say which
variant of exponential smoothing or how the interval is computed; the above is
the standard model with the standard interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

from scipy.optimize import minimize_scalar

from autovalidate.anomaly.base import (
    _ALL,
    AnomalyDetectionStrategy,
    DetectionPoint,
    SearchInterval,
    bounds_text,
    check_interval,
)
from autovalidate.errors import ParameterError

__all__ = ["ExponentialSmoothingStrategy", "SmoothingFit", "fit_simple_exponential_smoothing"]

#: Fewest points an interval can be computed from (two parameters, one degree of freedom left).
MIN_HISTORY = 3
_GRID = [i / 20 for i in range(21)]


def _sse_and_level(series: Sequence[float], alpha: float) -> tuple[float, float, float]:
    """SSE, the optimal initial level, and the last level, for a given ``alpha``."""
    # level before point t = a[t] + b[t] * l0, with b[t] = (1 - alpha)**t
    a, b = 0.0, 1.0
    coeffs = []
    for y in series:
        coeffs.append((y - a, b))  # error = (y - a) - b * l0
        a = a + alpha * (y - a)
        b = b * (1.0 - alpha)
    l0 = sum(c * d for c, d in coeffs) / sum(d * d for _, d in coeffs)
    sse = sum((c - d * l0) ** 2 for c, d in coeffs)
    return sse, l0, a + b * l0


@dataclass(frozen=True)
class SmoothingFit:
    """A fitted simple exponential smoothing model.

    Attributes
    ----------
    alpha
        Smoothing parameter, in [0, 1].
    initial_level
        ``l[-1]``, the level before the first point.
    forecast
        One-step forecast of the next point (the last level).
    sse
        Sum of squared one-step errors over the fitted points.
    n
        Number of fitted points.
    """

    alpha: float
    initial_level: float
    forecast: float
    sse: float
    n: int

    @property
    def sigma(self) -> float:
        """Standard deviation of the one-step errors, ``sqrt(SSE / (n - 2))``."""
        return math.sqrt(self.sse / (self.n - 2)) if self.n > 2 else math.nan

    def interval(self, confidence: float) -> tuple[float, float]:
        """The prediction interval of the next point at ``confidence`` (module docstring)."""
        z = NormalDist().inv_cdf(0.5 + confidence / 2)
        half = max(z * self.sigma, 1e-9 * max(1.0, abs(self.forecast)))
        return self.forecast - half, self.forecast + half


def fit_simple_exponential_smoothing(series: Sequence[float]) -> SmoothingFit:
    """Fit ETS(A, N, N) by least squares (see the module docstring).

    Raises
    ------
    ParameterError
        If ``series`` is empty.
    """
    values = [float(v) for v in series]
    if not values:
        raise ParameterError("cannot fit exponential smoothing to an empty series")
    best_alpha = min(_GRID, key=lambda a: _sse_and_level(values, a)[0])
    low, high = max(best_alpha - 0.05, 0.0), min(best_alpha + 0.05, 1.0)
    refined = minimize_scalar(
        lambda a: _sse_and_level(values, float(a))[0],
        bounds=(low, high),
        method="bounded",
        options={"xatol": 1e-6},
    )
    alpha = best_alpha
    if float(refined.fun) < _sse_and_level(values, best_alpha)[0]:
        alpha = float(refined.x)
    sse, l0, last = _sse_and_level(values, alpha)
    return SmoothingFit(alpha, l0, last, sse, len(values))


@dataclass(frozen=True)
class ExponentialSmoothingStrategy(AnomalyDetectionStrategy):
    """Flags values outside the prediction interval of a simple exponential smoothing forecast.

    Each point of the search interval is forecast from all points before it
    (see the module docstring for the model, the fit and the interval);
    points with fewer than three predecessors are not decided.

    Parameters
    ----------
    confidence
        Coverage of the prediction interval, in (0, 1); 0.9 as in 001.

    Raises
    ------
    ParameterError
        If ``confidence`` is not in (0, 1).

    Examples
    --------
    >>> strategy = ExponentialSmoothingStrategy()
    >>> strategy.detect([1.0, 1.1, 0.9, 1.0, 1.05, 0.95, 1.0, 3.0], (7, 8))[0][0]
    7
    >>> strategy.detect([1.0, 1.1, 0.9, 1.0, 1.05, 0.95, 1.0, 1.02], (7, 8))
    []

    References
    ----------
    Redyuk, Markl & Schelter, EDBT/ICDT workshops 2020; Hyndman & Athanasopoulos,
    *Forecasting: Principles and Practice*, §8.1, §8.7.
    """

    confidence: float = 0.9

    name = "ExponentialSmoothing"

    def __post_init__(self) -> None:
        if not 0.0 < self.confidence < 1.0:
            raise ParameterError(f"confidence must be in (0, 1), got {self.confidence}")

    def detect_points(
        self, series: Sequence[float], search_interval: SearchInterval = _ALL
    ) -> list[DetectionPoint]:
        """Forecast each point of the interval from the points before it."""
        points = []
        for i in check_interval(series, search_interval):
            value = series[i]
            if i < MIN_HISTORY:
                points.append(
                    DetectionPoint(
                        i,
                        value,
                        None,
                        None,
                        None,
                        False,
                        f"fewer than {MIN_HISTORY} earlier values: not decided",
                    )
                )
                continue
            fit = fit_simple_exponential_smoothing(series[:i])
            lower, upper = fit.interval(self.confidence)
            anomalous = not lower <= value <= upper
            detail = (
                f"[ExponentialSmoothingStrategy]: Value {value} is not in the "
                f"{self.confidence:.0%} prediction interval {bounds_text(lower, upper)} "
                f"around the forecast {fit.forecast} (alpha={fit.alpha:.3f})"
                if anomalous
                else None
            )
            points.append(DetectionPoint(i, value, fit.forecast, lower, upper, anomalous, detail))
        return points
