"""The analyzer model: states, metrics, and the two kinds of analyzer.

An *analyzer* computes a *metric* from data in two steps (Schelter et al.,
ICDE 2019, §II): a function ``s`` from data to a *state* (a sufficient
statistic) and a function ``m`` from the state to the metric. States form a
commutative monoid under :meth:`State.merge`, with ``None`` as the identity
(the state of no data), so that ``m(s(A ∪ B)) == m(s(A) ⊕ s(B))`` for disjoint
``A`` and ``B``: metrics of appended data, of any set of partitions, or after a
partition is replaced, come from stored states without re-reading data.

Two kinds of analyzer, as in Deequ:

* :class:`ScanShareableAnalyzer` declares the aggregations it needs
  (engine-neutral :mod:`~autovalidate.metrics.expressions`); an engine runs
  those of every such analyzer in one aggregation query.
* :class:`FrequencyBasedAnalyzer` needs the data grouped by some columns
  (a :class:`Grouping`); its state is the table of group frequencies, and an
  engine groups once per distinct grouping for all analyzers that share it.

A metric whose computation failed is a :class:`Metric` with an ``error``
(Deequ's ``Try``), never a raised exception: findings are values.
"""

from __future__ import annotations

import enum
import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

from autovalidate.errors import ColumnNotFoundError, DataError, EmptyColumnError
from autovalidate.metrics.expressions import Expr, Sql, columns_read, read_as_numbers, to_sql

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "COUNT_COLUMN",
    "Analyzer",
    "ColumnAnalyzer",
    "ColumnKind",
    "Distribution",
    "DistributionValue",
    "EngineAnalyzer",
    "Entity",
    "FrequencyBasedAnalyzer",
    "FrequencyTable",
    "Grouping",
    "Metric",
    "MetricValue",
    "QueryEngine",
    "Schema",
    "ScanShareableAnalyzer",
    "ScanShareableFrequencyBasedAnalyzer",
    "State",
    "TableSchema",
    "merge_states",
]

#: Name of the count column of a frequency table (Deequ's ``COUNT_COL``).
COUNT_COLUMN = "__autovalidate_count"


class ColumnKind(enum.Enum):
    """Coarse type of a column, as preconditions need it."""

    NUMERIC = "numeric"
    STRING = "string"
    BOOLEAN = "boolean"
    TEMPORAL = "temporal"
    OTHER = "other"


#: Column name -> kind, in the data's column order.
Schema = Mapping[str, ColumnKind]


class Entity(str, enum.Enum):
    """What a metric describes (Deequ's ``Entity``)."""

    DATASET = "Dataset"
    COLUMN = "Column"
    MULTICOLUMN = "Multicolumn"


@dataclass(frozen=True)
class DistributionValue:
    """One bin of a distribution: its count and its share of all rows (a fraction in [0, 1])."""

    absolute: int
    ratio: float


@dataclass(frozen=True)
class Distribution:
    """A distribution over named bins (Deequ's ``Distribution``).

    Attributes
    ----------
    values
        Bin name -> count and ratio. A histogram lists at most its
        ``max_detail_bins`` most frequent bins here.
    number_of_bins
        How many bins there are in all (distinct values for a histogram).
    """

    values: Mapping[str, DistributionValue]
    number_of_bins: int

    def absolute(self, key: str) -> int:
        """Count of bin ``key``, 0 if absent."""
        entry = self.values.get(key)
        return entry.absolute if entry is not None else 0

    def ratio(self, key: str) -> float:
        """Share of bin ``key`` (a fraction in [0, 1]), 0.0 if absent."""
        entry = self.values.get(key)
        return entry.ratio if entry is not None else 0.0


@dataclass(frozen=True)
class TableSchema:
    """The columns of a data set and their types, as the engine names them.

    Attributes
    ----------
    columns
        ``(name, type)`` pairs in the data's column order; the type is the
        engine's own name (DuckDB ``BIGINT``, ``VARCHAR``; Spark ``bigint``,
        ``string``).
    """

    columns: tuple[tuple[str, str], ...]

    @property
    def names(self) -> tuple[str, ...]:
        """The column names, in order."""
        return tuple(name for name, _ in self.columns)

    def type_of(self, column: str) -> str | None:
        """The type of ``column``, ``None`` if the data has no such column."""
        return dict(self.columns).get(column)


