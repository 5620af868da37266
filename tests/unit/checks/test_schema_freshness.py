"""Schema and freshness checks on a real table (CISA's KEV catalog, from the shared lake).

Both engines, no mocks. The freshness reference times are pinned, so the
tests do not depend on today's date.
"""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa
import pytest

from autovalidate.checks import Check, CheckLevel, ConstraintStatus, VerificationSuite, schema_of
from autovalidate.checks.spec import ConstraintSuite
from autovalidate.metrics import NewestTimestamp
from tests.conftest import LAKE

KEV = "cisagov/kev-data:known_exploited_vulnerabilities.csv"
ENGINES = ["duckdb", "spark"]


def lake_table(part: str, table_id: str) -> pa.Table:
    """A table of the shared lake (one row per column there) as text columns, in order."""
    import pyarrow.parquet as pq

    columns = pq.read_table(LAKE / part, filters=[("table_id", "=", table_id)])
    columns = columns.sort_by("column_position")
    names = columns["column_name"].to_pylist()
    values = columns["values"].to_pylist()
    assert names and len(set(names)) == len(names)
    return pa.table({n: pa.array(v, pa.string()) for n, v in zip(names, values, strict=True)})


def kev() -> pa.Table:
    table = lake_table("cisagov+kev-data-000.parquet", KEV)
    assert table.num_rows == 1000 and table["dateAdded"].null_count == 0
    return table


def _on(engine: str, table: pa.Table, request: pytest.FixtureRequest) -> Any:
    if engine == "duckdb":
        return table
    return request.getfixturevalue("spark").createDataFrame(table.to_pandas())


def _outcomes(check: Check, data: Any) -> list[tuple[str, str | None, Any]]:
    result = VerificationSuite().on_data(data).add_check(check).run()
    return [
        (c.status.value, c.message, c.value) for c in result.check_results[0].constraint_results
    ]


TEXT = {"duckdb": "VARCHAR", "spark": "string"}


@pytest.mark.parametrize("engine", ENGINES)
def test_schema_checks_name_what_is_missing_added_or_retyped(engine, request):
    table = kev()
    names = table.column_names
    data = _on(engine, table, request)
    previous = schema_of(data)
    assert list(previous) == names and set(previous.values()) == {TEXT[engine]}
    # the previous batch had a "vendor" column, no "notes", and cveID as a number
    previous.pop("notes")
    previous["vendor"] = TEXT[engine]
    previous["cveID"] = "bigint"
    check = (
        Check(CheckLevel.ERROR, "kev schema")
        .has_column("cveID")
        .has_column("cveId")  # case matters
        .has_columns(names)
        .has_columns(names[:-1])
        .has_columns(list(reversed(names)), ordered=True)
        .has_column_type("dateAdded", ["VARCHAR", "string"])
        .has_column_type("dateAdded", "date")
        .has_schema(previous)
        .has_column_count(lambda n: n == 11)
    )
    assert _outcomes(check, data) == [
        ("Success", None, 0),
        ("Failure", "1 column missing: cveId", 1),
        ("Success", None, 0),
        ("Failure", "1 column not expected: cwes", 1),
        ("Failure", f"columns out of order: {', '.join(names)}", 1),
        ("Success", None, 0),
        ("Failure", f"1 column of another type: dateAdded ({TEXT[engine]}, expected date)", 1),
        (
            "Failure",
            "1 column missing: vendor; 1 column not expected: notes; "
            f"1 column of another type: cveID ({TEXT[engine]}, expected bigint)",
            3,
        ),
        ("Success", None, 11),
    ]


def test_a_suite_with_a_missing_column_fails_a_schema_check_rather_than_the_run(tmp_path):
    path = tmp_path / "kev.parquet"
    import pyarrow.parquet as pq

    pq.write_table(kev(), path)
    suite = {
        "format": "autovalidate-suite",
        "version": 2,
        "checks": [
            {
                "description": "shape",
                "level": "Error",
                "constraints": [
                    {"kind": "deequ", "constraint": "has_column", "column": "epss_score"},
                    {"kind": "deequ", "constraint": "has_column_type", "column": "cveID",
                     "types": ["VARCHAR", "string"]},
                    {"kind": "deequ", "constraint": "has_columns", "columns": ["cveID", "cwes"],
                     "exact": False},
                    {"kind": "deequ", "constraint": "is_fresh", "column": "dateAdded",
                     "max_age_hours": 48, "reference_time": "2025-08-26T12:00:00"},
                ],
            }
        ],
    }  # fmt: skip
    loaded = ConstraintSuite.from_dict(json.loads(json.dumps(suite)))
    assert loaded.to_dict()["checks"] == suite["checks"]
    result = loaded.run(path)
    statuses = [c.status for c in result.check_results[0].constraint_results]
    assert statuses == [ConstraintStatus.FAILURE] + [ConstraintStatus.SUCCESS] * 3
    assert result.check_results[0].constraint_results[0].details == {
        "missing": ["epss_score"],
        "added": [],
        "retyped": {},
        "out_of_order": False,
    }


