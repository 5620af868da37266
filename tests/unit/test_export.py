"""Exports of a hand-made suite: every mapped constraint kind, the skipped ones, the tolerance."""

from __future__ import annotations

import json

import pytest
import yaml
from typer.testing import CliRunner

from autovalidate import CheckLevel, ConstraintSuite, PatternConstraint
from autovalidate.checks.spec import Assertion, CheckSpec, ConstraintSpec
from autovalidate.cli import app
from autovalidate.drift import drift_test
from autovalidate.errors import ParameterError
from autovalidate.export import TARGETS, export_suite
from autovalidate.export.tolerance import tolerance
from autovalidate.patterns.render import pattern_regex


def _pattern(column: str, pattern: str, bad: int, test: str = "fisher") -> PatternConstraint:
    return PatternConstraint(
        regex=pattern_regex(pattern),
        pattern=pattern,
        segments=(),
        fpr=0.01,
        method="fmdv-vh" if test != "strict" else "fmdv",
        test=test,
        alpha=0.01,
        train_n=500,
        train_nonconforming=bad,
        column=column,
    )


SUITE = ConstraintSuite(
    (
        CheckSpec(
            "orders",
            CheckLevel.ERROR,
            (
                ConstraintSpec("is_complete", {"column": "id"}),
                ConstraintSpec("is_unique", {"column": "id"}),
                ConstraintSpec("has_completeness", {"column": "note"}, Assertion(">=", 0.9)),
                ConstraintSpec(
                    "is_contained_in", {"column": "status", "allowed_values": ["open", "shut"]}
                ),
                ConstraintSpec("is_non_negative", {"column": "amount"}),
                ConstraintSpec("has_size", {}, Assertion("between", (10, 20))),
                ConstraintSpec("has_max_length", {"column": "code"}, Assertion("<=", 8)),
                ConstraintSpec("has_entropy", {"column": "status"}, Assertion(">", 1)),
                _pattern("code", "<upper>{2}-<digit>+", 5),
                _pattern("zip", "<digit>{5}", 0, "strict"),
            ),
        ),
        CheckSpec(
            "soft",
            CheckLevel.WARNING,
            (ConstraintSpec("has_min_length", {"column": "code"}, Assertion(">=", 3)),),
        ),
    )
)


def test_tolerance_is_the_fisher_tests_own_critical_count():
    rule = _pattern("code", "<digit>+", 5)
    bound = tolerance(rule)
    assert bound.batch_size == 500 and bound.note is not None

    def drift(k: int) -> bool:
        return drift_test(5, 500, k, 500, test="fisher", alpha=0.01).drift

    assert not drift(bound.max_count) and drift(bound.max_count + 1)
    assert 5 < bound.max_count < 50
    assert bound.mostly == pytest.approx(1 - bound.max_count / 500)
    strict = tolerance(_pattern("zip", "<digit>{5}", 0, "strict"))
    assert (strict.max_count, strict.note) == (0, None)


def test_every_target_maps_the_same_constraints_and_states_the_mapping():
    for target in TARGETS:
        out = export_suite(SUITE, target, name="orders", rename={"zip": "postal_code"})
        reasons = {s.constraint.split("(")[0]: s.reason for s in out.skipped}
        assert ".has_entropy" in reasons, target
        assert out.exported + len(out.skipped) == len(SUITE.constraints)
        if target != "gx":
            assert out.text.startswith("# Exported by autovalidate"), target
        assert "postal_code" in out.text  # the rule reads the renamed column


def test_gx_expectations():
    out = export_suite(SUITE, "gx", name="orders")
    doc = json.loads(out.text)
    by_type = {}
    for e in doc["expectations"]:
        by_type.setdefault(e["type"], []).append(e)
    (regex_code, regex_zip) = by_type["expect_column_values_to_match_regex"]
    assert regex_code["kwargs"]["regex"] == "^(?:[A-Z]{2}\\-[0-9]+)(?![\\s\\S])"
    assert 0.9 < regex_code["kwargs"]["mostly"] < 0.99
    assert "mostly" not in regex_zip["kwargs"]  # strict: no tolerance
    assert by_type["expect_column_values_to_not_be_null"][1]["kwargs"]["mostly"] == 0.9
    assert by_type["expect_table_row_count_to_be_between"][0]["kwargs"] == {
        "min_value": 10,
        "max_value": 20,
    }
    lengths = by_type["expect_column_value_lengths_to_be_between"]
    assert [e["kwargs"] for e in lengths] == [
        {"column": "code", "max_value": 8},
        {"column": "code", "min_value": 3},
    ]
    assert lengths[1]["severity"] == "warning" and lengths[0]["severity"] == "critical"
    assert any("ASCII" in n for n in out.notes)


