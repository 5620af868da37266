"""Calibration of the estimated FPR: what the solver expected of its rules against what they did.

Every FMDV rule carries its estimated FPR (``constraint.fpr``: Σ FPR_T over
its segments, the largest over the formats of a multi-format rule). On a
query set whose sources the index never saw (B-M, leave-source-out B), each
rule meets its column's own later values (the test part), so the estimate
can be compared with what happened there. The rules are cut into deciles of
their estimate (equal counts, ties kept together), and each decile reports:

* ``estimate``: the mean estimated FPR;
* ``failed``: the share of its rules that fail their own test part, i.e.
  1 - precision (the rule-level false-alarm rate a user meets: a batch of
  clean data rejected);
* ``nonconforming``: the mean share of the test part's values the rule's
  regex rejects (the value-level false-positive rate of Eq. 4's reading of
  FPR_T, missing values not counted).

A decile of at least :data:`MIN_RULES` rules is *calibrated* when
``|estimate - failed|`` ≤ :data:`TOLERANCE`.

A decile of 30 to 90 rules is a small sample, so each decile also says how
far its failures are from what a calibrated estimate predicts. If every rule
failed independently with its own estimate as the probability, a decile's
failures would follow the Poisson binomial distribution of its estimates
(Hong, "On computing the distribution function for the Poisson binomial
distribution", CSDA 59, 2013; computed exactly here by convolution):

* ``p_value``: the exact two-sided test of the observed failures under that
  distribution (the probability of an outcome no likelier than the one
  seen): a small value is a miscalibration beyond the decile's noise;
* ``pass_chance``: the probability that a calibrated estimate's decile would
  be within :data:`TOLERANCE`, and for the table, the product over the judged
  deciles: the chance that a perfectly calibrated estimate passes the
  table's test at all on this many rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from benchmarks.avbench.protocol import Counts, Rule

__all__ = ["MIN_RULES", "TOLERANCE", "calibration"]

DECILES = 10
#: Fewest rules for a decile to be judged.
MIN_RULES = 30
#: Largest gap between a decile's mean estimate and its failure rate that is calibrated.
TOLERANCE = 0.05


def calibration(
    rules: Sequence[Rule | None], precision: Sequence[int], counts: dict[tuple, Counts]
) -> dict[str, Any]:
    """The calibration table of one method's rules (see the module docstring).

    Parameters
    ----------
    rules
        The method's rule per case (None: abstention); only product rules
        (``decision="constraint"``, which carry ``constraint.fpr``) count.
    precision
        P_A(C_i) per case: 1 if the rule passes its own test part.
    counts
        The rule counts of :class:`~benchmarks.avbench.protocol.RuleCounter`.

    Returns
    -------
    dict
        ``deciles`` (a row per decile: ``rules``, ``low``/``high`` estimate,
        ``estimate``, ``failed``, ``nonconforming``, ``judged``,
        ``calibrated``, ``p_value``, ``pass_chance``), ``rules``,
        ``estimate``/``failed``/``nonconforming`` over all rules,
        ``calibrated``: whether every judged decile is, and ``pass_chance``:
        the chance a calibrated estimate passes every judged decile (both None
        when no decile has :data:`MIN_RULES` rules).
    """
    rows = []
    for i, rule in enumerate(rules):
        if rule is None or rule.constraint is None:
            continue
        c = counts[rule.key()]
        share = c.bad_test[i] / c.n_test[i] if c.n_test[i] else 0.0
        rows.append((float(rule.constraint.fpr), 1 - precision[i], share))
    rows.sort(key=lambda row: row[0])
    deciles = []
    start = 0
    n = len(rows)
    for q in range(1, DECILES + 1):
        end = round(q * n / DECILES)
        while 0 < end < n and rows[end][0] == rows[end - 1][0]:
            end += 1  # ties stay in one decile
        if end <= start:
            continue
        part = rows[start:end]
        start = end
        estimate = sum(r[0] for r in part) / len(part)
        failed = sum(r[1] for r in part) / len(part)
        judged = len(part) >= MIN_RULES
        p_value, pass_chance = _noise(
            [r[0] for r in part], estimate, round(sum(r[1] for r in part))
        )
        deciles.append(
            {
                "rules": len(part),
                "low": part[0][0],
                "high": part[-1][0],
                "estimate": estimate,
                "failed": failed,
                "nonconforming": sum(r[2] for r in part) / len(part),
                "judged": judged,
                "calibrated": abs(estimate - failed) <= TOLERANCE if judged else None,
                "p_value": p_value,
                "pass_chance": pass_chance,
            }
        )
    return {
        "rules": n,
        "estimate": sum(r[0] for r in rows) / n if n else float("nan"),
        "failed": sum(r[1] for r in rows) / n if n else float("nan"),
        "nonconforming": sum(r[2] for r in rows) / n if n else float("nan"),
        "deciles": deciles,
        "calibrated": (
            all(d["calibrated"] for d in deciles if d["judged"])
            if any(d["judged"] for d in deciles)
            else None
        ),
        "pass_chance": (
            float(np.prod([d["pass_chance"] for d in deciles if d["judged"]]))
            if any(d["judged"] for d in deciles)
            else None
        ),
    }


def poisson_binomial(probabilities: Sequence[float]) -> np.ndarray:
    """P(K = k) for k = 0..n, K the number of successes of independent trials.

    ``probabilities``: each trial's success probability (clipped to [0, 1]).
    Exact, by convolving the trials one at a time (O(n^2)).
    """
    pmf = np.zeros(len(probabilities) + 1)
    pmf[0] = 1.0
    for i, p in enumerate(probabilities, 1):
        p = min(max(float(p), 0.0), 1.0)
        pmf[1 : i + 1] = pmf[1 : i + 1] * (1 - p) + pmf[:i] * p
        pmf[0] *= 1 - p
    return pmf


def _noise(estimates: Sequence[float], mean: float, failures: int) -> tuple[float, float]:
    """``(p_value, pass_chance)`` of a decile whose estimates average ``mean`` (see above)."""
    pmf = poisson_binomial(estimates)
    n = len(estimates)
    # outcomes no likelier than the observed one, with a relative slack for rounding
    p_value = float(pmf[pmf <= pmf[failures] * (1 + 1e-7)].sum())
    within = [k for k in range(n + 1) if abs(k / n - mean) <= TOLERANCE]
    return min(1.0, p_value), float(pmf[within].sum())
