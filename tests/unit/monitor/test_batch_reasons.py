"""Why ``validate-batch`` rejects a batch, in words: a statistic the batch lacks is missing.

The summary said ``outside the interval: ApproxCountDistinct(dest)`` of a
batch without a ``dest`` column, which has no value to be outside anything.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from typer.testing import CliRunner

from autovalidate.cli import app
from autovalidate.monitor.batches import (
    BatchValidationResult,
    StatisticDecision,
    record_batch,
    validate_batch,
)
from autovalidate.report.model import batch_report
from autovalidate.repository import ResultKey
from autovalidate.repository.memory import InMemoryMetricsRepository


def _decision(name: str, column: str, status: str) -> StatisticDecision:
    value = None if status == "missing" else 1.0
    return StatisticDecision(f"{name}({column})", name, column, value, 5, 1.0, 0.0, 2.0, status)


def test_the_reasons_name_what_is_outside_and_what_is_missing_apart():
    result = BatchValidationResult(
        "d",
        False,
        (
            _decision("Mean", "price", "rejected"),
            _decision("Size", "*", "accepted"),
            _decision("ApproxCountDistinct", "dest", "missing"),
            _decision("Completeness", "dest", "missing"),
            _decision("Maximum", "price", "not checked"),
        ),
        5,
        {},
    )
    assert result.reasons() == (
        "outside the interval: Mean(price); "
        "missing from the batch: ApproxCountDistinct(dest), Completeness(dest)"
    )
    only_missing = BatchValidationResult("d", False, result.statistics[2:3], 5, {})
    assert only_missing.reasons() == "missing from the batch: ApproxCountDistinct(dest)"
    assert BatchValidationResult("d", True, result.statistics[1:2], 5, {}).reasons() == ""


def _orders() -> pd.DataFrame:
    """The same batch every day: only a missing column can reject one."""
    rng = np.random.default_rng(5)
    return pd.DataFrame(
        {
            "price": [f"{x:.2f}" for x in rng.normal(20, 1, 200)],
            "dest": rng.choice(["BOS", "LAX", "SFO"], 200),
        }
    )


def test_a_batch_without_a_column_is_rejected_as_missing_it(tmp_path: Path):
    repo = InMemoryMetricsRepository()
    for day in range(5):
        record_batch(_orders(), repo, ResultKey("orders", day))
    renamed = _orders().rename(columns={"dest": "destination"})
    result = validate_batch(renamed, repo, "orders")
    assert not result.accepted
    missing = {s.name for s in result.statistics if s.status == "missing"}
    assert {"Completeness", "ApproxCountDistinct"} <= missing
    reasons = result.reasons()
    assert reasons.startswith("missing from the batch: ") and "outside" not in reasons, reasons
    assert batch_report(tmp_path / "b.csv", result, ()).summary.endswith(f"; {reasons}")


def test_the_cli_verdict_says_missing(tmp_path: Path):
    runner = CliRunner()
    repo = str(tmp_path / "m.duckdb")
    for day in range(1, 5):
        path = tmp_path / f"day{day}.csv"
        _orders().to_csv(path, index=False)
        args = ["metrics", "record", str(path), "-r", repo, "-d", "o", "--date", f"2024-01-0{day}"]
        assert runner.invoke(app, args).exit_code == 0
    batch = tmp_path / "renamed.csv"
    _orders().rename(columns={"dest": "destination"}).to_csv(batch, index=False)
    res = runner.invoke(app, ["validate-batch", str(batch), "-r", repo, "-d", "o"])
    assert res.exit_code == 1, res.output
    (verdict,) = [line for line in res.output.splitlines() if line.startswith(str(batch))]
    assert "missing from the batch: " in verdict and "ApproxCountDistinct(dest)" in verdict
    assert "outside the interval" not in verdict, verdict
