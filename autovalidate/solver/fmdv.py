"""FMDV and its vertical/horizontal-cut variants (Song & He 2021, §2.3, §3, §4).

* **FMDV** (Eq. 5-7): the pattern of H(C) = ∩_{v ∈ C} P(v) with the least
  FPR_T, subject to FPR_T ≤ r and Cov_T ≥ m.  Needs every value to have the
  same number of tokens, at most τ.
* **FMDV-V** (Eq. 8-11): align the values' tokens (§3), then choose a
  segmentation of the aligned columns, each segment at most τ tokens, and a
  pattern per segment, minimising Σ FPR_T subject to Σ FPR_T ≤ r and
  Cov_T ≥ m for every segment.  A segment some values have no tokens in is
  optional as a whole (``(?:...)?``); a segment a value is only partly in
  cannot be chosen.  A segment made only of symbol characters that are the
  same in every value (``|``, `` - ``, ``][``) is a *delimiter* of the column
  and may be cut out as a literal with FPR 0: the corpus rarely has
  stand-alone columns of punctuation, yet the paper's composite columns
  (Fig. 8) are exactly sub-domains joined by such delimiters.
* **FMDV-H** (Eq. 12-16) and **FMDV-VH**: tolerate up to a fraction θ of
  non-conforming values.  As in the paper, greedily: values are grouped by
  their token signature (kinds and symbols) and the rarest groups are
  discarded, one at a time, while at most θ of the values are discarded; the
  first retained set (largest first) for which FMDV (resp. FMDV-V) is feasible
  gives the answer.  Deciding FMDV-H exactly is NP-hard (Theorem 2).
* **Multi-format columns** (beyond the paper): where no single pattern is
  feasible but the values split by their separators into at most three
  formats (two date formats; IPv4 addresses and host names), each holding
  several distinct values and each with a feasible pattern of its own, the
  answer is the bounded disjunction of those patterns, with per-branch
  evidence.  A separator is literal in hierarchy version 2, so this is how a
  column whose separators vary keeps a constraint.
* **FPR_T** is the empirical-Bayes estimate of
  :class:`~autovalidate.index.stats.FprPrior`: the corpus columns of a
  pattern pooled with a prior fitted on the index, conditioned on the
  training column's distinct values all conforming.

All candidate retained sets and all segments are searched together, so a
query costs a handful of DuckDB lookups (see :mod:`.search`).  Everything
here is pure computation over the index; no I/O besides the lookups.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from autovalidate.errors import ParameterError
from autovalidate.index.generalization import GeneralizationStats
from autovalidate.index.generalization import signature as shape_signature
from autovalidate.index.stats import PatternStats
from autovalidate.patterns.tokens import Token, identifier_tokens, tokenize
from autovalidate.portable_regex import re2_error
from autovalidate.solver.alignment import Alignment, align
from autovalidate.solver.dp import (
    SegmentChoice,
    best_segmentation,
    beyond_budget,
    specificity_key,
)
from autovalidate.solver.lengths import bound_runs
from autovalidate.solver.lists import solve_list
from autovalidate.solver.lookup import PatternLookup
from autovalidate.solver.params import (
    METHODS,
    OBJECTIVES,
    Solution,
    SolverParams,
    vertical_cuts,
)
from autovalidate.solver.plan import (
    PlanMemo,
    SpaceEvidence,
    has_constant,
    plan_segments,
    training_order,
)
from autovalidate.solver.positions import (
    generalization_model,
    position_choices,
    repetitions,
    shape_risk,
    width_admitted,
)
from autovalidate.solver.search import Hypothesis, SegmentSpace, search
from autovalidate.solver.variants import Row, Variant, group_rows, no_cyclic_gc, retained_sets

__all__ = ["METHODS", "OBJECTIVES", "Solution", "SolverParams", "solve"]

#: Fewest distinct values of a format that may be a branch: one value is a
#: constant, not a format (prose splits into "formats" of one sentence each).
MIN_BRANCH_DISTINCT = 2


def solve(
    values: Sequence[str],
    index: PatternLookup,
    *,
    method: str = "fmdv-vh",
    params: SolverParams | None = None,
    trace: list[Prepared] | None = None,
) -> Solution | None:
    """Infer a validation pattern for a column (training values, nulls removed).

    Parameters
    ----------
    values
        The non-null training values, with repetitions.
    index
        The pattern index of the corpus.
    method
        ``"fmdv"``, ``"fmdv-v"``, ``"fmdv-h"`` or ``"fmdv-vh"``.
    params
        r, m, θ, τ; :class:`SolverParams` defaults if ``None``.
    trace
        Where given, the whole column's :class:`Prepared` plan is appended to
        it (its retained sets planned), for a diagnosis of an abstention
        (:func:`~autovalidate.solver.diagnosis.diagnose`) without planning again.

    Returns
    -------
    Solution or None
        ``None`` when no hypothesis is feasible (natural-language columns,
        too little corpus evidence): no constraint rather than a weak one.
        Where no single pattern is feasible and the values are lists of one
        item format with a varying number of items (vertical-cut methods),
        the item's pattern with the separator and the item repeated up to a
        bound (:func:`~autovalidate.solver.lists.solve_list`). Else, where
        the values split into at most ``params.max_branches`` formats (by
        their separators) that each have a feasible pattern, a multi-format
        solution: one branch per format. Else, with an index's identifier
        statistics and values without whitespace, the cut of identifier
        tokens (:func:`~autovalidate.patterns.tokens.identifier_tokens`),
        each ``<unreserved>+``, within ``params.max_position_risk`` with its
        identifier shape risk (URLs and paths whose parts change their inner
        symbols; beyond the paper).
        Its ``+`` runs are then bounded from below where the corpus justifies
        it (``params.max_shortfall``, :func:`~autovalidate.solver.lengths.bound_runs`).
        A solution whose regex RE2 would not compile (a long list's bound
        copying its item past RE2's limits,
        :func:`~autovalidate.portable_regex.re2_error`) is none.

    Raises
    ------
    ParameterError
        If ``method`` is unknown or a parameter is out of range.

    References
    ----------
    Song & He, SIGMOD 2021: Eq. (5)-(7), (8)-(11), (12)-(16).
    """
    if method not in METHODS:
        raise ParameterError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    params = params or SolverParams()
    params.check(index)
    counts = Counter(values)
    if not counts:
        return None
    order = training_order(values)
    # the solver allocates some 10^4-10^5 short-lived, acyclic objects (tokens,
    # slots, keys, statistics); the cycle collections they trigger scan every
    # object of the caller's process too, which in a process holding much data
    # (AV-bench holds the lake's test values) cost as much as the solve itself
    with no_cyclic_gc():
        solution = _runnable(_solve_format(counts, order, index, method, params, trace))
        model = generalization_model(index, params)
        if solution is None and model is not None and vertical_cuts(method):
            # before the disjunction, which would take each list length for a format
            solution = _runnable(
                solve_list(
                    counts,
                    order,
                    lambda c, o: _solve_format(c, o, index, method, params),
                    model,
                    params,
                    method,
                )
            )
        if solution is None and params.max_branches >= 2:
            solution = _runnable(_solve_formats(counts, order, index, method, params))
        identifiers = model is not None and bool(model.identifier_shapes)
        if solution is None and identifiers and vertical_cuts(method) and _identifiers(counts):
            # the last resort: identifiers whose parts change their inner symbols
            solution = _runnable(
                _solve_format(counts, order, index, method, params, identifiers=True)
            )
        if solution is None or params.max_shortfall <= 0:
            return solution
        bounded = bound_runs(
            solution.branches, list(counts), index, params.max_fpr, params.max_shortfall
        )
        return _runnable(dataclasses.replace(solution, branches=bounded)) or solution


def _identifiers(counts: Counter[str]) -> bool:
    """Whether the values' most frequent identifier shape has 2+ tokens and no whitespace.

    Names and list literals are words, and ``<unreserved>+`` alone says nothing
    of a format. Checked once per column before the identifier cut is planned,
    so that prose, which abstains, costs no second alignment.
    """
    shapes: Counter[tuple[str, ...]] = Counter()
    for value, weight in counts.items():
        shapes[shape_signature(identifier_tokens(value))] += weight
    most = shapes.most_common(1)[0][0]
    return len(most) >= 2 and not any(c[0] == "S" and c[1:].isspace() for c in most)


def _runnable(solution: Solution | None) -> Solution | None:
    """The solution where every engine can run its regex, else None.

    A repeated segment's bound comes from the corpus's repetition statistics
    (up to 10k + 9 for lists of k items) and may copy its item past what RE2
    (DuckDB) compiles (:func:`~autovalidate.portable_regex.re2_error`): a
    rule no local validation could run is no rule.
    """
    if solution is None:
        return None
    return solution if re2_error(solution.regex) is None else None


def _format_key(value: str) -> str:
    """A value's format for the multi-format search: its symbol characters, in order."""
    return "".join(t.text for t in tokenize(value) if t.kind == "S")


