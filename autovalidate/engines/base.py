"""What an execution engine offers, and how its work is counted.

An engine runs engine-neutral expressions (:mod:`autovalidate.metrics.expressions`)
on one data set: one aggregation query over the rows, or a grouping into a
frequency table that further queries aggregate (the analysis runner's needs);
a few rows matching a predicate (examples for a report); a column's values as
text (pattern inference). It also derives engines over *views* of its data,
so that callers never touch DuckDB or Spark themselves: the same rows with
text columns cast to numbers (:meth:`Engine.numeric_view`) or with columns
renamed (:meth:`Engine.renamed`), and a random split of the rows
(:meth:`Engine.split`). Nothing is read when a view is made. Last, it splits
its rows by conditions a row may break (:meth:`Engine.split_rows`, the
quarantine of a validated batch), into lazy DuckDB relations or Spark
DataFrames that callers hand on without reading them.

Every query is counted in :class:`ExecutionStats`, separating the *scans*
(queries that read the input data) from queries over grouped data or stored
states, so that tests and benchmarks can check scan sharing (Schelter et al.,
ICDE 2019, Algorithm 1). A view of the same rows counts in its engine's
stats; the halves of a split count in their own.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from autovalidate.errors import ColumnNotFoundError, ParameterError

if TYPE_CHECKING:
    from autovalidate.metrics.base import FrequencyTable, Grouping, Schema
    from autovalidate.metrics.expressions import Expr

__all__ = ["DATA_NAME", "HOLD_BYTES", "TEXT_BATCH_ROWS", "Engine", "ExecutionStats", "renaming"]

#: How an error names data that were handed over as no path (a DataFrame, a table).
DATA_NAME = "the data"

#: Values per batch of :meth:`Engine.text_batches`: a few MB of Python strings.
TEXT_BATCH_ROWS = 100_000

#: Most bytes of Arrow data one engine holds in memory (:meth:`Engine.hold`).
HOLD_BYTES = 256 * 2**20

_E = TypeVar("_E", bound="Engine")


@dataclass
class ExecutionStats:
    """Queries an engine issued.

    Attributes
    ----------
    scans
        Queries that read the input data.
    queries
        All queries: scans plus queries over grouped data or stored states.
    log
        One line per query, ``"scan: ..."`` or ``"query: ..."``, in order.
    """

    scans: int = 0
    queries: int = 0
    log: list[str] = field(default_factory=list)

    def record(self, description: str, *, scan: bool) -> None:
        """Count one query."""
        self.queries += 1
        if scan:
            self.scans += 1
        self.log.append(f"{'scan' if scan else 'query'}: {description}")

    def since(self, queries: int) -> ExecutionStats:
        """The queries recorded after the first ``queries`` ones, as their own stats."""
        log = self.log[queries:]
        return ExecutionStats(sum(line.startswith("scan:") for line in log), len(log), log)

    def __add__(self, other: ExecutionStats) -> ExecutionStats:
        """The queries of both, ``self``'s first."""
        return ExecutionStats(
            self.scans + other.scans, self.queries + other.queries, self.log + other.log
        )


def renaming(columns: Sequence[str], names: Mapping[str, str]) -> list[tuple[str, str]]:
    """``(data column, name)`` pairs of a view reading data column ``names[c]`` as ``c``.

    A data column whose name a renamed column takes is left out; the others
    keep their names and order (see :meth:`Engine.renamed`).
    """
    target = {source: name for name, source in names.items()}
    return [(c, target.get(c, c)) for c in columns if c not in names or c in target]


