"""Check constraints: which metric each one asserts on, statuses, and Deequ's messages."""

from __future__ import annotations

import pytest

from autovalidate.checks import (
    Check,
    CheckLevel,
    CheckStatus,
    ConstrainableDataType,
    ConstraintStatus,
    VerificationSuite,
)
from autovalidate.errors import ParameterError
from autovalidate.metrics import Completeness, Size
from tests.deequ_support import arrow

DATA = arrow(
    {
        "id": [1, 2, 3, 4, 5],
        "dup": [1, 1, 2, 3, 4],
        "price": [10.0, 20.0, None, 5.0, 0.0],
        "low": [1, 2, 3, 4, 5],
        "high": [2, 3, 3, 5, 6],
        "status": ["new", "paid", "paid", "sent", None],
        "code": ["AB-1", "AB-2", "XY", "AB-4", "AB-5"],
        "num_text": ["1", "2.5", "x", "4", None],
    }
)


def _statuses(check: Check) -> list[str]:
    result = VerificationSuite().on_data(DATA).add_check(check).run()
    return [c.status.value for r in result.check_results for c in r.constraint_results]


def _check() -> Check:
    return Check(CheckLevel.ERROR, "test")


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        (lambda c: c.is_complete("id").is_complete("price"), ["Success", "Failure"]),
        (lambda c: c.has_completeness("price", lambda v: v == 0.8), ["Success"]),
        (lambda c: c.is_unique("id").is_unique("dup"), ["Success", "Failure"]),
        (lambda c: c.has_uniqueness(["id", "dup"], lambda v: v == 1.0), ["Success"]),
        (lambda c: c.has_uniqueness("dup", lambda v: v == 0.6), ["Success"]),
        (lambda c: c.has_distinctness("dup", lambda v: v == 0.8), ["Success"]),
        (lambda c: c.has_unique_value_ratio("dup", lambda v: v == 0.75), ["Success"]),
        (
            lambda c: c.has_count_distinct("dup", lambda n: n == 4 and isinstance(n, int)),
            ["Success"],
        ),
        (lambda c: c.has_approx_count_distinct("dup", lambda n: n == 4), ["Success"]),
        (lambda c: c.is_contained_in("status", ["new", "paid", "sent"]), ["Success"]),
        (lambda c: c.is_contained_in("status", ["new", "paid"]), ["Failure"]),
        (lambda c: c.is_contained_in("status", ["new", "paid"], lambda v: v == 0.8), ["Success"]),
        (
            lambda c: c.is_pair_contained_in(
                "status", "code", [("new", "AB-1"), ("paid", "AB-2"), ("paid", "XY")]
            ),
            ["Failure"],  # ("sent", "AB-4") and (None, "AB-5") are in no pair
        ),
        (
            lambda c: c.is_pair_contained_in(
                "status",
                "code",
                [("new", "AB-1"), ("paid", "AB-2"), ("paid", "XY"), ("sent", "AB-4")],
                lambda v: v == 0.8,
            ),
            ["Success"],
        ),
        (
            lambda c: c.is_pair_contained_in(
                "status",
                "code",
                [
                    ["new", "AB-1"],
                    ["paid", "AB-2"],
                    ["paid", "XY"],
                    ["sent", "AB-4"],
                    [None, "AB-5"],
                ],
            ),
            ["Success"],  # a None matches the null
        ),
        (
            lambda c: c.is_pair_contained_in("low", "high", [(3, 3)], lambda v: v == 0.2),
            ["Success"],
        ),
        (lambda c: c.is_in_range("price", 0, 20), ["Success"]),
        (lambda c: c.is_in_range("price", 0, 20, include_lower_bound=False), ["Failure"]),
        (lambda c: c.is_non_negative("price").is_positive("price"), ["Success", "Failure"]),
        (
            lambda c: c.is_non_negative("num_text"),
            ["Success"],
        ),  # non-numbers count as 0, as in Deequ
        (
            lambda c: c.is_less_than("low", "high").is_less_than_or_equal_to("low", "high"),
            ["Failure", "Success"],
        ),
        (lambda c: c.is_greater_than("high", "low", lambda v: v == 0.8), ["Success"]),
        (lambda c: c.is_greater_than_or_equal_to("high", "low"), ["Success"]),
        (lambda c: c.satisfies("price > 1", "price above one", lambda v: v == 0.6), ["Success"]),
        (lambda c: c.has_size(lambda n: n == 5 and isinstance(n, int)), ["Success"]),
        (lambda c: c.has_size(lambda n: n == 2, where="id > 3"), ["Success"]),
        (
            lambda c: c.has_min("price", lambda v: v == 0.0).has_max("price", lambda v: v == 20.0),
            ["Success", "Success"],
        ),
        (
            lambda c: c.has_mean("price", lambda v: v == 8.75).has_sum(
                "price", lambda v: v == 35.0
            ),
            ["Success", "Success"],
        ),
        (lambda c: c.has_standard_deviation("low", lambda v: abs(v - 2**0.5) < 1e-12), ["Success"]),
        (lambda c: c.has_approx_quantile("low", 0.5, lambda v: v == 3.0), ["Success"]),
        (lambda c: c.has_correlation("low", "high", lambda v: v > 0.9), ["Success"]),
        (lambda c: c.has_entropy("dup", lambda v: v > 1.0), ["Success"]),
        (lambda c: c.has_mutual_information("low", "high", lambda v: v > 0), ["Success"]),
        (lambda c: c.has_histogram_values("status", lambda d: d.ratio("paid") == 0.4), ["Success"]),
        (lambda c: c.has_pattern("code", r"[A-Z]{2}-[0-9]"), ["Failure"]),
        (lambda c: c.has_pattern("code", r"[A-Z]{2}-[0-9]", lambda v: v == 0.8), ["Success"]),
        (lambda c: c.has_pattern("code", r"AB"), ["Failure"]),  # full match: "AB-1" is not "AB"
        (
            lambda c: c.has_data_type(
                "num_text", ConstrainableDataType.NUMERIC, lambda v: v == 0.75
            ),
            ["Success"],
        ),
        (
            lambda c: c.has_data_type("num_text", ConstrainableDataType.NULL, lambda v: v == 0.2),
            ["Success"],
        ),
        (lambda c: c.has_data_type("id", ConstrainableDataType.INTEGRAL), ["Success"]),
        (
            lambda c: c.has_min_length("code", lambda v: v == 2).has_max_length(
                "code", lambda v: v == 4
            ),
            ["Success", "Success"],
        ),
    ],
)
def test_constraints_assert_on_the_right_metric(build, expected):
    assert _statuses(build(_check())) == expected