def test_soda_checks():
    out = export_suite(SUITE, "soda", name="orders")
    checks = yaml.safe_load(out.text)["checks for orders"]
    keys = [c if isinstance(c, str) else next(iter(c)) for c in checks]
    assert "missing_count(id) = 0" in keys and "duplicate_count(id) = 0" in keys
    assert "missing_percent(note) <= 10 %" in keys
    assert "row_count between 10 and 20" in keys
    (code,) = [
        c for c in checks if isinstance(c, dict) and "invalid_percent(code)" in next(iter(c))
    ]
    assert next(iter(code.values()))["valid regex"] == "^([A-Z]{2}-[0-9]+)$"
    (soft,) = [c for c in checks if isinstance(c, dict) and "min_length(code)" in c]
    assert soft["min_length(code)"]["warn"] == "when < 3"


def test_dqdl_rules():
    out = export_suite(SUITE, "dqdl", name="orders")
    assert 'ColumnValues "code" matches "^(?:\\p{Lu}{2}\\-[0-9]+)\\z" with threshold >= 0.9' in (
        out.text
    )
    assert 'ColumnValues "zip" matches "^(?:[0-9]{5})\\z"\n' in out.text or (
        'ColumnValues "zip" matches "^(?:[0-9]{5})\\z",' in out.text
    )
    assert "(RowCount >= 10) and (RowCount <= 20)" in out.text
    assert 'Completeness "note" >= 0.9' in out.text
    assert 'ColumnValues "status" in ["open", "shut"]' in out.text


def test_dbt_tests():
    out = export_suite(SUITE, "dbt", name="orders")
    model = yaml.safe_load(out.text)["models"][0]
    columns = {c["name"]: c["data_tests"] for c in model["columns"]}
    assert columns["id"] == ["not_null", "unique"]
    (regex,) = [
        t for t in columns["code"] if "dbt_expectations.expect_column_values_to_match_regex" in t
    ]
    body = regex["dbt_expectations.expect_column_values_to_match_regex"]
    assert body["arguments"] == {"regex": "^([A-Z]{2}-[0-9]+)$", "is_raw": True}
    assert int(body["config"]["error_if"][1:]) == tolerance(_pattern("c", "<digit>+", 5)).max_count
    assert model["data_tests"] == [
        {
            "dbt_expectations.expect_table_row_count_to_be_between": {
                "arguments": {"min_value": 10, "max_value": 20}
            }
        }
    ]
    assert "has_completeness" in {s.constraint.split("(")[0][1:] for s in out.skipped}


def test_pandera_schema():
    out = export_suite(SUITE, "pandera", name="orders")
    columns = yaml.safe_load(out.text)["columns"]
    assert columns["id"] == {"dtype": None, "nullable": False, "unique": True}
    assert columns["code"]["str_matches"] == "\\A(?:[A-Z]{2}\\-[0-9]+)\\Z"
    assert columns["code"]["str_length"] == {"max_value": 8, "min_value": 3}
    assert columns["amount"]["greater_than_or_equal_to"] == 0
    assert any("exported strict" in n for n in out.notes)


def test_unknown_target():
    with pytest.raises(ParameterError, match="unknown export target"):
        export_suite(SUITE, "sql", name="x")


def test_cli_export(tmp_path):
    suite = tmp_path / "orders-suite.json"
    suite.write_text(SUITE.to_json())
    runner = CliRunner()
    result = runner.invoke(app, ["export", str(suite), "--to", "dqdl"])
    assert result.exit_code == 0, result.output
    assert "Rules = [" in result.stdout and "has_entropy" in result.stderr
    out = tmp_path / "orders.yml"
    result = runner.invoke(app, ["export", str(suite), "--to", "soda", "-o", str(out)])
    assert result.exit_code == 0 and "checks for orders_suite:" in out.read_text()
    result = runner.invoke(app, ["export", str(suite), "--to", "gx", "--json", "--name", "o"])
    doc = json.loads(result.stdout)
    assert doc["exported"] == 10 and json.loads(doc["text"])["name"] == "o"
    result = runner.invoke(app, ["export", str(tmp_path / "missing.json"), "--to", "gx"])
    assert result.exit_code == 2 and "missing.json" in result.stderr
