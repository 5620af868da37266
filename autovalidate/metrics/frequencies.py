"""Metrics of value frequencies.

Uniqueness, Distinctness, UniqueValueRatio, CountDistinct, Entropy,
MutualInformation and Histogram all share one state, the table of group
frequencies (ICDE 2019, Table I: "value frequencies", merged by an outer join
and summation), so an engine groups the data once per distinct grouping. As in Deequ's
``FrequencyBasedAnalyzer``, the groups are those of the rows where at least one
grouping column is not null (and that pass ``where``), so the frequency metrics
divide by the rows where the column is not null. ExactQuantile and
InterquartileRange read the frequencies of a numeric column's values as
floats, a grouping of their own, and sort them.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

import autovalidate.metrics.expressions as E
from autovalidate.errors import ParameterError
from autovalidate.metrics.base import (
    COUNT_COLUMN,
    ColumnAnalyzer,
    Distribution,
    DistributionValue,
    Entity,
    FrequencyBasedAnalyzer,
    FrequencyTable,
    Grouping,
    Metric,
    Precondition,
    ScanShareableFrequencyBasedAnalyzer,
    State,
    has_column,
    is_numeric,
    where_expr,
)
from autovalidate.metrics.sketches import check_quantile

__all__ = [
    "CountDistinct",
    "Distinctness",
    "DuplicateCount",
    "Entropy",
    "ExactQuantile",
    "FrequenciesState",
    "Histogram",
    "InterquartileRange",
    "MutualInformation",
    "UniqueValueRatio",
    "Uniqueness",
    "percentiles",
]

COUNT = E.col(COUNT_COLUMN)


@dataclass(frozen=True, eq=False)
class FrequenciesState(State):
    """Frequencies of groups: key columns plus :data:`~autovalidate.metrics.base.COUNT_COLUMN`.

    Merging sums the counts of equal keys, nulls being equal to nulls (Deequ's
    null-safe outer join). Stored as Parquet by the state providers.
    """

    table: pa.Table

    @property
    def key_names(self) -> list[str]:
        """The grouping columns."""
        return [n for n in self.table.column_names if n != COUNT_COLUMN]

    @property
    def num_rows(self) -> int:
        """Rows summarized (the sum of the counts)."""
        return int(pc.sum(self.table[COUNT_COLUMN]).as_py() or 0)

    def merge(self, other: FrequenciesState) -> FrequenciesState:
        """Sum the counts of equal keys (a float key's -0.0 equal to 0.0, as the engines group)."""
        keys = self.key_names
        both = pa.concat_tables(
            [self.table, other.table.select(self.table.column_names)],
            promote_options="permissive",
        )
        for i, column in enumerate(both.columns):
            if pa.types.is_floating(column.type):  # -0.0 + 0.0 is 0.0; Arrow groups by the bits
                both = both.set_column(i, both.field(i), pc.add(column, 0.0))
        summed = both.group_by(keys, use_threads=False).aggregate([(COUNT_COLUMN, "sum")])
        return FrequenciesState(
            pa.table({**{k: summed[k] for k in keys}, COUNT_COLUMN: summed[f"{COUNT_COLUMN}_sum"]})
        )

    def to_dict(self) -> dict[str, Any]:
        """Frequencies as ``{"keys": [...], "rows": [[key..., count], ...]}`` (for small tables)."""
        return {"keys": self.key_names, "rows": [list(r.values()) for r in self.table.to_pylist()]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FrequenciesState:
        """Inverse of :meth:`to_dict`."""
        names = [*data["keys"], COUNT_COLUMN]
        columns: list[list[Any]] = [list(c) for c in zip(*data["rows"], strict=True)]
        if not columns:
            columns = [[] for _ in names]
        return cls(pa.table(dict(zip(names, columns, strict=True))))


def _columns(value: str | Sequence[str]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


def _key_names(columns: Sequence[str]) -> list[str]:
    """The columns as unique key names: the n-th repeat of ``c`` is ``c#n``."""
    names: list[str] = []
    for c in columns:
        name, n = c, 1
        while name in names:
            n += 1
            name = f"{c}#{n}"
        names.append(name)
    return names


class GroupedColumnsAnalyzer(FrequencyBasedAnalyzer):
    """Frequencies of the value combinations of one or more columns."""

    columns: str | Sequence[str]
    where: str | None

    state_class = FrequenciesState

    def __post_init__(self) -> None:
        object.__setattr__(self, "columns", _columns(self.columns))
        if not self.columns:
            raise ParameterError(f"{type(self).__name__} needs at least one column")

    @property
    def instance(self) -> str:
        """The columns, comma-separated."""
        return ",".join(self.columns)

    @property
    def entity(self) -> Entity:
        """Column or multi-column."""
        return Entity.COLUMN if len(self.columns) == 1 else Entity.MULTICOLUMN

    def preconditions(self) -> Sequence[Precondition]:
        """Require the columns to exist."""
        return tuple(has_column(c) for c in self.columns)

    @property
    def grouping(self) -> Grouping:
        """Group by the columns, rows with at least one non-null value.

        A column named twice (``MutualInformation(a, a)``) gets a second key
        named ``a#2``, so that no key name is ambiguous (Spark refuses a
        duplicate name; DuckDB picks one of them).
        """
        return Grouping(
            tuple(zip(_key_names(self.columns), map(E.col, self.columns), strict=True)),
            where_expr(self.where),
            drop_all_null=True,
        )


class SharedFrequencyAnalyzer(GroupedColumnsAnalyzer, ScanShareableFrequencyBasedAnalyzer):
    """A grouped-columns analyzer whose metric is a ratio of two frequency aggregates."""

    def metric_from_aggregates(self, values: Sequence[Any]) -> Metric:
        """``values[0] / values[1]``; an empty-state failure when the denominator is 0 or null."""
        if not values[1]:
            return self.empty()
        return self.success(values[0] / values[1])


@dataclass(frozen=True)
class Uniqueness(SharedFrequencyAnalyzer):
    """Fraction of rows whose value occurs exactly once (Deequ ``Uniqueness``).

    Values occurring exactly once, divided by the rows where the column (for
    several columns: at least one of them) is not null. A fraction in [0, 1].

    References
    ----------
    Schelter et al., PVLDB 2018, Table 2 and §3.2; Deequ ``Uniqueness.scala``.
    """

    columns: str | Sequence[str]
    where: str | None = None

    metric_name = "Uniqueness"

    def frequency_aggregations(self) -> tuple[E.Expr, ...]:
        """Count groups of count 1, and rows."""
        return (E.count_where(E.eq(COUNT, E.lit(1))), E.total(COUNT))


@dataclass(frozen=True)
class Distinctness(SharedFrequencyAnalyzer):
    """Distinct values divided by the rows where the column is not null (Deequ ``Distinctness``).

    A fraction in [0, 1].

    References
    ----------
    Schelter et al., PVLDB 2018, Table 2 and §3.2; Deequ ``Distinctness.scala``.
    """

    columns: str | Sequence[str]
    where: str | None = None

    metric_name = "Distinctness"

    def frequency_aggregations(self) -> tuple[E.Expr, ...]:
        """Count groups, and rows."""
        return (E.count_star(), E.total(COUNT))


@dataclass(frozen=True)
class UniqueValueRatio(SharedFrequencyAnalyzer):
    """Values occurring exactly once divided by distinct values (Deequ ``UniqueValueRatio``).

    A fraction in [0, 1].

    References
    ----------
    Schelter et al., ICDE 2019, Table I; Deequ ``UniqueValueRatio.scala``.
    """

    columns: str | Sequence[str]
    where: str | None = None

    metric_name = "UniqueValueRatio"

    def frequency_aggregations(self) -> tuple[E.Expr, ...]:
        """Count groups of count 1, and groups."""
        return (E.count_where(E.eq(COUNT, E.lit(1))), E.count_star())


@dataclass(frozen=True)
class CountDistinct(GroupedColumnsAnalyzer, ScanShareableFrequencyBasedAnalyzer):
    """Number of distinct non-null values (combinations) (Deequ ``CountDistinct``), a float count.

    References
    ----------
    Schelter et al., PVLDB 2018, Table 2; ICDE 2019, Table I.
    """

    columns: str | Sequence[str]
    where: str | None = None

    metric_name = "CountDistinct"

    def frequency_aggregations(self) -> tuple[E.Expr, ...]:
        """Count groups."""
        return (E.count_star(),)

    def metric_from_aggregates(self, values: Sequence[Any]) -> Metric:
        """Return the number of groups."""
        return self.success(float(values[0] or 0))


@dataclass(frozen=True)
class DuplicateCount(GroupedColumnsAnalyzer, ScanShareableFrequencyBasedAnalyzer):
    """Rows that repeat an earlier row's values of ``columns`` (a float count).

    ``sum over values of (count - 1)``: the rows minus the distinct values,
    among the rows where at least one of the columns is not null (as the
    other frequency metrics). Name every column for duplicate rows. 0.0 when
    no row is considered.

    References
    ----------
    Soda ``duplicate_count``; GX ``expect_compound_columns_to_be_unique``
    (its unexpected count).
    """

    columns: str | Sequence[str]
    where: str | None = None

    metric_name = "DuplicateCount"

    def frequency_aggregations(self) -> tuple[E.Expr, ...]:
        """Rows, and distinct values."""
        return (E.total(COUNT), E.count_star())

    def metric_from_aggregates(self, values: Sequence[Any]) -> Metric:
        """``rows - distinct values``."""
        return self.success(float(int(values[0] or 0) - int(values[1] or 0)))


@dataclass(frozen=True)
class Entropy(GroupedColumnsAnalyzer, ScanShareableFrequencyBasedAnalyzer):
    """Entropy of the value distribution of a column, in nats (Deequ ``Entropy``).

    ``-sum_v (c_v / N) ln(c_v / N)`` over the non-null values ``v`` with counts
    ``c_v`` and ``N`` non-null rows, computed as ``ln N - sum_v c_v ln c_v / N``.
    Non-negative; at most ``ln`` of the number of distinct values. Exactly 0.0
    for a column with one distinct value, on every engine (the formula's two
    terms would round apart by an ulp, in the engine's ``ln`` against Python's).

    References
    ----------
    Schelter et al., PVLDB 2018, Table 2 and §3.2 (incremental entropy).
    """

    columns: str | Sequence[str]
    where: str | None = None

    metric_name = "Entropy"

    def frequency_aggregations(self) -> tuple[E.Expr, ...]:
        """``sum c ln c``, rows and distinct values."""
        return (E.total(E.mul(COUNT, E.ln(COUNT))), E.total(COUNT), E.count_star())

    def metric_from_aggregates(self, values: Sequence[Any]) -> Metric:
        """``ln N - S / N``, 0.0 for one distinct value; an empty-state failure without rows."""
        n = values[1]
        if not n:
            return self.empty()
        if values[2] == 1:
            return self.success(0.0)
        return self.success(max(0.0, math.log(n) - float(values[0]) / n))


@dataclass(frozen=True)
class MutualInformation(GroupedColumnsAnalyzer):
    """Mutual information of two columns, in nats (Deequ ``MutualInformation``).

    ``sum (c_xy / N) ln((c_xy / N) / ((c_x / N) (c_y / N)))`` over the pairs
    where both values are present, with ``N`` the rows where at least one is
    present and the marginal counts ``c_x``, ``c_y`` taken over those rows, as
    Deequ does (its join on the marginals drops the null keys). Each term is
    computed as ``c_xy (ln(c_xy N) - ln(c_x c_y))``, so that the metric is
    exactly 0.0 on every engine when the columns are independent in the data
    (``c_xy N == c_x c_y`` for every pair).

    References
    ----------
    Schelter et al., PVLDB 2018, Table 2 and §3.2; Deequ ``MutualInformation.scala``.
    """

    columns: str | Sequence[str]
    where: str | None = None

    metric_name = "MutualInformation"

    def __post_init__(self) -> None:
        super().__post_init__()
        if len(self.columns) != 2:
            raise ParameterError(
                f"MutualInformation needs exactly 2 columns, got {len(self.columns)}"
            )

    def metric_from_frequencies(self, table: FrequencyTable) -> Metric:
        """One query over the frequencies with the marginals as window sums."""
        x, y = (E.col(c) for c in self.grouping.key_names)
        both = E.and_(E.is_not_null(x), E.is_not_null(y))
        derived = {
            "__av_cx": E.window_sum(COUNT, [x]),
            "__av_cy": E.window_sum(COUNT, [y]),
            "__av_n": E.window_sum(COUNT, []),
        }
        count = E.to_double(COUNT)
        joint = E.mul(count, E.to_double(E.col("__av_n")))
        marginals = E.mul(E.to_double(E.col("__av_cx")), E.to_double(E.col("__av_cy")))
        terms, n = table.aggregate(
            [
                E.total(E.when(both, E.mul(count, E.sub(E.ln(joint), E.ln(marginals))))),
                E.total(COUNT),
            ],
            derived,
        )
        if not n:
            return self.empty()
        return self.success(float(terms or 0.0) / n)


#: Deequ's ``Histogram.NullFieldReplacement``.
NULL_VALUE = "NullValue"
#: Deequ's ``Histogram.MaximumAllowedDetailBins``.
MAXIMUM_DETAIL_BINS = 1000


@dataclass(frozen=True)
class Histogram(ColumnAnalyzer, FrequencyBasedAnalyzer):
    """Value distribution of a column (Deequ ``Histogram``), as a :class:`Distribution`.

    Values are read as text, a null as ``"NullValue"``; each bin's ratio is its
    count over all rows passing ``where`` (nulls included). ``values`` lists
    the ``max_detail_bins`` most frequent bins (ties by value), and
    ``number_of_bins`` counts them all. Unlike Deequ there is no binning
    function: bin the column in the data beforehand.

    Raises
    ------
    ParameterError
        If ``max_detail_bins`` is not in [1, 1000].

    References
    ----------
    Schelter et al., PVLDB 2018, Table 2; Deequ ``Histogram.scala``.
    """

    column: str
    max_detail_bins: int = MAXIMUM_DETAIL_BINS
    where: str | None = None

    metric_name = "Histogram"
    state_class = FrequenciesState
    frequency_queries = 2

    def __post_init__(self) -> None:
        if not 1 <= self.max_detail_bins <= MAXIMUM_DETAIL_BINS:
            raise ParameterError(
                f"max_detail_bins must be in [1, {MAXIMUM_DETAIL_BINS}], got {self.max_detail_bins}"
            )

    @property
    def grouping(self) -> Grouping:
        """Group by the value's text, nulls as ``"NullValue"``, all rows."""
        key = E.coalesce(E.to_text(E.col(self.column)), E.lit(NULL_VALUE))
        return Grouping(((self.column, key),), where_expr(self.where), drop_all_null=False)

    def metric_from_frequencies(self, table: FrequencyTable) -> Metric:
        """Bins by descending count, then ascending value."""
        number_of_bins, num_rows = table.aggregate([E.count_star(), E.total(COUNT)])
        if not num_rows:
            return self.empty()
        rows = table.top([(COUNT, True), (E.col(self.column), False)], self.max_detail_bins)
        values = {
            str(value): DistributionValue(int(count), int(count) / num_rows)
            for value, count in rows
        }
        return self.success(Distribution(values, int(number_of_bins)))


def percentiles(values: np.ndarray, counts: np.ndarray, quantiles: Sequence[float]) -> list[float]:
    """Spark's ``percentile`` of values repeated by their counts, at each of ``quantiles``.

    ``values`` are distinct and sorted ascending (NaN last), ``counts`` their
    positive counts, ``n`` their sum. The ``q``-quantile is the value at the
    position ``q (n - 1)`` of the sorted multiset (0-based), interpolated
    linearly between the two ranks around it: Spark's ``percentile``, DuckDB's
    ``quantile_cont``, numpy's ``"linear"`` method, Hyndman & Fan's type 7.

    Raises
    ------
    ValueError
        If ``counts`` sums to 0.
    """
    n = int(counts.sum())
    if not n:
        raise ValueError("no values")
    ends = np.cumsum(counts)  # the rank after each value's last copy
    out = []
    for q in quantiles:
        position = q * (n - 1)
        lower, upper = math.floor(position), math.ceil(position)
        below = float(values[int(np.searchsorted(ends, lower, side="right"))])
        above = float(values[int(np.searchsorted(ends, upper, side="right"))])
        if lower == upper or below == above:
            out.append(below)
        else:
            out.append((upper - position) * below + (position - lower) * above)
    return out


class ExactQuantilesAnalyzer(ColumnAnalyzer, FrequencyBasedAnalyzer):
    """Exact quantiles of a numeric column, from the frequencies of its values.

    The state is the frequencies of the column's non-null values read as
    floats (a :class:`FrequenciesState` keyed by the value): mergeable
    exactly, so the quantiles of an incremental or partitioned run are those
    of the whole data, where Deequ's ``percentile`` state cannot be merged.
    Its size is the column's number of distinct values (one row of a float
    and a count each); every exact quantile and interquartile range of one
    column and ``where`` shares it, and the metric reads it whole into this
    process (on Spark: the driver), sorted there. For a column of many
    distinct values, an approximate quantile
    (:class:`~autovalidate.metrics.ApproxQuantile`) keeps a state of fixed
    size: benchmarks/results/exact_quantile.md measures both.
    """

    column: str
    where: str | None

    state_class = FrequenciesState

    def preconditions(self) -> Sequence[Precondition]:
        """Require the column to exist and be numeric."""
        return (has_column(self.column), is_numeric(self.column))

    def numeric_columns(self) -> tuple[str, ...]:
        """The column."""
        return (self.column,)

    @property
    def grouping(self) -> Grouping:
        """Group by the value as a float, rows with a value that pass ``where``."""
        key = E.to_double(E.col(self.column))
        return Grouping(((self.column, key),), where_expr(self.where), drop_all_null=True)

    @abstractmethod
    def quantiles(self) -> tuple[float, ...]:
        """The quantiles the metric reads."""

    @abstractmethod
    def from_quantiles(self, quantiles: Sequence[float]) -> float:
        """The metric from the values at :meth:`quantiles`."""

    def metric_from_frequencies(self, table: FrequencyTable) -> Metric:
        """Sort the distinct values and interpolate (:func:`percentiles`); no values: empty."""
        frequencies = table.to_arrow().sort_by(self.column)  # NaN last, as in Spark
        values = frequencies[self.column].to_numpy()
        counts = frequencies[COUNT_COLUMN].to_numpy()
        if not counts.sum():
            return self.empty()
        return self.success(self.from_quantiles(percentiles(values, counts, self.quantiles())))


@dataclass(frozen=True)
class ExactQuantile(ExactQuantilesAnalyzer):
    """Exact ``quantile`` of a numeric column (Deequ ``ExactQuantile``), as a float.

    Linear interpolation between the ranks around ``quantile * (n - 1)`` of
    the ``n`` non-null values (:func:`percentiles`): Deequ's value, Spark's
    ``percentile``; the median of 1, 2, 3, 4 is 2.5.

    Raises
    ------
    ParameterError
        If ``quantile`` is not in [0, 1].

    References
    ----------
    Deequ ``ExactQuantile.scala`` (the state here merges; see the base class).
    """

    column: str
    quantile: float
    where: str | None = None

    metric_name = "ExactQuantile"

    def __post_init__(self) -> None:
        check_quantile(self.quantile)

    def quantiles(self) -> tuple[float, ...]:
        """``(quantile,)``."""
        return (self.quantile,)

    def from_quantiles(self, quantiles: Sequence[float]) -> float:
        """The quantile."""
        return quantiles[0]


@dataclass(frozen=True)
class InterquartileRange(ExactQuantilesAnalyzer):
    """Exact interquartile range of a numeric column, Q3 - Q1 (Deequ ``InterquartileRange``).

    Both quartiles as :class:`ExactQuantile` computes them; the IQR of 1 to 6
    is 4.75 - 2.25 = 2.5.

    References
    ----------
    Deequ ``InterquartileRange.scala`` (whose state cannot merge; this one does).
    """

    column: str
    where: str | None = None

    metric_name = "InterquartileRange"

    def quantiles(self) -> tuple[float, ...]:
        """The quartiles, ``(0.25, 0.75)``."""
        return (0.25, 0.75)

    def from_quantiles(self, quantiles: Sequence[float]) -> float:
        """``Q3 - Q1``."""
        return quantiles[1] - quantiles[0]
