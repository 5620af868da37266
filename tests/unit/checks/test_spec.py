"""Constraint suites as data: assertions, Deequ constraint specs, checks, versions, running."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from autovalidate.checks import CheckLevel
from autovalidate.checks.spec import (
    Assertion,
    CheckSpec,
    ConstraintSpec,
    ConstraintSuite,
    analyzer_from_dict,
    analyzer_to_dict,
    load_suite,
    suite_to_json,
)
from autovalidate.errors import ColumnNotFoundError, ConstraintFormatError
from autovalidate.metrics import Mean
from autovalidate.pattern_constraint import PatternConstraint


@pytest.mark.parametrize(
    "op,bound,value,expected",
    [
        ("==", 1.0, 1.0, True),
        ("!=", 1.0, 1.0, False),
        ("<", 2, 1.5, True),
        ("<=", 2, 2.0, True),
        (">", 2, 2.0, False),
        (">=", 0.92, 0.92, True),
        ("between", [1, 3], 3.0, True),
        ("between", [1, 3], 3.1, False),
    ],
)
def test_assertions_mean_what_they_say(op, bound, value, expected):
    assertion = Assertion.from_dict({"op": op, "value": bound})
    assert assertion(value) is expected
    assert eval(assertion.code())(value) is expected  # noqa: S307 - the generated lambda agrees
    assert Assertion.from_dict(assertion.to_dict()) == assertion


@pytest.mark.parametrize(
    "doc",
    [
        {"op": "~", "value": 1},
        {"op": ">=", "value": "a"},
        {"op": "between", "value": 3},
        {"op": ">="},
    ],
)
def test_bad_assertions_are_format_errors(doc):
    with pytest.raises(ConstraintFormatError):
        Assertion.from_dict(doc)


def test_specs_are_checked_against_the_check_methods():
    with pytest.raises(ConstraintFormatError, match="unknown constraint"):
        ConstraintSpec("drop_table", {"column": "a"})
    with pytest.raises(ConstraintFormatError, match="has_completeness"):
        ConstraintSpec("has_completeness", {"column": "a"})  # needs an assertion
    with pytest.raises(ConstraintFormatError, match="is_complete"):
        ConstraintSpec("is_complete", {"colum": "a"})
    with pytest.raises(ConstraintFormatError, match="data type"):
        ConstraintSpec("has_data_type", {"column": "a", "data_type": "Integer"})
    spec = ConstraintSpec("is_in_range", {"column": "a", "lower_bound": 0, "upper_bound": 5})
    assert spec.code() == ".is_in_range('a', 0, 5)"
    assert ConstraintSpec.from_dict(spec.to_dict()) == spec


def test_analyzers_as_data_round_trip():
    assert analyzer_from_dict(analyzer_to_dict(Mean("price", "x > 0"))) == Mean("price", "x > 0")
    with pytest.raises(ConstraintFormatError):
        analyzer_from_dict({"analyzer": "Nope"})
    with pytest.raises(ConstraintFormatError):
        analyzer_from_dict({"analyzer": "Mean", "colum": "x"})


def _suite() -> ConstraintSuite:
    return ConstraintSuite(
        (
            CheckSpec(
                "errors",
                CheckLevel.ERROR,
                (
                    ConstraintSpec("is_complete", {"column": "id"}),
                    ConstraintSpec("is_unique", {"column": "id"}),
                    ConstraintSpec("has_mean", {"column": "price"}, Assertion("between", (1, 20))),
                ),
            ),
            CheckSpec(
                "warnings",
                CheckLevel.WARNING,
                (
                    ConstraintSpec(
                        "is_contained_in",
                        {"column": "status", "allowed_values": ["new", "paid"]},
                        hint="statuses changed",
                    ),
                    ConstraintSpec("has_data_type", {"column": "price", "data_type": "Fractional"}),
                ),
            ),
        )
    )


def test_suite_json_round_trip_and_levels(tmp_path):
    suite = _suite()
    path = tmp_path / "suite.json"
    path.write_text(suite.to_json())
    assert ConstraintSuite.load(path) == suite
    good = pd.DataFrame({"id": [1, 2], "price": [1.5, 2.5], "status": ["new", "paid"]})
    assert suite.run(good).status.value == "Success"
    warned = pd.DataFrame({"id": [1, 2], "price": [1.5, 2.5], "status": ["new", "gone"]})
    result = suite.run(warned)
    assert result.status.value == "Warning"
    assert "statuses changed" in result.check_results[1].constraint_results[0].message
    broken = pd.DataFrame({"id": [1, 1], "price": [1.5, 2.5], "status": ["new", "paid"]})
    assert suite.run(broken).status.value == "Error"


def _one_check(*constraints: ConstraintSpec) -> ConstraintSuite:
    return ConstraintSuite((CheckSpec("c", CheckLevel.ERROR, constraints),))


def test_csv_columns_are_text_and_numeric_statistics_cast(tmp_path):
    path = tmp_path / "batch.csv"
    path.write_text("id,price,status\n007,1.50,new\n008,,paid\n009,x,paid\n")
    suite = _one_check(
        ConstraintSpec("has_pattern", {"column": "id", "pattern": "0[0-9]{2}"}),
        ConstraintSpec("has_mean", {"column": "price"}, Assertion("==", 1.5)),
        ConstraintSpec("has_completeness", {"column": "price"}, Assertion("==", 2 / 3)),
        ConstraintSpec("has_data_type", {"column": "price", "data_type": "Fractional"}),
    )
    result = suite.run(path)
    statuses = [c.status.value for c in result.check_results[0].constraint_results]
    # "007" stays text; the mean is over the values that are numbers; completeness and type
    # see the text ("x" is a value, of type String)
    assert statuses == ["Success", "Success", "Success", "Failure"]
    assert result.metrics.stats.scans == 1  # one scan: the mean casts the text inside it


def test_a_correlation_of_csv_columns_reads_both_cast(tmp_path):
    path = tmp_path / "batch.csv"
    path.write_text("a,b,note\n1,2,x\n2,4.0,y\n3,x,z\n4,8,w\n")
    pair = {"column_a": "a", "column_b": "b"}
    suite = _one_check(ConstraintSpec("has_correlation", pair, Assertion(">=", 0.99)))
    outcome = suite.run(path).check_results[0].constraint_results[0]
    # the row with "x" is no pair; the other three lie on a line
    assert outcome.status.value == "Success" and outcome.value == pytest.approx(1.0)


def _three_digits(column: str) -> PatternConstraint:
    """A strict pattern constraint: three digits."""
    return PatternConstraint(
        regex=r"\A(?:[0-9]{3})\z",
        pattern="<digit>{3}",
        segments=(),
        fpr=0.0,
        method="fmdv",
        test="strict",
        alpha=0.01,
        train_n=3,
        train_nonconforming=0,
        column=column,
    )


def test_a_run_renames_columns_and_brings_examples_of_a_failing_pattern():
    pattern = _three_digits("ZipCode")
    suite = ConstraintSuite.from_dict(pattern.to_dict())
    batch = pd.DataFrame({"zip": ["123", "4567", None, "89", "012", "x"], "ZipCode": ["1"] * 6})
    result = suite.run(batch, rename={"ZipCode": "zip"})
    outcome = result.check_results[0].constraint_results[0]
    assert outcome.status.value == "Failure"
    assert outcome.details["n_nonconforming"] == 3
    assert outcome.details["examples"] == ["4567", "89", "x"]  # in batch order
    first = suite.run(batch, rename={"ZipCode": "zip"}, examples=1).check_results[0]
    assert first.constraint_results[0].details["examples"] == ["4567"]
    # without the rename, the suite reads the batch's own ZipCode column
    assert suite.run(batch).check_results[0].constraint_results[0].details["n_nonconforming"] == 6
    with pytest.raises(ColumnNotFoundError):
        suite.run(batch, rename={"ZipCode": "postcode"})


def test_version_1_suites_and_single_constraints_still_read(tmp_path):
    pattern = _three_digits("id")
    v1 = tmp_path / "v1.json"
    v1.write_text(suite_to_json([pattern]))
    suite = ConstraintSuite.load(v1)
    assert len(suite.checks) == 1 and suite.checks[0].level is CheckLevel.ERROR
    assert suite.pattern_constraints() == [pattern]
    single = tmp_path / "one.json"
    single.write_text(pattern.to_json())
    assert ConstraintSuite.load(single) == suite
    assert suite.run(pd.DataFrame({"id": ["123", "456"]})).status.value == "Success"
    assert suite.run(pd.DataFrame({"id": ["123", "45"]})).status.value == "Error"
    mixed = tmp_path / "mixed.json"
    mixed.write_text(_suite().to_json())
    with pytest.raises(ConstraintFormatError, match="Deequ constraints"):
        load_suite(mixed)


@pytest.mark.parametrize(
    "doc,needle",
    [
        ({"format": "autovalidate-suite", "version": 3, "checks": []}, "version 3"),
        ({"format": "autovalidate-suite", "version": 2, "checks": {}}, "must be a list"),
        (
            {
                "format": "autovalidate-suite",
                "version": 2,
                "checks": [{"level": "Fatal", "constraints": []}],
            },
            "check level",
        ),
        (
            {
                "format": "autovalidate-suite",
                "version": 2,
                "checks": [{"constraints": [{"kind": "x"}]}],
            },
            "unknown constraint kind",
        ),
        ({"kind": "deequ"}, "neither"),
    ],
)
def test_malformed_suites(tmp_path, doc, needle):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ConstraintFormatError, match=needle):
        ConstraintSuite.load(path)


def test_anomaly_constraints_need_a_repository():
    spec = ConstraintSpec(
        "has_no_anomalies",
        {
            "analyzer": {"analyzer": "Size", "where": None},
            "strategy": {"strategy": "SimpleThreshold", "upper_bound": 10, "lower_bound": 0},
            "dataset": "orders",
        },
    )
    suite = ConstraintSuite((CheckSpec("a", CheckLevel.ERROR, (spec,)),))
    with pytest.raises(ConstraintFormatError, match="repository"):
        suite.run(pd.DataFrame({"a": [1]}))
    assert spec.code().startswith(".has_no_anomalies(Size(), strategy_from_dict(")
