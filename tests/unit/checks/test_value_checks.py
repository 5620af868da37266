"""Value checks peers have (GX, Deequ): dates in a strptime format, JSON, a negated regex,
equal columns, values increasing. On CISA's KEV table and the CDC births table from the
shared lake, both engines, each fraction checked against Python."""

from __future__ import annotations

import datetime as dt
import json
import re

import pyarrow as pa
import pytest

from autovalidate.checks import Check, CheckLevel, VerificationSuite
from autovalidate.errors import ParameterError
from autovalidate.metrics.expressions import java_datetime_pattern
from tests.unit.checks.test_schema_freshness import kev, lake_table

BIRTHS = "fivethirtyeight/data:births/US_births_1994-2003_CDC_NCHS.csv"


def _json_or_not(i: int, cwes: str | None) -> str | None:
    """The row's CWE list as a JSON array, left as plain text in every 50th row."""
    if cwes is None:
        return None
    return cwes if i % 50 == 0 else json.dumps(cwes.split(", "))


def _table() -> pa.Table:
    table = kev()
    cwes = [_json_or_not(i, c) for i, c in enumerate(table["cwes"].to_pylist())]
    return table.append_column("cwes_json", pa.array(cwes, pa.string()))


def _share(values, ok) -> float:
    """Python's fraction of rows passing (nulls pass)."""
    return sum(v is None or ok(v) for v in values) / len(values)


def _parses(fmt):
    def ok(v: str) -> bool:
        try:
            dt.datetime.strptime(v, fmt)
        except ValueError:
            return False
        return True

    return ok


def _is_json(v: str) -> bool:
    try:
        json.loads(v)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_value_checks_agree_with_python(engine, request):
    table = _table()
    data = (
        table
        if engine == "duckdb"
        else request.getfixturevalue("spark").createDataFrame(table.to_pandas())
    )
    col = {n: table[n].to_pylist() for n in table.column_names}
    vendors_without_cwe = len(
        {v for v, c in zip(col["vendorProject"], col["cwes"], strict=True) if c is None}
    )
    assert vendors_without_cwe > 1
    cve = r"CVE-[0-9]{4}-[0-9]{4,5}"
    expected = [
        _share(col["dateAdded"], _parses("%Y-%m-%d")),
        _share(col["dateAdded"], _parses("%d/%m/%Y")),
        _share(col["cwes_json"], _is_json),
        _share(col["cveID"], lambda v: not re.fullmatch(cve, v)),
        0.0,
    ]
    assert expected[0] == 1.0 and expected[1] == 0.0 and 0.9 < expected[2] < 1.0
    assert 0 < expected[3] < 0.01
    check = (
        Check(CheckLevel.ERROR, "kev values")
        .matches_datetime_format("dateAdded", "%Y-%m-%d")
        .matches_datetime_format("dateAdded", "%d/%m/%Y", lambda f: f == 0.0)
        .is_valid_json("cwes_json", lambda f: f >= 0.9)
        .has_no_pattern("cveID", cve, lambda f: f < 0.01)
        .is_equal_to("dateAdded", "dueDate", lambda f: f == 0.0)
        .has_custom_sql("SELECT count(*) FROM data WHERE dueDate < dateAdded", lambda n: n == 0)
        .has_custom_sql(
            "SELECT count(DISTINCT k.vendorProject) FROM data AS k WHERE k.`cwes` IS NULL",
            lambda n: n == vendors_without_cwe,
        )
    )
    result = VerificationSuite().on_data(data).add_check(check).run()
    outcomes = result.check_results[0].constraint_results
    assert [c.status.value for c in outcomes] == ["Success"] * 7
    assert [c.value for c in outcomes[:5]] == pytest.approx(expected, abs=1e-12)
    assert [c.value for c in outcomes[5:]] == [0.0, vendors_without_cwe]


