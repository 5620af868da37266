"""What broke FMDV-VH's failing rules, and what abstaining could buy: a run's false alarms.

Precision is lost where a rule fails its own column's later values (the test
part). The abstention census (:mod:`benchmarks.avbench.abstentions`) says
where recall goes; this says where precision goes, so that a run shows
whether a failing rule was a narrow pattern (a better one would have held)
or a column whose later rows are of another kind (only abstaining avoids it).

**Causes.** The later values a failing rule rejects (missing ones not
counted, as the rule's own validation does) are read against the training
part, by their most common cause:

* ``tolerated``: values the training part held, which the horizontal cut
  left out within θ (``✔`` with one ``×`` in training, 13% ``×`` later);
* ``new shape``: values whose shape (the product's token signature,
  :func:`autovalidate.index.generalization.signature`: token classes, a
  list's repeated unit counted once) the training part never showed
  (``Scored`` then ``Not Scored``; ``WW`` then ``North America``);
  no pattern of the paper's hypothesis space H(C), which every training
  value must match, has to accept them;
* ``more parts``: values of a shape the training part showed, but with a
  list's unit repeated more often than in any training value (``us-east-1``
  then ``us-gov-east-1``): the bound of a repeated or optional part;
* ``same shape``: values whose tokens have the classes, in order, of a
  training value, broken by a class, width, run bound or constant the rule
  fixed (``Apple``, ``Dell`` as ``<upper>{1}<lower>+``, then ``HP``): a more
  general pattern of the same shape would have held.

**What abstaining buys.** Abstaining on a rule that fails raises precision by
1/N (N the query columns); abstaining on one that holds lowers recall by its
recall / N. With the run's P and R, F1's gradient gives the *break-even
failing share*: abstaining on a group of rules raises F1 only if more than
this share of them fail,

    s* = P² r̄ / (P² r̄ + R²),

r̄ the mean recall of the rules that hold. The frontier then tries, on the
run itself, every abstention a simple rule on what is known when the rule is
suggested could make: a decile threshold (either side) of one feature of
:data:`FEATURES`, a flag, or two of them together, and reports the best F1
any of them reaches and the best F1 among those that reach a precision
target. Chosen on the same columns it is scored on, this is an upper bound
on what such a rule would do on new columns: if even it cannot raise F1, no
abstention rule of that form will.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np
import regex

from autovalidate.index.generalization import signature
from autovalidate.nulls import drop_missing
from autovalidate.patterns.tokens import token_class, tokenize
from benchmarks.avbench.noise import f1_score
from benchmarks.avbench.protocol import Case, CaseScore, Rule, summarize

__all__ = ["CAUSES", "FEATURES", "FLAGS", "cause", "census", "failures", "frontier"]

CAUSES = ("new shape", "more parts", "same shape", "tolerated")

#: Numeric features of a rule and its training part, known when it is suggested.
FEATURES = (
    "estimated FPR",
    "training values",
    "distinct training values",
    "distinct share",
    "training shapes",
    "top shape share",
    "most tokens",
)
#: Yes/no features of the same kind.
FLAGS = ("words", "optional part", "formats > 1", "run bound")

#: The quantiles whose values are the numeric features' thresholds.
_CUTS = tuple(q / 10 for q in range(1, 10))
#: Precision the frontier reports the best F1 at (the issue's B-M target).
PRECISION_TARGET = 0.97


def _present(values: Sequence[str], rule: Rule) -> list[str]:
    """The values the rule's own validation counts: not null, blank or a null token."""
    return list(drop_missing(values, rule.missing))


