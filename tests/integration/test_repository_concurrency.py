"""Several processes write to one repository at once and lose nothing (real DuckDB, real files)."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from autovalidate.metrics import Completeness, Mean, Metric
from autovalidate.metrics.base import Entity
from autovalidate.repository import ResultKey, open_repository

WRITERS = 4
SAVES = 15


def _write(location: str, file_format: str, writer: int) -> None:
    repo = open_repository(location, file_format=file_format)
    for i in range(SAVES):
        value = float(writer * 1000 + i)
        metrics = {
            Mean("a"): Metric(Entity.COLUMN, "a", "Mean", value),
            Completeness("a"): Metric(Entity.COLUMN, "a", "Completeness", 1.0),
        }
        repo.save(ResultKey("orders", i, {"writer": str(writer)}), metrics)
        # a reader in the middle of the writers, too
        assert repo.load().for_dataset("orders").with_tag_values({"writer": str(writer)}).get()


@pytest.mark.parametrize(
    "name,file_format", [("metrics.duckdb", "json"), ("files", "json"), ("files", "parquet")]
)
def test_concurrent_writers_lose_nothing(tmp_path: Path, name: str, file_format: str):
    location = str(tmp_path / name)
    context = multiprocessing.get_context("spawn")
    processes = [
        context.Process(target=_write, args=(location, file_format, w)) for w in range(WRITERS)
    ]
    for p in processes:
        p.start()
    for p in processes:
        p.join(timeout=240)
    assert [p.exitcode for p in processes] == [0] * WRITERS
    results = open_repository(location).load().for_dataset("orders").get()
    assert len(results) == WRITERS * SAVES
    found = {
        (r.result_key.tags["writer"], r.result_key.dataset_date): r.value(Mean("a"))
        for r in results
    }
    expected = {(str(w), i): float(w * 1000 + i) for w in range(WRITERS) for i in range(SAVES)}
    assert found == expected