def _solve_formats(
    counts: Counter[str],
    order: list[str] | None,
    index: PatternLookup,
    method: str,
    params: SolverParams,
) -> Solution | None:
    """A bounded disjunction: the largest formats, each solved as a column of its own.

    The values are grouped by :func:`_format_key`, largest group first; as few
    groups as cover all values (all but θ of them, for a horizontal-cut
    method) become the branches, at most ``params.max_branches`` and at least
    two, and each must hold :data:`MIN_BRANCH_DISTINCT` distinct values and
    have a feasible solution of its own, with its own corpus evidence
    (FPR_T ≤ r, Cov_T ≥ m per segment): never match-anything.
    """
    groups: dict[str, Counter[str]] = {}
    for value, weight in counts.items():
        groups.setdefault(_format_key(value), Counter())[value] = weight
    if len(groups) < 2:
        return None
    n = sum(counts.values())
    tolerance = params.tolerance(method)
    ordered = sorted(groups.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))
    chosen: list[Counter[str]] = []
    covered = 0
    for _, group in ordered:
        if covered >= n * (1.0 - tolerance) - 1e-9 or len(chosen) == params.max_branches:
            break
        chosen.append(group)
        covered += sum(group.values())
    if len(chosen) < 2 or covered < n * (1.0 - tolerance) - 1e-9:
        return None
    if any(len(group) < MIN_BRANCH_DISTINCT for group in chosen):
        return None  # before solving any branch: one too small a group fails them all
    solutions = []
    for group in chosen:
        in_group = None if order is None else training_order([v for v in order if v in group])
        solution = _solve_format(group, in_group, index, method, params)
        if solution is None:
            return None
        solutions.append((solution, sum(group.values())))
    return Solution(
        method,
        tuple(b for sol, _ in solutions for b in sol.branches),
        sum(sol.retained * weight for sol, weight in solutions) / n,
        sum(sol.lookups for sol, _ in solutions),
        sum(sol.candidates for sol, _ in solutions),
    )


