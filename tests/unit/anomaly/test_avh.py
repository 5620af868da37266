"""AVH's bounds, differencing and selection (Tu et al., KDD 2023): pure functions."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autovalidate.anomaly.avh import (
    Option,
    cantelli_fpr,
    chebyshev_fpr,
    constant_fpr,
    difference,
    fit_interval,
    js_divergence,
    linf_distance,
    needs_differencing,
    normal_fpr,
    psi,
    rank_fpr,
    select_constraints,
)
from autovalidate.errors import ParameterError


def test_the_inequalities_at_textbook_points():
    assert chebyshev_fpr(2.0) == 0.25
    assert chebyshev_fpr(0.5) == 1.0
    assert cantelli_fpr(3.0) == pytest.approx(0.1)
    assert normal_fpr(1.959964) == pytest.approx(0.05, abs=1e-6)
    assert rank_fpr(9) == pytest.approx(0.2)
    assert rank_fpr(9, "upper") == pytest.approx(0.1)
    with pytest.raises(ParameterError):
        chebyshev_fpr(0.0)


@settings(max_examples=60, deadline=None)
@given(st.floats(0.001, 1.0), st.sampled_from(["both", "upper", "lower"]))
def test_an_interval_fitted_for_fpr_has_that_bound(fpr, side):
    rng = np.random.default_rng(0)
    interval = fit_interval(rng.normal(10, 2, 30), fpr, side=side)
    k = interval.k
    assert k is not None
    bound = chebyshev_fpr(k) if side == "both" else cantelli_fpr(k) if k > 0 else 1.0
    assert bound == pytest.approx(fpr, rel=1e-9)
    # the CLT interval is never wider than the distribution-free one
    clt = fit_interval(rng.normal(10, 2, 30), fpr, side=side, clt=True)
    assert clt.k is not None and clt.k <= k + 1e-12


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([0.01, 0.05, 0.1]))
def test_chebyshev_holds_on_heavy_tailed_clean_values(seed, fpr):
    # exchangeable history and next values from one (heavy-tailed) distribution:
    # the observed rate outside the interval stays below the bound, up to sampling error
    rng = np.random.default_rng(seed)
    history = rng.standard_t(3, 200)
    interval = fit_interval(history, fpr)
    fresh = rng.standard_t(3, 4000)
    rate = float(np.mean([not interval.contains(v) for v in fresh]))
    assert rate <= fpr + 3 * math.sqrt(fpr * (1 - fpr) / fresh.size) + 0.01


def test_a_constant_history_gets_the_constant_bound_and_a_rounding_one_the_rank_bound():
    interval = fit_interval([1.0] * 9, 0.01)
    assert (interval.lower, interval.upper, interval.bound) == (1.0, 1.0, "constant")
    assert interval.fpr == pytest.approx((8 / 9) ** 8 / 9)
    assert not interval.contains(0.99)
    # values equal up to rounding are no evidence of a constant: only the rank bound holds
    rounding = fit_interval([1.0] * 8 + [1.0 + 1e-15], 0.01)
    assert (rounding.bound, rounding.fpr) == ("rank", pytest.approx(0.2))
    assert constant_fpr(25) == pytest.approx(0.01502, abs=1e-5)
    assert constant_fpr(37) > 0.01 >= constant_fpr(38)
    assert all(constant_fpr(n) < rank_fpr(n, "upper") for n in range(2, 200))
    with pytest.raises(ParameterError):
        constant_fpr(0)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 60), st.lists(st.floats(0.0, 1.0), min_size=1, max_size=5))
def test_the_constant_bound_holds_for_every_iid_distribution(n, weights):
    # atoms with probabilities p_a (the rest continuous): P(n equal, next differs) exactly
    total = sum(weights) + 1e-9
    p = [w / total for w in weights]
    exact = sum(q**n * (1 - q) for q in p)
    assert exact <= constant_fpr(n) + 1e-15


def test_the_constant_bound_is_nearly_reached_and_holds_for_the_fitted_constraint():
    # the worst case: a metric that keeps its value with probability 1 - 1/n
    n, rng = 12, np.random.default_rng(5)
    draws = rng.random((20_000, n + 1)) < 1 / n  # True: the metric moved
    alarms = 0
    for row in draws:
        values = np.where(row, 2.0, 1.0)
        interval = fit_interval(values[:n], 0.01)
        alarms += interval.bound == "constant" and not interval.contains(values[n])
    rate = alarms / len(draws)
    assert 0.8 * constant_fpr(n) <= rate <= constant_fpr(n) + 3 * math.sqrt(0.04 / len(draws))


def test_the_plugin_treatment_prices_a_constant_history_at_the_requested_fpr():
    interval = fit_interval([1.0] * 9, 0.01, zero_variance="plugin")
    assert (interval.lower, interval.upper, interval.bound) == (1.0, 1.0, "plugin")
    assert interval.fpr == 0.01
    upper = fit_interval([1.0] * 9, 0.001, side="upper", zero_variance="plugin")
    assert (upper.lower, upper.upper, upper.fpr) == (-math.inf, 1.0, 0.001)
    # a varying history is bounded the same way under either treatment
    varying = [1.0, 2.0, 3.0, 2.0]
    assert fit_interval(varying, 0.1, zero_variance="plugin") == fit_interval(varying, 0.1)
    with pytest.raises(ParameterError):
        fit_interval([1.0] * 9, 0.01, zero_variance="bayes")  # type: ignore[arg-type]


def test_a_trend_is_differenced_and_noise_is_not():
    rng = np.random.default_rng(3)
    rows = 1000 + 25 * np.arange(30) + rng.normal(0, 10, 30)
    assert needs_differencing(rows)
    assert not needs_differencing(rng.normal(0, 1, 30))
    assert not needs_differencing([5.0] * 10)
    steps = difference(rows)
    assert steps.size == 29 and not needs_differencing(steps)


def test_distances_between_distributions():
    p = {"a": 0.5, "b": 0.5}
    assert linf_distance(p, p) == 0.0 and js_divergence(p, p) == 0.0 and psi(p, p) == 0.0
    assert linf_distance(p, {"c": 1.0}) == 1.0
    assert js_divergence(p, {"c": 1.0}) == pytest.approx(1.0)
    assert psi(p, {"a": 0.9, "b": 0.1}) > 0.5


def _brute_force(options, delta):
    best = 0
    for r in range(len(options) + 1):
        for combo in itertools.combinations(options, r):
            if len({o.candidate for o in combo}) < r or sum(o.fpr for o in combo) > delta:
                continue
            best = max(best, len(set().union(*(o.covers for o in combo))) if combo else 0)
    return best


option_lists = st.lists(
    st.builds(
        Option,
        st.sampled_from(list("abcdef")),
        st.sampled_from([0.0025, 0.005, 0.01, 0.02, 0.05]),
        st.frozensets(st.integers(0, 9), max_size=5),
    ),
    max_size=8,
)


@settings(max_examples=150, deadline=None)
@given(option_lists, st.sampled_from([0.01, 0.05, 0.1]))
def test_selection_respects_the_budget_and_approximates_the_optimum(options, delta):
    chosen = select_constraints(options, delta)
    assert sum(o.fpr for o in chosen) <= delta + 1e-12
    assert len({o.candidate for o in chosen}) == len(chosen)
    assert all(o.covers for o in chosen)
    covered = len(set().union(*(o.covers for o in chosen))) if chosen else 0
    assert covered >= (1 - 1 / math.e) / 2 * _brute_force(options, delta)


def test_selection_prefers_cheap_coverage():
    options = [
        Option("size", 0.01, frozenset({0, 1, 2})),
        Option("mean", 0.002, frozenset({0, 1})),
        Option("nulls", 0.002, frozenset({2})),
    ]
    chosen = select_constraints(options, 0.01)
    assert {o.candidate for o in chosen} == {"mean", "nulls"}
    with pytest.raises(ParameterError):
        select_constraints(options, 0.0)


def test_selection_does_not_let_a_cheap_option_crowd_out_the_narrow_ones():
    # greedy by coverage per cost takes "wide" first, then fits only one of the narrow
    # options (3 issues); the best single option covers 2; the two narrow ones cover 4
    options = [
        Option("wide", 0.1, frozenset({0})),
        Option("narrow a", 0.5, frozenset({1, 2})),
        Option("narrow b", 0.5, frozenset({3, 4})),
    ]
    chosen = select_constraints(options, 1.0)
    assert {o.candidate for o in chosen} == {"narrow a", "narrow b"}
    assert sum(o.fpr for o in chosen) <= 1.0
