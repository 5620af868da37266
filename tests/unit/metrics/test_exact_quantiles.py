"""Exact quantiles, the interquartile range and the range: Spark's ``percentile``, mergeable."""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autovalidate as av
from autovalidate.errors import EmptyColumnError, ParameterError
from autovalidate.metrics import (
    ExactQuantile,
    InterquartileRange,
    Maximum,
    Minimum,
    Range,
    Uniqueness,
)
from autovalidate.metrics.frequencies import percentiles
from tests.deequ_support import run, value

QUANTILES = st.floats(0.0, 1.0)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-50, 50), min_size=1, max_size=40), st.lists(QUANTILES, min_size=1))
def test_percentiles_of_frequencies_are_numpys_linear_percentiles_of_the_values(values, qs):
    distinct, counts = np.unique(np.array(values, float), return_counts=True)
    found = percentiles(distinct, counts, qs)
    expected = np.percentile(np.array(values, float), [100 * q for q in qs], method="linear")
    assert np.allclose(found, expected, rtol=1e-12, atol=1e-9)


def test_percentiles_of_no_values_raise():
    with pytest.raises(ValueError):
        percentiles(np.array([]), np.array([], int), [0.5])


TABLE = pa.table(
    {
        "x": pa.array([3.5, None, -2.0, 10.0, 3.5, 0.25, None, 7.0, 3.5], pa.float64()),
        "n": pa.array([5, 1, 4, 2, 3, None, 6, 8, 7], pa.int64()),
        "s": pa.array(["1", "2", "3", "4", "5", "6", "7", "8", "9"]),
        "g": pa.array(["a", "b", "a", "b", "a", "b", "a", "b", "a"]),
    }
)


@pytest.mark.parametrize("column", ["x", "n"])
@pytest.mark.parametrize("q", [0.0, 0.1, 0.25, 0.5, 0.9, 1.0])
def test_exact_quantile_is_numpys_over_the_non_null_values(column, q):
    kept = np.array([v for v in TABLE[column].to_pylist() if v is not None], float)
    assert value(TABLE, ExactQuantile(column, q)) == pytest.approx(
        np.percentile(kept, 100 * q), rel=1e-12
    )


def test_interquartile_range_and_range_of_one_to_six():
    table = pa.table({"a": list(range(1, 7))})
    assert value(table, InterquartileRange("a")) == 4.75 - 2.25
    assert value(table, Range("a")) == 5.0
    assert value(table, ExactQuantile("a", 0.5)) == 3.5  # between the middle two


def test_where_keeps_its_rows_before_the_quantile():
    kept = [5.0, 4.0, 3.0, 6.0, 7.0]  # n where g = 'a'
    assert value(TABLE, ExactQuantile("n", 0.5, where="g = 'a'")) == np.percentile(kept, 50)
    assert value(TABLE, Range("n", where="g = 'a'")) == 4.0


def test_nan_sorts_above_every_number_as_in_spark():
    table = pa.table({"x": [1.0, float("nan"), 2.0]})
    assert value(table, ExactQuantile("x", 0.5)) == 2.0
    assert math.isnan(value(table, ExactQuantile("x", 1.0)))


def test_no_values_is_an_empty_state_failure_as_for_the_minimum():
    table = pa.table({"x": pa.array([None, None], pa.float64()), "g": ["a", "b"]})
    for analyzer in (ExactQuantile("x", 0.5), InterquartileRange("x"), Range("x"), Minimum("x")):
        assert isinstance(run(table, [analyzer]).metric(analyzer).error, EmptyColumnError)
    where = ExactQuantile("n", 0.5, where="g = 'none'")
    assert isinstance(run(TABLE, [where]).metric(where).error, EmptyColumnError)


def test_a_text_column_fails_the_numeric_precondition_but_csv_text_is_read_as_numbers(tmp_path):
    metric = run(TABLE, [ExactQuantile("s", 0.5)]).metric(ExactQuantile("s", 0.5))
    assert metric.error is not None and "numeric" in str(metric.error)
    path = tmp_path / "t.csv"
    path.write_text("a,g\n1,x\n2,y\nnot a number,x\n,y\n10,x\n")
    assert value(str(path), ExactQuantile("a", 0.5)) == 2.0  # of 1, 2, 10
    assert value(str(path), InterquartileRange("a")) == 6.0 - 1.5
    assert value(str(path), Range("a", where="g = 'x'")) == 9.0


@pytest.mark.parametrize("q", [-0.1, 1.5, math.nan])
def test_a_quantile_outside_zero_one_is_refused(q):
    with pytest.raises(ParameterError):
        ExactQuantile("x", q)


def test_the_quantiles_of_a_column_share_one_grouping_of_their_own():
    analyzers = [
        ExactQuantile("x", 0.5),
        ExactQuantile("x", 0.9),
        InterquartileRange("x"),
        Uniqueness("x"),  # groups the value as it is, not as a float
    ]
    assert len({a.state_key for a in analyzers[:3]}) == 1
    assert analyzers[0].state_key != analyzers[3].state_key
    context = run(TABLE, analyzers)
    groupings = [line for line in context.stats.log if "group" in line]
    assert len(groupings) == 2, context.stats.log


def test_the_state_of_parts_merges_into_the_unions_quantiles():
    parts = [TABLE.slice(0, 4), TABLE.slice(4)]
    provider = av.analysis.InMemoryStateProvider()
    analyzers = [ExactQuantile("x", 0.25), InterquartileRange("x"), Range("x"), Maximum("x")]
    for part in parts:
        previous = provider
        provider = av.analysis.InMemoryStateProvider()
        builder = av.analysis.AnalysisRunner.on_data(part).add_analyzers(analyzers)
        if part is not parts[0]:
            builder = builder.aggregate_with(previous)
        builder.save_states_with(provider).run()
    whole = run(TABLE, analyzers)
    for analyzer in analyzers:
        merged = av.analysis.metric_from_state(analyzer, provider.load(analyzer))
        assert merged.value == whole.metric(analyzer).value, analyzer


def test_checks_assert_on_the_exact_values():
    check = (
        av.Check(av.CheckLevel.ERROR, "spread")
        .has_exact_quantile("n", 0.5, lambda m: m == 4.5)
        .has_interquartile_range("n", lambda iqr: iqr == 6.25 - 2.75)
        .has_range("x", lambda r: r == 12.0)
        .has_exact_quantile("x", 0.5, lambda m: m > 3.5)  # fails: the median is 3.5
    )
    result = av.validate(TABLE, check)
    statuses = [r["constraint_status"] for r in result.to_dict()["results"]]
    assert statuses == ["Success", "Success", "Success", "Failure"]
