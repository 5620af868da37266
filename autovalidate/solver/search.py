"""Hypothesis spaces of (sub-)columns and their search in the index (Song & He 2021, §2.3-2.4).

For values v_1..v_n with the same number of tokens, the hypothesis space
H(C) = ∩ P(v) (§2.1) is a product: position by position, the options every
value shares.  FMDV needs the pattern of H(C) with the least FPR_T among those
with Cov_T ≥ m and FPR_T ≤ r (Eq. 5-7).

Only the smallest spaces are looked up whole, smallest first, while their
patterns add up to at most ``WHOLE_LOOKUP_BUDGET``: the warm index answers a
lookup by binary search, so its cost is per pattern, not per query, and a
whole space of mostly absent patterns is wasted work.  The other spaces (long
constant-like segments reach 10^5-10^6 patterns) are searched top-down, level
by level: a pattern is looked up only once one of its immediate
generalizations was found with Cov_T ≥ m.  This prunes nothing that could be
feasible, because a value matching a pattern matches its generalizations, so
Cov_T can only fall from a pattern to its specializations (the within-column
coverage threshold of the build keeps that true).  Every round looks up the
candidates of all spaces in one batch.
"""

from __future__ import annotations

import functools
import itertools
import math
import operator
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from autovalidate.index.stats import PatternStats
from autovalidate.patterns.hierarchy import escape_literal, generalizations, representatives
from autovalidate.patterns.tokens import Token
from autovalidate.solver.lookup import PatternLookup

__all__ = ["Hypothesis", "SegmentSpace", "position_slot", "search"]

#: Most patterns looked up whole in the first round, over all spaces.
WHOLE_LOOKUP_BUDGET = 256


@dataclass(frozen=True)
class Hypothesis:
    """A hypothesis pattern with its corpus statistics.

    Attributes
    ----------
    pattern
        Canonical pattern string.
    fpr
        FPR_T, a fraction in [0, 1]: Eq. 4 as the index holds it while the
        search runs; the estimate of
        :meth:`~autovalidate.index.stats.FprPrior.estimate`, conditioned on
        the training texts, once ``solve`` chooses.
    cov
        Cov_T, corpus columns matching (Eq. 7).
    level
        Specificity: the sum of its options' levels (depth below the roots)
        in the hierarchy; 0 for a pattern of roots and for a literal
        separator.
    evidence
        Where ``fpr`` comes from: ``"corpus"`` (the columns of the pattern in
        the index, above), ``"positions"`` (a part of a vertical cut priced
        position by position by the corpus's generalization statistics,
        :meth:`~autovalidate.index.generalization.GeneralizationStats.position_risk`:
        ``fpr`` is then the probability that a later value breaks it, and
        ``cov`` 0) or ``"literal"`` (a delimiter: FPR 0, no columns).
    """

    pattern: str
    fpr: float
    cov: int
    level: int = 0
    evidence: str = "corpus"


class _Coded(NamedTuple):
    """A slot's options numbered in sorted order, with the arrows as numbers."""

    names: tuple[str, ...]
    parents: tuple[tuple[int, ...], ...]
    children: tuple[tuple[int, ...], ...]
    roots: tuple[int, ...]
    levels: tuple[int, ...]
    #: per option, whether it is a one-case letter class of any length (:data:`_FREE`)
    free: tuple[bool, ...]
    #: per option, whether it or one of its specializations is
    freeable: tuple[bool, ...]


#: One-case letter classes of any length: a position of one text under them
#: claims nothing that text could have disproved (``plan._hypothesis_evidence``).
_FREE = re.compile(r"<(?:upper|lower)>\+")


@dataclass
class _Slot:
    options: frozenset[str]
    parents: dict[str, tuple[str, ...]]
    children: dict[str, tuple[str, ...]]
    roots: tuple[str, ...]
    levels: dict[str, int]

    @functools.cached_property
    def coded(self) -> _Coded:
        """The options as numbers: a slot is shared by many segments, so it is coded once."""
        names = tuple(sorted(self.options))
        number = {o: i for i, o in enumerate(names)}
        free = tuple(_FREE.fullmatch(o) is not None for o in names)
        freeable = list(free)
        for i in sorted(range(len(names)), key=lambda i: -self.levels[names[i]]):
            # deepest first: an option's children are decided before it
            freeable[i] = free[i] or any(freeable[number[c]] for c in self.children[names[i]])
        return _Coded(
            names,
            tuple(tuple(number[p] for p in self.parents[o]) for o in names),
            tuple(tuple(number[c] for c in self.children[o]) for o in names),
            tuple(number[o] for o in self.roots),
            tuple(self.levels[o] for o in names),
            free,
            tuple(freeable),
        )


