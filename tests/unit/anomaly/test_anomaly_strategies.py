"""Anomaly strategies against Deequ's semantics; Redyuk et al.'s forecast against statsmodels."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autovalidate.anomaly import (
    STRATEGIES,
    AbsoluteChangeStrategy,
    AnomalyDetector,
    BatchNormalStrategy,
    ExponentialSmoothingStrategy,
    HoltWintersStrategy,
    OnlineNormalStrategy,
    RelativeRateOfChangeStrategy,
    SimpleThresholdStrategy,
    fit_simple_exponential_smoothing,
    strategy_from_dict,
)
from autovalidate.anomaly.holt_winters import additive_holt_winters
from autovalidate.errors import ConstraintFormatError, ParameterError
from autovalidate.repository import DataPoint


def anomalies(strategy, series, interval=(0, 10**9)):
    return [i for i, _ in strategy.detect(series, interval)]


def test_simple_threshold_bounds_are_inclusive():
    s = SimpleThresholdStrategy(upper_bound=1.0, lower_bound=-1.0)
    assert anomalies(s, [-1.0, 1.0, 1.01, -2.0, 0.0]) == [2, 3]
    assert anomalies(s, [-1.0, 1.0, 1.01, -2.0, 0.0], (3, 5)) == [3]
    with pytest.raises(ParameterError):
        SimpleThresholdStrategy(upper_bound=0.0, lower_bound=1.0)
    with pytest.raises(ParameterError):
        s.detect([1.0], (3, 1))


def test_absolute_change_of_first_and_second_order():
    series = [1.0, 2.0, 3.0, 10.0, 11.0]
    first = AbsoluteChangeStrategy(-2.0, 2.0)
    assert anomalies(first, series) == [3]
    # the interval looks back `order` points: index 3 is still compared with index 2
    assert anomalies(first, series, (3, 5)) == [3]
    # second differences: [0, 6, -6] at indices 2, 3, 4
    second = AbsoluteChangeStrategy(-5.0, 5.0, order=2)
    assert anomalies(second, series) == [3, 4]
    point = second.detect_points(series, (3, 4))[0]
    assert point.upper == 10.0 - 6.0 + 5.0 and point.lower == 10.0 - 6.0 - 5.0
    only_increase = AbsoluteChangeStrategy(max_rate_increase=2.0)
    assert anomalies(only_increase, [10.0, 1.0, 4.0]) == [2]
    with pytest.raises(ParameterError):
        AbsoluteChangeStrategy()
    with pytest.raises(ParameterError):
        AbsoluteChangeStrategy(1.0, -1.0)


def test_an_order_past_the_series_decides_no_point_at_once():
    """A suite's ``"order": 1000000000`` differenced an empty list 10**9 times (it hung)."""
    for cls in (AbsoluteChangeStrategy, RelativeRateOfChangeStrategy):
        far = cls(max_rate_increase=1.0, order=10**9)
        points = far.detect_points([1.0, 5.0, 30.0])
        assert [p.is_anomaly for p in points] == [False, False, False]
        assert anomalies(far, [1.0, 5.0, 30.0]) == []


def test_relative_rate_of_change_is_a_ratio_to_order_points_back():
    s = RelativeRateOfChangeStrategy(0.9, 1.1)
    assert anomalies(s, [10.0, 10.5, 12.0, 12.5]) == [2]
    two_back = RelativeRateOfChangeStrategy(0.9, 1.1, order=2)
    assert anomalies(two_back, [10.0, 50.0, 10.5, 51.0]) == []
    assert anomalies(s, [0.0, 1.0, 0.0, 0.0]) == [1, 2]  # 1/0 = inf, 0/1 = 0; 0/0 is no ratio
    point = s.detect_points([-10.0, -10.5], (1, 2))[0]
    assert (point.lower, point.upper) == (-11.0, -9.0)


