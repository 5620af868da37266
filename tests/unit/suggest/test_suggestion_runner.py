"""Profiles and whole-table suggestions on real tables (real DuckDB): passes, laws, evaluation."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from autovalidate.checks import Check, CheckLevel, ConstrainableDataType, VerificationSuite
from autovalidate.checks.spec import ConstraintSuite
from autovalidate.errors import ColumnNotFoundError, ParameterError
from autovalidate.metrics import DataTypeInstance
from autovalidate.pattern_constraint import PatternConstraint
from autovalidate.suggest import ConstraintSuggestionRunner, profile_columns

TABLES = ("flights", "hospital", "beers", "rayyan")


def text_frame(path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False).replace("", None)


@pytest.fixture(scope="module")
def suggested(dirty_clean):
    """``ConstraintSuggestionRunner.on_data(clean.csv).run()`` of a table, run once per module.

    The run with the default index takes ~20 s on rayyan; two tests read the same result
    (neither changes it), so it is computed once.
    """
    results = {}

    def of(table: str):
        if table not in results:
            results[table] = ConstraintSuggestionRunner.on_data(
                dirty_clean / table / "clean.csv"
            ).run()
        return results[table]

    return of


def test_profile_passes_share_scans():
    data = pd.DataFrame(
        {
            "id": ["1", "2", "3", "4"],
            "price": ["9.5", "12", None, "3.25"],
            "status": ["new", "paid", "paid", "new"],
            "n": [1, 2, 3, 4],
        }
    )
    profiles = profile_columns(data)
    # pass 1: one scan; pass 2: one scan (id and price are text holding numbers);
    # pass 3: one grouping per low-cardinality column (all four here), of the
    # columns read once (held) for them
    assert profiles.stats.scans == 1 + 1 + 1
    assert sum(line.startswith("query: group") for line in profiles.stats.log) == 4
    assert profiles["price"].data_type is DataTypeInstance.FRACTIONAL
    assert profiles["price"].is_data_type_inferred
    assert profiles["price"].completeness == 0.75
    assert profiles["price"].minimum == 3.25 and profiles["price"].maximum == 12.0
    assert profiles["n"].data_type is DataTypeInstance.INTEGRAL
    assert not profiles["n"].is_data_type_inferred
    assert profiles["status"].min_length == 3 and profiles["status"].max_length == 4
    assert profiles.num_records == 4
    typed_only = profile_columns(data[["status", "n"]], low_cardinality_threshold=0)
    assert typed_only.stats.scans == 1  # no cast pass, no histograms


def test_profile_of_csv_reads_text_and_rejects_unknown_columns(dirty_clean):
    path = dirty_clean / "beers" / "clean.csv"
    profiles = profile_columns(path, columns=["ounces", "ibu"])
    assert list(profiles.profiles) == ["ounces", "ibu"]
    frame = text_frame(path)
    assert profiles["ibu"].completeness == pytest.approx(frame["ibu"].notna().mean())
    assert profiles["ounces"].mean == pytest.approx(frame["ounces"].astype(float).mean())
    with pytest.raises(ColumnNotFoundError):
        profile_columns(path, columns=["nope"])
    with pytest.raises(ParameterError):
        profile_columns(path, low_cardinality_threshold=-1)


@pytest.mark.parametrize("table", TABLES)
def test_suggestions_hold_on_the_data_they_come_from(dirty_clean, suggested, table):
    """Every suggestion holds on its own data; is_unique stays only where the column is unique."""
    path = dirty_clean / table / "clean.csv"
    result = suggested(table)
    assert result.pattern_rule == "applied"  # with the default index
    frame = text_frame(path)
    verification = result.to_suite().run(path)
    for row, suggestion in zip(
        [r for check in verification.check_results for r in check.constraint_results],
        result.suggestions,
        strict=True,
    ):
        assert row.status.value == "Success", (suggestion.code, row.message)
        if suggestion.rule == "UniqueIfApproximatelyUniqueRule":
            values = frame[suggestion.column]
            truly_unique = not values.duplicated().any()
            kind = suggestion.constraint.constraint
            assert kind == ("is_unique" if truly_unique else "has_uniqueness"), suggestion.column
            assert (suggestion.adjustment is None) is truly_unique
            if not truly_unique:  # the bound: the true uniqueness rounded down to 2 decimals
                uniqueness = (values.map(values.value_counts()) == 1).mean()
                bound = suggestion.constraint.assertion.value
                assert uniqueness - 0.01 < bound <= uniqueness
                assert "weakened to .has_uniqueness" in suggestion.reason
    rules = {s.rule for s in result.suggestions}
    assert {"CompleteIfCompleteRule", "HasMinLength", "HasMaxLength"} <= rules


def test_suggestion_code_builds_the_same_check_as_the_suite(dirty_clean, suggested):
    path = dirty_clean / "rayyan" / "clean.csv"
    result = suggested("rayyan")
    suite = result.to_suite()
    namespace = {  # what the generated code imports, pattern constraints' included
        "Check": Check,
        "CheckLevel": CheckLevel,
        "ConstrainableDataType": ConstrainableDataType,
        "PatternConstraint": PatternConstraint,
        "json": json,
    }
    for spec, suggestions in zip(
        suite.checks,
        [result.suggestions_for(c.description.split("'")[1]) for c in suite.checks],
        strict=True,
    ):
        code = f"Check(CheckLevel.ERROR, {spec.description!r})" + "".join(
            s.code for s in suggestions
        )
        from_code = eval(code, namespace)  # noqa: S307 - our own generated code
        with_code = VerificationSuite().on_data(text_frame(path)).add_check(from_code).run()
        with_spec = VerificationSuite().on_data(text_frame(path)).add_check(spec.to_check()).run()
        assert with_code.check_results_as_rows() == with_spec.check_results_as_rows()


def test_train_test_split_partitions_the_rows_and_evaluates_each_suggestion(dirty_clean):
    path = dirty_clean / "hospital" / "clean.csv"
    runner = ConstraintSuggestionRunner.on_data(path)
    first = runner.use_train_test_split_with_testset_ratio(0.9, seed=3).run()
    again = ConstraintSuggestionRunner.on_data(path)
    second = again.use_train_test_split_with_testset_ratio(0.9, seed=3).run()
    test_rows = first.test_records
    assert first.num_records + test_rows == 1000
    assert 40 < first.num_records < 160  # about 10 % of 1000 rows
    assert [s.to_dict() for s in first.suggestions] == [s.to_dict() for s in second.suggestions]
    rows = first.evaluation_rows()
    assert len(rows) == len(first.suggestions)
    assert {r["status"] for r in rows} <= {"Success", "Failure"}
    complete = [r for r in rows if r["rule"] == "CompleteIfCompleteRule"]
    assert all(r["metric"] == 1.0 for r in complete)  # no column of hospital has a null
    assert first.evaluation.check_results[0].check.level is CheckLevel.WARNING
    doc = json.loads(json.dumps(first.to_dict()))
    assert doc["evaluation"]["constraints"][0]["column"] == "index"
    with pytest.raises(ParameterError):
        ConstraintSuggestionRunner.on_data(path).use_train_test_split_with_testset_ratio(1.0)


def test_pattern_rule_with_an_index(small_index):
    data = pd.DataFrame(
        {
            "when": [
                f"{m:02d}/{d:02d}/{y}"
                for m, d, y in zip(range(1, 13), range(1, 13), range(2000, 2012), strict=True)
            ],
            "n": [str(i) for i in range(12)],  # Integral: no pattern rule
        }
    )
    result = (
        ConstraintSuggestionRunner.on_data(data).with_pattern_index(small_index, r=0.5, m=1).run()
    )
    assert result.pattern_rule == "applied"
    patterns = [s for s in result.suggestions if s.rule == "AutoValidatePatternRule"]
    assert [s.column for s in patterns] == ["when"]
    constraint = patterns[0].constraint
    assert isinstance(constraint, PatternConstraint) and constraint.column == "when"
    assert constraint.validate(list(data["when"])).n_nonconforming == 0
    namespace = {
        "Check": Check,
        "CheckLevel": CheckLevel,
        "PatternConstraint": PatternConstraint,
        "json": json,
    }
    check = eval("Check(CheckLevel.ERROR, 'p')" + patterns[0].code, namespace)  # noqa: S307
    bad = pd.DataFrame({"when": ["2020-01-01"] * 12})
    assert VerificationSuite().on_data(bad).add_check(check).run().status.value == "Error"
    suite = ConstraintSuite.from_dict(json.loads(result.to_suite().to_json()))
    assert suite.run(data).status.value in ("Success", "Error")  # runs; uniqueness may fail
    assert suite.pattern_constraints() == [constraint]


@pytest.mark.spark
def test_spark_and_duckdb_suggest_the_same(spark, dirty_clean):
    frame = text_frame(dirty_clean / "beers" / "clean.csv").head(400)[
        ["id", "style", "ounces", "abv", "state"]
    ]
    local = ConstraintSuggestionRunner.on_data(frame).run()
    distributed = ConstraintSuggestionRunner.on_data(spark.createDataFrame(frame)).run()
    assert [s.to_dict() for s in local.suggestions] == [
        s.to_dict() for s in distributed.suggestions
    ]
    # Spark collected the columns' text in one job for the pattern rule, not a job a column
    log = distributed.stats.log
    assert log.count("scan: hold 5 columns") == 1 and "scan: text batches" not in log
    assert log.count("query: text batches") == local.stats.log.count("query: text batches") > 0
    split = (
        ConstraintSuggestionRunner.on_data(spark.createDataFrame(frame))
        .use_train_test_split_with_testset_ratio(0.5, seed=1)
        .run()
    )
    assert split.num_records + split.test_records == 400
