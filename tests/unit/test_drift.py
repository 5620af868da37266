import math

import pytest
from scipy import stats

from autovalidate.drift import drift_test
from autovalidate.errors import ParameterError


def test_paper_section4_examples():
    # 0.1% -> 0.11% is no alarm; 0.1% -> 5% is
    assert not drift_test(1, 1000, 11, 10000).drift
    assert drift_test(1, 1000, 500, 10000).drift


def test_fisher_matches_scipy_and_is_two_sided():
    res = drift_test(2, 100, 30, 200, alpha=0.01)
    want = stats.fisher_exact([[2, 98], [30, 170]], alternative="two-sided").pvalue
    assert res.p_value == pytest.approx(want)
    assert res.rejected and res.drift and res.new_fraction == pytest.approx(0.15)


def test_a_cleaner_batch_never_fails():
    res = drift_test(40, 100, 0, 1000)
    assert res.rejected and not res.drift


def test_chi2_with_yates_and_degenerate_tables():
    res = drift_test(2, 100, 30, 200, test="chi2")
    want = stats.chi2_contingency([[2, 98], [30, 170]], correction=True)
    assert res.statistic == pytest.approx(want.statistic) and res.p_value == pytest.approx(
        want.pvalue
    )
    zero = drift_test(0, 100, 0, 50, test="chi2")
    assert zero.p_value == 1.0 and not zero.drift
    assert not drift_test(0, 0, 0, 0).drift


def test_strict_fails_on_any_nonconforming_value():
    assert drift_test(0, 10, 1, 1000, test="strict").drift
    assert not drift_test(0, 10, 0, 1000, test="strict").drift
    assert drift_test(0, 10, 1, 1000, test="strict").p_value is None


def test_json_of_infinite_statistic():
    d = drift_test(0, 100, 50, 100).to_dict()
    assert d["statistic"] in ("inf", "nan") or math.isfinite(d["statistic"])


@pytest.mark.parametrize(
    "args,kw",
    [
        ((5, 4, 0, 1), {}),
        ((0, 1, 0, 1), {"alpha": 0.0}),
        ((0, 1, 0, 1), {"test": "t"}),
        ((-1, 1, 0, 1), {}),
    ],
)
def test_bad_arguments(args, kw):
    with pytest.raises(ParameterError):
        drift_test(*args, **kw)
