"""The suite and constraint schemas (issue 30): types, ranges, a digest of the verdict fields."""

from __future__ import annotations

import json

import pytest

from autovalidate.checks.check import CheckLevel, ConstrainableDataType
from autovalidate.checks.spec import _OPS, ConstraintSuite
from autovalidate.drift import TESTS
from autovalidate.errors import ConstraintFormatError
from autovalidate.pattern_constraint import PatternConstraint, verdict_digest
from autovalidate.schemas import (
    ASSERTION_OPS,
    CHECK_LEVELS,
    DATA_TYPES,
    DRIFT_TESTS,
    METHODS,
)
from tests.spark_support import CODE_CONSTRAINT


def test_the_schemas_names_are_the_codes():
    assert DRIFT_TESTS == list(TESTS)
    assert CHECK_LEVELS == [level.value for level in CheckLevel]
    assert DATA_TYPES == [t.value for t in ConstrainableDataType]
    assert ASSERTION_OPS == [*_OPS, "between"]
    from autovalidate.solver.fmdv import METHODS as SOLVER_METHODS

    assert METHODS == list(SOLVER_METHODS)


def constraint(**changes: object) -> dict:
    """A tolerant pattern constraint as suggest writes it, with ``changes`` made by hand."""
    return {**CODE_CONSTRAINT.to_dict(), **changes}


def suite(*constraints: dict) -> dict:
    return {
        "format": "autovalidate-suite",
        "version": 2,
        "checks": [{"description": "d", "level": "Error", "constraints": list(constraints)}],
    }


HAND_EDITED = {
    "alpha as a string": (constraint(alpha="0.01"), "alpha: must be a number, not '0.01'"),
    "null tokens as a string": (
        constraint(null_tokens="NULL"),
        "null_tokens: must be a list, not 'NULL'",
    ),
    "train_n true": (constraint(train_n=True), "train_n: must be an integer, not True"),
    "alpha out of range": (constraint(alpha=1.5), "alpha: 1.5 is greater than or equal"),
    "negative count": (constraint(train_nonconforming=-1), "train_nonconforming: -1 is less"),
    "unknown test": (constraint(test="none"), "unknown drift test 'none'"),
    "unknown field": (constraint(tolerance=0.5), "'tolerance' was unexpected"),
    "allowed values as a string": (
        {"kind": "deequ", "constraint": "is_contained_in", "column": "a", "allowed_values": "abc"},
        "allowed_values: must be a list, not 'abc'",
    ),
    "a bound of 10**400": (
        {"kind": "deequ", "constraint": "has_size", "assertion": {"op": ">=", "value": 10**400}},
        "assertion.value: 1000000000000000000000000000000000000000... is greater than the maximum",
    ),
    "a bound as a string": (
        {"kind": "deequ", "constraint": "has_size", "assertion": {"op": ">=", "value": "3"}},
        "assertion.value: must be a number or a list, not '3'",
    ),
}


@pytest.mark.parametrize("case", sorted(HAND_EDITED))
def test_a_hand_edited_suite_is_refused_naming_file_path_and_type(tmp_path, case):
    item, needle = HAND_EDITED[case]
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(suite(constraint(), item)))
    with pytest.raises(ConstraintFormatError) as info:
        ConstraintSuite.load(path)
    message = str(info.value)
    assert message.startswith(f"{path}: $.checks[0].constraints[1]")
    assert needle in message and "\n" not in message


@pytest.mark.parametrize(
    "edit",
    [
        {"train_nonconforming": 200},  # a tolerance 100 times wider: the check switched off
        {"train_n": 1000},
        {"null_tokens": ["NULL", "x5957"]},  # a typo declared missing
        {"alpha": 1e-300},
        {"test": "strict"},
        {"method": "fmdv"},
    ],
)
def test_an_edit_of_a_verdict_field_breaks_the_digest(edit):
    doc = constraint(**edit)
    with pytest.raises(ConstraintFormatError, match="do not match its digest"):
        PatternConstraint.from_dict(doc)
    with pytest.raises(ConstraintFormatError, match="do not match its digest"):
        ConstraintSuite.from_dict(suite(doc), source="s.json")


def test_fields_outside_the_verdict_and_digestless_constraints_still_load():
    assert PatternConstraint.from_dict(constraint(column="zip")).column == "zip"
    old = constraint()
    del old["digest"]  # written before the digest existed
    assert PatternConstraint.from_dict(old) == PatternConstraint.from_dict(constraint())
    assert verdict_digest(constraint()) == constraint()["digest"]


def test_every_check_method_argument_has_a_place_in_the_schema():
    import inspect

    from autovalidate.checks.check import SUITE_METHODS, Check
    from autovalidate.schemas import SUITE_SCHEMA

    deequ = SUITE_SCHEMA["allOf"][1]["then"]["properties"]["checks"]["items"]["properties"]
    fields = deequ["constraints"]["items"]["allOf"][0]["then"]["properties"]
    for method in SUITE_METHODS:
        names = list(inspect.signature(getattr(Check, method)).parameters)[1:]
        assert set(names) <= set(fields), (method, set(names) - set(fields))
