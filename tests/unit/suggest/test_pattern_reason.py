"""`infer_pattern` says why a column has no pattern constraint, in one pass (issue 32).

On the packaged default index: a real index, the one a pip user has.
"""

from __future__ import annotations

import json

import pytest

from autovalidate import EmptyColumnError, open_default_index, suggest_pattern
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


@pytest.mark.parametrize(
    "values", [[], [None, None], [None, float("nan")]], ids=["none", "nulls", "nan"]
)
def test_no_non_null_value_is_an_error_not_a_reason(index, values) -> None:
    """Nulls are no values to give a reason for: EmptyColumnError, in a readable message."""
    with pytest.raises(EmptyColumnError, match=r"^no non-null values were given$"):
        infer_pattern(values, index)
    with pytest.raises(EmptyColumnError, match=r"^column 'zip' has no non-null values$"):
        suggest_pattern(values, index, column="zip")


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


# look-alike recipients: local parts joined by '.' or '_', domains of two or three labels
# with a hyphen in some: after alignment two positions hold two different symbols each
# (and, with the space of "to: ", no identifier cut: identifiers have no whitespace)
ADDRESSES = [
    f"to: {['john', 'mary.k', 'a_b', 'x99'][i % 4]}{i}@"
    f"{['example.com', 'mail.acme.org', 'foo-bar.net'][i % 3]}"
    for i in range(120)
]


def test_an_abstention_says_which_positions_no_element_covers(index) -> None:
    got = infer_pattern(ADDRESSES, index, diagnose_abstention=True)
    assert got.constraint is None and got.reason is NoPatternReason.INFEASIBLE
    found = got.diagnosis
    assert found is not None and found.retained == 1.0
    assert ("-", ".") in found.uncovered and (".", "_") in found.uncovered
    assert found.uncovered_count == 2
    assert any("'.' or '_'" in line for line in found.lines)


def test_an_abstention_says_when_the_shape_risk_is_beyond_the_budget(index) -> None:
    # two sentences: prose, whose words the corpus's columns keep growing new shapes of
    prose = ["Read their body language to see if they are interested.", "Ask them, twice!"] * 30
    got = infer_pattern(prose, index, diagnose_abstention=True)
    found = got.diagnosis
    assert got.constraint is None and found is not None
    assert found.shapes == 2 and found.shape_beyond_budget
    assert found.max_position_risk == SolverParams().max_position_risk
    assert any("max_position_risk=0.05" in line for line in found.lines)
    # the budget given is the one compared
    wide = infer_pattern(
        prose, index, params=SolverParams(max_position_risk=1.0), diagnose_abstention=True
    ).diagnosis
    assert wide is None or not wide.shape_beyond_budget


def test_no_diagnosis_unless_asked_without_vertical_cuts_or_with_a_constraint(index) -> None:
    assert infer_pattern(ADDRESSES, index).diagnosis is None  # suggest_pattern's path
    asked = {"diagnose_abstention": True}
    assert infer_pattern(ADDRESSES, index, method="fmdv-h", **asked).diagnosis is None
    assert infer_pattern(TIMESTAMPS, index, **asked).diagnosis is None


def test_the_cli_prints_the_diagnosis_and_takes_the_budget(tmp_path) -> None:
    from typer.testing import CliRunner

    from autovalidate.cli import app

    data = tmp_path / "addresses.csv"
    data.write_text("address\n" + "\n".join(ADDRESSES) + "\n")
    runner = CliRunner()
    page = tmp_path / "report.html"
    shown = runner.invoke(app, ["suggest", str(data), "--column", "address", "--html", str(page)])
    assert shown.exit_code == 0, shown.output
    assert "no constraint" in shown.output and "'.' or '_'" in " ".join(shown.output.split())
    assert "2 aligned positions" in page.read_text() and "max_position_risk" in page.read_text()
    missing = tmp_path / "missing.csv"
    missing.write_text("address\nNA\nN/A\n")
    runner.invoke(app, ["suggest", str(missing), "-c", "address", "--html", str(page)])
    assert "every value is missing" in page.read_text()
    doc = json.loads(
        runner.invoke(
            app,
            ["suggest", str(data), "-c", "address", "--max-position-risk", "0.2", "--json"],
        ).output
    )
    assert doc["constraint"] is None and "max_position_risk" in doc["reason"]
    assert doc["diagnosis"]["max_position_risk"] == 0.2
    assert doc["diagnosis"]["uncovered_texts"] == [[".", "_"], ["-", "."]]
    bad = runner.invoke(app, ["suggest", str(data), "-c", "address", "--max-position-risk", "2"])
    assert bad.exit_code == 2


def test_a_constraint_records_every_solver_parameter(index) -> None:
    got = suggest_pattern(TIMESTAMPS, index, max_position_risk=0.04, max_shortfall=0.0)
    assert got is not None
    assert got.params["max_position_risk"] == 0.04 and got.params["max_shortfall"] == 0.0
    assert got.params["objective"] == SolverParams().objective
