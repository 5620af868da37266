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

With a slack ε, a second pass takes, among the segmentations whose sum is
within ε of the least (and within r), the most specific one: the deepest sum
of hierarchy levels (:func:`specificity_key`). The solver's default ε is
0.03 (:class:`~autovalidate.solver.fmdv.SolverParams`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from autovalidate.patterns.render import Form, Parts
from autovalidate.solver.search import Hypothesis

__all__ = [
    "SegmentChoice",
    "best_segmentation",
    "beyond_budget",
    "segmentation_key",
    "specificity_key",
]

_ROUND = 12  # decimals kept when comparing FPR sums, so float noise cannot break ties


@dataclass(frozen=True)
class SegmentChoice:
    """The chosen pattern of one segment C[start, end] (aligned columns, inclusive).

    Attributes
    ----------
    optional
        Some values have no tokens in the segment; its regex is ``(?:...)?``.
    repeat
        Of an optional segment: the most times it may occur (1: ``(?:...)?``;
        k ≥ 2: ``(?:...){0,k}``, a separator and an item repeated, as in a
        list or a path).
    shape
        A risk the segment carries for the whole value, a fraction in [0, 1]:
        the shape risk of a vertical cut priced by positions
        (:meth:`~autovalidate.index.generalization.GeneralizationStats.shape_risk`),
        carried by the cut's first segment so that a segmentation counts it once.
    parts
        Of a segment with optional parts of its own (a list's repeated item,
        :mod:`~autovalidate.solver.lists`): its parts, ``(pattern, most)``
        each (:data:`~autovalidate.patterns.render.Parts`); the hypothesis's
        pattern is then their spelling. Empty otherwise.
    """

    start: int
    end: int
    hypothesis: Hypothesis
    optional: bool = False
    shape: float = 0.0
    repeat: int = 1
    parts: Parts = ()

    @property
    def most(self) -> int:
        """How many times the segment may occur: 0 where all values have it."""
        return self.repeat if self.optional else 0

    @property
    def form(self) -> Form:
        """What the segment renders from: its parts, or its hypothesis's pattern."""
        return self.parts or self.hypothesis.pattern

    @property
    def cost(self) -> float:
        """What the segment adds to Σ FPR (Eq. 9): its FPR and the shape risk it carries."""
        return self.hypothesis.fpr + self.shape


def segmentation_key(segments: list[SegmentChoice]) -> tuple[float, int, int]:
    """Order of preference of segmentations: (Σ FPR_T, number of segments, Σ Cov_T)."""
    return (
        round(sum(s.cost for s in segments), _ROUND),
        len(segments),
        sum(s.hypothesis.cov for s in segments),
    )


def beyond_budget(cost: float, max_fpr: float) -> bool:
    """Whether one segment of this cost makes every segmentation that has it infeasible.

    True when the cost exceeds ``max_fpr`` both as it is (as the solver
    compares the one segment of a one-token value) and rounded as
    :func:`best_segmentation` compares sums; costs are never negative, so a
    sum that includes it exceeds ``max_fpr`` too.
    """
    return cost > max_fpr and round(cost, _ROUND) > max_fpr


def specificity_key(segments: list[SegmentChoice]) -> tuple[int, float, int, int]:
    """Order of preference within the slack: (-Σ level, Σ FPR_T, segments, Σ Cov_T).

    Every segmentation covers the same aligned columns, each with one option
    of its token's hierarchy, so the sum of the options' levels (depth below
    the hierarchy's roots) compares patterns of different segmentations: a
    deeper sum accepts fewer strings (a literal separator over ``<symbol>``,
    ``<hex-lower>{8}`` over ``<alphanum>+``).
    """
    fpr, count, cov = segmentation_key(segments)
    return (-sum(s.hypothesis.level for s in segments), fpr, count, cov)


def best_segmentation(
    width: int,
    choices: Mapping[tuple[int, int], SegmentChoice] | Iterable[SegmentChoice],
    *,
    max_fpr: float,
    slack: float = 0.0,
) -> list[SegmentChoice] | None:
    """The segmentation of columns 0..width-1 with the least Σ FPR_T (Eq. 8-11).

    Or, with ``slack``, the most specific one within ``slack`` of the least.

    Parameters
    ----------
    width
        Number of aligned columns n.
    choices
        ``(s, e)`` → the best pattern of segment C[s, e]; segments without a
        feasible pattern are simply absent.  Or the choices as a collection,
        several for one segment where the caller leaves the trade between
        specificity and FPR to the DP (a position of a vertical cut priced
        by :mod:`autovalidate.index.generalization`).  The caller limits
        e - s + 1 ≤ τ.
    max_fpr
        r: the largest admissible Σ FPR_T (Eq. 9).
    slack
        ε, a fraction: among the segmentations whose Σ FPR_T is at most the
        least one + ε (and at most r), prefer the most specific
        (:func:`specificity_key`). Eq. 8 minimises Σ FPR_T alone, which
        trades a tight pattern for a looser one over estimates that differ by
        far less than their own uncertainty (``<alphanum>+-`` at 0.00007
        beats ``<hex-lower>{8}`` + ``-`` at 0.0003 in a GUID). 0 is Eq. 8.

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
    for choice in choices.values() if isinstance(choices, Mapping) else choices:
        if 0 <= choice.start <= choice.end < width:
            by_end.setdefault(choice.end, []).append(choice)
    least = _forward(width, by_end, segmentation_key, None)
    if least is None or segmentation_key(least)[0] > max_fpr:
        return None
    if slack <= 0:
        return least
    budget = round(min(max_fpr, segmentation_key(least)[0] + slack), _ROUND)
    rest = _least_rest(width, by_end)
    specific = _forward(width, by_end, specificity_key, (rest, budget))
    if specific is None or segmentation_key(specific)[0] > budget:
        return least
    # the forward pass keeps one prefix per column, so it can miss; never less specific than Eq. 8
    return min(specific, least, key=specificity_key)


def _forward(
    width: int,
    by_end: Mapping[int, list[SegmentChoice]],
    key: Callable[[list[SegmentChoice]], tuple[Any, ...]],
    bound: tuple[list[float], float] | None,
) -> list[SegmentChoice] | None:
    """Left to right: the best (``key``) segmentation of each prefix.

    One with a mandatory (not optional) segment and one without, per prefix.

    With ``bound = (rest, budget)``, a prefix ending before column j is kept
    only if its Σ FPR_T + rest[j] (the least Σ FPR_T of the columns after it)
    is within ``budget``, so a completion within the budget always exists.
    """
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
                if bound is not None:
                    rest, budget = bound
                    if round(segmentation_key(candidate)[0] + rest[j], _ROUND) > budget:
                        continue
                current = best[j][now]
                if current is None or key(candidate) < key(current):
                    best[j][now] = candidate
    return best[width][1]


def _least_rest(width: int, by_end: Mapping[int, list[SegmentChoice]]) -> list[float]:
    """rest[j]: the least Σ FPR_T of segments covering columns j..width-1 (inf if none do)."""
    rest = [math.inf] * (width + 1)
    rest[width] = 0.0
    by_start: dict[int, list[SegmentChoice]] = {}
    for choices in by_end.values():
        for c in choices:
            by_start.setdefault(c.start, []).append(c)
    for j in range(width - 1, -1, -1):
        for c in by_start.get(j, ()):
            rest[j] = min(rest[j], c.cost + rest[c.end + 1])
    return rest
