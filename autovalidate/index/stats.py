"""Corpus statistics of a pattern and the FPR_T estimate the solver uses (Song & He 2021, §2.4).

Plain values, with no storage behind them: the index reader
(:mod:`autovalidate.index.reader`) returns them, and the solver
(:mod:`autovalidate.solver`) reads them through its
:class:`~autovalidate.solver.lookup.PatternLookup` protocol.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["FprPrior", "PatternStats"]


class PatternStats(NamedTuple):
    """Corpus statistics of one pattern.

    Attributes
    ----------
    fpr
        FPR_T(p), the estimated false-positive rate, a fraction in [0, 1] (Eq. 4).
    cov
        Cov_T(p), the number of corpus columns with a value matching p.
    """

    fpr: float
    cov: int


class FprPrior(NamedTuple):
    """An empirical-Bayes Beta prior of FPR_T, fitted on the index itself.

    Eq. 4 estimates FPR_T(p) as the mean impurity of the Cov_T(p) corpus
    columns p matches. On a lake of 10^4-10^6 columns, rather than the paper's
    7.2M, many patterns rest on a handful of columns: two impure columns put
    a pattern above r forever, two pure ones make it look certain. The
    estimate here is the posterior mean of a Beta(``strength`` * ``mean``,
    ``strength`` * (1 - ``mean``)) prior updated with the pattern's columns,
    each column one observation of its impurity, plus ``pure`` columns of
    impurity 0 (the training column itself, when it counts as evidence)::

        FPR~(p) = (imp_sum(p) + strength * mean) / (Cov_T(p) + strength + pure)

    which is Eq. 4 as Cov_T grows, and the prior mean where evidence is thin.
    The prior is fitted by the method of moments on the FPR_T of the patterns
    with Cov_T ≥ 20 (Casella, "An Introduction to
    Empirical Bayes Data Analysis", The American Statistician 39(2), 1985;
    the beta-binomial moment estimator): ``mean`` = their mean, ``strength``
    = mean (1 - mean) / variance - 1, at least 0.

    Attributes
    ----------
    mean
        Prior mean of FPR_T, a fraction in [0, 1].
    strength
        Prior weight, in columns (α + β of the Beta prior); 0: no shrinkage.
    """

    mean: float
    strength: float

    def estimate(self, fpr: float, cov: int, pure: float = 0.0) -> float:
        """The shrunk FPR_T of a pattern, a fraction in [0, 1].

        Parameters
        ----------
        fpr, cov
            The pattern's FPR_T (Eq. 4) and Cov_T in the index.
        pure
            Further columns of impurity 0 that count as evidence (weights).
        """
        denominator = cov + self.strength + pure
        if denominator <= 0:
            return fpr
        return (fpr * cov + self.strength * self.mean) / denominator
