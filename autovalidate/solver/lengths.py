r"""Run-length lower bounds: a chosen pattern's ``+`` runs kept as long as training had them.

The generalization hierarchy (§2.1) widens a run either to its exact width
(``<digit>{5}``) or to any length (``<digit>+``).  Where the widths vary,
``+`` lets a truncated field (``80331`` -> ``80``) or a lost zero padding
(``007`` -> ``7``) through.  This step (beyond the paper) bounds such runs
from below by the shortest the training values have them
(``<digit>{2,}``), where the corpus says the bound holds.

**Estimate.** For each pattern p with ``+`` runs the index holds, per bound
k = 2, 3, 4, 5 and 6+, ``short_cov_{k}`` and ``short_sum_{k}``
(:class:`~autovalidate.index.stats.RunShortfall`): over the corpus columns
whose training prefix (their first
:data:`~autovalidate.patterns.enumeration.TRAIN_FRACTION`) has at least
:data:`~autovalidate.patterns.enumeration.MIN_TRAINED_TEXTS` distinct values
matching p and sets the bound k, the summed fraction of their later values
that match p with a run shorter than the prefix had it.  Short_T(p, k), their
mean pooled with :data:`PRIOR_COLUMNS` pseudo-columns at :data:`PRIOR_RATE`
(a Beta prior's strength and mean, so that a stratum of a handful of columns
is not trusted blindly), is the share of a column's values the bound turns
non-conforming: the bounded segment's FPR estimate is FPR_T(p) + Short_T(p, k),
on the scale of Eq. 4.  k is the largest of the segment's runs' bounds.

**Choice.** Segments are bounded one at a time, least Short_T first, while
their Σ Short_T stays within ``max_shortfall`` and the branch's Σ FPR within
r (Eq. 9); a segment whose shortest runs are all 1 gains nothing and is left
as it is.  A bound needs at least
:data:`~autovalidate.patterns.enumeration.MIN_TRAINED_TEXTS` distinct training
values matching the branch: one value shows no variation to bound, as a
single value evidences nothing in the FPR conditioning.  Every training value
that matched the pattern matches the bounded one (each run's bound is the
least it took), so θ_C is unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

import regex

from autovalidate.patterns.enumeration import MIN_TRAINED_TEXTS
from autovalidate.patterns.render import bounded_pattern, quantified, render_body, segment_body
from autovalidate.solver.dp import SegmentChoice
from autovalidate.solver.lookup import PatternLookup

__all__ = ["DEFAULT_MAX_SHORTFALL", "PRIOR_COLUMNS", "PRIOR_RATE", "bound_runs"]

#: Prior of Short_T: pseudo-columns, and their rate (a fraction in [0, 1]).
PRIOR_COLUMNS = 5
PRIOR_RATE = 0.05
#: Default of the most the bounds of one branch may add to its FPR, Σ Short_T
#: (a fraction in [0, 1]; ``SolverParams.max_shortfall``).
DEFAULT_MAX_SHORTFALL = 0.003

Branch = tuple[SegmentChoice, ...]


def _shortest(branch: Branch, texts: Iterable[str]) -> list[list[int]] | None:
    """Per segment, the shortest length of each ``+`` run over the texts matching the branch.

    ``None`` when fewer than :data:`MIN_TRAINED_TEXTS` texts match.  An optional
    segment's runs count over the texts that have it, a repeated segment's
    over every occurrence (a text with the segment twice matches, and its
    second occurrence's runs bound the segment as much as its first). A
    segment with parts of its own (a list's repeated item) has no runs here:
    it is left unbounded.
    """
    parts = []
    runs_of = []
    for s in branch:
        if s.parts:
            body = segment_body(s.parts)
        else:
            body = render_body(s.hypothesis.pattern, capture_runs=True)
        parts.append(quantified(body, s.most))
        runs_of.append(regex.compile(body).groups)  # one capturing group per + run
    rx = regex.compile("".join(parts))
    total = sum(runs_of)
    least = [0] * total
    matched = 0
    for text in texts:
        m = rx.fullmatch(text)
        if m is None:
            continue
        matched += 1
        for g in range(total):
            for run in m.captures(g + 1):  # every repetition's, not only the last
                if least[g] == 0 or len(run) < least[g]:
                    least[g] = len(run)
    if matched < MIN_TRAINED_TEXTS:
        return None
    out, start = [], 0
    for k in runs_of:
        out.append(least[start : start + k])
        start += k
    return out


def bound_runs(
    branches: Sequence[Branch],
    texts: Sequence[str],
    index: PatternLookup,
    max_fpr: float,
    max_shortfall: float,
) -> tuple[Branch, ...]:
    """The branches with ``+`` runs bounded from below where the corpus justifies it.

    Parameters
    ----------
    branches
        A solution's branches (segments in order).
    texts
        The distinct training values.
    index
        Answers :meth:`~autovalidate.solver.lookup.PatternLookup.shortfall`.
    max_fpr
        r: a branch's Σ FPR, bounds included, stays within it (a fraction).
    max_shortfall
        Most a branch's bounds may add to its Σ FPR, Σ Short_T (a fraction).

    Returns
    -------
    tuple of branches
        A bounded segment's hypothesis has the bounded pattern and FPR
        FPR_T + Short_T (pooled with the prior); the others are unchanged.
    """
    wanted = [
        s.hypothesis.pattern
        for b in branches
        for s in b
        if ">+" in s.hypothesis.pattern and not s.parts
    ]
    if not wanted:
        return tuple(branches)
    evidence = index.shortfall(wanted)
    if not evidence:
        return tuple(branches)
    out = []
    for branch in branches:
        least = None
        if any(s.hypothesis.pattern in evidence for s in branch):
            least = _shortest(branch, texts)
        if least is None:
            out.append(tuple(branch))
            continue
        budget = min(max_shortfall, max_fpr - sum(s.cost for s in branch))
        rates = {}
        for i, s in enumerate(branch):
            st = evidence.get(s.hypothesis.pattern)
            k = max(least[i], default=0)
            if st is not None and k >= 2:
                rates[i] = st.rate(k, PRIOR_COLUMNS, PRIOR_RATE)
        chosen = list(branch)
        for i in sorted(rates, key=lambda i: (rates[i], i)):
            if rates[i] > budget + 1e-12:
                break
            budget -= rates[i]
            h = branch[i].hypothesis
            bounded = bounded_pattern(h.pattern, least[i])
            chosen[i] = replace(
                branch[i], hypothesis=replace(h, pattern=bounded, fpr=h.fpr + rates[i])
            )
        out.append(tuple(chosen))
    return tuple(out)
