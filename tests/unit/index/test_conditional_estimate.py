"""FprPrior.estimate between and beyond the kept sizes: the interpolation the docstring states."""

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from autovalidate.index.stats import CONDITION_SIZES, FprPrior, PatternStats

IMPURITY = st.one_of(st.just(0.0), st.floats(0.0, 1.0))


def _stats(impurities: list[float]) -> PatternStats:
    return PatternStats(
        sum(impurities) / len(impurities),
        len(impurities),
        tuple(
            (sum((1 - x) ** n for x in impurities), sum(x * (1 - x) ** n for x in impurities))
            for n in CONDITION_SIZES
        ),
    )


@settings(max_examples=300, deadline=None)
@given(
    mean=st.floats(0.01, 0.95),
    strength=st.one_of(st.just(0.0), st.floats(0.1, 50.0)),
    impurities=st.lists(IMPURITY, min_size=1, max_size=30),
    n=st.integers(-2, 400),
)
def test_the_estimate_interpolates_in_log_n_between_the_kept_sizes(mean, strength, impurities, n):
    prior = FprPrior(mean, strength)
    stats = _stats(impurities)
    at = {
        0: prior.estimate(stats, 0),
        **{size: prior.estimate(stats, size) for size in CONDITION_SIZES},
    }
    got = prior.estimate(stats, n)
    assert 0.0 <= got <= 1.0
    if n <= 0:
        assert got == at[0]
    elif n >= CONDITION_SIZES[-1]:
        assert got == at[CONDITION_SIZES[-1]]
    else:
        lower = max(size for size in at if size <= n)
        upper = min(size for size in at if size >= n)
        if lower == upper:
            assert got == at[n]
        else:
            t = (math.log1p(n) - math.log1p(lower)) / (math.log1p(upper) - math.log1p(lower))
            assert math.isclose(got, at[lower] + t * (at[upper] - at[lower]), abs_tol=1e-12)
    # statistics without the conditional sums: the unconditional estimate at every n
    assert prior.estimate(stats._replace(conditional=()), n) == at[0]
