"""Statistics of numeric columns: extremes, sums, means, central moments, correlation.

Minimum, Maximum, Mean, Sum, StandardDeviation, Correlation, Variance,
Skewness, Kurtosis, RatioOfSums and Monotonicity. Values are read as 64-bit floats and
nulls are skipped. States follow ICDE 2019, Table I: the current extreme
(merged with min/max), ``(sum, count)``, and the first two central moments
(merged with Chan et al.'s pairwise update), which the engines compute with
their numerically stable ``var_pop`` and ``covar_pop``; the first four
(:class:`MomentsState`, merged with Pébay's update) from ``var_pop`` and the
engines' population skewness and kurtosis. Exact up to floating-point
summation order: the two engines agree to about 1e-12 relative.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import autovalidate.metrics.expressions as E
from autovalidate.metrics.base import (
    ColumnAnalyzer,
    EngineAnalyzer,
    Entity,
    Metric,
    Precondition,
    QueryEngine,
    ScanShareableAnalyzer,
    State,
    has_column,
    is_numeric,
    where_expr,
)

__all__ = [
    "Correlation",
    "CorrelationState",
    "MaxState",
    "Maximum",
    "Mean",
    "MeanState",
    "MinState",
    "Minimum",
    "Monotonicity",
    "MomentsState",
    "Range",
    "RangeState",
    "RatioOfSums",
    "RatioOfSumsState",
    "Skewness",
    "Kurtosis",
    "Variance",
    "StandardDeviation",
    "StandardDeviationState",
    "Sum",
    "SumState",
]


@dataclass(frozen=True)
class MinState(State):
    """The smallest value seen."""

    value: float

    def merge(self, other: MinState) -> MinState:
        """Keep the smaller of the two."""
        return MinState(min(self.value, other.value))


@dataclass(frozen=True)
class MaxState(State):
    """The largest value seen."""

    value: float

    def merge(self, other: MaxState) -> MaxState:
        """Keep the larger of the two."""
        return MaxState(max(self.value, other.value))


@dataclass(frozen=True)
class RangeState(State):
    """The smallest and the largest value seen."""

    low: float
    high: float

    def merge(self, other: RangeState) -> RangeState:
        """Keep the smaller low and the larger high."""
        return RangeState(min(self.low, other.low), max(self.high, other.high))


@dataclass(frozen=True)
class SumState(State):
    """The sum of the values seen."""

    total: float

    def merge(self, other: SumState) -> SumState:
        """Add the sums."""
        return SumState(self.total + other.total)


@dataclass(frozen=True)
class MeanState(State):
    """Sum and number of the values seen (``count`` >= 1)."""

    total: float
    count: int

    def merge(self, other: MeanState) -> MeanState:
        """Add sums and counts."""
        return MeanState(self.total + other.total, self.count + other.count)


@dataclass(frozen=True)
class StandardDeviationState(State):
    """Count, mean and sum of squared deviations ``m2`` of the values seen (``n`` >= 1)."""

    n: int
    avg: float
    m2: float

    def merge(self, other: StandardDeviationState) -> StandardDeviationState:
        """Chan, Golub & LeVeque's pairwise update of the moments."""
        n = self.n + other.n
        delta = other.avg - self.avg
        return StandardDeviationState(
            n,
            self.avg + delta * other.n / n,
            self.m2 + other.m2 + delta * delta * self.n * other.n / n,
        )


