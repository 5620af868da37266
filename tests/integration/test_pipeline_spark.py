"""autovalidate.validate and the split on Spark, classic and Connect: the same rows as on DuckDB.

The split must not collect the batch: on a classic session no Spark job runs
until the parts are read (the job tracker says so, and sees the job of the read).
"""

from __future__ import annotations

import pytest

import autovalidate as av
from autovalidate.pipeline import BROKEN_CONSTRAINTS
from tests.unit.test_pipeline import BATCH, _zip_constraint

pytestmark = pytest.mark.spark


def _checks() -> list[av.Check]:
    error = (
        av.Check(av.CheckLevel.ERROR, "batch")
        .satisfies_pattern_constraint("zip", _zip_constraint())
        .is_complete("state")
        .is_contained_in("state", ["al", "ak"])
        .is_unique("zip")
    )
    warning = (
        av.Check(av.CheckLevel.WARNING, "amounts")
        .is_non_negative("amount")
        .is_less_than("low", "high")
        .satisfies("amount < 5", "small amount")
    )
    return [error, warning]


def _rows(frame) -> tuple[list[int], dict[int, list[str]]]:
    """Ids of the valid part, or id -> broken constraints of the invalid part."""
    if BROKEN_CONSTRAINTS in frame.columns:
        return [], {r["id"]: list(r[BROKEN_CONSTRAINTS]) for r in frame.collect()}
    return sorted(r["id"] for r in frame.select("id").collect()), {}


def _expected() -> tuple[list[int], dict[int, list[str]]]:
    """The split DuckDB gives of the same batch."""
    valid, invalid = av.validate(BATCH, _checks()).split()
    broken = dict(invalid.select(f"id, {BROKEN_CONSTRAINTS}").fetchall())
    return sorted(r[0] for r in valid.select("id").fetchall()), broken


def test_split_on_classic_spark_runs_no_job_and_gives_duckdbs_rows(spark, tmp_path):
    # a Parquet scan: rows of a local DataFrame are collected without a job
    BATCH.to_parquet(tmp_path / "batch.parquet")
    frame = spark.read.parquet(str(tmp_path / "batch.parquet"))
    result = av.validate(frame, _checks())
    assert result.status is av.CheckStatus.ERROR
    tracker = spark.sparkContext.statusTracker()
    spark.sparkContext.setJobGroup("av-split", "split, not read")
    try:
        valid, invalid = result.split()
        assert tracker.getJobIdsForGroup("av-split") == []  # nothing collected, nothing run
        assert type(valid).__name__ == "DataFrame" and invalid.columns[-1] == BROKEN_CONSTRAINTS
        expected_valid, expected_broken = _expected()
        assert expected_broken  # the batch has breaking rows
        assert _rows(valid)[0] == expected_valid
        assert _rows(invalid)[1] == expected_broken
        assert tracker.getJobIdsForGroup("av-split") != []  # reading the parts ran jobs
    finally:
        spark.sparkContext.setJobGroup("", "")
    # the quarantine: Spark writes the invalid part itself, as a directory of part files
    result.write_invalid_rows(tmp_path / "quarantine")
    assert _rows(spark.read.parquet(str(tmp_path / "quarantine")))[1] == expected_broken


def test_split_on_spark_connect_gives_duckdbs_rows(spark_connect):
    frame = spark_connect.createDataFrame(BATCH.astype(object).where(BATCH.notna(), None))
    result = av.validate(frame, _checks())
    valid, invalid = result.split()
    assert type(invalid).__module__.startswith("pyspark.sql.connect.")
    expected_valid, expected_broken = _expected()
    assert _rows(valid)[0] == expected_valid
    assert _rows(invalid)[1] == expected_broken
    assert valid.columns == list(BATCH.columns)


def test_rename_on_spark_keeps_the_batch_columns(spark):
    frame = spark.createDataFrame(BATCH.astype(object).where(BATCH.notna(), None))
    suite = [_zip_constraint("ZipCode")]
    valid, invalid = av.validate(frame, suite, rename={"ZipCode": "zip"}).split()
    assert invalid.columns == [*BATCH.columns, BROKEN_CONSTRAINTS]
    assert sorted(_rows(invalid)[1]) == [3, 5]
    assert len(_rows(valid)[0]) == 6
