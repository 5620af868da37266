"""What ruled out FMDV-VH's vertical cuts where it abstained: a census of a run's abstentions.

Recall is lost where a column gets no rule. The product says why for one
column (``infer_pattern(..., diagnose_abstention=True)``, the diagnosis
``suggest --column`` prints, :mod:`autovalidate.solver.diagnosis`); here that
diagnosis is counted over a query set, by BENCHMARK.md's slices and by
whether the training values hold words (a space: names, prose), so that a
run shows which cause costs the machine-generated columns their rules:

* ``shape risk``: the index's shape risk of the largest retained set exceeds
  ``max_position_risk``, and no position holds texts without a common option;
* ``uncovered positions``: some aligned position holds texts no one pattern
  element covers (two different symbols), and the shape risk is within budget;
* ``both``;
* ``FPR above r``: neither; every cut the structure allows is priced above
  its budget (the paper's cut above r, the cut priced by positions above
  ``max_position_risk``);
* ``no alignment``: no retained set is left to align (every value longer
  than the solver reads);
* ``all missing``: every training value is a null token or blank.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import autovalidate
from autovalidate.pattern_inference import NoPatternReason, infer_pattern
from benchmarks.avbench.protocol import Case

__all__ = ["CAUSES", "cause", "census"]

CAUSES = (
    "shape risk",
    "uncovered positions",
    "both",
    "FPR above r",
    "no alignment",
    "all missing",
)


def cause(case: Case, index: autovalidate.PatternIndex, method: str = "fmdv-vh") -> str:
    """The cause (one of :data:`CAUSES`) of ``method``'s abstention on ``case``.

    Raises
    ------
    ValueError
        If ``method`` gives the case a rule (it did not abstain).
    """
    got = infer_pattern(case.train, index, method=method, diagnose_abstention=True)
    if got.constraint is not None:
        raise ValueError(f"{method} gives case {case.idx} a rule: no abstention to explain")
    if got.reason is NoPatternReason.ALL_MISSING:
        return "all missing"
    found = got.diagnosis
    if found is None:
        return "no alignment"
    shape, uncovered = found.shape_beyond_budget, found.uncovered_count > 0
    if shape and uncovered:
        return "both"
    return "shape risk" if shape else "uncovered positions" if uncovered else "FPR above r"


def census(
    cases: Sequence[Case], causes: Iterable[tuple[int, str]], repetitive: Iterable[int]
) -> dict[str, Any]:
    """The abstentions counted by cause, slice and words.

    Parameters
    ----------
    cases
        The query set.
    causes
        ``(case position, cause)`` per abstention (:func:`cause`).
    repetitive
        The positions of the repetitive slice (at most 3 distinct training values).

    Returns
    -------
    dict
        ``abstentions`` (their number) and ``causes``: per cause, the columns
        of each slice (``repetitive``, ``varied``) with and without words
        (``words``: a training value holds a space), and the total.
    """
    rep = set(repetitive)
    counts: Counter[tuple[str, str, bool]] = Counter()
    for i, why in causes:
        words = any(v is not None and " " in v for v in cases[i].train)
        counts[(why, "repetitive" if i in rep else "varied", words)] += 1
    table = {
        why: {
            f"{part}, {'words' if words else 'no words'}": counts[(why, part, words)]
            for part in ("repetitive", "varied")
            for words in (False, True)
        }
        | {"total": sum(n for (w, _, _), n in counts.items() if w == why)}
        for why in CAUSES
    }
    return {"abstentions": sum(counts.values()), "causes": table}
