"""VerificationSuite: overall status, Deequ-style rows, JSON, stored states, pattern rules."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import pyarrow as pa
import pytest

from autovalidate.analysis import InMemoryStateProvider, PartitionedStates
from autovalidate.checks import (
    Check,
    CheckLevel,
    CheckStatus,
    ConstraintStatus,
    VerificationSuite,
)
from autovalidate.checks.verification import CHECK_RESULT_COLUMNS
from autovalidate.metrics import PatternConformance, Size
from tests.deequ_support import PatternDecision, arrow

ORDERS = arrow(
    {
        "id": [1, 2, 3, 4],
        "zip": ["12345", "2345", None, "54321"],
        "amount": [10.0, -1.0, 3.0, None],
    }
)


@dataclass
class _ToleranceRule:
    """A pattern rule test double: fails when over ``tolerance`` of the values do not conform."""

    regex: str
    tolerance: float
    calls: list[tuple[int, int]]
    null_tokens: tuple[str, ...] = ()

    def evaluate_counts(self, n_nonconforming: int, n_values: int) -> PatternDecision:
        self.calls.append((n_nonconforming, n_values))
        fraction = n_nonconforming / n_values if n_values else 0.0
        passed = fraction <= self.tolerance
        return PatternDecision(
            passed, f"{n_nonconforming} of {n_values} values do not conform", fraction
        )


def _suite(*checks: Check):
    return VerificationSuite().on_data(ORDERS).add_checks(checks)


def test_overall_status_is_the_worst_check_status():
    ok = Check(CheckLevel.ERROR, "ok").is_complete("id")
    warn = Check(CheckLevel.WARNING, "warn").is_complete("zip")
    err = Check(CheckLevel.ERROR, "err").is_non_negative("amount")
    assert _suite(ok).run().status is CheckStatus.SUCCESS
    assert _suite(ok, warn).run().status is CheckStatus.WARNING
    assert _suite(ok, warn, err).run().status is CheckStatus.ERROR


def test_rows_have_deequs_columns():
    check = Check(CheckLevel.WARNING, "orders").is_complete("id").is_complete("zip")
    rows = _suite(check).run().check_results_as_rows()
    assert [tuple(r) for r in rows] == [CHECK_RESULT_COLUMNS] * 2
    assert rows[0] == {
        "check": "orders",
        "check_level": "Warning",
        "check_status": "Warning",
        "constraint": "CompletenessConstraint(Completeness(id,None))",
        "constraint_status": "Success",
        "constraint_message": "",
    }
    assert rows[1]["constraint_message"] == "Value: 0.75 does not meet the constraint requirement!"
    frame = _suite(check).run().check_results_as_pandas()
    assert list(frame.columns) == list(CHECK_RESULT_COLUMNS) and len(frame) == 2


def test_json_export_has_statuses_messages_and_metric_values():
    check = (
        Check(CheckLevel.ERROR, "orders")
        .has_mean("amount", lambda m: m > 100)
        .has_histogram_values("zip", lambda d: True)
        .has_correlation("id", "id", lambda c: math.isnan(c) or c > 0)
    )
    parsed = json.loads(_suite(check).run().to_json())
    assert parsed["status"] == "Error"
    mean, histogram, _ = parsed["checks"][0]["constraints"]
    assert mean["constraint_status"] == "Failure"
    assert mean["metric"] == {
        "entity": "Column",
        "instance": "amount",
        "name": "Mean",
        "value": 4.0,
        "error": None,
    }
    assert histogram["metric"]["value"]["values"]["NullValue"] == {"absolute": 1, "ratio": 0.25}


def test_all_checks_share_one_scan():
    checks = [
        Check(CheckLevel.ERROR, "a").is_complete("id").has_size(lambda n: n > 0),
        Check(CheckLevel.WARNING, "b").is_unique("id").has_mean("amount", lambda m: m > 0),
        Check(CheckLevel.WARNING, "c").has_distinctness("id", lambda d: d == 1.0),
    ]
    result = _suite(*checks).run()
    assert result.metrics.stats.scans == 2  # one aggregation, one grouping on id


def test_required_analyzers_are_computed_too():
    result = _suite().add_required_analyzer(Size(where="id > 2")).run()
    assert result.status is CheckStatus.SUCCESS
    assert result.metrics.metric(Size(where="id > 2")).value == 2.0


def test_pattern_rule_decides_on_counts_from_the_shared_scan():
    rule = _ToleranceRule(r"\A(?:[0-9]{5})\z", tolerance=0.2, calls=[])
    check = (
        Check(CheckLevel.ERROR, "zips").satisfies_pattern_constraint("zip", rule).is_complete("id")
    )
    result = _suite(check).run()
    assert rule.calls == [(1, 3)]  # "2345" does not conform; the null is not counted
    assert result.metrics.stats.scans == 1
    constraint = result.check_results[0].constraint_results[0]
    assert constraint.status is ConstraintStatus.FAILURE
    assert constraint.message == "1 of 3 values do not conform"
    assert constraint.value == pytest.approx(1 / 3)
    assert constraint.details == {"passed": False, "nonconforming_fraction": 1 / 3}
    assert str(constraint.constraint) == r"PatternConstraint(zip, \A(?:[0-9]{5})\z)"
    lenient = _ToleranceRule(rule.regex, tolerance=0.5, calls=[])
    passed = _suite(
        Check(CheckLevel.ERROR, "zips").satisfies_pattern_constraint("zip", lenient)
    ).run()
    assert passed.status is CheckStatus.SUCCESS
    assert passed.check_results[0].constraint_results[0].message is None
    assert json.loads(passed.to_json())["checks"][0]["constraints"][0]["details"]["passed"] is True


def test_pattern_rule_on_a_missing_column_fails_without_calling_the_rule():
    rule = _ToleranceRule("x", 0.0, calls=[])
    result = _suite(Check(CheckLevel.ERROR, "c").satisfies_pattern_constraint("nope", rule)).run()
    assert rule.calls == [] and result.status is CheckStatus.ERROR
    assert PatternConformance("nope", "x") in result.metrics.metrics


def test_incremental_verification_with_stored_states():
    check = Check(CheckLevel.ERROR, "orders").is_unique("id").has_size(lambda n: n == 6)
    states = InMemoryStateProvider()
    first = VerificationSuite().on_data(ORDERS).add_check(check).save_states_with(states).run()
    assert first.status is CheckStatus.ERROR  # 4 rows only
    delta = arrow({"id": [5, 6], "zip": ["11111", None], "amount": [1.0, 2.0]})
    second = VerificationSuite().on_data(delta).add_check(check).aggregate_with(states).run()
    assert second.status is CheckStatus.SUCCESS
    duplicate = arrow({"id": [1, 7], "zip": [None, None], "amount": [None, None]})
    third = VerificationSuite().on_data(duplicate).add_check(check).aggregate_with(states).run()
    assert [c.status.value for c in third.check_results[0].constraint_results] == [
        "Failure",
        "Success",
    ]


def test_verification_of_partitions_from_states(tmp_path):
    check = Check(CheckLevel.ERROR, "orders").is_unique("id").has_size(lambda n: n >= 4)
    store = PartitionedStates(tmp_path)
    store.update("eu", ORDERS, check.required_analyzers())
    store.update(
        "us",
        pa.table({"id": [9, 10], "zip": ["1", "2"], "amount": [1.0, 1.0]}),
        check.required_analyzers(),
    )
    suite = VerificationSuite()
    assert suite.run_on_aggregated_states([check], store.loaders()).status is CheckStatus.SUCCESS
    assert (
        suite.run_on_aggregated_states([check], store.loaders(["us"])).status is CheckStatus.ERROR
    )
    # the us partition is replaced by one that repeats an id of eu
    store.update(
        "us", pa.table({"id": [1], "zip": ["1"], "amount": [1.0]}), check.required_analyzers()
    )
    replaced = suite.run_on_aggregated_states([check], store.loaders())
    assert [c.status.value for c in replaced.check_results[0].constraint_results] == [
        "Failure",
        "Success",
    ]
    assert replaced.metrics.stats.scans == 0
