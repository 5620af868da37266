"""What the Engine interface owns besides analyzers: views, a split, text values, CSV as text.

Every test runs on DuckDB and on a real local Spark session with the same data,
so that the callers above the engines (profiles, suggestion, suites) get the
same answers on both without asking which engine they hold.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

from autovalidate.analysis.runner import run_analyzers
from autovalidate.engines import Engine, ExecutionStats, engine_for, open_engine
from autovalidate.engines.duckdb import DuckDBEngine
from autovalidate.engines.spark import SparkEngine
from autovalidate.errors import ColumnNotFoundError, EngineError
from autovalidate.metrics import Correlation, Maximum, Mean, Size, Sum
from autovalidate.metrics import expressions as E
from autovalidate.metrics.base import ColumnKind

TABLE = pa.table(
    {
        "id": pa.array([f"r{i}" for i in range(6)], pa.string()),
        "price": pa.array(["1.5", "2", None, "x", " 3", "4e1"], pa.string()),
        "qty": pa.array(["1", "2", "3", "4", "5", "6"], pa.string()),
        "zip": pa.array(["007", "10115", None, "", "8001", "75001"], pa.string()),
    }
)


@pytest.fixture(params=["duckdb", "spark"])
def engine(request):
    if request.param == "duckdb":
        made: Engine = DuckDBEngine(TABLE)
    else:
        made = SparkEngine(request.getfixturevalue("spark").createDataFrame(TABLE))
    yield made
    made.close()


def test_text_values_in_row_order_with_nulls(engine):
    assert engine.text_values("zip") == ["007", "10115", None, "", "8001", "75001"]


def test_text_batches_stream_the_text_values_in_pieces(engine):
    batches = list(engine.text_batches("zip", rows=4))
    assert batches == [["007", "10115", None, ""], ["8001", "75001"]]
    with pytest.raises(ColumnNotFoundError):
        next(engine.text_batches("nope"))
    assert engine.stats.scans == 1
    with pytest.raises(ColumnNotFoundError):
        engine.text_values("nope")


def test_the_text_of_held_columns_is_read_once_and_is_the_same(engine):
    before = [v for batch in engine.text_batches("zip", rows=4) for v in batch]
    scans = engine.stats.scans
    engine.hold(["zip", "id", "nope"])
    assert [v for batch in engine.text_batches("zip", rows=4) for v in batch] == before
    assert [len(batch) for batch in engine.text_batches("zip", rows=4)] == [4, 2]
    assert engine.text_values("id") == [f"r{i}" for i in range(6)]
    # one read of both columns' text (Spark: the row count, then the text), then memory
    assert engine.stats.scans - scans == (1 if engine.name == "duckdb" else 2)
    assert engine.stats.log[-3:] == ["query: text batches"] * 2 + ["query: text values"]


@pytest.mark.spark
def test_spark_holds_text_only_when_read_and_only_for_small_data(spark, monkeypatch):
    frame = spark.createDataFrame(TABLE)
    lazy = SparkEngine(frame)
    lazy.hold(["zip", "price"])
    run_analyzers(lazy, [Size()])
    assert not any("hold" in line for line in lazy.stats.log)  # no text read: nothing held
    monkeypatch.setattr("autovalidate.engines.spark.TEXT_BATCH_ROWS", 5)  # 6 rows: too many
    many = SparkEngine(frame)
    many.hold(["zip"])
    assert many.text_values("zip") == ["007", "10115", None, "", "8001", "75001"]
    many.hold(["id"])
    assert many.text_values("id")[0] == "r0"
    assert many.stats.log == [
        "scan: hold: count rows",
        "scan: text values",
        "scan: text values",  # the count ruled holding out: not tried again
    ]
    monkeypatch.setattr("autovalidate.engines.spark.TEXT_BATCH_ROWS", 100)
    monkeypatch.setattr("autovalidate.engines.spark.HOLD_BYTES", 0)
    big = SparkEngine(frame)
    big.hold(["zip"])
    assert list(big.text_batches("zip")) == [["007", "10115", None, "", "8001", "75001"]]
    assert big.stats.log == ["scan: hold: count rows", "scan: hold 1 columns", "scan: text batches"]


def test_numeric_view_casts_only_the_named_columns(engine):
    view = engine.numeric_view(["price"])
    assert view.schema() == {
        "id": ColumnKind.STRING,
        "price": ColumnKind.NUMERIC,
        "qty": ColumnKind.STRING,
        "zip": ColumnKind.STRING,
    }
    # "x" is no number (null), " 3" and "4e1" are: 1.5 + 2 + 3 + 40
    context = run_analyzers(view, [Sum("price"), Maximum("price"), Size()])
    assert context.metric(Sum("price")).value == pytest.approx(46.5)
    assert context.metric(Maximum("price")).value == 40.0
    assert context.metric(Size()).value == 6.0
    assert view.text_values("zip")[0] == "007"  # the other columns are untouched
    assert engine.stats is view.stats and engine.stats.scans == 2  # the same rows: one count
    with pytest.raises(ColumnNotFoundError):
        engine.numeric_view(["nope"])


def test_renamed_reads_a_data_column_under_the_suite_name(engine):
    view = engine.renamed({"zip_code": "zip", "id": "qty"})  # id's own column gives way
    assert list(view.schema()) == ["price", "id", "zip_code"]
    assert view.text_values("zip_code")[1] == "10115"
    assert view.text_values("id") == ["1", "2", "3", "4", "5", "6"]
    with pytest.raises(ColumnNotFoundError):
        engine.renamed({"a": "no_such_column"})


def test_split_is_a_partition_of_the_rows_fixed_by_the_seed(spark, request):
    rows = pa.table({"k": pa.array([str(i) for i in range(2000)], pa.string())})
    for made in (DuckDBEngine(rows), SparkEngine(spark.createDataFrame(rows))):
        with open_engine(made) as parent:
            train, test = parent.split(0.3, seed=7)
            train_keys, test_keys = train.text_values("k"), test.text_values("k")
            assert sorted(train_keys + test_keys, key=int) == [str(i) for i in range(2000)]
            assert 0.25 < len(test_keys) / 2000 < 0.35, parent.name
            again = parent.split(0.3, seed=7)[1].text_values("k")
            other = parent.split(0.3, seed=8)[1].text_values("k")
            assert sorted(again) == sorted(test_keys) and sorted(other) != sorted(test_keys)
            # the halves are other data sets: their queries are their own
            assert (train.stats.scans, test.stats.scans, parent.stats.scans) == (1, 1, 0)
        made.close()


def test_open_engine_closes_only_what_it_opened():
    with open_engine(TABLE) as opened:
        assert isinstance(opened, DuckDBEngine)
    # its connection is closed (the engine knows its columns without asking DuckDB)
    with pytest.raises(EngineError, match="Connection has already been closed"):
        opened.text_values("id")
    mine = engine_for(TABLE)
    with open_engine(mine) as same:
        assert same is mine
    assert mine.text_values("zip")[0] == "007"  # still open: its owner closes it
    mine.close()


def test_a_csv_file_is_text_and_its_numbers_are_read_cast(tmp_path):
    csv = tmp_path / "batch.csv"
    csv.write_text("zip,price,qty\n007,1.5,1\n10115,x,2\n8001,3,3\n")
    engine = engine_for(str(csv))
    assert engine.untyped and not engine_for(TABLE).untyped
    assert set(engine.schema().values()) == {ColumnKind.STRING}
    assert engine.text_values("zip") == ["007", "10115", "8001"]
    filtered = Mean("price", where="qty > 1")
    analyzers = [Mean("price"), Correlation("price", "qty"), Size(), filtered]
    context = run_analyzers(engine, analyzers)
    assert context.metric(Mean("price")).value == pytest.approx(2.25)
    assert context.metric(Correlation("price", "qty")).value == pytest.approx(1.0)
    assert context.metric(filtered).value == pytest.approx(3.0)
    # one scan of the text (Size; Mean and Correlation cast it inside their aggregates), and
    # one of the numeric view (the filtered Mean: its user SQL cannot be rewritten)
    assert (context.stats.scans, engine.stats.scans) == (2, 3)
    # typed data are not cast: a string column is no number there
    typed = run_analyzers(engine_for(TABLE), [Mean("price")]).metric(Mean("price"))
    assert typed.error is not None and "numeric" in str(typed.error)
    engine.close()


def test_execution_stats_add_up_and_slice():
    stats = ExecutionStats()
    stats.record("aggregate 2", scan=True)
    mark = stats.queries
    stats.record("group a", scan=True)
    stats.record("top 3", scan=False)
    later = stats.since(mark)
    assert (later.scans, later.queries, later.log) == (1, 2, ["scan: group a", "query: top 3"])
    both = stats + later
    assert (both.scans, both.queries) == (3, 5)


def test_sample_takes_a_predicate(engine):
    nonconforming = E.and_(
        E.is_not_null(E.col("zip")), E.not_(E.full_match(E.col("zip"), "[0-9]{5}"))
    )
    assert engine.sample(nonconforming, [E.col("zip")], 2) == [("007",), ("",)]


def test_smallest_values_is_a_bounded_ascending_list_in_both_engines(engine):
    # zip has 5 non-null values: "", "007", "10115", "75001", "8001" in text order
    zip_text = E.col("zip")
    smallest = [E.smallest_values(zip_text, 3), E.smallest_values(zip_text, 9)]
    first, all_of_them = engine.aggregate(smallest)
    assert list(first) == ["", "007", "10115"]
    assert list(all_of_them) == ["", "007", "10115", "75001", "8001"]
    assert engine.stats.scans == 1
    nothing = E.when(E.is_null(zip_text), zip_text)  # only nulls: no values
    assert list(engine.aggregate([E.smallest_values(nothing, 2)])[0] or []) == []
    with pytest.raises(ValueError):
        E.smallest_values(zip_text, 0)


def test_text_batches_of_a_held_column_read_no_data_and_are_the_same(tmp_path):
    csv = tmp_path / "batch.csv"
    csv.write_text("zip,name\n007,a\n10115,\n8001,c\n")
    engine = engine_for(str(csv))
    before = [v for batch in engine.text_batches("zip", rows=2) for v in batch]
    assert engine.stats.log == ["scan: text batches"]
    engine.hold(["zip", "name"])
    held = [v for batch in engine.text_batches("zip", rows=2) for v in batch]
    assert held == before == ["007", "10115", "8001"]
    assert [v for b in engine.text_batches("name") for v in b] == ["a", None, "c"]
    # the hold read the data once; the batches of held columns are queries of memory
    assert engine.stats.scans == 2 and engine.stats.log[-2:] == ["query: text batches"] * 2
    engine.close()
