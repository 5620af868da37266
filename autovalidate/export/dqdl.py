r"""A suite as AWS Glue Data Quality rules (DQDL).

Paste it into a Glue Data Quality ruleset (``Rules = [ ... ]``).

Mapping
-------
* A pattern constraint is ``ColumnValues "col" matches "REGEX"``, with
  ``with threshold >= x`` for a tolerant rule. Glue runs on Spark, so the regex
  is in the ``java`` dialect (:mod:`autovalidate.export.regex`): autovalidate's
  regex exactly, ``\p{L}`` classes included, anchored ``^(?:...)\z`` (a full
  match whether or not Glue wraps it in ``^...$`` itself); ``"`` and ``\`` in a
  literal are written ``\x22`` and ``\x5C``, so the quoted string has neither
  of DQDL's two escapes (``\"``, ``\\``) and reads the same whether Glue
  unescapes them or not. The threshold is the Fisher test's own decision for a batch as
  large as the training data (:mod:`autovalidate.export.tolerance`). DQDL counts
  NULL rows as not matching, over all rows; autovalidate counts non-null values
  only, so for a column with nulls the exported rule is the stricter (add the
  completeness rule's nulls to the threshold, or filter them).
* Deequ constraints: ``is_complete`` -> ``IsComplete``; ``has_completeness`` ->
  ``Completeness >= x``; ``is_unique`` -> ``IsUnique`` (one column);
  ``is_contained_in`` -> ``ColumnValues in [...]``; ``is_non_negative``,
  ``is_positive``, ``is_in_range`` -> ``ColumnValues >=, >, <=, <`` (a range:
  two rules joined by ``and``); ``has_size`` -> ``RowCount``; ``has_mean`` ->
  ``Mean``; ``has_min`` with a lower bound and ``has_max`` with an upper bound
  -> ``ColumnValues`` (every value is then within it); ``has_min_length`` with
  a lower bound and ``has_max_length`` with an upper bound -> ``ColumnLength``.
  A fraction assertion (``>= x``) is ``with threshold >= x``.
  ``has_column`` -> ``ColumnExists``; ``has_column_count`` -> ``ColumnCount``;
  ``is_fresh`` without a reference time -> ``DataFreshness "col" <= N hours``
  (relative to the run's time, as autovalidate's default).
* DQDL has no check levels: Warning-level checks are exported as rules (the
  header lists them).
* Other constraints are skipped with the reason (listed in the header).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from autovalidate.export.base import (
    Bounds,
    Item,
    SuiteExport,
    Unmappable,
    add_note,
    bounds,
    collect,
    commented,
    header,
    min_fraction,
    number_text,
    translated_pattern,
)
from autovalidate.pattern_constraint import PatternConstraint

if TYPE_CHECKING:
    from autovalidate.checks.spec import ConstraintSuite

__all__ = ["export"]

_MAPPING = [
    'pattern constraint -> ColumnValues "col" matches "REGEX" (Java dialect: exact) with '
    "threshold >= the Fisher test's bound",
    "a fraction assertion (>= x) -> with threshold >= x",
    "no check levels in DQDL: Warning-level checks are rules too",
]


def _quote(text: str) -> str:
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in text):
        raise Unmappable(f"{text!r}: a control character (a line break) cannot be quoted in DQDL")
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _quote_regex(regex: str) -> str:
    r"""The regex in quotes as written: it has no ``"`` and no ``\\`` pair (see the module)."""
    assert '"' not in regex and "\\\\" not in regex, regex
    return '"' + regex + '"'


def _threshold(fraction: float) -> str:
    return "" if fraction >= 1.0 else f" with threshold >= {number_text(fraction)}"


def _comparisons(rule: str, b: Bounds) -> list[str]:
    out = []
    if b.low is not None:
        out.append(f"{rule} {'>' if b.strict_low else '>='} {number_text(b.low)}")
    if b.high is not None:
        out.append(f"{rule} {'<' if b.strict_high else '<='} {number_text(b.high)}")
    return out


def _joined(parts: list[str], suffix: str = "") -> str:
    if len(parts) == 1:
        return parts[0] + suffix
    return " and ".join(f"({p}{suffix})" for p in parts)


