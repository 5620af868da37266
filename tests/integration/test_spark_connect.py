"""Spark Connect, for real: the same calls on a Connect DataFrame as on classic Spark and DuckDB.

The Connect server runs in the test JVM and the client is PySpark's gRPC
client (the ``spark_connect`` fixture), so these tests cost no second JVM.
The DataFrames are Connect DataFrames (``pyspark.sql.connect.dataframe``):
every query goes through the Connect protocol, no JVM gateway.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

from autovalidate import (
    CheckLevel,
    ConstraintSuite,
    PatternConstraint,
    VerificationSuite,
    validate_spark,
)
from autovalidate.checks.spec import Assertion, CheckSpec, ConstraintSpec
from autovalidate.engines.duckdb import new_connection
from autovalidate.engines.spark import SparkEngine, is_spark_dataframe
from autovalidate.errors import ColumnNotFoundError, IndexBuildError
from autovalidate.patterns.render import pattern_regex
from autovalidate.suggest import ConstraintSuggestionRunner
from tests.deequ_support import run, same_value
from tests.integration.test_deequ_suite_on_real_tables import _assert_identical, _beer_checks
from tests.integration.test_spark_validate import CONSTRAINT
from tests.unit.engines.test_spark_engine import ANALYZERS, TABLE
from tests.unit.suggest.test_suggestion_runner import text_frame

pytestmark = pytest.mark.spark


def test_the_dataframes_are_connect_dataframes(spark_connect):
    frame = spark_connect.createDataFrame(TABLE)
    assert type(frame).__module__ == "pyspark.sql.connect.dataframe"
    assert is_spark_dataframe(frame)
    assert SparkEngine(frame).api.functions.__name__ == "pyspark.sql.connect.functions"


def test_validate_spark_on_connect_counts_as_locally(spark_connect):
    values = ["12-AB", "1-AB", None, "99-ÉZ", "12-ab", "12-AB\n", "00-ZZ"] * 50
    df = spark_connect.createDataFrame([(v, i) for i, v in enumerate(values)], "code string, i int")
    remote = validate_spark(df, CONSTRAINT)
    local = CONSTRAINT.validate(values)
    assert (remote.n_values, remote.n_nonconforming) == (local.n_values, local.n_nonconforming)
    assert (remote.n_values, remote.n_nonconforming) == (300, 150)
    assert remote.passed is local.passed is False
    # each non-conforming value once (the batch repeats them 50 times)
    assert sorted(remote.examples) == ["1-AB", "12-AB\n", "12-ab"]
    assert validate_spark(df.where("code = '12-AB'"), CONSTRAINT).passed
    with pytest.raises(ColumnNotFoundError):
        validate_spark(df, CONSTRAINT, "nope")


def test_engine_on_connect_computes_duckdbs_metrics_and_states(spark_connect):
    connect = run(spark_connect.createDataFrame(TABLE), ANALYZERS)
    duck = run(TABLE, ANALYZERS)
    for analyzer in ANALYZERS:
        c, d = connect.metric(analyzer), duck.metric(analyzer)
        assert c.error is None, (analyzer, c.error)
        assert same_value(c.value, d.value, rel=1e-12), (analyzer, c.value, d.value)
    groupings = {a.grouping for a in ANALYZERS if hasattr(a, "grouping")}
    # two aggregations, as on a local session: the compiled aggregates, and in a job of
    # their own those Spark runs interpreted (collect_set of HyperLogLog codes, percentile_approx)
    assert connect.stats.scans == 2 + len(groupings)
    aggregations = [line for line in connect.stats.log if line.startswith("scan: aggregate")]
    assert aggregations == ["scan: aggregate 23", "scan: aggregate 2"]


def test_beers_suite_on_connect_is_identical_to_duckdb(spark_connect, dirty_clean):
    path = dirty_clean / "beers" / "dirty.csv"
    beers = (
        new_connection()
        .sql(
            f"SELECT *, TRY_CAST(rtrim(abv, '%') AS DOUBLE) AS abv_value "
            f"FROM read_csv('{path}', header = true)"
        )
        .to_arrow_table()
    )
    checks = _beer_checks()
    duck = VerificationSuite().on_data(beers).add_checks(checks).run()
    connect = VerificationSuite().on_data(spark_connect.createDataFrame(beers)).add_checks(checks)
    _assert_identical(duck, connect.run())


def test_whole_table_suggest_on_connect_reads_the_text_once_and_matches_duckdb(
    spark_connect, dirty_clean
):
    frame = text_frame(dirty_clean / "beers" / "clean.csv").head(300)[["id", "style", "state"]]
    local = ConstraintSuggestionRunner.on_data(frame).run()
    connect = ConstraintSuggestionRunner.on_data(spark_connect.createDataFrame(frame)).run()
    assert [s.to_dict() for s in connect.suggestions] == [s.to_dict() for s in local.suggestions]
    assert connect.stats.log.count("scan: hold 3 columns") == 1
    assert "scan: text batches" not in connect.stats.log


def test_suite_runner_on_connect_with_rename(spark_connect, dirty_clean):
    """A saved suite (Deequ and pattern constraints) runs on a Connect DataFrame as on DuckDB."""
    zip_code = PatternConstraint(
        regex=pattern_regex("<digit>+"),
        pattern="<digit>+",
        segments=(),
        fpr=0.0,
        method="fmdv-vh",
        test="fisher",
        alpha=0.01,
        train_n=1000,
        train_nonconforming=0,
        column="ZipCode",
    )
    suite = ConstraintSuite(
        (
            CheckSpec(
                "hospital",
                CheckLevel.ERROR,
                (
                    ConstraintSpec("is_complete", {"column": "provider_number"}),
                    ConstraintSpec(
                        "is_contained_in",
                        {"column": "emergency_service", "allowed_values": ["yes", "no"]},
                        Assertion(">=", 0.99),
                    ),
                    zip_code,
                ),
            ),
        )
    )
    suite = ConstraintSuite.from_dict(suite.to_dict())  # as read back from JSON
    path = dirty_clean / "hospital" / "dirty.csv"
    text = new_connection().sql(f"SELECT * FROM read_csv('{path}', all_varchar=true)")
    text = text.to_arrow_table()
    assert isinstance(text, pa.Table)
    duck = suite.run(text, rename={"ZipCode": "zip"})
    connect = suite.run(spark_connect.createDataFrame(text), rename={"ZipCode": "zip"})
    assert connect.check_results_as_rows() == duck.check_results_as_rows()
    assert connect.status is duck.status
    outcome = connect.check_results[0].constraint_results[2]
    assert outcome.message is not None and outcome.details is not None  # the 30 typos fail it
    assert outcome.details["nonconforming_fraction"] == pytest.approx(30 / 1000)


def test_index_job_refuses_a_connect_session_in_one_line(spark_connect, lake_mini, tmp_path):
    from autovalidate.index.build import build_index

    with pytest.raises(IndexBuildError) as info:
        build_index(spark_connect, str(lake_mini), str(tmp_path / "index"))
    message = str(info.value)
    assert "\n" not in message
    assert "Spark Connect" in message and "spark-submit" in message
    assert not (tmp_path / "index").exists()
