"""A polars DataFrame is local data like a pandas DataFrame or an Arrow table (issue 33).

On CDC's births table from the shared lake, typed (integers, a date, text with nulls):
the same metrics, check results and column values from polars as from pandas and Arrow.
"""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from autovalidate.checks import Check, CheckLevel, VerificationSuite
from autovalidate.engines.io import column_values
from autovalidate.metrics import (
    ApproxQuantile,
    Completeness,
    CountDistinct,
    DataType,
    Maximum,
    MaxLength,
    Mean,
    NewestTimestamp,
    PatternMatch,
    StandardDeviation,
    Uniqueness,
)
from tests.deequ_support import run, same_value
from tests.unit.checks.test_schema_freshness import lake_table

pl = pytest.importorskip("polars")

BIRTHS = "fivethirtyeight/data:births/US_births_1994-2003_CDC_NCHS.csv"


def _births() -> pa.Table:
    """The births table typed: integer columns, a date, and the weekday as text
    (null where the day of the month is 13)."""
    table = lake_table("fivethirtyeight+data-000.parquet", BIRTHS)
    ints = {n: table[n].cast(pa.int64()) for n in table.column_names}
    days = [
        dt.date(y, m, d)
        for y, m, d in zip(
            *(ints[c].to_pylist() for c in ("year", "month", "date_of_month")), strict=True
        )
    ]
    weekday = pc.if_else(
        pc.equal(ints["date_of_month"], 13),
        pa.scalar(None, pa.string()),
        ints["day_of_week"].cast(pa.string()),
    )
    return pa.table({**ints, "day": pa.array(days, pa.date32()), "weekday": weekday})


ANALYZERS = [
    Completeness("weekday"),
    Uniqueness("day"),
    CountDistinct("weekday"),
    Mean("births"),
    StandardDeviation("births"),
    Maximum("births"),
    ApproxQuantile("births", 0.5),
    MaxLength("weekday"),
    PatternMatch("weekday", "[1-7]"),
    DataType("weekday"),
    NewestTimestamp("day"),
]


def test_polars_gives_the_metrics_of_pandas_and_arrow():
    table = _births()
    assert table.num_rows == 1000 and 0 < table["weekday"].null_count < table.num_rows
    frames = {"arrow": table, "pandas": table.to_pandas(), "polars": pl.from_arrow(table)}
    assert isinstance(frames["polars"], pl.DataFrame)
    values = {}
    for kind, frame in frames.items():
        context = run(frame, ANALYZERS)
        metrics = [context.metric(a) for a in ANALYZERS]
        assert all(m.error is None for m in metrics), kind
        values[kind] = [m.value for m in metrics]
    for kind in ("pandas", "polars"):
        assert all(same_value(a, b) for a, b in zip(values[kind], values["arrow"], strict=True)), (
            kind
        )
    assert values["polars"][0] == pytest.approx(1 - table["weekday"].null_count / table.num_rows)
    assert values["polars"][1] == 1.0  # one row per day


def test_a_check_and_column_values_read_a_polars_frame():
    table = _births()
    frame = pl.from_arrow(table)
    check = (
        Check(CheckLevel.ERROR, "births")
        .is_complete("births")
        .is_unique("day")
        .is_contained_in("weekday", [str(d) for d in range(1, 8)])
        .is_complete("weekday")
    )
    result = VerificationSuite().on_data(frame).add_check(check).run()
    statuses = [c.status.value for c in result.check_results[0].constraint_results]
    assert statuses == ["Success", "Success", "Success", "Failure"]
    assert column_values(frame, "weekday") == table["weekday"].to_pylist()
