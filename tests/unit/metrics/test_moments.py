"""Variance, skewness, kurtosis, ratio of sums, zero and duplicate counts.

Against scipy and Python, on both engines; the moments merged.

On fivethirtyeight's airline-safety table from the shared lake (56 airlines).
"""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pytest
import scipy.stats as st

from autovalidate.checks import Check, CheckLevel, VerificationSuite
from autovalidate.metrics import Kurtosis, RatioOfSums, Skewness, Variance, merge_states
from tests.deequ_support import run, states
from tests.unit.checks.test_schema_freshness import lake_table

PART = "fivethirtyeight+data-000.parquet"
TABLE = "fivethirtyeight/data:airline-safety/airline-safety.csv"


def airlines() -> pa.Table:
    table = lake_table(PART, TABLE)
    return pa.table(
        {n: table[n] if n == "airline" else table[n].cast(pa.float64()) for n in table.column_names}
    )


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_moments_and_ratio_of_sums_agree_with_scipy(engine, request):
    table = airlines()
    data = (
        table
        if engine == "duckdb"
        else request.getfixturevalue("spark").createDataFrame(table.to_pandas())
    )
    x = np.array(table["fatalities_85_99"].to_pylist())
    ratio = sum(table["incidents_00_14"].to_pylist()) / sum(table["incidents_85_99"].to_pylist())
    fatal = table["fatal_accidents_00_14"].to_pylist()
    zeros, repeats = fatal.count(0.0), len(fatal) - len(set(fatal))
    assert 0 < zeros < repeats < len(fatal)
    check = (
        Check(CheckLevel.ERROR, "airlines")
        .has_variance("fatalities_85_99", lambda v: math.isclose(v, np.var(x), rel_tol=1e-9))
        .has_skewness("fatalities_85_99", lambda v: math.isclose(v, st.skew(x), rel_tol=1e-9))
        .has_kurtosis("fatalities_85_99", lambda v: math.isclose(v, st.kurtosis(x), rel_tol=1e-9))
        .has_ratio_of_sums(
            "incidents_00_14", "incidents_85_99", lambda v: v == pytest.approx(ratio)
        )
        .has_zero_count("fatal_accidents_00_14", lambda n: n == zeros)
        .has_duplicate_count("fatal_accidents_00_14", lambda n: n == repeats)
        .has_skewness("fatalities_85_99", lambda v: v > 0, where="airline = 'Aeroflot*'")
    )
    result = VerificationSuite().on_data(data).add_check(check).run()
    outcomes = result.check_results[0].constraint_results
    assert [c.status.value for c in outcomes[:6]] == ["Success"] * 6, [c.message for c in outcomes]
    assert st.skew(x) > 1 and ratio < 1  # a long right tail; fewer incidents lately
    assert math.isnan(outcomes[6].value)  # one value: no skewness, and NaN fails the assertion
    assert result.metrics.stats.scans == 2  # one aggregation, one grouping


def test_moments_merge_as_the_union():
    table = airlines()
    x = table["fatalities_85_99"].to_pylist()
    parts = [table.slice(0, 20), table.slice(20, 3), table.slice(23)]
    analyzers = [
        Variance("fatalities_85_99"),
        Skewness("fatalities_85_99"),
        Kurtosis("fatalities_85_99"),
    ]
    merged = merge_states(*(states(p, analyzers[:1])[1][analyzers[0]] for p in parts))
    for analyzer, expected in zip(analyzers, [np.var(x), st.skew(x), st.kurtosis(x)], strict=True):
        assert analyzer.metric_from_state(merged).value == pytest.approx(expected, rel=1e-9)


def test_moments_of_tiny_and_constant_columns():
    data = pa.table({"one": [5.0, None], "two": [1.0, 3.0], "same": [2.0, 2.0]})
    analyzers = [
        Variance("two"),
        Skewness("two"),
        Kurtosis("two"),
        Variance("same"),
        Skewness("same"),
    ]
    context = run(data, [*analyzers, Variance("one"), RatioOfSums("two", "same")])
    values = [context.metric(a).value for a in analyzers]
    assert values[:4] == [1.0, 0.0, -2.0, 0.0] and math.isnan(values[4])
    assert context.metric(Variance("one")).value == 0.0
    assert context.metric(RatioOfSums("two", "same")).value == 1.0
