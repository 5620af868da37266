"""The examples of docs/deequ.md and of the docstrings run and hold."""

from __future__ import annotations

import pytest

import autovalidate.analysis.runner
import autovalidate.checks.verification
from tests.docs_support import assert_doctests_pass, run_markdown_examples


def test_markdown_examples_run_in_order():
    namespace = run_markdown_examples("deequ.md", at_least=4)
    assert namespace["whole"].status.value == "Success"
    assert namespace["one_day"].metrics.stats.scans == 0


@pytest.mark.parametrize("module", [autovalidate.analysis.runner, autovalidate.checks.verification])
def test_docstring_examples(module):
    assert_doctests_pass(module)