def _slot(tokens: Sequence[Token]) -> _Slot | None:
    """The options shared by the tokens at one position, with their arrows; None if none."""
    distinct = set(tokens)
    if len(distinct) == 1:
        gen = generalizations(tokens[0])
        shared = set(gen.options)
    else:
        # distinct tokens share no constant, and the rest of their options
        # are their representatives' (a few shapes for 10^5 distinct ids)
        shared_or_none: set[str] | None = None
        for shape in representatives(distinct):
            gen = generalizations(shape)
            opts = set(gen.options)
            opts.discard(escape_literal(shape.text))
            shared_or_none = opts if shared_or_none is None else shared_or_none & opts
            if not shared_or_none:
                return None
        assert shared_or_none is not None
        shared = shared_or_none
    # the shared set is closed upwards, so parents of shared options are shared
    parents = {o: gen.parents[o] for o in shared}
    children: dict[str, list[str]] = {o: [] for o in shared}
    for o, ps in parents.items():
        for p in ps:
            children[p].append(o)
    roots = tuple(sorted(o for o, ps in parents.items() if not ps))
    levels = {o: gen.level[o] for o in shared}
    return _Slot(
        frozenset(shared), parents, {o: tuple(c) for o, c in children.items()}, roots, levels
    )


def position_slot(tokens: Collection[Token]) -> _Slot | None:
    """One factor of a space: the options shared by the distinct ``tokens`` at a position.

    ``SegmentSpace(slots)`` with one per position equals ``SegmentSpace.of``
    of rows with those tokens; ``None`` if the tokens share no option.
    """
    return _slot(list(tokens))


