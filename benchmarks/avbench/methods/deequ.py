"""Deequ's suggestion rules for string columns (Deequ-Cat, Deequ-Fra), as in Deequ's source.

Deequ suggests constraints from a column profile (``ColumnProfiler``): the
inferred data type, and an exact histogram for columns with at most
``DEFAULT_CARDINALITY_THRESHOLD = 120`` (approximately counted) distinct
values.  Both rules need that histogram and a ``String`` or ``Integral`` type;
otherwise they do not apply, which here is an abstention.

* ``CategoricalRangeRule``: applies when ``uniqueValueRatio <= 0.1``, where
  ``uniqueValueRatio`` is the number of histogram entries seen exactly once
  divided by the number of entries (not distinct/total); emits
  ``isContainedIn(column, all categories)`` with compliance 1 (``Check.IsOne``):
  any value outside the dictionary fails.
* ``FractionalCategoricalRangeRule`` (``targetDataCoverageFraction = 0.9``):
  the top categories by ratio, added while the covered fraction is below 0.9;
  applies when ``uniqueValueRatio <= 0.4`` and those categories cover less than
  all values (``ratioSums < 1``); emits ``isContainedIn(column, top
  categories, _ >= targetCompliance)`` with ``targetCompliance`` the lower end
  of the Wald interval ``p - 1.96 sqrt(p (1 - p) / n)`` for ``p = ratioSums``
  and ``n`` the number of records, truncated (``RoundingMode.DOWN``) to two
  decimals.

Deviations, both forced: Deequ counts distinct values with HyperLogLog++
(``ApproxCountDistinct``); here they are counted exactly.  Deequ orders tied
categories by its hash map's iteration order; here ties are broken by value,
so the run is deterministic.

References
----------
awslabs/deequ, ``src/main/scala/com/amazon/deequ/suggestions/rules/CategoricalRangeRule.scala``,
``FractionalCategoricalRangeRule.scala``, ``profiles/ColumnProfiler.scala``
(``DEFAULT_CARDINALITY_THRESHOLD``, ``findTargetColumnsForHistograms``) and
``analyzers/DataType.scala`` (``DataTypeHistogram.determineType``), with the
type regexes of ``org/apache/spark/sql/StatefulDataType.scala``.
Schelter et al., "Automating large-scale data quality verification", PVLDB 2018.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal

from benchmarks.avbench.protocol import Rule

__all__ = ["DeequCategorical", "DeequFractional", "deequ_type"]

#: ``ColumnProfiler.DEFAULT_CARDINALITY_THRESHOLD``: most distinct values with a histogram.
CARDINALITY_THRESHOLD = 120
#: ``FractionalCategoricalRangeRule.targetDataCoverageFraction``.
TARGET_COVERAGE = 0.9
#: The normal quantile Deequ uses for the compliance bound.
Z = 1.96

# StatefulDataType's regexes; Scala's ``case FRACTIONAL(_*)`` is a full match.
_FRACTIONAL = re.compile(r"(-|\+)? ?\d+((\.\d+)|((?:\.\d+)?[Ee][-+]?\d+))")
_INTEGRAL = re.compile(r"(-|\+)? ?\d+")
_BOOLEAN = re.compile(r"(true|false)")


def deequ_type(values: list[str]) -> str:
    """Deequ's inferred data type of a string column (``DataTypeHistogram.determineType``).

    Returns
    -------
    str
        ``"Unknown"``, ``"String"``, ``"Boolean"``, ``"Fractional"`` or ``"Integral"``.
    """
    kinds: Counter[str] = Counter()
    for v in values:
        if _FRACTIONAL.fullmatch(v):
            kinds["Fractional"] += 1
        elif _INTEGRAL.fullmatch(v):
            kinds["Integral"] += 1
        elif _BOOLEAN.fullmatch(v):
            kinds["Boolean"] += 1
        else:
            kinds["String"] += 1
    if not values:
        return "Unknown"
    if kinds["String"] or (kinds["Boolean"] and (kinds["Integral"] or kinds["Fractional"])):
        return "String"
    if kinds["Boolean"]:
        return "Boolean"
    return "Fractional" if kinds["Fractional"] else "Integral"


def _histogram(train: list[str]) -> Counter | None:
    """The profile's histogram, or None where Deequ computes none or the rules ignore it."""
    histogram = Counter(train)
    if len(histogram) > CARDINALITY_THRESHOLD:
        return None
    if deequ_type(train) not in ("String", "Integral"):
        return None
    return histogram


def _unique_value_ratio(histogram: Counter) -> float:
    return sum(1 for c in histogram.values() if c == 1) / len(histogram)


def _by_popularity(histogram: Counter) -> list[tuple[str, int]]:
    return sorted(histogram.items(), key=lambda kv: (-kv[1], kv[0]))


@dataclass
class DeequCategorical:
    """Deequ-Cat: ``CategoricalRangeRule`` (see the module docstring)."""

    name: str = "deequ-cat"
    pattern_based: bool = False

    def fit(self, train: list[str]) -> Rule | None:
        histogram = _histogram(train)
        if histogram is None or _unique_value_ratio(histogram) > 0.1:
            return None
        categories = [v for v, _ in _by_popularity(histogram)]
        return Rule(
            "dictionary",
            f"IN {_preview(categories)} (compliance 1)",
            values=frozenset(categories),
        )


@dataclass
class DeequFractional:
    """Deequ-Fra: ``FractionalCategoricalRangeRule`` (see the module docstring)."""

    name: str = "deequ-fra"
    pattern_based: bool = False

    def fit(self, train: list[str]) -> Rule | None:
        histogram = _histogram(train)
        if histogram is None:
            return None
        n = len(train)
        top: list[tuple[str, int]] = []
        covered = 0.0
        for value, count in _by_popularity(histogram):
            if covered < TARGET_COVERAGE:
                covered += count / n
                top.append((value, count))
        if not (_unique_value_ratio(histogram) <= 0.4 and covered < 1):
            return None
        p = covered
        bound = p - Z * math.sqrt(p * (1 - p) / n)
        target = float(Decimal(repr(bound)).quantize(Decimal("0.01"), rounding=ROUND_DOWN))
        categories = [v for v, _ in top]
        return Rule(
            "dictionary",
            f"IN {_preview(categories)} for >= {target:.2f} of values",
            values=frozenset(categories),
            decision="min_fraction",
            min_fraction=target,
        )


def _preview(categories: list[str], limit: int = 8) -> str:
    shown = ", ".join(repr(c) for c in categories[:limit])
    more = f", ... ({len(categories)} values)" if len(categories) > limit else ""
    return "{" + shown + more + "}"
