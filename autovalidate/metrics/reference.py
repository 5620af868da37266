"""Analyzers that read a reference data set beside the data: referential integrity, drift.

:class:`ReferentialIntegrity`: the engine anti-joins the data with the
distinct values of the reference (:meth:`~autovalidate.engines.Engine.orphans`).
:class:`DistributionDrift`: the value counts of a column in the data and in
the reference (each the frequency state of the column), compared by
`autovalidate.metrics.distribution.distribution_drift`. Neither keeps a state of its
own (an orphan of one batch may find its reference in a later reference
table), so they always read both data sets.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import autovalidate.metrics.expressions as E
from autovalidate.errors import DataError, ParameterError
from autovalidate.metrics.base import (
    COUNT_COLUMN,
    ColumnKind,
    EngineAnalyzer,
    Entity,
    Grouping,
    Metric,
    Precondition,
    QueryEngine,
    has_column,
    where_expr,
)
from autovalidate.metrics.distribution import DISTRIBUTION_TESTS, distribution_drift

__all__ = ["DistributionDrift", "ReferentialIntegrity"]

#: Orphan values a metric's details list, smallest first.
EXAMPLES = 5


def _plain(value: Any) -> Any:
    """An example value as JSON-ready data: text for what is not a JSON scalar (dates...)."""
    return value if value is None or isinstance(value, (str, int, float, bool)) else str(value)


def _columns(value: str | Sequence[str]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


@dataclass(frozen=True, eq=False)
class ReferentialIntegrity(EngineAnalyzer):
    """Fraction of rows whose values occur in a reference (Deequ ``ReferentialIntegrity``).

    Among the rows passing ``where`` whose ``columns`` are all non-null (as
    a SQL foreign key, a row with a null refers to nothing), the share whose
    values equal those of ``reference_columns`` in some row of ``reference``:
    a fraction in [0, 1], 1.0 when every value is found. Several columns are
    a composite foreign key, compared pairwise. Values are compared with the
    engine's equality on their own types (on CSV read as text: the text).
    The metric's ``details`` give ``num_rows`` (the rows checked),
    ``num_orphans`` and ``examples``: up to five distinct orphan values
    (lists for several columns; a value that is not a JSON scalar, a date
    say, as its text), smallest first.

    Parameters
    ----------
    columns
        Column(s) of the data.
    reference
        The reference data: for DuckDB anything the DuckDB engine reads (a
        path, a pandas DataFrame, an Arrow table, a relation on the same
        connection); for Spark a DataFrame of the same session.
    reference_columns
        Column(s) of the reference, in the order of ``columns``; by default
        the same names.
    where
        Spark SQL filter of the data's rows (see :func:`~autovalidate.metrics.base.where_expr`).
    reference_name
        How the reference is named in the metric's instance and messages.

    Raises
    ------
    ParameterError
        If there are no columns, or not as many reference columns.

    References
    ----------
    Deequ ``ReferentialIntegrity.subsetCheck``; DQDL ``ReferentialIntegrity``;
    Soda reference checks (``values in (col) must exist in ref (col)``); GX
    has none built in.
    """

    columns: str | Sequence[str]
    reference: Any
    reference_columns: str | Sequence[str] | None = None
    where: str | None = None
    reference_name: str = "reference"

    metric_name = "ReferentialIntegrity"

    def __post_init__(self) -> None:
        columns = _columns(self.columns)
        refs = columns if self.reference_columns is None else _columns(self.reference_columns)
        if not columns or len(refs) != len(columns):
            raise ParameterError(
                f"ReferentialIntegrity needs as many reference columns as columns "
                f"(at least one), got {len(columns)} and {len(refs)}"
            )
        object.__setattr__(self, "columns", columns)
        object.__setattr__(self, "reference_columns", refs)

    @property
    def instance(self) -> str:
        """``cols -> reference(cols)``."""
        return f"{','.join(self.columns)} -> {self.reference_name}({','.join(self.ref_columns)})"

    @property
    def entity(self) -> Entity:
        """Column or multi-column."""
        return Entity.COLUMN if len(self.columns) == 1 else Entity.MULTICOLUMN

    @property
    def ref_columns(self) -> tuple[str, ...]:
        """The reference's columns, one per column."""
        assert isinstance(self.reference_columns, tuple)
        return self.reference_columns

    def preconditions(self) -> Sequence[Precondition]:
        """Require the data's columns to exist (the reference's are checked by the query)."""
        return tuple(has_column(c) for c in self.columns)

    def metric_from_engine(self, engine: QueryEngine) -> Metric:
        """Count the checked rows and the orphans, and fetch examples (up to three queries)."""
        assert isinstance(self.columns, tuple)
        rows, orphans, examples = engine.orphans(
            self.columns, self.reference, self.ref_columns, where_expr(self.where), EXAMPLES
        )
        if not rows:
            return self.failure(
                DataError(f"no row with a value in {', '.join(self.columns)} to check")
            )
        found = [_plain(e[0]) if len(e) == 1 else [_plain(v) for v in e] for e in examples]
        details = {"num_rows": rows, "num_orphans": orphans, "examples": found}
        metric = self.success((rows - orphans) / rows)
        return Metric(metric.entity, metric.instance, metric.name, metric.value, details=details)

    def __str__(self) -> str:
        where = "None" if self.where is None else self.where
        return f"ReferentialIntegrity({self.instance},{where})"


