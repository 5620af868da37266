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
from autovalidate.patterns.render import MAX_REPEAT, pattern_regex
from autovalidate.patterns.tokens import tokenize
from autovalidate.solver.dp import SegmentChoice
from autovalidate.solver.params import Solution, SolverParams
from autovalidate.solver.plan import training_order
from autovalidate.solver.search import Hypothesis

__all__ = ["list_separator", "solve_list"]

#: A format solver: values with repetitions, their training order -> a solution or None.
FormatSolver = Callable[[Counter[str], "list[str] | None"], "Solution | None"]


def list_separator(values: Counter[str]) -> str | None:
    """The separator the values are lists of, or None.

    A candidate is a symbol character (not a space) that occurs a varying
    number of times across the values, with the spaces around it in every
    occurrence (``"; "``, ``" - "``), and whose items are neither empty (the
    separator at either end of a value or twice in a row) nor hold a space
    (words: prose, whose commas separate clauses), and whose items all have
    one token shape (letters, digits and symbols in one order): the items of
    a list are of one format, the parts of a record (``9-Apr-84``) are not.
    Of the candidates, the one that occurs most often is the separator: the
    comma of ``en-gb:0.25,fr-fr:0.5``, not its hyphen, whose items hold
    commas.
    """
    symbols = {c for value in values for c in value if not c.isalnum() and not c.isspace()}
    best: tuple[int, str] | None = None
    for char in sorted(symbols):
        if len({value.count(char) for value in values}) < 2:
            continue
        before = all(_spaced(v, char, -1) for v in values)
        after = all(_spaced(v, char, 1) for v in values)
        sep = " " * before + char + " " * after
        items = {item for value in values for item in value.split(sep)}
        if any(not item or any(c.isspace() for c in item) for item in items):
            continue  # an empty item, or words: prose, not a list
        if len({tuple(t.kind for t in tokenize(item)) for item in items}) != 1:
            continue  # items of several shapes: a record (``9-Apr-84``), not a list
        key = (-sum(value.count(sep) for value in values), sep)
        if best is None or key < best:
            best = key
    return None if best is None else best[1]


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
    feasible when it gives one format without optional segments (a pattern
    the list can repeat as it is), and the item's Σ FPR plus the risk that a
    later value has more items than the bound is at most r. The repeated
    unit's hypothesis carries that risk as its FPR, with ``"positions"``
    evidence: it comes from the corpus's repetition statistics.
    """
    sep = list_separator(counts)
    if sep is None:
        return None
    items: Counter[str] = Counter()
    for value, weight in counts.items():
        for item in value.split(sep):
            items[item] += weight
    in_order = None
    if order is not None:
        in_order = training_order([item for value in order for item in value.split(sep)])
    item_solution = solve_format(items, in_order)
    if item_solution is None or len(item_solution.branches) != 1:
        return None
    (branch,) = item_solution.branches
    if any(s.optional for s in branch):
        return None
    item = "".join(s.hypothesis.pattern for s in branch)
    most = max(value.count(sep) for value in counts)
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
        Hypothesis(escape_literal(sep) + item, grows, 0, evidence="positions"),
        optional=True,
        repeat=min(repeat_bound(most, bound), MAX_REPEAT),
    )
    cut = (*branch, unit)
    matcher = regex.compile(pattern_regex([(s.hypothesis.pattern, s.most) for s in cut]))
    n = sum(counts.values())
    kept = sum(w for value, w in counts.items() if matcher.fullmatch(value))
    if kept < n * (1.0 - params.tolerance(method)) - 1e-9:
        return None
    return dataclasses.replace(item_solution, method=method, branches=(cut,), retained=kept / n)