def cause(case: Case, rule: Rule) -> str:
    """The cause (one of :data:`CAUSES`) of ``rule``'s failure on ``case``'s test part.

    Raises
    ------
    ValueError
        If the rule is not a regex rule or rejects none of the test part's values.
    """
    if rule.regex is None:
        raise ValueError(f"case {case.idx}: not a regex rule")
    matcher = regex.compile(rule.regex)
    rejected = [v for v in _present(case.test, rule) if not matcher.fullmatch(v)]
    if not rejected:
        raise ValueError(f"case {case.idx}: the rule rejects no later value")
    seen = set(_present(case.train, rule))
    classes = {_classes(v) for v in seen}
    shapes = {signature(tokenize(v)) for v in seen}
    found: Counter[str] = Counter()
    for v in rejected:
        if v in seen:
            found["tolerated"] += 1
        elif _classes(v) in classes:
            found["same shape"] += 1
        elif signature(tokenize(v)) in shapes:
            found["more parts"] += 1
        else:
            found["new shape"] += 1
    # the most common cause; ties to the earlier of CAUSES
    return max(CAUSES, key=lambda why: (found[why], -CAUSES.index(why)))


def _classes(value: str) -> tuple[str, ...]:
    """A value's token classes in order (its alignment signature, nothing collapsed)."""
    return tuple(token_class(t.kind, t.text) for t in tokenize(value))


def failures(
    cases: Sequence[Case],
    rules: Sequence[Rule | None],
    scores: Sequence[CaseScore],
    repetitive: Sequence[int],
) -> dict[str, Any]:
    """The :func:`census` of a method's failing rules and its abstention :func:`frontier`."""
    return {
        "census": census(cases, rules, scores, repetitive),
        "frontier": frontier(cases, rules, scores),
    }


def census(
    cases: Sequence[Case],
    rules: Sequence[Rule | None],
    scores: Sequence[CaseScore],
    repetitive: Sequence[int],
) -> dict[str, Any]:
    """The failing rules counted by cause and slice.

    Parameters
    ----------
    cases
        The query set.
    rules
        The method's rule per case (None: abstention).
    scores
        The method's per-case scores (precision 0 where the rule fails its
        own test part).
    repetitive
        The positions of the repetitive slice (at most 3 distinct training values).

    Returns
    -------
    dict
        ``rules``, ``failing`` (their numbers) and ``causes``: per cause, the
        failing rules of each slice (``repetitive``, ``varied``) and the total.
    """
    rep = set(repetitive)
    counts: Counter[tuple[str, str]] = Counter()
    for i, rule in enumerate(rules):
        if rule is not None and not scores[i].precision:
            counts[(cause(cases[i], rule), "repetitive" if i in rep else "varied")] += 1
    return {
        "rules": sum(r is not None for r in rules),
        "failing": sum(counts.values()),
        "causes": {
            why: {part: counts[(why, part)] for part in ("repetitive", "varied")}
            | {"total": counts[(why, "repetitive")] + counts[(why, "varied")]}
            for why in CAUSES
        },
    }


def _features(case: Case, rule: Rule) -> dict[str, float]:
    """The :data:`FEATURES` and :data:`FLAGS` (as 0/1) of a product rule and its training part."""
    train = _present(case.train, rule)
    distinct = set(train)
    shapes = Counter(signature(tokenize(v)) for v in train)
    constraint = rule.constraint
    pattern = constraint.pattern
    return {
        "estimated FPR": float(constraint.fpr),
        "training values": len(train),
        "distinct training values": len(distinct),
        "distinct share": len(distinct) / len(train) if train else 0.0,
        "training shapes": len(shapes),
        "top shape share": shapes.most_common(1)[0][1] / len(train) if train else 0.0,
        "most tokens": max((len(tokenize(v)) for v in distinct), default=0),
        "words": float(any(" " in v for v in distinct)),
        "optional part": float(any(s.optional for s in constraint.segments)),
        "formats > 1": float(any(s.branch is not None for s in constraint.segments)),
        "run bound": float(bool(regex.search(r"\{\d+,\}", pattern))),
    }


