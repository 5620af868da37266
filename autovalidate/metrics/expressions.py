r"""Engine-neutral expressions: what an analyzer computes, before any engine says how.

Analyzers declare their aggregations as small immutable expression trees built
from the helpers below; :mod:`autovalidate.engines.duckdb` renders a tree to
DuckDB SQL text and :mod:`autovalidate.engines.spark` to a PySpark ``Column``.
Trees are hashable, so an engine computes an aggregation that several
analyzers share (``count(*)``, say) only once per scan.

Semantics every renderer keeps:

* SQL three-valued logic: a comparison with a null is null, and
  :func:`when` without an ``else`` gives null where its condition is not true;
  aggregates other than :func:`count_star` skip nulls.
* :func:`to_double` is a *try* cast: text that is not a number becomes null
  (Spark's ANSI mode would raise on a plain cast).
* :func:`to_text` renders a value as the engine does (``CAST(x AS VARCHAR)`` /
  ``cast(x as string)``); the two agree on text, integers, decimals, booleans
  and dates, and differ on floating values printed with an exponent
  (DuckDB ``1e+20``, Spark ``1.0E20``).
* :func:`full_match` is a full match of a regular expression: RE2 on DuckDB
  (``regexp_full_match``), ``java.util.regex`` on Spark (``rlike`` with the
  pattern wrapped in ``\A(?:...)\z`` unless it is so anchored already:
  :func:`anchored_regex`). Write patterns in the subset both dialects share.
* :class:`Sql` is user text: a ``satisfies`` predicate in the engine's own
  SQL dialect, used as given; a ``where`` filter in Spark SQL (Deequ's
  dialect) on every engine, which Spark runs as given and DuckDB runs
  translated (:func:`autovalidate.engines.duckdb.from_spark_sql`).

An expression's text, :func:`to_sql`, belongs here and not to an engine: it is
the SQL of the vocabulary DuckDB and Spark SQL share, the text analyzers print
(``str(analyzer)``), and the text a metrics repository finds rows saved before
analyzer keys by. An engine spells only what is its own on top of it: DuckDB's
quantile grid, HyperLogLog code and Spark-SQL translation in
:func:`autovalidate.engines.duckdb.render`, Spark's ``Column`` in
:mod:`autovalidate.engines.spark`. A change of how an engine runs a function
goes there, so the printed text, and the histories found by it, stay.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "AGGREGATE_FUNCTIONS",
    "HLL_HASH_BITS",
    "LONG_IN_LIST",
    "Call",
    "Col",
    "Expr",
    "Lit",
    "Sql",
    "SqlSpecial",
    "and_",
    "anchored_regex",
    "coalesce",
    "col",
    "columns_read",
    "count_non_null",
    "count_star",
    "count_where",
    "covar_pop",
    "distinct_set",
    "epoch_micros",
    "eq",
    "full_match",
    "ge",
    "gt",
    "hll_code",
    "java_datetime_pattern",
    "kurtosis_pop",
    "is_in",
    "is_json",
    "is_not_null",
    "is_null",
    "le",
    "length",
    "literal_params",
    "lit",
    "ln",
    "lt",
    "maximum",
    "mean",
    "minimum",
    "mul",
    "not_",
    "not_true",
    "or_",
    "parses_as_datetime",
    "project_aggregate_inputs",
    "quote_identifier",
    "quantile_grid",
    "quantile_grid_points",
    "quantile_grid_probabilities",
    "quantile_grid_request",
    "read_as_numbers",
    "running_extreme_before",
    "skewness_pop",
    "smallest_values",
    "sql",
    "sql_literal",
    "sql_texts",
    "sub",
    "to_double",
    "to_sql",
    "to_text",
    "total",
    "var_pop",
    "when",
    "where_condition",
    "where_selection",
    "window_sum",
]

Scalar = None | bool | int | float | str


class Expr:
    """Base of the expression tree; every node is a frozen, hashable dataclass."""

    __slots__ = ()


@dataclass(frozen=True)
class Col(Expr):
    """A column of the data, by its exact name (renderers quote it)."""

    name: str


@dataclass(frozen=True)
class Lit(Expr):
    """A constant: ``None`` (null), bool, int, float or str.

    Two constants are equal when their values are equal and of one type:
    ``Lit(1)``, ``Lit(1.0)`` and ``Lit(True)`` are three constants, as their
    SQL text (``1``, ``1.0``, ``TRUE``) and their metrics-repository key
    (:func:`~autovalidate.metrics.codec.analyzer_key`) are three, so equal
    analyzers keep one history.
    """

    value: Scalar

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Lit)
            and type(self.value) is type(other.value)
            and self.value == other.value
        )

    def __hash__(self) -> int:
        return hash((type(self.value).__name__, self.value))


@dataclass(frozen=True)
class Sql(Expr):
    """A user's SQL expression.

    ``dialect`` ``None`` is the engine's own dialect, used verbatim;
    ``"spark"`` is Spark SQL on every engine (a ``where`` filter).
    """

    text: str
    dialect: str | None = None


@dataclass(frozen=True)
class Call(Expr):
    """A function of the neutral vocabulary applied to arguments.

    ``fn`` is one of the names the renderers know; constant parameters (a
    regex, a precision) are passed as :class:`Lit` arguments.
    """

    fn: str
    args: tuple[Expr, ...]

    def __hash__(self) -> int:
        # kept once computed: analyzers are dictionary keys, looked up many times a
        # run, and the tree under an is_in of 1,000,000 values took 0.5 s a hash
        cached: int | None = self.__dict__.get("_hash")
        if cached is None:
            cached = hash((self.fn, self.args))
            self.__dict__["_hash"] = cached
        return cached

    def __getstate__(self) -> dict[str, Any]:
        # without the cached hash: a string's hash differs from process to process
        # (a Spark executor's, a state file's reader's)
        return {"fn": self.fn, "args": self.args}


#: Bits of the value hash that :func:`hll_code` uses (15 hex digits of the MD5).
HLL_HASH_BITS = 60

#: Functions that aggregate over rows (the others are row-wise scalars).
AGGREGATE_FUNCTIONS = frozenset(
    {
        "count_star",
        "count",
        "sum",
        "min",
        "max",
        "avg",
        "var_pop",
        "covar_pop",
        "distinct_set",
        "smallest_values",
        "quantile_grid",
        "skewness_pop",
        "kurtosis_pop",
    }
)


def project_aggregate_inputs(exprs: Sequence[Expr]) -> tuple[dict[str, Expr], list[Expr]]:
    """Pull the row-level arguments of aggregates out into named columns.

    Returns the distinct arguments as ``{name: expression}`` (to compute in a
    projection below the aggregation) and the aggregates rewritten to read
    those columns. An argument several aggregates share (the filtered values
    of a column, say) is computed once per row, and Spark compiles the
    projection even when an aggregate of the query (``collect_set``,
    ``percentile_approx``) cannot be compiled.
    """
    names: dict[Expr, str] = {}

    def column_for(arg: Expr) -> Expr:
        if isinstance(arg, (Col, Lit)):
            return arg
        if arg not in names:
            names[arg] = f"__av_in{len(names)}"
        return Col(names[arg])

    rewritten = [
        Call(e.fn, tuple(column_for(a) for a in e.args))
        if isinstance(e, Call) and e.fn in AGGREGATE_FUNCTIONS
        else e
        for e in exprs
    ]
    return {name: arg for arg, name in names.items()}, rewritten


def col(name: str) -> Col:
    """Column ``name``."""
    return Col(name)


def lit(value: Scalar) -> Lit:
    """Constant ``value``."""
    return Lit(value)


def sql(text: str) -> Sql:
    """User SQL ``text`` in the engine's dialect."""
    return Sql(text)


