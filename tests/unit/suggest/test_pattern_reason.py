"""`infer_pattern` says why a column has no pattern constraint, in one pass (issue 32).

On the packaged default index: a real index, the one a pip user has.
"""

from __future__ import annotations

import pytest

from autovalidate import open_default_index, suggest_pattern
from autovalidate.pattern_inference import NoPatternReason, infer_pattern
from autovalidate.solver.fmdv import SolverParams

TIMESTAMPS = [f"2021-03-{1 + i % 28:02d} {i % 24:02d}:{i % 60:02d}:00" for i in range(120)]


@pytest.fixture(scope="module")
def index():
    with open_default_index() as idx:
        yield idx


def test_all_missing_values_say_so(index) -> None:
    got = infer_pattern(["NA", "N/A", " ", None, "-"], index)
    assert got.constraint is None and got.reason is NoPatternReason.ALL_MISSING


def test_no_feasible_hypothesis_says_so(index) -> None:
    # r = 0: no hypothesis pattern has an estimated FPR of exactly 0 for free text
    words = ["the quick brown fox", "jumps over", "a lazy dog, twice!", "and then? nothing."] * 5
    got = infer_pattern(words, index, params=SolverParams(max_fpr=0.0))
    assert got.constraint is None and got.reason is NoPatternReason.INFEASIBLE
    assert "r" in got.reason.explanation and "coverage" in got.reason.explanation


def test_a_constraint_has_no_reason_and_is_suggest_patterns(index) -> None:
    got = infer_pattern(TIMESTAMPS, index, params=SolverParams(max_fpr=0.1, theta=0.05))
    assert got.reason is None and got.constraint is not None
    same = suggest_pattern(TIMESTAMPS, index, r=0.1, theta=0.05)
    assert same is not None and same.to_dict() == got.constraint.to_dict()
    assert got.constraint.params["r"] == 0.1 and got.constraint.params["theta"] == 0.05
