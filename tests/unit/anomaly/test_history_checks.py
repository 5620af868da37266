"""has_no_anomalies and batch validation against a real DuckDB-file repository."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from autovalidate.analysis import AnalysisRunner
from autovalidate.anomaly import (
    ExponentialSmoothingStrategy,
    OnlineNormalStrategy,
    SimpleThresholdStrategy,
)
from autovalidate.checks import Check, CheckLevel, VerificationSuite
from autovalidate.checks.anomaly import NO_HISTORY
from autovalidate.checks.spec import (
    CheckSpec,
    ConstraintSpec,
    ConstraintSuite,
    analyzer_to_dict,
)
from autovalidate.errors import InsufficientHistoryError
from autovalidate.metrics import (
    ApproxCountDistinct,
    Completeness,
    Maximum,
    Mean,
    Minimum,
    Size,
    StandardDeviation,
)
from autovalidate.monitor.batches import batch_statistics, record_batch, validate_batch
from autovalidate.repository import ResultKey, open_repository
from autovalidate.repository.base import rows_of


@pytest.fixture()
def repository(tmp_path):
    repo = open_repository(tmp_path / "metrics.duckdb")
    for day in range(1, 9):
        for region, rows in (("eu", 100 + day % 3), ("us", 500)):
            frame = pd.DataFrame({"a": range(rows)})
            context = AnalysisRunner.on_data(frame).add_analyzer(Size()).run()
            repo.save(ResultKey.at("orders", f"2024-01-0{day}", {"region": region}), context)
    return repo


def run(check: Check, rows: int):
    result = VerificationSuite().on_data(pd.DataFrame({"a": range(rows)})).add_check(check).run()
    return result.check_results[0].constraint_results[0]


def test_has_no_anomalies_reads_the_history_of_the_tagged_results(repository):
    def check(**kwargs):
        return Check(CheckLevel.ERROR, "size").has_no_anomalies(
            Size(),
            ExponentialSmoothingStrategy(),
            repository=repository,
            dataset="orders",
            **kwargs,
        )

    eu = {"with_tag_values": {"region": "eu"}}
    normal = run(check(**eu), 101)
    assert normal.status.value == "Success"
    assert (
        normal.details["history"] == 8 and normal.details["lower"] < 101 < normal.details["upper"]
    )
    outlier = run(check(**eu), 500)
    assert outlier.status.value == "Failure" and "is an anomaly" in outlier.message
    # without the tag filter the history mixes 100 and 500: 500 is no longer unusual
    assert run(check(), 500).details["history"] == 16
    # the date range: only the first three days
    assert (
        run(check(before=ResultKey.at("x", "2024-01-03").dataset_date, **eu), 101).details[
            "history"
        ]
        == 3
    )


def test_has_no_anomalies_without_history_fails_as_in_deequ(repository):
    result = run(
        Check(CheckLevel.ERROR, "size").has_no_anomalies(
            Size(), OnlineNormalStrategy(), repository=repository, dataset="users"
        ),
        10,
    )
    assert result.status.value == "Failure" and NO_HISTORY in result.message


def test_anomaly_constraints_in_a_suite(repository):
    spec = ConstraintSpec(
        "has_no_anomalies",
        {
            "analyzer": analyzer_to_dict(Size()),
            "strategy": SimpleThresholdStrategy(upper_bound=200.0).to_dict(),
            "dataset": "orders",
            "tags": {"region": "eu"},
        },
    )
    suite = ConstraintSuite((CheckSpec("history", CheckLevel.WARNING, (spec,)),))
    assert ConstraintSuite.from_dict(suite.to_dict()) == suite
    small = suite.run(pd.DataFrame({"a": range(50)}), repository=repository)
    large = suite.run(pd.DataFrame({"a": range(500)}), repository=repository)
    assert small.status.value == "Success" and large.status.value == "Warning"


def batch(rng: np.random.Generator, rows: int = 200, nulls: float = 0.0) -> pd.DataFrame:
    price = rng.normal(50, 5, rows).round(2).astype(str).astype(object)
    price[rng.random(rows) < nulls] = None
    return pd.DataFrame(
        {
            "price": price,
            "status": rng.choice(["new", "paid", "shipped"], rows),
        }
    )


def test_batch_statistics_are_001s():
    stats = batch_statistics(batch(np.random.default_rng(0)))
    assert set(stats) == {
        Completeness("price"),
        ApproxCountDistinct("price"),
        Mean("price"),
        StandardDeviation("price"),
        Maximum("price"),
        Minimum("price"),
        Completeness("status"),
        ApproxCountDistinct("status"),
    }


def test_batches_accepted_and_rejected_by_the_forecast(tmp_path):
    rng = np.random.default_rng(11)
    repo = open_repository(tmp_path / "history")
    with pytest.raises(InsufficientHistoryError):
        validate_batch(batch(rng), repo, "orders")
    for day in range(10):
        record_batch(batch(rng), repo, ResultKey("orders", day))
    incomplete = validate_batch(batch(rng, nulls=0.3), repo, "orders")
    assert not incomplete.accepted
    assert "Completeness" in {s.name for s in incomplete.rejecting}
    # a wide interval and a batch drawn like the history: accepted
    relaxed = validate_batch(
        batch(rng), repo, "orders", strategy=ExponentialSmoothingStrategy(0.999999)
    )
    assert relaxed.accepted, [s.to_dict() for s in relaxed.rejecting]
    decided = [s for s in relaxed.statistics if s.status == "accepted"]
    assert len(decided) == 8 and all(s.history == 10 for s in decided)


def test_a_numeric_column_that_loses_its_numbers_is_missing_statistics(tmp_path):
    rng = np.random.default_rng(3)
    repo = open_repository(tmp_path / "m.duckdb")
    for day in range(5):
        record_batch(batch(rng), repo, ResultKey("orders", day))
    broken = batch(rng)
    broken["price"] = broken["price"] + " USD"
    result = validate_batch(broken, repo, "orders")
    missing = {s.name for s in result.statistics if s.status == "missing"}
    assert not result.accepted
    assert missing == {"Mean", "StandardDeviation", "Minimum", "Maximum"}
    # recording it keeps the column numeric (the history tracks its mean): no mean today
    metrics = record_batch(broken, repo, ResultKey("orders", 99))
    assert metrics[Mean("price")].error is not None


def test_batch_validation_reads_a_history_saved_before_analyzer_keys(tmp_path):
    rng = np.random.default_rng(11)
    root = tmp_path / "history"
    (root / "orders").mkdir(parents=True)
    for day in range(5):  # as stores wrote them before keys: each statistic under its text only
        key = ResultKey("orders", day)
        rows = [
            {f: v for f, v in row.items() if f != "analyzer_key"}
            for row in rows_of(key, batch_statistics(batch(rng)))
        ]
        document = {"key": key.to_dict(), "rows": rows}
        (root / "orders" / f"{day}-{rows[0]['save_id']}.json").write_text(json.dumps(document))
    repo = open_repository(root)
    for day in range(5, 10):
        record_batch(batch(rng), repo, ResultKey("orders", day))
    result = validate_batch(
        batch(rng), repo, "orders", strategy=ExponentialSmoothingStrategy(0.999999)
    )
    assert result.accepted, [s.to_dict() for s in result.rejecting]
    assert len(result.statistics) == 8 and all(s.history == 10 for s in result.statistics)
    assert {s.analyzer for s in result.statistics} == {str(a) for a in batch_statistics(batch(rng))}