#: A metric's value: a number, a distribution, numbers by key, or a schema.
MetricValue = float | Distribution | Mapping[str, float] | TableSchema


@dataclass(frozen=True)
class Metric:
    """A computed metric, or the reason it could not be computed.

    Attributes
    ----------
    entity
        Whether it describes the dataset, a column or several columns.
    instance
        The column(s) or predicate it describes (``"*"`` for the dataset).
    name
        The metric, e.g. ``"Completeness"``.
    value
        The value; ``None`` exactly when ``error`` is set.
    error
        Why the computation failed (an empty state, a missing column, an engine
        error), else ``None``.
    details
        Findings beside the value (the counts and example values of
        :class:`~autovalidate.metrics.ReferentialIntegrity`), else ``None``.
    """

    entity: Entity
    instance: str
    name: str
    value: MetricValue | None
    error: Exception | None = None
    details: Mapping[str, Any] | None = None

    @property
    def is_success(self) -> bool:
        """True when the metric has a value."""
        return self.error is None

    def flatten(self) -> list[tuple[str, float]]:
        """Return the metric as ``(name, number)`` pairs, as Deequ's ``flatten`` does.

        A distribution becomes ``name.bins``, ``name.abs.<bin>`` and
        ``name.ratio.<bin>``; keyed values become ``name-<key>``; a schema
        becomes ``name.columns`` (its column count). A failed metric has no
        pairs.
        """
        value = self.value
        if value is None:
            return []
        if isinstance(value, Distribution):
            pairs = [(f"{self.name}.bins", float(value.number_of_bins))]
            for key, entry in value.values.items():
                pairs.append((f"{self.name}.abs.{key}", float(entry.absolute)))
                pairs.append((f"{self.name}.ratio.{key}", entry.ratio))
            return pairs
        if isinstance(value, Mapping):
            return [(f"{self.name}-{key}", float(v)) for key, v in value.items()]
        if isinstance(value, TableSchema):
            return [(f"{self.name}.columns", float(len(value.columns)))]
        return [(self.name, float(value))]

    def to_dict(self) -> dict[str, Any]:
        """Give the metric as JSON-ready data (see :func:`plain`); ``error`` is its message."""
        out = {
            "entity": self.entity.value,
            "instance": self.instance,
            "name": self.name,
            "value": plain(self.value),
            "error": None if self.error is None else str(self.error),
        }
        if self.details is not None:
            out["details"] = dict(self.details)
        return out


def plain(value: Any) -> Any:
    """Turn a metric value into JSON-ready data: a distribution into a dict, NaN into ``None``."""
    if isinstance(value, Distribution):
        return {
            "number_of_bins": value.number_of_bins,
            "values": {
                k: {"absolute": v.absolute, "ratio": v.ratio} for k, v in value.values.items()
            },
        }
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, TableSchema):
        return {"columns": [list(c) for c in value.columns]}
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


S = TypeVar("S", bound="State")


class State(ABC):
    """A sufficient statistic with an associative, commutative merge.

    ``None`` stands for the state of no data (the monoid's identity).
    Subclasses are frozen dataclasses; those with fields other than numbers
    override :meth:`to_dict` and :meth:`from_dict`.
    """

    @abstractmethod
    def merge(self: S, other: S) -> S:
        """Return the state of the union of the two (disjoint) data sets."""

    def to_dict(self) -> dict[str, Any]:
        """Give the fields as JSON-serializable data."""
        return {f.name: getattr(self, f.name) for f in fields(self)}  # type: ignore[arg-type]

    @classmethod
    def from_dict(cls: type[S], data: Mapping[str, Any]) -> S:
        """Inverse of :meth:`to_dict`."""
        return cls(**{f.name: data[f.name] for f in fields(cls)})  # type: ignore[arg-type]