def _call(fn: str, *args: Expr) -> Call:
    return Call(fn, tuple(args))


# -- aggregates -------------------------------------------------------------


def count_star() -> Call:
    """Count rows (``count(*)``); 0 on no rows."""
    return _call("count_star")


def count_non_null(x: Expr) -> Call:
    """Count rows where ``x`` is not null; 0 on no rows."""
    return _call("count", x)


def count_where(condition: Expr | None) -> Call:
    """Count rows where ``condition`` is true (all rows when ``None``); 0 on no rows."""
    if condition is None:
        return count_star()
    return count_non_null(when(condition, lit(1)))


def total(x: Expr) -> Call:
    """Sum of the non-null values of ``x``; null when there are none."""
    return _call("sum", x)


def minimum(x: Expr) -> Call:
    """Smallest non-null value of ``x``; null when there are none."""
    return _call("min", x)


def maximum(x: Expr) -> Call:
    """Largest non-null value of ``x``; null when there are none."""
    return _call("max", x)


def mean(x: Expr) -> Call:
    """Mean of the non-null values of ``x``; null when there are none."""
    return _call("avg", x)


def var_pop(x: Expr) -> Call:
    """Compute the population variance of the non-null values of ``x`` (stable in both engines)."""
    return _call("var_pop", x)


