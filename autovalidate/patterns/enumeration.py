"""Enumerating the patterns of a column with their within-column coverage (Song & He 2021, Alg. 1).

For a data column D the offline index needs, for every pattern p in
P(D) = ∪_{v ∈ D, t(v) ≤ τ} P(v), the number of values of D that p matches, so
that Imp_D(p) = 1 - matches/|D| (Eq. 1).  P(v) is the product of the options of
v's tokens, so the count of a pattern is a support count over values, and the
patterns are enumerated like frequent itemsets: depth-first over token
positions, with one bitset per (position, option) over the distinct values and
support pruning (coverage is anti-monotone along a pattern's prefix).

Algorithm 1 retains only patterns "with sufficient coverage": a column is
evidence for a pattern only if the pattern matches at least the first rung of
``ladder`` (a fraction of the column's values; 0 gives the exact Eq. 4).  If a
column still yields more than ``budget`` patterns, the enumeration reruns
with the next rung, and so on: a single 8-token value has up to ~38,000
patterns, so wide columns with many distinct shapes (names, addresses) need
it.  A column that exceeds the budget even at the last rung contributes
nothing (it is counted as skipped).

Values with more than ``tau`` tokens generate no patterns but still count in
|D|: a pattern of at most τ tokens never matches them (§2.4).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from autovalidate.errors import ParameterError
from autovalidate.nulls import drop_missing
from autovalidate.patterns.hierarchy import options
from autovalidate.patterns.tokens import tokenize

__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_LADDER",
    "DEFAULT_TAU",
    "MAX_TAU",
    "ColumnPatterns",
    "column_patterns",
]

DEFAULT_TAU = 8
MAX_TAU = 13
DEFAULT_BUDGET = 20_000
#: Coverage thresholds tried in turn, as fractions of the column's values.  The
#: first, 0.2, is Algorithm 1's "sufficient coverage", chosen on AV-bench
#: (docs/auto-validate.md): with 0 (exact Eq. 4), a textual ``NA`` in tens of
#: thousands of numeric columns makes every short code pattern look impure;
#: with 0.5, date columns no longer count against a constant month.
DEFAULT_LADDER: tuple[float, ...] = (0.2, 0.5, 1.0)


@dataclass(frozen=True)
class ColumnPatterns:
    """The patterns of one column and how many of its values each matches.

    Attributes
    ----------
    n_values
        |D|: values of the column that are not missing, with repetitions.
    counts
        Canonical pattern string → number of values it matches (with repetitions).
    min_coverage
        The ladder rung used: every pattern of the column matching at least
        this fraction of |D| is in ``counts``.  ``None`` if the column was
        skipped; ``skipped`` says why.
    skipped
        ``None``, or ``"empty"`` (no non-null value), ``"wide"`` (no value of
        at most τ tokens) or ``"over-budget"`` (over budget at every rung).
    """

    n_values: int
    counts: dict[str, int]
    min_coverage: float | None
    skipped: str | None = None

    def impurity(self, pattern: str) -> float:
        """Imp_D(p) (Eq. 1): the fraction of the column's values p does not match."""
        return 1.0 - self.counts.get(pattern, 0) / self.n_values


class _OverBudget(Exception):
    pass


def column_patterns(
    values: Iterable[str | None],
    *,
    tau: int = DEFAULT_TAU,
    budget: int = DEFAULT_BUDGET,
    ladder: tuple[float, ...] = DEFAULT_LADDER,
) -> ColumnPatterns:
    """Enumerate P(D) with within-column match counts (Algorithm 1, adaptive threshold).

    Parameters
    ----------
    values
        The column's values; ``None``, null tokens (``NA``, ``null``, ``-``...)
        and empty or whitespace-only values are missing and ignored
        (:mod:`autovalidate.nulls`).
    tau
        Token limit τ: values with more tokens generate no patterns (§2.4).
    budget
        Most patterns one column may contribute before the threshold rises.
    ladder
        Increasing coverage thresholds in [0, 1], tried in order.

    Returns
    -------
    ColumnPatterns

    Raises
    ------
    ParameterError
        If ``tau`` is not in [1, 13], ``budget`` < 1 or the ladder is not
        increasing within [0, 1].

    References
    ----------
    Song & He, SIGMOD 2021, §2.1 Algorithm 1, §2.4, Eq. (1).
    """
    if not 1 <= tau <= MAX_TAU:
        raise ParameterError(f"tau must be in [1, {MAX_TAU}], got {tau}")
    if budget < 1:
        raise ParameterError(f"budget must be at least 1, got {budget}")
    if not ladder or any(not 0.0 <= c <= 1.0 for c in ladder) or list(ladder) != sorted(ladder):
        raise ParameterError(f"ladder must be increasing fractions in [0, 1], got {ladder}")

    distinct = Counter(drop_missing(values))
    n = sum(distinct.values())
    if n == 0:
        return ColumnPatterns(0, {}, None, "empty")

    groups: dict[int, list[tuple[tuple[tuple[str, ...], ...], int]]] = defaultdict(list)
    for value, weight in distinct.items():
        tokens = tokenize(value)
        if 0 < len(tokens) <= tau:
            groups[len(tokens)].append((tuple(options(t) for t in tokens), weight))
    if not groups:
        return ColumnPatterns(n, {}, None, "wide")

    prepared = [_prepare(members) for members in groups.values()]
    for threshold in ladder:
        min_support = max(1, math.ceil(threshold * n - 1e-9))
        counts: dict[str, int] = {}
        try:
            for slots, weight_bits, full in prepared:
                _enumerate(slots, weight_bits, full, min_support, counts, budget)
        except _OverBudget:
            continue
        return ColumnPatterns(n, counts, threshold)
    return ColumnPatterns(n, {}, None, "over-budget")


def _prepare(
    members: list[tuple[tuple[tuple[str, ...], ...], int]],
) -> tuple[list[list[tuple[str, int]]], list[int], int]:
    """Bitsets per (position, option) over the members, and the weights' bit planes."""
    k = len(members[0][0])
    slots: list[dict[str, int]] = [{} for _ in range(k)]
    max_weight = 0
    for idx, (opts, weight) in enumerate(members):
        bit = 1 << idx
        max_weight = max(max_weight, weight)
        for i, slot_options in enumerate(opts):
            table = slots[i]
            for o in slot_options:
                table[o] = table.get(o, 0) | bit
    # weight(bits) = sum_b popcount(bits & plane_b) << b
    weight_bits = []
    for b in range(max_weight.bit_length()):
        plane = 0
        for idx, (_, weight) in enumerate(members):
            if weight >> b & 1:
                plane |= 1 << idx
        weight_bits.append(plane)
    full = (1 << len(members)) - 1
    return [list(table.items()) for table in slots], weight_bits, full


def _enumerate(
    slots: list[list[tuple[str, int]]],
    weight_bits: list[int],
    full: int,
    min_support: int,
    counts: dict[str, int],
    budget: int,
) -> None:
    k = len(slots)
    prefix: list[str] = []

    def support(bits: int) -> int:
        return sum((bits & plane).bit_count() << b for b, plane in enumerate(weight_bits))

    def dfs(i: int, bits: int) -> None:
        last = i == k - 1
        for option, option_bits in slots[i]:
            nb = bits & option_bits
            if not nb:
                continue
            s = support(nb)
            if s < min_support:
                continue
            prefix.append(option)
            if last:
                key = "".join(prefix)
                counts[key] = counts.get(key, 0) + s
                if len(counts) > budget:
                    raise _OverBudget
            else:
                dfs(i + 1, nb)
            prefix.pop()

    dfs(0, full)
