"""Value checks peers have (GX, Deequ): dates in a strptime format, JSON, a negated regex,
equal columns. On CISA's KEV table from the shared lake, both engines, each fraction
checked against Python's own parsers."""

from __future__ import annotations

import datetime as dt
import json
import re

import pyarrow as pa
import pytest

from autovalidate.checks import Check, CheckLevel, VerificationSuite
from autovalidate.errors import ParameterError
from autovalidate.metrics.expressions import java_datetime_pattern
from tests.unit.checks.test_schema_freshness import kev


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
    )
    result = VerificationSuite().on_data(data).add_check(check).run()
    outcomes = result.check_results[0].constraint_results
    assert [c.status.value for c in outcomes] == ["Success"] * 5
    assert [c.value for c in outcomes] == pytest.approx(expected, abs=1e-12)


def test_strptime_formats_map_to_spark_patterns():
    assert java_datetime_pattern("%Y-%m-%dT%H:%M:%S.%f") == "yyyy'-'M'-'d'T'H':'m':'s'.'SSSSSS"
    assert (
        java_datetime_pattern("%d %b %Y, %I%p 100%% o'clock")
        == "d' 'MMM' 'yyyy', 'ha' 100% o''clock'"
    )
    with pytest.raises(ParameterError, match="%U"):
        Check(CheckLevel.ERROR, "x").matches_datetime_format("d", "%Y week %U")