def covar_pop(x: Expr, y: Expr) -> Call:
    """Compute the population covariance over the rows where ``x`` and ``y`` are not null."""
    return _call("covar_pop", x, y)


def skewness_pop(x: Expr) -> Call:
    """Population skewness ``m3 / m2^1.5`` of the non-null values of ``x``.

    Null with fewer than three values or none that differ (DuckDB) or with
    none that differ (Spark). Spark ``skewness``; DuckDB's sample ``skewness``
    times ``(n - 2) / sqrt(n (n - 1))``.
    """
    return _call("skewness_pop", x)


def kurtosis_pop(x: Expr) -> Call:
    """Population excess kurtosis ``m4 / m2^2 - 3`` of the non-null values of ``x``.

    Null with none that differ. Spark ``kurtosis``, DuckDB ``kurtosis_pop``.
    """
    return _call("kurtosis_pop", x)


def distinct_set(x: Expr, below: int | None = None) -> Call:
    """Return the set of distinct non-null values of ``x``, as a list in no particular order.

    With ``below``, the values of ``x`` are integers in ``[0, below)`` (codes
    such as :func:`hll_code`), which an engine may collect as a bitmap of
    ``below`` bits instead of a hash set.
    """
    if below is None:
        return _call("distinct_set", x)
    return _call("distinct_set", x, lit(below))


def smallest_values(x: Expr, limit: int) -> Call:
    """Return up to ``limit`` smallest non-null values of ``x``, ascending, as a list.

    Equal values are kept (``['a', 'a', 'b']``). The state is bounded by
    ``limit``, so a shared scan can carry it whatever the data:
    ``min_by(x, x, limit)`` in both engines. An empty list, or null, when
    ``x`` has no values.

    Raises
    ------
    ValueError
        If ``limit`` is not a positive integer.
    """
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"limit must be a positive integer, not {limit!r}")
    return _call("smallest_values", x, Lit(limit))


def quantile_grid(
    x: Expr, grid_size: int, accuracy: int, points: Sequence[int] | None = None
) -> Call:
    """Lower quantiles of ``x`` at the probabilities ``i / grid_size``, ``i = 0..grid_size``.

    The quantile at probability p is the value at 1-based rank ``max(1, ceil(p * n))``
    of the ``n`` non-null values. DuckDB computes it exactly (``quantile_disc``);
    Spark with ``percentile_approx(x, grid, accuracy)``, whose rank error is at
    most ``1 / accuracy``. ``points`` (ascending grid indices ``i``) asks for
    those quantiles only, a list of ``len(points)`` values: on DuckDB 2.0 the
    101 quantiles of the default grid cost 5x one quantile
    (``benchmarks/results/quantile_grid.md``). Null when there are no values.

    Raises
    ------
    ValueError
        If ``points`` is empty, not ascending, or outside ``0..grid_size``.
    """
    if points is None:
        return _call("quantile_grid", x, lit(grid_size), lit(accuracy))
    indices = [int(i) for i in points]
    ascending = indices == sorted(set(indices))
    if not indices or not ascending or not 0 <= indices[0] <= indices[-1] <= grid_size:
        raise ValueError(f"grid points must ascend within 0..{grid_size}, not {points!r}")
    return _call("quantile_grid", x, lit(grid_size), lit(accuracy), *map(lit, indices))


def quantile_grid_request(call: Call) -> tuple[list[float], int]:
    """The probabilities a :func:`quantile_grid` call asks the engine for, and its accuracy."""
    grid_size, accuracy = literal_params(call.args[1:3])
    probabilities = quantile_grid_probabilities(grid_size)
    return [probabilities[i] for i in quantile_grid_points(call)], accuracy