def merge_states(*states: S | None) -> S | None:
    """Merge states, treating ``None`` as the identity."""
    merged: S | None = None
    for state in states:
        if state is None:
            continue
        merged = state if merged is None else merged.merge(state)
    return merged


Precondition = Callable[[Schema], None]


def has_column(column: str) -> Precondition:
    """Precondition: ``column`` exists."""

    def check(schema: Schema) -> None:
        if column not in schema:
            raise ColumnNotFoundError(column, list(schema))

    return check


def is_numeric(column: str) -> Precondition:
    """Precondition: ``column`` has a numeric type (Deequ's ``isNumeric``)."""

    def check(schema: Schema) -> None:
        kind = schema.get(column)
        if kind is not None and kind is not ColumnKind.NUMERIC:
            raise DataError(
                f"column {column!r} has a {kind.value} type; the analyzer needs a numeric column"
            )

    return check


def is_text(column: str) -> Precondition:
    """Precondition: ``column`` has a text type (Deequ's ``isString``).

    A column of any other type (numbers, booleans, dates, nested) fails it;
    on untyped data (CSV read as text) every column is text.
    """

    def check(schema: Schema) -> None:
        kind = schema.get(column)
        if kind is not None and kind is not ColumnKind.STRING:
            raise DataError(
                f"column {column!r} has a {kind.value} type; the analyzer needs a text column"
            )

    return check


def where_expr(where: str | None) -> Expr | None:
    """Return a user's ``where`` filter, Spark SQL (Deequ's dialect), as an expression."""
    return None if where is None else Sql(where, "spark")


def _field_text(value: object) -> str:
    if isinstance(value, Expr):
        return to_sql(value)
    if value is None:
        return "None"
    if isinstance(value, tuple):
        return "[" + ", ".join(_field_text(v) for v in value) + "]"
    if isinstance(value, enum.Enum):
        return str(value.value)
    return str(value)


class Analyzer(ABC):
    """An operator computing one metric from data, through a mergeable state.

    Subclasses are frozen dataclasses, so equal analyzers are one analyzer (an
    engine computes it once however many constraints use it).
    """

    #: The metric's name.
    metric_name: ClassVar[str]
    #: The state's class, for deserialization.
    state_class: ClassVar[type[State]]

    @property
    @abstractmethod
    def instance(self) -> str:
        """The column(s) or predicate the metric describes."""

    @property
    def entity(self) -> Entity:
        """What the metric describes."""
        return Entity.COLUMN

    @property
    def state_key(self) -> str:
        """Identity of this analyzer's state in a state provider.

        Analyzers that would compute the same state share a key (all frequency
        analyzers of one grouping, all quantiles of one column).
        """
        return repr(self)

    def preconditions(self) -> Sequence[Precondition]:
        """List checks on the schema; a failing one makes the metric a failure."""
        return ()

    def numeric_columns(self) -> tuple[str, ...]:
        """The columns this analyzer reads as numbers; their type must be numeric.

        On data without declared types (CSV text) the analysis runner reads
        them cast to numbers (:meth:`autovalidate.engines.Engine.numeric_view`).
        """
        return ()

    def row_violation(self) -> Expr | None:
        """The condition of a row that counts against the metric, or ``None``.

        Defined for the analyzers whose metric is a fraction of rows (or of
        values) meeting a row condition, among the rows passing ``where``:
        the condition is true exactly on the rows the metric counts as
        considered but not matching, so that the metric is 1.0 exactly when it
        holds on no row (null counts as false). Metrics of the whole data
        (sizes, means, uniqueness, distributions, lengths, types) have no
        row-level meaning: ``None``.
        """
        return None

    def check_preconditions(self, schema: Schema) -> Exception | None:
        """Return the first failing precondition's error, or ``None``."""
        for condition in self.preconditions():
            try:
                condition(schema)
            except Exception as exc:  # noqa: BLE001 - a failed precondition is a finding
                return exc
        return None

    def success(self, value: MetricValue) -> Metric:
        """Make a metric with ``value``."""
        return Metric(self.entity, self.instance, self.metric_name, value)

    def failure(self, error: Exception) -> Metric:
        """Make a failed metric."""
        return Metric(self.entity, self.instance, self.metric_name, None, error)

    def empty(self) -> Metric:
        """Return the failed metric of an empty state (Deequ's ``metricFromEmpty``)."""
        column = self.instance if self.entity is Entity.COLUMN else None
        return self.failure(
            EmptyColumnError(
                column, f"Empty state for analyzer {self}, all input values were NULL."
            )
        )

    def __str__(self) -> str:
        parts = [_field_text(getattr(self, f.name)) for f in fields(self)]  # type: ignore[arg-type]
        return f"{type(self).__name__}({','.join(parts)})"


