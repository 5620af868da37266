"""Local data access through DuckDB: files, pandas, Arrow and Python lists.

One place turns whatever a user hands us into a DuckDB relation, so that the
pattern validation, the Deequ DuckDB engine and the CLI read data the same way:

* CSV/TSV files are read by DuckDB's ``read_csv`` (dialect sniffed, header
  required) with every column as text exactly as written (``007`` stays
  ``007``), as Deequ reads CSV and as pattern inference and validation need;
  numeric metrics of such columns read them cast to numbers (see
  :attr:`autovalidate.engines.Engine.untyped`). An empty cell is a null, and a
  short row is padded with nulls (a row with extra fields adds columns), so a
  ragged file keeps its header. A file whose header is one name is one
  column: it is not cut at a character of its values that the sniffer,
  padding rows, took for the delimiter (a column of ``T1190; T1078`` lists).
* Parquet files (or globs, or directories of them) are read by ``read_parquet``.
* pandas DataFrames, pyarrow Tables/RecordBatches and DuckDB relations are
  used as they are.
"""

from __future__ import annotations

import mmap
import os
import re
import shlex
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import duckdb

from autovalidate.errors import ColumnNotFoundError, DataError, DataSourceError, EmptyColumnError
from autovalidate.metrics.expressions import quote_identifier
from autovalidate.wording import shortened

__all__ = [
    "column_values",
    "file_format",
    "is_csv_path",
    "is_null",
    "is_value_sequence",
    "non_null_values",
    "quote_identifier",
    "read_table",
    "resolve_column",
    "to_relation",
]

_CSV_SUFFIXES = {".csv", ".tsv", ".txt", ".psv", ".tab"}
_PARQUET_SUFFIXES = {".parquet", ".pq"}


def file_format(path: str | os.PathLike[str]) -> str:
    """Tell ``"csv"`` or ``"parquet"`` from a path's suffix (a directory is Parquet).

    Raises
    ------
    DataSourceError
        If the path does not exist or its suffix is neither.
    """
    p = Path(path)
    text = str(path)
    if "*" in text:
        suffix = Path(text.replace("*", "x")).suffix.lower()
    else:
        if not p.exists():
            raise DataSourceError(text, "no such file or directory")
        if p.is_dir():
            return "parquet"
        suffix = p.suffix.lower()
    if suffix in _CSV_SUFFIXES:
        return "csv"
    if suffix in _PARQUET_SUFFIXES:
        return "parquet"
    raise DataSourceError(text, f"unknown file type {suffix!r}; expected .csv/.tsv or .parquet")


def is_csv_path(data: Any) -> bool:
    """True when ``data`` is a path (or glob) to CSV/TSV files.

    Raises
    ------
    DataSourceError
        If the path does not exist or has an unknown suffix.
    """
    return isinstance(data, (str, os.PathLike)) and file_format(data) == "csv"


def _parquet_glob(path: str) -> str:
    p = Path(path)
    if "*" not in path and p.is_dir():
        return str(p / "*.parquet")
    return path


def _header_as_written(
    relation: duckdb.DuckDBPyRelation, headless: duckdb.DuckDBPyRelation
) -> duckdb.DuckDBPyRelation:
    """``relation`` with its columns named as the header writes them, spaces kept.

    DuckDB trims the spaces around a header name (``  padded  `` becomes
    ``padded``); pandas and Spark keep them, so a suite learned on one would
    miss the column on the other. ``headless`` is the same file read without
    a header: its first row is the header as written.
    """
    rows = headless.limit(1).fetchall()
    if not rows or len(rows[0]) != len(relation.columns):
        return relation
    (row,) = rows
    names = [relation.columns[i] if v is None else str(v) for i, v in enumerate(row)]
    if names == relation.columns or [n.strip() for n in names] != [
        c.strip() for c in relation.columns
    ]:
        return relation  # the same names, or names DuckDB made up (duplicates, blanks)
    return relation.project(
        ", ".join(
            f"{quote_identifier(old)} AS {quote_identifier(new)}"
            for old, new in zip(relation.columns, names, strict=True)
        )
    )


def _first_line(path: str) -> bytes | None:
    """The file's first line, without its line break; None past the first 64 KiB."""
    with open(path, "rb") as file:
        head = file.read(1 << 16)
    end = head.find(b"\n")
    return None if end < 0 else head[:end].removesuffix(b"\r")


