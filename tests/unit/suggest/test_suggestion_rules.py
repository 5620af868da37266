"""Each suggestion rule against Deequ's conditions and bounds, on hand-made profiles."""

from __future__ import annotations

import math

import pytest

from autovalidate.checks import ConstrainableDataType
from autovalidate.errors import ParameterError
from autovalidate.metrics import DataTypeInstance, Distribution, DistributionValue
from autovalidate.metrics.base import ColumnKind
from autovalidate.suggest import (
    ColumnProfile,
    RuleContext,
    bernoulli_lower_bound,
    categorical_range,
    complete_if_complete,
    determine_type,
    fractional_categorical_range,
    has_max_length,
    has_min_length,
    non_negative_numbers,
    pattern_rule,
    retain_completeness,
    retain_type,
    unique_if_approximately_unique,
)

S = DataTypeInstance.STRING
I = DataTypeInstance.INTEGRAL  # noqa: E741
F = DataTypeInstance.FRACTIONAL


def profile(**fields) -> ColumnProfile:
    base = dict(
        column="c",
        completeness=1.0,
        approx_distinct=10,
        data_type=S,
        is_data_type_inferred=True,
        kind=ColumnKind.STRING,
    )
    return ColumnProfile(**{**base, **fields})


def histogram(counts: dict[str, int]) -> Distribution:
    total = sum(counts.values())
    return Distribution(
        {k: DistributionValue(v, v / total) for k, v in counts.items()}, len(counts)
    )


CTX = RuleContext(num_records=100)


def test_complete_if_complete_only_at_exactly_one():
    s = complete_if_complete(profile(), CTX)
    assert s is not None and s.code == ".is_complete('c')"
    assert s.current_value == "Completeness: 1.0"
    assert complete_if_complete(profile(completeness=0.999), CTX) is None


@pytest.mark.parametrize(
    "p,n,expected",
    [
        (0.5, 100, 0.40),  # 0.5 - 1.96 * 0.05 = 0.402
        (0.9, 10_000, 0.89),  # 0.9 - 1.96 * 0.003 = 0.89412
        (0.21, 10, -0.04),  # negative bounds are truncated toward zero, as BigDecimal DOWN
    ],
)
def test_wald_bound_truncated_to_two_decimals(p, n, expected):
    assert bernoulli_lower_bound(p, n) == expected


def test_wilson_bound_is_inside_zero_one_and_above_wald_near_zero():
    wilson = bernoulli_lower_bound(0.21, 10, interval="wilson")
    assert 0.0 <= wilson < 0.21
    assert wilson > bernoulli_lower_bound(0.21, 10)
    with pytest.raises(ParameterError):
        bernoulli_lower_bound(1.5, 10)


def test_retain_completeness_window_and_bound():
    assert retain_completeness(profile(completeness=1.0), CTX) is None
    assert retain_completeness(profile(completeness=0.2), CTX) is None  # strictly above 0.2
    s = retain_completeness(profile(completeness=0.5), CTX)
    assert s is not None
    assert s.constraint.to_dict()["assertion"] == {"op": ">=", "value": 0.4}
    assert s.description == "'c' has less than 60% missing values"
    assert s.constraint.hint == "It should be above 0.4!"


def test_retain_type_only_for_inferred_non_string_types():
    s = retain_type(profile(data_type=I, type_counts={"Integral": 5}), CTX)
    assert s is not None and s.constraint.args["data_type"] == "Integral"
    assert retain_type(profile(data_type=I, is_data_type_inferred=False), CTX) is None
    assert retain_type(profile(data_type=S), CTX) is None
    boolean = retain_type(profile(data_type=DataTypeInstance.BOOLEAN), CTX)
    assert boolean is not None and boolean.constraint.args["data_type"] == "Boolean"


def test_retain_type_asks_for_numeric_when_integers_and_fractions_mix():
    mixed = retain_type(profile(data_type=F, type_counts={"Integral": 3, "Fractional": 2}), CTX)
    assert mixed.constraint.args["data_type"] == ConstrainableDataType.NUMERIC.value
    pure = retain_type(profile(data_type=F, type_counts={"Integral": 0, "Fractional": 2}), CTX)
    assert pure.constraint.args["data_type"] == "Fractional"


def test_non_negative_needs_a_numeric_minimum_at_or_above_zero():
    assert non_negative_numbers(profile(data_type=I, minimum=0.0), CTX) is not None
    assert non_negative_numbers(profile(data_type=I, minimum=-0.5), CTX) is None
    assert non_negative_numbers(profile(data_type=S, minimum=3.0), CTX) is None
    assert non_negative_numbers(profile(data_type=F, minimum=None), CTX) is None


