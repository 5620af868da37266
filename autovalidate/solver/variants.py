"""The horizontal cut's retained sets (Song & He 2021, §4, Eq. 12-16): values as rows of tokens.

A column's distinct values become rows (tokens, signature, weight); the
retained sets drop the rarest signature groups, largest set first, while at
most a fraction θ of the values is dropped (the paper's greedy variant of the
NP-hard FMDV-H, Theorem 2).
"""

from __future__ import annotations

import gc
import itertools
import operator
import string
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from typing import cast

from autovalidate.index.generalization import signature as shape_signature
from autovalidate.patterns.tokens import Token, token_class, tokenize
from autovalidate.solver.search import SegmentSpace

__all__ = ["MAX_VARIANTS", "Row", "Variant", "group_rows", "no_cyclic_gc", "retained_sets"]

#: A lexer: a value's tokens (:func:`tokenize` or :func:`identifier_tokens`).
Lexer = Callable[[str], tuple[Token, ...]]

#: Most retained sets an H variant tries (each drops one more rare group).
MAX_VARIANTS = 8


@dataclass
class Row:
    """A distinct training value: its tokens, its weight (repetitions) and its token signature."""

    value: str
    value_tokens: tuple[Token, ...]
    weight: int
    signature: tuple[str, ...]

    @cached_property
    def shape(self) -> tuple[str, ...]:
        """The value's shape for the shape statistics.

        :func:`~autovalidate.index.generalization.signature` of its tokens,
        computed once: every retained set that holds the row prices its shape.
        """
        return shape_signature(self.value_tokens)


@dataclass
class Variant:
    """A retained set of the horizontal cut: its rows, the fraction of values kept, its plan.

    ``width`` and the segment maps are filled by
    :func:`~autovalidate.solver.plan.plan_segments`.
    """

    rows: list[Row]
    retained: float
    # filled by plan_segments
    width: int = 0
    segments: dict[tuple[int, int], tuple[SegmentSpace, bool]] = field(default_factory=dict)
    delimiters: dict[tuple[int, int], str] = field(default_factory=dict)
    #: segment -> training texts evidencing each of its positions (see _evidence)
    evidence: dict[tuple[int, int], tuple[int | None, ...]] = field(default_factory=dict)
    #: segment -> per position, its distinct training tokens (the position model's evidence)
    texts: dict[tuple[int, int], tuple[frozenset[Token], ...]] = field(default_factory=dict)
    #: signature -> the index of its token at each aligned column (None: no token there),
    #: in this set's alignment; empty without one
    positions: dict[tuple[str, ...], tuple[int | None, ...]] = field(default_factory=dict)
    #: the rows' tokens come from the identifier lexer
    #: (:func:`~autovalidate.patterns.tokens.identifier_tokens`), not :func:`tokenize`
    identifiers: bool = False


#: An ASCII value's shape: upper-case letters -> A, lower-case -> a, digits -> 0, symbols kept.
_SHAPE = str.maketrans(
    {
        **dict.fromkeys(string.ascii_uppercase, "A"),
        **dict.fromkeys(string.ascii_lowercase, "a"),
        **dict.fromkeys(string.digits, "0"),
    }
)


@dataclass(frozen=True)
class _Shape:
    """Where the tokens of an ASCII value of one shape are, and what they are."""

    texts: Callable[[str], tuple[str, ...]]  # the tokens' texts of a value, in one C call
    kinds: tuple[str, ...]
    pools: tuple[dict[str, Token], ...]  # the interned tokens of each token's kind
    signature: tuple[str, ...]

    @classmethod
    def of(cls, shape_tokens: tuple[Token, ...], pools: dict[str, dict[str, Token]]) -> _Shape:
        ends = list(itertools.accumulate(len(t.text) for t in shape_tokens))
        slices = [slice(e - len(t.text), e) for t, e in zip(shape_tokens, ends, strict=True)]
        texts: Callable[[str], tuple[str, ...]]
        if len(slices) > 1:
            texts = operator.itemgetter(*slices)
        else:  # itemgetter of one item returns the item, and of none is an error
            texts = lambda value: tuple(value[part] for part in slices)  # noqa: E731
        return cls(
            texts,
            tuple(t.kind for t in shape_tokens),
            tuple(pools.setdefault(t.kind, {}) for t in shape_tokens),
            tuple(token_class(t.kind, t.text) for t in shape_tokens),
        )


