"""The CLI and the Python API read a CSV file the same way (issue 14): equal metrics.

On the four real dirty/clean tables, one suite names for every column a text
metric (completeness, distinct values, uniqueness, data type, lengths, a
pattern) and a numeric one (minimum, maximum, mean, sum, standard deviation,
a quantile), plus a correlation. ``autovalidate validate FILE --json`` and
``VerificationSuite().on_data(FILE)`` must agree on every constraint's value,
status and message: the CSV is text exactly as written on both paths, and
numeric metrics read it cast to doubles on both. (Before, the API sniffed
types: a zip code ``01234`` was a number of length 5 on one path and 4 on the
other, a column of ``12.0`` had another data type.)
"""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from autovalidate.checks import CheckLevel, VerificationSuite
from autovalidate.checks.spec import Assertion, CheckSpec, ConstraintSpec, ConstraintSuite
from autovalidate.cli import app
from autovalidate.engines import open_engine
from autovalidate.metrics.base import plain

TABLES = ["beers", "flights", "hospital", "rayyan"]


def _suite(columns: list[str]) -> ConstraintSuite:
    at_least = Assertion(">=", 0.0)
    checks = []
    for column in columns:
        one = {"column": column}
        constraints = [
            ConstraintSpec("has_completeness", one, Assertion(">=", 0.99)),
            ConstraintSpec("has_approx_count_distinct", one, at_least),
            ConstraintSpec("has_uniqueness", {"columns": [column]}, Assertion(">=", 0.5)),
            ConstraintSpec("has_data_type", {**one, "data_type": "Integral"}, at_least),
            ConstraintSpec("has_min_length", one, Assertion(">=", 2.0)),
            ConstraintSpec("has_max_length", one, Assertion("<=", 40.0)),
            ConstraintSpec("has_pattern", {**one, "pattern": "[0-9]+"}, at_least),
            ConstraintSpec("has_min", one, at_least),
            ConstraintSpec("has_max", one, Assertion("<=", 1e6)),
            ConstraintSpec("has_mean", one, at_least),
            ConstraintSpec("has_sum", one, at_least),
            ConstraintSpec("has_standard_deviation", one, Assertion("<=", 100.0)),
            ConstraintSpec("has_approx_quantile", {**one, "quantile": 0.5}, at_least),
            ConstraintSpec("has_exact_quantile", {**one, "quantile": 0.9}, at_least),
            ConstraintSpec("has_interquartile_range", one, at_least),
            ConstraintSpec("has_range", one, Assertion("<=", 1e6)),
        ]
        checks.append(CheckSpec(f"column {column!r}", CheckLevel.WARNING, tuple(constraints)))
    pair = {"column_a": columns[0], "column_b": columns[-1]}
    checks.append(
        CheckSpec(
            "pair",
            CheckLevel.ERROR,
            (
                ConstraintSpec("has_correlation", pair, Assertion(">=", -1.0)),
                ConstraintSpec("has_size", {}, Assertion(">=", 1.0)),
            ),
        )
    )
    return ConstraintSuite(tuple(checks))


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("version", ["clean", "dirty"])
def test_cli_and_api_give_equal_metrics(dirty_clean, tmp_path, table, version):
    data = dirty_clean / table / f"{version}.csv"
    with open_engine(str(data)) as engine:
        columns = list(engine.schema())
    suite = _suite(columns)
    suite_file = tmp_path / "suite.json"
    suite_file.write_text(suite.to_json())

    cli = CliRunner().invoke(app, ["validate", str(data), "-c", str(suite_file), "--json"])
    assert cli.exit_code in (0, 1), cli.output
    rows = json.loads(cli.stdout)["results"]

    api = VerificationSuite().on_data(str(data)).add_checks(suite.to_checks()).run()
    outcomes = [c for check in api.check_results for c in check.constraint_results]

    assert len(rows) == len(outcomes) == len(suite.constraints)
    differ = [
        (row["label"], row["value"], plain(outcome.value))
        for row, outcome in zip(rows, outcomes, strict=True)
        if not _same(row["value"], plain(outcome.value))
        or row["constraint_status"] != outcome.status.value
        or row["constraint_message"] != (outcome.message or "")
    ]
    assert differ == []
    # the numeric metrics were computed (on the cast text), not failed alike on both paths
    means = [
        outcome.value
        for outcome in outcomes
        if str(outcome.constraint).startswith("MeanConstraint") and outcome.value is not None
    ]
    assert len(means) >= 1, [str(o.constraint) for o in outcomes if o.value is None][:5]
    assert json.loads(cli.stdout)["status"] == api.status.value
