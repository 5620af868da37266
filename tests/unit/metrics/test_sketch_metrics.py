"""HyperLogLog and quantile-summary sketches: error bounds, exact merges, reference hashing."""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autovalidate.engines.duckdb import render
from autovalidate.errors import ParameterError
from autovalidate.metrics import ApproxCountDistinct, ApproxQuantile, ApproxQuantiles
from autovalidate.metrics import expressions as E
from autovalidate.metrics.expressions import HLL_HASH_BITS
from autovalidate.metrics.sketches import HyperLogLogState, QuantileSummary, narrowed_quantile_grids
from tests.deequ_support import arrow, run, states, value


def _reference_code(text: str, precision: int) -> int:
    """The register code of one value, computed in Python from the documented definition."""
    w = int(hashlib.md5(text.encode()).hexdigest()[:15], 16)
    rest_bits = HLL_HASH_BITS - precision
    rest = w & ((1 << rest_bits) - 1)
    rho = rest_bits + 1 if rest == 0 else rest_bits - rest.bit_length() + 1
    return (w >> rest_bits) * 64 + rho


def test_duckdb_sketch_equals_the_reference_definition():
    words = [f"value-{i}" for i in range(3000)] + ["é", "", "x y"]
    _, found = states(arrow({"w": words}), [ApproxCountDistinct("w")])
    expected = HyperLogLogState.from_codes([_reference_code(w, 12) for w in words], 12)
    assert found[ApproxCountDistinct("w")] == expected


@pytest.mark.parametrize("n", [0, 1, 10, 1000, 50_000])
def test_estimate_is_within_four_standard_errors(n):
    codes = [_reference_code(f"v{i}", 12) for i in range(n)]
    estimate = HyperLogLogState.from_codes(codes, 12).estimate()
    assert abs(estimate - n) <= 4 * 1.04 / math.sqrt(4096) * n + 0.5


def test_approx_count_distinct_on_data():
    data = arrow({"x": [i % 700 for i in range(5000)] + [None] * 10})
    estimate = value(data, ApproxCountDistinct("x"))
    assert estimate == round(estimate)
    assert abs(estimate - 700) <= 4 * 0.01625 * 700


def test_hll_merge_is_register_maximum_and_exact():
    a = HyperLogLogState.from_codes([_reference_code(f"a{i}", 10) for i in range(500)], 10)
    b = HyperLogLogState.from_codes([_reference_code(f"b{i}", 10) for i in range(500)], 10)
    both = HyperLogLogState.from_codes(
        [_reference_code(f"{p}{i}", 10) for p in "ab" for i in range(500)], 10
    )
    assert a.merge(b) == both == b.merge(a)
    assert HyperLogLogState.from_dict(both.to_dict()) == both


def test_hll_precision_is_checked():
    with pytest.raises(ParameterError):
        ApproxCountDistinct("x", precision=3)
    with pytest.raises(ParameterError):
        HyperLogLogState.from_codes([], 10).merge(HyperLogLogState.from_codes([], 12))


def _true_rank_interval(sorted_values: np.ndarray, v: float) -> tuple[int, int]:
    """(values < v, values <= v)."""
    return int(np.searchsorted(sorted_values, v, "left")), int(
        np.searchsorted(sorted_values, v, "right")
    )


def _assert_within_rank_error(values: np.ndarray, summary: QuantileSummary, q: float) -> None:
    sorted_values = np.sort(values)
    n = len(values)
    target = max(1, math.ceil(q * n))
    below, at_or_below = _true_rank_interval(sorted_values, summary.quantile(q))
    slack = summary.rank_error * n + 1
    assert below < target + slack and at_or_below > target - slack


def test_quantiles_on_the_grid_are_exact_on_duckdb():
    xs = np.random.default_rng(0).normal(size=2001)
    data = arrow({"x": list(xs)})
    sorted_xs = np.sort(xs)
    for q in (0.0, 0.01, 0.25, 0.5, 0.9, 0.99, 1.0):
        exact = sorted_xs[max(1, math.ceil(round(q * len(xs), 9))) - 1]
        assert value(data, ApproxQuantile("x", q)) == exact


def test_quantiles_off_the_grid_are_within_the_rank_error():
    xs = np.random.default_rng(1).exponential(size=5000)
    analyzers = [ApproxQuantile("x", q) for q in (0.123, 0.5555, 0.987)]
    _, found = states(arrow({"x": list(xs)}), analyzers)
    summary = found[analyzers[0]]
    assert isinstance(summary, QuantileSummary)
    for q in (0.123, 0.5555, 0.987):
        _assert_within_rank_error(xs, summary, q)


