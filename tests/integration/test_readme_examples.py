"""The README's Python examples run as written and print what their comments say (issue 31).

Each example's outcome is checked with its reason: which constraint failed
and its message, not only that something failed. The Deequ example used to
check the clean table's column names on the dirty table, whose header names
them differently, and failed for that reason alone.
"""

from __future__ import annotations

import contextlib
import io
from typing import Any

import pytest

from tests.docs_support import README, assert_prints_what_it_says, readme_blocks

pytestmark = pytest.mark.spark


def _run(block: str, namespace: dict[str, Any]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, str(README), "exec"), namespace)  # noqa: S102 - our own README
    return out.getvalue()


@pytest.fixture(scope="module")
def ran(spark, dirty_clean) -> list[tuple[str, str, dict[str, Any]]]:
    """(block, what it printed, namespace after it) for the README's Python blocks, in order."""
    import os

    blocks = readme_blocks("In Python") + readme_blocks("Deequ metric checks beside the patterns")
    assert len(blocks) == 4, blocks
    namespace: dict[str, Any] = {"spark": spark}
    out = []
    cwd = os.getcwd()
    os.chdir(README.parent)  # the examples run from the repository root
    try:
        for block in blocks:
            out.append((block, _run(block, namespace), dict(namespace)))
    finally:
        os.chdir(cwd)
    return out


def test_every_example_prints_what_its_comments_say(ran):
    for block, printed, _ in ran:
        assert_prints_what_it_says(block, printed)


def test_the_pattern_example_fails_the_dirty_zips_for_their_typos(ran):
    _, _, ns = ran[0]
    constraint, result = ns["constraint"], ns["result"]
    assert constraint.pattern == "<digit>{5}" and constraint.index["default"] is True
    assert not result.passed and result.n_nonconforming == 30 and result.n_values == 1000
    assert result.message.startswith("'ZipCode': failed: 3.00% non-conforming vs 0.00%")


def test_the_spark_example_counts_the_same_typos(ran):
    _, _, ns = ran[1]
    assert ns["result"].n_nonconforming == 30 and not ns["result"].passed
    assert "x5957" in ns["result"].examples


def test_the_suite_example_splits_off_the_30_rows_and_raises_for_the_pattern(ran):
    _, printed, ns = ran[2]
    invalid = ns["invalid"]
    assert invalid.columns[-1] == "_broken_constraints"
    assert {z for (z,) in invalid.select("zip").fetchall()} >= {"x5957", "3595x"}
    (failure,) = ns["result"].rows()
    assert failure["label"] == "pattern('ZipCode', <digit>{5})" and not failure["passed"]
    assert "3.00% non-conforming" in printed.splitlines()[-1]


def test_the_deequ_example_fails_for_its_real_typos_not_missing_columns(ran):
    block, printed, ns = ran[3]
    rows = ns["result"].check_results_as_rows()
    failed = {
        r["constraint"].split("(", 1)[0]: r["constraint_message"]
        for r in rows
        if r["constraint_status"] != "Success"
    }
    assert set(failed) == {"ComplianceConstraint", "PatternConstraint"}, rows
    message = "Value: 0.973 does not meet the constraint requirement!"
    assert failed["ComplianceConstraint"] == message
    assert failed["PatternConstraint"].startswith("'ZipCode': failed: 3.00% non-conforming")
    assert "not found" not in printed
    passed = [r["constraint"] for r in rows if r["constraint_status"] == "Success"]
    assert passed == [
        "CompletenessConstraint(Completeness(provider_number,None))",
        "CompletenessConstraint(Completeness(phone,None))",
    ]
    # the prose under the example quotes the two failures
    section = README.read_text().split("## Deequ metric checks", 1)[1]
    assert message in section
