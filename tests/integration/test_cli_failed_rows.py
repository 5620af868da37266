"""``autovalidate validate --failed-rows``: the rows that broke a row-level constraint, as Parquet.

The issue's done-when: on the dirty hospital batch, with the pattern that
``suggest`` learns on the clean table's ZipCode (index of lake-mini), the file
holds exactly the rows whose ``zip`` breaks the pattern, computed here
independently with Python's ``regex`` over the CSV's rows.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import regex
from typer.testing import CliRunner

import autovalidate as av
from autovalidate.checks.spec import CheckSpec, ConstraintSpec, ConstraintSuite
from autovalidate.cli import app
from autovalidate.pipeline import BROKEN_CONSTRAINTS, MAX_ROW_NAME, row_constraint_name

runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.mark.spark
def test_failed_rows_of_the_dirty_hospital_batch_are_the_zip_pattern_breakers(
    mini_index, dirty_clean, tmp_path
):
    clean, dirty = (dirty_clean / "hospital" / f"{b}.csv" for b in ("clean", "dirty"))
    suite = tmp_path / "hospital-zip.json"
    res = run("suggest", clean, "--column", "ZipCode", "--index", mini_index, "--out", suite)
    assert res.exit_code == 0, res.output
    (constraint,) = ConstraintSuite.load(suite).pattern_constraints()

    out = tmp_path / "f.parquet"
    res = run("validate", dirty, "--constraints", suite, "--rename", "ZipCode=zip")
    assert res.exit_code == 1, res.output
    assert not out.exists()
    res = run(
        "validate",
        dirty,
        "--constraints",
        suite,
        "--rename",
        "ZipCode=zip",
        "--failed-rows",
        out,
    )
    assert res.exit_code == 1, res.output

    # independently: Python's regex, full match, over the CSV's rows (an empty field is null)
    full = regex.compile(constraint.regex)
    rows = _rows(dirty)
    expected = {tuple(r.values()) for r in rows if r["zip"] and not full.fullmatch(r["zip"])}
    assert 0 < len(expected) < len(rows)

    written = pq.read_table(out)
    columns = [c for c in written.column_names if c != BROKEN_CONSTRAINTS]
    assert columns == list(rows[0])  # the batch's own columns: zip, not ZipCode
    got = [tuple(r[c] for c in columns) for r in written.to_pylist()]
    assert len(got) == len(set(got)) and set(got) == expected
    name = f"PatternConstraint(ZipCode, {constraint.regex})"
    assert {tuple(b) for b in written.column(BROKEN_CONSTRAINTS).to_pylist()} == {(name,)}


def _suite(tmp_path: Path) -> Path:
    path = tmp_path / "suite.json"
    path.write_text(
        ConstraintSuite(
            (
                CheckSpec(
                    "orders",
                    av.CheckLevel.ERROR,
                    (
                        ConstraintSpec("is_complete", {"column": "id"}),
                        ConstraintSpec(
                            "is_contained_in",
                            {"column": "status", "allowed_values": ["new", "paid"]},
                        ),
                        ConstraintSpec("is_unique", {"column": "id"}),
                    ),
                ),
            )
        ).to_json()
    )
    return path


@pytest.fixture()
def orders(tmp_path) -> Path:
    path = tmp_path / "orders.csv"
    path.write_text("id,status\n1,new\n,paid\n3,lost\n3,new\n")
    return path


def test_failed_rows_lists_each_rows_broken_constraints_and_matches_the_api(orders, tmp_path):
    suite = _suite(tmp_path)
    out = tmp_path / "failed.parquet"
    out.write_text("an earlier version")
    res = run("validate", orders, "-c", suite, "--failed-rows", out, "--json")
    assert res.exit_code == 1, res.output
    written = pq.read_table(out).to_pylist()
    assert [(r["id"], r["status"], len(r[BROKEN_CONSTRAINTS])) for r in written] == [
        (None, "paid", 1),
        ("3", "lost", 1),
    ]
    assert [r[BROKEN_CONSTRAINTS][0].split("(")[0] for r in written] == [
        "CompletenessConstraint",
        "ComplianceConstraint",
    ]
    assert json.loads(res.output) == av.validate(orders, suite).to_dict()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["orders.csv", "suite.json", "failed.parquet"]
    )  # no temporary file left


def test_failed_rows_to_an_unwritable_place_is_one_line_and_exit_2(orders, tmp_path):
    out = tmp_path / "missing-dir" / "failed.parquet"
    res = run("validate", orders, "-c", _suite(tmp_path), "--failed-rows", out)
    assert res.exit_code == 2
    assert "failed.parquet" in res.output and "Traceback" not in res.output
    assert not out.parent.exists()


def test_validate_opens_its_input_once(orders, tmp_path, monkeypatch):
    """One DuckDB engine on FILE serves the row check, the checks, the examples and the split.

    Counted, not timed: every engine built on data rather than on another
    engine's connection (``con=None``) binds the input anew (issue 32).
    """
    from autovalidate.engines.duckdb import DuckDBEngine

    opened = []
    init = DuckDBEngine.__init__

    def counting_init(self, data, con=None, **kwargs):
        if con is None:
            opened.append(data)
        init(self, data, con, **kwargs)

    monkeypatch.setattr(DuckDBEngine, "__init__", counting_init)
    res = run("validate", orders, "-c", _suite(tmp_path), "--failed-rows", tmp_path / "f.parquet")
    assert res.exit_code == 1, res.output
    assert [str(d) for d in opened] == [str(orders)]


def test_a_long_constraint_name_is_cut_in_the_rows_that_break_it(tmp_path):
    # an allowed set of 20,000 codes is named in 220 KB: repeated on each of the
    # 12,000 rows outside it, 2.6 GB of text, past what an Arrow column holds
    codes = tmp_path / "codes.csv"
    codes.write_text("code\n" + "\n".join(f"x{i}" for i in range(12_000)) + "\nc1\n")
    allowed = [f"c{i:08d}" for i in range(20_000)]
    suite = tmp_path / "suite.json"
    specs = [
        ConstraintSpec("is_contained_in", {"column": "code", "allowed_values": allowed + [v]})
        for v in ("c1", "c2")
    ]
    checks = (CheckSpec("codes", av.CheckLevel.ERROR, tuple(specs)),)
    suite.write_text(ConstraintSuite(checks).to_json())
    out = tmp_path / "failed.parquet"
    res = run("validate", codes, "-c", suite, "--failed-rows", out)
    assert res.exit_code == 1, res.output
    written = pq.read_table(out)
    assert written.num_rows == 12_001
    names = {n for row in written.column(BROKEN_CONSTRAINTS).to_pylist() for n in row}
    # two constraints, two names, each its start and a digest of the whole
    assert len(names) == 2 and all(len(n) == MAX_ROW_NAME for n in names)
    assert all(
        n.startswith("ComplianceConstraint(Compliance(code contained in c00000000,") for n in names
    )
    full = [r["constraint"] for r in av.validate(codes, suite).rows()]
    assert {row_constraint_name(n) for n in full} == names
