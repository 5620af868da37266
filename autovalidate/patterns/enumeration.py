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

Beside the counts, the enumeration measures how well a pattern's ``+`` runs
keep their shortest length: learning on the column's first
:data:`TRAIN_FRACTION` of values (the paper's training prefix, §5.1), the
fraction of the remaining values that match p but have a run shorter than
any the prefix showed (:attr:`ColumnPatterns.length_violations`).  Summed
over the corpus it estimates what bounding a run from below (``<digit>{3,}``
for ``<digit>+``) adds to FPR_T (:mod:`autovalidate.solver.lengths`).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from autovalidate.errors import ParameterError
from autovalidate.nulls import drop_missing
from autovalidate.patterns.hierarchy import options
from autovalidate.patterns.render import run_lengths
from autovalidate.patterns.tokens import tokenize

__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_LADDER",
    "DEFAULT_TAU",
    "MAX_TAU",
    "MIN_TRAINED_TEXTS",
    "TRAIN_FRACTION",
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
#: The share of a column's first values that plays the training set when
#: measuring run lengths: ceil(n * TRAIN_FRACTION) values, the paper's first
#: 10% (§5.1), as a user profiles the head of a table.
TRAIN_FRACTION = 0.1
#: Fewest distinct training values matching a pattern for its runs' shortest
#: lengths to be evidence: one value shows no variation (on the shared lake,
#: a lower-case word column whose prefix holds one distinct word has 15% of
#: its later values shorter; with two distinct words, 0.5%).
MIN_TRAINED_TEXTS = 2


@dataclass(frozen=True)
class ColumnPatterns:
    """The patterns of one column and how many of its values each matches.

    Attributes
    ----------
    n_values
        |D|: values of the column that are not missing, with repetitions.
    counts
        Canonical pattern string → number of values it matches (with repetitions).
    min_purity
        The ladder rung used: every pattern of the column matching at least
        this fraction of |D| (impurity Imp_D at most 1 minus it) is in
        ``counts``.  ``None`` if the column was skipped; ``skipped`` says why.
    skipped
        ``None``, or ``"empty"`` (no non-null value), ``"wide"`` (no value of
        at most τ tokens) or ``"over-budget"`` (over budget at every rung).
    length_violations
        For each pattern of ``counts`` with a ``+`` run that at least
        :data:`MIN_TRAINED_TEXTS` distinct values of the training prefix (the
        first ceil(n · :data:`TRAIN_FRACTION`) values) match, and whose runs
        the prefix shows at least 2 long: ``(k, fraction)``, where k ≥ 2 is
        the largest of the runs' shortest lengths in the prefix (the bound
        that would be set) and the fraction, in [0, 1], is of the values
        after the prefix that match the pattern with some ``+`` run shorter
        than every prefix value had it.  Empty when no value follows the prefix.
    """

    n_values: int
    counts: dict[str, int]
    min_purity: float | None
    skipped: str | None = None
    length_violations: dict[str, tuple[int, float]] = field(default_factory=dict)

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

    kept = list(drop_missing(values))
    n = len(kept)
    if n == 0:
        return ColumnPatterns(0, {}, None, "empty")
    n_train = math.ceil(n * TRAIN_FRACTION)
    trained = set(kept[:n_train])
    distinct = Counter(kept)
    after = Counter(kept[n_train:])

    groups: dict[int, list[_Member]] = defaultdict(list)
    for value, weight in distinct.items():
        tokens = tokenize(value)
        if 0 < len(tokens) <= tau:
            groups[len(tokens)].append(
                _Member(
                    tuple(options(t) for t in tokens),
                    tuple(t.text for t in tokens),
                    weight,
                    value in trained,
                    after[value],
                )
            )
    if not groups:
        return ColumnPatterns(n, {}, None, "wide")

    prepared = [_prepare(members) for members in groups.values()]
    for threshold in ladder:
        min_support = max(1, math.ceil(threshold * n - 1e-9))
        counts: dict[str, int] = {}
        violations: dict[str, list[int]] = {}
        try:
            for group in prepared:
                _enumerate(group, min_support, counts, violations, budget)
        except _OverBudget:
            continue
        rest = n - n_train
        shares = {p: (k, v / rest) for p, (k, v) in violations.items()} if rest else {}
        return ColumnPatterns(n, counts, threshold, length_violations=shares)
    return ColumnPatterns(n, {}, None, "over-budget")


class _Member(NamedTuple):
    """A distinct value of a column, as the enumeration needs it."""

    options: tuple[tuple[str, ...], ...]  # per token
    texts: tuple[str, ...]  # per token
    weight: int  # occurrences in the column
    trained: bool  # occurs in the training prefix
    after: int  # occurrences after the prefix


class _Group(NamedTuple):
    """Bitsets over the members (distinct values) of one token count."""

    slots: list[list[tuple[str, int]]]  # per position: (option, members it matches)
    #: per position: option with + runs -> per run: (length, members with it), by length
    runs: list[dict[str, list[list[tuple[int, int]]]]]
    weight_planes: list[int]  # weight(bits) = sum_b popcount(bits & plane_b) << b
    after_planes: list[int]  # the same for the occurrences after the prefix
    trained: int  # members occurring in the training prefix
    full: int


def _planes(weights: list[int]) -> list[int]:
    """Bit planes of per-member weights: plane b holds member i if bit b of its weight is set."""
    planes = []
    for b in range(max(weights, default=0).bit_length()):
        plane = 0
        for idx, weight in enumerate(weights):
            if weight >> b & 1:
                plane |= 1 << idx
        planes.append(plane)
    return planes


def _prepare(members: list[_Member]) -> _Group:
    """Bitsets per (position, option) and per (position, option, run, length) over the members."""
    k = len(members[0].options)
    slots: list[dict[str, int]] = [{} for _ in range(k)]
    lengths: list[dict[str, list[dict[int, int]]]] = [{} for _ in range(k)]
    trained = 0
    for idx, member in enumerate(members):
        bit = 1 << idx
        if member.trained:
            trained |= bit
        for i, slot_options in enumerate(member.options):
            table = slots[i]
            for o in slot_options:
                table[o] = table.get(o, 0) | bit
                if ">+" not in o:
                    continue
                per_run = run_lengths(o, member.texts[i])
                runs = lengths[i].setdefault(o, [{} for _ in per_run])
                for run, length in zip(runs, per_run, strict=True):
                    run[length] = run.get(length, 0) | bit
    return _Group(
        [list(table.items()) for table in slots],
        [{o: [sorted(run.items()) for run in runs] for o, runs in at.items()} for at in lengths],
        _planes([m.weight for m in members]),
        _planes([m.after for m in members]),
        trained,
        (1 << len(members)) - 1,
    )


def _support(bits: int, planes: list[int]) -> int:
    return sum((bits & plane).bit_count() << b for b, plane in enumerate(planes))


def _enumerate(
    group: _Group,
    min_support: int,
    counts: dict[str, int],
    violations: dict[str, list[int]],
    budget: int,
) -> None:
    """Depth-first over positions; at each pattern, its count and its run-length violations."""
    slots, runs = group.slots, group.runs
    k = len(slots)
    prefix: list[str] = []

    def shortfall(bits: int) -> tuple[int, int] | None:
        """The bound k and the members with a run shorter than the prefix's members have it.

        k is the largest of the runs' shortest lengths among the prefix's
        members; ``None`` without evidence (too few prefix members, or k < 2).
        """
        trained = bits & group.trained
        if trained.bit_count() < MIN_TRAINED_TEXTS:
            return None
        short = 0
        bound = 1
        for i, option in enumerate(prefix):
            for by_length in runs[i].get(option, ()):
                for length, members in by_length:
                    if members & trained:
                        bound = max(bound, length)
                        break
                    short |= members & bits
        return None if bound < 2 else (bound, short)

    def dfs(i: int, bits: int) -> None:
        last = i == k - 1
        for option, option_bits in slots[i]:
            nb = bits & option_bits
            if not nb:
                continue
            s = _support(nb, group.weight_planes)
            if s < min_support:
                continue
            prefix.append(option)
            if last:
                key = "".join(prefix)
                counts[key] = counts.get(key, 0) + s
                if len(counts) > budget:
                    raise _OverBudget
                if ">+" in key:
                    found = shortfall(nb)
                    if found is not None:
                        bound, short = found
                        entry = violations.setdefault(key, [bound, 0])
                        entry[0] = max(entry[0], bound)
                        entry[1] += _support(short, group.after_planes)
            else:
                dfs(i + 1, nb)
            prefix.pop()

    dfs(0, group.full)
