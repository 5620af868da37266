"""Drift of a column's value distribution from a reference batch: KS, chi-squared, PSI, JS.

The tests read two tables of value counts (value -> count of the non-null
values), the frequency state of a column in each batch, so either side may
come from stored, merged states. :class:`~autovalidate.metrics.DistributionDrift`
computes them on an engine; :func:`distribution_drift` is the test itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from autovalidate.errors import ParameterError

__all__ = ["DISTRIBUTION_TESTS", "DriftOutcome", "distribution_drift"]

#: The tests of :func:`distribution_drift`, with their default thresholds.
DISTRIBUTION_TESTS = {"ks": 0.05, "chi2": 0.05, "psi": 0.2, "js": 0.1}
#: Bins of a numeric column for PSI and Jensen-Shannon: deciles of the reference.
NUMERIC_BINS = 10
#: The share a PSI bin empty on one side is given (ln 0 is undefined).
PSI_EPSILON = 1e-4


@dataclass(frozen=True)
class DriftOutcome:
    """Outcome of a distribution drift test of a batch against a reference batch.

    Attributes
    ----------
    test
        ``"ks"``, ``"chi2"``, ``"psi"`` or ``"js"``.
    statistic
        KS: ``D``, the largest distance of the two empirical CDFs, in [0, 1].
        chi2: Pearson's statistic of the 2 x k table of counts. psi:
        ``sum (b - r) ln(b / r)`` over the bins' shares. js: the
        Jensen-Shannon distance, base 2, in [0, 1].
    p_value
        KS and chi2: the p-value of the null hypothesis "both batches draw
        from one distribution"; ``None`` for psi and js.
    threshold
        KS and chi2: the significance level alpha; psi and js: the largest
        statistic that is no drift.
    drift
        KS and chi2: ``p_value < threshold``; psi and js: ``statistic > threshold``.
    n_reference, n_batch
        The non-null values compared.
    """

    test: str
    statistic: float
    p_value: float | None
    threshold: float
    drift: bool
    n_reference: int
    n_batch: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return asdict(self)


def _weights(values: Any, counts: Any, edges: Any) -> Any:
    """Counts per bin ``(-inf, e0], (e0, e1], ..., (e_last, inf)`` of sorted ``edges``."""
    import numpy as np

    bins = np.searchsorted(edges, values, side="left")
    return np.bincount(bins, weights=counts, minlength=len(edges) + 1)


def distribution_drift(
    reference: Mapping[Any, int],
    batch: Mapping[Any, int],
    *,
    test: str,
    numeric: bool,
    threshold: float | None = None,
) -> DriftOutcome:
    """Test whether ``batch``'s value distribution drifted from ``reference``'s.

    Parameters
    ----------
    reference, batch
        Value -> count of the non-null values of one column in each batch
        (numbers for ``numeric``, else any hashable category).
    test
        ``"ks"``: two-sample Kolmogorov-Smirnov on numbers, ``D`` exact from
        the counts, the p-value asymptotic (``scipy.stats.kstwo`` at
        ``n m / (n + m)``, as ``ks_2samp(method="asymp")``). ``"chi2"``:
        Pearson's test of homogeneity of the 2 x k table of category counts
        (``scipy.stats.chi2_contingency``, no continuity correction).
        ``"psi"``: population stability index over the categories, or over
        the reference's deciles of a numeric column, a bin empty on one side
        counting as a share of 1e-4. ``"js"``: Jensen-Shannon distance
        (``scipy.spatial.distance.jensenshannon``, base 2) over the same bins.
    numeric
        The values are numbers (required for ``ks``; bins by reference
        deciles for psi and js).
    threshold
        Alpha for ks and chi2 (default 0.05); the largest statistic that is
        no drift for psi (default 0.2, the usual "significant shift" line)
        and js (default 0.1).

    Returns
    -------
    DriftOutcome

    Raises
    ------
    ParameterError
        For an unknown test, ``ks`` on categories, a threshold out of range,
        or a batch without values.

    References
    ----------
    Massey 1951 (KS); Pearson 1900; Siddiqi 2006 (PSI); Lin 1991 (Jensen-Shannon).
    """
    import numpy as np
    from scipy import stats
    from scipy.spatial.distance import jensenshannon

    if test not in DISTRIBUTION_TESTS:
        raise ParameterError(f"test must be one of {', '.join(DISTRIBUTION_TESTS)}; got {test!r}")
    if test == "ks" and not numeric:
        raise ParameterError("the Kolmogorov-Smirnov test needs a numeric column")
    limit = DISTRIBUTION_TESTS[test] if threshold is None else float(threshold)
    if test in ("ks", "chi2") and not 0.0 < limit < 1.0:
        raise ParameterError(f"alpha must be in (0, 1), got {limit}")
    if limit < 0:
        raise ParameterError(f"threshold must be >= 0, got {limit}")
    n_ref, n_new = int(sum(reference.values())), int(sum(batch.values()))
    if not n_ref or not n_new:
        raise ParameterError(
            f"no values to compare: {n_ref} in the reference, {n_new} in the batch"
        )

    def result(statistic: float, p_value: float | None) -> DriftOutcome:
        drift = p_value < limit if p_value is not None else statistic > limit
        return DriftOutcome(test, float(statistic), p_value, limit, bool(drift), n_ref, n_new)

    if numeric:
        ref_values = np.array(sorted(reference), dtype=float)
        ref_counts = np.array([reference[v] for v in sorted(reference)], dtype=float)
        new_values = np.array(sorted(batch), dtype=float)
        new_counts = np.array([batch[v] for v in sorted(batch)], dtype=float)
        if test == "ks":
            grid = np.union1d(ref_values, new_values)
            cdf_ref = _weights(ref_values, ref_counts, grid)[:-1].cumsum() / n_ref
            cdf_new = _weights(new_values, new_counts, grid)[:-1].cumsum() / n_new
            d = float(np.max(np.abs(cdf_ref - cdf_new)))
            en = round(n_ref * n_new / (n_ref + n_new))
            return result(d, float(min(1.0, stats.kstwo.sf(d, en))))
        cumulative = ref_counts.cumsum() / n_ref
        cuts = [
            ref_values[np.searchsorted(cumulative, q / NUMERIC_BINS)]
            for q in range(1, NUMERIC_BINS)
        ]
        edges = np.unique(np.array(cuts))
        p = _weights(ref_values, ref_counts, edges) / n_ref
        q = _weights(new_values, new_counts, edges) / n_new
    else:
        categories = sorted(set(reference) | set(batch), key=str)
        p = np.array([reference.get(c, 0) for c in categories], dtype=float)
        q = np.array([batch.get(c, 0) for c in categories], dtype=float)
        if test == "chi2":
            if len(categories) < 2:
                return result(0.0, 1.0)
            chi2, p_value, _, _ = stats.chi2_contingency(np.vstack([p, q]), correction=False)
            return result(float(chi2), float(p_value))
        p, q = p / n_ref, q / n_new
    if test == "chi2":
        table = np.vstack([p * n_ref, q * n_new])
        table = table[:, table.sum(axis=0) > 0]
        if table.shape[1] < 2:
            return result(0.0, 1.0)
        chi2, p_value, _, _ = stats.chi2_contingency(table, correction=False)
        return result(float(chi2), float(p_value))
    if test == "psi":
        p_s, q_s = np.where(p > 0, p, PSI_EPSILON), np.where(q > 0, q, PSI_EPSILON)
        return result(float(np.sum((q_s - p_s) * np.log(q_s / p_s))), None)
    return result(float(jensenshannon(p, q, base=2)), None)
