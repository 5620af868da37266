"""Why a column gets no vertical cut: what its largest retained set shows a user.

An abstention of FMDV-V/VH (:func:`~autovalidate.solver.fmdv.solve` returning
``None``) has two causes a user can act on or at least understand, beside
segments whose corpus evidence puts every cut above r:

* **Shape risk.** A cut priced by positions carries the share of later
  values the index's generalization statistics expect in a shape (token
  signature) the training values do not show
  (:meth:`~autovalidate.index.generalization.GeneralizationStats.shape_risk`);
  above ``max_position_risk`` no such cut is feasible. Prose, whose words
  keep making new shapes, ends here, and so do URLs whose paths vary.
* **Positions no element covers.** After alignment, an aligned position
  whose texts share no option of the generalization hierarchy (two
  different symbols, ``.`` and ``_`` of ``mary.k@...`` and ``a_b@...``; a
  symbol and a letter) belongs to no segment: no cut spans the values.

The solver hands over the plan it made (``solve(..., trace=[])``): the
diagnosis reads it and searches nothing, so saying why costs next to
nothing beside the solve.
"""

from __future__ import annotations

from dataclasses import dataclass

from autovalidate.solver.fmdv import Prepared
from autovalidate.solver.lookup import PatternLookup
from autovalidate.solver.params import SolverParams
from autovalidate.solver.positions import generalization_model, shape_risk
from autovalidate.wording import counted

__all__ = ["Diagnosis", "diagnose"]

#: Texts shown per uncovered position, and uncovered positions shown.
MAX_SHOWN = 3


@dataclass(frozen=True)
class Diagnosis:
    """What the largest retained set of an abstaining column shows.

    Attributes
    ----------
    retained
        The fraction of the values in that set, in (0, 1]: all of them but
        those longer than the solver reads (``SolverParams.max_tokens``).
    shapes
        Its distinct token signatures (the shapes of
        :attr:`~autovalidate.solver.variants.Row.shape`).
    shape_risk
        The shape risk a cut priced by positions would carry, a fraction in
        [0, 1]; ``None`` where the index has no generalization statistics
        (or ``generalize`` is off).
    max_position_risk
        The budget it is compared with (:class:`SolverParams`).
    uncovered
        Aligned positions no segment covers, each as up to :data:`MAX_SHOWN`
        of its distinct texts, sorted; at most :data:`MAX_SHOWN` positions.
    uncovered_count
        How many aligned positions no segment covers.
    """

    retained: float
    shapes: int
    shape_risk: float | None
    max_position_risk: float
    uncovered: tuple[tuple[str, ...], ...]
    uncovered_count: int

    @property
    def shape_beyond_budget(self) -> bool:
        """Whether the shape risk alone rules out every cut priced by positions."""
        return self.shape_risk is not None and self.shape_risk > self.max_position_risk

    def to_dict(self) -> dict[str, object]:
        """The diagnosis as ``--json`` prints it (fractions in [0, 1])."""
        return {
            "retained": self.retained,
            "shapes": self.shapes,
            "shape_risk": self.shape_risk,
            "max_position_risk": self.max_position_risk,
            "uncovered_positions": self.uncovered_count,
            "uncovered_texts": [list(texts) for texts in self.uncovered],
        }

    @property
    def lines(self) -> list[str]:
        """What it says, one finding a line; empty where neither cause shows."""
        out = []
        if self.shape_beyond_budget:
            assert self.shape_risk is not None
            out.append(
                f"the values take {counted(self.shapes, 'shape')}, and the index expects "
                f"{self.shape_risk:.1%} of later values in a shape they do not show, above "
                f"max_position_risk={self.max_position_risk}: no cut priced by positions"
            )
        if self.uncovered_count:
            shown = "; ".join(" or ".join(repr(t) for t in texts) for texts in self.uncovered)
            more = self.uncovered_count - len(self.uncovered)
            out.append(
                f"{counted(self.uncovered_count, 'aligned position')} of the values "
                f"{'holds' if self.uncovered_count == 1 else 'hold'} texts that no one element "
                f"of the pattern language covers ({shown}{f'; {more} more' if more else ''})"
            )
        return out


def diagnose(prepared: Prepared, index: PatternLookup, params: SolverParams) -> Diagnosis | None:
    """The diagnosis of the largest retained set of a column's plan.

    Parameters
    ----------
    prepared
        The whole column's plan, as :func:`~autovalidate.solver.fmdv.solve`
        traced it (``trace=``): its retained sets planned already.
    index
        The index ``solve`` was given.
    params
        The parameters ``solve`` was given.

    Returns
    -------
    Diagnosis or None
        ``None`` for a method without vertical cuts (no alignment), or
        values of which no retained set is left (every value longer than the
        solver reads).
    """
    if not prepared.variants or prepared.alignment is None:
        return None
    variant = prepared.variants[0]
    if not variant.width:  # not planned by the solver
        prepared.plan(variant, params)
    model = generalization_model(index, params)
    covered = {c for s, e in [*variant.segments, *variant.delimiters] for c in range(s, e + 1)}
    uncovered = [c for c in range(variant.width) if c not in covered]
    shown = []
    for c in uncovered[:MAX_SHOWN]:
        texts = {
            row.value_tokens[at].text
            for row in variant.rows
            if (at := variant.positions[row.signature][c]) is not None
        }
        shown.append(tuple(sorted(texts)[:MAX_SHOWN]))
    return Diagnosis(
        retained=variant.retained,
        shapes=len({row.shape for row in variant.rows}),
        shape_risk=None if model is None else shape_risk(variant, model),
        max_position_risk=params.max_position_risk,
        uncovered=tuple(shown),
        uncovered_count=len(uncovered),
    )
