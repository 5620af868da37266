"""Planning a retained set's segments and the training evidence of their hypotheses.

The aligned columns of a retained set (§3) become segments of at most τ
tokens, each with its hypothesis space (:class:`~autovalidate.solver.search.SegmentSpace`);
the training texts evidencing each position (how many distinct texts, how
often the position changed from row to row in the training order) condition
the FPR_T estimate (:meth:`~autovalidate.index.stats.FprPrior.estimate`).
"""

from __future__ import annotations

import functools
import itertools
import operator
import re
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from autovalidate.index.stats import CONDITION_SIZES
from autovalidate.patterns.hierarchy import escape_literal
from autovalidate.patterns.tokens import Token
from autovalidate.solver.alignment import Alignment
from autovalidate.solver.search import SegmentSpace, position_slot
from autovalidate.solver.variants import Row, Variant, no_cyclic_gc

__all__ = [
    "ORDER_PREFIX",
    "PlanMemo",
    "SpaceEvidence",
    "has_constant",
    "plan_segments",
    "training_order",
]

#: Most entries of the training order (:func:`training_order`) read for the
#: runs of a position: a position needs 101 runs to saturate the estimate's
#: evidence (the largest conditioning size is 100 values, plus the first),
#: which a position that changes at all from row to row shows long before.
ORDER_PREFIX = 5_000
#: A position with more distinct texts than this has that much evidence
#: already: its runs are not counted.
_SATURATED = CONDITION_SIZES[-1] + 1


def training_order(values: Sequence[str]) -> list[str] | None:
    """The training values in row order, a value repeated in consecutive rows kept once.

    The first :data:`ORDER_PREFIX` of them, or None where they are sorted
    (ascending or descending): the order of a sorted column is made by its
    values, so a position changes whenever the sort key moves on (the next
    brewery of an alphabetical list), not independently of the rest.
    """
    order = [v for v, _ in itertools.islice(itertools.groupby(values), ORDER_PREFIX)]
    ascending = all(itertools.starmap(operator.lt, itertools.pairwise(order)))
    if ascending or all(itertools.starmap(operator.gt, itertools.pairwise(order))):
        return None
    return order


def _runs(tokens: Iterable[Token]) -> int:
    """The maximal runs of equal tokens in a sequence (1 + how often it changes)."""
    return sum(1 for _ in itertools.groupby(tokens))


def _evidence(columns: Iterable[tuple[Collection[Token], int]]) -> tuple[int | None, ...]:
    """How many training texts evidence each position of a segment.

    ``columns`` gives, at each aligned position of the segment, its distinct
    tokens and the runs of equal tokens they form in the training order (the
    rows of the segment's values, :func:`training_order`; 0 where no order
    is known or the position has more than :data:`_SATURATED` distinct
    tokens). A class at a position (``<digit>{4}``, ``<lower>{1}``) is
    evidenced by the texts seen there. A column's values come in order, not
    drawn independently: a year that is the same in every training value, or
    a month that changes once (one batch of a time-ordered column), says
    nothing about the next batch's. What does is how often the position
    changes from row to row: ``a``/``p`` of ``7:16 a.m.`` change about 120
    times in 238 rows, so two distinct texts drawn again and again, while a
    month of sorted dates changes as often as it has distinct texts. A
    position's evidence is the larger of its distinct texts and its runs;
    symbol positions are literal in every hypothesis and have none (None).
    :func:`_hypothesis_evidence` says which positions bound a hypothesis.
    """
    return tuple(
        max(len(tokens), runs) if any(t.kind != "S" for t in tokens) else None
        for tokens, runs in columns
    )