@dataclass(frozen=True)
class Prepared:
    """The retained sets of a column's values and their alignment, before any planning.

    ``rows``: the values as token rows (those of at most ``max_tokens``);
    ``ordered``: the rows in :func:`training_order`; ``variants``: the
    retained sets of the horizontal cut, largest first; ``signatures`` and
    ``alignment``: every retained set's token signatures, heaviest first, and
    their alignment (vertical-cut methods; ``None`` otherwise).
    """

    rows: list[Row]
    ordered: list[Row]
    variants: list[Variant]
    signatures: list[tuple[str, ...]]
    alignment: Alignment | None

    def plan(self, variant: Variant, params: SolverParams, memo: PlanMemo | None = None) -> None:
        """:func:`plan_segments` of one of the retained sets (fills its segments)."""
        plan_segments(
            variant,
            tau=params.tau,
            alignment=self.alignment,
            signatures=self.signatures,
            memo=memo,
            ordered=self.ordered,
        )


def prepare(
    counts: Counter[str],
    order: list[str] | None,
    method: str,
    params: SolverParams,
    identifiers: bool = False,
) -> Prepared:
    """Rows, retained sets and alignment of values of one format, before any planning.

    ``order``: :func:`training_order` of the values, or None; ``identifiers``:
    tokens by :func:`~autovalidate.patterns.tokens.identifier_tokens`.
    """
    n = sum(counts.values())
    lexer = identifier_tokens if identifiers else tokenize
    # values too long for a pattern are left out, as non-conforming ones
    rows = [r for r in group_rows(counts, lexer) if len(r.value_tokens) <= params.max_tokens]
    ordered: list[Row] = []
    if order is not None:
        wanted = set(order)
        row_of = {r.value: r for r in rows if r.value in wanted}
        ordered = [row_of[v] for v in order if v in row_of]
    variants, signatures = retained_sets(rows, n, params.tolerance(method), identifiers)
    alignment = None
    if vertical_cuts(method) and variants:
        weights: Counter[tuple[str, ...]] = Counter()
        for r in rows:
            weights[r.signature] += r.weight
        # one alignment serves every retained set: they drop the rarest
        # signatures, which progressive alignment aligns last anyway
        alignment = align(signatures, [weights[sig] for sig in signatures])
    return Prepared(rows, ordered, variants, signatures, alignment)


