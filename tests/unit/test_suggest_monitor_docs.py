"""The examples of docs/suggest-and-monitor.md and of the new modules' docstrings run and hold."""

from __future__ import annotations

import pytest

import autovalidate.anomaly.change
import autovalidate.anomaly.exponential_smoothing
import autovalidate.anomaly.simple_threshold
import autovalidate.checks.spec
import autovalidate.profiles
import autovalidate.repository.base
import autovalidate.repository.duckdb
import autovalidate.suggest.rules
import autovalidate.suggest.runner
from tests.docs_support import assert_doctests_pass, run_markdown_examples


def test_markdown_examples_run_in_order():
    namespace = run_markdown_examples("suggest-and-monitor.md", at_least=4)
    assert namespace["decision"].accepted is False
    assert ("Completeness", "note") in [(s.name, s.column) for s in namespace["decision"].rejecting]


@pytest.mark.parametrize(
    "module",
    [
        autovalidate.checks.spec,
        autovalidate.profiles,
        autovalidate.suggest.rules,
        autovalidate.suggest.runner,
        autovalidate.repository.base,
        autovalidate.repository.duckdb,
        autovalidate.anomaly.change,
        autovalidate.anomaly.simple_threshold,
        autovalidate.anomaly.exponential_smoothing,
    ],
)
def test_docstring_examples(module):
    assert_doctests_pass(module)