def quantile_grid_points(call: Call) -> list[int]:
    """The grid indices whose quantiles a :func:`quantile_grid` call returns, in order."""
    grid_size, _accuracy, *points = literal_params(call.args[1:])
    return points or list(range(grid_size + 1))


def quantile_grid_probabilities(grid_size: int) -> list[float]:
    """Return the probabilities of the whole grid of a :func:`quantile_grid`.

    ``i / grid_size`` lowered by 1e-12 (and clipped at 0): both engines find the
    lower quantile at ``p`` at rank ``ceil(p * n)`` in floating point, where
    ``0.07 * 100`` is ``7.000000000000001``; the nudge keeps the rank at the
    exact ``ceil(i * n / grid_size)`` for every ``n`` below 10**10.
    """
    return [max(0.0, i / grid_size - 1e-12) for i in range(grid_size + 1)]


def running_extreme_before(x: Expr, order_by: Expr, *, largest: bool) -> Call:
    """The largest (or smallest) non-null ``x`` of the rows before this one in ``order_by``.

    A window over the whole data sorted by ``order_by`` (``max(x) OVER (ORDER
    BY order_by ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)``): null on
    the first row and while all earlier values are null. Rows tied in
    ``order_by`` come in the engine's order.
    """
    return _call("running_max_before" if largest else "running_min_before", x, order_by)


def window_sum(x: Expr, partition_by: Sequence[Expr]) -> Call:
    """Sum of ``x`` over the rows that share the values of ``partition_by`` (a window).

    With no ``partition_by`` the window is the whole table: every row gets the total.
    """
    return _call("window_sum", x, *partition_by)


# -- row-wise scalars -------------------------------------------------------


def is_null(x: Expr) -> Call:
    """Test whether ``x`` is null."""
    return _call("is_null", x)


def is_not_null(x: Expr) -> Call:
    """Test whether ``x`` is not null."""
    return _call("is_not_null", x)


def and_(*xs: Expr) -> Expr:
    """Conjunction (SQL ``AND``) of one or more conditions."""
    return xs[0] if len(xs) == 1 else _call("and", *xs)


def or_(*xs: Expr) -> Expr:
    """Disjunction (SQL ``OR``) of one or more conditions."""
    return xs[0] if len(xs) == 1 else _call("or", *xs)


def not_(x: Expr) -> Call:
    """Negation (SQL ``NOT``)."""
    return _call("not", x)


def when(condition: Expr, then: Expr, otherwise: Expr | None = None) -> Call:
    """``CASE WHEN condition THEN then ELSE otherwise END`` (null otherwise by default)."""
    return _call("when", condition, then, otherwise if otherwise is not None else lit(None))


def where_selection(x: Expr, where: Expr | None) -> Expr:
    """``x`` where the filter holds, null elsewhere; ``x`` itself without a filter.

    This is Deequ's ``conditionalSelection``: aggregates over the result only see
    the rows that pass the filter.
    """
    return x if where is None else when(where, x)


def where_condition(condition: Expr, where: Expr | None) -> Expr:
    """``condition`` on the rows a filter keeps (``where AND condition``); else ``condition``."""
    return condition if where is None else and_(where, condition)


def not_true(x: Expr) -> Call:
    """True where the condition ``x`` is false or null (SQL ``x IS NOT TRUE``), never null."""
    return not_(coalesce(x, lit(False)))


def coalesce(*xs: Expr) -> Call:
    """Return the first non-null argument."""
    return _call("coalesce", *xs)


def eq(x: Expr, y: Expr) -> Call:
    """``x = y``."""
    return _call("eq", x, y)


def lt(x: Expr, y: Expr) -> Call:
    """``x < y``."""
    return _call("lt", x, y)


def le(x: Expr, y: Expr) -> Call:
    """``x <= y``."""
    return _call("le", x, y)


def gt(x: Expr, y: Expr) -> Call:
    """``x > y``."""
    return _call("gt", x, y)


def ge(x: Expr, y: Expr) -> Call:
    """``x >= y``."""
    return _call("ge", x, y)


def mul(x: Expr, y: Expr) -> Call:
    """``x * y``."""
    return _call("mul", x, y)