@dataclass(frozen=True)
class CorrelationState(State):
    """Co-moments of the pairs seen (Deequ's ``CorrelationState``; ``n`` >= 1).

    ``ck`` is the sum of products of deviations, ``x_mk`` and ``y_mk`` the sums
    of squared deviations.
    """

    n: int
    x_avg: float
    y_avg: float
    ck: float
    x_mk: float
    y_mk: float

    def merge(self, other: CorrelationState) -> CorrelationState:
        """Pairwise update of means and co-moments."""
        n1, n2 = self.n, other.n
        n = n1 + n2
        dx = other.x_avg - self.x_avg
        dy = other.y_avg - self.y_avg
        return CorrelationState(
            n,
            self.x_avg + dx * n2 / n,
            self.y_avg + dy * n2 / n,
            self.ck + other.ck + dx * dy * n1 * n2 / n,
            self.x_mk + other.x_mk + dx * dx * n1 * n2 / n,
            self.y_mk + other.y_mk + dy * dy * n1 * n2 / n,
        )


@dataclass(frozen=True)
class MomentsState(State):
    """Count, mean and the sums of 2nd, 3rd and 4th powers of deviations (``n`` >= 1).

    ``m_k = sum (x - mean)^k``; merged exactly (up to rounding) with Pébay's
    pairwise update (Sandia report SAND2008-6212, Eq. 1.5-1.6).
    """

    n: int
    avg: float
    m2: float
    m3: float
    m4: float

    def merge(self, other: MomentsState) -> MomentsState:
        """Pébay's update of the central moments of the union."""
        na, nb = self.n, other.n
        n = na + nb
        d = other.avg - self.avg
        m2 = self.m2 + other.m2 + d * d * na * nb / n
        m3 = (
            self.m3
            + other.m3
            + d**3 * na * nb * (na - nb) / n**2
            + 3 * d * (na * other.m2 - nb * self.m2) / n
        )
        m4 = (
            self.m4
            + other.m4
            + d**4 * na * nb * (na * na - na * nb + nb * nb) / n**3
            + 6 * d * d * (na * na * other.m2 + nb * nb * self.m2) / n**2
            + 4 * d * (na * other.m3 - nb * self.m3) / n
        )
        return MomentsState(n, self.avg + d * nb / n, m2, m3, m4)


@dataclass(frozen=True)
class RatioOfSumsState(State):
    """The sums of the two columns (each skipping its own nulls)."""

    numerator: float
    denominator: float

    def merge(self, other: RatioOfSumsState) -> RatioOfSumsState:
        """Add the sums."""
        return RatioOfSumsState(
            self.numerator + other.numerator, self.denominator + other.denominator
        )


class NumericColumnAnalyzer(ColumnAnalyzer, ScanShareableAnalyzer):
    """An analyzer over the non-null values of one numeric column, read as floats."""

    where: str | None

    def preconditions(self) -> Sequence[Precondition]:
        """Require the column to exist and be numeric."""
        return (has_column(self.column), *map(is_numeric, self.numeric_columns()))

    def numeric_columns(self) -> tuple[str, ...]:
        """The column."""
        return (self.column,)

    def values(self) -> E.Expr:
        """Return the column as floats, null where filtered out."""
        return E.to_double(E.where_selection(E.col(self.column), where_expr(self.where)))


class ExtremeAnalyzer(ScanShareableAnalyzer):
    """A minimum or maximum: one aggregate, the state holds the extreme."""

    state_class: ClassVar[type[MinState] | type[MaxState]]

    def state_from_aggregates(self, values: Sequence[Any]) -> MinState | MaxState | None:
        """Return the extreme; ``None`` when there are no values."""
        return None if values[0] is None else self.state_class(float(values[0]))

    def metric_value(self, state: MinState | MaxState) -> float:
        """Return the extreme value."""
        return state.value


@dataclass(frozen=True)
class Minimum(NumericColumnAnalyzer, ExtremeAnalyzer):
    """Smallest non-null value of a numeric column (Deequ ``Minimum``), as a float.

    References
    ----------
    Schelter et al., PVLDB 2018, Table 2; ICDE 2019, Table I.
    """

    column: str
    where: str | None = None

    metric_name = "Minimum"
    state_class = MinState

    def aggregations(self) -> tuple[E.Expr, ...]:
        """``min``."""
        return (E.minimum(self.values()),)


