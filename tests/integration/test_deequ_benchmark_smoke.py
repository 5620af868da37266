"""Smoke test of benchmarks/deequ_bench.py on tiny data (the full run is a manual step)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "deequ_bench.py"


def _load():
    spec = importlib.util.spec_from_file_location("deequ_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _check_report(report: dict, out: Path, engines: list[str]) -> None:
    assert json.loads((out / "deequ_bench.json").read_text()) == report
    assert "| analyzers | format | engine | shared (s) |" in (out / "deequ_bench.md").read_text()
    assert report["params"]["constraints"] >= 20
    sizes = {"whole suite": "analyzers", "scan-only analyzers": "scan_only_analyzers"}
    runs = {(r["analyzers"], r["format"], r["engine"]): r for r in report["scan_sharing"]}
    for engine in engines:
        assert set(runs) >= {
            ("whole suite", "parquet", engine),
            ("scan-only analyzers", "parquet", engine),
            ("whole suite", "csv", engine),
        }
        for (suite, _, on), sharing in runs.items():
            assert sharing["same_metrics"] is True
            assert (
                sharing["shared"]["failed_metrics"] == sharing["separate"]["failed_metrics"] == []
            )
            assert sharing["separate"]["scans"] == report["params"][sizes[suite]]
            # the whole suite: one aggregation and four groupings, whose columns
            # DuckDB reads once (holds) to group them in memory
            whole = 1 + 1 if on == "duckdb" else 1 + 4
            assert sharing["shared"]["scans"] == (1 if suite == "scan-only analyzers" else whole)
        for steps in report["incremental"].values():
            assert [s["delta"] for s in steps[engine]] == [1, 2]
            assert all(s["same_metrics"] for s in steps[engine])


def test_quick_benchmark_on_duckdb(tmp_path):
    bench = _load()
    report = bench.run_benchmark(
        6000, 2, ["duckdb"], tmp_path / "out", data_dir=tmp_path / "data", warm_up=False, repeat=1
    )
    _check_report(report, tmp_path / "out", ["duckdb"])
    assert report["incremental"]["whole suite"]["duckdb"][-1]["rows"] == 6000


def test_generated_data_is_deterministic(tmp_path):
    bench = _load()
    first = bench.generate_part(3, 100, 500)
    assert first.equals(bench.generate_part(3, 100, 500))
    assert not first.equals(bench.generate_part(4, 100, 500))
    assert first["order_id"].to_pylist() == list(range(100, 600))


@pytest.mark.slow
@pytest.mark.spark
def test_quick_benchmark_on_spark(tmp_path, spark):
    report = _load().run_benchmark(
        6000,
        2,
        ["spark"],
        tmp_path / "out",
        data_dir=tmp_path / "data",
        spark=spark,
        warm_up=False,
        repeat=1,
    )
    _check_report(report, tmp_path / "out", ["spark"])