def _deequ_online_normal(series, factor, skip_fraction, ignore):
    """OnlineNormalStrategy.computeStatsAndAnomalies, written out from the Scala source."""
    mean = variance = sn = 0.0
    flagged = []
    for i, x in enumerate(series):
        last = (mean, variance, sn)
        mean = x if i == 0 else last[0] + (x - last[0]) / (i + 1)
        sn += (x - last[0]) * (x - mean)
        variance = sn / (i + 1)
        std = math.sqrt(variance)
        inside = mean - factor * std <= x <= mean + factor * std
        if i < len(series) * skip_fraction or inside:
            continue
        flagged.append(i)
        if ignore:
            mean, variance, sn = last
    return flagged


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=1, max_size=40),
    st.sampled_from([0.5, 1.0, 2.0]),
    st.sampled_from([0.0, 0.1, 0.5]),
    st.booleans(),
)
def test_online_normal_is_deequs_running_computation(series, factor, skip, ignore):
    s = OnlineNormalStrategy(factor, factor, skip, ignore)
    assert anomalies(s, series) == _deequ_online_normal(series, factor, skip, ignore)


def test_online_normal_cannot_flag_early_points_with_factor_three():
    # the value itself enters its own mean and (population) deviation: at most sqrt(n - 1)
    # deviations away, so the 9th point cannot be 3 deviations out, the 11th can
    series = [1.0] * 8 + [1000.0]
    assert anomalies(OnlineNormalStrategy(ignore_start_percentage=0.0), series) == []
    assert anomalies(OnlineNormalStrategy(ignore_start_percentage=0.0), [1.0] * 10 + [1000.0]) == [
        10
    ]


def test_batch_normal_uses_the_values_outside_the_interval_with_sample_deviation():
    history = [1.0, 2.0, 3.0, 4.0, 5.0]
    mean, sd = statistics.mean(history), statistics.stdev(history)
    s = BatchNormalStrategy(1.0, 1.0)
    point = s.detect_points([*history, 4.7], (5, 6))[0]
    assert point.lower == pytest.approx(mean - sd) and point.upper == pytest.approx(mean + sd)
    assert anomalies(s, [*history, 4.7], (5, 6)) == [5]
    # with the interval included: mean 3.28, sd 1.54, so 4.7 is inside
    assert (
        anomalies(BatchNormalStrategy(1.0, 1.0, include_interval=True), [*history, 4.7], (5, 6))
        == []
    )
    with pytest.raises(ParameterError):
        s.detect([1.0], (0, 1))


def test_holt_winters_runs_deequs_recursion():
    series = [float(v) for v in [10, 20, 30, 40, 11, 21, 31, 41]]
    # with alpha = beta = gamma = 0 the model never moves from its initial state
    forecasts, residuals = additive_holt_winters(series, 4, 4, 0.0, 0.0, 0.0)
    level, trend = 25.0, (104 - 100) / 16
    season = [v - level for v in series[:4]]
    # the level moves by the trend at each of the 8 observed and each forecast step
    assert forecasts == pytest.approx([level + (8 + t + 1) * trend + season[t] for t in range(4)])
    assert residuals[0] == pytest.approx(series[0] - (level + trend + season[0]))


def test_holt_winters_flags_a_break_in_a_weekly_pattern():
    rng = np.random.default_rng(1)
    week = [5.0, 6.0, 7.0, 6.0, 5.0, 1.0, 1.0]
    series = [w + 0.01 * i + rng.normal(0, 0.1) for i in range(5) for w in week]
    strategy = HoltWintersStrategy(periodicity=7)
    normal = series + [week[0] + 0.05]
    assert anomalies(strategy, normal, (35, 36)) == []
    assert anomalies(strategy, series + [week[0] + 4.0], (35, 36)) == [35]
    with pytest.raises(ParameterError, match="two full periods"):
        strategy.detect(series[:11], (10, 11))


