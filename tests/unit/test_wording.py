"""Counted nouns: messages say `1 constraint`, never `1 constraints` (issue 31)."""

from __future__ import annotations

import autovalidate.wording
from autovalidate.report.model import validation_report, validation_rows
from autovalidate.wording import counted
from tests.docs_support import assert_doctests_pass


def test_doctests():
    assert_doctests_pass(autovalidate.wording)


def test_one_is_singular_and_zero_plural():
    assert [counted(n, "check") for n in (0, 1, 2)] == ["0 checks", "1 check", "2 checks"]


def test_the_validate_summary_of_one_constraint_in_one_check(tmp_path):
    from autovalidate.checks import ConstraintSuite

    data = tmp_path / "d.csv"
    data.write_text("a\n1\n2\n")
    check = {
        "description": "one",
        "level": "Error",
        "constraints": [{"kind": "deequ", "constraint": "is_complete", "column": "a"}],
    }
    suite = ConstraintSuite.from_dict(
        {"format": "autovalidate-suite", "version": 2, "checks": [check]}
    )
    result = suite.run(str(data))
    report = validation_report(suite, result, validation_rows(suite, result), data)
    assert report.summary.startswith("1 constraint in 1 check: 1 passed, 0 failed, 0 warnings")