def _header_has_no_blanks(path: str) -> bool:
    """Whether the file's first line is printable ASCII without a space: no name DuckDB trims.

    Read from the first 64 KiB; a first line longer than that, any blank or
    byte outside ASCII (a no-break space, a byte order mark), or an odd number
    of double quotes (a quoted name going on past a line break) says no.
    """
    line = _first_line(path)
    if line is None:
        return False
    return all(0x21 <= byte <= 0x7E for byte in line) and line.count(b'"') % 2 == 0


#: The name DuckDB gives a column the header does not name (fields beyond the header's).
_MADE_UP_NAME = re.compile(r"column[0-9]+")


def _made_up_columns(path: str, columns: Sequence[str]) -> int:
    """How many columns read from the file its header does not name (DuckDB's ``column2``)."""
    line = _first_line(path)
    header = "" if line is None else line.decode("utf-8", "replace")
    return sum(1 for c in columns if _MADE_UP_NAME.fullmatch(c) and c not in header)


#: ASCII's own field separators, which text does not hold: one of them, absent
#: from a file, is a delimiter that reads each line as one field.
_SEPARATORS = ("\x1f", "\x1e", "\x1d", "\x1c")


def _absent_separator(path: str) -> str | None:
    """A delimiter the file does not hold, to read a one-column file's lines whole; or None.

    A file whose header is one name has one column, whatever its values
    hold. With null padding (short rows), DuckDB's sniffer takes for the
    delimiter a character the values share: a column of ``T1190; T1078``
    lists or of ``2000A1F3|2000A1F3-<guid>`` keys read as two or three
    columns, the header naming only the first, and every value cut at its
    first ``;`` or ``|``, silently. Read with a delimiter the file does not
    hold, each line is one value (quoted values still unquoted).
    """
    with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
        return next((c for c in _SEPARATORS if data.find(c.encode()) < 0), None)


def _has_no_quote_character(path: str) -> bool:
    """Whether the file holds neither ``"`` nor ``'``: no field can be quoted, nor hold a newline.

    A search of the bytes (memchr speed: 0.08 s for 660 MB in the page cache);
    it stops at the first quote it finds.
    """
    if os.path.getsize(path) == 0:
        return True
    with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
        return data.find(b'"') < 0 and data.find(b"'") < 0


#: Bytes read at a time when a file is searched for its first byte that is not UTF-8.
_UTF8_CHUNK = 1 << 20


def first_non_utf8(path: str) -> tuple[int, int] | None:
    """The 1-based line and the 0-based byte offset of the file's first byte that is not UTF-8.

    ``None`` when the whole file decodes (or cannot be opened). Read in
    chunks of :data:`_UTF8_CHUNK` bytes: memory stays bounded on any file.
    """
    line, offset, carry = 1, 0, b""
    try:
        with open(path, "rb") as file:
            while True:
                chunk = file.read(_UTF8_CHUNK)
                data = carry + chunk
                try:
                    data.decode("utf-8")
                    good, carry = len(data), b""
                except UnicodeDecodeError as exc:
                    if chunk and exc.reason == "unexpected end of data":
                        good, carry = exc.start, data[exc.start :]  # split by the chunk's end
                    else:
                        return line + data.count(b"\n", 0, exc.start), offset + exc.start
                line += data.count(b"\n", 0, good)
                offset += good
                if not chunk:
                    return None
    except OSError:
        return None


#: What to do where DuckDB runs out of the memory it may use (``MEMORY_LIMIT`` of
#: :mod:`autovalidate.engines.duckdb`), reading or querying.
MEMORY_ADVICE = "set AUTOVALIDATE_DUCKDB_MEMORY_LIMIT, e.g. to 4GB, for more"
#: Longest line of DuckDB's message about an input that is kept whole: it quotes the
#: line it could not read (up to 10,000 characters) before saying why.
MAX_QUOTED_LINE = 200


