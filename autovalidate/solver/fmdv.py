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
import gc
import itertools
import operator
import re
import string
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, cast

from autovalidate.errors import ParameterError
from autovalidate.index.generalization import (
    REPEAT_BOUNDS,
    GeneralizationStats,
    repeat_bound,
    signature,
)
from autovalidate.index.stats import CONDITION_SIZES, PatternStats
from autovalidate.patterns.enumeration import MAX_TAU
from autovalidate.patterns.hierarchy import escape_literal
from autovalidate.patterns.render import MAX_REPEAT, pattern_regex, spell_segments
from autovalidate.patterns.tokens import Token, token_class, tokenize
from autovalidate.solver.alignment import Alignment, align
from autovalidate.solver.dp import SegmentChoice, best_segmentation, specificity_key
from autovalidate.solver.lengths import DEFAULT_MAX_SHORTFALL, bound_runs
from autovalidate.solver.lookup import PatternLookup
from autovalidate.solver.search import Hypothesis, SegmentSpace, position_slot, search

__all__ = ["METHODS", "OBJECTIVES", "Solution", "SolverParams", "solve"]

METHODS = ("fmdv", "fmdv-v", "fmdv-h", "fmdv-vh")
OBJECTIVES = ("fpr", "coverage")
#: Most retained sets an H variant tries (each drops one more rare group).
MAX_VARIANTS = 8
#: Most formats of a multi-format pattern (issue "pattern quality v2", item 5).
MAX_BRANCHES = 3
#: Fewest distinct values of a format that may be a branch: one value is a
#: constant, not a format (prose splits into "formats" of one sentence each).
MIN_BRANCH_DISTINCT = 2


