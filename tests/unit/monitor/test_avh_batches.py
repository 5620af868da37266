"""AVH programs from a metrics repository (DuckDB engine; one Spark check)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from autovalidate.cli import app
from autovalidate.errors import ConstraintFormatError, InsufficientHistoryError, ParameterError
from autovalidate.metrics import Completeness, Histogram, MaxLength, Size
from autovalidate.metrics.codec import analyzer_from_dict, analyzer_key
from autovalidate.monitor.avh_batches import (
    AVHProgram,
    avh_statistics,
    candidates,
    fit_program,
    record_avh_batch,
    synthetic_issues,
    tracked_patterns,
    validate_batch_avh,
)
from autovalidate.repository import ResultKey, open_repository
from autovalidate.repository.base import rows_of
from autovalidate.repository.memory import InMemoryMetricsRepository


def batch(rng: np.random.Generator, rows: int) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "price": [f"{x:.2f}" for x in rng.gamma(2.0, 10.0, rows)],
            "status": rng.choice(["new", "paid", "shipped"], rows, p=[0.2, 0.5, 0.3]),
            "code": [f"AB-{x:04d}" for x in rng.integers(0, 9999, rows)],
        }
    )


@pytest.fixture(scope="module")
def growing():
    """12 days of orders whose row count grows by about 20 a day."""
    rng = np.random.default_rng(7)
    repo = InMemoryMetricsRepository()
    for day in range(12):
        record_avh_batch(
            batch(rng, 200 + 20 * day + int(rng.integers(-3, 4))), repo, ResultKey("o", day)
        )
    return repo, rng


def test_a_growing_row_count_is_constrained_by_its_differences(growing):
    repo, _ = growing
    pool = {c.key for c in candidates(repo.load().for_dataset("o").get())}
    assert "difference:Size(*)" in pool and "value:Size(*)" not in pool
    assert "value:Completeness(price)" in pool and "distance:LInfDistance(status)" in pool


@pytest.mark.parametrize("delta", [0.01, 0.1])
def test_the_program_spends_at_most_its_budget_and_is_pinnable(growing, tmp_path, delta):
    repo, rng = growing
    history = repo.load().for_dataset("o").get()
    program = fit_program(history, batch(rng, 440), delta)
    assert program.constraints and program.fpr_bound <= delta
    assert sum(c.share for c in program.constraints) <= 1
    # the budget the selection leaves is spent narrowing the intervals that can narrow
    bounds = {c.interval.bound for c in program.constraints}
    if bounds & {"chebyshev", "cantelli"}:
        assert program.fpr_bound == pytest.approx(delta, rel=1e-6)
    assert 0 < program.covered <= program.issues
    path = tmp_path / "program.json"
    path.write_text(program.to_json())
    pinned = AVHProgram.load(path)
    broken = batch(rng, 440).drop(columns=["price", "code"])
    for p in (program, pinned):
        result, used = validate_batch_avh(broken, repo, "o", program=p)
        assert used is p and not result.accepted
        assert {d.status for d in result.statistics} <= {"accepted", "rejected", "missing"}
    with pytest.raises(ConstraintFormatError):
        AVHProgram.from_dict({"format": "autovalidate-suite"})


def test_misuse_is_an_error(growing):
    repo, _ = growing
    new = batch(np.random.default_rng(0), 10)
    with pytest.raises(InsufficientHistoryError):
        validate_batch_avh(new, InMemoryMetricsRepository(), "none", reference=new)
    with pytest.raises(ParameterError, match="reference"):
        validate_batch_avh(new, repo, "o")  # no program and no clean reference


def test_synthetic_issues_perturb_the_reference():
    issues = synthetic_issues(batch(np.random.default_rng(1), 100))
    kinds = {(i.kind, i.column) for i in issues}
    assert ("unit change", "price") in kinds and ("truncated strings", "code") in kinds
    sizes = sorted(
        i.metrics[analyzer_key(Size())].value for i in issues if i.kind == "duplicated rows"
    )
    assert len(sizes) == 2 and 100 < sizes[0] < 200 and sizes[1] == 200
    gone = next(i for i in issues if i.kind == "schema change" and i.column == "status")
    assert analyzer_key(Completeness("status")) not in gone.metrics
    assert analyzer_key(Completeness("price")) in gone.metrics


def test_cli_programs_saves_and_runs_a_pinned_program(tmp_path):
    rng = np.random.default_rng(3)
    runner = CliRunner()
    repo = str(tmp_path / "m.duckdb")
    for day in range(1, 6):
        path = tmp_path / f"day{day}.csv"
        batch(rng, 150).to_csv(path, index=False)
        done = runner.invoke(
            app,
            [
                "metrics",
                "record",
                str(path),
                "-r",
                repo,
                "-d",
                "o",
                "--date",
                f"2024-01-0{day}",
                "--avh",
            ],
        )
        assert done.exit_code == 0, done.output
    new = tmp_path / "day6.csv"
    batch(rng, 150).to_csv(new, index=False)
    program = tmp_path / "program.json"
    out = runner.invoke(
        app,
        [
            "validate-batch",
            str(new),
            "-r",
            repo,
            "-d",
            "o",
            "--strategy",
            "avh",
            "--fpr",
            "0.1",
            "--reference",
            str(tmp_path / "day5.csv"),
            "--save-program",
            str(program),
            "--save-suite",
            str(tmp_path / "suite.json"),
            "--json",
        ],
    )
    assert out.exit_code in (0, 1), out.output
    doc = json.loads(out.stdout)
    assert doc["program"]["fpr_bound"] <= 0.1 + 1e-12
    assert len(doc["statistics"]) == len(doc["program"]["constraints"])
    bad = tmp_path / "bad.csv"
    broken = batch(rng, 150).drop(columns=["status"])  # and a unit change, truncated codes
    broken["price"] = [f"{float(x) * 100:.2f}" for x in broken["price"]]
    broken["code"] = broken["code"].str[:2]
    broken.to_csv(bad, index=False)
    pinned = runner.invoke(
        app,
        [
            "validate-batch",
            str(bad),
            "-r",
            repo,
            "-d",
            "o",
            "--strategy",
            "avh",
            "--program",
            str(program),
        ],
    )
    assert pinned.exit_code == 1 and "AVH program" in pinned.output
    values = [c for c in doc["program"]["constraints"] if c["transform"] == "value"]
    suite = json.loads((tmp_path / "suite.json").read_text())
    assert len(suite["checks"][0]["constraints"]) == len(values)
    as_suite = runner.invoke(app, ["validate", str(new), "-c", str(tmp_path / "suite.json")])
    # the suite holds exactly the value constraints: it fails iff one of them failed
    broke = any(
        d["status"] != "accepted"
        for d, c in zip(doc["statistics"], doc["program"]["constraints"], strict=True)
        if c["transform"] == "value"
    )
    assert as_suite.exit_code == (1 if broke else 0), as_suite.output
    unpinned = runner.invoke(
        app, ["validate-batch", str(bad), "-r", repo, "-d", "o", "--strategy", "avh"]
    )
    assert unpinned.exit_code == 2 and "--reference" in unpinned.output


@pytest.mark.spark
def test_the_statistics_are_the_same_on_spark(spark):
    frame = batch(np.random.default_rng(5), 60)[["status"]]
    local = avh_statistics(frame)
    remote = avh_statistics(spark.createDataFrame(frame))
    assert set(remote) == set(local)
    for analyzer in (Size(), Completeness("status"), MaxLength("status")):
        assert remote[analyzer].value == pytest.approx(local[analyzer].value)
    assert remote[Histogram("status")].value == local[Histogram("status")].value


def test_a_format_change_lowers_the_conformance_to_the_pattern_learned_first(growing):
    repo, rng = growing
    history = repo.load().for_dataset("o").get()
    patterns = tracked_patterns(history)
    assert set(patterns) == {"status", "code"}  # text columns; price is numeric
    pool = {c.key: c for c in candidates(history)}
    assert set(pool["value:PatternConformance(code)"].history) == {1.0}
    changed = batch(rng, 200)
    changed["code"] = changed["code"].str.replace("-", "/")
    stats = avh_statistics(changed, numeric_columns=["price"], patterns=patterns)
    share = {m.instance: m.value for m in stats.values() if m.name == "PatternConformance"}
    assert share["status"] == 1.0 and share["code"] < 0.01
    # with 12 batches "stays conforming" costs the constant bound (11/12)**11 / 12 = 0.032
    program = fit_program(history, batch(rng, 200), 0.1)
    kinds = program.issue_kinds
    assert kinds["format change"][0] > 0


def test_a_program_of_a_version_this_code_does_not_read_is_refused_by_name(growing):
    repo, rng = growing
    doc = fit_program(repo.load().for_dataset("o").get(), batch(rng, 440), 0.1).to_dict()
    for version in (3, 0, "2", None, True):
        with pytest.raises(ConstraintFormatError, match=f"version {version!r}"):
            AVHProgram.from_dict({**doc, "version": version})
    without = {k: v for k, v in doc.items() if k != "version"}
    with pytest.raises(ConstraintFormatError, match="version None"):
        AVHProgram.from_dict(without)


def test_a_version_1_program_on_a_history_saved_before_keys_decides_as_before(growing, tmp_path):
    repo, rng = growing
    history = repo.load().for_dataset("o").get()
    program = fit_program(history, batch(rng, 440), 0.1)
    doc = program.to_dict()
    assert doc["version"] == 2
    assert all(c["analyzer_key"].startswith("{") for c in doc["constraints"])
    # the formats before keys, written directly: constraints and rows name analyzers by text
    old_program = AVHProgram.from_dict(
        {
            **doc,
            "version": 1,
            "constraints": [
                {k: v for k, v in c.items() if k != "analyzer_key"} for c in doc["constraints"]
            ],
        }
    )
    (tmp_path / "old" / "o").mkdir(parents=True)
    for r in history:
        analyzers = {analyzer_from_dict(json.loads(k)): m for k, m in r.metrics.items()}
        rows = [
            {f: v for f, v in row.items() if f != "analyzer_key"}
            for row in rows_of(r.result_key, analyzers)
        ]
        path = tmp_path / "old" / "o" / f"{r.result_key.dataset_date}-{rows[0]['save_id']}.json"
        path.write_text(json.dumps({"key": r.result_key.to_dict(), "rows": rows}))
    old_repo = open_repository(tmp_path / "old")
    new = batch(rng, 440)
    decisions = [
        validate_batch_avh(new, store, "o", program=p)[0].to_dict()["statistics"]
        for store, p in ((repo, AVHProgram.from_dict(doc)), (old_repo, old_program))
    ]
    assert decisions[1] == decisions[0]
    assert len(decisions[0]) == len(program.constraints)
    assert "missing" not in {d["status"] for d in decisions[0]}
    assert not any(d["analyzer"].startswith("{") for d in decisions[0])  # texts, for people
