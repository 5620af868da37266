"""Frequency metrics on DuckDB against brute force over Python counters (Deequ semantics)."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from autovalidate.errors import ParameterError
from autovalidate.metrics import (
    CountDistinct,
    Distinctness,
    Entity,
    Entropy,
    FrequenciesState,
    Histogram,
    MutualInformation,
    Uniqueness,
    UniqueValueRatio,
)
from autovalidate.metrics.base import COUNT_COLUMN
from tests.deequ_support import arrow, run, states, value

COLORS = ["red", "red", "blue", None, "green", "blue", "red", None, "black"]
SIZES = ["S", "M", "S", "L", None, "S", "M", None, "S"]
DATA = arrow({"color": COLORS, "size": SIZES, "n": list(range(len(COLORS)))})


def _counts(values):
    return Counter(v for v in values if v is not None)


def test_uniqueness_is_values_seen_once_over_non_null_rows():
    counts = _counts(COLORS)  # red 3, blue 2, green 1, black 1 over 7 non-null rows
    expected = sum(1 for c in counts.values() if c == 1) / sum(counts.values())
    assert value(DATA, Uniqueness("color")) == pytest.approx(expected) == pytest.approx(2 / 7)


def test_distinctness_is_distinct_values_over_non_null_rows():
    assert value(DATA, Distinctness("color")) == pytest.approx(4 / 7)


def test_unique_value_ratio_is_values_seen_once_over_distinct_values():
    assert value(DATA, UniqueValueRatio("color")) == pytest.approx(2 / 4)


def test_count_distinct_ignores_nulls():
    assert value(DATA, CountDistinct("color")) == 4.0


def test_entropy_is_in_nats():
    counts = _counts(COLORS)
    n = sum(counts.values())
    expected = -sum(c / n * math.log(c / n) for c in counts.values())
    assert value(DATA, Entropy("color")) == pytest.approx(expected)


def test_multi_column_groups_keep_rows_with_at_least_one_value():
    pairs = [(c, s) for c, s in zip(COLORS, SIZES, strict=True) if c is not None or s is not None]
    counts = Counter(pairs)
    expected = sum(1 for c in counts.values() if c == 1) / len(pairs)
    assert value(DATA, Uniqueness(["color", "size"])) == pytest.approx(expected)
    metric = run(DATA, [Uniqueness(["color", "size"])]).metric(Uniqueness(["color", "size"]))
    assert (metric.entity, metric.instance) == (Entity.MULTICOLUMN, "color,size")


def test_where_filters_before_grouping():
    kept = [
        c for c, n in zip(COLORS, range(len(COLORS)), strict=True) if n < 4
    ]  # red red blue None
    assert value(DATA, Uniqueness("color", where="n < 4")) == pytest.approx(1 / 3)
    assert value(DATA, CountDistinct("color", where="n < 4")) == len(set(kept) - {None})


def _deequ_mutual_information(xs, ys):
    """Deequ's formula: pairs with both values, marginals over rows with at least one value."""
    rows = [(x, y) for x, y in zip(xs, ys, strict=True) if x is not None or y is not None]
    n = len(rows)
    joint = Counter(rows)
    cx = Counter(x for x, _ in rows)
    cy = Counter(y for _, y in rows)
    return sum(
        c / n * math.log((c / n) / ((cx[x] / n) * (cy[y] / n)))
        for (x, y), c in joint.items()
        if x is not None and y is not None
    )


def test_mutual_information_follows_deequ():
    expected = _deequ_mutual_information(COLORS, SIZES)
    assert value(DATA, MutualInformation(["color", "size"])) == pytest.approx(expected)


def test_mutual_information_of_a_column_with_itself_is_its_entropy():
    data = arrow({"a": COLORS, "b": COLORS})
    assert value(data, MutualInformation(["a", "b"])) == pytest.approx(value(data, Entropy("a")))


def test_mutual_information_needs_two_columns():
    with pytest.raises(ParameterError):
        MutualInformation(["color"])


def test_histogram_counts_nulls_and_orders_by_frequency():
    dist = value(DATA, Histogram("color"))
    assert dist.number_of_bins == 5
    assert list(dist.values) == ["red", "NullValue", "blue", "black", "green"]
    assert dist.absolute("red") == 3
    assert dist.ratio("NullValue") == pytest.approx(2 / 9)
    top = value(DATA, Histogram("color", max_detail_bins=2))
    assert list(top.values) == ["red", "NullValue"] and top.number_of_bins == 5


def test_histogram_bins_are_limited_to_1000():
    with pytest.raises(ParameterError):
        Histogram("color", max_detail_bins=1001)


def test_frequency_metrics_of_an_all_null_column():
    data = arrow({"x": [None, None]}, {"x": None})
    context = run(data, [Uniqueness("x"), CountDistinct("x"), Entropy("x")])
    assert context.metric(CountDistinct("x")).value == 0.0
    assert "Empty state" in str(context.metric(Uniqueness("x")).error)
    assert context.metric(Entropy("x")).error is not None


def test_analyzers_of_one_grouping_share_one_state_and_one_scan():
    analyzers = [
        Uniqueness("color"),
        Distinctness("color"),
        Entropy("color"),
        CountDistinct("color"),
    ]
    context, found = states(DATA, analyzers)
    assert len({a.state_key for a in analyzers}) == 1
    state = found[analyzers[0]]
    assert isinstance(state, FrequenciesState)
    assert dict(
        zip(state.table["color"].to_pylist(), state.table[COUNT_COLUMN].to_pylist(), strict=True)
    ) == {"red": 3, "blue": 2, "green": 1, "black": 1}
    assert context.stats.scans == 1


def test_frequency_state_merge_sums_counts_with_null_safe_keys():
    a = FrequenciesState.from_dict({"keys": ["k"], "rows": [["x", 2], [None, 1]]})
    b = FrequenciesState.from_dict({"keys": ["k"], "rows": [["x", 1], ["y", 4], [None, 2]]})
    merged = dict(zip(*(a.merge(b).table[c].to_pylist() for c in ("k", COUNT_COLUMN)), strict=True))
    assert merged == {"x": 3, "y": 4, None: 3}
    assert a.merge(b).num_rows == 10