@dataclass
class SegmentSpace:
    """H(C[s, e]): the hypothesis patterns of a (sub-)column whose values all have k tokens.

    Build with :meth:`of`; ``None`` from :meth:`of` means an empty space (some
    position has no option shared by all values).

    A pattern of the space is a *node*: one option per slot, numbered in
    mixed radix (the last slot's option varies fastest), so that the node
    numbers 0..size-1 follow :meth:`all_patterns` and an arrow of the
    hierarchy at one slot is an integer step.
    """

    slots: list[_Slot]
    found: dict[str, PatternStats] = field(default_factory=dict)
    #: pattern -> specificity: the sum of its options' levels in the hierarchy
    #: (kept for the patterns found, which :meth:`best` ranks)
    level: dict[str, int] = field(default_factory=dict)
    #: pattern -> its node number (kept for the patterns found: :meth:`free`)
    node: dict[str, int] = field(default_factory=dict)
    #: patterns found with a smaller Cov_T are not expanded: none of their
    #: specializations can be feasible (:meth:`FprPrior.futile_below`)
    futile_below: float = 0.0
    #: where the hypotheses of a space differ in evidence: a found pattern ->
    #: the coverage below which none of its specializations can be feasible
    #: (at least ``futile_below``); None: ``futile_below`` for every pattern
    futile_of: Callable[[str], float] | None = None
    _patterns: list[str] | None = field(default=None, repr=False)
    _levels: list[int] | None = field(default=None, repr=False)

    @classmethod
    def of(cls, rows: Sequence[Sequence[Token]]) -> SegmentSpace | None:
        """The space of token rows of equal length (distinct rows suffice)."""
        if not rows:
            return None
        k = len(rows[0])
        slots = []
        for i in range(k):
            slot = _slot([r[i] for r in rows])
            if slot is None:
                return None
            slots.append(slot)
        return cls(slots)

    def size(self) -> int:
        """|H|: the number of hypothesis patterns."""
        n = 1
        for s in self.slots:
            n *= len(s.options)
        return n

    def all_patterns(self) -> list[str]:
        """Every pattern of the space, node 0 first (only for small spaces; computed once)."""
        if self._patterns is None:
            patterns, levels = [""], [0]
            for slot in self.slots:
                coded = slot.coded
                patterns = [p + o for p in patterns for o in coded.names]
                levels = [v + w for v in levels for w in coded.levels]
            self._patterns, self._levels = patterns, levels
        return self._patterns

    def _record(self, pattern: str, stats: PatternStats, level: int, node: int) -> None:
        self.found[pattern] = stats
        self.level[pattern] = level
        self.node[pattern] = node

    def free(self, pattern: str) -> int:
        """The slots where a found pattern has a one-case letter class of any length, as a bit mask.

        Bit i stands for slot i: ``<upper>+`` and ``<lower>+`` set it; a
        constant, a fixed width, ``<letter>+``, ``<digit>+``, ``<alphanum>+``
        and a symbol do not.
        """
        return self._mask(pattern, "free")

    def freeable(self, pattern: str) -> int:
        """The slots where a found pattern or one of its specializations is :meth:`free`."""
        return self._mask(pattern, "freeable")

    def _mask(self, pattern: str, flag: str) -> int:
        mask, rest = 0, self.node[pattern]
        for radix, bits in self._bits[flag]:  # the last slot varies fastest
            rest, digit = divmod(rest, radix)
            mask |= bits[digit]
        return mask

    @functools.cached_property
    def _bits(self) -> dict[str, list[tuple[int, tuple[int, ...]]]]:
        """Per option flag (``free``, ``freeable``), the slots' mask tables, last slot first.

        Each entry: the slot's number of options and each option's bit of the mask.
        """
        coded = list(reversed(list(enumerate(slot.coded for slot in self.slots))))
        return {
            flag: [(len(c.names), tuple(int(f) << i for f in getattr(c, flag))) for i, c in coded]
            for flag in ("free", "freeable")
        }

    def avoiding(self, refused: dict[int, frozenset[str]]) -> Callable[[str], bool]:
        """A predicate: whether a found pattern avoids the ``refused`` options (slot -> options)."""
        checks = []
        for i, options in refused.items():
            names = self.slots[i].coded.names
            digits = frozenset(d for d, o in enumerate(names) if o in options)
            checks.append((self._strides[i], len(names), digits))

        def avoids(pattern: str) -> bool:
            node = self.node[pattern]
            return all(node // step % radix not in digits for step, radix, digits in checks)

        return avoids

    @functools.cached_property
    def _strides(self) -> tuple[int, ...]:
        """Per slot, the node step of its next option (the last slot varies fastest)."""
        strides, step = [], 1
        for slot in reversed(self.slots):
            strides.append(step)
            step *= len(slot.options)
        return tuple(reversed(strides))

    def best(
        self,
        *,
        max_fpr: float,
        min_cov: int,
        objective: str = "fpr",
        slack: float = math.inf,
        admit: Callable[[str], bool] | None = None,
    ) -> Hypothesis | None:
        """The best feasible pattern (FPR_T ≤ r, Cov_T ≥ m).

        ``objective="fpr"`` (FMDV, Eq. 5): the least FPR_T.  The paper leaves
        ties open; they are common (FPR_T = 0 for a pattern and its
        generalizations alike) and go to the more specific pattern (smaller
        Cov_T, then deeper in the hierarchy): when the corpus shows no more risk
        for it, a narrower pattern catches more errors.

        ``objective="coverage"`` (the paper's CMDV alternative, §2.3): the least
        Cov_T, i.e. the most specific feasible pattern, ties to the deeper
        pattern, then the smaller FPR_T; with a ``slack`` ε (a fraction in
        [0, 1]), the most specific of the feasible patterns whose FPR_T is
        within ε of the least (the default, infinite, allows every feasible
        pattern). A segment of a vertical cut is chosen so: the
        segmentation's rule (:func:`~autovalidate.solver.dp.best_segmentation`)
        keeps the most specific cut within ε of the least Σ FPR_T, and a
        segment's most specific pattern at nearly r would spend the whole
        budget on what a pattern within ε of the least buys (a year kept as
        the constant ``2024`` at 0.14 beside ``<digit>{4}`` at 0.02).
        ``admit``: where given, only the patterns it admits are feasible.
        """
        feasible = [
            Hypothesis(p, st.fpr, st.cov, self.level[p])
            for p, st in self.found.items()
            if st.cov >= min_cov and st.fpr <= max_fpr and (admit is None or admit(p))
        ]
        if not feasible:
            return None
        if objective == "coverage":
            least = min(h.fpr for h in feasible)
            close = [h for h in feasible if h.fpr <= least + slack]
            return min(close, key=lambda h: (h.cov, -self.level[h.pattern], h.fpr, h.pattern))
        return min(feasible, key=lambda h: (h.fpr, h.cov, -self.level[h.pattern], h.pattern))


class _TopDown:
    """The level-wise (Apriori) search of one large space, on node numbers.

    A node of the frontier carries its digits (one option per slot) and its
    level, so that a child, which differs from its parent at one slot, gets
    both by one step instead of being decoded from its number.
    """

    def __init__(self, space: SegmentSpace) -> None:
        self.space = space
        coded = [slot.coded for slot in space.slots]
        self.names = [c.names for c in coded]
        self.kids = [c.children for c in coded]
        self.levels = [c.levels for c in coded]
        radix = [len(names) for names in self.names]
        # mixed radix, the last slot fastest (the order of SegmentSpace.all_patterns)
        self.strides = [math.prod(radix[q + 1 :]) for q in range(len(radix))]
        #: node -> (its digits, its level)
        self.frontier: dict[int, tuple[list[int], int]] = {}
        for digits in itertools.product(*(c.roots for c in coded)):
            node = sum(o * st for o, st in zip(digits, self.strides, strict=True))
            level = sum(lv[d] for lv, d in zip(self.levels, digits, strict=True))
            self.frontier[node] = (list(digits), level)
        self.asked = set(self.frontier)

    def key(self, digits: list[int]) -> str:
        return "".join(map(operator.getitem, self.names, digits))

    def children(self, live: dict[int, tuple[list[int], int]]) -> dict[int, tuple[list[int], int]]:
        """The immediate specializations of live nodes (node -> digits, level) not asked yet.

        No check that their other generalizations are alive: nearly every
        child of a live node is in the index, so the check would cost more
        than the few lookups it saves, and a child with an absent
        generalization is absent itself (Cov_T only falls), which the
        lookup tells.
        """
        out: dict[int, tuple[list[int], int]] = {}
        asked = self.asked
        slots = list(enumerate(zip(self.strides, self.kids, self.levels, strict=True)))
        for node, (digits, level) in live.items():
            for pos, (step, kids, levels) in slots:
                d = digits[pos]
                for c in kids[d]:
                    child = node + (c - d) * step
                    if child not in asked:
                        asked.add(child)
                        child_digits = digits.copy()
                        child_digits[pos] = c
                        out[child] = (child_digits, level - levels[d] + levels[c])
        return out


def search(spaces: Sequence[SegmentSpace], index: PatternLookup, *, min_cov: int) -> int:
    """Fill ``space.found`` with the index statistics of every pattern that can be feasible.

    Parameters
    ----------
    spaces
        Hypothesis spaces, searched together (one query per round).
    index
        The pattern index.
    min_cov
        Coverage threshold m (at least 1: a pattern absent from the index has
        no evidence and is never feasible).

    Returns
    -------
    int
        The number of lookup rounds (DuckDB queries) issued.
    """
    min_cov = max(1, min_cov)
    whole: list[SegmentSpace] = []
    top_down: list[_TopDown] = []
    budget = WHOLE_LOOKUP_BUDGET
    for space in sorted(spaces, key=SegmentSpace.size):
        size = space.size()
        if size <= budget:
            whole.append(space)
            budget -= size
        else:
            top_down.append(_TopDown(space))
    batch: list[str] = [p for space in whole for p in space.all_patterns()]
    rounds = 0
    while True:
        asked = [(t, node, known) for t in top_down for node, known in t.frontier.items()]
        keys = [t.key(known[0]) for t, _, known in asked]
        batch.extend(keys)
        if not batch:
            break
        stats = index.lookup(batch)
        rounds += 1
        for space in whole:
            assert space._levels is not None
            for node, (pattern, level) in enumerate(
                zip(space.all_patterns(), space._levels, strict=True)
            ):
                st = stats.get(pattern)
                if st is not None:
                    space._record(pattern, st, level, node)
        whole = []
        live: dict[int, dict[int, tuple[list[int], int]]] = {id(t): {} for t in top_down}
        for (t, node, known), pattern in zip(asked, keys, strict=True):
            st = stats.get(pattern)
            if st is not None:
                t.space._record(pattern, st, known[1], node)
                space = t.space
                if (
                    st.cov >= min_cov
                    and st.cov >= space.futile_below
                    and (space.futile_of is None or st.cov >= space.futile_of(pattern))
                ):
                    live[id(t)][node] = known
        for t in top_down:
            t.frontier = t.children(live[id(t)])
        batch = []
    return rounds