def sub(x: Expr, y: Expr) -> Call:
    """``x - y``."""
    return _call("sub", x, y)


def ln(x: Expr) -> Call:
    """Natural logarithm."""
    return _call("ln", x)


def epoch_micros(x: Expr) -> Call:
    """Microseconds since the Unix epoch of ``x`` read as a timestamp; null where it is none.

    A try cast to a timestamp with time zone: a value without a zone (a date,
    a naive timestamp, text) is read in the session's time zone. DuckDB
    ``epoch_us(TRY_CAST(x AS TIMESTAMPTZ))``, Spark
    ``unix_micros(try_cast(x as timestamp))``.
    """
    return _call("epoch_micros", x)


def to_double(x: Expr) -> Call:
    """``x`` as a 64-bit float; null where it is not a number (a try cast)."""
    return _call("to_double", x)


def to_text(x: Expr) -> Call:
    """``x`` rendered as text by the engine (see the module notes)."""
    return _call("to_text", x)


def length(x: Expr) -> Call:
    """Count the Unicode code points of the text ``x``."""
    return _call("length", x)


def full_match(x: Expr, regex: str) -> Call:
    """Test whether the text ``x`` fully matches ``regex``; null where ``x`` is null."""
    return _call("full_match", x, lit(regex))


def anchored_regex(regex: str) -> str:
    r"""``regex`` as a pattern that a search (Spark's ``rlike``) can only match whole.

    ``\A(?:regex)\z``, unless ``regex`` is one group anchored so already, as
    every rendered pattern constraint is (``\A(?:...)\z``): wrapping that again
    changes no match but cost Java's regex 7% of a 10M-row validation. The
    check is conservative: what it cannot read for sure (a bracket expression
    opening with ``]`` or nesting ``[``, ``\\Q`` quoting, the ``x`` flag's
    comments) gets the wrap.
    """
    if _is_anchored_group(regex):
        return regex
    return r"\A(?:" + regex + r")\z"


_VERBOSE_FLAG = re.compile(r"\(\?[a-zA-Z-]*x")


