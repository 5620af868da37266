import pytest
import regex

from autovalidate.errors import ParameterError
from autovalidate.patterns.enumeration import column_patterns
from autovalidate.patterns.render import Element, parse_pattern, pattern_regex

# Fig. 6 / Examples 2, 4 and 6 of the paper: a data column D of 12 time strings,
# the last 8 with two-digit hours and the last 2 in the afternoon.
FIG6_D = ["9:01:02 AM"] * 4 + ["10:02:20 AM"] * 6 + ["11:02:03 PM"] * 2
H1 = "<digit>+:<digit>{2}:<digit>{2} AM"  # misses the PM values
H2 = "<digit>{1}:<digit>{2}:<digit>{2} <letter>{2}"  # single-digit hours only
H5 = "<digit>+:<digit>{2}:<digit>{2} <letter>{2}"  # the domain


EXACT = {"budget": 10**6, "ladder": (0.0,)}


def test_paper_example4_impurities():
    cp = column_patterns(FIG6_D, **EXACT)
    assert cp.min_purity == 0.0 and cp.n_values == 12
    assert cp.impurity(H1) == pytest.approx(2 / 12)
    assert cp.impurity(H2) == pytest.approx(8 / 12)
    assert cp.impurity(H5) == 0.0


def test_regex_matches_every_value_a_pattern_claims():
    values = ["A-1", "A-12", "B-7", "b-7", "A-1", None, "x", "1.5", "-3", "A-1-2"]
    cp = column_patterns(values, **EXACT)
    assert cp.n_values == 9 and cp.min_purity == 0.0
    kept = [v for v in values if v is not None]
    for pattern, count in cp.counts.items():
        rx = regex.compile(pattern_regex(pattern))
        assert sum(1 for v in kept if rx.fullmatch(v)) >= count, pattern
    assert cp.counts["<alphanum>{1}-<digit>{1}"] == 4
    # a number token's shape spells what a digit, a dot and a digit would
    assert cp.counts["<digit>{1}.<digit>{1}"] == 1


def test_a_wide_value_alone_can_exceed_the_budget():
    # one 7-token time string has 6*2*6*2*6*2*7 = 24,192 patterns
    cp = column_patterns(FIG6_D, budget=5000, ladder=(0.0, 0.2, 0.5, 1.0))
    assert cp.min_purity is not None and cp.min_purity > 0.0
    assert H5 in cp.counts and H2 not in cp.counts


def test_values_wider_than_tau_generate_nothing_but_count():
    cp = column_patterns(["1-2-3-4", "1"], tau=3, ladder=(0.0,))
    assert cp.n_values == 2
    assert cp.counts["<digit>{1}"] == 1
    assert not any(Element("literal", "-") in parse_pattern(p) for p in cp.counts)
    assert column_patterns(["1-2-3-4"], tau=3).skipped == "wide"


def test_budget_raises_the_coverage_threshold():
    values = [f"{a} {b}" for a in ["ab", "ABC", "Abcd", "x1"] for b in ["zz", "Q", "12", "3.5"]]
    exact = column_patterns(values, budget=10**6, ladder=(0.0, 0.2, 0.5, 1.0))
    assert exact.min_purity == 0.0
    small = column_patterns(values, budget=20, ladder=(0.0, 0.2, 0.5, 1.0))
    assert small.min_purity is not None and small.min_purity > 0
    assert len(small.counts) <= 20
    # what is kept is exact for the kept patterns, and covers the threshold
    for p, c in small.counts.items():
        assert c == exact.counts[p]
        assert c >= small.min_purity * small.n_values
    assert column_patterns(values, budget=1, ladder=(0.0,)).skipped == "over-budget"


def test_nulls_and_empty_columns():
    assert column_patterns([None, None]).skipped == "empty"
    assert column_patterns([]).n_values == 0


@pytest.mark.parametrize(
    "kw", [{"tau": 0}, {"tau": 14}, {"budget": 0}, {"ladder": (0.5, 0.1)}, {"ladder": (2.0,)}]
)
def test_parameters_are_checked(kw):
    with pytest.raises(ParameterError):
        column_patterns(["a"], **kw)


def test_length_violations_count_later_values_shorter_than_the_prefix():
    # 20 values: the prefix is the first 2 ("1234", "567"), whose digit runs are at
    # least 3 long; of the 18 later values, 6 have 2 digits and 12 have 4
    values = ["1234", "567"] + ["12", "34", "56"] * 2 + ["4321", "8765"] * 6
    cp = column_patterns(values, **EXACT)
    assert cp.length_violations["<digit>+"] == (3, pytest.approx(6 / 18))
    assert cp.length_violations["<alphanum>+"] == (3, pytest.approx(6 / 18))
    # no + run, nothing to bound: no entry
    assert "<digit>{4}" in cp.counts and "<digit>{4}" not in cp.length_violations
    # the same later values, after a prefix with a 2-digit value: the bound (2) holds
    cp = column_patterns(["1234", "56"] + values[2:], **EXACT)
    assert cp.length_violations["<digit>+"] == (2, 0.0)
    # a prefix with a 1-digit value sets no bound: nothing to say
    cp = column_patterns(["1234", "5"] + values[2:], **EXACT)
    assert "<digit>+" not in cp.length_violations


def test_length_violations_need_two_distinct_prefix_values():
    # one distinct prefix value shows no variation: the column says nothing
    values = ["yes", "yes"] + ["no"] * 18
    assert "<lower>+" not in column_patterns(values, **EXACT).length_violations
    values = ["yes", "no"] + ["n"] * 18
    assert column_patterns(values, **EXACT).length_violations["<lower>+"] == (2, 1.0)


def test_length_violations_read_each_run_of_a_pattern():
    # ORD-<digits>: the prefix has 3 letters and 3-4 digits; one later value has 2 digits
    # (20 values: the prefix is the first 2)
    values = ["ORD-123", "ORD-4567"] + [f"ORD-{i:04d}" for i in range(17)] + ["ORD-12"]
    cp = column_patterns(values, **EXACT)
    # the bound is the largest of the runs' shortest: 3 letters, 3 digits
    assert cp.length_violations["<upper>+-<digit>+"] == (3, pytest.approx(1 / 18))
    assert cp.length_violations["<upper>{3}-<digit>+"] == (3, pytest.approx(1 / 18))