@pytest.mark.parametrize(
    "distinct,completeness,applies",
    [
        (100, 1.0, True),
        (92, 1.0, True),
        (107, 1.0, True),
        (109, 1.0, False),
        (91, 1.0, False),
        (100, 0.99, False),
    ],
)
def test_unique_if_approximately_unique_tolerance(distinct, completeness, applies):
    s = unique_if_approximately_unique(
        profile(approx_distinct=distinct, completeness=completeness), CTX
    )
    assert (s is not None) is applies


def test_categorical_range_unique_value_ratio_counts_the_null_bin():
    # 10 bins: 9 values seen 10 times and one seen once: ratio 0.1 -> applies
    counts = {f"v{i}": 10 for i in range(9)} | {"rare": 1}
    s = categorical_range(profile(histogram=histogram(counts)), CTX)
    assert s is not None
    assert s.constraint.args["allowed_values"][-1] == "rare"  # by descending count
    # the null bin is a bin for the ratio (2 of 10 once now) but never a category
    counts = {f"v{i}": 10 for i in range(8)} | {"rare": 1, "NullValue": 1}
    assert categorical_range(profile(histogram=histogram(counts)), CTX) is None
    counts = {"a": 50, "NullValue": 5}
    s = categorical_range(profile(histogram=histogram(counts)), CTX)
    assert s.constraint.args["allowed_values"] == ["a"]


def test_categorical_range_needs_string_or_integral_and_a_histogram():
    h = histogram({"1.5": 10, "2.5": 10})
    assert categorical_range(profile(data_type=F, histogram=h), CTX) is None
    assert categorical_range(profile(histogram=None), CTX) is None


def test_categorical_values_of_typed_numeric_columns_are_numbers():
    h = histogram({"3": 10, "12": 5})
    s = categorical_range(profile(data_type=I, kind=ColumnKind.NUMERIC, histogram=h), CTX)
    assert s.constraint.args["allowed_values"] == [3, 12]
    text = categorical_range(profile(data_type=I, histogram=h), CTX)
    assert text.constraint.args["allowed_values"] == ["3", "12"]


def test_fractional_categorical_range_covers_while_below_ninety_percent():
    counts = {"a": 60, "b": 25, "c": 10, "d": 3, "e": 2}
    ctx = RuleContext(num_records=100)
    s = fractional_categorical_range(profile(histogram=histogram(counts)), ctx)
    # a, b (0.85 < 0.9), then c (0.95): stop
    assert s.constraint.args["allowed_values"] == ["a", "b", "c"]
    bound = math.floor((0.95 - 1.96 * math.sqrt(0.95 * 0.05 / 100)) * 100) / 100
    assert s.constraint.assertion.value == bound == 0.9
    assert s.current_value.startswith("Compliance: 0.95")
    # everything covered: no fractional suggestion
    assert (
        fractional_categorical_range(profile(histogram=histogram({"a": 50, "b": 50})), ctx) is None
    )
    # too many singletons (3 of 5 > 0.4)
    many = {"a": 90, "b": 1, "c": 1, "d": 1, "e": 7}
    assert fractional_categorical_range(profile(histogram=histogram(many)), ctx) is None


def test_length_rules_on_string_profiles():
    low = has_min_length(profile(min_length=3, max_length=9), CTX)
    high = has_max_length(profile(min_length=3, max_length=9), CTX)
    assert low.code == ".has_min_length('c', lambda x: x >= 3)"
    assert high.code == ".has_max_length('c', lambda x: x <= 9)"
    assert has_min_length(profile(data_type=I), CTX) is None


def test_pattern_rule_abstains_without_index_and_on_non_strings():
    assert pattern_rule(profile(), CTX) is None
    ctx = RuleContext(100, index=object(), data=["x"])  # type: ignore[arg-type]
    assert pattern_rule(profile(data_type=I), ctx) is None


@pytest.mark.parametrize(
    "counts,expected",
    [
        ({"Unknown": 3}, DataTypeInstance.UNKNOWN),
        ({"Integral": 3, "Unknown": 1}, DataTypeInstance.INTEGRAL),
        ({"Integral": 3, "Fractional": 1}, DataTypeInstance.FRACTIONAL),
        ({"Boolean": 2}, DataTypeInstance.BOOLEAN),
        ({"Boolean": 2, "Integral": 1}, DataTypeInstance.STRING),
        ({"String": 1, "Integral": 10}, DataTypeInstance.STRING),
    ],
)
def test_determine_type_is_deequs(counts, expected):
    assert determine_type(counts) is expected