def test_exponential_smoothing_fit_equals_statsmodels_ets():
    from statsmodels.tsa.exponential_smoothing.ets import ETSModel

    rng = np.random.default_rng(0)
    for _ in range(4):
        y = pd.Series(10 + np.cumsum(rng.normal(0, 0.3, 25)) + rng.normal(0, 1, 25))
        ours = fit_simple_exponential_smoothing(y.tolist())
        theirs = ETSModel(y, error="add").fit(disp=False)
        assert ours.alpha == pytest.approx(theirs.params.iloc[0], abs=2e-3)
        assert ours.initial_level == pytest.approx(theirs.params.iloc[1], rel=1e-3)
        assert ours.forecast == pytest.approx(float(theirs.forecast(1).iloc[0]), rel=1e-4)
        frame = theirs.get_prediction(start=25, end=25).summary_frame(alpha=0.1)
        their_half = (frame["pi_upper"].iloc[0] - frame["pi_lower"].iloc[0]) / 2
        low, high = ours.interval(0.9)
        # statsmodels scales by SSE / n, we by SSE / (n - 2) (two parameters estimated)
        assert (high - low) / 2 == pytest.approx(their_half * math.sqrt(25 / 23), rel=1e-3)


def test_exponential_smoothing_interval_covers_about_ninety_percent():
    rng = np.random.default_rng(7)
    inside = 0
    trials = 400
    for _ in range(trials):
        level, alpha, series = 5.0, 0.3, []
        for _ in range(31):
            y = level + rng.normal()
            series.append(y)
            level += alpha * (y - level)
        fit = fit_simple_exponential_smoothing(series[:30])
        low, high = fit.interval(0.9)
        inside += low <= series[30] <= high
    assert 0.84 <= inside / trials <= 0.95


def test_exponential_smoothing_decides_only_with_three_earlier_values():
    s = ExponentialSmoothingStrategy()
    points = s.detect_points([1.0, 1.0, 1.0, 50.0], (0, 4))
    assert [p.is_anomaly for p in points] == [False, False, False, True]
    assert points[0].detail.startswith("fewer than 3")
    # a constant history: a tiny tolerance, nothing more
    assert anomalies(s, [2.0] * 6 + [2.0 + 1e-12], (6, 7)) == []
    assert anomalies(s, [2.0] * 6 + [2.001], (6, 7)) == [6]
    with pytest.raises(ParameterError):
        ExponentialSmoothingStrategy(1.0)


def test_detector_drops_missing_values_sorts_by_time_and_maps_intervals():
    detector = AnomalyDetector(SimpleThresholdStrategy(upper_bound=5.0))
    history = [DataPoint(30, 1.0), DataPoint(10, 9.0), DataPoint(20, None)]
    result = detector.detect_anomalies_in_history(history, (0, 100))
    assert [t for t, _ in result.anomalies] == [10]
    assert [t for t, _ in result.points] == [10, 30]
    assert detector.detect_anomalies_in_history(history, (15, 100)).anomalies == ()
    assert detector.is_new_point_anomalous(history, DataPoint(40, 6.0)).is_anomalous
    with pytest.raises(ParameterError, match="within the history"):
        detector.is_new_point_anomalous(history, DataPoint(30, 6.0))
    with pytest.raises(ParameterError):
        detector.is_new_point_anomalous([], DataPoint(30, 6.0))


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_strategies_serialize(name):
    defaults = {
        "SimpleThreshold": {"upper_bound": 3.0},
        "AbsoluteChange": {"max_rate_increase": 2.0},
        "RelativeRateOfChange": {"max_rate_decrease": 0.5, "max_rate_increase": 2.0},
    }
    strategy = STRATEGIES[name](**defaults.get(name, {}))
    assert strategy_from_dict(strategy.to_dict()) == strategy
    with pytest.raises(ConstraintFormatError):
        strategy_from_dict({**strategy.to_dict(), "bogus": 1})
    with pytest.raises(ConstraintFormatError):
        strategy_from_dict({"strategy": "Magic"})