def test_quantile_summaries_merge_within_the_rank_error():
    rng = np.random.default_rng(2)
    parts = [rng.uniform(size=n) * (i + 1) for i, n in enumerate((700, 1300, 400, 2500))]
    analyzer = ApproxQuantile("x", 0.5, relative_error=0.02)
    summaries = [states(arrow({"x": list(p)}), [analyzer])[1][analyzer] for p in parts]
    merged = summaries[0].merge(summaries[1]).merge(summaries[2].merge(summaries[3]))
    other_order = summaries[3].merge(summaries[0]).merge(summaries[2]).merge(summaries[1])
    assert merged == other_order  # exact integer rank bounds: associative and commutative
    whole = np.concatenate(parts)
    assert merged.count == len(whole)
    for q in (0.05, 0.3, 0.5, 0.77, 0.95):
        _assert_within_rank_error(whole, merged, q)


def test_quantile_analyzers_of_one_column_share_a_state():
    one, many = ApproxQuantile("x", 0.5), ApproxQuantiles("x", [0.1, 0.5])
    assert one.state_key == many.state_key != ApproxQuantile("x", 0.5, relative_error=0.1).state_key
    data = arrow({"x": [float(i) for i in range(1, 101)]})
    assert value(data, many) == {"0.1": 10.0, "0.5": 50.0}


def test_quantile_parameters_are_checked():
    for bad in (
        lambda: ApproxQuantile("x", 1.5),
        lambda: ApproxQuantile("x", 0.5, relative_error=0),
        lambda: ApproxQuantiles("x", []),
    ):
        with pytest.raises(ParameterError):
            bad()


def test_quantile_summary_round_trips():
    summary = QuantileSummary.from_grid(7, [1.0, 1.0, 2.0, 5.0, 9.0], 0.25)
    assert summary.values == (1.0, 2.0, 5.0, 9.0)
    assert summary.ranks == (2, 4, 6, 7)
    assert QuantileSummary.from_dict(summary.to_dict()) == summary


@settings(max_examples=60, deadline=None)
@given(
    xs=st.lists(st.integers(-5, 40).map(float), min_size=1, max_size=400),
    qs=st.lists(st.sampled_from([0.0, 0.01, 0.07, 0.25, 0.5, 0.99, 1.0]), min_size=1, max_size=3),
    relative_error=st.sampled_from([0.01, 0.02, 0.1, 0.3]),
)
def test_a_run_keeping_no_state_gives_the_metrics_of_the_whole_grid(xs, qs, relative_error):
    """Quantiles on the grid from its few points equal those of the whole grid (stored states)."""
    analyzers = [ApproxQuantile("x", q, relative_error) for q in qs]
    analyzers.append(ApproxQuantiles("x", tuple(qs), relative_error))
    data = arrow({"x": xs + [None]})
    narrowed = run(data, analyzers)
    whole, _ = states(data, analyzers)
    for analyzer in analyzers:
        assert narrowed.metric(analyzer).value == whole.metric(analyzer).value, analyzer


def _narrowed_points(analyzers) -> list[list[int]]:
    requests = [(a, a.aggregations()) for a in analyzers]
    return [E.quantile_grid_points(c) for c in narrowed_quantile_grids(requests).values()]


def test_a_run_keeping_no_state_asks_only_for_the_points_its_metrics_read():
    on_grid = [ApproxQuantile("x", 0.5), ApproxQuantiles("x", (0.25, 0.9, 1.0))]
    assert _narrowed_points(on_grid) == [[0, 25, 26, 50, 51, 90, 91, 100]]
    call = narrowed_quantile_grids([(a, a.aggregations()) for a in on_grid])
    sql = render(next(iter(call.values())))
    assert sql.count(",") == 8 and "0.49999" in sql  # x and 8 probabilities, nudged down
    assert _narrowed_points([ApproxQuantile("x", 0.5), ApproxQuantile("y", 0.1, 0.1)]) == [
        [0, 50, 51, 100],
        [0, 1, 2, 10],
    ]
    # A quantile between grid points reads whichever point comes next: the whole grid.
    assert _narrowed_points([ApproxQuantile("x", 0.5), ApproxQuantile("x", 0.995)]) == []
    assert _narrowed_points([ApproxQuantile("x", 1 / 3)]) == []


def test_a_summary_with_points_left_out_widens_its_rank_error():
    grid = [1.0, None, None, 5.0, None, 9.0]  # K = 5, widest gap 3 steps
    summary = QuantileSummary.from_grid(10, grid, 0.2)
    assert summary.values == (1.0, 5.0, 9.0) and summary.ranks == (1, 6, 10)
    assert summary.rank_error == pytest.approx(0.2 + 2 / 5)
    with pytest.raises(ValueError, match="first and last"):
        QuantileSummary.from_grid(10, [None, 2.0, 3.0], 0.5)
