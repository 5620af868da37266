"""The DuckDB engine: rendering, inputs it accepts, query counting, errors."""

from __future__ import annotations

import math
from datetime import date

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from autovalidate.analysis.runner import run_analyzers
from autovalidate.engines import engine_for
from autovalidate.engines.duckdb import AGGREGATES_PER_QUERY, DuckDBEngine, render
from autovalidate.errors import DataSourceError, EngineError
from autovalidate.metrics import (
    ApproxCountDistinct,
    Completeness,
    Compliance,
    CountDistinct,
    Distinctness,
    Entropy,
    Histogram,
    Mean,
    Size,
    StandardDeviation,
    Sum,
    Uniqueness,
)
from autovalidate.metrics import expressions as E
from autovalidate.metrics.base import ColumnKind
from tests.deequ_support import arrow, run, value


def test_rendering_quotes_identifiers_and_literals():
    assert render(E.col('we"ird col')) == '"we""ird col"'
    assert render(E.lit("it's")) == "'it''s'"
    assert render(E.lit(None)) == "NULL"
    assert render(E.lit(True)) == "TRUE"
    assert render(E.lit(float("nan"))) == "CAST('nan' AS DOUBLE)"
    assert (
        render(E.when(E.is_null(E.col("a")), E.lit(1)))
        == '(CASE WHEN ("a" IS NULL) THEN 1 ELSE NULL END)'
    )
    assert render(E.full_match(E.col("a"), r"\d+'")) == "regexp_full_match(\"a\", '\\d+''')"


def test_unknown_functions_are_refused():
    with pytest.raises(ValueError):
        render(E.Call("no_such_function", ()))


def test_weird_column_names_work():
    data = arrow({'a "quoted" col': [1, None], "x.y": ["a", "a"]})
    assert value(data, Completeness('a "quoted" col')) == 0.5
    assert value(data, Uniqueness("x.y")) == 0.0


def test_schema_kinds():
    data = arrow({"i": [1], "f": [1.5], "s": ["x"], "b": [True]})
    kinds = DuckDBEngine(data).schema()
    assert kinds == {
        "i": ColumnKind.NUMERIC,
        "f": ColumnKind.NUMERIC,
        "s": ColumnKind.STRING,
        "b": ColumnKind.BOOLEAN,
    }


def test_accepts_pandas_arrow_relations_and_files(tmp_path):
    frame = pd.DataFrame({"a": [1.0, None, 3.0]})
    table = arrow({"a": [1.0, None, 3.0]})
    csv = tmp_path / "data.csv"
    csv.write_text("a\n1\n\n3\n")
    parquet = tmp_path / "data.parquet"
    pq.write_table(table, parquet)
    con = duckdb.connect()
    relation = con.sql("SELECT * FROM (VALUES (1.0), (NULL), (3.0)) t(a)")
    for data in (frame, table, csv, str(parquet), relation):
        assert value(data, Completeness("a")) == pytest.approx(2 / 3), data


def test_unreadable_input_is_an_error():
    with pytest.raises(DataSourceError):
        engine_for("/no/such/file.parquet")


def test_a_read_error_mid_scan_names_the_file_the_engine_was_opened_on(tmp_path):
    """The engine names its source (issue 32): the CLI no longer rewrites the message."""
    late = tmp_path / "late.csv"
    late.write_bytes(b"a,b\n" + b"abc,1\n" * 100_000 + b"x\xffy,2\n")
    engine = DuckDBEngine(late)
    assert engine.source == str(late)
    for scan in (
        lambda e: e.aggregate([E.count_star()]),
        lambda e: e.numeric_view(["b"]).aggregate([E.count_star()]),  # a view names it too
        lambda e: e.text_values("a"),
        lambda e: list(e.text_batches("a")),  # failing mid-stream: pyarrow's OSError before
    ):
        with pytest.raises(DataSourceError) as raised:
            scan(engine)
        assert raised.value.path == str(late) and "cannot be read" in str(raised.value)
        assert "line 100002, at byte offset 600005" in str(raised.value)
    engine.close()
    assert DuckDBEngine(arrow({"a": [1]})).source == "the data"
    assert DuckDBEngine(arrow({"a": [1]}), source="orders").source == "orders"


