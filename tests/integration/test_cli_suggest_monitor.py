"""The CLI end to end on real tables: suggest for whole tables, validate suites, metrics history,
validate-batch; exit codes 0/1/2 and one-line errors."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import autovalidate
from autovalidate.cli import app

runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_suggest_whole_table_out_and_validate(dirty_clean, tmp_path):
    clean, dirty = dirty_clean / "flights" / "clean.csv", dirty_clean / "flights" / "dirty.csv"
    suite = tmp_path / "flights.json"
    res = run("suggest", clean, "--out", suite, "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["pattern_rule"] == "applied" and doc["num_records"] == 2376
    assert doc["pattern_index"].startswith("default index: public corpus, ")
    columns = {s["column"] for s in doc["suggestions"]}
    assert columns == set(pd.read_csv(clean, nrows=0).columns)
    first = doc["suggestions"][0]
    assert {"reason", "code", "constraint"} <= set(first)
    assert json.loads(suite.read_text())["version"] == 2
    ok = run("validate", clean, "--constraints", suite, "--json")
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.output)["status"] == "Success"
    bad = run("validate", dirty, "--constraints", suite, "--json")
    assert bad.exit_code == 1
    results = json.loads(bad.output)["results"]
    failed = {r["label"] for r in results if not r["passed"]}
    assert ".is_complete('act_dep_time')" in failed  # dirty flights lose times
    table = run("validate", dirty, "--constraints", suite)
    assert table.exit_code == 1 and "FAILED" in table.output and "status: Error" in table.output


def test_suggest_table_output_names_the_default_index_once(dirty_clean):
    res = run("suggest", dirty_clean / "rayyan" / "clean.csv")
    assert res.exit_code == 0, res.output
    assert res.output.count("default index: public corpus") == 1, res.output
    assert "pattern rule applied with the default index" in res.output
    assert "CompleteIf" not in res.output and re.search(r"│ id +│ is_complete +│", res.output)
    verbose = run("suggest", dirty_clean / "rayyan" / "clean.csv", "--verbose")
    assert verbose.exit_code == 0, verbose.output
    assert "CompleteIf" not in verbose.output and ".is_complete('id')" in verbose.output


def test_whole_table_suggest_is_one_line_per_suggestion_unless_verbose(dirty_clean, monkeypatch):
    """Beers: 44 suggestions, categorical ranges of up to 99 styles, a weakened uniqueness."""
    from autovalidate.cli.common import console

    beers = dirty_clean / "beers" / "clean.csv"
    doc = json.loads(run("suggest", beers, "--json").output)
    monkeypatch.setattr(console, "width", 80)
    res = run("suggest", beers)
    assert res.exit_code == 0, res.output
    rows = [line for line in res.output.splitlines() if line.startswith("│")]
    assert len(rows) == len(doc["suggestions"]) > 40, res.output  # no row folds onto a second
    assert all(len(row) <= 80 for row in rows)
    ranges = [s for s in doc["suggestions"] if "value range" in s["description"]]
    styles = [s for s in ranges if s["column"] == "style"]
    monkeypatch.setattr(console, "width", 200)
    wide = run("suggest", beers).output
    n = len(styles[0]["constraint"]["allowed_values"])
    assert n > 3 and f"is_contained_in [{n} values: 'American IPA', " in wide, wide
    (row,) = [line for line in wide.splitlines() if f"[{n} values:" in line]
    assert not any(repr(v) in row for v in styles[0]["constraint"]["allowed_values"][3:])
    (weakened,) = [s for s in doc["suggestions"] if s["adjustment"]]
    assert weakened["column"] == "beer-name"
    weakened_row = r"│ beer-name +│ has_uniqueness >= 0.92 +│ weakened: is_unique failed here"
    assert re.search(weakened_row, wide), wide
    monkeypatch.setattr(console, "width", 6000)  # no cell folds: each row on one line
    full = run("suggest", beers, "--verbose").output
    assert all(repr(v) in full for v in styles[0]["constraint"]["allowed_values"])
    assert "weakened to .has_uniqueness('beer-name', lambda x: x >= 0.92)" in full


def test_suggest_column_without_an_index_uses_the_default_and_says_so(dirty_clean):
    clean = dirty_clean / "hospital" / "clean.csv"
    res = run("suggest", clean, "--column", "ZipCode")
    assert res.exit_code == 0, res.output
    assert res.output.count("default index: public corpus") == 1, res.output
    assert "<digit>" in res.output
    doc = json.loads(run("suggest", clean, "--column", "ZipCode", "--json").output)
    assert doc["index"]["default"] is True and doc["index"]["patterns"] > 10_000
    assert doc["constraint"]["index"]["default"] is True
    # a suite travels: no path of this installation's site-packages in it
    assert doc["constraint"]["index"]["path"] is None
    assert "default-index" not in json.dumps(doc["constraint"])


def test_index_info_default_shows_sources_licenses_and_versions():
    res = run("index", "info", "--default")
    assert res.exit_code == 0, res.output
    with autovalidate.open_default_index() as index:
        floor = index.metadata.build["floor"]
    for needle in ("public corpus", "GPL-3", "CC BY 4.0", "hierarchy", f"Cov_T >= {floor}"):
        assert needle in res.output, needle
    assert "left out" in res.output
    # where the corpus was on the machine that built the index says nothing here
    assert "../shared" not in res.output and re.search(r"\d+ public sources \(below\)", res.output)
    doc = json.loads(run("index", "info", "--default", "--json").output)
    assert doc["build"]["floor"] == floor > 1 and doc["corpus"]["sources"]
    assert run("index", "info").exit_code == 2


def test_suggest_table_with_an_index_and_a_split(small_index, tmp_path):
    data = tmp_path / "events.csv"
    rng = np.random.default_rng(0)
    rows = [
        f"{rng.integers(1, 13):02d}/{rng.integers(1, 29):02d}/{rng.integers(1990, 2020)},"
        f"{rng.choice(['Open', 'Closed'])}"
        for _ in range(300)
    ]
    data.write_text("day,status\n" + "\n".join(rows) + "\n")
    res = run(
        "suggest",
        data,
        "--index",
        small_index.path,
        "--r",
        "0.5",
        "--m",
        "1",
        "--test-ratio",
        "0.5",
        "--json",
    )
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["pattern_rule"] == "applied"
    patterns = [s for s in doc["suggestions"] if s["rule"] == "AutoValidatePatternRule"]
    assert {s["column"] for s in patterns} >= {"day"}
    evaluation = doc["evaluation"]
    assert evaluation["test_records"] + doc["num_records"] == 300
    assert len(evaluation["constraints"]) == len(doc["suggestions"])
    day = [r for r in evaluation["constraints"] if r["rule"] == "AutoValidatePatternRule"]
    assert day[0]["status"] == "Success" and day[0]["metric"] == 1.0


def test_warning_level_failures_exit_zero(dirty_clean, tmp_path):
    clean, dirty = dirty_clean / "flights" / "clean.csv", dirty_clean / "flights" / "dirty.csv"
    suite = tmp_path / "warn.json"
    assert run("suggest", clean, "--level", "warning", "--out", suite).exit_code == 0
    res = run("validate", dirty, "-c", suite, "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["status"] == "Warning"


def _batches(dirty_clean: Path, tmp_path: Path) -> tuple[list[Path], Path, Path]:
    clean = pd.read_csv(dirty_clean / "beers" / "clean.csv", dtype=str, keep_default_na=False)
    dirty = pd.read_csv(dirty_clean / "beers" / "dirty.csv", dtype=str, keep_default_na=False)
    dirty.columns = clean.columns
    perm = np.random.default_rng(5).permutation(len(clean))
    size = 200
    history = []
    for i in range(6):
        path = tmp_path / f"batch{i}.csv"
        clean.iloc[perm[i * size : (i + 1) * size]].to_csv(path, index=False)
        history.append(path)
    rows = perm[6 * size : 7 * size]
    next_clean, next_dirty = tmp_path / "next_clean.csv", tmp_path / "next_dirty.csv"
    clean.iloc[rows].to_csv(next_clean, index=False)
    dirty.iloc[rows].to_csv(next_dirty, index=False)
    return history, next_clean, next_dirty


@pytest.mark.parametrize("store", ["metrics.duckdb", "metrics-dir"])
def test_metrics_record_history_and_validate_batch(dirty_clean, tmp_path, store):
    history, next_clean, next_dirty = _batches(dirty_clean, tmp_path)
    repo = tmp_path / store
    too_early = run("validate-batch", next_clean, "-r", repo, "-d", "beers")
    assert too_early.exit_code == 2 and "at least 3" in too_early.output
    for day, path in enumerate(history, start=1):
        res = run(
            "metrics",
            "record",
            path,
            "-r",
            repo,
            "-d",
            "beers",
            "--date",
            f"2024-03-0{day}",
            "--tag",
            "source=crawl",
            "--json",
        )
        assert res.exit_code == 0, res.output
    recorded = json.loads(res.output)
    assert recorded["key"]["tags"] == {"source": "crawl"}
    names = {m["name"] for m in recorded["metrics"]}
    assert names == {
        "Completeness",
        "ApproxCountDistinct",
        "Mean",
        "StandardDeviation",
        "Minimum",
        "Maximum",
    }
    hist = run(
        "metrics",
        "history",
        "-r",
        repo,
        "-d",
        "beers",
        "--metric",
        "Mean",
        "--column",
        "abv",
        "--after",
        "2024-03-02",
        "--json",
    )
    assert hist.exit_code == 0
    points = json.loads(hist.output)["history"]
    assert [p["date"][:10] for p in points] == [f"2024-03-0{d}" for d in range(2, 7)]
    wide = run(
        "validate-batch",
        next_clean,
        "-r",
        repo,
        "-d",
        "beers",
        "--tag",
        "source=crawl",
        "--confidence",
        "0.999999",
        "--json",
    )
    assert wide.exit_code == 0, wide.output
    assert json.loads(wide.output)["accepted"] is True
    rejected = run("validate-batch", next_dirty, "-r", repo, "-d", "beers", "--record")
    assert rejected.exit_code == 1 and "rejected" in rejected.output
    assert "recorded" not in rejected.output
    recorded_now = run(
        "validate-batch",
        next_clean,
        "-r",
        repo,
        "-d",
        "beers",
        "--confidence",
        "0.999999",
        "--record",
        "--date",
        "2024-03-07",
        "--json",
    )
    assert recorded_now.exit_code == 0
    assert json.loads(recorded_now.output)["recorded"]["date"].startswith("2024-03-07")
    table = run("metrics", "history", "-r", repo, "-d", "beers", "--metric", "Size")
    assert table.exit_code == 0 and "0 values" in table.output


@pytest.mark.parametrize(
    "args,needle",
    [
        (["suggest", "{clean}", "--test-ratio", "1"], "test set ratio"),
        (["metrics", "record", "{clean}", "-r", "{repo}", "-d", "f", "--tag", "oops"], "KEY=VALUE"),
        (
            ["metrics", "record", "{clean}", "-r", "{repo}", "-d", "f", "--date", "monday"],
            "ISO-8601",
        ),
        (["validate", "{clean}", "-c", "{anomaly_suite}"], "needs a metrics repository"),
    ],
)
def test_errors_are_one_line_with_exit_code_2(dirty_clean, tmp_path, args, needle):
    anomaly_suite = tmp_path / "anomaly.json"
    anomaly_suite.write_text(
        json.dumps(
            {
                "format": "autovalidate-suite",
                "version": 2,
                "checks": [
                    {
                        "description": "size",
                        "level": "Error",
                        "constraints": [
                            {
                                "kind": "deequ",
                                "constraint": "has_no_anomalies",
                                "analyzer": {"analyzer": "Size", "where": None},
                                "strategy": {"strategy": "OnlineNormal"},
                                "dataset": "flights",
                            }
                        ],
                    }
                ],
            }
        )
    )
    names = {
        "clean": dirty_clean / "flights" / "clean.csv",
        "repo": tmp_path / "m.duckdb",
        "anomaly_suite": anomaly_suite,
    }
    res = run(*[a.format(**names) for a in args])
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert lines[0].startswith("error:") and needle in " ".join(lines), res.output
    assert "Traceback" not in res.output


def test_readme_whole_table_example_fails_the_dirty_flights_for_the_reasons_it_gives(tmp_path):
    """The README's suggest/validate lines on flights, run as written (the suite in tmp_path)."""
    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text()
    section = readme.split("## Suggestions for whole tables", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    suggest_line, validate_line = block.splitlines()[:2]
    suite = str(tmp_path / "flights.json")
    ran = []
    cwd = Path.cwd()
    os.chdir(root)  # the lines read ../shared from the repository root
    try:
        for line in (suggest_line, validate_line):
            command, _, comment = line.partition("#")
            args = [suite if a == "flights.json" else a for a in command.split()[1:]]
            ran.append(
                (run(*args), int(m.group(1)) if (m := re.search(r"exit (\d)", comment)) else 0)
            )
    finally:
        os.chdir(cwd)
    for res, expected in ran:
        assert res.exit_code == expected, res.output
    made, failed = ran[0][0].output, " ".join(ran[1][0].output.split())
    count = re.search(r"^(\d+) suggestions for 7 columns", made, re.M).group(1)
    assert f"({count} for the 7 columns of flights" in " ".join(section.split())
    assert Path(suite).exists()
    reasons = re.findall(r"`([^`]*(?:failed|meet the constraint)[^`]*)`", " ".join(section.split()))
    assert len(reasons) == 2  # the README quotes two failures and their messages
    for quoted in reasons:
        assert quoted in failed, quoted
