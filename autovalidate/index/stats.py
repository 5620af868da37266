"""Corpus statistics of a pattern and the FPR_T estimate the solver uses (Song & He 2021, §2.4).

Plain values, with no storage behind them: the index reader
(:mod:`autovalidate.index.reader`) returns them, and the solver
(:mod:`autovalidate.solver`) reads them through its
:class:`~autovalidate.solver.lookup.PatternLookup` protocol.
"""

from __future__ import annotations

import bisect
import functools
import math
from typing import NamedTuple

__all__ = [
    "CONDITION_SIZES",
    "SHORT_BOUNDS",
    "FprPrior",
    "PatternStats",
    "RunShortfall",
    "bound_stratum",
]


#: Training sizes n (distinct values) at which an index keeps the sums of the
#: conditional FPR_T estimate (:meth:`FprPrior.estimate`); between two sizes
#: the estimate is interpolated in log(1 + n), above the last one it is the
#: last one's.
CONDITION_SIZES: tuple[int, ...] = (3, 10, 30, 100)


#: Strata of the run-length statistic by the bound k a training prefix sets
#: (:class:`RunShortfall`): k = 2, 3, 4, 5, and 6 or more.  The risk of a
#: bound grows with k: on the shared lake, a lower-case word column whose
#: prefix's shortest word has 2 letters (``no``) has 0.1% of its later
#: values shorter, one with 5 letters 2%.
SHORT_BOUNDS: tuple[int, ...] = (2, 3, 4, 5, 6)


def bound_stratum(k: int) -> int:
    """The position in :data:`SHORT_BOUNDS` of a bound k ≥ 2 (the last holds k ≥ 6)."""
    return min(k, SHORT_BOUNDS[-1]) - SHORT_BOUNDS[0]


class PatternStats(NamedTuple):
    """Corpus statistics of one pattern.

    Attributes
    ----------
    fpr
        FPR_T(p), the estimated false-positive rate, a fraction in [0, 1] (Eq. 4).
    cov
        Cov_T(p), the number of corpus columns with a value matching p.
    conditional
        Two sums per size n of :data:`CONDITION_SIZES`, flat and in size
        order: ``Σ_D (1 - Imp_D)^n`` then ``Σ_D Imp_D (1 - Imp_D)^n`` over the
        same columns (``(pure_3, imp_3, pure_10, imp_10, ...)``, one tuple
        level: the warm reader builds thousands per lookup); empty where
        unknown (the estimate then ignores the training column's size).
    """

    fpr: float
    cov: int
    conditional: tuple[float, ...] = ()


class RunShortfall(NamedTuple):
    """How a pattern's ``+`` runs kept their shortest length in the corpus, per bound.

    Attributes
    ----------
    cov
        Per stratum of :data:`SHORT_BOUNDS`: corpus columns whose training
        prefix has at least two distinct values matching the pattern, with
        runs that set a bound k in that stratum.
    total
        Per stratum: Σ over those columns of the fraction of the column's
        later values that match the pattern with a run shorter than the
        prefix showed.
    """

    cov: tuple[int, ...]
    total: tuple[float, ...]

    def rate(self, k: int, prior_columns: float, prior_rate: float) -> float:
        """Mean shortfall of bound k, a fraction in [0, 1], pooled with a Beta prior.

        ``(total + prior_columns · prior_rate) / (cov + prior_columns)`` in
        the stratum of k: what bounding the runs from below adds to FPR_T.
        """
        s = bound_stratum(k)
        return (self.total[s] + prior_columns * prior_rate) / (self.cov[s] + prior_columns)