def test_query_counting_separates_scans_from_other_queries():
    engine = DuckDBEngine(arrow({"a": [1, 2, 2]}))
    engine.aggregate([E.count_star()])
    table = engine.frequencies(Uniqueness("a").grouping, materialize=True)
    table.aggregate([E.count_star()])
    table.top([(E.col("a"), False)], 1)
    assert (engine.stats.scans, engine.stats.queries) == (2, 4)
    lazy = engine.frequencies(Uniqueness("a").grouping, materialize=False)
    assert lazy.aggregate([E.count_star()]) == [2]
    assert (engine.stats.scans, engine.stats.queries) == (3, 5)


def test_engine_errors_are_engine_errors_and_failed_metrics():
    engine = DuckDBEngine(arrow({"a": [1]}))
    with pytest.raises(EngineError):
        engine.aggregate([E.sql("no_such_column + 1")])
    bad = Compliance("bad", "no_such_column > 1")
    context = run(arrow({"a": [1]}), [bad, Size()])
    assert isinstance(context.metric(bad).error, EngineError)
    assert context.metric(Size()).value == 1.0


def test_hll_codes_beside_other_aggregates_do_not_materialize_the_input():
    # DuckDB plans ``list(DISTINCT x)`` (and ``histogram``) beside other aggregates
    # by materializing the input as a CTE that two pipelines read, which made a
    # shared scan slower than separate queries; the codes are a bitmap instead.
    codes = render(E.distinct_set(E.hll_code(E.col("a"), 4), below=16 * 64))
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT range % 7 AS a FROM range(100)")
    plan = con.sql(f"EXPLAIN SELECT count(*), min(a), {codes} FROM t").fetchall()[0][1]
    assert "CTE" not in plan


def test_distinct_set_of_codes_is_the_distinct_non_null_codes():
    data = arrow({"a": [5, 1, 5, None, 0]})
    engine = DuckDBEngine(data)
    expected = [0, 1, 5]
    for expr in (E.distinct_set(E.col("a"), below=8), E.distinct_set(E.col("a"))):
        (found,) = engine.aggregate([expr])
        assert sorted(v for v in found if v is not None) == expected
    empty = DuckDBEngine(arrow({"a": [None, None]}))
    assert empty.aggregate([E.distinct_set(E.col("a"), below=8)]) == [None]


def test_approx_count_distinct_shares_the_scan_with_other_analyzers():
    data = arrow({"a": [1, 2, 2, None, 3], "b": [1.0, 2.0, 3.0, 4.0, 5.0]})
    context = run(data, [Size(), Completeness("a"), ApproxCountDistinct("a")])
    assert context.stats.scans == 1
    assert context.metric(ApproxCountDistinct("a")).value == 3.0
    assert context.metric(Size()).value == 5.0


def test_code_bitmaps_of_many_columns_in_one_query():
    # 300 columns in one SELECT: one hash table per list(DISTINCT) ran out of memory
    exprs = [E.distinct_set(E.col(f"c{i}"), below=10) for i in range(300)]
    engine = DuckDBEngine(arrow({f"c{i}": [i % 10, 3, 9] for i in range(300)}))
    values = engine.aggregate(exprs)
    assert [sorted(v) for v in values[:4]] == [[0, 3, 9], [1, 3, 9], [2, 3, 9], [3, 9]]
    assert engine.stats.scans == 1


HELD = {
    "i": [3, 1, None, 3, 7, 3],
    "f": [0.5, -1.25, 2.0, None, 0.5, 1e300],
    "s": ["a", "b b", None, "a", "", "é"],
    "b": [True, False, None, True, True, False],
}
HELD_ANALYZERS = [
    Size(),
    Completeness("s"),
    Mean("f"),
    StandardDeviation("f"),
    ApproxCountDistinct("i"),
    Uniqueness("i"),
    Entropy("s"),
    Histogram("b"),
    Compliance("positive", "i > 2"),  # user SQL: may read any column
    Uniqueness(["i", "s"]),
]