@dataclass(frozen=True)
class Maximum(NumericColumnAnalyzer, ExtremeAnalyzer):
    """Largest non-null value of a numeric column (Deequ ``Maximum``), as a float.

    References
    ----------
    Schelter et al., PVLDB 2018, Table 2; ICDE 2019, Table I.
    """

    column: str
    where: str | None = None

    metric_name = "Maximum"
    state_class = MaxState

    def aggregations(self) -> tuple[E.Expr, ...]:
        """``max``."""
        return (E.maximum(self.values()),)


@dataclass(frozen=True)
class Range(NumericColumnAnalyzer):
    """Largest minus smallest non-null value of a numeric column (Deequ ``Range``), as a float.

    References
    ----------
    Deequ ``Range.scala``.
    """

    column: str
    where: str | None = None

    metric_name = "Range"
    state_class = RangeState

    def aggregations(self) -> tuple[E.Expr, ...]:
        """``min`` and ``max``."""
        values = self.values()
        return (E.minimum(values), E.maximum(values))

    def state_from_aggregates(self, values: Sequence[Any]) -> RangeState | None:
        """Return the extremes; ``None`` when there are no values."""
        if values[0] is None:
            return None
        return RangeState(float(values[0]), float(values[1]))

    def metric_value(self, state: RangeState) -> float:
        """``high - low``."""
        return state.high - state.low


@dataclass(frozen=True)
class Sum(NumericColumnAnalyzer):
    """Sum of the non-null values of a numeric column (Deequ ``Sum``), as a float.

    References
    ----------
    Deequ ``Sum.scala``.
    """

    column: str
    where: str | None = None

    metric_name = "Sum"
    state_class = SumState

    def aggregations(self) -> tuple[E.Expr, ...]:
        """``sum``."""
        return (E.total(self.values()),)

    def state_from_aggregates(self, values: Sequence[Any]) -> SumState | None:
        """Return the sum; ``None`` when there are no values."""
        return None if values[0] is None else SumState(float(values[0]))

    def metric_value(self, state: SumState) -> float:
        """Return the sum."""
        return state.total


@dataclass(frozen=True)
class Mean(NumericColumnAnalyzer):
    """Mean of the non-null values of a numeric column (Deequ ``Mean``).

    References
    ----------
    Schelter et al., PVLDB 2018, Table 2; ICDE 2019, Table I.
    """

    column: str
    where: str | None = None

    metric_name = "Mean"
    state_class = MeanState

    def aggregations(self) -> tuple[E.Expr, ...]:
        """``sum`` and ``count``."""
        values = self.values()
        return (E.total(values), E.count_non_null(values))

    def state_from_aggregates(self, values: Sequence[Any]) -> MeanState | None:
        """``(sum, count)``; ``None`` when there are no values."""
        if not values[1]:
            return None
        return MeanState(float(values[0]), int(values[1]))

    def metric_value(self, state: MeanState) -> float:
        """``sum / count``."""
        return state.total / state.count


def _spread(m2: float, n: int, avg: float) -> float:
    """A merged sum of squared deviations, 0 where it is only the rounding of means.

    A constant column has ``var_pop`` 0 in every part, but two parts' means
    of it may differ in their last bits, and the merge adds
    ``n1 n2 / n (avg1 - avg2)^2``: a spread of rounding, over which the
    standard deviation is 1e-14 instead of 0 and the skewness, kurtosis and
    correlation any number where the union's own moments say NaN (skewness
    1.15 for a constant 171.094 in parts of 1 and 3 rows). A spread counts
    as rounding when ``sqrt(m2 / n) <= n ε |avg|`` (ε the double's epsilon;
    a mean of n doubles is off by at most ``n ε |avg|``).
    """
    return 0.0 if m2 <= n * (n * sys.float_info.epsilon * abs(avg)) ** 2 else m2


