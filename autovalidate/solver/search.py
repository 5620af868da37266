"""Hypothesis spaces of (sub-)columns and their search in the index (Song & He 2021, §2.3-2.4).

For values v_1..v_n with the same number of tokens, the hypothesis space
H(C) = ∩ P(v) (§2.1) is a product: position by position, the options every
value shares.  FMDV needs the pattern of H(C) with the least FPR_T among those
with Cov_T ≥ m and FPR_T ≤ r (Eq. 5-7).

Most spaces are tiny (the median query column of the lake has 3 hypotheses)
and are looked up whole, smallest first, while their patterns add up to at
most ``WHOLE_LOOKUP_BUDGET`` (a lookup's cost is mostly the scan of the index,
so one query of 10^4 candidates costs about what one of 10 does).  The other
spaces (long constant-like segments reach 10^5-10^6 patterns) are searched
top-down, level by level: a pattern is looked up only if all its immediate
generalizations were found with Cov_T ≥ m.  This
prunes nothing that could be feasible, because a value matching a pattern
matches its generalizations, so Cov_T can only fall from a pattern to its
specializations (the within-column coverage threshold of the build keeps that
true).  Every round looks up the candidates of all spaces in one DuckDB query.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from autovalidate.index.stats import PatternStats
from autovalidate.patterns.hierarchy import generalizations
from autovalidate.patterns.tokens import Token
from autovalidate.solver.lookup import PatternLookup

__all__ = ["Hypothesis", "SegmentSpace", "position_slot", "search"]

#: Most patterns looked up whole in the first round, over all spaces.
WHOLE_LOOKUP_BUDGET = 30_000


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
    """

    pattern: str
    fpr: float
    cov: int


@dataclass
class _Slot:
    options: frozenset[str]
    parents: dict[str, tuple[str, ...]]
    children: dict[str, tuple[str, ...]]
    roots: tuple[str, ...]
    levels: dict[str, int]


def _slot(tokens: Sequence[Token]) -> _Slot | None:
    """The options shared by the tokens at one position, with their arrows; None if none."""
    shared: set[str] | None = None
    for token in set(tokens):
        opts = set(generalizations(token).options)
        shared = opts if shared is None else shared & opts
        if not shared:
            return None
    assert shared is not None
    gen = generalizations(tokens[0])
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
    """

    slots: list[_Slot]
    found: dict[str, PatternStats] = field(default_factory=dict)
    #: pattern -> specificity: the sum of its options' levels in the hierarchy
    level: dict[str, int] = field(default_factory=dict)

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
        """Every pattern of the space (only for small spaces)."""
        return [self.key(c) for c in itertools.product(*(sorted(s.options) for s in self.slots))]

    def key(self, node: tuple[str, ...]) -> str:
        """The canonical string of a node (one option per slot); remembers its level."""
        pattern = "".join(node)
        if pattern not in self.level:
            self.level[pattern] = sum(s.levels[o] for s, o in zip(self.slots, node, strict=True))
        return pattern

    def best(self, *, max_fpr: float, min_cov: int, objective: str = "fpr") -> Hypothesis | None:
        """The best feasible pattern (FPR_T ≤ r, Cov_T ≥ m).

        ``objective="fpr"`` (FMDV, Eq. 5): the least FPR_T.  The paper leaves
        ties open; they are common (FPR_T = 0 for a pattern and its
        generalizations alike) and go to the more specific pattern (smaller
        Cov_T, then deeper in the hierarchy): when the corpus shows no more risk
        for it, a narrower pattern catches more errors.

        ``objective="coverage"`` (the paper's CMDV alternative, §2.3): the least
        Cov_T, i.e. the most specific feasible pattern, ties to the deeper
        pattern, then the smaller FPR_T.
        """
        feasible = [
            Hypothesis(p, st.fpr, st.cov)
            for p, st in self.found.items()
            if st.cov >= min_cov and st.fpr <= max_fpr
        ]
        if not feasible:
            return None
        if objective == "coverage":
            return min(feasible, key=lambda h: (h.cov, -self.level[h.pattern], h.fpr, h.pattern))
        return min(feasible, key=lambda h: (h.fpr, h.cov, -self.level[h.pattern], h.pattern))


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
    # per space: nodes to look up this round
    frontier: dict[int, set[tuple[str, ...]]] = {}
    alive: dict[int, set[tuple[str, ...]]] = {}
    whole: list[int] = []
    budget = WHOLE_LOOKUP_BUDGET
    for i in sorted(range(len(spaces)), key=lambda j: spaces[j].size()):
        size = spaces[i].size()
        if size <= budget:
            whole.append(i)
            budget -= size
        else:
            frontier[i] = set(itertools.product(*(s.roots for s in spaces[i].slots)))
            alive[i] = set()
    rounds = 0
    first = True
    while first or any(frontier.values()):
        batch: list[str] = []
        if first:
            for i in whole:
                batch.extend(spaces[i].all_patterns())
        for i, nodes in frontier.items():
            batch.extend(spaces[i].key(n) for n in nodes)
        first = False
        if not batch:
            break
        stats = index.lookup(batch)
        rounds += 1
        if rounds == 1:
            for i in whole:
                spaces[i].found = {p: stats[p] for p in spaces[i].all_patterns() if p in stats}
        next_frontier: dict[int, set[tuple[str, ...]]] = {}
        for i, nodes in frontier.items():
            space = spaces[i]
            live_now = set()
            for node in nodes:
                pattern = space.key(node)
                st = stats.get(pattern)
                if st is not None:
                    space.found[pattern] = st
                    if st.cov >= min_cov:
                        live_now.add(node)
            alive[i] |= live_now
            next_frontier[i] = _children(space, live_now, alive[i])
        frontier = next_frontier
    return rounds


def _children(
    space: SegmentSpace, live: set[tuple[str, ...]], alive: set[tuple[str, ...]]
) -> set[tuple[str, ...]]:
    """Specializations of live nodes all of whose generalizations are alive (Apriori)."""
    out: set[tuple[str, ...]] = set()
    for node in live:
        for pos, slot in enumerate(space.slots):
            for child_option in slot.children[node[pos]]:
                child = node[:pos] + (child_option,) + node[pos + 1 :]
                if child in out:
                    continue
                if all(
                    child[:q] + (par,) + child[q + 1 :] in alive
                    for q, s in enumerate(space.slots)
                    for par in s.parents[child[q]]
                ):
                    out.add(child)
    return out