def _metrics(engine):
    context = run_analyzers(engine, HELD_ANALYZERS)
    return {str(a): (m.value, m.error is None) for a, m in context.metrics.items()}


def test_held_columns_give_the_same_metrics_in_fewer_scans(monkeypatch):
    data = arrow(HELD)
    held = DuckDBEngine(data)
    held.hold(["i", "f", "s", "b", "no such column"])
    assert held.stats.log == ["scan: hold 4 columns"]
    metrics = _metrics(held)
    held.hold(["s", "i"])  # held already: no read
    # every query read the held columns, the user SQL too (all columns are held)
    assert held.stats.scans == 1
    monkeypatch.setattr("autovalidate.engines.duckdb.HOLD_BYTES", 0)
    scanned = DuckDBEngine(data)
    assert _metrics(scanned) == metrics
    # the aggregation, the hold that did not fit, one GROUPING SETS query for
    # the three groupings whose analyzers only aggregate their frequencies, and
    # the grouping a histogram reads twice
    assert scanned.stats.scans == 4
    assert "scan: group sets i;s;i,s" in scanned.stats.log
    assert held.text_values("s") == scanned.text_values("s") == HELD["s"]


def test_a_query_of_columns_not_all_held_reads_the_data():
    engine = DuckDBEngine(arrow(HELD))
    engine.hold(["i"])
    context = run_analyzers(engine, [Size(), Mean("i")])  # Size reads no column: rows held
    assert (context.metric(Size()).value, context.metric(Mean("i")).value) == (6, 17 / 5)
    assert engine.stats.scans == 1
    assert run_analyzers(engine, [Compliance("positive", "i > 2")]).stats.scans == 1
    assert engine.text_values("s")[:2] == ["a", "b b"] and engine.stats.scans == 3


def test_held_aggregations_run_in_queries_of_a_bounded_size(monkeypatch):
    exprs = [E.count_non_null(E.col(f"c{i}")) for i in range(AGGREGATES_PER_QUERY + 10)]
    data = arrow({f"c{i}": [i, None if i % 2 else i] for i in range(len(exprs))})
    held, unasked = DuckDBEngine(data), DuckDBEngine(data)
    held.hold(data.column_names)
    chunks = [f"query: aggregate {AGGREGATES_PER_QUERY}", "query: aggregate 10"]
    expected = [1 + (i % 2 == 0) for i in range(len(exprs))]
    assert held.aggregate(exprs) == unasked.aggregate(exprs) == expected
    assert held.stats.log[1:] == chunks
    # more aggregations than one query should plan: their columns are held first
    assert unasked.stats.log == [f"scan: hold {len(exprs)} columns", *chunks]
    # columns that do not fit: one query over the data, as with fewer aggregations
    monkeypatch.setattr("autovalidate.engines.duckdb.HOLD_BYTES", 0)
    scanned = DuckDBEngine(data)
    assert scanned.aggregate(exprs) == expected
    assert scanned.stats.log[-1] == f"scan: aggregate {len(exprs)}"
    assert scanned.stats.scans == 2  # the hold that did not fit read the data too


