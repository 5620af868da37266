"""Smoke test of benchmarks/validate_speed.py on tiny data (the full run is a manual step)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "validate_speed.py"

pytestmark = pytest.mark.spark


def _load():
    spec = importlib.util.spec_from_file_location("validate_speed", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_validate_speed_runs_and_writes_its_report(spark, tmp_path):
    bench = _load()
    out = tmp_path / "results"
    report = bench.run_benchmark(
        300_000,
        ["duckdb", "spark"],
        out,
        data_dir=tmp_path / "data",
        repeat=1,
        command="test",
        spark=spark,
    )
    assert json.loads((out / "validate_speed.json").read_text()) == report
    assert "| engine | column | non-conforming |" in (out / "validate_speed.md").read_text()
    found = {(r["engine"], r["column"]): r["nonconforming"] for r in report["results"]}
    # three values in ts_dirty are written another way, none in ts; both engines agree
    assert found == {
        ("duckdb", "ts"): 0,
        ("duckdb", "ts_dirty"): 3,
        ("spark", "ts"): 0,
        ("spark", "ts_dirty"): 3,
    }
    for r in report["results"]:
        assert r["ours"]["counts"] == r["suite"]["counts"] == r["hand-written"]["counts"]
        assert r["hand-written"]["counts"] == [r["nonconforming"]]
    # the data are deterministic: a second generation writes the same values
    first = pq.read_table(tmp_path / "data" / "timestamps_300000.parquet")
    again = pq.read_table(bench.generate(300_000, tmp_path / "again"))
    assert first.equals(again) and first.num_rows == 300_000