def _hypothesis_evidence(positions: Sequence[int | None], free: int) -> int:
    """The evidence n of one hypothesis of a segment, from its positions' evidence.

    ``positions``: each position's evidence, less the first text (what made
    the options hypotheses; 0 for a position of one text), None for a symbol
    position; ``free``: a bit mask of the positions where the hypothesis puts
    a one-case letter class of any length (``<upper>+``, ``<lower>+``:
    :meth:`~autovalidate.solver.search.SegmentSpace.free`).

    The least evidenced position bounds the hypothesis (:func:`_evidence`),
    with one exception: a position of a single text under a one-case letter
    class of any length. A run of letters of one case that is the same in
    every training value is how a machine format writes a literal (a prefix
    ``ORD``, ``CVE``, the domain of ``name@example.com``), and such a class
    keeps the one property of it that its one text shows, its case, while
    claiming nothing that text could have disproved; so the position neither
    evidences nor limits the hypothesis: ``ORD-`` and hundreds of order
    numbers condition ``<upper>+-<digit>{6}`` by the numbers.

    Everywhere else a position of one text still leaves the hypothesis
    unconditioned. A fixed width (``ORD`` as ``<upper>{3}``) is a claim one
    text cannot evidence. A title-case word the same in every value (``Lake``
    of ``Kaby Lake``, ``Coffee Lake``) is a word of prose, whose training
    tenth is one narrow group; ``<letter>+``, the only class of any length
    above it, leaves its case open too. A digit run the same in every
    training value is a value of the batch (the year of ``8/16/2016``, the
    first octet of one network), the sign of a narrow slice of a column whose
    other positions (two months) evidence less than their counts. With no
    position left, the segment's best evidenced one counts.
    """
    counted = [(i, n) for i, n in enumerate(positions) if n is not None]
    most = max((n for _, n in counted), default=0)
    return min((n for i, n in counted if n or not free >> i & 1), default=most)


#: A class element of a canonical pattern (``<digit>{4}``, ``<upper>+``, ``<num>``):
#: what is left of a pattern without them is its literals (escaped symbols too).
_CLASS_ELEMENT = re.compile(r"<[a-z-]+>(?:\{[0-9]+\}|\+)?")


@functools.lru_cache(maxsize=1 << 16)
def has_constant(pattern: str) -> bool:
    """Whether a pattern keeps a letter or digit as a literal (a year, a prefix, a code).

    Such a hypothesis is not conditioned on the training column: a constant
    is a value, not a format, and the values of a column come in order (a
    batch of one year, of one prefix), not drawn independently, so many
    training values sharing it say little about the next batch.
    """
    return any(ch.isalnum() for ch in _CLASS_ELEMENT.sub("", pattern))


@dataclass
class SpaceEvidence:
    """The evidence n of the hypotheses of one space (:func:`_hypothesis_evidence`)."""

    space: SegmentSpace
    #: each position's evidence less the first text; None: a symbol position
    positions: tuple[int | None, ...]
    #: whether hypotheses differ in evidence (a position of one text, beside
    #: better evidenced ones, that a one-case letter class can leave out)
    varies: bool
    #: the evidence of every hypothesis where they do not differ
    least: int
    #: the most evidence a hypothesis of the space can have: its least evidenced
    #: position of more than one text (those bound every hypothesis)
    most: int
    _by_mask: dict[int, int] = field(default_factory=dict)
    _n: dict[str, int] = field(default_factory=dict)
    _futile: dict[int, float] = field(default_factory=dict)

    @classmethod
    def from_texts(
        cls, space: SegmentSpace, texts: tuple[int | None, ...], condition: bool
    ) -> SpaceEvidence:
        """From the positions' evidence of :func:`_evidence` (``condition``: False gives 0)."""
        # the first text is what made them hypotheses, the others are evidence
        positions = tuple(None if t is None else max(0, t - 1) if condition else 0 for t in texts)
        counted = [t for t in positions if t is not None]
        least = min(counted, default=0)
        # a position of one text that a one-case letter class can leave out
        varies = max(counted, default=0) > 0 and any(
            t == 0 and any(space.slots[i].coded.free) for i, t in enumerate(positions)
        )
        most = min((t for t in counted if t), default=0)
        return cls(space, positions, varies, least, most)

    def n(self, pattern: str) -> int:
        """The evidence of a found pattern of the space (constants aside: :func:`has_constant`)."""
        if not self.varies:
            return self.least
        if pattern not in self._n:
            mask = self.space.free(pattern)
            if mask not in self._by_mask:
                self._by_mask[mask] = _hypothesis_evidence(self.positions, mask)
            self._n[pattern] = self._by_mask[mask]
        return self._n[pattern]

    def futile(self, bound: Callable[[int, float], float], max_fpr: float, pattern: str) -> float:
        """The coverage below which no specialization of a found pattern can be feasible.

        Its specializations have at most the evidence of the pattern with
        every slot that is or can become :meth:`~SegmentSpace.free` free.
        """
        n = _hypothesis_evidence(self.positions, self.space.freeable(pattern))
        if n not in self._futile:
            self._futile[n] = bound(n, max_fpr)
        return self._futile[n]


