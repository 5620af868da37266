"""Checks: named groups of constraints with a level (Deequ's ``Check``).

A :class:`Check` is immutable; every constraint method returns a new check
with one more constraint, so checks compose fluently::

    Check(CheckLevel.ERROR, "orders").is_complete("id").is_unique("id").has_size(lambda n: n > 0)

Every constraint method takes an optional ``where``, a SQL filter in Spark
SQL on every engine (DuckDB runs sqlglot's translation,
:func:`autovalidate.engines.duckdb.from_spark_sql`): the constraint's metric
is computed on the rows passing it (Deequ's ``.where(...)``), and an optional
``hint`` added to its failure message. Assertions are callables from the metric value to ``bool``.

References
----------
Schelter et al., PVLDB 2018, §3.1 and Table 1; Deequ ``Check.scala`` and
``Constraint.scala``.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, TypeVar

from autovalidate.checks.constraints import (
    AssertionConstraint,
    Constraint,
    ConstraintResult,
    ConstraintStatus,
    DriftConstraint,
    FreshnessConstraint,
    PatternRule,
    PatternRuleConstraint,
    ReferenceConstraint,
    SchemaConstraint,
    is_one,
)
from autovalidate.checks.levels import CheckLevel, CheckStatus
from autovalidate.errors import ParameterError
from autovalidate.metrics import expressions as E
from autovalidate.metrics.base import Analyzer, Distribution, Metric, MetricValue, TableSchema
from autovalidate.metrics.counts import Completeness, Compliance, CustomSql, Size, ZeroCount
from autovalidate.metrics.frequencies import (
    CountDistinct,
    Distinctness,
    DuplicateCount,
    Entropy,
    ExactQuantile,
    Histogram,
    InterquartileRange,
    MutualInformation,
    Uniqueness,
    UniqueValueRatio,
)
from autovalidate.metrics.reference import DistributionDrift, ReferentialIntegrity
from autovalidate.metrics.schema import ColumnTypes, NewestTimestamp
from autovalidate.metrics.sketches import ApproxCountDistinct, ApproxQuantile
from autovalidate.metrics.statistics import (
    Correlation,
    Kurtosis,
    Maximum,
    Mean,
    Minimum,
    Monotonicity,
    Range,
    RatioOfSums,
    Skewness,
    StandardDeviation,
    Sum,
    Variance,
)
from autovalidate.metrics.strings import (
    DataType,
    DataTypeInstance,
    MaxLength,
    MinLength,
    PatternConformance,
    PatternMatch,
)
from autovalidate.user_code import check_user_regex

if TYPE_CHECKING:
    from autovalidate.anomaly.base import AnomalyDetectionStrategy
    from autovalidate.repository.base import MetricsRepository

__all__ = ["Check", "CheckLevel", "CheckResult", "CheckStatus", "ConstrainableDataType"]

AssertionFn = Callable[[Any], bool]

_M = TypeVar("_M", bound=Callable[..., Any])


def in_suites(method: _M) -> _M:
    """Mark a :class:`Check` method as one a constraint suite file may name.

    The suite format (:mod:`autovalidate.checks.spec`) serializes a constraint as
    the method's name and arguments; :data:`SUITE_METHODS` lists the marked
    methods, so a new check method joins the format by being marked.
    """
    method.__in_suites__ = True  # type: ignore[attr-defined]
    return method


Columns = str | Sequence[str]

#: The most pairs :meth:`Check.is_pair_contained_in` takes: 1,000 pairs ran in 1.1 s
#: on a 5-row CSV file, 10,000 in 6.2 s and 411 MB (planning the predicate).
MAX_ALLOWED_PAIRS = 1_000


class ConstrainableDataType(str, enum.Enum):
    """Data types :meth:`Check.has_data_type` can assert on (Deequ's ``ConstrainableDataTypes``)."""

    NULL = "Null"
    FRACTIONAL = "Fractional"
    INTEGRAL = "Integral"
    BOOLEAN = "Boolean"
    STRING = "String"
    NUMERIC = "Numeric"


def _type_ratio(data_type: ConstrainableDataType) -> Callable[[MetricValue], float]:
    """Deequ's ``ratioTypes``: the type's share of non-null values (Null: of all values)."""

    def pick(value: MetricValue) -> float:
        assert isinstance(value, Distribution)
        if data_type is ConstrainableDataType.NULL:
            return value.ratio(DataTypeInstance.UNKNOWN.value)
        kinds = (
            [DataTypeInstance.FRACTIONAL, DataTypeInstance.INTEGRAL]
            if data_type is ConstrainableDataType.NUMERIC
            else [DataTypeInstance(data_type.value)]
        )
        count = sum(value.absolute(k.value) for k in kinds)
        non_null = sum(v.absolute for v in value.values.values()) - value.absolute(
            DataTypeInstance.UNKNOWN.value
        )
        return count / non_null if count else 0.0

    return pick


def _column_count(value: MetricValue) -> int:
    """The number of columns of a :class:`~autovalidate.metrics.ColumnTypes` metric."""
    assert isinstance(value, TableSchema)
    return len(value.columns)


def _epoch_seconds(moment: datetime | str) -> float:
    """Seconds since the Unix epoch of a datetime or ISO 8601 text; without a zone, UTC."""
    if isinstance(moment, str):
        try:
            moment = datetime.fromisoformat(moment)
        except ValueError as exc:
            raise ParameterError(f"reference_time {moment!r} is not ISO 8601") from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()


def _as_int(value: MetricValue) -> int:
    """Give a count metric (a float) to the assertion as an int, as Deequ's ``toLong``."""
    assert isinstance(value, float)
    return int(value)


@dataclass(frozen=True)
class CheckResult:
    """The outcome of a check: its status and each constraint's result."""

    check: Check
    status: CheckStatus
    constraint_results: tuple[ConstraintResult, ...]


@dataclass(frozen=True, eq=False)
class Check:
    """A named group of constraints; failing ones make the check fail at its level.

    Parameters
    ----------
    level
        :attr:`CheckLevel.ERROR` or :attr:`CheckLevel.WARNING`: the check's
        status when a constraint fails.
    description
        What the check is about (the ``check`` column of results).
    constraints
        The constraints so far; add more with the methods below.
    """

    level: CheckLevel
    description: str
    constraints: tuple[Constraint, ...] = ()

    def add_constraint(self, constraint: Constraint | PatternRule) -> Check:
        """Return a new check with ``constraint`` added.

        An Auto-Validate pattern constraint (a :class:`PatternRule` with a
        ``column``) is adapted, as :meth:`satisfies_pattern_constraint` on its
        column.

        Raises
        ------
        TypeError
            At once, for anything else: not a constraint, or a pattern rule
            without a column.
        """
        if isinstance(constraint, Constraint):
            return replace(self, constraints=(*self.constraints, constraint))
        column = getattr(constraint, "column", None)
        if hasattr(constraint, "regex") and hasattr(constraint, "evaluate_counts"):
            if not isinstance(column, str):
                raise TypeError(
                    "a pattern constraint without a column cannot be added: use "
                    "Check.satisfies_pattern_constraint(column, constraint)"
                )
            return self.satisfies_pattern_constraint(column, constraint)
        raise TypeError(
            f"Check.add_constraint takes a Constraint or a pattern constraint, "
            f"not {type(constraint).__name__}"
        )

    def _assert(
        self,
        analyzer: Analyzer,
        assertion: AssertionFn,
        hint: str | None,
        *,
        value_picker: Callable[[MetricValue], Any] | None = None,
        name: str | None = None,
    ) -> Check:
        return self.add_constraint(
            AssertionConstraint(
                name=name or f"{type(analyzer).__name__}Constraint({analyzer})",
                analyzer=analyzer,
                assertion=assertion,
                value_picker=value_picker,
                hint=hint,
            )
        )

    # -- completeness ------------------------------------------------------

    @in_suites
    def is_complete(
        self, column: str, *, where: str | None = None, hint: str | None = None
    ) -> Check:
        """No value of ``column`` is null (Completeness == 1.0)."""
        return self.has_completeness(column, is_one, where=where, hint=hint)

    @in_suites
    def has_completeness(
        self,
        column: str,
        assertion: AssertionFn,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the fraction of non-null values of ``column`` (in [0, 1])."""
        return self._assert(Completeness(column, where), assertion, hint)

    # -- uniqueness and distinctness ----------------------------------------

    @in_suites
    def is_unique(
        self, column: Columns, *, where: str | None = None, hint: str | None = None
    ) -> Check:
        """Every non-null value (combination) occurs once (Uniqueness == 1.0)."""
        return self.has_uniqueness(column, is_one, where=where, hint=hint)

    @in_suites
    def has_uniqueness(
        self,
        columns: Columns,
        assertion: AssertionFn,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on Uniqueness: values occurring once / rows where the column is not null."""
        return self._assert(Uniqueness(columns, where), assertion, hint)

    @in_suites
    def has_distinctness(
        self,
        columns: Columns,
        assertion: AssertionFn,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on Distinctness: distinct values / rows where the column is not null."""
        return self._assert(Distinctness(columns, where), assertion, hint)

    @in_suites
    def has_unique_value_ratio(
        self,
        columns: Columns,
        assertion: AssertionFn,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on UniqueValueRatio: values occurring exactly once / distinct values."""
        return self._assert(UniqueValueRatio(columns, where), assertion, hint)

    @in_suites
    def has_count_distinct(
        self,
        columns: Columns,
        assertion: AssertionFn,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the exact number of distinct non-null values (an int)."""
        return self._assert(CountDistinct(columns, where), assertion, hint, value_picker=_as_int)

    @in_suites
    def has_duplicate_count(
        self,
        columns: Columns,
        assertion: AssertionFn,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the rows repeating an earlier row's values of ``columns`` (an int).

        Name every column to count duplicate rows. Soda ``duplicate_count``.
        """
        analyzer = DuplicateCount(columns, where)
        return self._assert(analyzer, assertion, hint, value_picker=_as_int)

    @in_suites
    def has_approx_count_distinct(
        self,
        column: str,
        assertion: AssertionFn,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the HyperLogLog estimate of distinct non-null values (1.6 % standard error)."""
        return self._assert(ApproxCountDistinct(column, where), assertion, hint)

    # -- predicates (Compliance) -------------------------------------------

    @in_suites
    def satisfies(
        self,
        predicate: str | E.Expr,
        constraint_name: str,
        assertion: AssertionFn = is_one,
        *,
        columns: Sequence[str] = (),
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the fraction of rows satisfying ``predicate`` (all of them by default).

        ``predicate`` is a SQL boolean expression in the engine's dialect (or an
        engine-neutral expression); rows where it is null do not satisfy it.
        ``columns`` names the columns it reads, which must exist.
        """
        analyzer = Compliance(constraint_name, predicate, where, tuple(columns))
        return self._assert(analyzer, assertion, hint)

    @in_suites
    def is_contained_in(
        self,
        column: str,
        allowed_values: Iterable[str | int | float | bool],
        assertion: AssertionFn = is_one,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Every non-null value of ``column`` is one of ``allowed_values`` (nulls pass)."""
        values = tuple(allowed_values)
        c = E.col(column)
        return self.satisfies(
            E.or_(E.is_null(c), E.is_in(c, values)),
            f"{column} contained in {','.join(map(str, values))}",
            assertion,
            columns=(column,),
            where=where,
            hint=hint,
        )

    @in_suites
    def is_pair_contained_in(
        self,
        column_a: str,
        column_b: str,
        allowed_pairs: Iterable[Sequence[str | int | float | bool | None]],
        assertion: AssertionFn = is_one,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Each row's ``(column_a, column_b)`` is one of ``allowed_pairs`` (two nulls pass).

        A ``None`` in a pair matches a null; a row with one null complies only
        through such a pair. Values compare as :meth:`is_contained_in`
        compares them. GX ``expect_column_pair_values_to_be_in_set`` (its
        ``ignore_row_if="both_values_are_missing"``, the default). Every pair
        is a term of the predicate, so at most :data:`MAX_ALLOWED_PAIRS`: for
        more, check the columns against a table of them
        (:meth:`has_referential_integrity` with two columns).

        Raises
        ------
        ParameterError
            If a pair does not hold two values, there is no pair, or more
            than :data:`MAX_ALLOWED_PAIRS`.
        """
        pairs = [tuple(p) for p in allowed_pairs]
        if not pairs or any(len(p) != 2 for p in pairs):
            raise ParameterError(f"allowed_pairs must be pairs of two values, got {pairs[:3]!r}")
        if len(pairs) > MAX_ALLOWED_PAIRS:
            raise ParameterError(
                f"{len(pairs):,} allowed pairs, more than {MAX_ALLOWED_PAIRS:,} (each is a term "
                "of the predicate): check the columns against a table of the pairs with "
                "has_referential_integrity"
            )
        a, b = E.col(column_a), E.col(column_b)

        def matches(c: E.Expr, v: str | int | float | bool | None) -> E.Expr:
            return E.is_null(c) if v is None else E.is_in(c, (v,))

        allowed = [E.and_(matches(a, x), matches(b, y)) for x, y in pairs]
        return self.satisfies(
            E.or_(E.and_(E.is_null(a), E.is_null(b)), *allowed),
            f"({column_a}, {column_b}) contained in {'; '.join(f'{x},{y}' for x, y in pairs)}",
            assertion,
            columns=(column_a, column_b),
            where=where,
            hint=hint,
        )

    @in_suites
    def is_in_range(
        self,
        column: str,
        lower_bound: float,
        upper_bound: float,
        *,
        include_lower_bound: bool = True,
        include_upper_bound: bool = True,
        assertion: AssertionFn = is_one,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Every non-null value of numeric ``column`` lies in the interval (nulls pass).

        Deequ's ``isContainedIn(column, lowerBound, upperBound, ...)``.
        """
        c = E.col(column)
        low = (E.ge if include_lower_bound else E.gt)(c, E.lit(lower_bound))
        high = (E.le if include_upper_bound else E.lt)(c, E.lit(upper_bound))
        return self.satisfies(
            E.or_(E.is_null(c), E.and_(low, high)),
            f"{column} between {lower_bound} and {upper_bound}",
            assertion,
            columns=(column,),
            where=where,
            hint=hint,
        )

    @in_suites
    def is_non_negative(
        self,
        column: str,
        assertion: AssertionFn = is_one,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Values of ``column`` are >= 0; nulls and non-numbers count as 0, as in Deequ."""
        value = E.coalesce(E.to_double(E.col(column)), E.lit(0.0))
        return self.satisfies(
            E.ge(value, E.lit(0)),
            f"{column} is non-negative",
            assertion,
            columns=(column,),
            where=where,
            hint=hint,
        )

    @in_suites
    def is_positive(
        self,
        column: str,
        assertion: AssertionFn = is_one,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Values of ``column`` are > 0; nulls and non-numbers count as 1, as in Deequ."""
        value = E.coalesce(E.to_double(E.col(column)), E.lit(1.0))
        return self.satisfies(
            E.gt(value, E.lit(0)),
            f"{column} is positive",
            assertion,
            columns=(column,),
            where=where,
            hint=hint,
        )

    def _compare(
        self,
        column_a: str,
        column_b: str,
        op: Callable[[E.Expr, E.Expr], E.Expr],
        words: str,
        assertion: AssertionFn,
        where: str | None,
        hint: str | None,
    ) -> Check:
        return self.satisfies(
            op(E.col(column_a), E.col(column_b)),
            f"{column_a} is {words} {column_b}",
            assertion,
            columns=(column_a, column_b),
            where=where,
            hint=hint,
        )

    @in_suites
    def is_equal_to(
        self,
        column_a: str,
        column_b: str,
        assertion: AssertionFn = is_one,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """In each row, ``column_a = column_b`` (a row with a null does not comply).

        GX ``expect_column_pair_values_to_be_equal``.
        """
        return self._compare(column_a, column_b, E.eq, "equal to", assertion, where, hint)

    @in_suites
    def is_less_than(
        self,
        column_a: str,
        column_b: str,
        assertion: AssertionFn = is_one,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """In each row, ``column_a < column_b`` (a row with a null does not comply)."""
        return self._compare(column_a, column_b, E.lt, "less than", assertion, where, hint)

    @in_suites
    def is_less_than_or_equal_to(
        self,
        column_a: str,
        column_b: str,
        assertion: AssertionFn = is_one,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """In each row, ``column_a <= column_b`` (a row with a null does not comply)."""
        return self._compare(
            column_a, column_b, E.le, "less than or equal to", assertion, where, hint
        )

    @in_suites
    def is_greater_than(
        self,
        column_a: str,
        column_b: str,
        assertion: AssertionFn = is_one,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """In each row, ``column_a > column_b`` (a row with a null does not comply)."""
        return self._compare(column_a, column_b, E.gt, "greater than", assertion, where, hint)

    @in_suites
    def is_greater_than_or_equal_to(
        self,
        column_a: str,
        column_b: str,
        assertion: AssertionFn = is_one,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """In each row, ``column_a >= column_b`` (a row with a null does not comply)."""
        return self._compare(
            column_a, column_b, E.ge, "greater than or equal to", assertion, where, hint
        )

    @in_suites
    def is_increasing(
        self,
        column: str,
        order_by: str,
        *,
        strictly: bool = False,
        assertion: AssertionFn = is_one,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """In the order of ``order_by``, each value of ``column`` is >= every earlier one.

        ``>`` with ``strictly``; nulls are skipped. Asserts on the fraction
        of values that comply (:class:`~autovalidate.metrics.Monotonicity`).
        GX ``expect_column_values_to_be_increasing``.
        """
        analyzer = Monotonicity(column, order_by, False, strictly, where)
        return self._assert(analyzer, assertion, hint)

    @in_suites
    def is_decreasing(
        self,
        column: str,
        order_by: str,
        *,
        strictly: bool = False,
        assertion: AssertionFn = is_one,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """In the order of ``order_by``, each value of ``column`` is <= every earlier one.

        ``<`` with ``strictly``; nulls are skipped. GX
        ``expect_column_values_to_be_decreasing``.
        """
        analyzer = Monotonicity(column, order_by, True, strictly, where)
        return self._assert(analyzer, assertion, hint)

    @in_suites
    def has_custom_sql(
        self, query: str, assertion: AssertionFn, *, hint: str | None = None
    ) -> Check:
        """Assert on the number a custom SQL query computes over the data.

        ``query``: one Spark SQL ``SELECT`` reading the data as table
        ``data``, giving one row with one number (see
        :class:`~autovalidate.metrics.CustomSql`), e.g. ``SELECT count(*)
        FROM data WHERE shipped < ordered`` with ``lambda n: n == 0``.
        Deequ ``CustomSql``; Soda user-defined metrics.

        Raises
        ------
        UnsafeInputError
            If the query reads anything but the data.
        """
        return self._assert(CustomSql(query), assertion, hint, name=f"CustomSqlConstraint({query})")

    # -- size and statistics -------------------------------------------------

    @in_suites
    def has_size(
        self, assertion: AssertionFn, *, where: str | None = None, hint: str | None = None
    ) -> Check:
        """Assert on the number of rows (an int)."""
        return self._assert(Size(where), assertion, hint, value_picker=_as_int)

    @in_suites
    def has_zero_count(
        self,
        column: str,
        assertion: AssertionFn,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the number of rows whose numeric ``column`` is 0 (an int)."""
        return self._assert(ZeroCount(column, where), assertion, hint, value_picker=_as_int)

    @in_suites
    def has_min(
        self,
        column: str,
        assertion: AssertionFn,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the smallest value of numeric ``column``."""
        return self._assert(Minimum(column, where), assertion, hint)

    @in_suites
    def has_max(
        self,
        column: str,
        assertion: AssertionFn,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the largest value of numeric ``column``."""
        return self._assert(Maximum(column, where), assertion, hint)

    @in_suites
    def has_range(
        self,
        column: str,
        assertion: AssertionFn,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the largest minus the smallest value of numeric ``column``."""
        return self._assert(Range(column, where), assertion, hint)

    @in_suites
    def has_mean(
        self,
        column: str,
        assertion: AssertionFn,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the mean of numeric ``column``."""
        return self._assert(Mean(column, where), assertion, hint)

    @in_suites
    def has_sum(
        self,
        column: str,
        assertion: AssertionFn,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the sum of numeric ``column``."""
        return self._assert(Sum(column, where), assertion, hint)

    @in_suites
    def has_standard_deviation(
        self,
        column: str,
        assertion: AssertionFn,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the population standard deviation of numeric ``column``."""
        return self._assert(StandardDeviation(column, where), assertion, hint)

    @in_suites
    def has_variance(
        self,
        column: str,
        assertion: AssertionFn,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the population variance of numeric ``column`` (the column's unit squared)."""
        return self._assert(Variance(column, where), assertion, hint)

    @in_suites
    def has_skewness(
        self,
        column: str,
        assertion: AssertionFn,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the population skewness of numeric ``column`` (NaN for a constant column)."""
        return self._assert(Skewness(column, where), assertion, hint)

    @in_suites
    def has_kurtosis(
        self,
        column: str,
        assertion: AssertionFn,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the population excess kurtosis of numeric ``column`` (0 for a normal law)."""
        return self._assert(Kurtosis(column, where), assertion, hint)

    @in_suites
    def has_ratio_of_sums(
        self,
        numerator: str,
        denominator: str,
        assertion: AssertionFn,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on ``sum(numerator) / sum(denominator)`` (Deequ ``RatioOfSums``)."""
        return self._assert(RatioOfSums(numerator, denominator, where), assertion, hint)

    @in_suites
    def has_approx_quantile(
        self,
        column: str,
        quantile: float,
        assertion: AssertionFn,
        *,
        relative_error: float = 0.01,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the ``quantile`` of numeric ``column``, within ``relative_error`` in rank."""
        analyzer = ApproxQuantile(column, quantile, relative_error, where)
        return self._assert(analyzer, assertion, hint)

    @in_suites
    def has_exact_quantile(
        self,
        column: str,
        quantile: float,
        assertion: AssertionFn,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the exact ``quantile`` of numeric ``column``, as Spark's ``percentile``.

        Its state holds each distinct value of the column
        (:class:`~autovalidate.metrics.ExactQuantile`); for a column of many
        distinct values, :meth:`has_approx_quantile` keeps a fixed-size one.
        """
        return self._assert(ExactQuantile(column, quantile, where), assertion, hint)

    @in_suites
    def has_interquartile_range(
        self,
        column: str,
        assertion: AssertionFn,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the exact Q3 - Q1 of numeric ``column`` (as in :meth:`has_exact_quantile`)."""
        return self._assert(InterquartileRange(column, where), assertion, hint)

    @in_suites
    def has_correlation(
        self,
        column_a: str,
        column_b: str,
        assertion: AssertionFn,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the Pearson correlation of two numeric columns (in [-1, 1])."""
        return self._assert(Correlation(column_a, column_b, where), assertion, hint)

    # -- distributions -------------------------------------------------------

    @in_suites
    def has_entropy(
        self,
        column: str,
        assertion: AssertionFn,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the entropy of ``column``'s value distribution, in nats."""
        return self._assert(Entropy(column, where), assertion, hint)

    @in_suites
    def has_mutual_information(
        self,
        column_a: str,
        column_b: str,
        assertion: AssertionFn,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the mutual information of two columns, in nats."""
        analyzer = MutualInformation((column_a, column_b), where)
        return self._assert(analyzer, assertion, hint)

    def has_histogram_values(
        self,
        column: str,
        assertion: Callable[[Distribution], bool],
        *,
        max_detail_bins: int = 1000,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the value distribution of ``column``.

        The assertion gets a :class:`~autovalidate.metrics.Distribution` holding the
        ``max_detail_bins`` most frequent values.
        """
        analyzer = Histogram(column, max_detail_bins, where)
        return self._assert(analyzer, assertion, hint)

    # -- strings ---------------------------------------------------------------

    @in_suites
    def has_pattern(
        self,
        column: str,
        pattern: str,
        assertion: AssertionFn = is_one,
        *,
        name: str | None = None,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the fraction of rows whose value fully matches ``pattern``.

        Full-match semantics: the whole value (as text) must match, as if the
        pattern were anchored at both ends (Deequ matches anywhere in the value).
        The pattern is RE2 on DuckDB and ``java.util.regex`` on Spark. Null
        values count as not matching, as in Deequ.
        """
        return self._assert(
            PatternMatch(column, pattern, where),
            assertion,
            hint,
            name=name or f"PatternMatchConstraint({column}, {pattern})",
        )

    @in_suites
    def has_no_pattern(
        self,
        column: str,
        pattern: str,
        assertion: AssertionFn = is_one,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the fraction of rows whose value does not fully match ``pattern`` (nulls pass).

        The negation of :meth:`has_pattern`'s full match (write ``.*x.*`` for
        "does not contain x"), with the same regex dialects and checks
        (:func:`~autovalidate.user_code.check_user_regex`). GX
        ``expect_column_values_to_not_match_regex`` (which searches).
        """
        check_user_regex(pattern, f"has_no_pattern({column!r})")
        c = E.col(column)
        return self.satisfies(
            E.or_(E.is_null(c), E.not_(E.full_match(E.to_text(c), pattern))),
            f"{column} does not match {pattern}",
            assertion,
            columns=(column,),
            where=where,
            hint=hint,
        )

    @in_suites
    def is_valid_json(
        self,
        column: str,
        assertion: AssertionFn = is_one,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the fraction of rows whose text is one JSON value (nulls pass).

        RFC 8259 JSON (an object, array, string, number, ``true``, ``false``
        or ``null``), as DuckDB's ``json_valid`` and Spark's
        ``try_parse_json`` read it. GX ``expect_column_values_to_be_json_parseable``.
        """
        c = E.col(column)
        return self.satisfies(
            E.or_(E.is_null(c), E.coalesce(E.is_json(E.to_text(c)), E.lit(False))),
            f"{column} is JSON",
            assertion,
            columns=(column,),
            where=where,
            hint=hint,
        )

    @in_suites
    def matches_datetime_format(
        self,
        column: str,
        datetime_format: str,
        assertion: AssertionFn = is_one,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the fraction of rows whose text is a valid date/time in a strptime format.

        The whole text must parse and the date must exist (``2025-02-30``
        fails); nulls pass. DuckDB parses with ``try_strptime``, Spark with
        ``try_to_timestamp`` and the format's Java pattern
        (:func:`~autovalidate.metrics.expressions.java_datetime_pattern`:
        ``%Y %y %m %d %H %I %M %S %f %j %b %B %a %A %p %z %%``). Numbers may
        be zero-padded or not on both; they differ on a year of fewer than
        four digits for ``%Y``, which DuckDB accepts and Spark refuses. GX
        ``expect_column_values_to_match_strftime_format``.

        Raises
        ------
        ParameterError
            If the format has another directive.
        """
        c = E.col(column)
        return self.satisfies(
            E.or_(E.is_null(c), E.parses_as_datetime(E.to_text(c), datetime_format)),
            f"{column} matches {datetime_format}",
            assertion,
            columns=(column,),
            where=where,
            hint=hint,
        )

    @in_suites
    def has_data_type(
        self,
        column: str,
        data_type: ConstrainableDataType,
        assertion: AssertionFn = is_one,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the share of ``column``'s non-null values of ``data_type``.

        As Deequ's ``hasDataType``: the share among non-null values (for
        ``NULL``: the share of nulls among all values), 0.0 when there are none.
        """
        return self._assert(
            DataType(column, where),
            assertion,
            hint,
            value_picker=_type_ratio(data_type),
            name=f"DataTypeConstraint({DataType(column, where)}, {data_type.value})",
        )

    @in_suites
    def has_min_length(
        self,
        column: str,
        assertion: AssertionFn,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the shortest text length (code points) of ``column``'s values."""
        return self._assert(MinLength(column, where), assertion, hint)

    @in_suites
    def has_max_length(
        self,
        column: str,
        assertion: AssertionFn,
        *,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Assert on the longest text length (code points) of ``column``'s values."""
        return self._assert(MaxLength(column, where), assertion, hint)

    def satisfies_pattern_constraint(
        self, column: str, rule: PatternRule, *, where: str | None = None, hint: str | None = None
    ) -> Check:
        """Validate ``column`` with an inferred Auto-Validate pattern rule.

        The counts of non-null values and of those fully matching
        ``rule.regex`` are computed in the shared scan; ``rule.evaluate_counts``
        decides (its own tolerance and test) and its result is the constraint
        result's ``details``. Missing values (nulls, ``rule.null_tokens``,
        empty or whitespace-only values) are not pattern violations.

        References
        ----------
        Song & He, SIGMOD 2021, §2-4.
        """
        analyzer = PatternConformance(column, rule.regex, where, rule.null_tokens)
        return self.add_constraint(
            PatternRuleConstraint(
                name=f"PatternConstraint({column}, {rule.regex})",
                analyzer=analyzer,
                rule=rule,
                hint=hint,
            )
        )

    # -- schema and freshness ------------------------------------------------------

    def _schema(
        self,
        name: str,
        expected: Iterable[tuple[str, tuple[str, ...]]],
        hint: str | None,
        *,
        exact: bool = False,
        ordered: bool = False,
    ) -> Check:
        return self.add_constraint(
            SchemaConstraint(
                name=name,
                analyzer=ColumnTypes(),
                expected=tuple(expected),
                exact=exact,
                ordered=ordered,
                hint=hint,
            )
        )

    @in_suites
    def has_column(self, column: str, *, hint: str | None = None) -> Check:
        """The data has ``column`` (a missing column is a failed constraint, not an error).

        Reads the schema, no row. GX ``expect_column_to_exist``; DQDL ``ColumnExists``.
        """
        return self._schema(f"SchemaConstraint(has column {column})", [(column, ())], hint)

    @in_suites
    def has_columns(
        self,
        columns: Sequence[str],
        *,
        exact: bool = True,
        ordered: bool = False,
        hint: str | None = None,
    ) -> Check:
        """The data has ``columns``; with ``exact``, no others; with ``ordered``, in this order.

        The result names the columns missing and those not expected. GX
        ``expect_table_columns_to_match_set`` (``exact_match``) and
        ``expect_table_columns_to_match_ordered_list``; Soda ``schema``
        (``fail: when required column missing``).
        """
        listed = ",".join(columns)
        words = ("exactly " if exact else "") + ("in order " if ordered else "")
        return self._schema(
            f"SchemaConstraint(has {words}columns {listed})",
            [(c, ()) for c in columns],
            hint,
            exact=exact,
            ordered=ordered,
        )

    @in_suites
    def has_column_type(
        self, column: str, types: str | Sequence[str], *, hint: str | None = None
    ) -> Check:
        """``column`` exists and its type is one of ``types``, the engine's type names.

        Names are compared ignoring case and spaces: DuckDB's ``BIGINT`` and
        Spark's ``bigint`` are one name; a suite for both engines lists both
        where they differ (``["VARCHAR", "string"]``). GX
        ``expect_column_values_to_be_of_type`` / ``_in_type_list``; Soda
        ``schema`` (``wrong column type``).
        """
        accepted = (types,) if isinstance(types, str) else tuple(types)
        return self._schema(
            f"SchemaConstraint(column {column} of type {' or '.join(accepted)})",
            [(column, accepted)],
            hint,
        )

    @in_suites
    def has_schema(
        self,
        schema: Mapping[str, str],
        *,
        allow_added: bool = False,
        hint: str | None = None,
    ) -> Check:
        """The data's columns and types equal ``schema``, a column -> type mapping.

        Compare a batch with the previous one, whose schema
        :func:`~autovalidate.checks.schema_of` gives: the result lists the columns
        removed (missing), added (unless ``allow_added``) and retyped. Column
        order is not compared. Soda ``schema`` (``fail: when schema
        changes``); DQDL ``SchemaMatch``.
        """
        return self._schema(
            f"SchemaConstraint(schema {','.join(f'{c} {t}' for c, t in schema.items())})",
            [(c, (t,)) for c, t in schema.items()],
            hint,
            exact=not allow_added,
        )

    @in_suites
    def has_column_count(self, assertion: AssertionFn, *, hint: str | None = None) -> Check:
        """Assert on the number of columns (an int). GX ``expect_table_column_count_to_equal``."""
        return self._assert(
            ColumnTypes(),
            assertion,
            hint,
            value_picker=_column_count,
            name="ColumnCountConstraint(ColumnTypes())",
        )

    @in_suites
    def is_fresh(
        self,
        column: str,
        max_age_hours: float,
        *,
        reference_time: datetime | str | None = None,
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """The newest timestamp of ``column`` is at most ``max_age_hours`` before a reference time.

        ``reference_time`` is a datetime or ISO 8601 text (without a zone:
        UTC), by default the time the constraint is decided. The column's
        values are read as in :class:`~autovalidate.metrics.NewestTimestamp`
        (dates, timestamps or text; without a zone, in the session's time
        zone). The result's value is the age in hours; its details give the
        newest value and the reference time. DQDL ``DataFreshness``; Soda
        ``freshness``; GX ``expect_column_max_to_be_between`` on a timestamp.

        Raises
        ------
        ParameterError
            If ``reference_time`` is text that is not ISO 8601, or
            ``max_age_hours`` is negative.
        """
        if max_age_hours < 0:
            raise ParameterError(f"max_age_hours must be >= 0, got {max_age_hours}")
        reference = None if reference_time is None else _epoch_seconds(reference_time)
        return self.add_constraint(
            FreshnessConstraint(
                name=f"FreshnessConstraint({column}, {max_age_hours} hours)",
                analyzer=NewestTimestamp(column, where),
                max_age_hours=float(max_age_hours),
                reference_time=reference,
                hint=hint,
            )
        )

    # -- referential integrity -----------------------------------------------------

    @in_suites
    def has_referential_integrity(
        self,
        columns: Columns,
        reference: Any,
        reference_columns: Columns | None = None,
        assertion: AssertionFn = is_one,
        *,
        reference_name: str = "reference",
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """Every value of ``columns`` occurs in ``reference_columns`` of ``reference``.

        Asserts on the fraction of checked rows whose values are found (rows
        with a null in ``columns`` are not checked); several columns are a
        composite foreign key. A failure names the orphan rows' count and up
        to five orphan values, also in the result's ``details``. See
        :class:`~autovalidate.metrics.ReferentialIntegrity` for what
        ``reference`` may be on each engine. In a suite file the reference is
        named by ``reference_name`` and bound to data when the suite runs
        (``ConstraintSuite.run(..., references={name: data})``); a suite never
        holds the data, a path or a query.

        References
        ----------
        Deequ ``ReferentialIntegrity``; DQDL ``ReferentialIntegrity``; Soda
        reference checks.
        """
        analyzer = ReferentialIntegrity(
            columns, reference, reference_columns, where, reference_name
        )
        return self.add_constraint(
            ReferenceConstraint(
                name=f"ReferentialIntegrityConstraint({analyzer.instance})",
                analyzer=analyzer,
                assertion=assertion,
                hint=hint,
            )
        )

    @in_suites
    def has_no_drift(
        self,
        column: str,
        reference: Any,
        *,
        test: str = "chi2",
        threshold: float | None = None,
        reference_name: str = "reference",
        where: str | None = None,
        hint: str | None = None,
    ) -> Check:
        """``column``'s value distribution has not drifted from a reference batch's.

        ``test`` is ``"ks"`` (Kolmogorov-Smirnov, numbers), ``"chi2"``
        (Pearson's homogeneity test), ``"psi"`` (population stability index)
        or ``"js"`` (Jensen-Shannon distance), decided at ``threshold``
        (alpha for ks and chi2, default 0.05; the largest statistic that is
        no drift for psi, default 0.2, and js, default 0.1): see
        :func:`autovalidate.metrics.distribution.distribution_drift`. Reads both batches
        (one grouping each). In a suite file the reference is named by
        ``reference_name`` and bound to data when the suite runs, as for
        :meth:`has_referential_integrity`.

        Raises
        ------
        ParameterError
            For an unknown test.
        """
        analyzer = DistributionDrift(column, reference, test, threshold, where, reference_name)
        return self.add_constraint(
            DriftConstraint(
                name=f"DriftConstraint({analyzer.instance}, {test})", analyzer=analyzer, hint=hint
            )
        )

    # -- history -------------------------------------------------------------------

    def has_no_anomalies(
        self,
        analyzer: Analyzer,
        strategy: AnomalyDetectionStrategy,
        *,
        repository: MetricsRepository,
        dataset: str,
        with_tag_values: Mapping[str, str] | None = None,
        after: int | None = None,
        before: int | None = None,
        hint: str | None = None,
    ) -> Check:
        """The batch's value of ``analyzer``'s metric is not an anomaly in its history.

        The history is the metric's values in ``repository`` for ``dataset``
        (only results whose tags include ``with_tag_values``, with
        ``after <= dataset_date <= before`` in ms since the epoch); ``strategy``
        decides on the new value placed after the newest result. Without any
        history the constraint fails, as in Deequ. Save the batch's metrics to
        the repository after the run to extend the history.

        References
        ----------
        Schelter et al., PVLDB 2018, §3.4; Deequ ``Check.isNewestPointNonAnomalous``.
        """
        from autovalidate.checks.anomaly import AnomalyConstraint

        return self.add_constraint(
            AnomalyConstraint(
                name=f"AnomalyConstraint({analyzer})",
                analyzer=analyzer,
                strategy=strategy,
                repository=repository,
                dataset=dataset,
                tags=dict(with_tag_values or {}),
                after=after,
                before=before,
                hint=hint,
            )
        )

    # -- running -------------------------------------------------------------------

    def required_analyzers(self) -> tuple[Analyzer, ...]:
        """Return the analyzers the constraints need, without repeats."""
        return tuple(dict.fromkeys(c.analyzer for c in self.constraints))

    def evaluate(self, metrics: Mapping[Analyzer, Metric]) -> CheckResult:
        """Decide every constraint on computed metrics.

        The status is Success when all hold, else the check's level.
        """
        results = tuple(c.evaluate(metrics) for c in self.constraints)
        failed = any(r.status is ConstraintStatus.FAILURE for r in results)
        if not failed:
            status = CheckStatus.SUCCESS
        elif self.level is CheckLevel.ERROR:
            status = CheckStatus.ERROR
        else:
            status = CheckStatus.WARNING
        return CheckResult(self, status, results)


#: The :class:`Check` methods a suite may name (marked with :func:`in_suites`), in
#: definition order.
SUITE_METHODS: tuple[str, ...] = tuple(
    name for name, member in vars(Check).items() if getattr(member, "__in_suites__", False)
)
