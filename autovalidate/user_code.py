r"""What user code a suite may hand an engine: SQL expressions over the table, linear regexes.

A suite file travels like code (a shared repository, a pull request, a CI
job), so the SQL and the regexes in it are untrusted input. Two checks run
before any of it reaches DuckDB or Spark:

* :func:`check_sql_expression`: the SQL of a ``satisfies`` predicate or a
  ``where`` filter must be one expression over the row's columns. It is parsed
  with `sqlglot <https://sqlglot.com>`_ in the engine's dialect and refused if
  it is not exactly one expression, or holds a query (a subquery, ``EXISTS``,
  ``IN (SELECT ...)``), a table or table function (``read_text``,
  ``read_csv``...), a parameter placeholder, or a function that reaches out of
  the row: files, the environment or settings (``getenv``,
  ``current_setting``) and Java reflection (Spark's ``reflect``,
  ``java_method``), or a function that builds a value of a size the suite
  chooses (``repeat``, ``space``, ``range``, ``printf``...; ``lpad``/``rpad``
  only up to a literal length of :data:`MAX_PAD`): DuckDB's memory limit
  bounds its operators, not the values an expression makes, and
  ``repeat(name, 100000000)`` took 19 GB in a minute. DuckDB also runs a
  suite's SQL on a connection whose external access is off and whose
  configuration is locked
  (:class:`~autovalidate.engines.duckdb.DuckDBEngine`, ``sandbox=True``); Spark
  has no such switch, so the parse is the guard there.
* :func:`check_user_regex`: a Deequ ``has_pattern`` regex must be in the RE2
  subset (it compiles in `RE2 <https://github.com/google/re2>`_: no
  backreferences, look-arounds, atomic groups, possessive quantifiers,
  conditionals or recursion), and, since Spark runs it with
  ``java.util.regex``, which backtracks, no repeated group may hold a
  variable-length repetition or an alternation (``(a+)+``, ``(a|aa)*``,
  ``(.*x){20}``): the shapes on which a backtracking matcher takes
  exponential or high-polynomial time. What is left matches in time linear in
  the value on RE2 and without nested backtracking on Java.

* :func:`check_sql_query`: a custom SQL metric (``has_custom_sql``) must be
  one ``SELECT`` in Spark SQL whose only table is ``data`` (the data
  checked), with no table function, parameter or function that reaches out of
  the row, as above.

Both SQL checks also refuse a text longer than :data:`MAX_SQL_TEXT` characters
before parsing it (parsing and planning grow with it) and one nested past what
the parser reads (:data:`NESTED_TOO_DEEPLY`). All raise
:class:`~autovalidate.errors.UnsafeInputError`, one line naming what was
refused and why, the text quoted in its first :data:`MAX_QUOTED_SQL` characters.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from autovalidate.portable_regex import re2_error
from autovalidate.wording import shortened

__all__ = [
    "CUSTOM_SQL_TABLE",
    "MAX_PAD",
    "check_sql_expression",
    "check_sql_query",
    "check_user_regex",
    "custom_sql_on",
]

#: The name a custom SQL query (:func:`check_sql_query`) reads the data by.
CUSTOM_SQL_TABLE = "data"

#: sqlglot's name of each engine's SQL dialect.
DIALECTS = {"duckdb": "duckdb", "spark": "spark"}

#: Functions that reach out of the row (files, the environment, settings, the JVM),
#: by name; and name prefixes of families of them (DuckDB's table functions and readers).
_DENIED_FUNCTIONS = frozenset(
    {
        "current_setting",
        "getenv",
        "glob",
        "java_method",
        "query",
        "query_table",
        "reflect",
        "try_reflect",
        "load_extension",
        "which_secret",
    }
)
_DENIED_PREFIXES = ("read_", "parquet_", "duckdb_", "pragma_", "sniff_", "http", "iceberg_")
#: Functions that build a value whose size an argument chooses, n characters or n
#: elements (sqlglot's names: DuckDB's ``range`` and Spark's ``sequence`` are
#: ``generate_series``; a ``printf``/``format`` width, a ``bar`` width).
_AMPLIFIERS = frozenset(
    {
        "array_repeat",
        "array_resize",
        "bar",
        "format",
        "generate_series",
        "list_resize",
        "printf",
        "range",
        "repeat",
        "space",
    }
)
#: Longest ``lpad``/``rpad`` a suite may ask for: its length argument, a literal.
MAX_PAD = 10_000


def _function_name(node: object) -> str | None:
    from sqlglot import exp

    if isinstance(node, exp.Anonymous):
        return str(node.name).lower()
    if isinstance(node, exp.Func):
        return str(node.sql_name()).lower()
    return None


def _refusal(node: object) -> str | None:
    """Why ``node`` may not be part of a row expression, or ``None``."""
    from sqlglot import exp

    if isinstance(node, (exp.Query, exp.Subquery, exp.Exists)):
        return "a query (a subquery, EXISTS or IN (SELECT ...))"
    if isinstance(node, (exp.Table, exp.From, exp.Join, exp.Lateral)):
        return "a table or table function"
    if isinstance(node, (exp.Placeholder, exp.Parameter)):
        return "a parameter placeholder"
    return _function_refusal(node)


def _function_refusal(node: object) -> str | None:
    """Why the function call ``node`` may not run on a suite's behalf, or ``None``."""
    from sqlglot import exp

    name = _function_name(node)
    if name is None:
        return None
    if name in _DENIED_FUNCTIONS or name.startswith(_DENIED_PREFIXES):
        return f"function {name}() (it reaches outside the row: files, settings, the JVM)"
    if name in _AMPLIFIERS:
        return f"function {name}() (it builds a value of a size the suite chooses)"
    if isinstance(node, exp.Pad):
        width = node.args.get("expression")
        if not (
            isinstance(width, exp.Literal)
            and not width.is_string
            and width.this.isdigit()
            and int(width.this) <= MAX_PAD
        ):
            pad = "lpad" if node.args.get("is_left") else "rpad"
            return f"function {pad}() with a length that is not a literal of at most {MAX_PAD:,}"
    return None