def unreadable_csv(path: str, prefix: str, message: str) -> str:
    """``prefix: detail`` for a file DuckDB cannot read, where the first non-UTF-8 byte is if so.

    ``detail`` is DuckDB's ``message`` on one line: without the reader's
    options and remedies (after its first blank line), each of its lines cut
    at :data:`MAX_QUOTED_LINE` characters, so that the reason after a quoted
    line of 5 MB (``Maximum line size of 2000000 bytes exceeded``) is not cut
    from the error line with it. DuckDB's own report of a file that is not
    UTF-8 can quote another line than the one it names (the header, when its
    sniffer meets the byte), and its remedy (an ``encoding`` option) is not
    one of autovalidate's: the message says where the first such byte is and
    how to convert the file instead; ``detail`` stays for another cause or
    another source (a Parquet file, a name).
    """
    lines = message.split("\n\n", 1)[0].splitlines()
    detail = " ".join(
        " ".join(shortened(line, MAX_QUOTED_LINE).split()) for line in lines if line.strip()
    )
    csv_file = os.path.isfile(path) and Path(path).suffix.lower() in _CSV_SUFFIXES
    where = first_non_utf8(path) if csv_file and "unicode" in detail.lower() else None
    if where is None:
        return f"{prefix}: {detail}"
    line, offset = where
    p = Path(path)
    target = p.with_name(f"{p.stem}.utf8{p.suffix}")
    return (
        f"{prefix}: not UTF-8 (the first byte that is not UTF-8 is on line {line}, at byte "
        f"offset {offset}); autovalidate reads CSV files as UTF-8: convert the file first, "
        f"e.g. from Latin-1 with `iconv -f latin1 -t utf-8 {shlex.quote(path)} > "
        f"{shlex.quote(str(target))}`"
    )