class ColumnAnalyzer(Analyzer):
    """An analyzer of one column (its ``column`` field), which must exist."""

    column: str

    @property
    def instance(self) -> str:
        """Return the column."""
        return self.column

    def preconditions(self) -> Sequence[Precondition]:
        """Require the column to exist."""
        return (has_column(self.column),)


class EngineAnalyzer(Analyzer):
    """An analyzer that runs queries of its own rather than join the shared scan.

    It reads a second data set (a reference batch), or its query would slow
    the shared scan down for every analyzer in it (a sort of the whole data).
    It keeps no state: its metric always reads the data.
    """

    @abstractmethod
    def metric_from_engine(self, engine: QueryEngine) -> Metric:
        """Compute the metric with ``engine``, an :class:`~autovalidate.engines.Engine`.

        Raises
        ------
        AutovalidateError
            What the engine raises; the runner makes a query's error a failed metric.
        """


class ScanShareableAnalyzer(Analyzer):
    """An analyzer whose state comes from aggregations over the rows (one shared scan).

    Subclasses declare :meth:`aggregations` and build the state from their
    results in :meth:`state_from_aggregates`; the state gives the metric value.
    """

    @abstractmethod
    def aggregations(self) -> tuple[Expr, ...]:
        """Return the aggregate expressions this analyzer needs, in a fixed order."""

    def aggregations_reading_text(self, columns: Sequence[str]) -> tuple[Expr, ...] | None:
        """:meth:`aggregations` on data where ``columns`` (numeric columns) hold text.

        Each occurrence of those columns is read as a number
        (:func:`~autovalidate.metrics.expressions.read_as_numbers`: a text that
        is not a number is null, as on the engine's numeric view), so that the
        analyzer joins the shared scan of the data instead of scanning that
        view. ``None`` when the aggregations hold user SQL (a ``where``
        filter), which cannot be rewritten: the runner then uses the view.
        """
        exprs = self.aggregations()
        if columns_read(exprs) is None:
            return None
        return tuple(read_as_numbers(e, columns) for e in exprs)

    @abstractmethod
    def state_from_aggregates(self, values: Sequence[Any]) -> State | None:
        """Return the state from the aggregation results (same order); ``None`` for no data."""

    @abstractmethod
    def metric_value(self, state: Any) -> MetricValue:
        """Return the metric value of a (non-empty) state."""

    def metric_from_state(self, state: State | None) -> Metric:
        """Return the metric of the state, a failure for ``None`` or on any error."""
        if state is None:
            return self.empty()
        try:
            return self.success(self.metric_value(state))
        except Exception as exc:  # noqa: BLE001 - Deequ's Try: a failed metric is a value
            return self.failure(exc)


@dataclass(frozen=True)
class Grouping:
    """How a frequency-based analyzer groups the data.

    Attributes
    ----------
    keys
        ``(name, expression)`` of each grouping key; the frequency table has
        these columns plus :data:`COUNT_COLUMN`.
    where
        Rows to keep before grouping (``None``: all).
    drop_all_null
        Keep only rows where at least one key is not null (Deequ's
        ``computeFrequencies``); frequency metrics thus divide by the rows
        where the column (some column) is not null.
    """

    keys: tuple[tuple[str, Expr], ...]
    where: Expr | None
    drop_all_null: bool

    @property
    def key_names(self) -> tuple[str, ...]:
        """Names of the key columns."""
        return tuple(name for name, _ in self.keys)

    @property
    def columns(self) -> set[str] | None:
        """The data columns the keys and ``where`` read; ``None`` when user SQL may read any."""
        read = [e for _, e in self.keys]
        return columns_read(read if self.where is None else [*read, self.where])


