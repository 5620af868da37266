"""Counts, ratios and numeric statistics on DuckDB, against values computed by hand or numpy."""

from __future__ import annotations

import math

import numpy as np
import pytest

from autovalidate.errors import ColumnNotFoundError, DataError, EmptyColumnError
from autovalidate.metrics import (
    Completeness,
    Compliance,
    Correlation,
    Entity,
    Maximum,
    Mean,
    Minimum,
    Size,
    StandardDeviation,
    Sum,
)
from autovalidate.metrics.statistics import CorrelationState, StandardDeviationState
from tests.deequ_support import arrow, run, value

DATA = arrow(
    {
        "id": [1, 2, 3, 4, 5, 6],
        "price": [10.0, None, 2.5, -1.0, None, 7.5],
        "qty": [1, 2, 3, 4, 5, 6],
        "name": ["a", "b", None, "d", "e", "f"],
    }
)


def test_size_counts_rows_and_filtered_rows():
    assert value(DATA, Size()) == 6.0
    assert value(DATA, Size(where="qty > 4")) == 2.0
    assert value(DATA, Size(where="qty > 100")) == 0.0


def test_size_is_a_dataset_metric():
    metric = run(DATA, [Size()]).metric(Size())
    assert (metric.entity, metric.instance, metric.name) == (Entity.DATASET, "*", "Size")


def test_completeness_is_the_fraction_of_non_null_rows():
    assert value(DATA, Completeness("price")) == pytest.approx(4 / 6)
    assert value(DATA, Completeness("id")) == 1.0
    # where: only rows passing the filter count, in numerator and denominator
    assert value(DATA, Completeness("price", where="qty >= 4")) == pytest.approx(2 / 3)


def test_completeness_without_rows_is_an_empty_state_failure():
    metric = run(DATA, [Completeness("price", where="qty > 100")]).metric(
        Completeness("price", where="qty > 100")
    )
    assert not metric.is_success
    assert isinstance(metric.error, EmptyColumnError)
    assert "Empty state" in str(metric.error)


def test_compliance_counts_rows_where_the_predicate_is_true():
    # price > 0: 10, 2.5, 7.5 comply; -1 does not; nulls make the predicate null: no
    assert value(DATA, Compliance("positive price", "price > 0")) == pytest.approx(3 / 6)
    assert value(DATA, Compliance("positive price", "price > 0", where="price IS NOT NULL")) == 0.75


def test_missing_column_is_a_failed_metric_not_an_exception():
    metric = run(DATA, [Completeness("nope")]).metric(Completeness("nope"))
    assert isinstance(metric.error, ColumnNotFoundError)
    assert metric.value is None


def test_broken_where_fails_only_its_own_analyzer():
    good, bad = Completeness("price"), Completeness("price", where="no_such_column > 1")
    context = run(DATA, [good, bad])
    assert context.metric(good).value == pytest.approx(4 / 6)
    assert context.metric(bad).error is not None


def test_statistics_match_numpy():
    prices = np.array([10.0, 2.5, -1.0, 7.5])
    assert value(DATA, Minimum("price")) == -1.0
    assert value(DATA, Maximum("price")) == 10.0
    assert value(DATA, Sum("price")) == pytest.approx(prices.sum())
    assert value(DATA, Mean("price")) == pytest.approx(prices.mean())
    assert value(DATA, StandardDeviation("price")) == pytest.approx(prices.std())  # population
    assert value(DATA, Mean("price", where="qty <= 3")) == pytest.approx(6.25)


def test_statistics_need_a_numeric_column():
    metric = run(DATA, [Mean("name")]).metric(Mean("name"))
    assert isinstance(metric.error, DataError)
    assert "numeric" in str(metric.error)


def test_statistics_of_no_values_are_empty_failures():
    for analyzer in (
        Minimum("price", "qty > 99"),
        Mean("price", "qty > 99"),
        Sum("price", "qty > 99"),
    ):
        assert isinstance(run(DATA, [analyzer]).metric(analyzer).error, EmptyColumnError)


def test_correlation_uses_complete_pairs_only():
    pairs = [(10.0, 1), (2.5, 3), (-1.0, 4), (7.5, 6)]
    expected = np.corrcoef([p for p, _ in pairs], [q for _, q in pairs])[0, 1]
    assert value(DATA, Correlation("price", "qty")) == pytest.approx(expected)
    metric = run(DATA, [Correlation("price", "qty")]).metric(Correlation("price", "qty"))
    assert (metric.entity, metric.instance) == (Entity.MULTICOLUMN, "price,qty")


def test_correlation_of_a_constant_column_is_nan():
    data = arrow({"x": [1.0, 1.0, 1.0], "y": [1.0, 2.0, 3.0]})
    assert math.isnan(value(data, Correlation("x", "y")))


def _std_state(xs: list[float]) -> StandardDeviationState:
    a = np.array(xs)
    return StandardDeviationState(len(a), float(a.mean()), float(((a - a.mean()) ** 2).sum()))


def test_moment_merges_equal_moments_of_the_union():
    left, right = [1.0, 2.0, 4.0], [10.0, -3.0]
    merged = _std_state(left).merge(_std_state(right))
    whole = _std_state(left + right)
    assert merged.n == whole.n
    assert merged.avg == pytest.approx(whole.avg)
    assert merged.m2 == pytest.approx(whole.m2)


def test_correlation_state_merge_equals_state_of_the_union():
    x = np.array([1.0, 2.0, 3.0, 5.0, 8.0])
    y = np.array([2.0, 1.0, 4.0, 3.0, 9.0])

    def state(i: slice) -> CorrelationState:
        xs, ys = x[i], y[i]
        return CorrelationState(
            len(xs),
            xs.mean(),
            ys.mean(),
            float(((xs - xs.mean()) * (ys - ys.mean())).sum()),
            float(((xs - xs.mean()) ** 2).sum()),
            float(((ys - ys.mean()) ** 2).sum()),
        )

    merged, whole = state(slice(0, 2)).merge(state(slice(2, 5))), state(slice(0, 5))
    for field in ("x_avg", "y_avg", "ck", "x_mk", "y_mk"):
        assert getattr(merged, field) == pytest.approx(getattr(whole, field))
