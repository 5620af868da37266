"""The merge law, property-tested: metric(merge(s(A), s(B))) == metric(A ∪ B) for every analyzer.

Exact metrics must be equal (floats up to summation order); the approximate
quantile within its documented rank error. HyperLogLog merges are exact.
DuckDB runs many examples; Spark (a real local session) fewer, and its states
must also merge with DuckDB's results.
"""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from autovalidate.analysis import metric_from_state
from autovalidate.metrics import (
    ApproxCountDistinct,
    ApproxQuantile,
    ApproxQuantiles,
    Completeness,
    Compliance,
    Correlation,
    CountDistinct,
    DataType,
    Distinctness,
    Entropy,
    ExactQuantile,
    FrequenciesState,
    Histogram,
    InterquartileRange,
    Kurtosis,
    Maximum,
    MaxLength,
    Mean,
    Minimum,
    MinLength,
    MutualInformation,
    PatternConformance,
    PatternMatch,
    Range,
    Size,
    Skewness,
    StandardDeviation,
    Sum,
    Uniqueness,
    UniqueValueRatio,
    Variance,
    merge_states,
)
from autovalidate.metrics.sketches import QuantileSummary
from tests.deequ_support import run, same_value, states

SCHEMA = pa.schema([("k", pa.string()), ("x", pa.float64()), ("y", pa.int64())])

EXACT = [
    Size(),
    Size(where="y > 0"),
    Completeness("x"),
    Compliance("x positive", "x > 0"),
    Minimum("x"),
    Maximum("x"),
    Mean("x"),
    Sum("x"),
    StandardDeviation("x"),
    Correlation("x", "y"),
    ApproxCountDistinct("k"),
    DataType("k"),
    PatternMatch("k", "[a-c]+"),
    PatternConformance("k", "[a-c]+"),
    MinLength("k"),
    MaxLength("k"),
    Uniqueness("k"),
    Uniqueness(["k", "y"]),
    Distinctness("k"),
    UniqueValueRatio("k"),
    CountDistinct("y"),
    Entropy("k"),
    MutualInformation(["k", "y"]),
    Histogram("k", where="y >= 0"),
    Distinctness("x"),
    Range("x"),
    ExactQuantile("x", 0.5),
    ExactQuantile("y", 0.9, where="x > 0"),
    InterquartileRange("x"),
]
APPROXIMATE = [ApproxQuantile("x", 0.5, relative_error=0.1), ApproxQuantiles("y", [0.1, 0.9])]
ALL = EXACT + APPROXIMATE

rows = st.lists(
    st.tuples(
        st.one_of(
            st.none(), st.sampled_from(["a", "b", "ab", "cab", "d", "1", "2.5", "true", "é"])
        ),
        st.one_of(st.none(), st.floats(-1e6, 1e6, allow_nan=False).map(lambda v: round(v, 3))),
        st.one_of(st.none(), st.integers(-5, 5)),
    ),
    max_size=25,
)


def _table(records: list[tuple]) -> pa.Table:
    columns = list(zip(*records, strict=True)) if records else [[], [], []]
    return pa.table(
        [pa.array(list(c), type=f.type) for c, f in zip(columns, SCHEMA, strict=True)],
        schema=SCHEMA,
    )


def _assert_quantiles_within_error(analyzer, merged_state, union: pa.Table) -> None:
    values = np.sort(
        np.array([v for v in union[analyzer.column].to_pylist() if v is not None], float)
    )
    if merged_state is None:
        assert len(values) == 0
        return
    assert isinstance(merged_state, QuantileSummary) and merged_state.count == len(values)
    quantiles = [analyzer.quantile] if isinstance(analyzer, ApproxQuantile) else analyzer.quantiles
    for q in quantiles:
        answer = merged_state.quantile(q)
        target = max(1, math.ceil(q * len(values)))
        slack = merged_state.rank_error * len(values) + 1
        below, at_or_below = (
            np.searchsorted(values, answer, "left"),
            np.searchsorted(values, answer, "right"),
        )
        assert below < target + slack and at_or_below > target - slack