@dataclass(frozen=True)
class SolverParams:
    """Parameters of the FMDV family.

    Attributes
    ----------
    max_fpr
        r, the largest admissible FPR_T (Σ over segments for vertical cuts),
        a fraction in [0, 1] (Eq. 6, 9, 14).
    min_cov
        m, the least admissible Cov_T of a pattern or segment (Eq. 7, 10, 15);
        values below 1 act as 1, since a pattern the corpus never matched has
        no FPR estimate.
    theta
        θ, the largest fraction of training values a horizontal cut may leave
        non-conforming, in [0, 1) (Eq. 16).
    tau
        τ, the most tokens of a pattern (FMDV) or segment (vertical cuts); at
        most the τ the index was built with.
    objective
        ``"fpr"``: among feasible patterns, the least FPR_T (Eq. 5, FMDV as
        stated); ``"coverage"``: the least Cov_T, i.e. the most specific
        feasible pattern (the paper's CMDV alternative, §2.3).
    condition
        Condition FPR_T on the training column
        (:meth:`~autovalidate.index.stats.FprPrior.estimate`): its retained
        values all match every hypothesis, n of them as evidence (the least
        evidenced position's distinct texts or runs in the training order,
        :func:`_evidence`, leaving out a position of one text where the
        hypothesis puts a one-case letter class of any length,
        :func:`_hypothesis_evidence`),
        which makes the corpus's impure columns of a pattern unlikely models
        of it; ``False``: the shrunk Eq. 4 alone.
    max_branches
        Most formats of a multi-format pattern, in [1, 3]; 1 turns the
        multi-format search off.
    max_tokens
        The most tokens of a value a pattern is inferred for, at least τ.
        Longer values (prose, free-text descriptions) count as
        non-conforming: the horizontal cut may leave up to θ of the values
        out, and a column with more gets no constraint.  A pattern of a value
        of T tokens needs at least T / τ segments whose FPR_T add up to at
        most r; on AV-bench no value above 18 tokens was ever kept, and
        aligning hundreds of prose tokens took seconds (issue "speed at lake
        scale").
    max_shortfall
        Most the bounds of a branch's ``+`` runs (from below, by the training
        values' shortest) may add to its Σ FPR, a fraction in [0, 1]; 0 sets
        no bound (:mod:`autovalidate.solver.lengths`; beyond the paper).
    generalize
        Price the parts of a vertical cut position by position with the
        index's generalization statistics
        (:mod:`autovalidate.index.generalization`, :func:`_position_choices`),
        and the whole value by its FPR_T; ``False``: every segment by its
        FPR_T, as the paper does (an ablation; also what an index without the
        statistics gets).
    max_position_risk
        The most a cut priced by positions may add up to (its shape risk and
        its positions' risks), a fraction in [0, 1]. The position risks are
        probabilities that a position breaks later (a union bound over the
        positions), so this is the budget of a false alarm: 0.05 keeps
        precision on the machine-generated query set B-M where it was
        (docs/auto-validate.md, "Parts of a record priced by positions").
    fpr_slack
        ε, a fraction in [0, 1]: the vertical cut takes the most specific
        segmentation (the deepest sum of hierarchy levels) whose Σ FPR_T is
        within ε of the least, and at most r
        (:func:`~autovalidate.solver.dp.best_segmentation`).
        Eq. 8 alone (ε = 0) cuts a GUID into ``<alphanum>+-`` (FPR_T 0.00007)
        rather than ``<hex-lower>{8}`` and ``-`` (0.0003), which lets case
        drift through. On AV-bench's B, ε = 0.001 and 0.01 change one rule,
        0.03 two, 0.05 three and 0.1 six, each tighter and still passing its
        test part, with the same precision and recall; 0.03 (r / 5) is the
        least that gives a column of 14 training GUIDs of the shared lake
        (whose conditioned estimates are larger) all five hexadecimal groups.

    The defaults were chosen on AV-bench over the shared lake
    (docs/auto-validate.md): r = 0.15, the largest of 0.1, 0.15 and 0.2 with
    precision at least 0.96 under the conditioned FPR_T (0.2 gave 0.954, 0.1
    the same recall as the unconditioned estimate); under min-FPR the general
    ``<letter>+`` beats ``<upper>{2}`` for state codes, losing recall that the
    coverage objective keeps at the same precision; and m = 1, since the
    estimate (:class:`~autovalidate.index.stats.FprPrior`) already weighs how
    many columns a pattern rests on (m = 10 gave the same precision and
    recall).
    """

    max_fpr: float = 0.15
    min_cov: int = 1
    theta: float = 0.1
    tau: int = 8
    objective: str = "coverage"
    condition: bool = True
    max_branches: int = 3
    max_tokens: int = 64
    fpr_slack: float = 0.03
    max_shortfall: float = DEFAULT_MAX_SHORTFALL
    generalize: bool = True
    max_position_risk: float = 0.05

    def check(self, index: PatternLookup) -> None:
        """Raise :class:`ParameterError` if a parameter is out of range for ``index``."""
        if not 0.0 <= self.max_fpr <= 1.0:
            raise ParameterError(f"r (max_fpr) must be in [0, 1], got {self.max_fpr}")
        if self.min_cov < 0:
            raise ParameterError(f"m (min_cov) must be at least 0, got {self.min_cov}")
        if not 0.0 <= self.theta < 1.0:
            raise ParameterError(f"theta must be in [0, 1), got {self.theta}")
        if not 1 <= self.tau <= MAX_TAU:
            raise ParameterError(f"tau must be in [1, {MAX_TAU}], got {self.tau}")
        if not 1 <= self.max_branches <= MAX_BRANCHES:
            raise ParameterError(
                f"max_branches must be in [1, {MAX_BRANCHES}], got {self.max_branches}"
            )
        if self.max_tokens < self.tau:
            raise ParameterError(
                f"max_tokens must be at least tau={self.tau}, got {self.max_tokens}"
            )
        if not 0.0 <= self.fpr_slack <= 1.0:
            raise ParameterError(f"fpr_slack must be in [0, 1], got {self.fpr_slack}")
        if not 0.0 <= self.max_position_risk <= 1.0:
            raise ParameterError(
                f"max_position_risk must be in [0, 1], got {self.max_position_risk}"
            )
        if not 0.0 <= self.max_shortfall <= 1.0:
            raise ParameterError(f"max_shortfall must be in [0, 1], got {self.max_shortfall}")
        if self.objective not in OBJECTIVES:
            raise ParameterError(
                f"objective must be one of {', '.join(OBJECTIVES)}; got {self.objective!r}"
            )
        if self.tau > index.tau:
            raise ParameterError(
                f"tau={self.tau} exceeds the index's tau={index.tau}: the index holds no "
                "longer patterns; rebuild it with a larger --tau"
            )


