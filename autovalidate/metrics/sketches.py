"""Approximate metrics from mergeable sketches: ApproxCountDistinct, ApproxQuantile(s).

Both sketches are computed by the same SQL on DuckDB and on Spark, so the two
engines produce the same states (for the quantile summary: the same states
whenever Spark's ``percentile_approx`` is exact, which it is below about ten
thousand rows, and states within the documented rank error above).

* ApproxCountDistinct keeps a HyperLogLog sketch (ICDE 2019, Table I, [10]):
  ``2**precision`` registers, merged by register-wise maximum, which is exact,
  so ``merge(s(A), s(B)) == s(A ∪ B)``. The estimate is Ertl's improved raw
  estimator (Ertl, "New cardinality estimation algorithms for HyperLogLog
  sketches", 2017, Algorithm 6), unbiased over the whole range without
  empirical bias tables; its relative standard error is ``1.04 / sqrt(2**precision)``
  (1.6 % at the default precision 12).
* ApproxQuantile keeps a quantile summary: values at the probabilities
  ``i / K`` (``K = ceil(1 / relative_error)``) with a lower bound on the number
  of values at or below each; merging adds the bounds (exact integer
  arithmetic, so associative and commutative) and keeps every point. A query's
  answer has a rank within ``relative_error`` (plus Spark's ``1 / accuracy``) of
  the requested rank, before and after any number of merges; quantiles at
  multiples of ``1 / K`` are exact on DuckDB. A run that keeps no state asks
  only for the grid points its metrics read (:func:`narrowed_quantile_grids`):
  the same metrics, from a coarser summary, for about a fifth of the time on
  DuckDB.
"""

from __future__ import annotations

import base64
import math
from abc import abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import autovalidate.metrics.expressions as E
from autovalidate.errors import ParameterError
from autovalidate.metrics.base import (
    ColumnAnalyzer,
    ScanShareableAnalyzer,
    State,
    where_expr,
)
from autovalidate.metrics.statistics import NumericColumnAnalyzer

__all__ = [
    "ApproxCountDistinct",
    "ApproxQuantile",
    "ApproxQuantiles",
    "HyperLogLogState",
    "check_quantile",
    "QuantileSummary",
    "narrowed_quantile_grids",
    "spread_quantile_grid",
]

#: Default HyperLogLog precision: 4096 registers, 1.6 % standard error.
DEFAULT_PRECISION = 12


def _sigma(x: float) -> float:
    if x == 1.0:
        return math.inf
    y, z = 1.0, x
    while True:
        x *= x
        previous = z
        z += x * y
        y += y
        if z == previous:
            return z


def _tau(x: float) -> float:
    if x in (0.0, 1.0):
        return 0.0
    y, z = 1.0, 1.0 - x
    while True:
        x = math.sqrt(x)
        previous = z
        y *= 0.5
        z -= (1.0 - x) ** 2 * y
        if z == previous:
            return z / 3.0


