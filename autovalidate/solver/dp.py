"""Vertical cuts: the segmentation DP of FMDV-V (Song & He 2021, §3, Eq. 8-11).

Given, for every segment C[s, e] of the aligned columns (at most τ columns
wide), the best hypothesis of that sub-column, FMDV-V picks the segmentation
minimising the sum of the segments' FPR_T (Eq. 8, the "pessimistic" sum)
subject to the sum being at most r (Eq. 9).  Eq. 11 states the optimal
substructure as two-way splits; the equivalent left-to-right form used here,
best(j) = min_i best(i) + FPR(C[i, j-1]), visits each segment once.

Ties (equal sums, common when many patterns have FPR_T = 0 in a small corpus)
go to fewer segments (a pattern the corpus has seen as a whole is better
evidence than a concatenation of parts), then to the smaller total coverage
(the more specific patterns, as for a single segment).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from autovalidate.solver.search import Hypothesis

__all__ = ["SegmentChoice", "best_segmentation", "segmentation_key"]

_ROUND = 12  # decimals kept when comparing FPR sums, so float noise cannot break ties


@dataclass(frozen=True)
class SegmentChoice:
    """The chosen pattern of one segment C[start, end] (aligned columns, inclusive).

    Attributes
    ----------
    optional
        Some values have no tokens in the segment; its regex is ``(?:...)?``.
    """

    start: int
    end: int
    hypothesis: Hypothesis
    optional: bool = False


def segmentation_key(segments: list[SegmentChoice]) -> tuple[float, int, int]:
    """Order of preference of segmentations: (Σ FPR_T, number of segments, Σ Cov_T)."""
    return (
        round(sum(s.hypothesis.fpr for s in segments), _ROUND),
        len(segments),
        sum(s.hypothesis.cov for s in segments),
    )


def best_segmentation(
    width: int,
    choices: Mapping[tuple[int, int], SegmentChoice],
    *,
    max_fpr: float,
) -> list[SegmentChoice] | None:
    """The segmentation of columns 0..width-1 with the least Σ FPR_T (Eq. 8-11).

    Parameters
    ----------
    width
        Number of aligned columns n.
    choices
        ``(s, e)`` → the best pattern of segment C[s, e]; segments without a
        feasible pattern are simply absent.  The caller limits e - s + 1 ≤ τ.
    max_fpr
        r: the largest admissible Σ FPR_T (Eq. 9).

    Returns
    -------
    list of SegmentChoice or None
        Consecutive segments covering all columns, at least one of them not
        optional (so the regex never matches the empty string); ``None`` if
        no segmentation is feasible.

    References
    ----------
    Song & He, SIGMOD 2021, §3, Eq. (8)-(11).
    """
    if width <= 0:
        return None
    by_end: dict[int, list[SegmentChoice]] = {}
    for (s, e), choice in choices.items():
        if 0 <= s <= e < width:
            by_end.setdefault(e, []).append(choice)
    # best[j][mandatory_seen]: best segmentation of columns 0..j-1
    best: list[list[list[SegmentChoice] | None]] = [[None, None] for _ in range(width + 1)]
    best[0][0] = []
    for j in range(1, width + 1):
        for choice in by_end.get(j - 1, ()):
            for seen in (0, 1):
                prefix = best[choice.start][seen]
                if prefix is None:
                    continue
                now = 1 if (seen or not choice.optional) else 0
                candidate = prefix + [choice]
                current = best[j][now]
                if current is None or segmentation_key(candidate) < segmentation_key(current):
                    best[j][now] = candidate
    result = best[width][1]
    if result is None or segmentation_key(result)[0] > max_fpr:
        return None
    return result
