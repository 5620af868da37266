"""A failure of the engine is an error, never a failed constraint (issue 30, item 6).

Real Spark (local) and real DuckDB: a user UDF that raises, a corrupt Parquet
part. Each must raise :class:`EngineError` with the cause from the run (and
exit 2 in the CLI), where before it came back as a failed check; an error in a
query's own expressions (a column that does not exist) stays a failed metric.
"""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import autovalidate as av
from autovalidate.checks import Check, CheckLevel
from autovalidate.errors import EngineError, QueryError


def _boom(x: int) -> int:
    raise ValueError(f"boom on {x}")


def _checks(predicate: str) -> list[Check]:
    return [Check(CheckLevel.ERROR, "rows").satisfies(predicate, "udf").has_size(lambda n: n > 0)]


def test_a_raising_duckdb_udf_fails_the_run():
    con = duckdb.connect()
    con.create_function("boom", _boom, ["BIGINT"], "BIGINT")
    relation = con.sql("SELECT * FROM range(5) t(id)")
    with pytest.raises(EngineError, match="boom on") as info:
        av.validate(relation, _checks("boom(id) > 0"))
    assert not isinstance(info.value, QueryError)


def test_an_unknown_column_stays_a_failed_metric():
    result = av.validate(pa.table({"id": [1, 2]}), _checks("no_such_column > 0"))
    assert not result.passed
    assert "no_such_column" in result.to_json()


@pytest.mark.spark
def test_a_raising_spark_udf_fails_the_run(spark):
    from pyspark.sql.types import LongType

    def boom(x: int) -> int:  # defined here: pickled by value for the Python workers
        raise ValueError(f"boom on {x}")

    spark.udf.register("boom", boom, LongType())
    frame = spark.range(5)
    with pytest.raises(EngineError, match="boom on") as info:
        av.validate(frame, _checks("boom(id) > 0"))
    assert not isinstance(info.value, QueryError)


@pytest.mark.spark
def test_a_corrupt_parquet_part_fails_the_run_on_spark(spark, tmp_path):
    for i in range(2):
        pq.write_table(pa.table({"id": list(range(100))}), tmp_path / f"part-{i}.parquet")
    frame = spark.read.parquet(str(tmp_path))
    part = tmp_path / "part-1.parquet"
    part.write_bytes(part.read_bytes()[:-200] + b"\0" * 200)  # the footer is gone
    with pytest.raises(EngineError) as info:
        av.validate(frame, _checks("id >= 0"))
    assert not isinstance(info.value, QueryError)
    assert "part-1.parquet" in str(info.value) and "\n" not in str(info.value)