def test_strptime_formats_map_to_spark_patterns():
    assert java_datetime_pattern("%Y-%m-%dT%H:%M:%S.%f") == "yyyy'-'M'-'d'T'H':'m':'s'.'SSSSSS"
    assert (
        java_datetime_pattern("%d %b %Y, %I%p 100%% o'clock")
        == "d' 'MMM' 'yyyy', 'ha' 100% o''clock'"
    )
    with pytest.raises(ParameterError, match="%U"):
        Check(CheckLevel.ERROR, "x").matches_datetime_format("d", "%Y week %U")


def _births() -> pa.Table:
    """The births table's first 1000 days, as numbers, with their row number."""
    table = lake_table("fivethirtyeight+data-000.parquet", BIRTHS)
    columns = {n: table[n].cast(pa.int64()) for n in table.column_names}
    return pa.table({"row": pa.array(range(table.num_rows), pa.int64()), **columns})


def _kept_monotonic(values, *, decreasing=False, strictly=False) -> float:
    """Python's share of values (after the first) beyond every earlier one."""
    ok = considered = 0
    for i, v in enumerate(values[1:], 1):
        extreme = min(values[:i]) if decreasing else max(values[:i])
        considered += 1
        if decreasing:
            ok += v < extreme if strictly else v <= extreme
        else:
            ok += v > extreme if strictly else v >= extreme
    return ok / considered


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_increasing_and_decreasing_in_the_order_of_a_column(engine, request):
    table = _births()
    shuffled = table.take(list(range(1, table.num_rows, 2)) + list(range(0, table.num_rows, 2)))
    data = (
        shuffled
        if engine == "duckdb"
        else request.getfixturevalue("spark").createDataFrame(shuffled.to_pandas())
    )
    years, days = table["year"].to_pylist(), table["date_of_month"].to_pylist()
    days_1995 = [d for y, d in zip(years, days, strict=True) if y == 1995]

    def ok(fraction: float) -> bool:
        return fraction < 0.05

    check = (
        Check(CheckLevel.ERROR, "births")
        .is_increasing("year", "row")  # the rows come shuffled: order_by restores the order
        .is_increasing("year", "row", strictly=True, assertion=lambda f: f < 0.01)
        .is_increasing("date_of_month", "row", assertion=lambda f: f < 0.1)
        .is_decreasing("date_of_month", "row", strictly=True, where="year = 1995", assertion=ok)
    )
    result = VerificationSuite().on_data(data).add_check(check).run()
    outcomes = result.check_results[0].constraint_results
    assert [c.status.value for c in outcomes] == ["Success"] * 4, [c.message for c in outcomes]
    expected = [
        1.0,
        _kept_monotonic(years, strictly=True),
        _kept_monotonic(days),
        _kept_monotonic(days_1995, decreasing=True, strictly=True),
    ]
    assert [c.value for c in outcomes] == pytest.approx(expected, abs=1e-12)
    assert 0 < expected[1] < 0.01 and 0 < expected[2] < 0.1


def test_custom_sql_reads_only_the_data_and_gives_one_number():
    from autovalidate.errors import UnsafeInputError

    for query in (
        "SELECT count(*) FROM data JOIN other ON data.a = other.a",
        "SELECT count(*) FROM read_csv('/etc/passwd')",
        "SELECT count(*) FROM parquet.`/tmp/x`",
        "DELETE FROM data",
    ):
        with pytest.raises(UnsafeInputError):
            Check(CheckLevel.ERROR, "sql").has_custom_sql(query, lambda n: True)
    check = Check(CheckLevel.ERROR, "sql").has_custom_sql(
        "SELECT min(dateAdded), max(dateAdded) FROM data", lambda n: True
    )
    (outcome,) = VerificationSuite().on_data(kev()).add_check(check).run().check_results
    assert (
        outcome.constraint_results[0].message
        == "custom SQL must give one number, gave 1 rows of 2 columns"
    )