def frontier(
    cases: Sequence[Case], rules: Sequence[Rule | None], scores: Sequence[CaseScore]
) -> dict[str, Any]:
    """What abstaining on a group of product rules chosen by their features would do to P, R, F1.

    Parameters
    ----------
    cases
        The query set (N columns).
    rules
        The method's rule per case; only product rules (with a
        ``constraint``) can be abstained on.
    scores
        The method's per-case scores (precision 0/1, recall in [0, 1]).

    Returns
    -------
    dict
        ``precision``, ``recall``, ``f1`` of the run; ``break_even``: s*, a
        fraction in [0, 1] (None without a holding rule); ``selections``: how
        many abstention rules were tried; ``best``: the one of highest F1 and
        ``best_at_target``: the one of highest F1 among those reaching
        :data:`PRECISION_TARGET` (None if none does), each with ``rule`` (as
        text), ``abstained``, ``failing`` among them, ``precision``,
        ``recall``, ``f1``; ``most_failing``: the largest failing share of a
        selection of at least 10 rules.
    """
    n = len(cases)
    run = summarize(scores)
    p0, r0 = run["precision"], run["recall"]
    chosen = [(i, r) for i, r in enumerate(rules) if r is not None and r.constraint is not None]
    fail = np.array([1.0 - scores[i].precision for i, _ in chosen])
    kept = np.array([scores[i].recall if scores[i].precision else 0.0 for i, _ in chosen])
    rows = [_features(cases[i], rule) for i, rule in chosen]
    names, masks = _selections(rows)
    holding = kept[fail == 0]
    mean_kept = float(holding.mean()) if holding.size else None
    out: dict[str, Any] = {
        "precision": p0,
        "recall": r0,
        "f1": run["f1"],
        "break_even": (
            p0**2 * mean_kept / (p0**2 * mean_kept + r0**2) if mean_kept is not None else None
        ),
        "selections": 0,
        "best": None,
        "best_at_target": None,
        "most_failing": None,
    }
    if not chosen:
        return out
    m = np.array(masks, dtype=float)  # selections x rules
    pairs = list(itertools.combinations(range(len(names)), 2))
    both = np.array([m[a] * m[b] for a, b in pairs]) if pairs else np.empty((0, len(chosen)))
    every = np.vstack([m, both])
    labels = names + [f"{names[a]} and {names[b]}" for a, b in pairs]
    size = every.sum(axis=1)
    failing = every @ fail
    precision = p0 + failing / n
    recall = r0 - (every @ kept) / n
    f1 = np.where(size > 0, f1_score(precision, recall), -1.0)
    out["selections"] = int((size > 0).sum())
    out["best"] = _row(labels, size, failing, precision, recall, f1, int(np.argmax(f1)))
    reach = np.flatnonzero((precision >= PRECISION_TARGET) & (size > 0))
    if reach.size:
        top = int(reach[np.argmax(f1[reach])])
        out["best_at_target"] = _row(labels, size, failing, precision, recall, f1, top)
    big = size >= 10
    if big.any():
        out["most_failing"] = float((failing[big] / size[big]).max())
    return out


def _selections(rows: list[dict[str, float]]) -> tuple[list[str], list[list[bool]]]:
    """Abstention rules of one feature: decile thresholds either side, and flags yes or no."""
    names: list[str] = []
    masks: list[list[bool]] = []
    seen: set[tuple[bool, ...]] = set()

    def add(name: str, mask: list[bool]) -> None:
        key = tuple(mask)
        if any(mask) and key not in seen:
            seen.add(key)
            names.append(name)
            masks.append(mask)

    for feature in FEATURES:
        column = [row[feature] for row in rows]
        for t in sorted(set(np.quantile(column, _CUTS).tolist())):
            add(f"{feature} >= {t:.3g}", [x >= t for x in column])
            add(f"{feature} <= {t:.3g}", [x <= t for x in column])
    for flag in FLAGS:
        column = [row[flag] for row in rows]
        add(flag, [x == 1.0 for x in column])
        add(f"no {flag}", [x == 0.0 for x in column])
    return names, masks


def _row(
    labels: list[str],
    size: np.ndarray,
    failing: np.ndarray,
    precision: np.ndarray,
    recall: np.ndarray,
    f1: np.ndarray,
    k: int,
) -> dict[str, Any]:
    return {
        "rule": labels[k],
        "abstained": int(size[k]),
        "failing": int(round(failing[k])),
        "precision": float(precision[k]),
        "recall": float(recall[k]),
        "f1": float(f1[k]),
    }