@dataclass(frozen=True)
class StandardDeviation(NumericColumnAnalyzer):
    """Population standard deviation of a numeric column (Deequ ``StandardDeviation``).

    ``sqrt(m2 / n)`` over the ``n`` non-null values: the divisor is ``n``, not
    ``n - 1``, as in Deequ.

    References
    ----------
    Schelter et al., PVLDB 2018, Table 2; ICDE 2019, Table I (moments, [12]).
    """

    column: str
    where: str | None = None

    metric_name = "StandardDeviation"
    state_class = StandardDeviationState

    def aggregations(self) -> tuple[E.Expr, ...]:
        """``count``, ``avg`` and ``var_pop``."""
        values = self.values()
        return (E.count_non_null(values), E.mean(values), E.var_pop(values))

    def state_from_aggregates(self, values: Sequence[Any]) -> StandardDeviationState | None:
        """``(n, avg, m2 = var_pop * n)``; ``None`` when there are no values."""
        n = int(values[0] or 0)
        if n == 0:
            return None
        return StandardDeviationState(n, float(values[1]), float(values[2]) * n)

    def metric_value(self, state: StandardDeviationState) -> float:
        """``sqrt(m2 / n)``, 0 where ``m2`` is only rounding (:func:`_spread`)."""
        return math.sqrt(_spread(state.m2, state.n, state.avg) / state.n)


@dataclass(frozen=True)
class Correlation(ScanShareableAnalyzer):
    """Pearson correlation of two numeric columns (Deequ ``Correlation``).

    Over the rows where both values are present; in [-1, 1], NaN when a
    column is constant there.

    References
    ----------
    Schelter et al., PVLDB 2018, Table 2; ICDE 2019, Table I (online covariance, [5]).
    """

    first_column: str
    second_column: str
    where: str | None = None

    metric_name = "Correlation"
    state_class = CorrelationState

    @property
    def instance(self) -> str:
        """``first,second``."""
        return f"{self.first_column},{self.second_column}"

    @property
    def entity(self) -> Entity:
        """A multi-column metric."""
        return Entity.MULTICOLUMN

    def preconditions(self) -> Sequence[Precondition]:
        """Both columns exist and are numeric."""
        columns = self.numeric_columns()
        return (*map(has_column, columns), *map(is_numeric, columns))

    def numeric_columns(self) -> tuple[str, ...]:
        """Both columns."""
        return (self.first_column, self.second_column)

    def aggregations(self) -> tuple[E.Expr, ...]:
        """Count, means, covariance and variances over the complete pairs."""
        x, y = E.col(self.first_column), E.col(self.second_column)
        conditions: list[E.Expr] = [E.is_not_null(x), E.is_not_null(y)]
        where = where_expr(self.where)
        if where is not None:
            conditions.insert(0, where)
        pairs = E.and_(*conditions)
        xs, ys = E.to_double(E.when(pairs, x)), E.to_double(E.when(pairs, y))
        return (
            E.count_non_null(xs),
            E.mean(xs),
            E.mean(ys),
            E.covar_pop(xs, ys),
            E.var_pop(xs),
            E.var_pop(ys),
        )

    def state_from_aggregates(self, values: Sequence[Any]) -> CorrelationState | None:
        """Return the co-moments (population moments times ``n``); ``None`` without pairs."""
        n = int(values[0] or 0)
        if n == 0:
            return None
        x_avg, y_avg, cov, x_var, y_var = (float(v) for v in values[1:])
        return CorrelationState(n, x_avg, y_avg, cov * n, x_var * n, y_var * n)

    def metric_value(self, state: CorrelationState) -> float:
        """``ck / sqrt(x_mk * y_mk)``; NaN when a column is constant (spread 0: :func:`_spread`)."""
        x_mk = _spread(state.x_mk, state.n, state.x_avg)
        y_mk = _spread(state.y_mk, state.n, state.y_avg)
        if not x_mk or not y_mk:
            return math.nan
        return state.ck / math.sqrt(x_mk * y_mk)