def _is_anchored_group(regex: str) -> bool:
    r"""Whether ``regex`` is ``\A(?:body)\z`` with the group closing at the end."""
    if not (regex.startswith("\\A(?:") and regex.endswith(")\\z")):
        return False
    if "\\Q" in regex or _VERBOSE_FLAG.search(regex):  # quoted text, comments: not read
        return False
    last = len(regex) - 3  # the ``)`` before ``\z``
    depth, i, in_class = 0, 5, False
    while i < last:
        ch = regex[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            if ch == "[":
                return False
            in_class = ch != "]"
        elif ch == "[":
            rest = regex[i + 1 : i + 3]
            if rest.startswith("]") or rest == "^]":
                return False
            in_class = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return False
        i += 1
    return i == last and depth == 0 and not in_class


def is_json(x: Expr) -> Call:
    """Test whether the text ``x`` is one JSON value (RFC 8259: an object, array or scalar).

    DuckDB ``json_valid``, Spark ``try_parse_json(x) IS NOT NULL``; null where
    ``x`` is null on DuckDB, false on Spark (test nulls apart).
    """
    return _call("is_json", x)


#: strptime directives -> Java ``DateTimeFormatter`` letters (Spark's datetime patterns).
#: Numbers take one letter, so that parsing accepts them with or without zero padding,
#: as DuckDB's ``strptime`` does.
_JAVA_DATETIME = {
    "Y": "yyyy",
    "y": "yy",
    "m": "M",
    "d": "d",
    "H": "H",
    "I": "h",
    "M": "m",
    "S": "s",
    "f": "SSSSSS",
    "j": "D",
    "b": "MMM",
    "B": "MMMM",
    "a": "EEE",
    "A": "EEEE",
    "p": "a",
    "z": "Z",
}


def java_datetime_pattern(strptime_format: str) -> str:
    """The Spark (Java ``DateTimeFormatter``) pattern of a strptime format.

    Directives map as :data:`_JAVA_DATETIME` lists; every other text is
    quoted as a literal (``%Y-%m-%d`` -> ``yyyy'-'M'-'d``), ``%%`` is a ``%``.

    Raises
    ------
    ParameterError
        For a directive outside that list (``%U``, ``%c``...) or a lone ``%`` at the end.
    """
    from autovalidate.errors import ParameterError

    out: list[str] = []
    literal: list[str] = []

    def flush() -> None:
        if literal:
            out.append("'" + "".join(literal).replace("'", "''") + "'")
            literal.clear()

    i = 0
    while i < len(strptime_format):
        ch = strptime_format[i]
        if ch != "%":
            literal.append(ch)
            i += 1
            continue
        directive = strptime_format[i + 1 : i + 2]
        if directive == "%":
            literal.append("%")
        elif directive in _JAVA_DATETIME:
            flush()
            out.append(_JAVA_DATETIME[directive])
        else:
            raise ParameterError(
                f"strptime directive %{directive} in {strptime_format!r} is not supported; "
                f"use %% or one of {', '.join('%' + d for d in _JAVA_DATETIME)}"
            )
        i += 2
    flush()
    return "".join(out)


def parses_as_datetime(x: Expr, strptime_format: str) -> Call:
    """Test whether the text ``x`` parses as a date/time in ``strptime_format``; false for null.

    DuckDB ``try_strptime(x, format) IS NOT NULL``; Spark
    ``try_to_timestamp(x, pattern) IS NOT NULL`` with the pattern of
    :func:`java_datetime_pattern`. The whole text must parse, and the date
    must exist (no February 30).

    Raises
    ------
    ParameterError
        If the format has a directive :func:`java_datetime_pattern` cannot map.
    """
    java_datetime_pattern(strptime_format)
    return _call("parses_as_datetime", x, lit(strptime_format))


#: Above this many constants an ``is_in`` is long: the engines pass its constants
#: to the database as one text (DuckDB: a JSON list, Spark: SQL text) instead of
#: one literal each, which costs 4-6 s per 100,000 on DuckDB (binding) and 45 s
#: on Spark (a py4j call each); see ``benchmarks/contained_in.py``.
LONG_IN_LIST = 100


def is_in(x: Expr, values: Iterable[Scalar]) -> Call:
    """``x IN (values)``."""
    return _call("is_in", x, *(lit(v) for v in values))


def hll_code(x: Expr, precision: int) -> Call:
    """HyperLogLog register code of ``x``: ``register * 64 + rho``, null where ``x`` is null.

    Both engines compute it with the same arithmetic, so the resulting sketches
    are identical: the hash is the first 60 bits (15 hex digits) of the MD5 of
    the value's text (:func:`to_text`); its top ``precision`` bits pick the
    register, and rho is the 1-based position of the first one bit in the
    remaining ``60 - precision`` bits (``61 - precision`` when they are all zero).
    Renderers compute rho as ``62 - precision - length(bin(2 * rest + 1))``:
    ``bin`` of ``2 * rest + 1`` has one digit more than the bit length of ``rest``,
    even for ``rest == 0``.
    """
    return _call("hll_code", x, lit(precision))


def quote_identifier(name: str) -> str:
    """Quote a column or table name for DuckDB and Spark SQL (double quotes doubled).

    Parameters
    ----------
    name
        Any identifier, possibly with spaces, quotes or unicode.

    Returns
    -------
    str
        ``"name"`` with embedded double quotes doubled.
    """
    return '"' + name.replace('"', '""') + '"'


def sql_literal(value: Scalar) -> str:
    """SQL text of a constant (``NULL``, ``TRUE``, ``1``, ``'it''s'``; NaN and inf cast)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return f"CAST('{value}' AS DOUBLE)"
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


def sql_texts(expr: Expr) -> Iterator[str]:
    """The texts of the user SQL (:class:`Sql`) in an expression tree, depth first."""
    if isinstance(expr, Sql):
        yield expr.text
    elif isinstance(expr, Call):
        for a in expr.args:
            yield from sql_texts(a)


def columns_read(exprs: Iterable[Expr]) -> set[str] | None:
    """The names of the columns (:class:`Col`) the expressions read.

    Returns
    -------
    set of str or None
        ``None`` when an expression holds user SQL (:class:`Sql`), which may
        read any column.
    """
    names: set[str] = set()
    pending = list(exprs)
    while pending:
        expr = pending.pop()
        if isinstance(expr, Sql):
            return None
        if isinstance(expr, Col):
            names.add(expr.name)
        elif isinstance(expr, Call):
            pending.extend(expr.args)
    return names


def literal_params(args: Sequence[Expr]) -> list[Any]:
    """The values of a call's constant parameters (all :class:`Lit`)."""
    values = []
    for a in args:
        assert isinstance(a, Lit), "constant parameter expected"
        values.append(a.value)
    return values


_SQL: dict[str, Callable[[list[str]], str]] = {
    "count_star": lambda a: "count(*)",
    "count": lambda a: f"count({a[0]})",
    "sum": lambda a: f"sum({a[0]})",
    "min": lambda a: f"min({a[0]})",
    "max": lambda a: f"max({a[0]})",
    "avg": lambda a: f"avg({a[0]})",
    "var_pop": lambda a: f"var_pop({a[0]})",
    "covar_pop": lambda a: f"covar_pop({a[0]}, {a[1]})",
    "kurtosis_pop": lambda a: f"kurtosis_pop({a[0]})",
    "skewness_pop": lambda a: (
        f"(skewness({a[0]}) * (count({a[0]}) - 2) / sqrt(count({a[0]}) * (count({a[0]}) - 1)))"
    ),
    "distinct_set": lambda a: f"list(DISTINCT {a[0]})",
    "smallest_values": lambda a: f"min_by({a[0]}, {a[0]}, {a[1]})",
    "is_null": lambda a: f"({a[0]} IS NULL)",
    "is_not_null": lambda a: f"({a[0]} IS NOT NULL)",
    "and": lambda a: "(" + " AND ".join(a) + ")",
    "or": lambda a: "(" + " OR ".join(a) + ")",
    "not": lambda a: f"(NOT {a[0]})",
    "when": lambda a: f"(CASE WHEN {a[0]} THEN {a[1]} ELSE {a[2]} END)",
    "coalesce": lambda a: f"coalesce({', '.join(a)})",
    "eq": lambda a: f"({a[0]} = {a[1]})",
    "lt": lambda a: f"({a[0]} < {a[1]})",
    "le": lambda a: f"({a[0]} <= {a[1]})",
    "gt": lambda a: f"({a[0]} > {a[1]})",
    "ge": lambda a: f"({a[0]} >= {a[1]})",
    "mul": lambda a: f"({a[0]} * {a[1]})",
    "sub": lambda a: f"({a[0]} - {a[1]})",
    "ln": lambda a: f"ln({a[0]})",
    "to_double": lambda a: f"TRY_CAST({a[0]} AS DOUBLE)",
    "to_text": lambda a: f"CAST({a[0]} AS VARCHAR)",
    "length": lambda a: f"length({a[0]})",
    "is_in": lambda a: f"({a[0]} IN ({', '.join(a[1:])}))" if len(a) > 1 else "FALSE",
    "is_json": lambda a: f"json_valid({a[0]})",
    "parses_as_datetime": lambda a: f"(try_strptime({a[0]}, {a[1]}) IS NOT NULL)",
    "window_sum": lambda a: (
        f"sum({a[0]}) OVER (PARTITION BY {', '.join(a[1:])})" if a[1:] else f"sum({a[0]}) OVER ()"
    ),
}

#: An engine's rendering of the calls the shared SQL text leaves to it: gets the
#: call and the renderer for its arguments, returns ``None`` to decline.
SqlSpecial = Callable[[Call, Callable[[Expr], str]], "str | None"]


def to_sql(expr: Expr, special: SqlSpecial | None = None) -> str:
    """SQL text of an expression, in the dialect DuckDB and Spark SQL share.

    This is also the text analyzers print (``str(analyzer)``). Metrics
    repositories key histories by :func:`~autovalidate.metrics.codec.analyzer_key`,
    not by this text, so a change here starts no new history; but rows saved
    before that key existed are found by this text only.

    Parameters
    ----------
    expr
        Any expression tree.
    special
        An engine's rendering of calls with no shared SQL spelling
        (``quantile_grid``, ``hll_code``); tried first for every call.

    Raises
    ------
    ValueError
        For a call neither the shared vocabulary nor ``special`` renders.
    """

    def render(e: Expr) -> str:
        return to_sql(e, special)

    if isinstance(expr, Col):
        return quote_identifier(expr.name)
    if isinstance(expr, Lit):
        return sql_literal(expr.value)
    if isinstance(expr, Sql):
        return f"({expr.text})"
    if isinstance(expr, Call):
        if special is not None:
            text = special(expr, render)
            if text is not None:
                return text
        if expr.fn == "full_match":
            (pattern,) = literal_params(expr.args[1:])
            return f"regexp_full_match({render(expr.args[0])}, {sql_literal(pattern)})"
        if expr.fn in _SQL:
            return _SQL[expr.fn]([render(a) for a in expr.args])
    raise ValueError(f"no SQL rendering for {expr!r}")


#: The comparisons whose column side is read as a number on data read as text.
_COMPARISONS = frozenset({"eq", "lt", "le", "gt", "ge"})


def _is_number(expr: Expr) -> bool:
    """A numeric literal (not a boolean)."""
    return (
        isinstance(expr, Lit)
        and isinstance(expr.value, (int, float))
        and not isinstance(expr.value, bool)
    )


def _number_side(node: Call) -> list[str]:
    """The columns a comparison ``node`` compares with a number literal."""
    if node.fn not in _COMPARISONS or len(node.args) != 2:
        return []
    left, right = node.args
    return [
        column.name
        for column, other in ((left, right), (right, left))
        if isinstance(column, Col) and _is_number(other)
    ]


def compared_with_numbers(expr: Expr) -> tuple[str, ...]:
    """The columns ``expr`` compares with a number literal (``x >= 0``), in order of appearance.

    On data read as text (CSV) these are the columns to read as numbers:
    DuckDB refuses to compare text with a number.
    """
    found: dict[str, None] = {}

    def visit(node: Expr) -> None:
        if isinstance(node, Call):
            found.update(dict.fromkeys(_number_side(node)))
            for arg in node.args:
                visit(arg)

    visit(expr)
    return tuple(found)


def numbers_compared_as_numbers(expr: Expr, columns: Iterable[str] | None = None) -> Expr:
    """``expr`` comparing as numbers (:func:`to_double`) the columns it compares with numbers.

    Only the comparisons change (``x >= 0`` becomes ``to_double(x) >= 0``);
    every other use of the column reads its text, ``x IS NULL`` included.
    This is how Deequ's predicates behave on a Spark string column: Spark
    casts the text for the comparison (outside ANSI mode, the default up to
    Spark 3.5), a text that is not a number makes the comparison null, and a
    null predicate does not comply. So on a CSV column ``is_in_range``
    passes an empty cell (null) and fails ``N/A`` or ``12 oz`` (text that is
    no number), where reading the whole column as numbers would have passed
    them both as nulls.

    Parameters
    ----------
    expr
        A row-level condition.
    columns
        The columns to compare as numbers (``None``: all of
        :func:`compared_with_numbers`); others are left as they are.
    """
    numeric = set(compared_with_numbers(expr))
    if columns is not None:
        numeric &= set(columns)

    def cast(node: Expr) -> Expr:
        if not isinstance(node, Call):
            return node
        if node.fn in _COMPARISONS and len(node.args) == 2:
            left, right = node.args
            if isinstance(left, Col) and left.name in numeric and _is_number(right):
                return Call(node.fn, (to_double(left), right))
            if isinstance(right, Col) and right.name in numeric and _is_number(left):
                return Call(node.fn, (left, to_double(right)))
        return Call(node.fn, tuple(cast(a) for a in node.args))

    return cast(expr) if numeric else expr


def read_as_numbers(expr: Expr, columns: Iterable[str]) -> Expr:
    """``expr`` reading every occurrence of ``columns`` as numbers (:func:`to_double`).

    What an engine's numeric view of those columns gives
    (:meth:`autovalidate.engines.Engine.numeric_view`), inside the expression:
    a text that is not a number is null everywhere the column is read. The
    expression must hold no user SQL (:class:`Sql`), which the rewrite
    cannot see into.
    """
    numeric = set(columns)

    def cast(node: Expr) -> Expr:
        if isinstance(node, Col) and node.name in numeric:
            return to_double(node)
        if isinstance(node, Call):
            return Call(node.fn, tuple(cast(a) for a in node.args))
        return node

    return cast(expr) if numeric else expr