#: Why SQL nested past what the parser reads is refused: sqlglot recurses for each
#: level, and Python's stack ends at about 40 levels of parentheses or 90 NOTs.
NESTED_TOO_DEEPLY = "nested too deeply to read"
#: Characters of a refused SQL text its message quotes (the reason comes after it).
MAX_QUOTED_SQL = 200
#: Longest SQL text a suite may hold for one predicate, filter or query: parsing and
#: planning grow with it (a filter of 100,000 ORs, 1.4 MB, took 52 s and 2.1 GB);
#: a long list of values is ``is_contained_in``'s, a large set a reference table's.
MAX_SQL_TEXT = 100_000


def _too_long(text: str) -> str | None:
    if len(text) <= MAX_SQL_TEXT:
        return None
    return f"{len(text):,} characters, more than {MAX_SQL_TEXT:,}"


@functools.lru_cache(maxsize=1024)
def _sql_refusal(text: str, dialect: str) -> str | None:
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    try:
        parsed = [p for p in sqlglot.parse(text, read=dialect) if p is not None]
    except SqlglotError as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return f"not an SQL expression ({first})"
    except RecursionError:  # sqlglot's parser recurses once per level of nesting
        return NESTED_TOO_DEEPLY
    if len(parsed) != 1:
        return f"{len(parsed)} statements; one expression expected"
    (root,) = parsed
    if not isinstance(root, exp.Condition):
        return f"a {type(root).__name__.upper()} statement; one expression expected"
    for node in root.walk():
        why = _refusal(node)
        if why is not None:
            return why
    return None


def check_sql_expression(
    text: object, what: str, *, dialects: tuple[str, ...] = ("duckdb",)
) -> None:
    """Refuse SQL that is not one expression over the row's columns.

    Parameters
    ----------
    text
        The SQL text of a ``satisfies`` predicate or a ``where`` filter.
    what
        What it is, for the message (``"constraint 2: where"``).
    dialects
        The engines' dialects to read it in (``"duckdb"``, ``"spark"``): the
        text is refused if it reads in none of them, or if a reading holds
        anything but an expression over columns (see the module notes).

    Raises
    ------
    UnsafeInputError
        With one line naming ``what`` and what was refused.
    """
    from autovalidate.errors import UnsafeInputError

    if not isinstance(text, str):
        raise UnsafeInputError(what, f"SQL must be a string, not {type(text).__name__}")
    why = _too_long(text)
    if why is None:
        refusals = [_sql_refusal(text, DIALECTS[d]) for d in dialects]
        read = [r for r in refusals if r is None or not r.startswith("not an SQL expression")]
        why = next((r for r in read if r is not None), None) if read else refusals[0]
    if why is not None:
        raise UnsafeInputError(
            what,
            f"{shortened(repr(text), MAX_QUOTED_SQL)} refused: {why}; a predicate or "
            "filter is one SQL expression over the table's columns",
        )