class MomentsAnalyzer(NumericColumnAnalyzer):
    """A statistic of the first four central moments of a numeric column."""

    state_class = MomentsState

    def aggregations(self) -> tuple[E.Expr, ...]:
        """``count``, ``avg``, ``var_pop``, population skewness and kurtosis."""
        values = self.values()
        return (
            E.count_non_null(values),
            E.mean(values),
            E.var_pop(values),
            E.skewness_pop(values),
            E.kurtosis_pop(values),
        )

    def state_from_aggregates(self, values: Sequence[Any]) -> MomentsState | None:
        """The moments from ``var_pop``, skewness and kurtosis; ``None`` without values.

        Where the engine gives no skewness or kurtosis (all values equal; two
        values on DuckDB) the third moment is 0 (two values are symmetric)
        and, with all values equal, the fourth too.
        """
        n = int(values[0] or 0)
        if n == 0:
            return None
        variance = float(values[2])
        m2 = variance * n
        skew = 0.0 if values[3] is None else float(values[3])
        if values[4] is None:
            m4 = 0.0 if variance == 0 else (n * variance * variance)  # n = 2: m4 / m2^2 = 1
        else:
            m4 = (float(values[4]) + 3.0) * n * variance * variance
        return MomentsState(n, float(values[1]), m2, skew * n * variance**1.5, m4)


@dataclass(frozen=True)
class Variance(MomentsAnalyzer):
    """Population variance ``m2 / n`` of a numeric column (Deequ's ``StandardDeviation`` squared).

    References
    ----------
    GX ``expect_column_stdev_to_be_between`` (squared); whylogs variance.
    """

    column: str
    where: str | None = None

    metric_name = "Variance"

    def metric_value(self, state: MomentsState) -> float:
        """``m2 / n``, 0 where ``m2`` is only rounding (:func:`_spread`)."""
        return _spread(state.m2, state.n, state.avg) / state.n


@dataclass(frozen=True)
class Skewness(MomentsAnalyzer):
    """Population skewness ``sqrt(n) m3 / m2^1.5`` of a numeric column (unitless).

    NaN when all values are equal. scipy's ``skew(x, bias=True)``.

    References
    ----------
    Pébay, SAND2008-6212; scipy.stats.skew.
    """

    column: str
    where: str | None = None

    metric_name = "Skewness"

    def metric_value(self, state: MomentsState) -> float:
        """``sqrt(n) m3 / m2^1.5``; NaN where ``m2`` is 0 or only rounding (:func:`_spread`)."""
        if not _spread(state.m2, state.n, state.avg):
            return math.nan
        return float(math.sqrt(state.n) * state.m3 / state.m2**1.5)


@dataclass(frozen=True)
class Kurtosis(MomentsAnalyzer):
    """Population excess kurtosis ``n m4 / m2^2 - 3`` of a numeric column (unitless).

    NaN when all values are equal. scipy's ``kurtosis(x, fisher=True, bias=True)``.

    References
    ----------
    Pébay, SAND2008-6212; scipy.stats.kurtosis.
    """

    column: str
    where: str | None = None

    metric_name = "Kurtosis"

    def metric_value(self, state: MomentsState) -> float:
        """``n m4 / m2^2 - 3``; NaN where ``m2`` is 0 or only rounding (:func:`_spread`)."""
        if not _spread(state.m2, state.n, state.avg):
            return math.nan
        return state.n * state.m4 / state.m2**2 - 3.0