@dataclass(frozen=True)
class Solution:
    """What the solver chose for a column.

    Attributes
    ----------
    method
        One of :data:`METHODS`.
    branches
        The chosen segments in order (one, for FMDV and FMDV-H), per format:
        one format, or up to ``max_branches`` for a multi-format column.
    retained
        Fraction of the training values kept by the horizontal cut (1 without).
    lookups
        DuckDB lookup queries issued.
    candidates
        Hypothesis patterns whose statistics were fetched.
    """

    method: str
    branches: tuple[tuple[SegmentChoice, ...], ...]
    retained: float
    lookups: int
    candidates: int

    @property
    def segments(self) -> tuple[SegmentChoice, ...]:
        """Every branch's segments, in order (a single-format solution's segments)."""
        return tuple(s for branch in self.branches for s in branch)

    @property
    def pattern(self) -> str:
        """The canonical pattern: segments joined, ``(...)?`` optional, ``(...){0,k}`` repeated.

        A multi-format pattern spells its formats as ``(p1)|(p2)``.
        """
        spelled = [
            spell_segments([(s.hypothesis.pattern, s.most) for s in branch])
            for branch in self.branches
        ]
        return spelled[0] if len(spelled) == 1 else "|".join(f"({p})" for p in spelled)

    @property
    def regex(self) -> str:
        """The fully anchored portable regex (see :mod:`autovalidate.patterns.render`)."""
        return pattern_regex(
            branches=[[(s.hypothesis.pattern, s.most) for s in b] for b in self.branches]
        )

    @property
    def fpr(self) -> float:
        """Σ FPR_T over the segments; the largest over the formats of a multi-format one."""
        return max(sum(s.cost for s in branch) for branch in self.branches)


@dataclass
class _Row:
    value: str
    value_tokens: tuple[Token, ...]
    weight: int
    signature: tuple[str, ...]


@dataclass
class _Variant:
    rows: list[_Row]
    retained: float
    # filled by _plan
    width: int = 0
    segments: dict[tuple[int, int], tuple[SegmentSpace, bool]] = field(default_factory=dict)
    delimiters: dict[tuple[int, int], str] = field(default_factory=dict)
    #: segment -> training texts evidencing each of its positions (see _evidence)
    evidence: dict[tuple[int, int], tuple[int | None, ...]] = field(default_factory=dict)
    #: segment -> per position, its distinct training tokens (the position model's evidence)
    texts: dict[tuple[int, int], tuple[frozenset[Token], ...]] = field(default_factory=dict)


def solve(
    values: Sequence[str],
    index: PatternLookup,
    *,
    method: str = "fmdv-vh",
    params: SolverParams | None = None,
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

    Returns
    -------
    Solution or None
        ``None`` when no hypothesis is feasible (natural-language columns,
        too little corpus evidence): no constraint rather than a weak one.
        Where no single pattern is feasible but the values split into at most
        ``params.max_branches`` formats (by their separators) that each have a
        feasible pattern, a multi-format solution: one branch per format.
        Its ``+`` runs are then bounded from below where the corpus justifies
        it (``params.max_shortfall``, :func:`~autovalidate.solver.lengths.bound_runs`).

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
    order = _training_order(values)
    # the solver allocates some 10^4-10^5 short-lived, acyclic objects (tokens,
    # slots, keys, statistics); the cycle collections they trigger scan every
    # object of the caller's process too, which in a process holding much data
    # (AV-bench holds the lake's test values) cost as much as the solve itself
    with _no_cyclic_gc():
        solution = _solve_format(counts, order, index, method, params)
        if solution is None and params.max_branches >= 2:
            solution = _solve_formats(counts, order, index, method, params)
        if solution is None or params.max_shortfall <= 0:
            return solution
        bounded = bound_runs(
            solution.branches, list(counts), index, params.max_fpr, params.max_shortfall
        )
        return dataclasses.replace(solution, branches=bounded)


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
    tolerance = params.theta if method in ("fmdv-h", "fmdv-vh") else 0.0
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
    solutions = []
    for group in chosen:
        if len(group) < MIN_BRANCH_DISTINCT:
            return None
        in_group = None if order is None else _training_order([v for v in order if v in group])
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


def _solve_format(
    counts: Counter[str],
    order: list[str] | None,
    index: PatternLookup,
    method: str,
    params: SolverParams,
) -> Solution | None:
    """FMDV (or a variant) for values of one format, with repetitions in ``counts``.

    ``order``: :func:`_training_order` of these values.
    """
    n = sum(counts.values())
    rows = _rows(counts)
    vertical = method in ("fmdv-v", "fmdv-vh")
    horizontal = method in ("fmdv-h", "fmdv-vh")
    # values too long for a pattern are left out, as non-conforming ones
    rows = [r for r in rows if len(r.value_tokens) <= params.max_tokens]
    ordered: list[_Row] = []
    if order is not None:
        wanted = set(order)
        row_of = {r.value: r for r in rows if r.value in wanted}
        ordered = [row_of[v] for v in order if v in row_of]
    variants, signatures = _variants(rows, n, params.theta if horizontal else 0.0)
    alignment = None
    if vertical and variants:
        weights: Counter[tuple[str, ...]] = Counter()
        for r in rows:
            weights[r.signature] += r.weight
        # one alignment serves every retained set: they drop the rarest
        # signatures, which progressive alignment aligns last anyway
        alignment = align(signatures, [weights[sig] for sig in signatures])
    spaces: list[SegmentSpace] = []
    evidence: list[_SpaceEvidence] = []
    prior = index.prior
    memo = _PlanMemo()
    planned: set[int] = set()
    model = _generalization(index, params) if vertical else None
    for variant in variants:
        _plan(
            variant,
            tau=params.tau,
            alignment=alignment,
            signatures=signatures,
            memo=memo,
            ordered=ordered,
        )
        for key, (space, _) in variant.segments.items():
            if id(space) in planned:  # a segment another retained set has too
                continue
            planned.add(id(space))
            ev = _SpaceEvidence.from_texts(space, variant.evidence[key], params.condition)
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
            p: PatternStats(prior.estimate(st, 0 if _has_constant(p) else ev.n(p)), st.cov)
            for p, st in space.found.items()
            if st.cov >= space.futile_below
        }
    for variant in variants:
        chosen = _segmentation(variant, model, params)
        if chosen is not None:
            return Solution(method, (tuple(chosen),), variant.retained, lookups, candidates)
    return None


