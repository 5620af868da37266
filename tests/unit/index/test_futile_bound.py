"""FprPrior.futile_below: a bound the solver's search prunes by, so it must never be wrong."""

from hypothesis import given, settings
from hypothesis import strategies as st

from autovalidate.index.stats import CONDITION_SIZES, FprPrior, PatternStats

IMPURITY = st.one_of(st.just(0.0), st.floats(0.0, 1.0))  # pure columns: the tight case


def stats_of(impurities: list[float]) -> PatternStats:
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