class FprPrior(NamedTuple):
    """An empirical-Bayes prior of a column's impurity, fitted on the index itself.

    Eq. 4 estimates FPR_T(p) as the mean impurity of the Cov_T(p) corpus
    columns p matches: the expected impurity of a column drawn from those.
    Two things are known beyond that, and the estimate uses both:

    * **How many columns the evidence rests on.** On a lake of 10^4-10^6
      columns, rather than the paper's 7.2M, many patterns rest on a handful
      of columns: two impure columns put a pattern above r forever, two pure
      ones make it look certain. The corpus columns of p are pooled with
      ``strength`` pseudo-columns whose impurity follows a
      Beta(``strength`` * ``mean``, ``strength`` * (1 - ``mean``)) prior.
    * **The training column itself.** Its n distinct values all match p (the
      values a horizontal cut keeps do). A corpus column of impurity x yields
      n conforming values with probability (1 - x)^n, so the column being
      validated is unlikely to be one of the impure kind. The estimate is
      the posterior mean of the column's impurity given that observation,
      with the pooled columns as the prior (empirical Bayes, Robbins 1956;
      the Beta part is conjugate)::

        FPR~(p | n) = (Σ_D x_D (1-x_D)^n + strength E_B[x (1-x)^n])
                      / (Σ_D (1-x_D)^n + strength E_B[(1-x)^n])

      with x_D = Imp_D(p) and E_B the Beta prior's expectation. At n = 0
      this is (imp_sum + strength mean) / (Cov_T + strength): Eq. 4 as Cov_T
      grows, the prior mean where evidence is thin. The index keeps the two
      sums for the sizes of :data:`CONDITION_SIZES`.

    The prior is fitted by the method of moments on the FPR_T of the patterns
    with Cov_T ≥ 20 (Casella, "An Introduction to Empirical Bayes Data
    Analysis", The American Statistician 39(2), 1985; the beta-binomial
    moment estimator): ``mean`` = their mean, ``strength`` = mean (1 - mean)
    / variance - 1, at least 0.

    Attributes
    ----------
    mean
        Prior mean of FPR_T, a fraction in [0, 1].
    strength
        Prior weight, in columns (α + β of the Beta prior); 0: no shrinkage.
    """

    mean: float
    strength: float

    def estimate(self, stats: PatternStats, n: int = 0) -> float:
        """The FPR_T of a pattern given a training column of ``n`` distinct conforming values.

        Parameters
        ----------
        stats
            The pattern's corpus statistics.
        n
            Distinct training values matching the pattern; 0 (or statistics
            without ``conditional`` sums): the unconditional shrunk estimate.

        Returns
        -------
        float
            A fraction in [0, 1].
        """
        moments = _beta_table(self.mean, self.strength)
        if n <= 0 or not stats.conditional:
            return self._unconditional(stats, moments)
        lower, upper, t = _bracket(n)
        sums = stats.conditional
        e1 = self._at(sums[2 * upper + 1], sums[2 * upper], moments[upper + 1])
        if t == 1.0:
            return e1
        if lower < 0:
            e0 = self._unconditional(stats, moments)
        else:
            e0 = self._at(sums[2 * lower + 1], sums[2 * lower], moments[lower + 1])
        return e0 + t * (e1 - e0)

    def futile_below(self, n: int, max_fpr: float) -> float:
        """A coverage below which a pattern and all its specializations exceed ``max_fpr``.

        A specialization q of p matches a subset of p's corpus columns, so
        Cov_T(q) ≤ Cov_T(p), and its sums at every size are non-negative
        with Σ_D (1 - x_D)^size ≤ Cov_T(q). Hence, for q estimated with any
        evidence from 0 to ``n`` (a specialization may keep a constant, which
        is estimated at 0; between two sizes the estimate is a convex
        combination of theirs)::

            estimate(q) ≥ min over sizes of strength E_B[x (1-x)^size]
                                            / (Cov_T(p) + strength E_B[(1-x)^size])

        which exceeds ``max_fpr`` exactly when Cov_T(p) is below the value
        returned. The solver's search does not expand such patterns.

        Parameters
        ----------
        n
            The most training evidence (distinct values) of the hypotheses.
        max_fpr
            r, a fraction in [0, 1].

        Returns
        -------
        float
            A number of columns; 0 (prune nothing) without a prior.
        """
        if self.strength <= 0 or max_fpr <= 0:
            return 0.0
        # the sizes an estimate with evidence 0..n rests on: 0, then up to the
        # first size at or above n (the prior's moments are in the same order)
        used = 1
        for size in CONDITION_SIZES if n > 0 else ():
            used += 1
            if size >= n:
                break
        moments = _beta_table(self.mean, self.strength)[:used]
        bound = min(self.strength * (imp_b / max_fpr - pure_b) for pure_b, imp_b in moments)
        return max(0.0, bound)

    def _unconditional(
        self, stats: PatternStats, moments: tuple[tuple[float, float], ...]
    ) -> float:
        """The estimate at n = 0: the corpus columns' sums are Cov_T and Cov_T FPR_T."""
        return self._at(stats.fpr * stats.cov, stats.cov, moments[0])

    def _at(self, imp_sum: float, pure_sum: float, beta: tuple[float, float]) -> float:
        """The estimate from the sums at one training size (see the class docstring).

        ``beta``: the prior's E[(1-x)^size] and E[x (1-x)^size] at that size.
        """
        pure_b, imp_b = beta
        denominator = pure_sum + self.strength * pure_b
        if denominator <= 0:
            return imp_sum / pure_sum if pure_sum > 0 else self.mean
        return min(1.0, max(0.0, (imp_sum + self.strength * imp_b) / denominator))


@functools.lru_cache(maxsize=1024)
def _bracket(n: int) -> tuple[int, int, float]:
    """The sizes around a training size n ≥ 1 and the weight of the upper one.

    ``(lower, upper, t)``: positions in :data:`CONDITION_SIZES` (``lower``
    -1 for size 0, the unconditional estimate), the estimate being
    ``e[lower] + t (e[upper] - e[lower])`` interpolated in log(1 + n); t = 1
    at a size and above the largest (``lower == upper`` there).
    """
    upper = bisect.bisect_left(CONDITION_SIZES, n)
    if upper == len(CONDITION_SIZES):  # above the largest size: that size's estimate
        return upper - 1, upper - 1, 1.0
    size = CONDITION_SIZES[upper]
    if size == n:
        return upper - 1, upper, 1.0
    n0 = CONDITION_SIZES[upper - 1] if upper else 0
    t = (math.log1p(n) - math.log1p(n0)) / (math.log1p(size) - math.log1p(n0))
    return upper - 1, upper, t


@functools.lru_cache(maxsize=64)
def _beta_table(mean: float, strength: float) -> tuple[tuple[float, float], ...]:
    """:func:`_beta_moments` at size 0, then at each size of :data:`CONDITION_SIZES`."""
    return tuple(_beta_moments(mean, strength, size) for size in (0, *CONDITION_SIZES))


def _beta_moments(mean: float, strength: float, size: int) -> tuple[float, float]:
    """E[(1-x)^size] and E[x (1-x)^size] for x ~ Beta(strength mean, strength (1 - mean))."""
    if strength <= 0:
        return 0.0, 0.0
    mean = min(max(mean, 1e-9), 1.0 - 1e-9)
    a, b = strength * mean, strength * (1.0 - mean)
    pure = math.exp(
        math.lgamma(b + size) + math.lgamma(a + b) - math.lgamma(b) - math.lgamma(a + b + size)
    )
    return pure, pure * a / (a + b + size)
