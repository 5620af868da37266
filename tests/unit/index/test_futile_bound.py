"""FprPrior: the bound the search prunes by (never wrong), and the estimate between sizes."""

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from autovalidate.index.stats import CONDITION_SIZES, FprPrior, PatternStats

IMPURITY = st.one_of(st.just(0.0), st.floats(0.0, 1.0))  # pure columns: the tight case


def stats_of(impurities: list[float]) -> PatternStats:
    return PatternStats(
        sum(impurities) / len(impurities),
        len(impurities),
        tuple(
            total
            for n in CONDITION_SIZES
            for total in (
                sum((1 - x) ** n for x in impurities),
                sum(x * (1 - x) ** n for x in impurities),
            )
        ),
    )


@settings(max_examples=300, deadline=None)
@given(
    mean=st.floats(0.01, 0.95),
    strength=st.floats(0.1, 50.0),
    max_fpr=st.floats(0.01, 0.6),
    n=st.integers(0, 300),
    columns=st.lists(st.tuples(IMPURITY, st.booleans(), IMPURITY), min_size=1, max_size=40),
    at=st.floats(0.0, 1.0),
)
def test_no_specialization_of_a_futile_pattern_is_feasible(mean, strength, max_fpr, n, columns, at):
    prior = FprPrior(mean, strength)
    parent = [x for x, _, _ in columns]
    if len(parent) >= prior.futile_below(n, max_fpr):
        return
    # a specialization keeps some of the parent's columns, each no purer than before
    child = [x + (1 - x) * more for x, kept, more in columns if kept] or [parent[0]]
    for evidence in {0, n, int(at * n)}:
        assert prior.estimate(stats_of(parent), evidence) > max_fpr
        assert prior.estimate(stats_of(child), evidence) > max_fpr


def test_the_bound_prunes_where_evidence_is_thin_and_not_where_it_is_thick():
    prior = FprPrior(0.41, 4.5)  # about the shared lake's prior
    assert prior.futile_below(0, 0.15) > 5  # a constant needs several pure columns
    bounds = [prior.futile_below(n, 0.15) for n in (0, 1, 3, 10, 100, 1000)]
    assert bounds == sorted(bounds, reverse=True)  # more evidence, less pruning
    assert bounds[-1] == 0.0  # heavy evidence: anything may be feasible
    assert FprPrior(0.41, 0.0).futile_below(0, 0.15) == 0.0  # no prior, no bound


def test_the_bound_is_tight_for_pure_columns():
    prior = FprPrior(0.41, 4.5)
    for n in (0, 3, 10):  # at a kept size the bound is exact; between two it is not
        bound = prior.futile_below(n, 0.15)
        below, above = int(bound - 1e-9), int(bound) + 1
        if below >= 1:
            assert prior.estimate(stats_of([0.0] * below), n) > 0.15
        assert min(prior.estimate(stats_of([0.0] * above), e) for e in range(n + 1)) <= 0.15


@settings(max_examples=300, deadline=None)
@given(
    mean=st.floats(0.01, 0.95),
    strength=st.one_of(st.just(0.0), st.floats(0.1, 50.0)),
    impurities=st.lists(IMPURITY, min_size=1, max_size=30),
    n=st.integers(-2, 400),
)
def test_the_estimate_interpolates_in_log_n_between_the_kept_sizes(mean, strength, impurities, n):
    prior = FprPrior(mean, strength)
    stats = stats_of(impurities)
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
