"""``validate-batch --record --html`` profiles the batch once and reads the history once (issue 32).

Counted, not timed: the calls that profile a batch and that load a history,
on a real DuckDB metrics repository of five recorded hospital batches.
"""

from __future__ import annotations

from typer.testing import CliRunner

import autovalidate.monitor.batches as batches
from autovalidate.cli import app
from autovalidate.metrics.codec import analyzer_key
from autovalidate.repository import open_repository
from autovalidate.repository.duckdb import DuckDBMetricsRepository


def test_record_reuses_the_decisions_statistics_and_history(
    hospital_history, tmp_path, monkeypatch
):
    repo, _ = hospital_history
    again = tmp_path / "batch5.csv"  # a clean batch: accepted, so --record records it
    calls = {"profile": 0, "load": 0}
    profile, load = batches.batch_statistics, DuckDBMetricsRepository.load

    def counting_profile(*args, **kwargs):
        calls["profile"] += 1
        return profile(*args, **kwargs)

    def counting_load(self):
        calls["load"] += 1
        return load(self)

    monkeypatch.setattr(batches, "batch_statistics", counting_profile)
    monkeypatch.setattr(DuckDBMetricsRepository, "load", counting_load)
    page = tmp_path / "report.html"
    args = [
        "validate-batch",
        str(again),
        "-r",
        str(repo),
        "-d",
        "h",
        "--record",
        "--html",
        str(page),
    ]
    res = CliRunner().invoke(app, [*args, "--date", "2024-05-06"])
    assert res.exit_code == 0, res.output
    assert calls == {"profile": 1, "load": 1}
    assert page.exists()
    # what was recorded is the batch's statistics, as `metrics record` computes them
    history = open_repository(repo).load().for_dataset("h").get()
    assert len(history) == 6
    recorded, earlier = history[-1].metrics, history[-2].metrics
    assert set(recorded) == set(earlier)
    expected = batches.batch_statistics(str(again))
    # a recorded history is keyed by each analyzer's codec key, not its SQL text
    assert {key: m.value for key, m in recorded.items()} == {
        analyzer_key(a): m.value for a, m in expected.items() if m.error is None
    }