@functools.lru_cache(maxsize=256)
def _query_refusal(text: str) -> str | None:
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    try:
        parsed = [p for p in sqlglot.parse(text, read="spark") if p is not None]
    except SqlglotError as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return f"not Spark SQL ({first})"
    except RecursionError:
        return NESTED_TOO_DEEPLY
    if len(parsed) != 1 or not isinstance(parsed[0], exp.Select):
        return "not one SELECT statement"
    ctes = {c.alias_or_name.lower() for c in parsed[0].find_all(exp.CTE)}
    for node in parsed[0].walk():
        if isinstance(node, exp.Table):
            table = node.name.lower()
            if (
                node.args.get("db")
                or node.args.get("catalog")
                or not isinstance(node.this, exp.Identifier)
            ):
                return f"table {node.sql(dialect='spark')} (only {CUSTOM_SQL_TABLE} may be read)"
            if table != CUSTOM_SQL_TABLE and table not in ctes:
                return f"table {table} (only {CUSTOM_SQL_TABLE} may be read)"
            continue
        if isinstance(node, (exp.Placeholder, exp.Parameter)):
            return "a parameter placeholder"
        why = _function_refusal(node)
        if why is not None:
            return why
    return None


def check_sql_query(text: object, what: str) -> None:
    """Refuse a custom SQL query that reads anything but the data.

    Parameters
    ----------
    text
        One Spark SQL ``SELECT`` reading the data as table ``data``.
    what
        What it is, for the message.

    Raises
    ------
    UnsafeInputError
        If it is not one ``SELECT``, reads another table (a CTE of its own
        is fine), a table function or a path, or calls a function that
        reaches outside the data.
    """
    from autovalidate.errors import UnsafeInputError

    if not isinstance(text, str):
        raise UnsafeInputError(what, f"SQL must be a string, not {type(text).__name__}")
    why = _too_long(text) or _query_refusal(text)
    if why is not None:
        raise UnsafeInputError(what, f"{shortened(repr(text), MAX_QUOTED_SQL)} refused: {why}")


def custom_sql_on(text: str, table: str, dialect: str) -> str:
    """A checked custom SQL query reading ``table`` for ``data``, in an engine's dialect.

    Parameters
    ----------
    text
        The Spark SQL query (see :func:`check_sql_query`).
    table
        The name the engine has the data under.
    dialect
        ``"duckdb"`` or ``"spark"`` (sqlglot's translation for DuckDB).

    Raises
    ------
    UnsafeInputError
        As :func:`check_sql_query`.
    """
    import sqlglot
    from sqlglot import exp

    check_sql_query(text, "custom SQL")
    ctes = {
        c.alias_or_name.lower() for c in sqlglot.parse_one(text, read="spark").find_all(exp.CTE)
    }

    def rename(node: exp.Expression) -> Any:
        if isinstance(node, exp.Table) and node.name.lower() not in ctes:
            renamed = exp.to_table(table)
            return renamed.as_(node.alias) if node.alias else renamed
        return node

    return str(
        sqlglot.parse_one(text, read="spark").transform(rename).sql(dialect=DIALECTS[dialect])
    )


def _skip_escape(regex: str, i: int) -> int:
    r"""The index after the escape at ``regex[i] == "\\"`` (``\Q...\E``, ``\p{..}``, ``\x{..}``)."""
    nxt = regex[i + 1 : i + 2]
    if nxt == "Q":
        end = regex.find("\\E", i + 2)
        return len(regex) if end < 0 else end + 2
    if nxt in ("p", "P", "x") and regex[i + 2 : i + 3] == "{":
        end = regex.find("}", i + 3)
        return len(regex) if end < 0 else end + 1
    return i + 2


def _skip_class(regex: str, i: int) -> int:
    """The index after the bracket expression opening at ``regex[i] == "["``."""
    j = i + 1
    if regex[j : j + 1] == "^":
        j += 1
    if regex[j : j + 1] == "]":
        j += 1
    while j < len(regex):
        if regex[j] == "\\":
            j = _skip_escape(regex, j)
        elif regex.startswith("[:", j):
            end = regex.find(":]", j + 2)
            j = len(regex) if end < 0 else end + 2
        elif regex[j] == "]":
            return j + 1
        else:
            j += 1
    return j