def _segmentation(
    variant: _Variant, model: GeneralizationStats | None, params: SolverParams
) -> list[SegmentChoice] | None:
    """The chosen segments of a retained set, or None where nothing is feasible.

    Two candidates, the more specific of which wins
    (:func:`~autovalidate.solver.dp.specificity_key`; a tie goes to the first):

    * the paper's cut: the DP over every segment's best pattern by FPR_T,
      delimiters as literals (Eq. 8-11 with the slack), the whole value one of
      its segments;
    * with position statistics (``model``), a cut of parts priced by
      positions (:func:`_position_choices`), its first segment carrying the
      retained set's shape risk (:func:`_shape_risk`), whose total is within
      ``max_position_risk``, by the same DP with the slack scaled to that
      budget, its optional units priced as repetitions
      (:func:`_repetitions`).

    Beyond the paper: a part of a record whose corpus columns are impure (the
    ``00`` minutes of a timestamp, as a column, are two-digit numbers of a
    numeric column of mixed widths) gets a constraint from how such positions
    generalized in the corpus, where the paper's cut abstains or keeps only
    ``<digit>+``; where the corpus has evidence for a more specific part
    (``<hex-lower>{8}`` of a GUID, ``<digit>{4}`` of a year), the paper's cut
    stays.
    """
    corpus: list[SegmentChoice] = []
    for (s, e), (space, optional) in variant.segments.items():
        best = space.best(
            max_fpr=params.max_fpr, min_cov=max(1, params.min_cov), objective=params.objective
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
    if model is None or variant.width == 1:
        return paper
    whole = (0, variant.width - 1)
    shape = _shape_risk(variant, model)
    parts = [
        choice
        for (s, e), (space, optional) in variant.segments.items()
        if (s, e) != whole
        for choice in _position_choices(space, variant.texts[(s, e)], optional, model, s, params)
    ]
    priced = [dataclasses.replace(c, shape=shape) if c.start == 0 else c for c in parts + literals]
    budget = params.max_position_risk
    slack = params.fpr_slack * budget / params.max_fpr if params.max_fpr else 0.0
    cut = best_segmentation(variant.width, priced, max_fpr=budget, slack=slack)
    if cut is not None:
        cut = _repetitions(cut, variant, model, budget)
    found = [c for c in (paper, cut) if c is not None]
    return min(found, key=specificity_key) if found else None


def _repetitions(
    cut: list[SegmentChoice], variant: _Variant, model: GeneralizationStats, budget: float
) -> list[SegmentChoice] | None:
    """Price the optional units of a cut, repeated once more than training showed or not.

    Alignment turns a list, a path or a dotted name of varying length
    (``a_b``, ``a_b_c``) into optional units, a separator and one token each
    (``<lower>+(_<lower>+)?(_<lower>+)?``), bounded at the most the training
    values had. Later values may have more; the corpus's repetition
    statistics say how often
    (:meth:`~autovalidate.index.generalization.GeneralizationStats.repeat_risk`).
    Per run of units with one separator, where the k units the training
    showed stay within ``budget`` with that risk added (to the cut's shape
    risk), the run is kept; otherwise it becomes one unit repeated up to the
    tightest bound of :data:`~autovalidate.index.generalization.REPEAT_BOUNDS`
    (2k + 1, then 10k + 9) whose repetition risk fits, its item the most
    specific option the run's tokens share within the budget. Where none
    fits, the cut is infeasible (None). Beyond the paper.
    """
    runs: list[list[int]] = []
    for i, c in enumerate(cut):
        sep = _unit_separator(c, variant)
        if sep is None:
            continue
        if runs and runs[-1][-1] == i - 1 and _unit_separator(cut[i - 1], variant) == sep:
            runs[-1].append(i)
        else:
            runs.append([i])
    out = list(cut)
    cost = sum(c.cost for c in out)
    for run in reversed(runs):  # right to left: replacing a run keeps earlier indexes
        sep = cast(str, _unit_separator(cut[run[0]], variant))
        most = max(r.value.count(sep) for r in variant.rows)
        kept = model.repeat_risk(most, 0)
        if cost + kept <= budget:
            out[0] = dataclasses.replace(out[0], shape=out[0].shape + kept)
            cost += kept
            continue
        pooled = frozenset(t for i in run for t in variant.texts[(cut[i].start, cut[i].end)][-1])
        slot = position_slot(pooled)
        if slot is None:
            return None
        kinds = {t.kind for t in pooled}
        kind = kinds.pop() if len(kinds) == 1 else "M"
        options = [
            (o, model.position_risk(kind, o, False, len(pooled)), slot.levels[o])
            for o in slot.options
        ]
        rest = cost - sum(cut[i].cost for i in run)
        # the tightest bound the budget allows, then the most specific item within it
        for bound in range(1, len(REPEAT_BOUNDS)):
            grows = model.repeat_risk(most, bound)
            fitting = [o for o in options if rest + grows + o[1] <= budget]
            if fitting:
                break
        else:
            return None
        option, risk, level = max(fitting, key=lambda o: (o[2], -o[1], o[0]))
        unit = SegmentChoice(
            cut[run[0]].start,
            cut[run[-1]].end,
            Hypothesis(escape_literal(sep) + option, risk, 0, level, evidence="positions"),
            optional=True,
            repeat=min(repeat_bound(most, bound), MAX_REPEAT),
        )
        out[run[0] : run[-1] + 1] = [unit]
        out[0] = dataclasses.replace(out[0], shape=out[0].shape + grows)
        cost = rest + grows + risk
    return out


def _unit_separator(choice: SegmentChoice, variant: _Variant) -> str | None:
    """The separator of an optional unit (symbols of one text each, then one token); else None."""
    if not choice.optional or choice.repeat != 1:
        return None
    texts = variant.texts.get((choice.start, choice.end))
    if not texts or len(texts) < 2 or any(t.kind == "S" for t in texts[-1]):
        return None
    head = texts[:-1]
    if any(len(t) != 1 or next(iter(t)).kind != "S" for t in head):
        return None
    sep = "".join(next(iter(t)).text for t in head)
    return None if sep.isspace() else sep


def _generalization(index: PatternLookup, params: SolverParams) -> GeneralizationStats | None:
    """The index's position and shape statistics, if the solver prices cuts by them."""
    model = getattr(index, "generalization", None)
    if not params.generalize or model is None or not model.positions:
        return None
    return cast(GeneralizationStats, model)


def _position_choices(
    space: SegmentSpace,
    texts: tuple[frozenset[Token], ...],
    optional: bool,
    model: GeneralizationStats,
    start: int,
    params: SolverParams,
) -> list[SegmentChoice]:
    """The choices a part of a vertical cut offers the DP, priced by positions (beyond the paper).

    A part of a composite value (the minutes of a timestamp, the ``100`` of
    ``100-000000775``) is not a column of the corpus, so its FPR_T says little
    about it; what does is how such positions kept their option from the
    training tenth to the rest in the corpus
    (:meth:`~autovalidate.index.generalization.GeneralizationStats.position_risk`,
    by the option's class and width and the distinct texts the training
    values show there). A hypothesis's risk is the sum over its letter and
    digit positions (symbols are literal): the union bound of Eq. 9, per
    position.

    * A single position every value has: every option of its slot with risk
      at most r, each a choice, so that the DP's specificity pass (within
      ``fpr_slack`` of the least Σ) trades a narrower option for its risk.
    * An optional part (some values lack it): the hypotheses no other one
      beats in both specificity (deepest sum of levels) and risk, with risk at
      most r, each a choice.
    * A part of several positions every value has offers nothing: its single
      positions do, and the delimiters.
    """
    end = start + len(texts) - 1
    if not optional:
        if len(texts) != 1:
            return []
        (tokens,) = texts
        only = next(iter(tokens))
        if only.kind == "S":
            return []
        slot = space.slots[0]
        out = []
        for option in sorted(slot.options):
            constant = len(tokens) == 1 and option == escape_literal(only.text)
            risk = model.position_risk(only.kind, option, constant, len(tokens))
            if risk <= params.max_fpr:
                h = Hypothesis(option, risk, 0, slot.levels[option], evidence="positions")
                out.append(SegmentChoice(start, start, h))
        return out
    # the trade between specificity and risk is the DP's: every hypothesis no
    # other one beats in both (the most specific at each risk), within r. Risks
    # and levels add up over positions, so the front of the product is built
    # position by position: per level sum, the least risk (and its pattern)
    best: dict[int, tuple[float, str]] = {0: (0.0, "")}
    for tokens, slot in zip(texts, space.slots, strict=True):
        step: dict[int, tuple[float, str]] = {}
        for level, (risk, pattern) in best.items():
            for option, cost, depth in _position_pricing(tokens, slot, model):
                key, value = level + depth, (risk + cost, pattern + option)
                if value[0] <= params.max_fpr and (key not in step or value < step[key]):
                    step[key] = value
        best = step
    front: list[tuple[str, float, int]] = []
    for level in sorted(best, reverse=True):
        risk, pattern = best[level]
        if not front or risk < front[-1][1]:
            front.append((pattern, risk, level))
    return [
        SegmentChoice(start, end, Hypothesis(p, risk, 0, level, evidence="positions"), True)
        for p, risk, level in front
    ]


def _position_pricing(
    tokens: frozenset[Token], slot: Any, model: GeneralizationStats
) -> list[tuple[str, float, int]]:
    """``(option, risk, level)`` of every option of a position's slot (a symbol: itself, free)."""
    only = next(iter(tokens))
    if only.kind == "S":
        return [(o, 0.0, 0) for o in slot.options]
    return [
        (
            o,
            model.position_risk(
                only.kind, o, len(tokens) == 1 and o == escape_literal(only.text), len(tokens)
            ),
            slot.levels[o],
        )
        for o in slot.options
    ]


def _shape_risk(variant: _Variant, model: GeneralizationStats) -> float:
    """The shape risk of a cut of this retained set: new signatures later (see the model)."""
    shapes = Counter[tuple[str, ...]]()
    for row in variant.rows:
        shapes[signature(row.value_tokens)] += row.weight
    top = shapes.most_common(1)[0][0]
    return model.shape_risk(len(variant.rows), len(shapes), "S " in top)


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


def _rows(counts: Counter[str]) -> list[_Row]:
    """The tokens and signature of every distinct value (the empty string has none: left out).

    The lexer (:func:`~autovalidate.patterns.tokens.tokenize`) cuts and labels
    tokens by character class alone (letter, digit, each symbol), so values
    of one shape (:data:`_SHAPE`) have tokens at the same offsets with the
    same kinds and signature: an ASCII value is cut where its shape's tokens
    are, tokenized once per shape (10^6 timestamps have a handful of shapes).
    Other values are tokenized one by one.  Linear in the number of values.
    """
    with _no_cyclic_gc():
        return _rows_of(counts)


@contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """Pause the cycle collector while building many acyclic tuples.

    Allocating 10^6 rows of tuples would run it over every live object again
    and again: half the time of :func:`_rows` at 10^6 values. Nests: only
    the outermost pause resumes the collector, and only if it was running.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _rows_of(counts: Counter[str]) -> list[_Row]:
    # equal tokens are one object (10^6 values of 9 tokens repeat most of them)
    pools: dict[str, dict[str, Token]] = {}
    shapes: dict[str, _Shape] = {}
    rows = []
    for value, weight in counts.items():
        if value.isascii():
            shape = value.translate(_SHAPE)
            cut = shapes.get(shape)
            if cut is None:
                cut = shapes[shape] = _Shape.of(tokenize(shape), pools)
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
            tokens = tokenize(value)
            signature = tuple(token_class(t.kind, t.text) for t in tokens)
        if tokens:  # the empty string has no tokens and no pattern but <all>
            rows.append(_Row(value, tokens, weight, signature))
    return rows


def _variants(
    rows: list[_Row], n: int, theta: float
) -> tuple[list[_Variant], list[tuple[str, ...]]]:
    """Retained sets of the horizontal cut, largest first: drop the rarest signature groups.

    Also returns the signatures from the heaviest group to the rarest (the
    order the retained sets drop them in, backwards).
    """
    groups: dict[tuple[str, ...], list[_Row]] = {}
    for row in rows:
        groups.setdefault(row.signature, []).append(row)
    ordered = sorted(groups.items(), key=lambda kv: (-sum(r.weight for r in kv[1]), kv[0]))
    variants: list[_Variant] = []
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
        variants.append(_Variant(every[:end], retained))
        dropped = ordered[len(ordered) - 1 - drop][1]
        end -= len(dropped)
        total -= sum(r.weight for r in dropped)
    return variants, [sig for sig, _ in ordered]


#: Most entries of the training order (:func:`_training_order`) read for the
#: runs of a position: a position needs 101 runs to saturate the estimate's
#: evidence (the largest conditioning size is 100 values, plus the first),
#: which a position that changes at all from row to row shows long before.
ORDER_PREFIX = 5_000
#: A position with more distinct texts than this has that much evidence
#: already: its runs are not counted.
_SATURATED = CONDITION_SIZES[-1] + 1


def _training_order(values: Sequence[str]) -> list[str] | None:
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
    rows of the segment's values, :func:`_training_order`; 0 where no order
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
def _has_constant(pattern: str) -> bool:
    """Whether a pattern keeps a letter or digit as a literal (a year, a prefix, a code).

    Such a hypothesis is not conditioned on the training column: a constant
    is a value, not a format, and the values of a column come in order (a
    batch of one year, of one prefix), not drawn independently, so many
    training values sharing it say little about the next batch.
    """
    return any(ch.isalnum() for ch in _CLASS_ELEMENT.sub("", pattern))


@dataclass
class _SpaceEvidence:
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
    ) -> _SpaceEvidence:
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
        """The evidence of a found pattern of the space (constants aside: :func:`_has_constant`)."""
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
class _PlanMemo:
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


def _plan(
    variant: _Variant,
    *,
    tau: int,
    alignment: Alignment | None,
    signatures: list[tuple[str, ...]],
    memo: _PlanMemo | None = None,
    ordered: Sequence[_Row] = (),
) -> None:
    """The hypothesis spaces of a retained set: one per admissible segment.

    ``alignment`` aligns ``signatures`` (all of them, heaviest first) for the
    vertical-cut methods; ``None`` plans a single whole-column segment.
    ``memo`` holds what the retained sets of one column share. ``ordered``:
    the rows of :func:`_training_order`, for the segments' evidence (none:
    their distinct texts alone).
    """
    memo = memo if memo is not None else _PlanMemo()
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
    variant.width = alignment.width
    # A space is a product over positions (SegmentSpace.of), so a segment's
    # space depends on the distinct tokens at each aligned column, not on the
    # rows: one pass over the rows collects them per signature, and each
    # segment then costs a pass over the signatures, not over the rows.
    by_signature: dict[tuple[str, ...], list[tuple[Token, ...]]] = {}
    tokens_of: dict[tuple[str, ...], list[frozenset[Token]]] = {}
    with _no_cyclic_gc():
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
    in_order: dict[tuple[int, ...], list[_Row]] = {}

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
