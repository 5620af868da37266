"""docs/interop.md's Python examples run and hold; the export modules' doctests pass."""

from __future__ import annotations

import autovalidate.export.regex
from tests.docs_support import assert_doctests_pass, run_markdown_examples


def test_interop_examples_run():
    namespace = run_markdown_examples("interop.md", at_least=2)
    assert set(namespace["exports"]) == {"gx", "soda", "dqdl", "dbt", "pandera"}


def test_regex_translation_doctests():
    assert_doctests_pass(autovalidate.export.regex)
