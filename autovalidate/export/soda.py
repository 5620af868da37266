"""A suite as SodaCL checks (Soda Core 3.x YAML).

Run it with ``soda scan -d SOURCE checks.yml`` or ``Scan.add_sodacl_yaml_file``;
the tests run it with Soda Core on DuckDB.

Mapping
-------
* A pattern constraint is ``invalid_count(col) = 0`` (strict rule) or
  ``invalid_percent(col) <= p %`` (tolerant rule) with ``valid regex``. Soda
  runs the regex in the data source's SQL (PostgreSQL ``~``, Spark ``rlike``,
  DuckDB ``regexp_matches``...), which searches, so the regex is in the ``sql``
  dialect (:mod:`autovalidate.export.regex`): ``^(...)$``, POSIX syntax, ASCII
  letter classes. ``p`` is the Fisher test's own decision for a batch as large
  as the training data (:mod:`autovalidate.export.tolerance`). Soda counts
  missing values apart from invalid ones, as autovalidate does; its percent is
  over all rows, autovalidate's fraction over non-null values, so for a column
  with nulls the exported percent is the stricter.
* Deequ constraints: ``is_complete`` -> ``missing_count = 0``;
  ``has_completeness`` -> ``missing_percent <=``; ``is_unique`` ->
  ``duplicate_count = 0``; ``is_contained_in`` -> ``valid values``;
  ``is_non_negative``, ``is_positive``, ``is_in_range`` (every row) -> ``min``
  and ``max``; ``has_size`` -> ``row_count``; ``has_min``, ``has_max``,
  ``has_mean`` -> ``min``, ``max``, ``avg``; ``has_min_length``,
  ``has_max_length`` -> ``min_length``, ``max_length``; ``has_column`` and
  ``has_column_type`` (one type) -> a ``schema`` check (``when required column
  missing``, ``when wrong column type``, Soda comparing its data source's
  type names); ``is_fresh`` without a reference time -> ``freshness(col) <
  Nh`` (Soda's age is relative to the scan time; its bound is strict where
  autovalidate allows the age to equal it).
* A Warning-level check's checks are written ``warn: when <the failing condition>``.
* Other constraints are skipped with the reason (listed in the file's header).

Soda renders ``${...}`` in a checks file as Jinja with the process's
environment variables in scope (``${AWS_SECRET_ACCESS_KEY}``), and ``{%``
and ``{#`` tags: every character that would open one in text from the data
is written as an expression that renders to it (``${ '$' }``,
:func:`~autovalidate.export.base.template_escaped`). A column name with a
``"`` cannot be quoted in a check and is skipped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
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
    number_text,
    template_escaped,
    translated_pattern,
    yaml_text,
)
from autovalidate.pattern_constraint import PatternConstraint

if TYPE_CHECKING:
    from autovalidate.checks.spec import ConstraintSuite

__all__ = ["export"]

_MAPPING = [
    "pattern constraint -> invalid_count = 0 (strict) or invalid_percent <= p % (Fisher "
    "test) with valid regex in the sql dialect (^(...)$, POSIX, ASCII letter classes)",
    "a fraction assertion (>= x) -> a percent of invalid or missing rows <= (1 - x) * 100",
    "Warning-level checks -> warn: when <the failing condition>",
]

_NEGATED = {">=": "<", ">": "<=", "<=": ">", "<": ">=", "=": "!="}


@dataclass(frozen=True)
class _Check:
    """``metric op value`` passes; ``config`` holds ``valid ...`` keys and the name."""

    metric: str
    op: str
    value: str
    config: dict[str, Any]

    def render(self, warning: bool) -> Any:
        config = dict(self.config)
        if warning:
            negated = "not between" if self.op == "between" else _NEGATED[self.op]
            config["warn"] = f"when {negated} {self.value}"
            return {self.metric: config}
        line = f"{self.metric} {self.op} {self.value}"
        return {line: config} if config else line


@dataclass(frozen=True)
class _SchemaCheck:
    """A ``schema`` check failing (or warning) on ``conditions``."""

    conditions: dict[str, Any]
    name: str

    def render(self, warning: bool) -> Any:
        return {"schema": {"name": self.name, "warn" if warning else "fail": self.conditions}}


def _freshness(item: Item, col: str, name: dict[str, Any]) -> _Check:
    if item.arg("reference_time") is not None:
        raise Unmappable("is_fresh with a reference time: Soda's freshness is relative to now")
    minutes = float(item.arg("max_age_hours")) * 60
    if minutes != int(minutes):
        raise Unmappable("is_fresh: Soda's freshness takes whole minutes")
    threshold = f"{int(minutes) // 60}h" if minutes % 60 == 0 else f"{int(minutes)}m"
    return _Check(f"freshness({col})", "<", threshold, name)


def _column(name: str | None) -> str:
    assert name is not None
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        return name
    if '"' in name or any(ord(ch) < 0x20 for ch in name):
        raise Unmappable(f"column {name!r}: a quote or a control character cannot be quoted")
    return '"' + name + '"'


def _jinja_literal(ch: str) -> str:
    return "${ '" + ch + "' }"


def _percent(fraction: float) -> str:
    return f"{round(fraction * 100, 6):g} %"


def _bound_checks(metric: str, item: Item) -> list[_Check]:
    b = bounds(item.assertion)
    if b.low is not None and b.high is not None and not (b.strict_low or b.strict_high):
        if b.low == b.high:
            return [_Check(metric, "=", number_text(b.low), {})]
        return [_Check(metric, "between", f"{number_text(b.low)} and {number_text(b.high)}", {})]
    out = []
    if b.low is not None:
        out.append(_Check(metric, ">" if b.strict_low else ">=", number_text(b.low), {}))
    if b.high is not None:
        out.append(_Check(metric, "<" if b.strict_high else "<=", number_text(b.high), {}))
    return out


def _every_row(item: Item) -> None:
    if min_fraction(item.assertion) < 1.0:
        raise Unmappable(f"{item.method} on a fraction of the rows: Soda has no such check")


def _checks(item: Item, notes: list[str]) -> list[_Check] | list[_SchemaCheck]:
    """The checks of one constraint (those of a range: a ``min`` and a ``max``)."""
    m, col = item.method, _column(item.column) if item.column is not None else ""
    name = {"name": f"{item.description}: {item.label}"}
    if m == "has_column":
        return [_SchemaCheck({"when required column missing": [item.column]}, name["name"])]
    if m == "has_column_type":
        types = item.arg("types")
        if not isinstance(types, str) and len(types) != 1:
            raise Unmappable("has_column_type with several types: Soda's schema check takes one")
        type_ = types if isinstance(types, str) else types[0]
        wrong = {"when wrong column type": {item.column: type_}}
        return [_SchemaCheck(wrong, name["name"])]
    if m == "is_fresh":
        return [_freshness(item, col, name)]
    if isinstance(item.constraint, PatternConstraint):
        rule = translated_pattern(item.constraint, "sql")
        add_note(notes, rule.notes)
        config: dict[str, Any] = {"valid regex": rule.translation.regex, **name}
        if rule.tolerance.max_count == 0:
            return [_Check(f"invalid_count({col})", "=", "0", config)]
        return [
            _Check(f"invalid_percent({col})", "<=", _percent(rule.tolerance.max_fraction), config)
        ]
    if m in ("is_complete", "has_completeness"):
        fraction = min_fraction(item.assertion)
        if fraction == 1.0:
            return [_Check(f"missing_count({col})", "=", "0", name)]
        return [_Check(f"missing_percent({col})", "<=", _percent(1 - fraction), name)]
    if m == "is_unique":
        columns = item.arg("column")
        names = col if isinstance(columns, str) else ", ".join(_column(c) for c in columns)
        return [_Check(f"duplicate_count({names})", "=", "0", name)]
    if m == "is_contained_in":
        fraction = min_fraction(item.assertion)
        config = {"valid values": list(item.arg("allowed_values")), **name}
        if fraction == 1.0:
            return [_Check(f"invalid_count({col})", "=", "0", config)]
        return [_Check(f"invalid_percent({col})", "<=", _percent(1 - fraction), config)]
    if m in ("is_non_negative", "is_positive"):
        _every_row(item)
        return [_Check(f"min({col})", ">" if m == "is_positive" else ">=", "0", name)]
    if m == "is_in_range":
        _every_row(item)
        low_op = ">=" if item.arg("include_lower_bound") is not False else ">"
        high_op = "<=" if item.arg("include_upper_bound") is not False else "<"
        return [
            _Check(f"min({col})", low_op, number_text(item.arg("lower_bound")), name),
            _Check(f"max({col})", high_op, number_text(item.arg("upper_bound")), name),
        ]
    metric = {
        "has_size": "row_count",
        "has_min": f"min({col})",
        "has_max": f"max({col})",
        "has_mean": f"avg({col})",
        "has_min_length": f"min_length({col})",
        "has_max_length": f"max_length({col})",
    }.get(m)
    if metric is None:
        raise Unmappable(f"no SodaCL check for {m}")
    return [
        _Check(c.metric, c.op, c.value, {**c.config, **name}) for c in _bound_checks(metric, item)
    ]


def export(
    suite: ConstraintSuite, *, name: str, rename: Mapping[str, str] | None = None
) -> SuiteExport:
    """Write ``suite`` as SodaCL checks for the dataset ``name``.

    Parameters
    ----------
    suite
        The constraint suite.
    name
        The dataset (table) the checks are for: ``checks for NAME``.
    rename
        Suite column -> the column's name in the dataset.

    Returns
    -------
    SuiteExport
        YAML text; the mapping is stated in its header comment.
    """
    mapped, skipped, notes = collect(suite, rename or {}, _checks)
    checks = [check.render(item.warning) for item, group in mapped for check in group]
    body = yaml_text(
        template_escaped({f"checks for {name}": checks}, ("${", "{%", "{#"), _jinja_literal)
    )
    text = commented(header("Soda Core 3 (SodaCL)", _MAPPING, notes, skipped), body)
    return SuiteExport("soda", text, len(mapped), tuple(skipped), tuple(notes))
