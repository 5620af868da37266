"""The Spark engine: analyzers on PySpark DataFrames, without any JVM jar.

Renders engine-neutral expressions to PySpark ``Column`` objects (no SQL text
to quote or escape, except the user's own ``where`` and ``satisfies``
predicates, given to ``expr``) and uses only the DataFrame API, nothing of the
JVM gateway: classic and Spark Connect DataFrames run the same way, each with
its own API's functions (:class:`SparkApi`; the tests run both, Connect
through a server in the test JVM). All aggregations of one run go into one
``DataFrame.agg`` over a projection of their inputs (one Spark job over the
data); a grouping is one ``groupBy``, aggregated directly or, when several
queries need it, persisted once. Spark's ANSI mode is respected: casts of text
are ``try_cast`` and no division happens in Spark.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple

import pyarrow as pa

from autovalidate.engines.base import (
    HOLD_BYTES,
    TEXT_BATCH_ROWS,
    Engine,
    ExecutionStats,
    renaming,
)
from autovalidate.errors import AutovalidateError, DataError, EngineError, QueryError
from autovalidate.metrics.base import COUNT_COLUMN, ColumnKind, Grouping, Schema
from autovalidate.metrics.expressions import (
    HLL_HASH_BITS,
    LONG_IN_LIST,
    Call,
    Col,
    Expr,
    Lit,
    Sql,
    anchored_regex,
    java_datetime_pattern,
    project_aggregate_inputs,
    quantile_grid_request,
    to_double,
    to_text,
)
from autovalidate.user_code import check_sql_expression, custom_sql_on

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql import DataFrame as DataFrame  # re-exported: autovalidate.spark types with it

__all__ = ["HOLD_CHUNK", "SparkApi", "SparkEngine", "is_spark_dataframe", "render"]

#: Columns whose text one job of :meth:`SparkEngine.hold` collects: a wide table's
#: text is collected in a few jobs, and never much past ``HOLD_BYTES`` at once.
HOLD_CHUNK = 64


def is_spark_dataframe(data: object) -> bool:
    """Tell a classic or Spark Connect DataFrame (without importing pyspark otherwise)."""
    cls = type(data)
    return cls.__name__ == "DataFrame" and cls.__module__.startswith("pyspark.")


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _spark_literals(values: Sequence[Any]) -> str | None:
    """Spark SQL text of constants, each of the type ``F.lit`` gives it; None if one has none.

    A long IN list passes its constants to the JVM as one text: ``isin`` makes
    a py4j call per constant (45 s for 100,000 strings), the parser reads
    the text in under a second. A string is quoted as it is; one holding a
    quote or a backslash gives None, since how Spark reads a backslash in a
    literal is a session setting (``spark.sql.parser.escapedStringLiterals``).
    An int is an INT within 32 bits, else a BIGINT (``L``); a float a DOUBLE
    (``D``); NaN and infinities, which have no literal, give None.
    """
    out = []
    for v in values:
        if isinstance(v, bool):
            out.append("TRUE" if v else "FALSE")
        elif isinstance(v, int) and -(2**63) <= v < 2**63:
            out.append(str(v) if -(2**31) <= v < 2**31 else f"{v}L")
        elif isinstance(v, float) and math.isfinite(v):
            out.append(f"{v!r}D")
        elif isinstance(v, str) and "'" not in v and "\\" not in v:
            out.append(f"'{v}'")
        else:
            return None
    return ", ".join(out)


class SparkApi(NamedTuple):
    """The functions module and ``Window`` class of one PySpark API.

    A classic DataFrame needs ``pyspark.sql.functions`` (Columns backed by the
    JVM gateway); a Spark Connect DataFrame needs ``pyspark.sql.connect.functions``
    (Columns as protobuf plans). PySpark picks one for the whole process from
    an environment flag; the engine picks the one of the DataFrame it runs on,
    so classic and Connect DataFrames work side by side in one process.
    """

    functions: Any
    window: Any

    @classmethod
    def of(cls, frame: object) -> SparkApi:
        """The API of ``frame``, a classic or a Spark Connect DataFrame."""
        if type(frame).__module__.startswith("pyspark.sql.connect."):
            from pyspark.sql.connect import functions as connect_functions
            from pyspark.sql.connect.window import Window as ConnectWindow

            return cls(connect_functions, ConnectWindow)
        from pyspark.sql import Window, functions

        return cls(functions, Window)


def _hll_code(api: SparkApi, x: Column, precision: int) -> Column:
    F = api.functions
    rest_bits = HLL_HASH_BITS - precision
    mask = (1 << rest_bits) - 1
    w = F.conv(F.substring(F.md5(x.cast("string")), 1, 15), 16, 10).cast("bigint")
    rest = w.bitwiseAND(F.lit(mask))
    rho = F.lit(rest_bits + 2) - F.length(F.bin(rest * 2 + 1))
    return F.shiftright(w, rest_bits) * 64 + rho


def _when(F: Any, a: list[Column], otherwise_null: bool) -> Column:
    case = F.when(a[0], a[1])
    return case if otherwise_null else case.otherwise(a[2])


def _all(a: list[Column], combine: Callable[[Column, Column], Column]) -> Column:
    result = a[0]
    for c in a[1:]:
        result = combine(result, c)
    return result


_SIMPLE: dict[str, Callable[[SparkApi, list[Column]], Column]] = {
    "count_star": lambda api, a: api.functions.count(api.functions.lit(1)),
    "count": lambda api, a: api.functions.count(a[0]),
    "sum": lambda api, a: api.functions.sum(a[0]),
    "min": lambda api, a: api.functions.min(a[0]),
    "max": lambda api, a: api.functions.max(a[0]),
    "avg": lambda api, a: api.functions.avg(a[0]),
    "var_pop": lambda api, a: api.functions.var_pop(a[0]),
    "covar_pop": lambda api, a: api.functions.covar_pop(a[0], a[1]),
    "skewness_pop": lambda api, a: api.functions.skewness(a[0]),
    "kurtosis_pop": lambda api, a: api.functions.kurtosis(a[0]),
    "distinct_set": lambda api, a: api.functions.collect_set(a[0]),
    "is_null": lambda api, a: a[0].isNull(),
    "is_not_null": lambda api, a: a[0].isNotNull(),
    "and": lambda api, a: _all(a, lambda x, y: x & y),
    "or": lambda api, a: _all(a, lambda x, y: x | y),
    "not": lambda api, a: ~a[0],
    "coalesce": lambda api, a: api.functions.coalesce(*a),
    "eq": lambda api, a: a[0] == a[1],
    "lt": lambda api, a: a[0] < a[1],
    "le": lambda api, a: a[0] <= a[1],
    "gt": lambda api, a: a[0] > a[1],
    "ge": lambda api, a: a[0] >= a[1],
    "mul": lambda api, a: a[0] * a[1],
    "sub": lambda api, a: a[0] - a[1],
    "ln": lambda api, a: api.functions.log(a[0]),
    "to_double": lambda api, a: a[0].try_cast("double"),
    "to_text": lambda api, a: a[0].cast("string"),
    "is_json": lambda api, a: api.functions.try_parse_json(a[0]).isNotNull(),
    "epoch_micros": lambda api, a: api.functions.unix_micros(a[0].try_cast("timestamp")),
    "length": lambda api, a: api.functions.length(a[0]),
    "window_sum": lambda api, a: api.functions.sum(a[0]).over(api.window.partitionBy(*a[1:])),
}


def render(expr: Expr, api: SparkApi) -> Column:
    """PySpark ``Column`` of an engine-neutral expression, in ``api`` (classic or Connect).

    Raises
    ------
    ValueError
        For a function the vocabulary does not have.
    UnsafeInputError
        For user SQL that is not one expression over the columns
        (:func:`~autovalidate.user_code.check_sql_expression`).
    """
    F = api.functions
    if isinstance(expr, Col):
        return F.col(_quote(expr.name))
    if isinstance(expr, Lit):
        return F.lit(expr.value)
    if isinstance(expr, Sql):
        check_sql_expression(expr.text, "SQL", dialects=("spark",))
        return F.expr(expr.text)
    if isinstance(expr, Call):
        params = [a.value for a in expr.args[1:] if isinstance(a, Lit)]
        if expr.fn == "full_match":
            return render(expr.args[0], api).rlike(anchored_regex(str(params[0])))
        if expr.fn == "quantile_grid":
            probabilities, accuracy = quantile_grid_request(expr)
            return F.percentile_approx(render(expr.args[0], api), probabilities, accuracy)
        if expr.fn == "smallest_values":
            values = render(expr.args[0], api)
            return F.min_by(values, values, int(params[0]))  # type: ignore[arg-type]
        if expr.fn == "hll_code":
            return _hll_code(api, render(expr.args[0], api), int(params[0]))  # type: ignore[arg-type]
        if expr.fn in ("running_max_before", "running_min_before"):
            value, order = (render(a, api) for a in expr.args)
            before = api.window.orderBy(order).rowsBetween(api.window.unboundedPreceding, -1)
            extreme = F.max if expr.fn == "running_max_before" else F.min
            return extreme(value).over(before)
        if expr.fn == "parses_as_datetime":
            pattern = F.lit(java_datetime_pattern(str(params[0])))
            return F.try_to_timestamp(render(expr.args[0], api), pattern).isNotNull()
        if expr.fn == "is_in":
            column = expr.args[0]
            if len(params) > LONG_IN_LIST and isinstance(column, Col):
                listed = _spark_literals(params)
                if listed is not None:
                    return F.expr(f"{_quote(column.name)} IN ({listed})")
            return render(column, api).isin(params) if params else F.lit(False)
        if expr.fn == "when":
            otherwise = expr.args[2]
            otherwise_null = isinstance(otherwise, Lit) and otherwise.value is None
            return _when(F, [render(a, api) for a in expr.args], otherwise_null)
        if expr.fn in _SIMPLE:
            return _SIMPLE[expr.fn](api, [render(a, api) for a in expr.args])
    raise ValueError(f"no Spark rendering for {expr!r}")


def _kind(data_type: Any) -> ColumnKind:
    from pyspark.sql import types as T

    if isinstance(data_type, T.NumericType):
        return ColumnKind.NUMERIC
    if isinstance(data_type, (T.StringType, T.VarcharType, T.CharType)):
        return ColumnKind.STRING
    if isinstance(data_type, T.BooleanType):
        return ColumnKind.BOOLEAN
    if isinstance(data_type, (T.DateType, T.TimestampType, T.TimestampNTZType)):
        return ColumnKind.TEMPORAL
    return ColumnKind.OTHER


_ERROR_LINE = re.compile(r"[\w.$]*(Error|Exception)\b")


def first_error_line(exc: BaseException) -> str:
    """The informative line of a Spark error, one line.

    A Python worker's own exception (the last line of its traceback) if there
    is one; else the first Java or Python exception named in the message (a
    JVM error's ``SparkException: [FAILED_READ_FILE...] ... file ...``), not
    py4j's ``An error occurred while calling ...``.
    """
    text = str(exc).strip()
    lines = [ln.strip().lstrip(":").strip() for ln in text.splitlines() if ln.strip()]
    named = [ln for ln in lines if _ERROR_LINE.match(ln) and not ln.startswith("at ")]
    if named:
        return named[-1] if "Traceback (most recent call last)" in text else named[0]
    return lines[0] if lines else type(exc).__name__


#: SQLSTATE classes of errors in a query's own expressions: 42 (syntax, an
#: unknown column, a type mismatch: Spark's AnalysisException) and 22 (data:
#: a cast or arithmetic that fails on a value).
_QUERY_SQLSTATES = ("42", "22")


def spark_error(exc: Exception) -> EngineError:
    """The error to raise for what Spark raised while planning or running a query.

    A query Spark refuses (an unknown column, bad syntax) or whose expressions
    fail on a value (SQLSTATE class 42 or 22) is a :class:`QueryError`: it
    fails the metrics of that query, as in Deequ. Anything else (a failed
    read of a corrupt file, a user UDF that raises, a lost executor, a dead
    JVM) is an :class:`EngineError` that fails the run.
    """
    from pyspark.errors import AnalysisException

    state = None
    getter = getattr(exc, "getSqlState", None)
    if callable(getter):
        try:
            state = getter()
        except Exception:  # noqa: BLE001 - a py4j error whose JVM is gone
            state = None
    line = first_error_line(exc)
    if isinstance(exc, AnalysisException) or str(state or "").startswith(_QUERY_SQLSTATES):
        return QueryError(f"Spark refused the query: {line}")
    return EngineError(f"Spark failed: {line}")


@contextmanager
def _spark_errors() -> Iterator[None]:
    """Turn whatever Spark raises (analysis at plan time, failures at run time) into EngineError."""
    try:
        yield
    except AutovalidateError:
        raise
    except Exception as exc:  # noqa: BLE001 - Spark and py4j errors have no common base
        raise spark_error(exc) from exc


#: Aggregates Spark runs as an interpreted ``ObjectHashAggregate`` (typed imperative
#: aggregates with an object state): ``collect_set``, ``percentile_approx``, ``min_by``.
OBJECT_AGGREGATES = frozenset({"distinct_set", "quantile_grid", "smallest_values"})


def _is_object_aggregate(expr: Expr) -> bool:
    return isinstance(expr, Call) and expr.fn in OBJECT_AGGREGATES


def _aggregate(
    frame: DataFrame, exprs: Sequence[Expr], derived: Mapping[str, Expr] | None
) -> DataFrame:
    api = SparkApi.of(frame)
    if derived:
        frame = frame.select("*", *(render(e, api).alias(n) for n, e in derived.items()))
    return frame.agg(*(render(e, api).alias(f"_av{i}") for i, e in enumerate(exprs)))


def _reference_frame(data: Any) -> DataFrame:
    """``data`` if it is a Spark DataFrame (a reference batch of a Spark check)."""
    if not is_spark_dataframe(data):
        raise DataError(
            f"the reference of a Spark check must be a Spark DataFrame, not {type(data).__name__}"
        )
    frame: DataFrame = data
    return frame


class SparkFrequencyTable:
    """A grouping as a Spark DataFrame (lazy, or persisted when materialized)."""

    def __init__(
        self, frame: DataFrame, stats: ExecutionStats, description: str, *, lazy: bool
    ) -> None:
        self._frame = frame
        self._stats = stats
        self._description = description
        self._lazy = lazy

    def _record(self, what: str) -> None:
        self._stats.record(f"group {self._description}, {what}", scan=self._lazy)

    def aggregate(
        self, exprs: Sequence[Expr], derived: Mapping[str, Expr] | None = None
    ) -> list[Any]:
        """Run one aggregation job over the grouped data."""
        self._record(f"aggregate {len(exprs)}")
        with _spark_errors():
            return list(_aggregate(self._frame, exprs, derived).collect()[0])

    def top(self, order_by: Sequence[tuple[Expr, bool]], limit: int) -> list[tuple[Any, ...]]:
        """Return the first ``limit`` rows in the given order."""
        self._record(f"top {limit}")
        api = SparkApi.of(self._frame)
        columns = [render(e, api).desc() if desc else render(e, api).asc() for e, desc in order_by]
        with _spark_errors():
            return [tuple(r) for r in self._frame.orderBy(*columns).limit(int(limit)).collect()]

    def to_arrow(self) -> pa.Table:
        """Return the grouped data as Arrow (collected to the driver)."""
        self._record("fetch")
        with _spark_errors():
            return self._frame.toArrow()


class SparkEngine(Engine):
    """Runs analyzers on a PySpark DataFrame.

    Parameters
    ----------
    frame
        The data; its session runs the queries.
    """

    name = "spark"
    # ``min_by(x, x, k)`` cannot be compiled with the counts: the whole aggregation
    # becomes an interpreted ObjectHashAggregate, +17% on 10M rows even when no
    # value fails; a second query for the examples costs 16%, only when one does.
    examples_in_scan = False

    def __init__(self, frame: DataFrame) -> None:
        super().__init__()
        self.frame = frame
        self.api = SparkApi.of(frame)
        self._persisted: list[DataFrame] = []
        #: the text of held columns (:meth:`hold`), columns to hold when text is first read,
        #: and whether holding is ruled out (too many rows, or bytes)
        self._texts: dict[str, pa.ChunkedArray] = {}
        self._pending: dict[str, None] = {}
        self._hold_ruled_out = False

    def hold(self, columns: Iterable[str]) -> None:
        """A hint: the text of ``columns`` will be read; collect it to the driver once.

        A whole-table run reads each string column's text for its pattern
        (:meth:`text_batches`): a job per column, and ``toLocalIterator``
        runs one per partition. Here the first read of a held column's text
        collects the text of all held columns instead, when the data have at
        most :data:`~autovalidate.engines.base.TEXT_BATCH_ROWS` rows (one
        text batch) and that text takes at most
        :data:`~autovalidate.engines.base.HOLD_BYTES`: counting the rows is
        one job, then :data:`HOLD_CHUNK` columns a job
        (``select(c.cast("string"), ...).toArrow()``). :meth:`text_values` and
        :meth:`text_batches` of those columns then read the driver's memory:
        the same values, no job. Nothing is read until then (a run that reads
        no text pays nothing), and aggregations run on Spark as before. With
        more rows, or once the text passes the bytes, nothing more is held
        and holding is not tried again. Names not in the data are skipped.
        """
        names = set(self.frame.columns)
        wanted = (c for c in columns if c in names and c not in self._texts)
        self._pending.update(dict.fromkeys(wanted))

    def _held_text(self, column: str) -> pa.ChunkedArray | None:
        """The held text of ``column``, collecting the held columns' text on first use."""
        if column in self._pending and not self._hold_ruled_out:
            wanted = [c for c in self._pending if c not in self._texts]
            self._pending = {}
            with _spark_errors():
                self.stats.record("hold: count rows", scan=True)
                if self.frame.limit(TEXT_BATCH_ROWS + 1).count() > TEXT_BATCH_ROWS:
                    self._hold_ruled_out = True
                    return None
                room = HOLD_BYTES - sum(a.nbytes for a in self._texts.values())
                for start in range(0, len(wanted), HOLD_CHUNK):
                    chunk = wanted[start : start + HOLD_CHUNK]
                    self.stats.record(f"hold {len(chunk)} columns", scan=True)
                    texts = [
                        render(to_text(Col(c)), self.api).alias(f"_av_text{i}")
                        for i, c in enumerate(chunk)
                    ]
                    table = self.frame.select(*texts).toArrow()
                    room -= table.nbytes
                    if room < 0:
                        self._hold_ruled_out = True
                        break
                    for i, c in enumerate(chunk):
                        self._texts[c] = table.column(i)
        return self._texts.get(column)

    def schema(self) -> Schema:
        """Column kinds from the DataFrame's schema."""
        return {f.name: _kind(f.dataType) for f in self.frame.schema.fields}

    def column_types(self) -> list[tuple[str, str]]:
        """The DataFrame's column names and their types' ``simpleString``."""
        return [(f.name, f.dataType.simpleString()) for f in self.frame.schema.fields]

    def custom_query(self, text: str) -> list[tuple[Any, ...]]:
        """The query over the data as a temporary view of a unique name (one job)."""
        import uuid

        view = f"_av_data_{uuid.uuid4().hex}"
        sql = custom_sql_on(text, view, "spark")
        self.stats.record("custom sql", scan=True)
        session = self.frame.sparkSession
        with _spark_errors():
            self.frame.createOrReplaceTempView(view)
            try:
                return [tuple(r) for r in session.sql(sql).collect()]
            finally:
                session.catalog.dropTempView(view)

    def reference(self, data: Any) -> SparkEngine:
        """A Spark engine over the DataFrame ``data`` (see :meth:`Engine.reference`)."""
        return self._view(_reference_frame(data), same_rows=True)

    def orphans(
        self,
        columns: Sequence[str],
        reference: Any,
        reference_columns: Sequence[str],
        where: Expr | None,
        limit: int,
    ) -> tuple[int, int, list[tuple[Any, ...]]]:
        """A left join with the reference's distinct values, counted in one job.

        Orphans are the rows the join finds no reference row for; a second
        job fetches examples when there are any. ``reference`` is a
        DataFrame of the same session; its columns are renamed for the join,
        so a reference derived from the data is no ambiguous self-join.
        """
        reference = _reference_frame(reference)
        F = self.api.functions
        keys = [f"__av_r{i}" for i in range(len(reference_columns))]
        with _spark_errors():
            checked = self.frame
            if where is not None:
                checked = checked.where(render(where, self.api))
            for c in columns:
                checked = checked.where(F.col(_quote(c)).isNotNull())
            ref = (
                reference.select(
                    *(
                        F.col(_quote(r)).alias(k)
                        for r, k in zip(reference_columns, keys, strict=True)
                    )
                )
                .distinct()
                .withColumn("__av_found", F.lit(True))
            )
            on = _all(
                [F.col(_quote(c)) == F.col(k) for c, k in zip(columns, keys, strict=True)],
                lambda x, y: x & y,
            )
            joined = checked.join(ref, on, "left")
            missing = F.col("__av_found").isNull()
            self.stats.record("count rows and orphans", scan=True)
            rows, count = joined.agg(
                F.count(F.lit(1)), F.count(F.when(missing, F.lit(1)))
            ).collect()[0]
            orphan = joined.where(missing).select(*(_quote(c) for c in columns))
            examples: list[tuple[Any, ...]] = []
            if count:
                self.stats.record(f"orphan examples {int(limit)}", scan=True)
                found = orphan.distinct().orderBy(*(_quote(c) for c in columns))
                examples = [tuple(r) for r in found.limit(int(limit)).collect()]
        return int(rows), int(count), examples

    def aggregate(self, exprs: Sequence[Expr]) -> list[Any]:
        """Run the aggregations in one ``agg`` (one Spark job), inputs projected once.

        Or two, when some are aggregates Spark cannot compile
        (:data:`OBJECT_AGGREGATES`: ``collect_set``, ``percentile_approx``,
        ``min_by``) and others can: in one job, those turn the whole
        aggregation into an interpreted ``ObjectHashAggregate``, so the
        compiled counts, sums and moments ran slower than in a job of their
        own. On a warm JVM the 29 aggregations of ``shared_scan.py``'s 18
        analyzers (3M rows) took 11.2-13.5 s in one job and 8.5-9.5 s in two on
        Parquet, 8.2-8.9 s and 8.5-8.8 s on CSV (typed, a second parse of the
        file): the shared scan had been slower than one query per analyzer on
        Parquet.
        """
        objects = [i for i, e in enumerate(exprs) if _is_object_aggregate(e)]
        if not objects or len(objects) == len(exprs):
            return self._aggregate_in_one_job(exprs)
        plain = [i for i in range(len(exprs)) if i not in set(objects)]
        values: list[Any] = [None] * len(exprs)
        for part in (plain, objects):
            results = self._aggregate_in_one_job([exprs[i] for i in part])
            for i, value in zip(part, results, strict=True):
                values[i] = value
        return values

    def _aggregate_in_one_job(self, exprs: Sequence[Expr]) -> list[Any]:
        self.stats.record(f"aggregate {len(exprs)}", scan=True)
        inputs, aggregates = project_aggregate_inputs(exprs)
        with _spark_errors():
            return list(_aggregate(self.frame, aggregates, inputs).collect()[0])

    def sample(self, condition: Expr, columns: Sequence[Expr], limit: int) -> list[tuple[Any, ...]]:
        """``where(condition).select(columns).limit(limit)``, collected (one job)."""
        self.stats.record(f"sample {int(limit)}", scan=True)
        with _spark_errors():
            rows = self.frame.where(render(condition, self.api)).select(
                *(render(c, self.api) for c in columns)
            )
            return [tuple(r) for r in rows.limit(int(limit)).collect()]

    def _view(self, frame: DataFrame, *, same_rows: bool) -> SparkEngine:
        return self._view_of(SparkEngine(frame), same_rows=same_rows)

    def text_values(self, column: str) -> list[str | None]:
        """``select(column.cast("string"))``, collected to the driver (one job, none if held)."""
        self._require([column])
        held = self._held_text(column)
        self.stats.record("text values", scan=held is None)
        if held is not None:
            return held.to_pylist()
        with _spark_errors():
            return [
                r[0] for r in self.frame.select(render(to_text(Col(column)), self.api)).collect()
            ]

    def text_batches(self, column: str, rows: int = TEXT_BATCH_ROWS) -> Iterator[list[str | None]]:
        """``select(column.cast("string")).toLocalIterator()``: a partition at a time.

        A held column (:meth:`hold`) is read from the driver's memory: no job.
        """
        self._require([column])
        held = self._held_text(column)
        self.stats.record("text batches", scan=held is None)
        if held is not None:
            for start in range(0, len(held), int(rows)):
                yield held.slice(start, int(rows)).to_pylist()
            return
        batch: list[str | None] = []
        with _spark_errors():
            for row in self.frame.select(render(to_text(Col(column)), self.api)).toLocalIterator():
                batch.append(row[0])
                if len(batch) >= rows:
                    yield batch
                    batch = []
        if batch:
            yield batch

    def numeric_view(self, columns: Iterable[str]) -> SparkEngine:
        """``select`` with ``columns`` as ``try_cast(c as double)``, the rest as is."""
        wanted = set(columns)
        self._require(sorted(wanted))
        return self._view(
            self.frame.select(
                *[
                    render(to_double(Col(c)), self.api).alias(c)
                    if c in wanted
                    else render(Col(c), self.api)
                    for c in self.frame.columns
                ]
            ),
            same_rows=True,
        )

    def renamed(self, names: Mapping[str, str]) -> SparkEngine:
        """``select(source.alias(name), ...)`` (see :meth:`Engine.renamed`)."""
        self._require(names.values())
        return self._view(
            self.frame.select(
                *[render(Col(c), self.api).alias(n) for c, n in renaming(self.frame.columns, names)]
            ),
            same_rows=True,
        )

    def write_rows(self, rows: DataFrame, path: str) -> None:
        """``rows.write.parquet(path)``, refusing an existing path (:meth:`Engine.write_rows`)."""
        self.stats.record(f"write {path}", scan=True)
        with _spark_errors():
            rows.write.mode("error").parquet(path)

    def split_rows(
        self,
        broken: Mapping[str, Expr],
        column: str,
        rename: Mapping[str, str] | None = None,
    ) -> tuple[DataFrame, DataFrame]:
        """Two lazy DataFrames: ``size(broken) == 0`` and ``> 0`` (see :meth:`Engine.split_rows`).

        ``broken`` is ``array_compact(array(when(condition, name), ...))`` over
        the renamed columns; no job runs until an action on the results. A bad
        SQL predicate raises here on a classic session (the plan is analysed
        now), and when a part is read on Spark Connect (analysed by the server).
        """
        columns, plan, carried = self._rows_plan(column, rename)
        F = self.api.functions
        with _spark_errors():
            read = self.frame.select(
                *[render(Col(c), self.api).alias(n) for c, n in plan],
                *[render(Col(c), self.api).alias(k) for c, k in zip(columns, carried, strict=True)],
            )
            names = [F.when(render(e, self.api), F.lit(name)) for name, e in broken.items()]
            listed = F.array_compact(F.array(*names)) if names else F.array().cast("array<string>")
            flagged = read.select(
                *[F.col(k).alias(c) for c, k in zip(columns, carried, strict=True)],
                listed.alias(column),
            )
            size = F.size(F.col(_quote(column)))
            return flagged.where(size == 0).drop(column), flagged.where(size > 0)

    def split(self, test_ratio: float, seed: int) -> tuple[SparkEngine, SparkEngine]:
        """``randomSplit([1 - test_ratio, test_ratio], seed)``."""
        train, test = self.frame.randomSplit([1.0 - test_ratio, test_ratio], seed)
        return self._view(train, same_rows=False), self._view(test, same_rows=False)

    def frequencies(self, grouping: Grouping, *, materialize: bool) -> SparkFrequencyTable:
        """``groupBy(keys).count()``, lazy or persisted now (one job)."""
        api = self.api
        description = ",".join(grouping.key_names)
        with _spark_errors():  # a bad where filter fails already when the plan is built
            frame = self.frame
            if grouping.where is not None:
                frame = frame.where(render(grouping.where, api))
            if grouping.drop_all_null:
                frame = frame.where(
                    _all([render(e, api).isNotNull() for _, e in grouping.keys], lambda x, y: x | y)
                )
            F = api.functions
            grouped = frame.groupBy(*(render(e, api).alias(n) for n, e in grouping.keys)).agg(
                F.count(F.lit(1)).alias(COUNT_COLUMN)
            )
            if not materialize:
                return SparkFrequencyTable(grouped, self.stats, description, lazy=True)
            self.stats.record(f"group {description}, persist", scan=True)
            grouped = grouped.persist()
            self._persisted.append(grouped)
            grouped.count()
        return SparkFrequencyTable(grouped, self.stats, description, lazy=False)

    def close(self) -> None:
        """Unpersist the groupings this engine and its views cached."""
        super().close()
        for frame in self._persisted:
            frame.unpersist()
        self._persisted.clear()