def to_relation(data: Any, con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyRelation:
    """Turn local data into a DuckDB relation on ``con``.

    Parameters
    ----------
    data
        A path (``str`` or ``PathLike``) to a CSV/TSV or Parquet file, a glob or
        a directory of Parquet files; a pandas DataFrame; a polars DataFrame
        (read as Arrow); a pyarrow Table or RecordBatch; or a DuckDB relation.
    con
        The connection that will run the queries.

    Returns
    -------
    duckdb.DuckDBPyRelation
        CSV columns are text exactly as written, and named so (spaces around a
        header name kept); Parquet and in-memory data keep their types.

    Raises
    ------
    DataSourceError
        If a file is missing, empty (0 bytes) or DuckDB cannot parse it.
    DataError
        If ``data`` is of an unsupported type.
    """
    if isinstance(data, duckdb.DuckDBPyRelation):
        return data
    if isinstance(data, (str, os.PathLike)):
        text = os.fspath(data)
        fmt = file_format(text)
        if "*" not in text and os.path.isfile(text) and os.path.getsize(text) == 0:
            raise DataSourceError(text, "empty file (0 bytes): no header, no rows")
        try:
            if fmt == "csv":
                # DuckDB's parallel scanner refuses null padding (ragged rows) once a
                # quoted field holds a newline, and only says so mid-scan: read a file
                # with quotes serially. One without (most machine-written CSV) cannot
                # have one, and its scan (parsing, and every aggregate of the query, in
                # the scan's pipeline) runs on all cores.
                parallel = os.path.isfile(text) and _has_no_quote_character(text)

                delimiter: str | None = None  # sniffed

                def read(header: bool) -> duckdb.DuckDBPyRelation:
                    return con.read_csv(
                        text,
                        header=header,
                        all_varchar=True,
                        null_padding=True,
                        parallel=parallel,
                        delimiter=delimiter,
                    )

                relation = read(True)
                made_up = os.path.isfile(text) and _made_up_columns(text, relation.columns)
                if made_up and len(relation.columns) - made_up == 1:
                    # the header is one name: the sniffed delimiter is a character of
                    # the values, not of the file's layout (a one-column file)
                    delimiter = _absent_separator(text)
                    if delimiter is not None:
                        relation = read(True)
                if os.path.isfile(text) and _header_has_no_blanks(text):
                    return relation  # no name to trim: a second sniff of the file is wasted
                return _header_as_written(relation, read(False))
            return con.read_parquet(_parquet_glob(text))
        except duckdb.Error as exc:
            detail = unreadable_csv(text, f"cannot read {fmt}", str(exc))
            if isinstance(exc, duckdb.OutOfMemoryException):  # a very wide file, say
                detail += f" (DuckDB's memory limit: {MEMORY_ADVICE})"
            raise DataSourceError(text, detail) from exc
    module = type(data).__module__.split(".")[0]
    if module in {"pandas", "pyarrow", "polars"}:
        try:
            # a polars DataFrame is an Arrow stream (``__arrow_c_stream__``); DuckDB's
            # from_df takes pandas only
            return con.from_df(data) if module == "pandas" else con.from_arrow(data)
        except (duckdb.Error, TypeError, ValueError) as exc:
            raise DataError(f"cannot use {type(data).__name__} as a table: {exc}") from exc
    raise DataError(
        f"unsupported data of type {type(data).__name__}: expected a path, a pandas "
        "or polars DataFrame, a pyarrow Table or a DuckDB relation"
    )


def read_table(path: str | os.PathLike[str]) -> Any:
    """A CSV/TSV or Parquet file in memory as a pyarrow Table, read as :func:`to_relation` reads it.

    CSV cells stay text exactly as written.

    Raises
    ------
    DataSourceError, DataError
        As :func:`to_relation`.
    """
    with duckdb.connect() as con:
        return to_relation(os.fspath(path), con).to_arrow_table()


def column_values(
    data: Any,
    column: str | None = None,
    *,
    con: duckdb.DuckDBPyConnection | None = None,
) -> list[str | None]:
    """Read one column of local data as text, in row order, nulls kept as ``None``.

    Parameters
    ----------
    data
        Anything :func:`to_relation` accepts, or an iterable of values (list,
        tuple, pandas Series, pyarrow Array); non-string values are turned into
        text with ``str``.
    column
        The column to read; required for tables, ignored for plain sequences.
        A table with exactly one column may omit it.
    con
        A DuckDB connection to use; a fresh in-memory one by default.

    Returns
    -------
    list of str or None

    Raises
    ------
    ColumnNotFoundError
        If ``column`` is not in the table.
    DataError, DataSourceError
        As :func:`to_relation`.
    """
    if is_value_sequence(data):
        if hasattr(data, "to_pylist"):  # pyarrow arrays iterate as scalars
            data = data.to_pylist()
        # the common case (a str) first: a million values are read in well under a second
        return [
            v if type(v) is str else (None if is_null(v) else str(v))  # noqa: E721
            for v in data
        ]
    own = con is None
    con = con or duckdb.connect()
    try:
        rel = to_relation(data, con)
        column = resolve_column(rel, column)
        rows = rel.select(f"CAST({quote_identifier(column)} AS VARCHAR)").fetchall()
        return [r[0] for r in rows]
    finally:
        if own:
            con.close()


def resolve_column(rel: duckdb.DuckDBPyRelation | Iterable[str], column: str | None) -> str:
    """The column of ``rel`` (a relation, or its column names) to read: ``column``, or the only one.

    Raises
    ------
    ColumnNotFoundError
        If ``column`` is not in the relation.
    DataError
        If ``column`` is ``None`` and the relation has several columns.
    """
    names = list(rel.columns if isinstance(rel, duckdb.DuckDBPyRelation) else rel)
    if column is None:
        if len(names) != 1:
            raise DataError(f"the table has {len(names)} columns; name one with column=")
        return names[0]
    if column not in names:
        raise ColumnNotFoundError(column, names)
    return column


def non_null_values(values: Iterable[str | None], column: str | None = None) -> list[str]:
    """Drop nulls, keep order; raise if nothing is left.

    Raises
    ------
    EmptyColumnError
        If every value is null or there are none.
    """
    kept = [v for v in values if v is not None]
    if not kept:
        raise EmptyColumnError(column)
    return kept


def is_null(v: object) -> bool:
    """True for ``None``, NaN, and pandas' ``pd.NA`` and ``pd.NaT`` (nullable dtypes)."""
    if v is None:
        return True
    if isinstance(v, float):
        return v != v  # NaN, as pandas gives for missing
    pandas = sys.modules.get("pandas")  # only data from pandas can hold its markers
    return pandas is not None and (v is pandas.NA or v is pandas.NaT)


def is_value_sequence(data: Any) -> bool:
    """True for a sequence of values (list, tuple, Series, Arrow or NumPy array), not a table."""
    if isinstance(data, (str, bytes, os.PathLike)):
        return False
    if isinstance(data, Sequence):
        return True
    mod = type(data).__module__.split(".")[0]
    name = type(data).__name__
    if mod == "pandas" and name == "Series":
        return True
    if mod == "pyarrow" and name in {"Array", "ChunkedArray", "StringArray", "LargeStringArray"}:
        return True
    if mod == "numpy" and name == "ndarray":
        return True
    return False
