"""Metrics of a data set's shape and age: its schema (ColumnTypes) and its newest timestamp.

:class:`ColumnTypes` reads the column names and types from the engine (no
scan, no state: a schema is not summed over batches); the schema checks of
:class:`~autovalidate.checks.Check` decide on it. :class:`NewestTimestamp`
is the largest timestamp of a column, in the shared scan, with the state of
:class:`~autovalidate.metrics.Maximum`; the freshness check decides on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import autovalidate.metrics.expressions as E
from autovalidate.errors import DataError
from autovalidate.metrics.base import (
    Analyzer,
    ColumnAnalyzer,
    ColumnKind,
    Entity,
    Metric,
    Precondition,
    ScanShareableAnalyzer,
    Schema,
    TableSchema,
    has_column,
    where_expr,
)
from autovalidate.metrics.statistics import MaxState

__all__ = ["ColumnTypes", "NewestTimestamp"]


@dataclass(frozen=True)
class ColumnTypes(Analyzer):
    """The data's columns and their types, as the engine names them (a :class:`TableSchema`).

    Read from the engine's schema, without reading any row. There is no
    state to store or merge: on stored states alone
    (:func:`~autovalidate.analysis.metrics_from_states`) the metric fails.

    References
    ----------
    The schema checks of GX (``expect_column_to_exist``,
    ``expect_table_columns_to_match_set``), Soda (``schema``) and DQDL
    (``ColumnExists``, ``ColumnCount``, ``SchemaMatch``).
    """

    metric_name = "ColumnTypes"

    @property
    def instance(self) -> str:
        """The whole data set: ``"*"``."""
        return "*"

    @property
    def entity(self) -> Entity:
        """The data set."""
        return Entity.DATASET

    def metric_from_columns(self, columns: Sequence[tuple[str, str]]) -> Metric:
        """The metric of the engine's ``(name, type)`` pairs."""
        return self.success(TableSchema(tuple((str(n), str(t)) for n, t in columns)))

    def empty(self) -> Metric:
        """A failure: a schema is read from data, never from stored states."""
        return self.failure(
            DataError("ColumnTypes reads the data's schema; stored states do not hold it")
        )


def is_timestamp_or_text(column: str) -> Precondition:
    """Precondition: ``column`` holds dates, timestamps or text (to be read as timestamps)."""

    def check(schema: Schema) -> None:
        kind = schema.get(column)
        if kind is not None and kind not in (ColumnKind.TEMPORAL, ColumnKind.STRING):
            raise DataError(
                f"column {column!r} has a {kind.value} type; the analyzer needs dates, "
                "timestamps or text"
            )

    return check


@dataclass(frozen=True)
class NewestTimestamp(ColumnAnalyzer, ScanShareableAnalyzer):
    """The newest timestamp of a column, in seconds since the Unix epoch (a float).

    Dates, timestamps and text are read as timestamps by the engine
    (``TRY_CAST(x AS TIMESTAMPTZ)`` on DuckDB, ``try_cast(x as timestamp)`` on
    Spark): a value with a time zone or offset is that instant; one without
    (a date, a ``TIMESTAMP`` without time zone, text such as ``2025-08-25``)
    is read in the session's time zone (DuckDB's ``TimeZone`` setting,
    Spark's ``spark.sql.session.timeZone``, which
    :func:`autovalidate.engines.spark_session.local_session` sets to UTC). Text that is
    no timestamp is skipped, as a null. Microsecond resolution. The state is
    Maximum's, so batches merge.

    References
    ----------
    DQDL ``DataFreshness``; Soda ``freshness``; GX ``expect_column_max_to_be_between``
    on a timestamp column.
    """

    column: str
    where: str | None = None

    metric_name = "NewestTimestamp"
    state_class = MaxState

    def preconditions(self) -> Sequence[Precondition]:
        """Require the column to exist and hold dates, timestamps or text."""
        return (has_column(self.column), is_timestamp_or_text(self.column))

    def aggregations(self) -> tuple[E.Expr, ...]:
        """``max(epoch_micros(column))`` over the rows passing ``where``."""
        value = E.where_selection(E.col(self.column), where_expr(self.where))
        return (E.maximum(E.epoch_micros(value)),)

    def state_from_aggregates(self, values: Sequence[Any]) -> MaxState | None:
        """Return the newest time in seconds; ``None`` without any timestamp."""
        return None if values[0] is None else MaxState(int(values[0]) / 1e6)

    def metric_value(self, state: MaxState) -> float:
        """Return the newest time, seconds since the epoch."""
        return state.value