def _assert_merge_law(state_a, state_b, union: pa.Table, union_context) -> None:
    for analyzer in ALL:
        merged = merge_states(state_a[analyzer], state_b[analyzer])
        flipped = merge_states(state_b[analyzer], state_a[analyzer])
        if isinstance(merged, FrequenciesState):
            key = merged.key_names
            assert merged.table.sort_by([(k, "ascending") for k in key]).equals(
                flipped.table.sort_by([(k, "ascending") for k in key])
            )
        elif analyzer in EXACT and not isinstance(
            analyzer, (Mean, Sum, StandardDeviation, Correlation)
        ):
            assert merged == flipped, analyzer
        if analyzer in APPROXIMATE:
            _assert_quantiles_within_error(analyzer, merged, union)
            continue
        from_states = metric_from_state(analyzer, merged)
        direct = union_context.metric(analyzer)
        assert (from_states.error is None) == (direct.error is None), (
            analyzer,
            from_states,
            direct,
        )
        assert same_value(from_states.value, direct.value, rel=1e-9), (
            analyzer,
            from_states,
            direct,
        )


@settings(max_examples=60, deadline=None)
@given(rows, rows)
# a constant column whose two parts' means differ in their last bit: the merged
# co-moment was that bit squared, and the correlation -0.33 where the union's is NaN
@example(
    a=[(None, 171.094, 0)],
    b=[(None, 171.094, 0), (None, 171.094, 0), (None, 171.094, 1)],
)
# a float key's -0.0 and 0.0 are one group in the engines, and were two in the merge
@example(a=[(None, 0.0, None), (None, 0.0, None)], b=[(None, -0.0, None)])
def test_merge_law_on_duckdb(a, b):
    table_a, table_b = _table(a), _table(b)
    union = pa.concat_tables([table_a, table_b])
    _, state_a = states(table_a, ALL)
    _, state_b = states(table_b, ALL)
    _assert_merge_law(state_a, state_b, union, run(union, ALL))


@pytest.mark.spark
@settings(
    max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rows, rows)
def test_merge_law_on_spark_and_agreement_with_duckdb(spark, a, b):
    table_a, table_b = _table(a), _table(b)
    union = pa.concat_tables([table_a, table_b])
    spark_context, state_a = states(spark.createDataFrame(table_a, schema=SCHEMA), ALL)
    _, state_b = states(spark.createDataFrame(table_b, schema=SCHEMA), ALL)
    duck_context = run(table_a, ALL)
    for analyzer in ALL:  # the engines agree
        s, d = spark_context.metric(analyzer), duck_context.metric(analyzer)
        assert (s.error is None) == (d.error is None), (analyzer, s, d)
        assert same_value(s.value, d.value, rel=1e-9), (analyzer, s.value, d.value)
    # Spark's states merge into DuckDB's metrics of the union
    _assert_merge_law(state_a, state_b, union, run(union, ALL))


@pytest.mark.parametrize("value", [171.094, 0.1, 987654.321, -3.5])
def test_a_constant_column_in_parts_has_the_unions_spread_statistics(value):
    """Merged means of a constant column may differ in their last bit; that is no spread.

    The merge used to turn it into a standard deviation of 1e-14, a
    skewness of 1.15 and a kurtosis of -0.67 where the union has 0 and NaN.
    """
    moments = [StandardDeviation("x"), Variance("x"), Skewness("x"), Kurtosis("x")]
    analyzers = [*moments, Correlation("x", "y")]
    xs = [value] * 12
    for cut in (1, 3, 5):
        a = pa.table({"x": xs[:cut], "y": [0] * cut})
        b = pa.table({"x": xs[cut:], "y": [0] * (len(xs) - cut - 1) + [1]})
        _, state_a = states(a, analyzers)
        _, state_b = states(b, analyzers)
        union = run(pa.concat_tables([a, b]), analyzers)
        for analyzer in analyzers:
            merged = metric_from_state(analyzer, merge_states(state_a[analyzer], state_b[analyzer]))
            assert same_value(merged.value, union.metric(analyzer).value, rel=0.0), (
                analyzer,
                cut,
                merged.value,
            )
