"""The examples of docs/deequ.md and of the docstrings run and hold."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

import autovalidate.checks.verification
import autovalidate.metrics.runner

DOC = Path(__file__).resolve().parents[3] / "docs" / "deequ.md"


def test_markdown_examples_run_in_order():
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) >= 4
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)  # noqa: S102 - our own documentation
    assert namespace["whole"].status.value == "Success"
    assert namespace["one_day"].metrics.stats.scans == 0


@pytest.mark.parametrize("module", [autovalidate.metrics.runner, autovalidate.checks.verification])
def test_docstring_examples(module):
    failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0