class FrequencyTable(Protocol):
    """A table of group frequencies (key columns plus :data:`COUNT_COLUMN`) an engine can query."""

    def aggregate(
        self, exprs: Sequence[Expr], derived: Mapping[str, Expr] | None = None
    ) -> list[Any]:
        """Run aggregations over the table in one query.

        ``derived`` adds named columns (possibly window sums) that the
        aggregations may reference with :func:`~autovalidate.metrics.expressions.col`.
        """
        ...

    def top(self, order_by: Sequence[tuple[Expr, bool]], limit: int) -> list[tuple[Any, ...]]:
        """Return the first ``limit`` rows (all columns) by ``(expression, descending)`` keys."""
        ...

    def to_arrow(self) -> pa.Table:
        """Return the whole table as Arrow."""
        ...


class QueryEngine(Protocol):
    """What an :class:`EngineAnalyzer` asks of an engine (:class:`autovalidate.engines.Engine`)."""

    def schema(self) -> Schema:
        """Column name -> kind."""
        ...

    def aggregate(self, exprs: Sequence[Expr]) -> list[Any]:
        """Evaluate aggregations over all rows in one query."""
        ...

    def frequencies(self, grouping: Grouping, *, materialize: bool) -> FrequencyTable:
        """Group the data."""
        ...

    def custom_query(self, text: str) -> list[tuple[Any, ...]]:
        """Run a custom Spark SQL query reading the data as table ``data``."""
        ...

    def reference(self, data: Any) -> QueryEngine:
        """An engine over a reference batch read alongside this one's data."""
        ...

    def orphans(
        self,
        columns: Sequence[str],
        reference: Any,
        reference_columns: Sequence[str],
        where: Expr | None,
        limit: int,
    ) -> tuple[int, int, list[tuple[Any, ...]]]:
        """Rows whose values match no row of ``reference``: checked, orphans, examples."""
        ...


class FrequencyBasedAnalyzer(Analyzer):
    """An analyzer over the frequencies of groups in the data (Deequ's ``FrequencyBasedAnalyzer``).

    Its state is a :class:`~autovalidate.metrics.frequencies.FrequenciesState`;
    all analyzers with the same :attr:`grouping` share one. Its metric needs an
    engine to query the frequency table, so the metric of a stored state comes
    from :func:`autovalidate.analysis.metric_from_state`.
    """

    #: Queries :meth:`metric_from_frequencies` issues on the frequency table.
    frequency_queries: ClassVar[int] = 1

    @property
    @abstractmethod
    def grouping(self) -> Grouping:
        """The grouping this analyzer needs."""

    @property
    def state_key(self) -> str:
        """Shared by every analyzer of the same grouping."""
        return f"Frequencies({self.grouping!r})"

    @abstractmethod
    def metric_from_frequencies(self, table: FrequencyTable) -> Metric:
        """Return the metric from a frequency table (queries it through the engine)."""


class ScanShareableFrequencyBasedAnalyzer(FrequencyBasedAnalyzer):
    """A frequency analyzer whose metric is a few aggregations over the frequency table.

    Engines run the aggregations of all such analyzers of one grouping in one
    query over the grouped data (Algorithm 1, lines 17-21).
    """

    @abstractmethod
    def frequency_aggregations(self) -> tuple[Expr, ...]:
        """Return aggregations over the frequency table, in a fixed order."""

    @abstractmethod
    def metric_from_aggregates(self, values: Sequence[Any]) -> Metric:
        """Return the metric from the aggregation results (same order)."""

    def metric_from_frequencies(self, table: FrequencyTable) -> Metric:
        """Run this analyzer's aggregations alone and build the metric."""
        return self.metric_from_aggregates(table.aggregate(self.frequency_aggregations()))


def ratio(numerator: float, denominator: float) -> float:
    """``numerator / denominator``, NaN for a zero denominator (Deequ's convention)."""
    return numerator / denominator if denominator else math.nan
