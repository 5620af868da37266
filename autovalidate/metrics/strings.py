"""Metrics of values read as text: DataType, PatternMatch, PatternConformance, MinLength, MaxLength.

Values are read as the engine renders them as text (see
:func:`~autovalidate.metrics.expressions.to_text`); on text columns that is the
value itself. Regular expressions are matched in full (anchored at both ends)
by the engine: RE2 on DuckDB, ``java.util.regex`` on Spark.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import autovalidate.metrics.expressions as E
from autovalidate.metrics.base import (
    ColumnAnalyzer,
    Distribution,
    DistributionValue,
    Precondition,
    ScanShareableAnalyzer,
    State,
    has_column,
    is_text,
    where_expr,
)
from autovalidate.metrics.counts import NumMatchesAndCount, RatioAnalyzer
from autovalidate.metrics.statistics import ExtremeAnalyzer, MaxState, MinState
from autovalidate.nulls import may_match_missing, missing_regex
from autovalidate.user_code import check_user_regex

__all__ = [
    "DataType",
    "DataTypeHistogram",
    "DataTypeInstance",
    "MaxLength",
    "MinLength",
    "PatternConformance",
    "PatternMatch",
]

# Deequ's StatefulDataType patterns, with [0-9] for \d (ASCII digits in Java and RE2 alike).
FRACTIONAL_PATTERN = r"(-|\+)? ?[0-9]+((\.[0-9]+)|((?:\.[0-9]+)?[Ee][-+]?[0-9]+))"
INTEGRAL_PATTERN = r"(-|\+)? ?[0-9]+"
BOOLEAN_PATTERN = r"(true|false)"


class DataTypeInstance(str, enum.Enum):
    """The data types DataType tells apart (Deequ's ``DataTypeInstances``)."""

    UNKNOWN = "Unknown"
    FRACTIONAL = "Fractional"
    INTEGRAL = "Integral"
    BOOLEAN = "Boolean"
    STRING = "String"


@dataclass(frozen=True)
class DataTypeHistogram(State):
    """Counts of values by inferred type (Deequ's ``DataTypeHistogram``); nulls are Unknown."""

    num_null: int
    num_fractional: int
    num_integral: int
    num_boolean: int
    num_string: int

    def merge(self, other: DataTypeHistogram) -> DataTypeHistogram:
        """Add the counts."""
        return DataTypeHistogram(
            self.num_null + other.num_null,
            self.num_fractional + other.num_fractional,
            self.num_integral + other.num_integral,
            self.num_boolean + other.num_boolean,
            self.num_string + other.num_string,
        )

    def counts(self) -> dict[DataTypeInstance, int]:
        """Count by type."""
        return {
            DataTypeInstance.UNKNOWN: self.num_null,
            DataTypeInstance.FRACTIONAL: self.num_fractional,
            DataTypeInstance.INTEGRAL: self.num_integral,
            DataTypeInstance.BOOLEAN: self.num_boolean,
            DataTypeInstance.STRING: self.num_string,
        }


class TextColumnAnalyzer(ColumnAnalyzer, ScanShareableAnalyzer):
    """An analyzer over one column's values as text."""

    where: str | None

    def text(self) -> E.Expr:
        """Return the values as text, null where filtered out."""
        return E.to_text(E.where_selection(E.col(self.column), where_expr(self.where)))


class StringColumnAnalyzer(TextColumnAnalyzer):
    """An analyzer of a text column only (Deequ's ``isString`` precondition).

    On a column of another type (numbers, booleans, dates) the metric is a
    failure (a :class:`~autovalidate.errors.DataError`), as in Deequ, rather
    than a value computed on the engine's rendering of the values as text.
    """

    def preconditions(self) -> Sequence[Precondition]:
        """Require the column to exist and to have a text type."""
        return (has_column(self.column), is_text(self.column))


@dataclass(frozen=True)
class DataType(TextColumnAnalyzer):
    """Distribution of inferred data types of a column's values (Deequ ``DataType``).

    Each value's text is Fractional (``1.5``, ``-2e3``), Integral (``42``,
    ``+ 7``), Boolean (``true``/``false``, lower case) or else String, by
    Deequ's patterns matched in full; nulls are Unknown. The metric is a
    :class:`Distribution` over those five names, ratios over all rows counted.
    Unlike Deequ, rows failing ``where`` are left out rather than counted as
    Unknown.

    References
    ----------
    Schelter et al., PVLDB 2018, Table 2; ICDE 2019, Table I; Deequ
    ``DataType.scala`` and ``StatefulDataType.scala``.
    """

    column: str
    where: str | None = None

    metric_name = "DataType"
    state_class = DataTypeHistogram

    def aggregations(self) -> tuple[E.Expr, ...]:
        """Nulls, the three typed counts, and non-null values."""
        where = where_expr(self.where)
        value = E.col(self.column)
        nulls = E.where_condition(E.is_null(value), where)
        text = self.text()
        return (
            E.count_where(nulls),
            E.count_where(E.full_match(text, FRACTIONAL_PATTERN)),
            E.count_where(E.full_match(text, INTEGRAL_PATTERN)),
            E.count_where(E.full_match(text, BOOLEAN_PATTERN)),
            E.count_non_null(text),
        )

    def state_from_aggregates(self, values: Sequence[Any]) -> DataTypeHistogram | None:
        """Return the histogram; ``None`` without rows."""
        nulls, fractional, integral, boolean, non_null = (int(v or 0) for v in values)
        if nulls + non_null == 0:
            return None
        return DataTypeHistogram(
            nulls, fractional, integral, boolean, non_null - fractional - integral - boolean
        )

    def metric_value(self, state: DataTypeHistogram) -> Distribution:
        """Give counts and ratios over all rows counted."""
        counts = state.counts()
        total = sum(counts.values())
        return Distribution(
            {t.value: DistributionValue(n, n / total) for t, n in counts.items()},
            number_of_bins=len(counts),
        )


@dataclass(frozen=True)
class PatternMatch(StringColumnAnalyzer, RatioAnalyzer):
    """Fraction of rows whose value fully matches ``pattern`` (Deequ ``PatternMatch``).

    Full-match semantics: the whole text must match (Deequ counts a match
    anywhere in the value). As in Deequ, the denominator is every row passing
    ``where``, so null values count as not matching. A fraction in [0, 1].
    The column must be text: on another type the metric fails, as in Deequ.

    References
    ----------
    ICDE 2019, Table I; Deequ ``PatternMatch.scala``.

    Raises
    ------
    UnsafeInputError
        If ``pattern`` is outside the RE2 subset or nests repetitions that
        Spark's backtracking regex could take exponential time on
        (:func:`~autovalidate.user_code.check_user_regex`): checked here,
        before any engine runs it.
    """

    column: str
    pattern: str
    where: str | None = None

    metric_name = "PatternMatch"
    state_class = NumMatchesAndCount

    def __post_init__(self) -> None:
        check_user_regex(self.pattern, f"has_pattern({self.column!r})")

    def aggregations(self) -> tuple[E.Expr, ...]:
        """Count matching rows and rows."""
        return (
            E.count_where(E.full_match(self.text(), self.pattern)),
            E.count_where(where_expr(self.where)),
        )

    def row_violation(self) -> E.Expr:
        """A row passing ``where`` whose value is null or does not fully match ``pattern``.

        Nulls count against the metric, as in Deequ (unlike
        :class:`PatternConformance`).
        """
        violation = E.not_true(E.full_match(self.text(), self.pattern))
        return E.where_condition(violation, where_expr(self.where))


@dataclass(frozen=True)
class PatternConformance(TextColumnAnalyzer):
    """Counts of present values and of those fully matching ``pattern``.

    The state an Auto-Validate pattern constraint is decided on. Missing values
    are completeness, not pattern violations, so only present values count: a
    value is missing when it is null, empty or whitespace only
    (:data:`~autovalidate.nulls.WHITESPACE_REGEX`), or one of ``null_tokens``
    (exact text, e.g. ``NA``; see :mod:`autovalidate.nulls`). The metric maps
    ``"num_matching"`` and ``"num_values"`` to the counts (an all-missing
    column gives two zeros, a success).

    References
    ----------
    Song & He, SIGMOD 2021, §2 (validation of a column batch by a pattern);
    ICDE 2019, Table I (PatternMatch state).
    """

    column: str
    pattern: str
    where: str | None = None
    null_tokens: tuple[str, ...] = ()

    metric_name = "PatternConformance"
    state_class = NumMatchesAndCount

    def missing(self) -> E.Expr:
        """The condition of a non-null missing value: one regex (``missing_regex``)."""
        return E.full_match(self.text(), missing_regex(self.null_tokens))

    def present(self) -> E.Expr:
        """The condition of a value that is not missing."""
        return E.and_(E.is_not_null(self.text()), E.not_(self.missing()))

    def _matches_only_present(self) -> bool:
        """Whether no missing value can match ``pattern`` (see ``may_match_missing``)."""
        return not may_match_missing(self.pattern, self.null_tokens)

    def aggregations(self) -> tuple[E.Expr, ...]:
        """Count present values that match, and present values, in one scan.

        When no missing value can match ``pattern`` (the usual case: a
        pattern that cannot start with whitespace and matches no null token),
        every match is present, and missing values are looked for only among
        the values that fail: the pattern is matched once per row and the
        missing-value regex only where it failed, close to the cost of a bare
        ``count(*) FILTER (WHERE NOT regexp_full_match(...))``. The
        aggregations are then matches, non-null values and missing failures.
        """
        text = self.text()
        matches = E.full_match(text, self.pattern)
        if self._matches_only_present():
            missing_failure = E.when(matches, E.lit(False), self.missing())
            return (E.count_where(matches), E.count_non_null(text), E.count_where(missing_failure))
        present = self.present()
        return (E.count_where(E.and_(present, matches)), E.count_where(present))

    def nonconforming(self) -> E.Expr:
        """The condition of a present value that does not fully match ``pattern``.

        As in :meth:`aggregations`, the missing-value regex is tested only
        where the pattern fails when no missing value can match it.
        """
        matches = E.full_match(self.text(), self.pattern)
        if self._matches_only_present():
            return E.when(matches, E.lit(False), E.not_(self.missing()))
        return E.and_(self.present(), E.not_(matches))

    def examples(self, limit: int) -> E.Expr:
        """Aggregate of up to ``limit`` smallest non-conforming values, ascending, as a list.

        The values :meth:`nonconforming` holds for, as text. Its state is
        bounded by ``limit``, so it can share the scan of :meth:`aggregations`;
        the match it tests is the same expression, which an engine with common
        subexpression elimination evaluates once per row.

        Raises
        ------
        ValueError
            If ``limit`` is not a positive integer.
        """
        return E.smallest_values(E.when(self.nonconforming(), self.text()), limit)

    def row_violation(self) -> E.Expr:
        """A row passing ``where`` with a present value that does not fully match ``pattern``.

        Missing values are not pattern violations (:meth:`nonconforming`).
        """
        return self.nonconforming()

    def state_from_aggregates(self, values: Sequence[Any]) -> NumMatchesAndCount:
        """Return the two counts (a state even when both are 0)."""
        counts = [int(v or 0) for v in values]
        if self._matches_only_present():
            matching, non_null, missing = counts
            return NumMatchesAndCount(matching, non_null - missing)
        return NumMatchesAndCount(counts[0], counts[1])

    def metric_value(self, state: NumMatchesAndCount) -> dict[str, float]:
        """Return ``{"num_matching": m, "num_values": n}``."""
        return {"num_matching": float(state.num_matches), "num_values": float(state.count)}


@dataclass(frozen=True)
class MinLength(StringColumnAnalyzer, ExtremeAnalyzer):
    """Shortest text length of the non-null values, in code points (Deequ ``MinLength``), a float.

    The column must be text: on another type the metric fails, as in Deequ.

    References
    ----------
    Deequ ``MinLength.scala`` (null behavior "ignore").
    """

    column: str
    where: str | None = None

    metric_name = "MinLength"
    state_class = MinState

    def aggregations(self) -> tuple[E.Expr, ...]:
        """``min(length)``."""
        return (E.minimum(E.length(self.text())),)


@dataclass(frozen=True)
class MaxLength(StringColumnAnalyzer, ExtremeAnalyzer):
    """Longest text length of the non-null values, in code points (Deequ ``MaxLength``), a float.

    The column must be text: on another type the metric fails, as in Deequ.

    References
    ----------
    Deequ ``MaxLength.scala`` (null behavior "ignore").
    """

    column: str
    where: str | None = None

    metric_name = "MaxLength"
    state_class = MaxState

    def aggregations(self) -> tuple[E.Expr, ...]:
        """``max(length)``."""
        return (E.maximum(E.length(self.text())),)
