r"""A suite as a Great Expectations 1.x expectation suite (JSON).

Load it with ``gx.ExpectationSuite(**json.load(f))`` and validate a batch on
any data source; the tests run it on pandas and on Spark.

Mapping
-------
* A pattern constraint is ``expect_column_values_to_match_regex``. GX runs the
  regex on pandas with Python's ``re`` (``str.contains``: a search) and on
  Spark with Java's ``rlike`` (a search), so the regex is written in the
  ``portable`` dialect (:mod:`autovalidate.export.regex`): ``^(?:...)(?![\s\S])``
  is a full match in both, and letter classes are ASCII letters (Python ``re``
  rejects ``\p{L}`` and ``\z``). A tolerant rule's Fisher test becomes
  ``mostly``, the test's own decision for a batch as large as the training
  data (:mod:`autovalidate.export.tolerance`); a strict rule has no ``mostly``.
  The expectation's ``meta`` keeps autovalidate's pattern and regex.
* Deequ constraints: ``is_complete`` / ``has_completeness`` ->
  ``expect_column_values_to_not_be_null`` (``mostly``); ``is_unique`` ->
  ``expect_column_values_to_be_unique`` or, for several columns,
  ``expect_compound_columns_to_be_unique``; ``is_contained_in`` ->
  ``expect_column_values_to_be_in_set``; ``is_non_negative``, ``is_positive``,
  ``is_in_range`` -> ``expect_column_values_to_be_between``; ``has_size`` ->
  ``expect_table_row_count_to_be_between``; ``has_min``, ``has_max``,
  ``has_mean`` -> ``expect_column_min/max/mean_to_be_between``;
  ``has_exact_quantile`` at 0.5 -> ``expect_column_median_to_be_between``
  (both interpolate between the middle two values; other quantiles are
  skipped: GX's take a value of the column);
  ``has_min_length`` (lower bound), ``has_max_length`` (upper bound) ->
  ``expect_column_value_lengths_to_be_between``. A fraction assertion
  (``>= 0.9``) is ``mostly``. Nulls are skipped by GX's column-value
  expectations as by autovalidate's. Numeric expectations need numeric
  columns (autovalidate casts CSV text; read the batch with types).
  ``is_valid_json`` -> ``expect_column_values_to_be_json_parseable``;
  ``matches_datetime_format`` -> ``expect_column_values_to_match_strftime_format``
  (GX parses with Python's ``strptime``).
  ``has_column`` -> ``expect_column_to_exist``; ``has_column_type`` ->
  ``expect_column_values_to_be_of_type`` (one type) or ``_in_type_list``
  (GX compares the type names of its own data source); ``has_column_count``
  -> ``expect_table_column_count_to_equal`` or ``_to_be_between``.
  ``has_columns`` and ``has_schema`` (whose column lists the export does not
  rename) and ``is_fresh`` (GX has no age relative to the run's time) are
  skipped.
* A Warning-level check's expectations have ``severity: warning``.
* Other constraints are skipped with the reason (listed in ``meta`` and ``notes``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from autovalidate.export.base import (
    Item,
    SuiteExport,
    Unmappable,
    add_note,
    bounds,
    collect,
    header,
    min_fraction,
    translated_pattern,
)
from autovalidate.pattern_constraint import PatternConstraint

if TYPE_CHECKING:
    from autovalidate.checks.spec import ConstraintSuite

__all__ = ["export"]

_MAPPING = [
    "pattern constraint -> expect_column_values_to_match_regex, regex in the portable dialect "
    "(Python re and Java: a full match under GX's search, ASCII letter classes); "
    "the Fisher test -> mostly",
    "a fraction assertion (>= x) -> mostly = x",
    "Warning-level checks -> severity warning",
]

_BETWEEN = {"has_min": "min", "has_max": "max", "has_mean": "mean"}


def _mostly(kwargs: dict[str, Any], fraction: float) -> dict[str, Any]:
    if fraction < 1.0:
        kwargs["mostly"] = fraction
    return kwargs


def _row_count(item: Item) -> dict[str, Any]:
    b = bounds(item.assertion)
    low = None if b.low is None else (math.floor(b.low) + 1 if b.strict_low else math.ceil(b.low))
    high = (
        None if b.high is None else (math.ceil(b.high) - 1 if b.strict_high else math.floor(b.high))
    )
    return {"min_value": low, "max_value": high}


def _between(item: Item) -> dict[str, Any]:
    b = bounds(item.assertion)
    kwargs: dict[str, Any] = {"column": item.column, "min_value": b.low, "max_value": b.high}
    if b.strict_low:
        kwargs["strict_min"] = True
    if b.strict_high:
        kwargs["strict_max"] = True
    return kwargs


def _expectation(item: Item, notes: list[str]) -> dict[str, Any]:
    """The expectation (``type``, ``kwargs``, ``meta``) of one constraint."""
    m, column = item.method, item.column
    meta: dict[str, Any] = {"check": item.description, "label": item.label}
    if isinstance(item.constraint, PatternConstraint):
        rule = translated_pattern(item.constraint, "portable")
        add_note(notes, rule.notes)
        kind = "expect_column_values_to_match_regex"
        kwargs = _mostly({"column": column, "regex": rule.translation.regex}, rule.tolerance.mostly)
        meta |= {
            "pattern": item.constraint.pattern,
            "autovalidate_regex": item.constraint.regex,
            "approximations": list(rule.notes),
        }
    elif m in ("is_complete", "has_completeness"):
        kind = "expect_column_values_to_not_be_null"
        kwargs = _mostly({"column": column}, min_fraction(item.assertion))
    elif m == "is_unique":
        columns = item.arg("column")
        if isinstance(columns, str) or len(columns) == 1:
            kind, kwargs = "expect_column_values_to_be_unique", {"column": column}
        else:
            kind, kwargs = "expect_compound_columns_to_be_unique", {"column_list": list(columns)}
    elif m == "is_contained_in":
        kind = "expect_column_values_to_be_in_set"
        kwargs = _mostly(
            {"column": column, "value_set": list(item.arg("allowed_values"))},
            min_fraction(item.assertion),
        )
    elif m in ("is_non_negative", "is_positive", "is_in_range"):
        kind = "expect_column_values_to_be_between"
        if m == "is_in_range":
            kwargs = {
                "column": column,
                "min_value": item.arg("lower_bound"),
                "max_value": item.arg("upper_bound"),
            }
            if item.arg("include_lower_bound") is False:
                kwargs["strict_min"] = True
            if item.arg("include_upper_bound") is False:
                kwargs["strict_max"] = True
        else:
            kwargs = {"column": column, "min_value": 0}
            if m == "is_positive":
                kwargs["strict_min"] = True
        kwargs = _mostly(kwargs, min_fraction(item.assertion))
    elif m == "has_size":
        kind, kwargs = "expect_table_row_count_to_be_between", _row_count(item)
    elif m in _BETWEEN:
        kind, kwargs = f"expect_column_{_BETWEEN[m]}_to_be_between", _between(item)
    elif m == "has_exact_quantile":
        if item.arg("quantile") != 0.5:
            raise Unmappable(
                "GX's quantile expectation takes a value of the column (pandas 'nearest', SQL "
                "percentile_disc), not an interpolated one; only the median maps"
            )
        kind, kwargs = "expect_column_median_to_be_between", _between(item)
    elif m in ("has_min_length", "has_max_length"):
        b = bounds(item.assertion)
        wanted = b.low if m == "has_min_length" else b.high
        other = b.high if m == "has_min_length" else b.low
        if wanted is None or other is not None:
            raise Unmappable(
                f"{m} {item.assertion}: only a {'lower' if m == 'has_min_length' else 'upper'} "
                "bound is a bound on every value's length"
            )
        strict = b.strict_low if m == "has_min_length" else b.strict_high
        step = (1 if m == "has_min_length" else -1) if strict else 0
        key = "min_value" if m == "has_min_length" else "max_value"
        kind = "expect_column_value_lengths_to_be_between"
        kwargs = {"column": column, key: int(wanted) + step}
    elif m == "is_valid_json":
        kind = "expect_column_values_to_be_json_parseable"
        kwargs = _mostly({"column": column}, min_fraction(item.assertion))
    elif m == "matches_datetime_format":
        kind = "expect_column_values_to_match_strftime_format"
        kwargs = _mostly(
            {"column": column, "strftime_format": item.arg("datetime_format")},
            min_fraction(item.assertion),
        )
    elif m == "has_column":
        kind, kwargs = "expect_column_to_exist", {"column": column}
    elif m == "has_column_type":
        types = item.arg("types")
        if isinstance(types, str) or len(types) == 1:
            type_ = types if isinstance(types, str) else types[0]
            kind, kwargs = "expect_column_values_to_be_of_type", {"column": column, "type_": type_}
        else:
            kind = "expect_column_values_to_be_in_type_list"
            kwargs = {"column": column, "type_list": list(types)}
    elif m == "has_column_count":
        b = bounds(item.assertion)
        if b.low is not None and b.low == b.high and not (b.strict_low or b.strict_high):
            kind, kwargs = "expect_table_column_count_to_equal", {"value": int(b.low)}
        else:
            kind, kwargs = "expect_table_column_count_to_be_between", _row_count(item)
    else:
        raise Unmappable(f"no Great Expectations expectation for {m}")
    return {
        "type": kind,
        "kwargs": kwargs,
        "meta": {"autovalidate": meta},
        "severity": "warning" if item.warning else "critical",
    }


def export(
    suite: ConstraintSuite, *, name: str, rename: Mapping[str, str] | None = None
) -> SuiteExport:
    """Write ``suite`` as a GX 1.x expectation suite.

    Parameters
    ----------
    suite
        The constraint suite.
    name
        The expectation suite's name.
    rename
        Suite column -> the column's name in the data GX validates.

    Returns
    -------
    SuiteExport
        JSON text loadable by ``great_expectations.ExpectationSuite(**doc)``.
    """
    mapped, skipped, notes = collect(suite, rename or {}, _expectation)
    lines = header("Great Expectations 1.x", _MAPPING, notes, skipped)
    doc = {
        "name": name,
        "expectations": [expectation for _, expectation in mapped],
        "meta": {
            "autovalidate": {
                "mapping": _MAPPING,
                "approximations": notes,
                "skipped": [vars(s) for s in skipped],
            }
        },
        "notes": "\n".join(lines),
    }
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    return SuiteExport("gx", text, len(mapped), tuple(skipped), tuple(notes))