class Engine(ABC):
    """Runs analyzer expressions on one data set.

    Attributes
    ----------
    name
        ``"duckdb"`` or ``"spark"``.
    source
        The data as an error that cannot read them names them
        (:class:`~autovalidate.errors.DataSourceError`): the path the engine
        was opened on, or :data:`DATA_NAME`.
    stats
        The queries issued so far (views of the same rows share them).
    untyped
        True when the data declare no column types: every column holds text
        exactly as written (a CSV file). The analysis runner then computes
        numeric metrics of text columns on :meth:`numeric_view`.
    examples_in_scan
        True when a bounded list aggregate
        (:func:`~autovalidate.metrics.expressions.smallest_values`) costs
        next to nothing in a shared scan, so that examples of non-conforming
        values are best gathered in the scan that counts them. Otherwise they
        are fetched by :meth:`sample`, one more query, only when a value fails.
    """

    name: str
    source: str = DATA_NAME
    untyped: bool = False
    examples_in_scan: bool = False

    def __init__(self) -> None:
        self.stats = ExecutionStats()
        self._views: list[Engine] = []

    def _view_of(self, view: _E, *, same_rows: bool) -> _E:
        """Adopt ``view``, an engine over a view of this one's data: closed with this one."""
        view.untyped = self.untyped
        if same_rows:
            view.stats = self.stats
        self._views.append(view)
        return view

    def _require(self, columns: Iterable[str]) -> None:
        """Raise :class:`ColumnNotFoundError` for the first of ``columns`` not in the data."""
        schema = self.schema()
        for name in columns:
            if name not in schema:
                raise ColumnNotFoundError(name, list(schema))

    def hold(self, columns: Iterable[str]) -> None:
        """A hint: many queries will read ``columns`` (one per column, say); read them once.

        An engine may keep the columns in memory and run later queries that
        read only those columns there; the results are the same either way.
        This base engine ignores the hint.
        """
        del columns  # a hint this engine has no use for

    @abstractmethod
    def schema(self) -> Schema:
        """Column name -> kind, without reading the data."""

    @abstractmethod
    def column_types(self) -> list[tuple[str, str]]:
        """The data's ``(column, type)`` pairs in order, types as the engine names them.

        DuckDB's type names (``BIGINT``, ``VARCHAR``, ``TIMESTAMP WITH TIME
        ZONE``), Spark's ``simpleString`` (``bigint``, ``string``,
        ``timestamp``). Reads no rows.
        """

    @abstractmethod
    def custom_query(self, text: str) -> list[tuple[Any, ...]]:
        """Run a custom Spark SQL ``SELECT`` reading the data as table ``data`` (one scan).

        Raises
        ------
        UnsafeInputError
            If the query reads anything else (:func:`~autovalidate.user_code.check_sql_query`).
        QueryError
            If the engine refuses it.
        """

    @abstractmethod
    def reference(self, data: Any) -> Engine:
        """An engine over other data (a reference batch) read alongside this engine's.

        DuckDB reads ``data`` on this engine's connection (anything
        :func:`~autovalidate.engines.io.to_relation` takes); Spark needs a DataFrame of
        the same session. Its queries count in this engine's stats, and it is
        closed with this engine.

        Raises
        ------
        DataSourceError, DataError
            If ``data`` cannot be read, or is not data this engine reads.
        """

    @abstractmethod
    def orphans(
        self,
        columns: Sequence[str],
        reference: Any,
        reference_columns: Sequence[str],
        where: Expr | None,
        limit: int,
    ) -> tuple[int, int, list[tuple[Any, ...]]]:
        """Rows whose ``columns`` match no row of ``reference`` (an anti-join).

        Only rows passing ``where`` with all ``columns`` non-null count.
        Returns the rows checked, the orphan rows among them, and up to
        ``limit`` distinct orphan value tuples, smallest first (no query for
        them when there is no orphan).

        Raises
        ------
        QueryError
            If the query fails (a reference column missing, types that cannot
            be compared).
        DataSourceError, DataError
            If the reference cannot be read, or is not data this engine reads.
        """

    @abstractmethod
    def aggregate(self, exprs: Sequence[Expr]) -> list[Any]:
        """Evaluate aggregate expressions over all rows in one scan.

        (Spark: two when some of them are aggregates it cannot compile; see
        :meth:`autovalidate.engines.spark.SparkEngine.aggregate`.)

        Raises
        ------
        EngineError
            If the engine rejects or fails the query (a bad ``where`` filter, say).
        """

    @abstractmethod
    def frequencies(self, grouping: Grouping, *, materialize: bool) -> FrequencyTable:
        """Return the frequency table of ``grouping``.

        With ``materialize=False`` the table stays a query: each query on it
        scans the data again (use it when one query suffices). With
        ``materialize=True`` the data are grouped once, now (one scan), and
        later queries read the result.

        Raises
        ------
        EngineError
            If grouping fails.
        """

    def aggregate_groupings(
        self, requests: Sequence[tuple[Grouping, Sequence[Expr]]]
    ) -> list[list[Any]] | None:
        """Aggregations over the frequency tables of several groupings, all in one scan.

        ``requests``: per grouping, the aggregations to run over its
        frequency table (as :meth:`FrequencyTable.aggregate` runs them).
        Returns each request's values, in order; ``None`` where this engine
        has no plan that groups several groupings in one scan (then each is
        grouped on its own, :meth:`frequencies`), which is the default.

        Raises
        ------
        EngineError
            If the grouping or an aggregation fails.
        """
        return None

    @abstractmethod
    def sample(self, condition: Expr, columns: Sequence[Expr], limit: int) -> list[tuple[Any, ...]]:
        """Up to ``limit`` rows matching ``condition``, projected on ``columns`` (one scan).

        Which rows come back is the engine's choice (the first ones it finds):
        examples for a report, not a random sample.

        Raises
        ------
        EngineError
            If the engine rejects or fails the query.
        """

    @abstractmethod
    def text_values(self, column: str) -> list[str | None]:
        """All values of ``column`` as text, in row order, nulls as ``None`` (one scan).

        Raises
        ------
        ColumnNotFoundError
            If the data have no such column.
        EngineError
            If the engine fails the query.
        """

    @abstractmethod
    def text_batches(self, column: str, rows: int = TEXT_BATCH_ROWS) -> Iterator[list[str | None]]:
        """The values of ``column`` as text, in row order, nulls as ``None``, ``rows`` at a time.

        One scan, streamed: memory holds one batch of at most ``rows`` values
        (the last may be shorter), not the column; :meth:`text_values` in
        pieces. Read the batches to the end, or close the iterator, before the
        engine runs another query.

        Raises
        ------
        ColumnNotFoundError
            If the data have no such column (at the first ``next``).
        EngineError
            If the engine fails the query.
        """

    @abstractmethod
    def numeric_view(self, columns: Iterable[str]) -> Engine:
        """The same rows with ``columns`` cast to 64-bit floats, null where a value is no number.

        The other columns are kept as they are, in the same order. This is
        Deequ's ``castNumericStringColumns`` (PVLDB 2018, §3.3): numeric
        statistics of columns read as text.

        Raises
        ------
        ColumnNotFoundError
            If a column is not in the data.
        """

    @abstractmethod
    def renamed(self, names: Mapping[str, str]) -> Engine:
        """The same rows with data column ``names[c]`` read as column ``c``.

        A data column whose name a renamed column takes is left out; the
        other columns are kept, in order.

        Raises
        ------
        ColumnNotFoundError
            If a data column ``names`` reads is not in the data.
        """

    @abstractmethod
    def write_rows(self, rows: Any, path: str) -> None:
        """Write rows of this engine (a part :meth:`split_rows` returned) to Parquet at ``path``.

        DuckDB writes one file (its rows streamed out as Arrow batches);
        Spark writes its own layout, a directory of part files, from the
        executors. ``path`` must not exist on Spark.

        Raises
        ------
        DataSourceError
            If the data cannot be read, or ``path`` cannot be written.
        EngineError
            If the query fails otherwise.
        """

    @abstractmethod
    def split_rows(
        self,
        broken: Mapping[str, Expr],
        column: str,
        rename: Mapping[str, str] | None = None,
    ) -> tuple[Any, Any]:
        """The rows breaking none of the conditions, and those breaking one or more (lazily).

        Parameters
        ----------
        broken
            Name -> the condition of a row that breaks it (a row breaks it
            where the condition is true; null counts as false).
        column
            The column of the second part that lists, per row, the names of
            the conditions it breaks (a list of strings, in ``broken``'s order).
        rename
            The conditions read data column ``rename[c]`` as column ``c``, as
            on :meth:`renamed`; the rows come back with the data's own columns.

        Returns
        -------
        tuple
            ``(valid, invalid)`` in the engine's own lazy form, a DuckDB
            relation or a Spark DataFrame: nothing is read until they are.
            ``valid`` has the data's columns, ``invalid`` those and ``column``;
            together they hold every row once.

        Raises
        ------
        ParameterError
            If ``column`` is already a column of the data.
        ColumnNotFoundError
            If a data column ``rename`` reads is not in the data.
        EngineError
            If the engine rejects a condition (a bad SQL predicate).
        """

    def _rows_plan(
        self, column: str, rename: Mapping[str, str] | None
    ) -> tuple[list[str], list[tuple[str, str]], list[str]]:
        """What :meth:`split_rows` projects: the data's columns, the renaming, carried names.

        The conditions read the renamed columns (:func:`renaming`); each data
        column is also carried under a name of its own (``__av_row<i>``), so
        that the rows come back whole and as the data names them.
        """
        columns = list(self.schema())
        if column in columns:
            raise ParameterError(
                f"{column!r} is a column of the data; name the broken-constraints column otherwise"
            )
        self._require((rename or {}).values())
        carried = [f"__av_row{i}" for i in range(len(columns))]
        return columns, renaming(columns, rename or {}), carried

    @abstractmethod
    def split(self, test_ratio: float, seed: int) -> tuple[Engine, Engine]:
        """A random split of the rows into ``(training, test)`` engines.

        Each row goes to the test set with probability ``test_ratio`` (a
        fraction in (0, 1)); the same seed gives the same split of the same
        data. Each half counts its queries in its own stats.
        """

    def close(self) -> None:
        """Release what the engine and the views made from it hold (cached tables, connections)."""
        for view in self._views:
            view.close()
        self._views.clear()
