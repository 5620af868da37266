"""The parts of a vertical cut priced by how formats generalized in the corpus (index format 4).

Beyond the paper (Song & He 2021 price every segment by FPR_T, Eq. 8-9): a
part of a record is priced by the position statistics of
:mod:`autovalidate.index.generalization`, the cut by its shape risk, and a
unit whose separator repeats a varying number of times becomes a bounded
repetition. :func:`autovalidate.solver.fmdv` weighs such a cut against the
paper's.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable
from typing import Any, cast

from autovalidate.index.generalization import (
    REPEAT_BOUNDS,
    GeneralizationStats,
    option_class,
    repeat_bound,
)
from autovalidate.patterns.hierarchy import UNRESERVED_RUN, escape_literal
from autovalidate.patterns.render import MAX_REPEAT
from autovalidate.patterns.tokens import Token
from autovalidate.solver.dp import SegmentChoice
from autovalidate.solver.lookup import PatternLookup
from autovalidate.solver.params import SolverParams
from autovalidate.solver.search import Hypothesis, SegmentSpace, position_slot
from autovalidate.solver.variants import Variant

__all__ = [
    "generalization_model",
    "position_choices",
    "repetitions",
    "shape_risk",
    "width_admitted",
]


def repetitions(
    cut: list[SegmentChoice], variant: Variant, model: GeneralizationStats, budget: float
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
            (o, _kind_risk(model, kind, o, False, len(pooled)), slot.levels[o])
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


def _unit_separator(choice: SegmentChoice, variant: Variant) -> str | None:
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


def generalization_model(index: PatternLookup, params: SolverParams) -> GeneralizationStats | None:
    """The index's position and shape statistics, if the solver prices cuts by them."""
    model = getattr(index, "generalization", None)
    if not params.generalize or model is None or not model.positions:
        return None
    return cast(GeneralizationStats, model)


def position_choices(
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
        if all(t.kind == "S" for t in tokens):
            return []
        slot = space.slots[0]
        out = []
        for option in sorted(slot.options):
            risk = _position_risk(tokens, option, model)
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
        pricing = _position_pricing(tokens, slot, model)
        for level, (risk, pattern) in best.items():
            for option, cost, depth in pricing:
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


def width_admitted(
    space: SegmentSpace,
    texts: tuple[frozenset[Token], ...],
    model: GeneralizationStats,
    params: SolverParams,
    memo: dict[frozenset[Token], frozenset[str]],
) -> Callable[[str], bool] | None:
    """Whether a corpus pattern of a segment fixes only widths its training texts can vouch for.

    FPR_T (Eq. 4) is the impurity of a pattern over the corpus columns it
    covers, whatever their diversity, so the paper's cut keeps ``<digit>{1}``
    for the first octet of IP addresses whose training tenth starts ``1.``:
    corpus columns where ``<digit>{1}.<digit>+.<digit>+.<digit>+`` is evidence
    are version numbers, pure under it. Where the training values show at most
    3 texts at a position (:func:`~autovalidate.index.generalization.diversity_stratum`
    1 or 2-3), they cannot tell a fixed width from a free one; the position
    statistics can (issue 29, item 3): a pattern is admitted only if each
    such position's fixed width or constant breaks later at most
    ``max_position_risk`` of the time in the corpus
    (:meth:`~autovalidate.index.generalization.GeneralizationStats.position_risk`).
    None where every pattern of the space is admitted. ``memo``: the refused
    options of a position's tokens, shared by the segments of a retained set
    (a position lies in many). Beyond the paper.
    """
    refused: dict[int, frozenset[str]] = {}
    for i, (tokens, slot) in enumerate(zip(texts, space.slots, strict=True)):
        if len(tokens) > _FEW_TEXTS:
            continue
        if tokens not in memo:
            memo[tokens] = _refused_widths(tokens, slot.options, model, params.max_position_risk)
        if memo[tokens]:
            refused[i] = memo[tokens]
    return space.avoiding(refused) if refused else None


def _refused_widths(
    tokens: frozenset[Token], options: frozenset[str], model: GeneralizationStats, budget: float
) -> frozenset[str]:
    """The options fixing a width (or a constant) at these tokens' position beyond ``budget``."""
    if all(t.kind == "S" for t in tokens):
        return frozenset()
    out = set()
    for option in options:
        klass, width = option_class(option, _constant(tokens, option))
        if (klass == "constant" or width) and _position_risk(tokens, option, model) > budget:
            out.add(option)
    return frozenset(out)


#: The most distinct training texts at a position that cannot vouch for its width.
_FEW_TEXTS = 3


def _position_pricing(
    tokens: frozenset[Token], slot: Any, model: GeneralizationStats
) -> list[tuple[str, float, int]]:
    """``(option, risk, level)`` of every option of a position's slot (a symbol: itself, free)."""
    if all(t.kind == "S" for t in tokens):
        return [(o, 0.0, 0) for o in slot.options]
    return [(o, _position_risk(tokens, o, model), slot.levels[o]) for o in slot.options]


def _position_risk(tokens: frozenset[Token], option: str, model: GeneralizationStats) -> float:
    """The risk of ``option`` at a position of these training tokens, the largest over their kinds.

    The corpus learns a position's risk by its token kind; an aligned
    position of the solver can hold tokens of several (``30`` and ``Ad`` of
    ``30-40`` and ``Ad-in``), and the option must hold for each, so the
    largest of their risks prices it, the same whatever order the tokens
    come in.
    """
    constant = _constant(tokens, option)
    return max(
        _kind_risk(model, kind, option, constant, len(tokens)) for kind in {t.kind for t in tokens}
    )


def _kind_risk(
    model: GeneralizationStats, kind: str, option: str, constant: bool, distinct: int
) -> float:
    """:meth:`~GeneralizationStats.position_risk`, and an identifier token's (kind ``U``).

    An identifier token (:func:`~autovalidate.patterns.tokens.identifier_tokens`)
    is a maximal run of ``<unreserved>`` characters between other symbols, so
    a later value of a shape the training had holds such a run there: its
    ``<unreserved>+`` breaks only with the shape, which the cut's identifier
    shape risk prices (0 here). Its constant has no corpus statistics (1).
    """
    if kind == "U":
        return 0.0 if option == UNRESERVED_RUN else 1.0
    return model.position_risk(kind, option, constant, distinct)


def _constant(tokens: frozenset[Token], option: str) -> bool:
    """Whether ``option`` is the position's one training text."""
    return len(tokens) == 1 and option == escape_literal(next(iter(tokens)).text)


def shape_risk(variant: Variant, model: GeneralizationStats) -> float:
    """The shape risk of a cut of this retained set: new signatures later (see the model).

    Of a retained set read by the identifier lexer, the identifier shape risk
    (:meth:`~GeneralizationStats.identifier_shape_risk`); 1 where its most
    frequent shape is a single identifier (``<unreserved>+`` alone says
    nothing of a value's format).
    """
    shapes = Counter[tuple[str, ...]]()
    for row in variant.rows:
        shapes[row.shape] += row.weight
    most = shapes.most_common(1)[0][0]
    if variant.identifiers:
        if len(most) < 2:
            return 1.0
        return model.identifier_shape_risk(len(variant.rows), len(shapes), "S " in most)
    return model.shape_risk(len(variant.rows), len(shapes), most)
