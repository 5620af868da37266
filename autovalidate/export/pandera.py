r"""A suite as a pandera DataFrameSchema (pandas API) in pandera's YAML.

Load it with ``pandera.pandas.DataFrameSchema.from_yaml(path)`` and call ``schema.validate(df)``
on a DataFrame read as text (``dtype=str``: pandera's string checks need
strings, and autovalidate reads CSV as text too).

Mapping
-------
* A pattern constraint is the column check ``str_matches``. pandera runs it
  with Python's ``re`` (``Series.str.match``: a prefix match), so the regex is
  in the ``python`` dialect (:mod:`autovalidate.export.regex`): ``\A(?:...)\Z``
  is a full match, and letter classes are ASCII letters (``re`` rejects
  ``\p{L}`` and ``\z``). pandera's checks hold for every row, with no
  fraction: a tolerant rule (Fisher test) is exported strict (any
  non-conforming value fails), stricter than autovalidate on batches that
  keep training's non-conforming fraction. Nulls are ignored by the check.
* Deequ constraints (every row): ``is_complete`` -> ``nullable: false`` (every
  other column ``nullable: true``); ``is_unique`` (one column) -> ``unique: true``;
  ``is_contained_in`` -> ``isin``; ``is_non_negative``, ``is_positive`` ->
  ``greater_than_or_equal_to: 0``, ``greater_than: 0``; ``is_in_range`` ->
  ``in_range``; ``has_min`` (lower bound), ``has_max`` (upper bound) -> the
  same comparisons; ``has_min_length`` (lower bound), ``has_max_length`` (upper
  bound) -> ``str_length``. Several bounds of one kind on a column keep the
  tightest.
* pandera's YAML checks have no levels: Warning-level checks fail like others
  (the header lists them).
* Fractions below 1, table-level and statistical constraints are skipped with
  the reason (listed in the header).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from autovalidate.export.base import (
    Item,
    SuiteExport,
    Unmappable,
    add_note,
    bounds,
    collect,
    commented,
    header,
    min_fraction,
    translated_pattern,
    yaml_text,
)
from autovalidate.pattern_constraint import PatternConstraint

if TYPE_CHECKING:
    from autovalidate.checks.spec import ConstraintSuite

__all__ = ["export"]

_MAPPING = [
    "pattern constraint -> str_matches in the python dialect (\\A(?:...)\\Z, ASCII letter "
    "classes); a Fisher-tested rule is exported strict (no fraction in pandera)",
    "Deequ constraints on every row -> column properties and checks; nullable: true unless "
    "is_complete",
    "no check levels in pandera's YAML: Warning-level checks fail like others",
]
_STRICT_NOTE = (
    "pandera has no fraction: a Fisher-tested pattern rule is exported strict (any "
    "non-conforming value fails), stricter than autovalidate's test"
)
#: Comparison -> which of two bounds is tighter.
_TIGHTER = {
    "greater_than_or_equal_to": max,
    "greater_than": max,
    "less_than_or_equal_to": min,
    "less_than": min,
}


def _every_row(item: Item) -> None:
    if min_fraction(item.assertion) < 1.0:
        raise Unmappable(f"{item.method} on a fraction of the rows: pandera checks every row")


def _one_sided(item: Item, end: str) -> tuple[str, float]:
    """``has_min`` with a lower bound (or ``has_max`` with an upper one) as a comparison."""
    b = bounds(item.assertion)
    value, strict, other = (
        (b.low, b.strict_low, b.high) if end == "low" else (b.high, b.strict_high, b.low)
    )
    if value is None or other is not None:
        raise Unmappable(
            f"{item.method} {item.assertion}: only a {end}er bound holds for every row"
        )
    if end == "low":
        return ("greater_than" if strict else "greater_than_or_equal_to"), value
    return ("less_than" if strict else "less_than_or_equal_to"), value


def _rule(item: Item, notes: list[str]) -> dict[str, Any]:
    """The column properties and checks of one constraint, to merge into its column."""
    m = item.method
    if isinstance(item.constraint, PatternConstraint):
        rule = translated_pattern(item.constraint, "python")
        add_note(notes, rule.translation.approximations)
        if item.constraint.test != "strict":
            add_note(notes, [_STRICT_NOTE])
        return {"str_matches": rule.translation.regex}
    if item.column is None:
        raise Unmappable(f"{m} is a table-level constraint: no pandera column check")
    if m == "is_complete":
        return {"nullable": False}
    if m == "is_unique":
        if not isinstance(item.arg("column"), str):
            raise Unmappable("a unique column set is a schema-level option, not exported")
        return {"unique": True}
    if m == "is_contained_in":
        _every_row(item)
        return {"isin": list(item.arg("allowed_values"))}
    if m == "is_non_negative":
        _every_row(item)
        return {"greater_than_or_equal_to": 0}
    if m == "is_positive":
        _every_row(item)
        return {"greater_than": 0}
    if m == "is_in_range":
        _every_row(item)
        return {
            "in_range": {
                "min_value": item.arg("lower_bound"),
                "max_value": item.arg("upper_bound"),
                "include_min": item.arg("include_lower_bound") is not False,
                "include_max": item.arg("include_upper_bound") is not False,
            }
        }
    if m in ("has_min", "has_max"):
        key, value = _one_sided(item, "low" if m == "has_min" else "high")
        return {key: value}
    if m in ("has_min_length", "has_max_length"):
        key, value = _one_sided(item, "low" if m == "has_min_length" else "high")
        if key in ("greater_than", "less_than"):  # lengths are integers
            value = value + 1 if key == "greater_than" else value - 1
        end = "min_value" if m == "has_min_length" else "max_value"
        return {"str_length": {end: int(value)}}
    raise Unmappable(f"no pandera check for {m}")


def _merge(column: dict[str, Any], rule: dict[str, Any]) -> None:
    for key, value in rule.items():
        if key not in column:
            column[key] = value
        elif key == "str_matches":
            raise Unmappable("pandera's YAML holds one str_matches per column")
        elif key in _TIGHTER:
            column[key] = _TIGHTER[key](column[key], value)
        elif key == "str_length":
            column[key] = {**column[key], **value}
        elif key == "isin":
            column[key] = [v for v in column[key] if v in value]
        elif key == "in_range":
            raise Unmappable("one in_range per column in pandera's YAML")
        else:
            column[key] = value


def export(
    suite: ConstraintSuite, *, name: str, rename: Mapping[str, str] | None = None
) -> SuiteExport:
    """Write ``suite`` as a pandera DataFrameSchema YAML.

    Parameters
    ----------
    suite
        The constraint suite.
    name
        The schema's title.
    rename
        Suite column -> the DataFrame's column name.

    Returns
    -------
    SuiteExport
        YAML text for ``DataFrameSchema.from_yaml``; the mapping is stated in its header comment.
    """
    columns: dict[str, dict[str, Any]] = {}

    def add(item: Item, notes: list[str]) -> None:
        rule = _rule(item, notes)
        assert item.column is not None
        column = dict(columns.get(item.column, {"dtype": None, "nullable": True}))
        _merge(column, rule)  # raises Unmappable before anything is kept
        columns[item.column] = column

    mapped, skipped, notes = collect(suite, rename or {}, add)
    warning = [f"{item.description}: {item.label}" for item, _ in mapped if item.warning]
    doc = {
        "schema_type": "dataframe",
        "api": "pandas",
        "columns": columns,
        "title": name,
        "description": "Exported by autovalidate (see the header comment for the mapping).",
    }
    lines = header("pandera (DataFrameSchema YAML, pandas API)", _MAPPING, notes, skipped)
    if warning:
        lines += ["Warning-level in autovalidate:", *(f"- {w}" for w in warning)]
    body = yaml_text(doc)
    text = commented(lines, body)
    return SuiteExport("pandera", text, len(mapped), tuple(skipped), tuple(notes))
