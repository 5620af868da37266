"""AV-bench end to end on lake-mini: the quick mode writes every output, numbers in range."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from benchmarks.avbench.__main__ import main
from benchmarks.avbench.abstentions import CAUSES
from benchmarks.avbench.failures import CAUSES as FAILURE_CAUSES
from benchmarks.avbench.run import FMDV_VARIANTS, METHOD_KEYS

pytestmark = pytest.mark.spark

# The index is the session's lake-mini index (conftest's mini_index, built once per
# run for the CLI tests): a second Spark build of lake-mini here (budget 200) cost
# 37 s, and the assertions below hold for any index of the lake.


def _run(tmp_path, lake_mini, mini_index, *extra):
    out = tmp_path / "results"
    code = main(
        [
            "--quick",
            "--lake",
            str(lake_mini),
            "--index",
            str(mini_index),
            "--skip-build",
            "--no-tfdv-install",
            "--out",
            str(out),
            "--work",
            str(tmp_path / "work"),
            *extra,
        ]
    )
    assert code == 0
    return out, json.loads((out / "avbench-quick.json").read_text())


def _fraction(x):
    return isinstance(x, float) and 0.0 <= x <= 1.0


def _check_methods(report):
    assert list(report["methods"]) == list(METHOD_KEYS)
    cases = report["cases"]
    assert 0 < cases["applicable"] <= cases["all"] <= 100
    for name, result in report["methods"].items():
        for subset in ("all", "applicable"):
            s = result[subset]
            assert all(_fraction(s[k]) for k in ("precision", "recall", "f1")), (name, s)
            p, r = s["precision"], s["recall"]
            assert math.isclose(s["f1"], 2 * p * r / (p + r) if p + r else 0.0)
        assert 0 <= result["abstentions"] <= cases["all"]
    assert report["methods"]["tfdv"]["implementation"].startswith(
        ("tensorflow-data-validation", "reimplementation")
    )
    drift = report["drift"]
    assert set(drift["methods"]) == set(METHOD_KEYS)
    for name, result in drift["methods"].items():
        for subset in ("all", "with_rule", "passing"):
            d = result[subset]
            assert set(d["kinds"]) == set(drift["counted"]), name
            assert all(_fraction(x) or math.isnan(x) for x in (d["total"], *d["kinds"].values()))
        # squashing only adds zeros: the rules that pass their test reject at least as much
        passing, with_rule = result["passing"], result["with_rule"]
        for k in ("total", *drift["counted"]):
            x = passing[k] if k == "total" else passing["kinds"][k]
            y = with_rule[k] if k == "total" else with_rule["kinds"][k]
            assert math.isnan(x) or math.isnan(y) or x >= y - 1e-12, (name, k)
    real = report["real_errors"]
    assert set(real["methods"]) == set(METHOD_KEYS)
    for result in real["methods"].values():
        assert 0 <= result["error_cells_flagged"] <= real["error_cells"]
        assert 0 <= result["false_alarms"] <= result["columns_with_rule"] <= real["columns"]


def test_quick_run_writes_every_output_with_numbers_in_range(tmp_path, lake_mini, mini_index):
    out, report = _run(tmp_path, lake_mini, mini_index, "--no-sensitivity", "--no-cost")
    _check_methods(report)
    assert "sensitivity" not in report and "cost" not in report  # not measured, not written
    assert report["commit"]["sha"] and report["machine"]["cores"] >= 1
    assert report["params"]["query_set"]["size"] == report["cases"]["all"]
    for name in ("avbench-quick.md", "avbench-quick_cases.csv", "avbench-quick_pr.png"):
        assert (out / name).stat().st_size > 0
    assert not (out / "avbench-quick_sensitivity.png").exists()
    header = (out / "avbench-quick_cases.csv").read_text().splitlines()[0].split(",")
    assert {f"{m}:precision" for m in METHOD_KEYS} <= set(header)
    assert {f"{m}:drift_recall" for m in METHOD_KEYS} <= set(header)
    table = (out / "avbench-quick.md").read_text()
    assert all(f"| {m} |" in table for m in METHOD_KEYS)
    assert "## Format-drift recall" in table and "## Real errors" in table


@pytest.mark.slow
def test_quick_run_with_sensitivity_and_online_cost(tmp_path, lake_mini, mini_index):
    out, report = _run(tmp_path, lake_mini, mini_index)
    _check_methods(report)
    sens = report["sensitivity"]
    assert sens["r"]["values"] == [0, 0.01, 0.02, 0.05, 0.1, 0.15]  # the grid + the default
    assert set(sens["theta"]["methods"]) == {"fmdv-h", "fmdv-vh"}
    assert "tau=10" in sens["omitted"]  # --skip-build: no tau=10 index, so no tau=10 point
    for param in ("r", "m", "theta"):
        for variant, res in sens[param]["methods"].items():
            assert len(res["applicable"]) == len(sens[param]["values"]), (param, variant)
            assert all(_fraction(x["precision"]) for x in res["applicable"])
    online = report["cost"]["online"]
    assert set(online) == set(FMDV_VARIANTS)
    assert all(0 < o["median_ms"] <= o["p95_ms"] for o in online.values())
    assert "offline" not in report["cost"]  # --skip-build: no build was timed
    long = report["cost"]["online_long_values"]
    best = long["best_of"]
    assert (best["calls"], best["method"]) == (3, "fmdv-vh")
    assert best["columns"] == len(long["columns"]) > 0
    assert 0 < best["median_ms"] <= best["p95_ms"] <= best["max_ms"]
    assert "fmdv-vh, least of 3 calls" in (out / "avbench-quick.md").read_text()
    assert (out / "avbench-quick_sensitivity.png").stat().st_size > 0


MACHINE = Path(__file__).resolve().parents[3] / "shared" / "avbench-machine" / "cases.parquet"


@pytest.mark.skipif(not MACHINE.is_file(), reason="needs ../shared/avbench-machine")
def test_quick_run_on_machine_columns_with_slices_noise_calibration_and_another_index(
    tmp_path, lake_mini, mini_index
):
    out = tmp_path / "results"
    code = main(
        [
            "--queries", "B-M", "--quick", "40", "--lake", str(lake_mini),
            "--index", str(mini_index), "--other-index", f"again={mini_index}",
            "--skip-build", "--no-tfdv-install", "--no-sensitivity", "--no-cost",
            "--out", str(out), "--work", str(tmp_path / "work"),
        ]
    )  # fmt: skip
    assert code == 0
    report = json.loads((out / "avbench-machine-quick.json").read_text())
    assert report["params"]["query_set"]["name"] == "B-M"
    assert "real_errors" not in report  # they do not read the query set: B's run has them
    cases = report["cases"]
    assert cases["repetitive"] + cases["varied"] == cases["all"] == 40
    for result in report["methods"].values():
        for subset in ("repetitive", "varied"):
            assert result[subset]["cases"] == cases[subset]
    vh = report["methods"]["fmdv-vh"]["all"]
    band = report["noise"]["fmdv-vh"]
    for metric in ("precision", "recall", "f1"):
        assert band[metric][0] <= vh[metric] + 1e-9 and vh[metric] <= band[metric][1] + 1e-9
    cal = report["calibration"]["fmdv-vh"]
    assert cal["rules"] == cases["all"] - report["methods"]["fmdv-vh"]["abstentions"]
    assert sum(d["rules"] for d in cal["deciles"]) == cal["rules"]
    # every abstention of the default has one cause, counted once by slice and words
    census = report["abstentions"]
    assert census["abstentions"] == report["methods"]["fmdv-vh"]["abstentions"]
    assert list(census["causes"]) == list(CAUSES)
    assert sum(row["total"] for row in census["causes"].values()) == census["abstentions"]
    for row in census["causes"].values():
        assert row["total"] == sum(n for part, n in row.items() if part != "total")
    # every failing rule of the default has one cause; abstaining on rules never lowers precision
    failing = report["failures"]["census"]
    vh_all = report["methods"]["fmdv-vh"]["all"]
    assert failing["rules"] == cal["rules"]
    assert failing["failing"] == round((1 - vh_all["precision"]) * cases["all"])
    assert list(failing["causes"]) == list(FAILURE_CAUSES)
    assert sum(row["total"] for row in failing["causes"].values()) == failing["failing"]
    front = report["failures"]["frontier"]
    assert front["f1"] == pytest.approx(vh_all["f1"])
    if front["best"] is not None:
        assert 0.0 <= front["break_even"] <= 1.0
        assert front["best"]["precision"] >= front["precision"] - 1e-9
    # the same index again scores exactly as the run's own
    again = report["other_indexes"]["again"]
    assert again["methods"]["fmdv-vh"]["all"] == report["methods"]["fmdv-vh"]["all"]
    assert again["abstentions"] == census
    assert again["failures"] == report["failures"]
    table = (out / "avbench-machine-quick.md").read_text()
    assert "Slices:" in table and "Calibration of FMDV-VH" in table and "`again`" in table
    assert table.count("by what ruled out the vertical cuts") == 2