def _rule(item: Item, notes: list[str]) -> str:
    m = item.method
    col = _quote(item.column) if item.column is not None else ""
    if isinstance(item.constraint, PatternConstraint):
        rule = translated_pattern(item.constraint, "java")
        add_note(notes, rule.notes)
        regex = rule.translation.regex
        return (
            f"ColumnValues {col} matches {_quote_regex(regex)}{_threshold(rule.tolerance.mostly)}"
        )
    if m == "is_complete":
        return f"IsComplete {col}"
    if m == "has_completeness":
        return f"Completeness {col} >= {number_text(min_fraction(item.assertion))}"
    if m == "is_unique":
        if not isinstance(item.arg("column"), str):
            raise Unmappable("IsUnique takes one column")
        return f"IsUnique {col}"
    if m == "is_contained_in":
        values = ", ".join(_quote(str(v)) for v in item.arg("allowed_values"))
        return f"ColumnValues {col} in [{values}]{_threshold(min_fraction(item.assertion))}"
    threshold = ""
    if m in ("is_non_negative", "is_positive", "is_in_range"):
        threshold = _threshold(min_fraction(item.assertion))
        if m == "is_in_range":
            b = Bounds(
                item.arg("lower_bound"),
                item.arg("upper_bound"),
                strict_low=item.arg("include_lower_bound") is False,
                strict_high=item.arg("include_upper_bound") is False,
            )
        else:
            b = Bounds(0, None, strict_low=m == "is_positive")
        return _joined(_comparisons(f"ColumnValues {col}", b), threshold)
    if m == "has_size":
        return _joined(_comparisons("RowCount", bounds(item.assertion)))
    if m == "has_mean":
        return _joined(_comparisons(f"Mean {col}", bounds(item.assertion)))
    if m == "has_column":
        return f"ColumnExists {col}"
    if m == "has_column_count":
        return _joined(_comparisons("ColumnCount", bounds(item.assertion)))
    if m == "is_fresh":
        if item.arg("reference_time") is not None:
            raise Unmappable("is_fresh with a reference time: DataFreshness is relative to now")
        return f"DataFreshness {col} <= {number_text(item.arg('max_age_hours'))} hours"
    row_level = {
        "has_min": ("ColumnValues", "low"),
        "has_max": ("ColumnValues", "high"),
        "has_min_length": ("ColumnLength", "low"),
        "has_max_length": ("ColumnLength", "high"),
    }
    if m in row_level:
        rule_type, end = row_level[m]
        b = bounds(item.assertion)
        one_sided = (
            Bounds(b.low, None, b.strict_low)
            if end == "low"
            else Bounds(None, b.high, strict_high=b.strict_high)
        )
        if (b.high if end == "low" else b.low) is not None:
            raise Unmappable(f"{m} {item.assertion}: only a {end}er bound holds for every value")
        return _joined(_comparisons(f"{rule_type} {col}", one_sided))
    raise Unmappable(f"no DQDL rule type for {m}")


def export(
    suite: ConstraintSuite, *, name: str, rename: Mapping[str, str] | None = None
) -> SuiteExport:
    """Write ``suite`` as a DQDL ruleset.

    Parameters
    ----------
    suite
        The constraint suite.
    name
        The dataset's name, for the header (a DQDL ruleset names no table).
    rename
        Suite column -> the column's name in the Glue table.

    Returns
    -------
    SuiteExport
        DQDL text; the mapping is stated in its ``#`` header comment.
    """
    mapped, skipped, notes = collect(suite, rename or {}, _rule)
    warning = [f"{item.description}: {item.label}" for item, _ in mapped if item.warning]
    lines = header(f"AWS Glue Data Quality (DQDL), dataset {name}", _MAPPING, notes, skipped)
    if warning:
        lines += ["Warning-level in autovalidate:", *(f"- {w}" for w in warning)]
    rules = ",\n".join(f"    {rule}" for _, rule in mapped)
    text = commented(lines, "Rules = [\n" + rules + "\n]\n")
    return SuiteExport("dqdl", text, len(mapped), tuple(skipped), tuple(notes))