@dataclass
class PlanMemo:
    """What the retained sets of one column share when they are planned.

    They differ by a few rare values, so most of their aligned columns hold
    the same tokens (the same :func:`position_slot`), and most of their
    segments are the same space: searched once, not once per retained set.
    """

    slots: dict[frozenset[Token], Any] = field(default_factory=dict)
    spaces: dict[tuple[frozenset[Token], ...], SegmentSpace | None] = field(default_factory=dict)

    def slot(self, tokens: frozenset[Token]) -> Any:
        """:func:`position_slot` of the distinct tokens of an aligned column."""
        if tokens not in self.slots:
            self.slots[tokens] = position_slot(tokens)
        return self.slots[tokens]

    def space(self, columns: tuple[frozenset[Token], ...]) -> SegmentSpace | None:
        """The space of a segment, by the distinct tokens of its columns; None if empty."""
        if columns not in self.spaces:
            slots = [self.slot(tokens) for tokens in columns]
            self.spaces[columns] = (
                None if any(slot is None for slot in slots) else SegmentSpace(slots)
            )
        return self.spaces[columns]


def plan_segments(
    variant: Variant,
    *,
    tau: int,
    alignment: Alignment | None,
    signatures: list[tuple[str, ...]],
    memo: PlanMemo | None = None,
    ordered: Sequence[Row] = (),
) -> None:
    """The hypothesis spaces of a retained set: one per admissible segment.

    ``alignment`` aligns ``signatures`` (all of them, heaviest first) for the
    vertical-cut methods; ``None`` plans a single whole-column segment.
    ``memo`` holds what the retained sets of one column share. ``ordered``:
    the rows of :func:`training_order`, for the segments' evidence (none:
    their distinct texts alone).
    """
    memo = memo if memo is not None else PlanMemo()
    rows = variant.rows
    present = {r.signature for r in rows}
    if alignment is None:
        lengths = {len(r.value_tokens) for r in rows}
        if len(lengths) != 1:
            return
        k = lengths.pop()
        variant.width = k
        if k > tau:
            return
        distinct = list({r.value_tokens for r in rows})
        space = SegmentSpace.of(distinct)
        if space is not None:
            variant.segments[(0, k - 1)] = (space, False)
            in_turn = [r.value_tokens for r in ordered if r.signature in present]
            texts = [{tokens[i] for tokens in distinct} for i in range(k)]
            variant.evidence[(0, k - 1)] = _evidence(
                (texts[i], _runs(t[i] for t in in_turn) if len(texts[i]) <= _SATURATED else 0)
                for i in range(k)
            )
        return
    keep = [i for i, sig in enumerate(signatures) if sig in present]
    alignment = alignment.restrict(keep)
    position_of = dict(zip([signatures[i] for i in keep], alignment.positions, strict=True))
    variant.positions = position_of
    variant.width = alignment.width
    # A space is a product over positions (SegmentSpace.of), so a segment's
    # space depends on the distinct tokens at each aligned column, not on the
    # rows: one pass over the rows collects them per signature, and each
    # segment then costs a pass over the signatures, not over the rows.
    by_signature: dict[tuple[str, ...], list[tuple[Token, ...]]] = {}
    tokens_of: dict[tuple[str, ...], list[frozenset[Token]]] = {}
    with no_cyclic_gc():
        for row in rows:
            by_signature.setdefault(row.signature, []).append(row.value_tokens)
        for sig, group in by_signature.items():
            at = [frozenset(tokens) for tokens in zip(*group, strict=True)]
            tokens_of[sig] = [frozenset() if i is None else at[i] for i in position_of[sig]]
        del by_signature
    sigs = list(tokens_of)
    # A segment [s, e] is admissible when every signature has a token in all
    # of its columns or in none; ``here`` are those with all. Counted for every
    # segment at once from prefix sums of the signatures' filled columns (a
    # loop over signatures per segment was most of the planning of long values).
    import numpy as np  # here, not at the top: the CLI imports this module for its defaults

    width = alignment.width
    filled = np.array([[i is not None for i in position_of[sig]] for sig in sigs], np.int32)
    ends = np.zeros((len(sigs), width + 1), np.int32)
    np.cumsum(filled, axis=1, out=ends[:, 1:])
    # count[j, span, s]: the columns of [s, s + span] where signature j has a
    # token (clipped at the width: the loop below never reads past it)
    spans = np.arange(min(tau, width))[:, None]
    starts = np.arange(width)[None, :]
    count = ends[:, np.minimum(starts + spans + 1, width)] - ends[:, starts]
    full = count == spans + 1
    empty = count == 0
    valid = (full | empty).all(axis=0).tolist()
    anywhere = full.any(axis=0).tolist()
    absent = empty.any(axis=0).tolist()
    union: dict[tuple[int, tuple[int, ...]], frozenset[Token]] = {}
    runs: dict[tuple[int, tuple[int, ...]], int] = {}
    in_order: dict[tuple[int, ...], list[Row]] = {}

    def runs_at(c: int, key: tuple[int, ...]) -> int:
        """The runs of column c's tokens over the ordered rows of the signatures ``key``."""
        if (c, key) not in runs:
            if len(union[(c, key)]) > _SATURATED or not ordered:
                runs[(c, key)] = 0
            else:
                if key not in in_order:
                    chosen = {sigs[j] for j in key}
                    in_order[key] = [r for r in ordered if r.signature in chosen]
                # every row of ``key`` has a token at each column of the segment
                runs[(c, key)] = _runs(
                    r.value_tokens[cast(int, position_of[r.signature][c])] for r in in_order[key]
                )
        return runs[(c, key)]

    for s in range(width):
        for e in range(s, min(width, s + tau)):
            span = e - s
            if not valid[span][s]:
                break  # a value with some of [s, e] has some of every longer segment too
            if not anywhere[span][s]:
                continue
            key = tuple(np.flatnonzero(full[:, span, s]).tolist())
            for c in range(s, e + 1):
                if (c, key) not in union:
                    union[(c, key)] = frozenset().union(*(tokens_of[sigs[j]][c] for j in key))
            if not absent[span][s] and all(len(union[(c, key)]) == 1 for c in range(s, e + 1)):
                only = [next(iter(union[(c, key)])) for c in range(s, e + 1)]
                if all(t.kind == "S" for t in only):
                    variant.delimiters[(s, e)] = escape_literal("".join(t.text for t in only))
            space = memo.space(tuple(union[(c, key)] for c in range(s, e + 1)))
            if space is not None:
                variant.segments[(s, e)] = (space, absent[span][s])
                variant.texts[(s, e)] = tuple(union[(c, key)] for c in range(s, e + 1))
                variant.evidence[(s, e)] = _evidence(
                    (union[(c, key)], runs_at(c, key)) for c in range(s, e + 1)
                )
