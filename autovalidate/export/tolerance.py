"""A Fisher-tested pattern rule as the fixed threshold other tools take (``mostly``, a percent).

A tolerant pattern constraint (FMDV-H, FMDV-VH) fails a batch when Fisher's
exact test (or chi-squared) rejects "same non-conforming fraction as in
training" and the batch's fraction is the higher one (Song & He, SIGMOD 2021,
§4; :func:`autovalidate.drift.drift_test`). Other tools take a fixed bound
instead: Great Expectations' ``mostly``, Soda's ``invalid_percent``, AWS Glue's
``with threshold``, a count in dbt's ``error_if``. No fixed bound equals the
test, whose critical fraction shrinks as batches grow. The export uses the
test's own decision for a batch as large as the training data: the largest
non-conforming count the test accepts among ``train_n`` values.
"""

from __future__ import annotations

from dataclasses import dataclass

from autovalidate.drift import drift_test
from autovalidate.pattern_constraint import PatternConstraint

__all__ = ["Tolerance", "tolerance"]


@dataclass(frozen=True)
class Tolerance:
    """The fixed bound standing in for a pattern constraint's test.

    Attributes
    ----------
    max_count
        Most non-conforming values accepted in a batch of ``batch_size`` values.
    batch_size
        The batch size the bound was computed for (the training size).
    note
        The approximation, in one sentence (``None`` for a strict rule, which is exact).
    """

    max_count: int
    batch_size: int
    note: str | None

    @property
    def max_fraction(self) -> float:
        """Largest accepted non-conforming fraction, in [0, 1]."""
        return self.max_count / self.batch_size if self.batch_size else 0.0

    @property
    def mostly(self) -> float:
        """Least conforming fraction, ``1 - max_fraction``, in [0, 1]."""
        return 1.0 - self.max_fraction


def tolerance(constraint: PatternConstraint, batch_size: int | None = None) -> Tolerance:
    """The largest non-conforming count the constraint's test accepts in a batch.

    Parameters
    ----------
    constraint
        A pattern constraint.
    batch_size
        Values in the batch; by default the training size ``train_n``.

    Returns
    -------
    Tolerance
        0 for a ``strict`` rule (exact); for a tested rule, the test's critical
        count for that batch size (a larger batch is failed by the test at a
        smaller fraction, a smaller batch at a larger one).

    References
    ----------
    Song & He, SIGMOD 2021, §4 (homogeneity test of the non-conforming fraction).
    """
    n = constraint.train_n if batch_size is None else batch_size
    if constraint.test == "strict" or n == 0:
        return Tolerance(0, n, None)

    def accepted(k: int) -> bool:
        return not drift_test(
            constraint.train_nonconforming,
            constraint.train_n,
            k,
            n,
            test=constraint.test,
            alpha=constraint.alpha,
        ).drift

    # accepted(k) holds up to a critical count and fails above it: the batch's
    # fraction only fails once higher than training's, and the test's p-value
    # falls as it grows further
    low, high = 0, n
    while low < high:
        mid = (low + high + 1) // 2
        if accepted(mid):
            low = mid
        else:
            high = mid - 1
    note = (
        f"{constraint.test} test (alpha={constraint.alpha}, {constraint.train_nonconforming} of "
        f"{constraint.train_n} non-conforming in training) as a fixed bound: at most {low} "
        f"non-conforming of {n} values ({low / n:.2%}), the test's own decision for a batch of "
        f"{n} values; a larger batch is failed by the test at a smaller fraction, a smaller one "
        "at a larger fraction"
    )
    return Tolerance(low, n, note)