@pytest.mark.parametrize("engine", ENGINES)
def test_freshness_of_the_newest_date_added(engine, request):
    data = _on(engine, kev(), request)  # dateAdded is text, newest 2025-08-25, read as UTC
    check = (
        Check(CheckLevel.WARNING, "kev freshness")
        .is_fresh("dateAdded", 36, reference_time="2025-08-26T12:00:00Z")
        .is_fresh("dateAdded", 35.5, reference_time="2025-08-26T12:00:00Z")
        .is_fresh("dateAdded", 24, reference_time="2025-08-26T12:00:00", where="cwes = 'CWE-78'")
        .is_fresh("vulnerabilityName", 24, reference_time="2025-08-26")  # no timestamps at all
    )
    outcomes = _outcomes(check, data)
    assert outcomes[0] == ("Success", None, 36.0)
    assert outcomes[1] == (
        "Failure",
        "The newest value, 2025-08-25T00:00:00Z, is 36.00 hours older than "
        "2025-08-26T12:00:00Z; at most 35.5 allowed.",
        36.0,
    )
    assert outcomes[2][0] == "Failure" and outcomes[2][2] > 24  # an older newest command injection
    assert outcomes[3][0] == "Failure" and "Empty state" in str(outcomes[3][1])


def test_freshness_reads_instants_with_their_zone_and_merges_batches():
    import datetime as dt

    from tests.deequ_support import states

    # 2025-08-25 23:30 at UTC-2, an instant of a TIMESTAMPTZ column. Built from its
    # epoch microseconds: in one full CI run (and never alone) pyarrow turned the
    # aware datetime object into its wall clock, 23:30 UTC; the text below
    # still exercises an offset the engine must honour.
    moment = dt.datetime(2025, 8, 25, 23, 30, tzinfo=dt.timezone(dt.timedelta(hours=-2)))
    micros = round(moment.timestamp() * 1_000_000)
    typed = pa.table({"at": pa.array([micros], pa.int64()).cast(pa.timestamp("us", tz="UTC"))})
    text = pa.table({"at": ["2025-08-25T10:00:00+02:00", "2025-08-24", None]})
    (_, a), (_, b) = states(typed, [NewestTimestamp("at")]), states(text, [NewestTimestamp("at")])
    newest = dt.datetime(2025, 8, 26, 1, 30, tzinfo=dt.timezone.utc).timestamp()
    assert a[NewestTimestamp("at")].value == newest
    assert b[NewestTimestamp("at")].value == dt.datetime(2025, 8, 25, 8, tzinfo=dt.UTC).timestamp()
    assert a[NewestTimestamp("at")].merge(b[NewestTimestamp("at")]).value == newest


def test_exports_map_schema_and_freshness_checks_where_the_target_has_them():
    from autovalidate.export import dbt, dqdl, gx, soda

    constraints = [
        {"kind": "deequ", "constraint": "has_column", "column": "cveID"},
        {"kind": "deequ", "constraint": "has_column_type", "column": "cveID", "types": "VARCHAR"},
        {"kind": "deequ", "constraint": "has_column_count", "assertion": {"op": "==", "value": 11}},
        {"kind": "deequ", "constraint": "has_schema", "schema": {"cveID": "VARCHAR"}},
        {"kind": "deequ", "constraint": "is_fresh", "column": "dateAdded", "max_age_hours": 36},
    ]
    suite = ConstraintSuite.from_dict(
        {
            "format": "autovalidate-suite",
            "version": 2,
            "checks": [{"description": "kev", "level": "Error", "constraints": constraints}],
        }
    )
    exported = {
        m.__name__.rsplit(".", 1)[1]: m.export(suite, name="kev") for m in (gx, soda, dqdl, dbt)
    }
    skipped = {t: [s.constraint.split("(")[0] for s in e.skipped] for t, e in exported.items()}
    assert skipped == {
        "gx": [".has_schema", ".is_fresh"],
        "soda": [".has_column_count", ".has_schema"],
        "dqdl": [".has_column_type", ".has_schema"],
        "dbt": [".has_column", ".has_column_type", ".has_column_count", ".has_schema", ".is_fresh"],
    }
    kinds = [e["type"] for e in json.loads(exported["gx"].text)["expectations"]]
    assert kinds == [
        "expect_column_to_exist",
        "expect_column_values_to_be_of_type",
        "expect_table_column_count_to_equal",
    ]
    assert "freshness(dateAdded) < 36h" in exported["soda"].text
    assert "when required column missing" in exported["soda"].text
    assert 'DataFreshness "dateAdded" <= 36 hours' in exported["dqdl"].text
