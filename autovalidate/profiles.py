"""Single-column profiles of a table from the Deequ analyzers (Deequ's ``ColumnProfiler``).

A profile holds what the suggestion rules look at: completeness, the
approximate number of distinct values, the data type (inferred from the text
of string columns, known for typed columns), numeric statistics, text lengths
and, for low-cardinality columns, the exact value histogram.

Deequ computes profiles in three passes (PVLDB 2018, §3.3; ``ColumnProfiler.scala``),
and so does :func:`profile_columns`, each pass one analysis run of
:class:`~autovalidate.metrics.AnalysisRunner` (so its scans are shared):

1. one scan for every column: :class:`~autovalidate.metrics.Size`,
   Completeness and ApproxCountDistinct; DataType, MinLength and MaxLength of
   string columns; Minimum, Maximum, Mean, StandardDeviation and Sum of
   columns that already have a numeric type (Deequ leaves these to pass 2;
   their types are known before any pass, so they join the first scan);
   NewestTimestamp of date and timestamp columns (not in Deequ: for the
   freshness suggestion);
2. only when string columns were inferred Integral or Fractional: one scan
   over those columns cast to 64-bit floats (null where a value is not a
   number, Deequ's ``castNumericStringColumns``) for their numeric statistics;
3. one grouping per column with at most ``low_cardinality_threshold``
   (approximately counted) distinct values whose type is String, Boolean,
   Integral or Fractional: its :class:`~autovalidate.metrics.Histogram`, over
   the values as text, nulls as ``"NullValue"``.

CSV files are read as text exactly as written (Deequ's starting point: "a CSV
file", no schema but column names), so every CSV column is a string column
whose type is inferred. Typed data (Parquet, pandas, Arrow, Spark) keeps its
types: numeric, boolean and temporal columns are not inferred (Deequ maps
timestamps to String). A typed numeric column is Integral when its minimum,
maximum and sum are whole numbers, else Fractional (Deequ reads this from the
declared type, which the engines here reduce to "numeric").

Deviation from Deequ: MinLength and MaxLength ignore nulls (Deequ's profiler
counts a null as the empty string, which makes the minimum 0 whenever a value
is missing); the length constraints suggested from them are checked the same
way.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from autovalidate.analysis.runner import run_analyzers
from autovalidate.engines import ExecutionStats, open_engine
from autovalidate.errors import ColumnNotFoundError, ParameterError
from autovalidate.metrics import (
    ApproxCountDistinct,
    Completeness,
    DataType,
    DataTypeInstance,
    Distribution,
    Histogram,
    Maximum,
    MaxLength,
    Mean,
    Metric,
    Minimum,
    MinLength,
    NewestTimestamp,
    Size,
    StandardDeviation,
    Sum,
)
from autovalidate.metrics.base import Analyzer, ColumnKind

__all__ = [
    "DEFAULT_CARDINALITY_THRESHOLD",
    "ColumnProfile",
    "ColumnProfiles",
    "determine_type",
    "profile_columns",
]

#: Deequ's ``ColumnProfiler.DEFAULT_CARDINALITY_THRESHOLD``: most distinct values with a histogram.
DEFAULT_CARDINALITY_THRESHOLD = 120

_NUMERIC_TYPES = (DataTypeInstance.INTEGRAL, DataTypeInstance.FRACTIONAL)
_HISTOGRAM_TYPES = (
    DataTypeInstance.STRING,
    DataTypeInstance.BOOLEAN,
    DataTypeInstance.INTEGRAL,
    DataTypeInstance.FRACTIONAL,
)
_KNOWN_TYPES = {
    ColumnKind.NUMERIC: None,  # Integral or Fractional, told by the values (see _numeric_type)
    ColumnKind.BOOLEAN: DataTypeInstance.BOOLEAN,
    ColumnKind.TEMPORAL: DataTypeInstance.STRING,
    ColumnKind.OTHER: DataTypeInstance.UNKNOWN,
}


def determine_type(counts: Mapping[str, int]) -> DataTypeInstance:
    """Deequ's ``DataTypeHistogram.determineType``: one type for a column from its value types.

    Parameters
    ----------
    counts
        Number of values per :class:`~autovalidate.metrics.DataTypeInstance`
        name (``"Unknown"`` counts nulls).

    Returns
    -------
    DataTypeInstance
        Unknown if every value is null; String if any value is a string or
        booleans mix with numbers; else Boolean if any is boolean; else
        Fractional if any is fractional; else Integral.

    Examples
    --------
    >>> determine_type({"Integral": 3, "Fractional": 1, "Unknown": 2}).value
    'Fractional'
    >>> determine_type({"Boolean": 1, "Integral": 1}).value
    'String'
    """

    def n(t: DataTypeInstance) -> int:
        return int(counts.get(t.value, 0))

    if sum(int(v) for v in counts.values()) == n(DataTypeInstance.UNKNOWN):
        return DataTypeInstance.UNKNOWN
    has_numbers = n(DataTypeInstance.INTEGRAL) > 0 or n(DataTypeInstance.FRACTIONAL) > 0
    if n(DataTypeInstance.STRING) > 0 or (n(DataTypeInstance.BOOLEAN) > 0 and has_numbers):
        return DataTypeInstance.STRING
    if n(DataTypeInstance.BOOLEAN) > 0:
        return DataTypeInstance.BOOLEAN
    if n(DataTypeInstance.FRACTIONAL) > 0:
        return DataTypeInstance.FRACTIONAL
    return DataTypeInstance.INTEGRAL


@dataclass(frozen=True)
class ColumnProfile:
    """What the profiler found out about one column (Deequ's ``ColumnProfile`` family).

    Attributes
    ----------
    column
        The column.
    completeness
        Non-null rows / rows, a fraction in [0, 1].
    approx_distinct
        HyperLogLog estimate of the distinct non-null values (1.6 % standard error).
    data_type
        The column's type: inferred from the text of string columns, else known.
    is_data_type_inferred
        True when ``data_type`` was inferred from text.
    kind
        The column's type in the data as read.
    type_counts
        Values per inferred type (``"Unknown"``: nulls); empty unless inferred.
    histogram
        Exact value distribution (as text, nulls as ``"NullValue"``, ratios over
        all rows) for low-cardinality columns, else ``None``.
    minimum, maximum, mean, std_dev, sum
        Numeric statistics of Integral and Fractional columns (``std_dev`` is
        the population standard deviation), ``None`` otherwise or without values.
    min_length, max_length
        Shortest and longest text of the non-null values, in code points, for
        String columns.
    newest
        The newest value of a date or timestamp column, in seconds since the
        Unix epoch (:class:`~autovalidate.metrics.NewestTimestamp`), ``None``
        for other columns or without values.
    """

    column: str
    completeness: float
    approx_distinct: int
    data_type: DataTypeInstance
    is_data_type_inferred: bool
    kind: ColumnKind
    type_counts: Mapping[str, int] = field(default_factory=dict)
    histogram: Distribution | None = None
    minimum: float | None = None
    maximum: float | None = None
    mean: float | None = None
    std_dev: float | None = None
    sum: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    newest: float | None = None

    @property
    def is_numeric(self) -> bool:
        """True for Integral and Fractional columns."""
        return self.data_type in _NUMERIC_TYPES

    def to_dict(self) -> dict[str, Any]:
        """The profile as plain data."""
        out: dict[str, Any] = {
            "column": self.column,
            "completeness": self.completeness,
            "approx_distinct": self.approx_distinct,
            "data_type": self.data_type.value,
            "is_data_type_inferred": self.is_data_type_inferred,
        }
        if self.type_counts:
            out["type_counts"] = dict(self.type_counts)
        for name in (
            "minimum",
            "maximum",
            "mean",
            "std_dev",
            "sum",
            "min_length",
            "max_length",
            "newest",
        ):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if self.histogram is not None:
            out["histogram"] = {
                "number_of_bins": self.histogram.number_of_bins,
                "values": {k: v.absolute for k, v in self.histogram.values.items()},
            }
        return out


@dataclass(frozen=True)
class ColumnProfiles:
    """The profiles of a table's columns.

    Attributes
    ----------
    profiles
        Column -> profile, in the data's column order.
    num_records
        Rows of the table.
    metrics
        Every metric the passes computed (for a metrics repository).
    stats
        Queries of all passes (``stats.scans`` counts those reading the data).
    """

    profiles: Mapping[str, ColumnProfile]
    num_records: int
    metrics: Mapping[Analyzer, Metric]
    stats: ExecutionStats

    def __getitem__(self, column: str) -> ColumnProfile:
        return self.profiles[column]

    def __iter__(self) -> Any:
        return iter(self.profiles.values())


def _value(metrics: Mapping[Analyzer, Metric], analyzer: Analyzer) -> Any:
    metric = metrics.get(analyzer)
    return None if metric is None or metric.error is not None else metric.value


def _numeric_analyzers(column: str) -> list[Analyzer]:
    return [Minimum(column), Maximum(column), Mean(column), StandardDeviation(column), Sum(column)]


def profile_columns(
    data: Any,
    *,
    columns: Sequence[str] | None = None,
    low_cardinality_threshold: int = DEFAULT_CARDINALITY_THRESHOLD,
    predefined_types: Mapping[str, DataTypeInstance] | None = None,
    progress: Callable[[str], None] | None = None,
) -> ColumnProfiles:
    """Profile the columns of a table in three passes (see the module docstring).

    Parameters
    ----------
    data
        A CSV/TSV (read as text) or Parquet path, a pandas DataFrame, an Arrow
        table, a DuckDB relation, a PySpark DataFrame, or an
        :class:`~autovalidate.engines.Engine`.
    columns
        The columns to profile (default: all, in order).
    low_cardinality_threshold
        Most approximately counted distinct values for which a column gets an
        exact histogram; 0 computes none.
    predefined_types
        Column -> type, used instead of inferring it (Deequ's
        ``setPredefinedTypes``); an Integral or Fractional column is cast for
        its numeric statistics. Columns not in the data are ignored.
    progress
        Called with a short description before each pass.

    Returns
    -------
    ColumnProfiles

    Raises
    ------
    ColumnNotFoundError
        If a named column is not in the data.
    ParameterError
        If ``low_cardinality_threshold`` is negative.
    DataSourceError, DataError
        If the data cannot be read.

    References
    ----------
    Schelter et al., PVLDB 2018, §3.3; Deequ ``profiles/ColumnProfiler.scala``.
    """
    if low_cardinality_threshold < 0:
        raise ParameterError(
            f"low_cardinality_threshold must be >= 0, got {low_cardinality_threshold}"
        )
    predefined = dict(predefined_types or {})
    say = progress or (lambda _: None)
    with open_engine(data) as engine:
        schema = dict(engine.schema())
        wanted = list(schema) if columns is None else list(columns)
        for c in wanted:
            if c not in schema:
                raise ColumnNotFoundError(c, list(schema))

        # pass 1: generic statistics, and numeric statistics of typed numeric columns
        first: list[Analyzer] = [Size()]
        for c in wanted:
            first += [Completeness(c), ApproxCountDistinct(c)]
            if schema[c] is ColumnKind.STRING and c not in predefined:
                first += [DataType(c), MinLength(c), MaxLength(c)]
            if schema[c] is ColumnKind.NUMERIC:
                first += _numeric_analyzers(c)
            if schema[c] is ColumnKind.TEMPORAL:
                first.append(NewestTimestamp(c))
        say("profiling: completeness, distinct values, types (pass 1/3)")
        context = run_analyzers(engine, first)
        metrics = dict(context.metrics)
        stats = context.stats
        num_records = int(_value(metrics, Size()) or 0)

        types: dict[str, tuple[DataTypeInstance, bool, dict[str, int]]] = {}
        for c in wanted:
            types[c] = _type_of(c, schema[c], metrics, predefined)

        # pass 2: numeric statistics of string columns holding numbers
        to_cast = [
            c
            for c in wanted
            if types[c][0] in _NUMERIC_TYPES and schema[c] is not ColumnKind.NUMERIC
        ]
        if to_cast:
            say("profiling: numeric statistics (pass 2/3)")
            second = [a for c in to_cast for a in _numeric_analyzers(c)]
            context = run_analyzers(engine.numeric_view(to_cast), second)
            metrics.update(context.metrics)
            stats += context.stats

        # pass 3: exact histograms of low-cardinality columns
        histogram_columns = [
            c
            for c in wanted
            if schema[c] in (ColumnKind.STRING, ColumnKind.NUMERIC, ColumnKind.BOOLEAN)
            and types[c][0] in _HISTOGRAM_TYPES
            and (_value(metrics, ApproxCountDistinct(c)) or 0) <= low_cardinality_threshold
        ]
        if histogram_columns:
            say("profiling: histograms of low-cardinality columns (pass 3/3)")
            context = run_analyzers(engine, [Histogram(c) for c in histogram_columns])
            metrics.update(context.metrics)
            stats += context.stats

    profiles = {c: _profile(c, schema[c], types[c], metrics) for c in wanted}
    return ColumnProfiles(profiles, num_records, metrics, stats)


def _numeric_type(column: str, metrics: Mapping[Analyzer, Metric]) -> DataTypeInstance:
    """Integral for a numeric column whose values are all whole numbers, else Fractional."""
    low, high, total = (_value(metrics, a) for a in (Minimum(column), Maximum(column), Sum(column)))
    whole = all(
        v is None or (math.isfinite(v) and float(v).is_integer()) for v in (low, high, total)
    )
    return DataTypeInstance.INTEGRAL if whole else DataTypeInstance.FRACTIONAL


def _type_of(
    column: str,
    kind: ColumnKind,
    metrics: Mapping[Analyzer, Metric],
    predefined: Mapping[str, DataTypeInstance],
) -> tuple[DataTypeInstance, bool, dict[str, int]]:
    if column in predefined:
        return predefined[column], False, {}
    if kind is ColumnKind.STRING:
        distribution = _value(metrics, DataType(column))
        if not isinstance(distribution, Distribution):
            return DataTypeInstance.UNKNOWN, True, {}
        counts = {k: v.absolute for k, v in distribution.values.items()}
        return determine_type(counts), True, counts
    if kind is ColumnKind.NUMERIC:
        return _numeric_type(column, metrics), False, {}
    known = _KNOWN_TYPES[kind]
    assert known is not None
    return known, False, {}


def _profile(
    column: str,
    kind: ColumnKind,
    typed: tuple[DataTypeInstance, bool, dict[str, int]],
    metrics: Mapping[Analyzer, Metric],
) -> ColumnProfile:
    data_type, inferred, counts = typed
    histogram = _value(metrics, Histogram(column))
    numeric: dict[str, float | None] = {}
    if data_type in _NUMERIC_TYPES:
        for name, analyzer in zip(
            ("minimum", "maximum", "mean", "std_dev", "sum"),
            _numeric_analyzers(column),
            strict=True,
        ):
            numeric[name] = _value(metrics, analyzer)
    lengths: dict[str, int | None] = {}
    if data_type is DataTypeInstance.STRING and kind is ColumnKind.STRING:
        low, high = _value(metrics, MinLength(column)), _value(metrics, MaxLength(column))
        lengths = {
            "min_length": None if low is None else math.floor(low),
            "max_length": None if high is None else math.ceil(high),
        }
    return ColumnProfile(
        column=column,
        completeness=float(_value(metrics, Completeness(column)) or 0.0),
        approx_distinct=int(round(_value(metrics, ApproxCountDistinct(column)) or 0)),
        data_type=data_type,
        is_data_type_inferred=inferred,
        kind=kind,
        type_counts=counts,
        histogram=histogram if isinstance(histogram, Distribution) else None,
        **numeric,  # type: ignore[arg-type]
        **lengths,
        newest=_value(metrics, NewestTimestamp(column)) if kind is ColumnKind.TEMPORAL else None,
    )