@pytest.mark.parametrize("pairs", [[], [("new",)], [("new", "AB-1", "x")]])
def test_allowed_pairs_must_be_pairs(pairs):
    with pytest.raises(ParameterError, match="pairs of two values"):
        _check().is_pair_contained_in("status", "code", pairs)


def test_more_allowed_pairs_than_a_predicate_should_hold_are_refused():
    pairs = [(f"s{i}", f"c{i}") for i in range(1_001)]
    _check().is_pair_contained_in("status", "code", pairs[:1_000])
    with pytest.raises(ParameterError, match="1,001 allowed pairs, more than 1,000"):
        _check().is_pair_contained_in("status", "code", pairs)


def test_two_nulls_pass_a_pair_check_and_one_null_needs_a_pair_with_none():
    data = arrow({"a": ["x", None, None], "b": ["y", None, "y"]})
    check = _check().is_pair_contained_in("a", "b", [("x", "y")], lambda v: v == 2 / 3)
    result = VerificationSuite().on_data(data).add_check(check).run()
    assert result.status is CheckStatus.SUCCESS


def test_where_restricts_the_constraint():
    check = _check().is_complete("price", where="id <> 3").is_complete("price")
    assert _statuses(check) == ["Success", "Failure"]


def test_check_status_follows_the_level():
    failing = lambda level: Check(level, "c").is_complete("price")  # noqa: E731
    warning = failing(CheckLevel.WARNING).evaluate({})
    assert warning.status is CheckStatus.WARNING
    assert failing(CheckLevel.ERROR).evaluate({}).status is CheckStatus.ERROR
    assert Check(CheckLevel.ERROR, "empty").evaluate({}).status is CheckStatus.SUCCESS


def test_checks_are_immutable():
    base = _check()
    extended = base.is_complete("id")
    assert base.constraints == () and len(extended.constraints) == 1


def test_constraint_names_follow_deequ():
    check = (
        _check()
        .is_complete("id")
        .is_unique("id")
        .has_size(lambda n: n > 0)
        .is_non_negative("price")
        .has_pattern("code", "[A-Z]+")
    )
    assert [str(c) for c in check.constraints] == [
        "CompletenessConstraint(Completeness(id,None))",
        "UniquenessConstraint(Uniqueness([id],None))",
        "SizeConstraint(Size(None))",
        'ComplianceConstraint(Compliance(price is non-negative,(coalesce(TRY_CAST("price" AS '
        "DOUBLE), 0.0) >= 0),None,[price]))",
        "PatternMatchConstraint(code, [A-Z]+)",
    ]


def test_failure_messages_follow_deequ():
    check = (
        _check()
        .has_completeness("price", lambda v: v > 0.9, hint="price is required")
        .is_complete("no_such_column")
        .has_min("price", lambda v: 1 / 0)
        .has_size(lambda n: True)
    )
    result = VerificationSuite().on_data(DATA).add_check(check).run()
    messages = [c.message for c in result.check_results[0].constraint_results]
    assert messages[0] == "Value: 0.8 does not meet the constraint requirement! price is required"
    assert messages[1].startswith("column 'no_such_column' not found")
    assert messages[2] == "Can't execute the assertion: division by zero!"
    assert messages[3] is None


def test_a_missing_analysis_fails_the_constraint():
    result = _check().is_complete("id").evaluate({Size(): None})  # type: ignore[dict-item]
    (constraint,) = result.constraint_results
    assert constraint.status is ConstraintStatus.FAILURE
    assert constraint.message == "Missing Analysis, can't run the constraint!"


def test_results_carry_the_metric_and_the_asserted_value():
    result = VerificationSuite().on_data(DATA).add_check(_check().has_size(lambda n: n > 3)).run()
    (constraint,) = result.check_results[0].constraint_results
    assert constraint.value == 5 and constraint.metric.value == 5.0
    assert result.metrics.metric(Size()).value == 5.0


def test_required_analyzers_are_unique():
    check = _check().is_complete("id").has_completeness("id", lambda v: v > 0.5)
    assert check.required_analyzers() == (Completeness("id"),)
