"""Counts and ratios of rows: Size, ZeroCount, Completeness, Compliance; CustomSql.

States (ICDE 2019, Table I): a row count for Size and ZeroCount, and ``(#matches, #rows)``
for the ratios, merged by addition.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import autovalidate.metrics.expressions as E
from autovalidate.errors import DataError
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
from autovalidate.user_code import check_sql_query

__all__ = [
    "Completeness",
    "Compliance",
    "CustomSql",
    "NumMatches",
    "NumMatchesAndCount",
    "Size",
    "ZeroCount",
]


@dataclass(frozen=True)
class NumMatches(State):
    """A count of rows (Deequ's ``NumMatches``)."""

    num_matches: int

    def merge(self, other: NumMatches) -> NumMatches:
        """Add the counts."""
        return NumMatches(self.num_matches + other.num_matches)


@dataclass(frozen=True)
class NumMatchesAndCount(State):
    """Rows matching a predicate and rows considered (Deequ's ``NumMatchesAndCount``).

    For the ratio analyzers ``count`` is at least 1 (the state of no rows is
    ``None``); :class:`~autovalidate.metrics.strings.PatternConformance` counts
    non-null values, of which there may be none.
    """

    num_matches: int
    count: int

    def merge(self, other: NumMatchesAndCount) -> NumMatchesAndCount:
        """Add both counts."""
        return NumMatchesAndCount(self.num_matches + other.num_matches, self.count + other.count)

    @property
    def ratio(self) -> float:
        """``num_matches / count``, a fraction in [0, 1]."""
        return self.num_matches / self.count

    @classmethod
    def from_counts(cls, num_matches: Any, count: Any) -> NumMatchesAndCount | None:
        """Return the state from two aggregated counts; ``None`` when no row was considered."""
        if not count:
            return None
        return cls(int(num_matches or 0), int(count))


class RatioAnalyzer(ScanShareableAnalyzer):
    """A ratio of matching rows to considered rows, from a :class:`NumMatchesAndCount`."""

    state_class = NumMatchesAndCount

    def state_from_aggregates(self, values: Sequence[Any]) -> NumMatchesAndCount | None:
        """Build ``(#matches, #rows)`` from the two aggregates."""
        return NumMatchesAndCount.from_counts(values[0], values[1])

    def metric_value(self, state: NumMatchesAndCount) -> float:
        """Return the ratio, a fraction in [0, 1]."""
        return state.ratio


@dataclass(frozen=True)
class Size(ScanShareableAnalyzer):
    """Number of rows (Deequ ``Size``), of those passing ``where`` if given.

    The metric is a float count; no rows give 0.0 (a success).

    References
    ----------
    Schelter et al., PVLDB 2018, Table 2; ICDE 2019, Table I.
    """

    where: str | None = None

    metric_name = "Size"
    state_class = NumMatches

    @property
    def instance(self) -> str:
        """The dataset: ``"*"``."""
        return "*"

    @property
    def entity(self) -> Entity:
        """A dataset metric."""
        return Entity.DATASET

    def aggregations(self) -> tuple[E.Expr, ...]:
        """Rows passing the filter."""
        return (E.count_where(where_expr(self.where)),)

    def state_from_aggregates(self, values: Sequence[Any]) -> NumMatches:
        """Return the row count."""
        return NumMatches(int(values[0] or 0))

    def metric_value(self, state: NumMatches) -> float:
        """Return the count as a float."""
        return float(state.num_matches)


@dataclass(frozen=True)
class ZeroCount(ColumnAnalyzer, ScanShareableAnalyzer):
    """Number of rows whose numeric ``column`` is 0 (a float count; 0.0 without rows).

    Rows failing ``where`` and nulls are not counted; ``-0.0`` is 0.

    References
    ----------
    whylogs' and Soda's count of zeros; GX ``expect_column_values_to_not_be_in_set([0])``.
    """

    column: str
    where: str | None = None

    metric_name = "ZeroCount"
    state_class = NumMatches

    def preconditions(self) -> Sequence[Precondition]:
        """Require the column to exist and be numeric."""
        return (has_column(self.column), is_numeric(self.column))

    def numeric_columns(self) -> tuple[str, ...]:
        """The column."""
        return (self.column,)

    def aggregations(self) -> tuple[E.Expr, ...]:
        """Rows passing the filter whose value is 0."""
        value = E.to_double(E.col(self.column))
        return (E.count_where(E.where_condition(E.eq(value, E.lit(0.0)), where_expr(self.where))),)

    def state_from_aggregates(self, values: Sequence[Any]) -> NumMatches:
        """Return the count."""
        return NumMatches(int(values[0] or 0))

    def metric_value(self, state: NumMatches) -> float:
        """Return the count as a float."""
        return float(state.num_matches)


@dataclass(frozen=True)
class Completeness(ColumnAnalyzer, RatioAnalyzer):
    """Fraction of rows where ``column`` is not null (Deequ ``Completeness``).

    A fraction in [0, 1]; rows failing ``where`` are not counted. A failure
    metric (empty state) when no row passes the filter.

    References
    ----------
    Schelter et al., PVLDB 2018, Table 2; ICDE 2019, Table I and §III.
    """

    column: str
    where: str | None = None

    metric_name = "Completeness"

    def aggregations(self) -> tuple[E.Expr, ...]:
        """Non-null rows passing the filter, and rows passing it."""
        where = where_expr(self.where)
        return (
            E.count_non_null(E.where_selection(E.col(self.column), where)),
            E.count_where(where),
        )

    def row_violation(self) -> E.Expr:
        """A row passing ``where`` whose value of ``column`` is null."""
        return E.where_condition(E.is_null(E.col(self.column)), where_expr(self.where))


@dataclass(frozen=True)
class Compliance(RatioAnalyzer):
    """Fraction of rows satisfying a predicate (Deequ ``Compliance``).

    Parameters
    ----------
    instance_name
        A name for the predicate, used as the metric's instance.
    predicate
        A SQL boolean expression in the engine's dialect (a string), or an
        engine-neutral :class:`~autovalidate.metrics.expressions.Expr`. A row
        where it is null does not comply.
    where
        Only rows satisfying this SQL filter count, in numerator and denominator.
    columns
        Columns the predicate reads; each must exist.

    A fraction in [0, 1]; a failure (empty state) when no row passes ``where``.

    References
    ----------
    Schelter et al., PVLDB 2018, Table 2 and §3.2 (Compliance, Completeness as
    compliance with "is not null").
    """

    instance_name: str
    predicate: str | E.Expr
    where: str | None = None
    columns: tuple[str, ...] = ()

    metric_name = "Compliance"

    @property
    def instance(self) -> str:
        """The predicate's name."""
        return self.instance_name

    def preconditions(self) -> Sequence[Precondition]:
        """Require the named columns to exist."""
        return tuple(has_column(c) for c in self.columns)

    def numeric_columns(self) -> tuple[str, ...]:
        """The columns an expression predicate compares with a number (``x >= 0``).

        On data read as text (CSV) those comparisons compare numbers, not
        text with a number (which DuckDB refuses): see
        :meth:`aggregations_reading_text`. SQL text predicates declare none.
        """
        return () if isinstance(self.predicate, str) else E.compared_with_numbers(self.predicate)

    def aggregations_reading_text(self, columns: Sequence[str]) -> tuple[E.Expr, ...]:
        """:meth:`aggregations` with the predicate comparing ``columns`` (text) as numbers.

        As Deequ's predicate on a Spark string column (outside ANSI mode):
        the comparison reads ``TRY_CAST(x AS DOUBLE)``
        (:func:`~autovalidate.metrics.expressions.numbers_compared_as_numbers`),
        so a text that is not a number (``N/A``, ``12 oz``) makes it null and
        the row does not comply, while ``x IS NULL`` still reads the text: an
        empty cell passes ``is_in_range``. The row split of a validation
        rewrites :meth:`row_violation` the same way, so its invalid rows are
        the rows this metric counted.
        """
        where = where_expr(self.where)
        predicate = E.numbers_compared_as_numbers(self.predicate_expr(), columns)
        return (E.count_where(E.where_condition(predicate, where)), E.count_where(where))

    def aggregations(self) -> tuple[E.Expr, ...]:
        """Rows passing filter and predicate, and rows passing the filter."""
        where = where_expr(self.where)
        predicate = self.predicate_expr()
        return (E.count_where(E.where_condition(predicate, where)), E.count_where(where))

    def predicate_expr(self) -> E.Expr:
        """The predicate as an expression (SQL text as an ``Sql`` expression)."""
        return E.sql(self.predicate) if isinstance(self.predicate, str) else self.predicate

    def row_violation(self) -> E.Expr:
        """A row passing ``where`` where the predicate is false or null."""
        return E.where_condition(E.not_true(self.predicate_expr()), where_expr(self.where))


@dataclass(frozen=True)
class CustomSql(EngineAnalyzer):
    """The number a custom SQL query computes over the data (Deequ ``CustomSql``).

    ``query`` is one Spark SQL ``SELECT`` reading the data as table ``data``
    (DuckDB runs sqlglot's translation) and returning one row with one
    number, e.g. ``SELECT count(*) FROM data WHERE shipped < ordered``. It
    may read no other table (:func:`~autovalidate.user_code.check_sql_query`,
    checked when the analyzer is made); on DuckDB a suite's query also runs
    sandboxed. Its own query, no state.

    Raises
    ------
    UnsafeInputError
        If the query reads anything but the data.

    References
    ----------
    Deequ ``CustomSql``; Soda user-defined metrics (``<metric> query``).
    """

    query: str

    metric_name = "CustomSql"

    def __post_init__(self) -> None:
        check_sql_query(self.query, "custom SQL")

    @property
    def instance(self) -> str:
        """The data set: ``"*"``."""
        return "*"

    @property
    def entity(self) -> Entity:
        """A dataset metric."""
        return Entity.DATASET

    def metric_from_engine(self, engine: QueryEngine) -> Metric:
        """Run the query; a failure unless it gives one row with one number."""
        rows = engine.custom_query(self.query)
        if len(rows) != 1 or len(rows[0]) != 1 or not isinstance(rows[0][0], (int, float)):
            shape = f"{len(rows)} rows of {len(rows[0]) if rows else 0} columns"
            return self.failure(DataError(f"custom SQL must give one number, gave {shape}"))
        return self.success(float(rows[0][0]))