@dataclass(frozen=True)
class HyperLogLogState(State):
    """HyperLogLog registers: ``registers[j]`` is the largest rho hashed to register ``j``.

    Attributes
    ----------
    precision
        ``p``; there are ``2**p`` registers, each in ``[0, 61 - p]``.
    registers
        One byte per register.
    """

    precision: int
    registers: bytes

    @classmethod
    def from_codes(cls, codes: Sequence[int | None] | None, precision: int) -> HyperLogLogState:
        """Return the sketch from the distinct ``register * 64 + rho`` codes an engine collected."""
        registers = np.zeros(1 << precision, dtype=np.uint8)
        values = np.array([c for c in (codes or ()) if c is not None], dtype=np.int64)
        if values.size:
            np.maximum.at(registers, values >> 6, (values & 63).astype(np.uint8))
        return cls(precision, registers.tobytes())

    def merge(self, other: HyperLogLogState) -> HyperLogLogState:
        """Register-wise maximum."""
        if other.precision != self.precision:
            raise ParameterError(
                f"cannot merge HyperLogLog sketches of precision {self.precision} "
                f"and {other.precision}"
            )
        merged = np.maximum(
            np.frombuffer(self.registers, dtype=np.uint8),
            np.frombuffer(other.registers, dtype=np.uint8),
        )
        return HyperLogLogState(self.precision, merged.tobytes())

    def estimate(self) -> float:
        """Estimated number of distinct values (Ertl 2017, Algorithm 6)."""
        m = 1 << self.precision
        q = E.HLL_HASH_BITS - self.precision
        counts = np.bincount(np.frombuffer(self.registers, dtype=np.uint8), minlength=q + 2)
        z = m * _tau(1.0 - counts[q + 1] / m)
        for k in range(q, 0, -1):
            z = 0.5 * (z + counts[k])
        z += m * _sigma(counts[0] / m)
        return m * m / (2.0 * math.log(2.0)) / z

    def to_dict(self) -> dict[str, Any]:
        """Precision and base64 registers."""
        return {"precision": self.precision, "registers": base64.b64encode(self.registers).decode()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HyperLogLogState:
        """Inverse of :meth:`to_dict`."""
        return cls(int(data["precision"]), base64.b64decode(data["registers"]))


@dataclass(frozen=True)
class QuantileSummary(State):
    """A mergeable summary of a column's values for approximate quantiles.

    Attributes
    ----------
    count
        Number of values summarized (at least 1).
    values
        Ascending, distinct sample values (always including the minimum and
        the maximum).
    ranks
        For each value, a lower bound on how many summarized values are at or
        below it; non-decreasing, the last equals ``count``. The bound is off
        by at most ``rank_error * count``.
    rank_error
        Bound on the rank error as a fraction of ``count``.
    """

    count: int
    values: tuple[float, ...]
    ranks: tuple[int, ...]
    rank_error: float

    @classmethod
    def from_grid(
        cls, count: int, grid: Sequence[float | None], rank_error: float
    ) -> QuantileSummary:
        """From the lower quantiles at ``i / K``, ``i = 0..K`` (``K = len(grid) - 1``).

        A grid may leave out points (``None``) but not its first and last (the
        minimum and the maximum); the widest gap of ``g`` steps between the
        points it has widens ``rank_error`` to ``rank_error + (g - 1) / K``: an
        answer's rank lies between the ranks of two neighbouring points.

        Raises
        ------
        ValueError
            If the first or the last point is left out.
        """
        k = len(grid) - 1
        present = [i for i, value in enumerate(grid) if value is not None]
        if not present or present[0] != 0 or present[-1] != k:
            raise ValueError("a quantile grid needs its first and last points")
        points: dict[float, int] = {}
        for i in present:
            points[float(grid[i])] = max(1, -(-i * count // k))  # type: ignore[arg-type]
        ordered = sorted(points.items())
        gap = max((b - a for a, b in zip(present, present[1:], strict=False)), default=1)
        return cls(
            count,
            tuple(v for v, _ in ordered),
            tuple(r for _, r in ordered),
            rank_error + (gap - 1) / k,
        )

    def rank_at(self, x: float) -> int:
        """Lower bound on the number of summarized values at or below ``x``."""
        index = int(np.searchsorted(np.asarray(self.values), x, side="right"))
        return self.ranks[index - 1] if index else 0

    def merge(self, other: QuantileSummary) -> QuantileSummary:
        """Union of the points; each rank bound is the sum of the two summaries' bounds."""
        values = tuple(sorted(set(self.values) | set(other.values)))
        ranks = tuple(self.rank_at(v) + other.rank_at(v) for v in values)
        return QuantileSummary(
            self.count + other.count, values, ranks, max(self.rank_error, other.rank_error)
        )

    def quantile(self, q: float) -> float:
        """Return the value at rank ``max(1, ceil(q * count))``, up to ``rank_error * count``."""
        target = max(1, math.ceil(round(q * self.count, 9)))
        index = int(np.searchsorted(np.asarray(self.ranks), target, side="left"))
        return self.values[min(index, len(self.values) - 1)]

    def to_dict(self) -> dict[str, Any]:
        """JSON fields."""
        return {
            "count": self.count,
            "values": list(self.values),
            "ranks": list(self.ranks),
            "rank_error": self.rank_error,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> QuantileSummary:
        """Inverse of :meth:`to_dict`."""
        return cls(
            int(data["count"]),
            tuple(float(v) for v in data["values"]),
            tuple(int(r) for r in data["ranks"]),
            float(data["rank_error"]),
        )


@dataclass(frozen=True)
class ApproxCountDistinct(ColumnAnalyzer, ScanShareableAnalyzer):
    """Approximate number of distinct non-null values, from a HyperLogLog sketch.

    Deequ ``ApproxCountDistinct`` (HyperLogLog++); here the sketch of the module
    notes, computed identically on both engines. The metric is the estimate
    rounded to an integer (a float); relative standard error
    ``1.04 / sqrt(2**precision)``. Values are hashed by their text, so on
    floating columns rendered differently by the two engines the sketches may
    differ (within the same error).

    Raises
    ------
    ParameterError
        If ``precision`` is not in [4, 16].

    References
    ----------
    Schelter et al., PVLDB 2018, Table 2; ICDE 2019, Table I; Heule et al.,
    EDBT 2013; Ertl 2017.
    """

    column: str
    where: str | None = None
    precision: int = DEFAULT_PRECISION

    metric_name = "ApproxCountDistinct"
    state_class = HyperLogLogState

    def __post_init__(self) -> None:
        if not 4 <= self.precision <= 16:
            raise ParameterError(f"precision must be in [4, 16], got {self.precision}")

    def aggregations(self) -> tuple[E.Expr, ...]:
        """Collect the set of register codes."""
        values = E.where_selection(E.col(self.column), where_expr(self.where))
        codes = E.hll_code(values, self.precision)
        return (E.distinct_set(codes, below=(1 << self.precision) * 64),)

    def state_from_aggregates(self, values: Sequence[Any]) -> HyperLogLogState:
        """Return the registers (all zero without values)."""
        return HyperLogLogState.from_codes(values[0], self.precision)

    def metric_value(self, state: HyperLogLogState) -> float:
        """Return the rounded estimate."""
        return float(round(state.estimate()))


def _grid_size(relative_error: float) -> int:
    if not 0.0 < relative_error <= 1.0:
        raise ParameterError(f"relative_error must be in (0, 1], got {relative_error}")
    return math.ceil(1.0 / relative_error - 1e-9)


#: Rank accuracy asked of Spark's ``percentile_approx`` per grid point: 10 x finer than the grid.
SPARK_ACCURACY_FACTOR = 10


class QuantileAnalyzer(NumericColumnAnalyzer):
    """Shared part of ApproxQuantile and ApproxQuantiles: one summary per column, filter, error."""

    relative_error: float

    state_class = QuantileSummary

    @property
    def grid_size(self) -> int:
        """``K = ceil(1 / relative_error)``."""
        return _grid_size(self.relative_error)

    @property
    def accuracy(self) -> int:
        """Spark ``percentile_approx`` accuracy (rank error ``1 / accuracy``)."""
        return max(10_000, SPARK_ACCURACY_FACTOR * self.grid_size)

    @property
    def state_key(self) -> str:
        """Shared by every quantile of the same column, filter and grid."""
        return f"QuantileSummary({self.column!r}, where={self.where!r}, grid={self.grid_size})"

    @property
    @abstractmethod
    def probabilities(self) -> tuple[float, ...]:
        """The quantiles the metric reads."""

    def aggregations(self) -> tuple[E.Expr, ...]:
        """Count values and ask for the quantile grid."""
        values = self.values()
        return (E.count_non_null(values), E.quantile_grid(values, self.grid_size, self.accuracy))

    def grid_points(self) -> set[int] | None:
        """The grid points from which the metric is the one the whole grid gives.

        For each quantile ``q = i / K`` on the grid, the points ``i`` and
        ``i + 1``, with ``0`` and ``K`` (the summary's minimum and maximum).
        The answer is the value at the smallest point rank at or above
        ``ceil(q * n)``, which is the rank of point ``i``, or of point ``i + 1``
        when ``q * n`` rounds up in floating point (``n`` above 10**9), and
        the points are the values at their ranks; so those points give the
        same value for every ``n``. ``None`` when a quantile lies between
        grid points: its answer comes from whichever point's rank is next.
        """
        k = self.grid_size
        points = {0, k}
        for q in self.probabilities:
            i = round(q * k)
            if abs(q * k - i) > 1e-9:
                return None
            points |= {i, min(i + 1, k)}
        return points

    def state_from_aggregates(self, values: Sequence[Any]) -> QuantileSummary | None:
        """Return the summary; ``None`` without values."""
        count = int(values[0] or 0)
        if count == 0 or values[1] is None:
            return None
        error = 1.0 / self.grid_size + 1.0 / self.accuracy
        return QuantileSummary.from_grid(count, values[1], error)


def narrowed_quantile_grids(
    requests: Iterable[tuple[ScanShareableAnalyzer, Sequence[E.Expr]]],
) -> dict[E.Expr, E.Call]:
    """Each quantile grid of a run cut to the points its metrics read, where it can be.

    For a run that keeps no state: ``requests`` pairs each analyzer with the
    aggregations it asks for; a :func:`~autovalidate.metrics.expressions.quantile_grid`
    read only by quantile analyzers whose quantiles lie on the grid maps to
    the same grid restricted to the union of their
    :meth:`QuantileAnalyzer.grid_points`. Their metrics are then those of the
    whole grid, from a summary with a wider rank error
    (:meth:`QuantileSummary.from_grid`): a summary to be stored or merged
    needs the whole grid. DuckDB 2.0 computes 101 exact quantiles in about
    five times the time of 3 (``benchmarks/results/quantile_grid.md``).
    """
    needed: dict[E.Call, set[int] | None] = {}
    for analyzer, exprs in requests:
        for expr in exprs:
            if not (isinstance(expr, E.Call) and expr.fn == "quantile_grid"):
                continue
            points = analyzer.grid_points() if isinstance(analyzer, QuantileAnalyzer) else None
            before = needed.get(expr, set())
            needed[expr] = None if points is None or before is None else before | points
    narrowed: dict[E.Expr, E.Call] = {}
    for expr, points in needed.items():
        grid_size, accuracy, *_ = E.literal_params(expr.args[1:])
        if points is not None and len(points) <= grid_size:
            narrowed[expr] = E.quantile_grid(expr.args[0], grid_size, accuracy, sorted(points))
    return narrowed


def spread_quantile_grid(call: E.Call, values: Sequence[float] | None) -> list[float | None] | None:
    """The whole grid from the answer of a narrowed quantile grid (``quantile_grid`` call).

    The points the call did not ask for are ``None``; a null answer (no
    values) stays null.
    """
    if values is None:
        return None
    grid_size = E.literal_params(call.args[1:2])[0]
    grid: list[float | None] = [None] * (grid_size + 1)
    for i, value in zip(E.quantile_grid_points(call), values, strict=True):
        grid[i] = value
    return grid


def check_quantile(q: float) -> None:
    """Raise :class:`~autovalidate.errors.ParameterError` unless ``q`` is in [0, 1]."""
    if not 0.0 <= q <= 1.0:
        raise ParameterError(f"quantile must be in [0, 1], got {q}")


@dataclass(frozen=True)
class ApproxQuantile(QuantileAnalyzer):
    """Approximate ``quantile`` of a numeric column (Deequ ``ApproxQuantile``).

    The value at rank ``max(1, ceil(quantile * n))`` of the ``n`` non-null
    values, up to a rank error of ``relative_error * n`` (plus ``n / accuracy``
    on Spark); see the module notes.

    Raises
    ------
    ParameterError
        If ``quantile`` is not in [0, 1] or ``relative_error`` not in (0, 1].

    References
    ----------
    Schelter et al., PVLDB 2018, Table 2; ICDE 2019, Table I.
    """

    column: str
    quantile: float
    relative_error: float = 0.01
    where: str | None = None

    metric_name = "ApproxQuantile"

    def __post_init__(self) -> None:
        check_quantile(self.quantile)
        _grid_size(self.relative_error)

    @property
    def probabilities(self) -> tuple[float, ...]:
        """``(quantile,)``."""
        return (self.quantile,)

    def metric_value(self, state: QuantileSummary) -> float:
        """Return the quantile."""
        return state.quantile(self.quantile)


@dataclass(frozen=True)
class ApproxQuantiles(QuantileAnalyzer):
    """Several approximate quantiles at once (Deequ ``ApproxQuantiles``).

    The metric maps ``str(q)`` to the quantile, each as in :class:`ApproxQuantile`.

    Raises
    ------
    ParameterError
        If a quantile is not in [0, 1], there is none, or ``relative_error`` is
        not in (0, 1].
    """

    column: str
    quantiles: tuple[float, ...]
    relative_error: float = 0.01
    where: str | None = None

    metric_name = "ApproxQuantiles"

    def __post_init__(self) -> None:
        object.__setattr__(self, "quantiles", tuple(float(q) for q in self.quantiles))
        if not self.quantiles:
            raise ParameterError("ApproxQuantiles needs at least one quantile")
        for q in self.quantiles:
            check_quantile(q)
        _grid_size(self.relative_error)

    @property
    def probabilities(self) -> tuple[float, ...]:
        """The quantiles."""
        return self.quantiles

    def metric_value(self, state: QuantileSummary) -> dict[str, float]:
        """``{str(q): quantile}``."""
        return {str(q): state.quantile(q) for q in self.quantiles}
