"""How much an AV-bench number moves by chance: bootstrap intervals and paired differences.

The query sets are samples of columns (1000 of B, 600 of B-M), so every
precision, recall and F1 has sampling noise. It is measured by the
nonparametric bootstrap over query columns (Efron & Tibshirani, *An
Introduction to the Bootstrap*, 1993, ch. 13, percentile intervals): the
columns are drawn with replacement :data:`REPLICATES` times (seeded), P and R
are the means over the drawn columns and F1 is computed from them, as
:func:`~benchmarks.avbench.protocol.summarize` does. Two configurations
scored on the same columns are compared *paired*: each replicate draws the
same columns for both, so the interval of the difference leaves out the
columns' own spread (most columns score the same under both).

A solver change is adopted when F1 on B-M rises beyond its paired interval
and precision on B-M and on leave-source-out B does not fall beyond theirs
(``docs/avbench.md``, "Deciding").
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from benchmarks.avbench.protocol import CaseScore

__all__ = ["REPLICATES", "f1_score", "interval", "paired"]

#: Bootstrap replicates; 2000 keeps the 2.5% and 97.5% percentiles within about
#: 0.002 of their limit on 600 columns.
REPLICATES = 2000
SEED = 0


def _arrays(scores: Sequence[CaseScore]) -> tuple[np.ndarray, np.ndarray]:
    return (
        np.array([s.precision for s in scores], dtype=float),
        np.array([s.recall for s in scores], dtype=float),
    )


def f1_score(p: np.ndarray, r: np.ndarray) -> np.ndarray:
    """F1 = 2PR / (P + R) elementwise, 0 where P + R = 0."""
    total = p + r
    return np.divide(2 * p * r, total, out=np.zeros_like(total), where=total > 0)


def _draws(n: int, replicates: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, n, size=(replicates, n))


def _band(x: np.ndarray) -> list[float]:
    low, high = np.percentile(x, [2.5, 97.5])
    return [float(low), float(high)]


def interval(
    scores: Sequence[CaseScore], *, replicates: int = REPLICATES, seed: int = SEED
) -> dict[str, list[float]]:
    """95% percentile intervals of P, R and F1 over the bootstrap of the query columns.

    Returns
    -------
    dict
        ``{"precision": [low, high], "recall": [...], "f1": [...]}``, fractions
        in [0, 1]; empty lists where there are no scores.
    """
    if not scores:
        return {"precision": [], "recall": [], "f1": []}
    p, r = _arrays(scores)
    draws = _draws(len(scores), replicates, seed)
    bp, br = p[draws].mean(axis=1), r[draws].mean(axis=1)
    return {"precision": _band(bp), "recall": _band(br), "f1": _band(f1_score(bp, br))}


def paired(
    new: Sequence[CaseScore],
    old: Sequence[CaseScore],
    *,
    replicates: int = REPLICATES,
    seed: int = SEED,
) -> dict[str, dict[str, float | list[float]]]:
    """The difference new - old of P, R and F1, with its paired 95% bootstrap interval.

    Both lists score the same query columns in the same order.

    Returns
    -------
    dict
        Per metric: ``{"diff": d, "interval": [low, high]}``; a difference whose
        interval excludes 0 is beyond the sampling noise of the query set.

    Raises
    ------
    ValueError
        If the lists differ in length.
    """
    if len(new) != len(old):
        raise ValueError(f"paired scores differ in length: {len(new)} vs {len(old)}")
    pn, rn = _arrays(new)
    po, ro = _arrays(old)
    draws = _draws(len(new), replicates, seed)
    out: dict[str, dict[str, float | list[float]]] = {}
    bpn, brn = pn[draws].mean(axis=1), rn[draws].mean(axis=1)
    bpo, bro = po[draws].mean(axis=1), ro[draws].mean(axis=1)
    whole = {
        "precision": (pn.mean() - po.mean(), bpn - bpo),
        "recall": (rn.mean() - ro.mean(), brn - bro),
        "f1": (
            float(f1_score(np.array([pn.mean()]), np.array([rn.mean()]))[0])
            - float(f1_score(np.array([po.mean()]), np.array([ro.mean()]))[0]),
            f1_score(bpn, brn) - f1_score(bpo, bro),
        ),
    }
    for metric, (diff, boot) in whole.items():
        out[metric] = {"diff": float(diff), "interval": _band(boot)}
    return out