def group_rows(counts: Counter[str], lexer: Lexer = tokenize) -> list[Row]:
    """The tokens and signature of every distinct value (the empty string has none: left out).

    The lexer (:func:`~autovalidate.patterns.tokens.tokenize`, or
    :func:`~autovalidate.patterns.tokens.identifier_tokens`) cuts and labels
    tokens by character class alone (letter, digit, each symbol), so values
    of one shape (:data:`_SHAPE`) have tokens at the same offsets with the
    same kinds and signature: an ASCII value is cut where its shape's tokens
    are, tokenized once per shape (10^6 timestamps have a handful of shapes).
    Other values are tokenized one by one.  Linear in the number of values.
    """
    with no_cyclic_gc():
        return _rows_of(counts, lexer)


@contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """Pause the cycle collector while building many acyclic tuples.

    Allocating 10^6 rows of tuples would run it over every live object again
    and again: half the time of :func:`group_rows` at 10^6 values. Nests: only
    the outermost pause resumes the collector, and only if it was running.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _rows_of(counts: Counter[str], lexer: Lexer) -> list[Row]:
    # equal tokens are one object (10^6 values of 9 tokens repeat most of them)
    pools: dict[str, dict[str, Token]] = {}
    shapes: dict[str, _Shape] = {}
    rows = []
    for value, weight in counts.items():
        if value.isascii():
            shape = value.translate(_SHAPE)
            cut = shapes.get(shape)
            if cut is None:
                cut = shapes[shape] = _Shape.of(lexer(shape), pools)
            texts = cut.texts(value)
            found = tuple(map(dict.get, cut.pools, texts))
            if None not in found:
                tokens = cast("tuple[Token, ...]", found)
            else:  # first sightings of some tokens
                tokens = tuple(
                    pool.setdefault(text, Token(kind, text))
                    for pool, text, kind in zip(cut.pools, texts, cut.kinds, strict=True)
                )
            signature = cut.signature
        else:
            tokens = lexer(value)
            signature = tuple(token_class(t.kind, t.text) for t in tokens)
        if tokens:  # the empty string has no tokens and no pattern but <all>
            rows.append(Row(value, tokens, weight, signature))
    return rows


def retained_sets(
    rows: list[Row], n: int, theta: float, identifiers: bool = False
) -> tuple[list[Variant], list[tuple[str, ...]]]:
    """Retained sets of the horizontal cut, largest first: drop the rarest signature groups.

    Also returns the signatures from the heaviest group to the rarest (the
    order the retained sets drop them in, backwards).
    """
    groups: dict[tuple[str, ...], list[Row]] = {}
    for row in rows:
        groups.setdefault(row.signature, []).append(row)
    ordered = sorted(groups.items(), key=lambda kv: (-sum(r.weight for r in kv[1]), kv[0]))
    variants: list[Variant] = []
    # the groups are laid out heaviest first, so each retained set (the rarest
    # groups dropped) is a prefix of ``every``: slices, not membership tests,
    # keep this linear in the number of distinct values
    every = [r for _, g in ordered for r in g]
    end = len(every)
    total = sum(r.weight for r in every)
    for drop in range(len(ordered)):
        retained = total / n
        if 1.0 - retained > theta + 1e-12 or not end or len(variants) == MAX_VARIANTS:
            break
        variants.append(Variant(every[:end], retained, identifiers=identifiers))
        dropped = ordered[len(ordered) - 1 - drop][1]
        end -= len(dropped)
        total -= sum(r.weight for r in dropped)
    return variants, [sig for sig, _ in ordered]