def _solve_format(
    counts: Counter[str],
    order: list[str] | None,
    index: PatternLookup,
    method: str,
    params: SolverParams,
    trace: list[Prepared] | None = None,
    identifiers: bool = False,
) -> Solution | None:
    """FMDV (or a variant) for values of one format, with repetitions in ``counts``.

    ``order``: :func:`training_order` of these values; ``trace``: see :func:`solve`;
    ``identifiers``: the values read by the identifier lexer, whose tokens the
    corpus has no patterns of (no index search: the cut priced by positions alone).
    """
    vertical = vertical_cuts(method)
    prepared = prepare(counts, order, method, params, identifiers)
    if trace is not None:
        trace.append(prepared)
    variants = prepared.variants
    spaces: list[SegmentSpace] = []
    evidence: list[SpaceEvidence] = []
    prior = index.prior
    memo = PlanMemo()
    planned: set[int] = set()
    model = generalization_model(index, params) if vertical else None
    for variant in variants:
        prepared.plan(variant, params, memo)
        for key, (space, _) in variant.segments.items():
            if id(space) in planned or identifiers:  # planned, or nothing to search for
                continue
            planned.add(id(space))
            ev = SpaceEvidence.from_texts(space, variant.evidence[key], params.condition)
            # the most evidence any hypothesis of the space can have bounds the search
            space.futile_below = prior.futile_below(ev.most, params.max_fpr)
            if ev.varies:
                space.futile_of = functools.partial(ev.futile, prior.futile_below, params.max_fpr)
            spaces.append(space)
            evidence.append(ev)
    lookups = search(spaces, index, min_cov=params.min_cov) if spaces else 0
    candidates = sum(len(s.found) for s in spaces)
    for space, ev in zip(spaces, evidence, strict=True):
        # below futile_below a pattern is infeasible whatever its estimate (the
        # bound of FprPrior.futile_below): a quarter of the patterns found on
        # long values, not estimated
        space.found = {
            p: PatternStats(prior.estimate(st, 0 if has_constant(p) else ev.n(p)), st.cov)
            for p, st in space.found.items()
            if st.cov >= space.futile_below
        }
    for variant in variants:
        chosen = _segmentation(variant, model, params)
        if chosen is not None:
            return Solution(method, (tuple(chosen),), variant.retained, lookups, candidates)
    return None


