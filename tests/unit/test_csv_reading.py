"""CSV files read in parallel when no field can be quoted, serially otherwise: the same rows.

DuckDB's parallel scanner pads short rows with nulls as the serial one does,
but fails mid-scan once a quoted field holds a newline; a file with a quote
character is read serially. Both files here are large enough (several MB)
for the scanner to split them.
"""

from __future__ import annotations

import duckdb

from autovalidate.engines.io import to_relation

ROWS = 200_000


def _read(path):
    with duckdb.connect() as con:
        return to_relation(str(path), con).aggregate("count(*), count(c), max(b)").fetchall()


def test_a_short_row_deep_in_a_file_without_quotes(tmp_path):
    path = tmp_path / "plain.csv"
    body = "".join(f"{i},w{i},{i}\n" for i in range(ROWS))
    path.write_text("a,b,c\n" + body + "1,zz\n")
    assert _read(path) == [(ROWS + 1, ROWS, "zz")]


def test_a_quoted_newline_and_a_short_row_deep_in_a_file(tmp_path):
    path = tmp_path / "quoted.csv"
    body = "".join(f'{i},"w{i}",{i}\n' for i in range(ROWS))
    path.write_text("a,b,c\n" + body + '1,"x\ny",3\n4,zz\n')
    assert _read(path) == [(ROWS + 2, ROWS + 1, "zz")]
