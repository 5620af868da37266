"""The examples of docs/suggest-and-monitor.md and of the new modules' docstrings run and hold."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

import autovalidate.anomaly.change
import autovalidate.anomaly.exponential_smoothing
import autovalidate.anomaly.simple_threshold
import autovalidate.repository.base
import autovalidate.repository.duckdb
import autovalidate.suggest.profile
import autovalidate.suggest.rules
import autovalidate.suggest.runner
import autovalidate.suite

DOC = Path(__file__).resolve().parents[2] / "docs" / "suggest-and-monitor.md"


def test_markdown_examples_run_in_order():
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) >= 4
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)  # noqa: S102 - our own documentation
    assert namespace["decision"].accepted is False
    assert ("Completeness", "note") in [(s.name, s.column) for s in namespace["decision"].rejecting]


@pytest.mark.parametrize(
    "module",
    [
        autovalidate.suite,
        autovalidate.suggest.profile,
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
    failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0
