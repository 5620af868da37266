"""Has the non-conforming fraction grown? Two-sample homogeneity tests (Song & He 2021, §4).

A pattern inferred with a horizontal cut tolerates the non-conforming fraction
θ_C seen in training.  A new batch C' drifts when its fraction θ_C' differs so
much that the null hypothesis "both batches draw conforming and
non-conforming values from the same binomial" is rejected, and θ_C' is the
higher one (a batch that got cleaner is no alarm).  The paper uses Fisher's
exact test and Pearson's chi-squared test with Yates' correction on the 2x2
table::

                 non-conforming   conforming
    training     x                n - x
    new batch    y                m - y

Rules without tolerance (FMDV, FMDV-V) use the ``strict`` test instead: any
non-conforming value is a failure.

A column's whole value distribution is compared with a reference batch's in
:mod:`autovalidate.metrics.distribution`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from autovalidate.errors import ParameterError

__all__ = ["TESTS", "DriftTest", "drift_test"]

TESTS = ("fisher", "chi2", "strict")


@dataclass(frozen=True)
class DriftTest:
    """Outcome of a drift test.

    Attributes
    ----------
    test
        ``"fisher"`` (two-sided exact), ``"chi2"`` (Pearson, Yates-corrected)
        or ``"strict"`` (fail on any non-conforming value).
    statistic
        Fisher's sample odds ratio or the chi-squared statistic; ``None`` for
        ``strict``.  May be ``inf`` or ``nan`` for degenerate tables.
    p_value
        Two-sided p-value in [0, 1]; ``None`` for ``strict``.
    alpha
        Significance level in (0, 1).
    rejected
        The null hypothesis of equal fractions is rejected (p < alpha).
    train_fraction, new_fraction
        θ_C and θ_C', fractions in [0, 1].
    drift
        ``rejected`` and θ_C' > θ_C: the batch fails.
    """

    test: str
    statistic: float | None
    p_value: float | None
    alpha: float
    rejected: bool
    train_fraction: float
    new_fraction: float
    drift: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields; non-finite statistics become strings."""
        d = asdict(self)
        if d["statistic"] is not None and not math.isfinite(d["statistic"]):
            d["statistic"] = str(d["statistic"])
        return d


def drift_test(
    train_nonconforming: int,
    train_n: int,
    new_nonconforming: int,
    new_n: int,
    *,
    test: str = "fisher",
    alpha: float = 0.01,
) -> DriftTest:
    """Test whether a batch's non-conforming fraction grew beyond training's.

    Parameters
    ----------
    train_nonconforming, train_n
        Non-conforming values x and all values n of the training column.
    new_nonconforming, new_n
        The same counts y and m for the new batch.
    test
        ``"fisher"`` (default, as in the paper's evaluation), ``"chi2"`` or
        ``"strict"``.
    alpha
        Significance level, in (0, 1); the paper uses 0.01.

    Returns
    -------
    DriftTest

    Raises
    ------
    ParameterError
        If a count is negative or exceeds its total, ``alpha`` is outside
        (0, 1), or ``test`` is unknown.

    References
    ----------
    Song & He, SIGMOD 2021, §4 ("Distributional test of non-conforming
    values"); Agresti 1992 (Fisher's exact test); Yates' continuity correction.
    """
    if test not in TESTS:
        raise ParameterError(f"test must be one of {', '.join(TESTS)}; got {test!r}")
    if not 0.0 < alpha < 1.0:
        raise ParameterError(f"alpha must be in (0, 1), got {alpha}")
    for x, n, what in (
        (train_nonconforming, train_n, "training"),
        (new_nonconforming, new_n, "new"),
    ):
        if n < 0 or not 0 <= x <= n:
            raise ParameterError(
                f"{what} counts must satisfy 0 <= non-conforming <= n; got {x}/{n}"
            )
    p_train = train_nonconforming / train_n if train_n else 0.0
    p_new = new_nonconforming / new_n if new_n else 0.0
    if test == "strict":
        failed = new_nonconforming > 0
        return DriftTest("strict", None, None, alpha, failed, p_train, p_new, failed)
    table = [
        [train_nonconforming, train_n - train_nonconforming],
        [new_nonconforming, new_n - new_nonconforming],
    ]
    if (
        train_n == 0
        or new_n == 0
        or (train_nonconforming + new_nonconforming)
        in (
            0,
            train_n + new_n,
        )
    ):
        # a zero margin: both batches agree completely (or one is empty); nothing to reject
        statistic, p_value = (float("nan") if test == "fisher" else 0.0), 1.0
    elif test == "fisher":
        from scipy import stats  # 1 s to import: only when a table needs a test

        res = stats.fisher_exact(table, alternative="two-sided")
        statistic, p_value = float(res.statistic), float(res.pvalue)
    else:
        from scipy import stats

        res = stats.chi2_contingency(table, correction=True)
        statistic, p_value = float(res.statistic), float(res.pvalue)
    rejected = p_value < alpha
    return DriftTest(
        test, statistic, p_value, alpha, rejected, p_train, p_new, rejected and p_new > p_train
    )
