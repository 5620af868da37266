import pytest

from autovalidate.index.reader import FprPrior, PatternStats
from autovalidate.patterns.tokens import tokenize
from autovalidate.solver.search import SegmentSpace

PRIOR = FprPrior(mean=0.4, strength=4.0)


def est(fpr, cov, mean):
    return (fpr * cov + 4.0 * mean) / (cov + 4.0 + 1.0)


def test_a_pattern_is_shrunk_toward_its_generalizations_estimates():
    space = SegmentSpace.of([tokenize("AB12"), tokenize("CD34")])
    assert space is not None
    space.all_patterns()
    raw = {
        "<alphanum>+": (0.0, 5000),
        "<letter>+<digit>+": (0.0, 1000),
        "<alphanum>{4}": (0.3, 50),
        "<upper>+<digit>+": (0.0, 2),
        "<letter>{2}<digit>{2}": (0.1, 3),
        "<upper>{2}<digit>{2}": (0.0, 1),
    }
    space.found = {p: PatternStats(f, c) for p, (f, c) in raw.items()}
    space.shrink(PRIOR, pure=1.0)
    root = est(0.0, 5000, 0.4)  # no generalization: the fitted mean
    letters = est(0.0, 1000, root)
    alnum4 = est(0.3, 50, root)
    upper = est(0.0, 2, letters)
    shape = est(0.1, 3, max(letters, alnum4))
    expected = {
        "<alphanum>+": root,
        "<letter>+<digit>+": letters,
        "<alphanum>{4}": alnum4,
        "<upper>+<digit>+": upper,
        "<letter>{2}<digit>{2}": shape,
        # thin evidence, neither trusted (0) nor left at the global mean (0.4)
        "<upper>{2}<digit>{2}": est(0.0, 1, max(shape, upper)),
    }
    for p, value in expected.items():
        assert space.found[p].fpr == pytest.approx(value), p
        assert space.found[p].cov == raw[p][1]
    assert 0.0 < space.found["<upper>{2}<digit>{2}"].fpr < 0.4 * 4 / 6


def test_a_pattern_without_found_generalizations_takes_the_fitted_mean():
    space = SegmentSpace.of([tokenize("AB")])
    assert space is not None
    space.key(("AB",))
    space.found = {"AB": PatternStats(0.0, 1)}
    space.shrink(PRIOR, pure=1.0)
    assert space.found["AB"].fpr == pytest.approx(1.6 / 6)