def test_columns_too_big_or_changed_by_arrow_are_not_held(monkeypatch):
    data = duckdb.connect().sql("SELECT range AS n, CAST(range AS HUGEINT) AS h FROM range(1000)")
    engine = DuckDBEngine(data)
    engine.hold(["n", "h"])  # Arrow has no HUGEINT: h would come back a DECIMAL
    assert run_analyzers(engine, [Sum("n")]).stats.scans == 0
    assert run_analyzers(engine, [Sum("h")]).stats.scans == 1
    monkeypatch.setattr("autovalidate.engines.duckdb.HOLD_BYTES", 4000)  # 1000 BIGINTs: 8000
    small = DuckDBEngine(data)
    small.hold(["n", "h"])
    small.hold(["h", "n"])  # did not fit: not read again
    assert small.stats.log == ["scan: hold 2 columns"]
    assert run_analyzers(small, [Sum("n")]).metric(Sum("n")).value == 499500
    assert small.stats.scans == 2
    monkeypatch.setattr("autovalidate.engines.duckdb.HOLD_BYTES", 2**20)
    monkeypatch.setattr("autovalidate.engines.duckdb.HOLD_ROWS", 999)  # a sum of more is not serial
    tall = DuckDBEngine(data)
    tall.hold(["n", "h"])
    tall.hold(["n"])  # too many rows: not read again
    assert run_analyzers(tall, [Sum("n")]).stats.scans == 1
    assert tall.stats.scans == 2


def test_the_engines_databases_are_memory_limited_and_spill_to_a_temp_directory(tmp_path):
    import tempfile

    from autovalidate.engines.duckdb import MEMORY_LIMIT, TEMP_DIRECTORY

    path = tmp_path / "t.csv"
    path.write_text("a\n1\n")
    setting = "SELECT current_setting('memory_limit'), current_setting('temp_directory')"
    limit = duckdb.connect(config={"memory_limit": MEMORY_LIMIT}).execute(setting).fetchall()[0][0]
    for sandbox in (False, True):  # the shared database, and a sandboxed engine's own
        engine = engine_for(str(path), sandbox=sandbox)
        assert engine._con.execute(setting).fetchall() == [(limit, TEMP_DIRECTORY)]
        engine.close()
    assert limit != duckdb.connect().execute(setting).fetchall()[0][0]  # not DuckDB's default
    assert TEMP_DIRECTORY.startswith(tempfile.gettempdir())


def test_running_out_of_memory_says_which_limit_to_raise():
    from autovalidate.engines.duckdb import engine_error

    with duckdb.connect(config={"memory_limit": "20MB"}) as con:
        with pytest.raises(duckdb.OutOfMemoryException) as raised:
            con.execute("SELECT list(range) FROM range(20000000)").fetchall()
    error = engine_error(raised.value)
    assert isinstance(error, EngineError) and "AUTOVALIDATE_DUCKDB_MEMORY_LIMIT" in str(error)


def test_a_file_too_wide_to_read_in_the_memory_limit_says_which_limit_to_raise(tmp_path):
    from autovalidate.engines.io import to_relation

    wide = tmp_path / "wide.csv"
    columns = range(3000)
    wide.write_text(",".join(f"c{i}" for i in columns) + "\n" + ",".join(map(str, columns)) + "\n")
    with duckdb.connect(config={"memory_limit": "32MB"}) as con:
        with pytest.raises(DataSourceError) as raised:
            to_relation(str(wide), con)
    message = str(raised.value)
    assert "Out of Memory" in message and "AUTOVALIDATE_DUCKDB_MEMORY_LIMIT" in message


def test_groupings_read_the_data_once_and_each_gets_its_own_frequencies(monkeypatch):
    monkeypatch.setattr("autovalidate.engines.duckdb.HOLD_BYTES", 0)  # every query scans
    data = arrow(
        {
            "a": ["x", "x", "y", None, "z", "z", "z"],
            "b": [1, 2, 2, 3, None, None, 4],
            "c": [0.1, 0.9, 0.8, 0.7, 0.2, 0.6, 0.3],
        }
    )
    analyzers = [
        Entropy("a"),
        Uniqueness(["a", "a"]),  # the same grouping set as Entropy's: grouped once
        Uniqueness(["a", "b"]),  # a null key of two: kept unless both are null
        Distinctness("b"),
        Uniqueness("a", where="c > 0.5"),  # another filter: a query of its own
        CountDistinct("b", where="c > 0.5"),
    ]
    apart = run_analyzers(DuckDBEngine(data), analyzers, share_scans=False)
    engine = DuckDBEngine(data)
    together = run_analyzers(engine, analyzers)
    for a in analyzers:
        assert together.metric(a).value == pytest.approx(apart.metric(a).value), a
    # by hand: a = x x y z z z (one null dropped), b = 1 2 2 3 4 (two nulls dropped)
    assert together.metric(Entropy("a")).value == pytest.approx(
        -sum(p * math.log(p) for p in (2 / 6, 1 / 6, 3 / 6))
    )
    assert together.metric(Distinctness("b")).value == pytest.approx(4 / 5)
    assert together.metric(Uniqueness(["a", "b"])).value == pytest.approx(5 / 7)
    # the hold that did not fit, one query per filter
    assert engine.stats.scans == 3
    assert sum(entry.startswith("scan: group sets") for entry in engine.stats.log) == 2


