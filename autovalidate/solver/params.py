"""The solver's parameters and its solution (Song & He 2021, §2.3-§4; Eq. 5-16)."""

from __future__ import annotations

from dataclasses import dataclass

from autovalidate.errors import ParameterError
from autovalidate.patterns.enumeration import MAX_TAU
from autovalidate.patterns.render import Segments, pattern_regex, spell_segments
from autovalidate.solver.dp import SegmentChoice
from autovalidate.solver.lengths import DEFAULT_MAX_SHORTFALL
from autovalidate.solver.lookup import PatternLookup

__all__ = [
    "MAX_BRANCHES",
    "METHODS",
    "OBJECTIVES",
    "Solution",
    "SolverParams",
    "horizontal_cuts",
    "vertical_cuts",
]

METHODS = ("fmdv", "fmdv-v", "fmdv-h", "fmdv-vh")
OBJECTIVES = ("fpr", "coverage")
#: Most formats of a multi-format pattern (issue "pattern quality v2", item 5).
MAX_BRANCHES = 3


def vertical_cuts(method: str) -> bool:
    """Whether a method of :data:`METHODS` segments values (FMDV-V, FMDV-VH: §3)."""
    return method in ("fmdv-v", "fmdv-vh")


def horizontal_cuts(method: str) -> bool:
    """Whether a method of :data:`METHODS` tolerates non-conforming values (FMDV-H, FMDV-VH: §4)."""
    return method in ("fmdv-h", "fmdv-vh")


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
        (:mod:`autovalidate.index.generalization`, :func:`position_choices`),
        and the whole value by its FPR_T, a value of one token also as one
        position (the back-off of a pattern the corpus has no columns of);
        ``False``: every segment by its FPR_T, as the paper does (an
        ablation; also what an index without the statistics gets).
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
        The same ε bounds each segment's choice under the coverage objective
        in a value of more than one token (the most specific pattern within ε
        of the segment's least FPR_T, not up to r): on the machine-data query
        set B-M, F1 +0.009 [+0.003, +0.018] at the same precision
        (docs/auto-validate.md, "A segment's choice within the slack").

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

    def tolerance(self, method: str) -> float:
        """The fraction of training values ``method`` may leave non-conforming: θ or 0 (Eq. 16)."""
        return self.theta if horizontal_cuts(method) else 0.0

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
        spelled = [spell_segments(branch) for branch in self.forms]
        return spelled[0] if len(spelled) == 1 else "|".join(f"({p})" for p in spelled)

    @property
    def regex(self) -> str:
        """The fully anchored portable regex (see :mod:`autovalidate.patterns.render`)."""
        return pattern_regex(branches=self.forms)

    @property
    def forms(self) -> list[Segments]:
        """Each branch as ``(form, most)`` segments (a render ``Segments``)."""
        return [[(s.form, s.most) for s in branch] for branch in self.branches]

    @property
    def fpr(self) -> float:
        """Σ FPR_T over the segments; the largest over the formats of a multi-format one."""
        return max(sum(s.cost for s in branch) for branch in self.branches)
