"""docs/pipelines.md: the hospital example runs; the Airflow and Dagster examples compile."""

from __future__ import annotations

import autovalidate as av
from tests.docs_support import compile_markdown_examples, run_markdown_examples


def test_the_hospital_example_runs():
    namespace = run_markdown_examples("pipelines.md", at_least=1)
    assert namespace["result"].status is av.CheckStatus.ERROR
    assert len(namespace["bad_zips"]) == 30
    # it fails for the reasons the page gives: the zip typos and the emergency service typos
    failed = {
        row["label"].split("(", 1)[0]: row["constraint_message"]
        for row in namespace["result"].rows()
        if not row["passed"]
    }
    assert failed == {
        "PatternMatchConstraint": "Value: 0.97 does not meet the constraint requirement!",
        "ComplianceConstraint": "Value: 0.973 does not meet the constraint requirement!",
    }


def test_the_orchestrator_examples_compile():
    shown = "\n".join(compile_markdown_examples("pipelines.md", at_least=3))
    assert "@task" in shown and "@dg.asset_check" in shown and "raise_for_status()" in shown
