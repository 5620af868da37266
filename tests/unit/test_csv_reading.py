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


def _columns(path):
    with duckdb.connect() as con:
        relation = to_relation(str(path), con)
        return relation.columns, relation.fetchall()


def test_a_one_column_file_keeps_its_values_whole(tmp_path):
    """With null padding, the sniffer took the lists' ``;`` for the delimiter: values were cut."""
    path = tmp_path / "techniques.csv"
    values = ["T1558.010", "T1595.001; T1481.004; T1197", "T1554; T1488", "T1016"] * 5
    path.write_text("techniques\n" + "".join(f"{v}\n" for v in values))
    columns, rows = _columns(path)
    assert columns == ["techniques"]
    assert [r[0] for r in rows] == values
    # composite keys that all hold one "|" (pandas writes them unquoted): not two columns
    keys = tmp_path / "keys.csv"
    composite = [f"2000A1F3|2000A1F3-{i:04d}" for i in range(50)]
    keys.write_text("key\n" + "".join(f"{v}\n" for v in composite))
    assert _columns(keys) == (["key"], [(v,) for v in composite])
    # a quoted value is still unquoted
    quoted = tmp_path / "quoted.csv"
    quoted.write_text('key\n"a,b"\nc|d\n"e""f"\n')
    assert _columns(quoted) == (["key"], [("a,b",), ("c|d",), ('e"f',)])


def test_a_ragged_file_keeps_the_columns_its_header_names_and_its_extra_fields(tmp_path):
    semicolons = tmp_path / "semicolons.csv"
    semicolons.write_text("a;b\n1;2\n3;4;5\n6;7\n")  # the header holds the delimiter
    assert _columns(semicolons) == (
        ["a", "b", "column2"],
        [("1", "2", None), ("3", "4", "5"), ("6", "7", None)],
    )
    commas = tmp_path / "commas.csv"
    commas.write_text("a,b\n1,2\n3\n4,5,6\n")
    assert _columns(commas)[0] == ["a", "b", "column2"]