@dataclass(frozen=True, eq=False)
class DistributionDrift(EngineAnalyzer):
    """A drift test of a column's value distribution against a reference batch.

    The metric is the test's statistic (see
    `autovalidate.metrics.distribution.distribution_drift`); its ``details`` are the
    whole outcome (``test``, ``statistic``, ``p_value``, ``threshold``,
    ``drift``, ``n_reference``, ``n_batch``). A numeric column (or any column
    for ``"ks"``, its text read as numbers) is compared as numbers, others by
    their values as text. Nulls are left out; ``where`` (Spark SQL) filters
    both batches.

    Parameters
    ----------
    column
        The column, of the data and of the reference.
    reference
        The reference batch, as :class:`ReferentialIntegrity` takes it.
    test
        ``"ks"``, ``"chi2"``, ``"psi"`` or ``"js"``.
    threshold
        Alpha or the largest statistic that is no drift (defaults:
        `autovalidate.metrics.distribution.DISTRIBUTION_TESTS`).

    Raises
    ------
    ParameterError
        For an unknown test.

    References
    ----------
    TFDV's drift and distribution skew comparators (L-infinity, Jensen-Shannon);
    whylogs' KS and Hellinger drift; Soda's deprecated distribution checks.
    """

    column: str
    reference: Any
    test: str = "chi2"
    threshold: float | None = None
    where: str | None = None
    reference_name: str = "reference"

    metric_name = "DistributionDrift"

    def __post_init__(self) -> None:
        if self.test not in DISTRIBUTION_TESTS:
            raise ParameterError(
                f"test must be one of {', '.join(DISTRIBUTION_TESTS)}; got {self.test!r}"
            )

    @property
    def instance(self) -> str:
        """``column ~ reference(column)``."""
        return f"{self.column} ~ {self.reference_name}({self.column})"

    def preconditions(self) -> Sequence[Precondition]:
        """Require the column to exist in the data."""
        return (has_column(self.column),)

    def _counts(self, engine: QueryEngine, numeric: bool) -> dict[Any, int]:
        column = E.col(self.column)
        key = E.to_double(column) if numeric else E.to_text(column)
        grouping = Grouping(((self.column, key),), where_expr(self.where), drop_all_null=True)
        table = engine.frequencies(grouping, materialize=False).to_arrow()
        return dict(
            zip(table[self.column].to_pylist(), table[COUNT_COLUMN].to_pylist(), strict=True)
        )

    def metric_from_engine(self, engine: QueryEngine) -> Metric:
        """Group the column in both batches (two scans) and test."""
        numeric = self.test == "ks" or engine.schema().get(self.column) is ColumnKind.NUMERIC
        batch = self._counts(engine, numeric)
        reference = self._counts(engine.reference(self.reference), numeric)
        try:
            outcome = distribution_drift(
                reference, batch, test=self.test, numeric=numeric, threshold=self.threshold
            )
        except ParameterError as exc:
            return self.failure(exc)
        metric = self.success(outcome.statistic)
        return Metric(
            metric.entity, metric.instance, metric.name, metric.value, details=outcome.to_dict()
        )

    def __str__(self) -> str:
        where = "None" if self.where is None else self.where
        return f"DistributionDrift({self.instance},{self.test},{self.threshold},{where})"
