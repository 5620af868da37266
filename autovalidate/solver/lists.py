"""Lists: values that repeat one item a varying number of times (beyond the paper).

A column of ``en-gb:0.25,fr-fr:0.5`` or ``T1190; T1078`` holds lists: items
of one format joined by a separator, one to several per value. Alignment
cannot line such values up (a value of three items has no column for the
third item of a value of four), and the multi-format search splits them by
their separators into as many formats as there are lengths, so the paper's
vertical cut abstains. Here the items are a column of their own, solved by
the same FMDV (its corpus evidence is the items', which is what a later
value's items are drawn from), and the value is the item followed by the
separator and the item repeated up to a bound: the repetition statistics of
the corpus (:meth:`~autovalidate.index.generalization.GeneralizationStats.repeat_risk`)
say how often a later value has more items, and the tightest bound of
:data:`~autovalidate.index.generalization.REPEAT_BOUNDS` that keeps the item
pattern's FPR plus that risk within r is taken (issue 29, item 4).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable

import regex

from autovalidate.index.generalization import REPEAT_BOUNDS, GeneralizationStats, repeat_bound
from autovalidate.patterns.hierarchy import escape_literal
from autovalidate.patterns.render import MAX_REPEAT, pattern_regex, spell_segments
from autovalidate.patterns.tokens import tokenize
from autovalidate.solver.dp import SegmentChoice
from autovalidate.solver.params import Solution, SolverParams
from autovalidate.solver.plan import training_order
from autovalidate.solver.search import Hypothesis

__all__ = ["list_items", "solve_list"]

#: An item's shape reads as one kind the tokens that alignment lines up at one
#: position: a word, letters or letters and digits (``db``, ``web01``: one class,
#: :func:`~autovalidate.patterns.tokens.token_class`), and a number, digits or
#: not (``1``, ``0.25``, ``-1``: two classes that align as a match, sharing
#: ``<num>``). The list ``en-gb:0.25,fr-fr:1`` repeats one item format.
_SHAPE_KIND = {"D": "N", "M": "L"}

#: A format solver: values with repetitions, their training order -> a solution or None.
FormatSolver = Callable[[Counter[str], "list[str] | None"], "Solution | None"]


def list_items(values: Counter[str], tolerance: float = 0.0) -> tuple[str, Counter[str]] | None:
    """The separator the values are lists of, and the values that are such lists; or None.

    A candidate is a symbol character (not a space) that occurs a varying
    number of times across the values, with the spaces around it in every
    occurrence (``"; "``, ``" - "``), and whose items are neither empty (the
    separator at either end of a value or twice in a row) nor hold a space
    (words: prose, whose commas separate clauses), and whose items all have
    one token shape (words, numbers and symbols in one order; a number with
    or without a point or a sign is one kind, a word with or without digits
    another, :data:`_SHAPE_KIND`): the items of a list are of one format, the
    parts of a record (``9-Apr-84``) are not.
    Of the candidates, the one that occurs most often is the separator: the
    comma of ``en-gb:0.25,fr-fr:0.5``, not its hyphen, whose items hold
    commas. Where no candidate's items have one shape, the items need only
    share their first token's kind (``T1190`` and ``T1565.001``: a list whose
    items have an optional part, which the items' own FMDV then decides),
    where some value holds items of two shapes (``T1005; T1565.001``): values
    each of one item shape are formats of their own (``2024-01-02`` beside
    ``1/2/2024`` is two date formats, not a list split at ``-``).

    ``tolerance`` (θ of a horizontal-cut method, a fraction in [0, 1)) is
    the weight share of values that may break these conditions, as a
    horizontal cut leaves θ of the values non-conforming (Song & He 2021,
    Eq. 16): one ``TA0009 `` with a trailing space among 64 tactic lists does
    not make them prose. The spacing of the separator and the items' shape
    are then the ones of the most weight, and the values returned are those
    that keep them (with their weights).
    """
    return _list_items(values, tolerance, whole=True) or _list_items(values, tolerance, whole=False)


def _list_items(
    values: Counter[str], tolerance: float, whole: bool
) -> tuple[str, Counter[str]] | None:
    """:func:`list_items`, with items of one whole shape, or (``whole`` false) one first kind."""
    total = sum(values.values())
    allowed = total * tolerance + 1e-9
    symbols = {c for value in values for c in value if not c.isalnum() and not c.isspace()}
    shape_of: dict[str, tuple[str, ...]] = {}  # an item's token kinds, for every candidate
    whole_of: dict[str, tuple[str, ...]] = {}  # its whole shape
    best: tuple[int, str, Counter[str]] | None = None
    for char in sorted(symbols):
        if len({value.count(char) for value in values}) < 2:
            continue
        sep = _spacing(values, char)
        shapes: dict[str, tuple[str, ...]] = {}  # a list's one item shape
        by_shape: Counter[tuple[str, ...]] = Counter()
        broken = 0
        mixed = whole  # one list holds items of two whole shapes: they are one item format
        for value, weight in values.items():
            items = value.split(sep)
            kinds = None
            if value.count(char) == value.count(sep) and all(
                item and not any(c.isspace() for c in item) for item in items
            ):  # else an empty item, or words: prose, not a list
                for item in items:
                    if item not in shape_of:
                        shape = tuple(_SHAPE_KIND.get(t.kind, t.kind) for t in tokenize(item))
                        whole_of[item] = shape
                        shape_of[item] = shape if whole else shape[:1]
                kinds = {shape_of[item] for item in items}
                mixed = mixed or len({whole_of[item] for item in items}) > 1
            if kinds is None or len(kinds) != 1:
                broken += weight
                if broken > allowed:
                    break
                continue
            shapes[value] = kinds.pop()
            by_shape[shapes[value]] += weight
        if broken > allowed or not by_shape or not mixed:
            continue  # (unmixed: each value's items of one shape, ISO and US dates)
        shape = by_shape.most_common(1)[0][0]
        fitting = Counter({v: values[v] for v, kind in shapes.items() if kind == shape})
        if total - sum(fitting.values()) > allowed:
            continue  # items of several shapes: a record (``9-Apr-84``), not a list
        if len({value.count(char) for value in fitting}) < 2:
            continue
        key = -sum(value.count(sep) for value in fitting)
        if best is None or (key, sep) < best[:2]:
            best = (key, sep, fitting)
    return None if best is None else (best[1], best[2])


def _spacing(values: Counter[str], char: str) -> str:
    """``char`` with the spaces the values of most weight have around it (before, after)."""
    counts: Counter[tuple[bool, bool]] = Counter()
    for value, weight in values.items():
        if char in value:
            counts[(_spaced(value, char, -1), _spaced(value, char, 1))] += weight
    before, after = counts.most_common(1)[0][0]
    return " " * before + char + " " * after


def _spaced(value: str, char: str, side: int) -> bool:
    """Whether every ``char`` of ``value`` has a space after it (side 1) or before it (-1).

    ``char`` is not a space, so the pairs of it and a space do not overlap:
    every ``char`` is spaced when the pairs are as many as the ``char`` itself.
    """
    return value.count(char) == value.count(char + " " if side > 0 else " " + char)


def solve_list(
    counts: Counter[str],
    order: list[str] | None,
    solve_format: FormatSolver,
    model: GeneralizationStats,
    params: SolverParams,
    method: str,
) -> Solution | None:
    """The item pattern with the separator and the item repeated, or None.

    ``solve_format`` solves the items (FMDV on one format); the list is
    feasible when it gives one format with no repeated segment (its optional
    segments become optional parts of the repeated unit,
    :class:`~autovalidate.solver.dp.SegmentChoice` ``parts``; a repetition
    inside the repetition grows the regex as the product of the two bounds,
    and, measured on B-M, such lists replaced formats that caught far more:
    docs/auto-validate.md, "Items with an optional part"), and the item's
    Σ FPR plus the risk that a later value has more items than the bound is
    at most r. The repeated unit's hypothesis
    carries that risk as its FPR, with ``"positions"`` evidence: it comes
    from the corpus's repetition statistics.
    """
    found = list_items(counts, params.tolerance(method))
    if found is None:
        return None
    sep, lists = found
    items: Counter[str] = Counter()
    for value, weight in lists.items():
        for item in value.split(sep):
            items[item] += weight
    in_order = None
    if order is not None:
        in_order = training_order(
            [item for value in order if value in lists for item in value.split(sep)]
        )
    item_solution = solve_format(items, in_order)
    if item_solution is None or len(item_solution.branches) != 1:
        return None
    (branch,) = item_solution.branches
    if any(s.most > 1 for s in branch):
        return None  # a repeat inside the repeated item (measured, not adopted: see the docstring)
    parts: list[tuple[str, int]] = [(escape_literal(sep), 0)]
    for s in branch:  # the separator and the item, required parts joined
        if not s.most and not parts[-1][1]:
            parts[-1] = (parts[-1][0] + s.hypothesis.pattern, 0)
        else:
            parts.append((s.hypothesis.pattern, s.most))
    most = max(value.count(sep) for value in lists)
    for bound in range(len(REPEAT_BOUNDS)):
        grows = model.repeat_risk(most, bound)
        if item_solution.fpr + grows <= params.max_fpr:
            break
    else:
        return None
    width = max(s.end for s in branch) + 1
    unit = SegmentChoice(
        width,
        width + len(tokenize(sep + items.most_common(1)[0][0])) - 1,
        Hypothesis(spell_segments(parts), grows, 0, evidence="positions"),
        optional=True,
        repeat=min(repeat_bound(most, bound), MAX_REPEAT),
        parts=tuple(parts) if len(parts) > 1 else (),  # else one flat pattern
    )
    cut = (*branch, unit)
    matcher = regex.compile(pattern_regex([(s.form, s.most) for s in cut]))
    n = sum(counts.values())
    kept = sum(w for value, w in counts.items() if matcher.fullmatch(value))
    if kept < n * (1.0 - params.tolerance(method)) - 1e-9:
        return None
    return dataclasses.replace(item_solution, method=method, branches=(cut,), retained=kept / n)