@dataclass(frozen=True)
class RatioOfSums(ScanShareableAnalyzer):
    """``sum(numerator) / sum(denominator)`` of two numeric columns (Deequ ``RatioOfSums``).

    Each sum skips its own column's nulls, as in Deequ. Dividing by a zero
    sum gives an infinity of the numerator's sign, or NaN for ``0 / 0``, as
    Java's double division does. Both columns must be numeric.

    References
    ----------
    Deequ ``RatioOfSums.scala``.
    """

    numerator: str
    denominator: str
    where: str | None = None

    metric_name = "RatioOfSums"
    state_class = RatioOfSumsState

    @property
    def instance(self) -> str:
        """``numerator,denominator``."""
        return f"{self.numerator},{self.denominator}"

    @property
    def entity(self) -> Entity:
        """Two columns."""
        return Entity.MULTICOLUMN

    def numeric_columns(self) -> tuple[str, ...]:
        """Both columns."""
        return (self.numerator, self.denominator)

    def preconditions(self) -> Sequence[Precondition]:
        """Require both columns to exist and be numeric."""
        columns = self.numeric_columns()
        return (*map(has_column, columns), *map(is_numeric, columns))

    def aggregations(self) -> tuple[E.Expr, ...]:
        """The two sums over the rows passing ``where``."""
        where = where_expr(self.where)
        return tuple(
            E.total(E.to_double(E.where_selection(E.col(c), where))) for c in self.numeric_columns()
        )

    def state_from_aggregates(self, values: Sequence[Any]) -> RatioOfSumsState | None:
        """The sums; ``None`` when the numerator has no value (Deequ's empty state)."""
        if values[0] is None:
            return None
        return RatioOfSumsState(float(values[0]), float(values[1] or 0.0))

    def metric_value(self, state: RatioOfSumsState) -> float:
        """``numerator / denominator`` in IEEE arithmetic (a zero denominator: inf or NaN)."""
        if state.denominator:
            return state.numerator / state.denominator
        if state.numerator:
            return math.copysign(math.inf, state.numerator)
        return math.nan


@dataclass(frozen=True)
class Monotonicity(EngineAnalyzer):
    """Fraction of values that keep a column increasing (or decreasing) in the order of another.

    In the order of ``order_by``, a non-null value with an earlier non-null
    value is considered; it complies when it is ``>=`` every earlier value
    (``>`` with ``strictly``; ``<=`` / ``<`` when ``decreasing``). A fraction
    in [0, 1], 1.0 exactly when the column is monotonic; 1.0 also with fewer
    than two values. Values compare in their own type (numbers, dates,
    text); on CSV read as text the column is read as numbers. Rows tied in
    ``order_by`` come in the engine's order, so order by a unique key. Its
    own query sorts the whole data (one window), so it does not join the
    shared scan, and it has no state (merging batches would miss the
    boundary).

    References
    ----------
    GX ``expect_column_values_to_be_increasing`` / ``_decreasing`` (which use
    the batch's row order).
    """

    column: str
    order_by: str
    decreasing: bool = False
    strictly: bool = False
    where: str | None = None

    metric_name = "Monotonicity"

    @property
    def instance(self) -> str:
        """The column."""
        return self.column

    def preconditions(self) -> Sequence[Precondition]:
        """Require both columns to exist."""
        return (has_column(self.column), has_column(self.order_by))

    def numeric_columns(self) -> tuple[str, ...]:
        """The column (read as numbers on untyped data)."""
        return (self.column,)

    def metric_from_engine(self, engine: QueryEngine) -> Metric:
        """One aggregation over the sorted data: complying and considered values."""
        value = E.where_selection(E.col(self.column), where_expr(self.where))
        before = E.running_extreme_before(value, E.col(self.order_by), largest=not self.decreasing)
        if self.decreasing:
            ok = (E.lt if self.strictly else E.le)(value, before)
        else:
            ok = (E.gt if self.strictly else E.ge)(value, before)
        considered = E.and_(E.is_not_null(value), E.is_not_null(before))
        complying, total = engine.aggregate(
            [E.count_where(E.and_(considered, ok)), E.count_where(considered)]
        )
        return self.success(int(complying) / int(total) if total else 1.0)