def _membership(data, column, allowed):
    return value(data, Compliance("in", E.is_in(E.col(column), allowed), None, (column,)))


@pytest.mark.parametrize(
    ("values", "allowed", "arrow_type"),
    [
        (
            [f"k{i}" for i in range(300)] + [None, "x", "ä😀", "it's", 'd"q\\'],
            [f"k{i}" for i in range(0, 400, 2)] + ["ä😀", "it's", 'd"q\\'],
            None,
        ),
        (list(range(300)) + [None, -1], list(range(0, 400, 3)), pa.int32()),
        (list(range(300)) + [None], list(range(0, 400, 3)), pa.int64()),
        ([i / 4 for i in range(300)] + [None], [i / 2 for i in range(150)] + [3], pa.float64()),
        ([True, False, None] * 50, [True] * 150, pa.bool_()),
    ],
)
def test_a_long_in_list_reads_its_constants_from_json_with_the_same_truth_values(
    values, allowed, arrow_type
):
    data = arrow({"c": values}, {"c": arrow_type} if arrow_type else None)
    engine = DuckDBEngine(data)
    typed = engine._typed(E.is_in(E.col("c"), allowed))
    assert typed.fn == "in_json"
    assert "from_json(" in render(typed)
    wanted = set(allowed)
    expected = sum(v is not None and v in wanted for v in values) / len(values)
    assert _membership(data, "c", allowed) == pytest.approx(expected)
    # the rows that fail it, as the sample of failing rows gets them (split_rows, which
    # --failed-rows uses, is run on a long list in test_cli_failed_rows.py)
    outside = E.not_(E.is_in(E.col("c"), allowed))
    sampled = engine.sample(outside, [E.col("c")], 1000)
    assert sorted(r[0] for r in sampled) == sorted(
        v for v in values if v is not None and v not in wanted
    )


def test_in_lists_that_json_cannot_type_exactly_keep_their_constants():
    engine = DuckDBEngine(
        arrow({"d": [date(2020, 1, 1), None], "s": ["a", "1"], "i": [1, 2], "f": [1.5, 2.0]})
    )
    many = [f"2020-01-{d:02d}" for d in range(1, 29)] * 5
    # a DATE column casts each text constant to a date: kept as an IN list
    assert engine._typed(E.is_in(E.col("d"), many)).fn == "is_in"
    assert _membership(engine.relation.arrow(), "d", many) == 0.5
    # mixed constants, bools for an integer column, an infinity, a short list
    assert engine._typed(E.is_in(E.col("s"), ["a"] * 100 + [1])).fn == "is_in"
    assert engine._typed(E.is_in(E.col("i"), [True] * 101)).fn == "is_in"
    assert engine._typed(E.is_in(E.col("f"), [1.5] * 100 + [math.inf])).fn == "is_in"
    assert engine._typed(E.is_in(E.col("s"), ["a"] * 100)).fn == "is_in"
    # inside other expressions too
    nested = engine._typed(E.or_(E.is_null(E.col("s")), E.is_in(E.col("s"), ["a"] * 101)))
    assert nested.args[1].fn == "in_json"