def _segmentation(
    variant: Variant, model: GeneralizationStats | None, params: SolverParams
) -> list[SegmentChoice] | None:
    """The chosen segments of a retained set, or None where nothing is feasible.

    Two candidates, the more specific of which wins
    (:func:`~autovalidate.solver.dp.specificity_key`; a tie goes to the first):

    * the paper's cut: the DP over every segment's best pattern by FPR_T,
      delimiters as literals (Eq. 8-11 with the slack), the whole value one of
      its segments; in a value of more than one token a segment's best is
      the most specific pattern within the slack of its least FPR_T
      (:meth:`~autovalidate.solver.search.SegmentSpace.best`), as the cut is
      the most specific within the slack of the least Σ FPR_T; with position
      statistics, a pattern fixing a width (or a constant) where the training
      shows at most 3 texts is feasible only if the corpus's positions kept
      such widths (:func:`width_admitted`);
    * with position statistics (``model``), a cut of parts priced by
      positions (:func:`position_choices`), its first segment carrying the
      retained set's shape risk (:func:`shape_risk`), whose total is within
      ``max_position_risk``, by the same DP with the slack scaled to that
      budget, its optional units priced as repetitions
      (:func:`repetitions`).

    Beyond the paper: a part of a record whose corpus columns are impure (the
    ``00`` minutes of a timestamp, as a column, are two-digit numbers of a
    numeric column of mixed widths) gets a constraint from how such positions
    generalized in the corpus, where the paper's cut abstains or keeps only
    ``<digit>+``; where the corpus has evidence for a more specific part
    (``<hex-lower>{8}`` of a GUID, ``<digit>{4}`` of a year), the paper's cut
    stays.

    A value of one token (a hash, an id) is priced the same way, as one
    position: the paper's pattern stands beside the option the position
    statistics allow (:func:`_single_position`). That is the back-off of a
    pattern the corpus has no columns of (a SHA-256 column's
    ``<hex-lower>{64}`` on a lake without one): its risk is the shape risk of
    the column plus the risk of the option at a position of its class, width
    and diversity, learned from the corpus's records (issue 29, item 2).
    """
    corpus: list[SegmentChoice] = []
    refusals: dict[frozenset[Token], frozenset[str]] = {}
    for (s, e), (space, optional) in variant.segments.items():
        admit = None
        if model is not None:
            admit = width_admitted(space, variant.texts[(s, e)], model, params, refusals)
        best = space.best(
            max_fpr=params.max_fpr,
            min_cov=max(1, params.min_cov),
            objective=params.objective,
            # a segment's share of the cut's budget: the slack of the cut's own choice
            slack=params.fpr_slack if variant.width > 1 else math.inf,
            admit=admit,
        )
        if best is not None:
            corpus.append(SegmentChoice(s, e, best, optional))
    spanned = {(c.start, c.end) for c in corpus}
    literals = [
        SegmentChoice(s, e, Hypothesis(literal, 0.0, 0, evidence="literal"))
        for (s, e), literal in variant.delimiters.items()
    ]
    paper = best_segmentation(
        variant.width,
        corpus + [c for c in literals if (c.start, c.end) not in spanned],
        max_fpr=params.max_fpr,
        slack=params.fpr_slack,
    )
    if model is None:
        return paper
    shape = shape_risk(variant, model)
    if beyond_budget(shape, params.max_position_risk):
        # every cut priced by positions carries the shape risk on its first
        # segment: none is feasible (prose, whose words grow new shapes)
        return paper
    whole = (0, variant.width - 1)
    parts = [
        choice
        for (s, e), (space, optional) in variant.segments.items()
        if (s, e) != whole or variant.width == 1
        for choice in position_choices(space, variant.texts[(s, e)], optional, model, s, params)
    ]
    priced = [dataclasses.replace(c, shape=shape) if c.start == 0 else c for c in parts + literals]
    budget = params.max_position_risk
    cut: list[SegmentChoice] | None
    if variant.width == 1:
        cut = _single_position(priced, budget, params.objective)
    else:
        slack = params.fpr_slack * budget / params.max_fpr if params.max_fpr else 0.0
        cut = best_segmentation(variant.width, priced, max_fpr=budget, slack=slack)
        if cut is not None:
            cut = repetitions(cut, variant, model, budget)
    found = [c for c in (paper, cut) if c is not None]
    return min(found, key=specificity_key) if found else None


def _single_position(
    choices: Sequence[SegmentChoice], budget: float, objective: str
) -> list[SegmentChoice] | None:
    """The option of a one-token value priced by positions, as a cut of one segment.

    Among the options whose risk (with the shape risk) is within ``budget``,
    the objective's choice, as :meth:`SegmentSpace.best` makes it for the
    paper's hypotheses: ``"coverage"``, the most specific (the deepest level,
    then the least risk); ``"fpr"``, the least risk (then the deepest).
    None when no option fits.
    """
    fits = [c for c in choices if c.cost <= budget]
    if not fits:
        return None
    if objective == "coverage":
        return [max(fits, key=lambda c: (c.hypothesis.level, -c.cost, c.hypothesis.pattern))]
    return [min(fits, key=lambda c: (c.cost, -c.hypothesis.level, c.hypothesis.pattern))]
