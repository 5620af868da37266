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
from tests.docs_support import assert_doctests_pass, markdown_blocks, run_markdown_examples


def test_markdown_examples_run_in_order(capsys):
    namespace = run_markdown_examples("suggest-and-monitor.md", at_least=4)
    assert namespace["decision"].accepted is False
    rejecting = [(s.name, s.column) for s in namespace["decision"].rejecting]
    assert ("Completeness", "note") in rejecting and ("ApproxCountDistinct", "note") in rejecting
    # the page shows what the batch example prints, each rejected statistic and its interval
    printed = capsys.readouterr().out.splitlines()
    block = markdown_blocks("suggest-and-monitor.md")[-1]
    shown = [line[2:] for line in block.splitlines() if line.startswith("# ")]
    assert shown == printed[-len(rejecting) :] and len(shown) == len(rejecting) == 4
    # the Warning of the anomaly check comes from its threshold, as the page says
    (row,) = namespace["result"].check_results_as_rows()
    assert row["constraint_message"].endswith("Value 200.0 is not in bounds [-inf, 180.0]")


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