def _repetition(regex: str, i: int) -> tuple[int, int | None, int] | None:
    """``(min, max, end)`` of a repetition operator at ``i`` (max ``None``: unbounded)."""
    ch = regex[i : i + 1]
    if ch in ("*", "+", "?"):
        low, high = {"*": (0, None), "+": (1, None), "?": (0, 1)}[ch]
        end = i + 1
    elif ch == "{":
        close = regex.find("}", i)
        body = regex[i + 1 : close] if close > 0 else ""
        low_text, comma, high_text = body.partition(",")
        if not low_text.isdigit() or (high_text and not high_text.isdigit()):
            return None  # a literal brace in RE2
        low = int(low_text)
        high = (int(high_text) if high_text else None) if comma else low
        end = close + 1
    else:
        return None
    if regex[end : end + 1] == "?":  # lazy: the same shape
        end += 1
    return low, high, end


@dataclass
class _Group:
    """An open group of a regex, while scanning it."""

    start: int
    #: holds an alternation or a repetition of variable count
    variable: bool = False
    #: holds a repetition without an upper bound
    unbounded: bool = False


#: A group's head (``(``, ``(?:``, ``(?i:``, ``(?P<name>``), and a flag-only group ``(?i)``.
_GROUP_HEAD = re.compile(r"\((?:\?(?:P?<[^>]*>|[a-zA-Z-]*:))?")
_FLAGS_ONLY = re.compile(r"\(\?[a-zA-Z-]*\)")


def _nested_repetition(regex: str) -> str | None:
    r"""The first repeated group a backtracking matcher can blow up on, as text, or ``None``.

    A group repeated without an upper bound that holds an alternation or a
    repetition of variable count (``(a|aa)+``, ``(a?b?)*``), or a group
    repeated more than once that holds an unbounded repetition (``(a+)+``,
    ``(.*x){20}``). Bounded nestings such as ``([0-9]{1,3}\.){3}`` pass. The
    regex has compiled in RE2 already, so its syntax is sound.
    """
    stack = [_Group(0)]
    closed: _Group | None = None  # the group the last atom was, if it was one
    i = 0
    while i < len(regex):
        rep = _repetition(regex, i)
        if rep is not None:
            low, high, end = rep
            if closed is not None and (
                (high is None and (closed.variable or closed.unbounded))
                or ((high is None or high > 1) and closed.unbounded)
            ):
                return regex[closed.start : end]
            stack[-1].variable |= low != high
            stack[-1].unbounded |= high is None
            closed, i = None, end
            continue
        closed = None
        ch = regex[i]
        if ch == "\\":
            i = _skip_escape(regex, i)
        elif ch == "[":
            i = _skip_class(regex, i)
        elif (flags := _FLAGS_ONLY.match(regex, i)) is not None:
            i = flags.end()
        elif ch == "(":
            head = _GROUP_HEAD.match(regex, i)
            assert head is not None
            stack.append(_Group(i))
            i = head.end()
        elif ch == ")" and len(stack) > 1:
            closed = stack.pop()
            stack[-1].variable |= closed.variable
            stack[-1].unbounded |= closed.unbounded
            i += 1
        else:
            stack[-1].variable |= ch == "|"
            i += 1
    return None


def check_user_regex(regex: object, what: str) -> None:
    """Refuse a user's regex that RE2 cannot run or Java could backtrack on.

    Parameters
    ----------
    regex
        A Deequ ``has_pattern`` regex (full-match semantics).
    what
        What it is, for the message (``"has_pattern('zip')"``).

    Raises
    ------
    UnsafeInputError
        If the regex is not a string, does not compile in RE2 (a
        backreference, a look-around, an atomic group, a possessive
        quantifier...), or nests repetitions as :func:`_nested_repetition` tells.
    """
    from autovalidate.errors import UnsafeInputError

    if not isinstance(regex, str):
        raise UnsafeInputError(what, f"a regex must be a string, not {type(regex).__name__}")
    error = re2_error(regex)
    if error is not None:
        raise UnsafeInputError(
            what,
            f"regex {regex!r} refused: outside the RE2 subset ({error}); backreferences, "
            "look-arounds, atomic groups and possessive quantifiers are not supported",
        )
    nested = _nested_repetition(regex)
    if nested is not None:
        raise UnsafeInputError(
            what,
            f"regex {regex!r} refused: {nested!r} nests repetitions, on which Spark's "
            "backtracking regex can take exponential time (docs/deequ.md); rewrite it "
            "without the nesting",
        )
