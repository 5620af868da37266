"""A suite as a dbt ``schema.yml`` (dbt >= 1.10) with dbt-core and dbt-expectations tests.

Put the file under ``models/`` beside the model NAME; the dbt-expectations
tests need the package (``packages.yml``: ``metaplane/dbt_expectations``).

Mapping
-------
* A pattern constraint is ``dbt_expectations.expect_column_values_to_match_regex``
  with ``is_raw: true``. dbt-expectations runs the regex in the warehouse's SQL
  (``regexp_like``, ``~``, ``rlike``...), which searches, so the regex is in the
  ``sql`` dialect (:mod:`autovalidate.export.regex`): ``^(...)$``, POSIX syntax,
  ASCII letter classes. dbt tests count failing rows and have no fraction: a
  tolerant rule's Fisher test becomes ``config: error_if: ">K"``, K the test's
  own critical count for a batch as large as the training data
  (:mod:`autovalidate.export.tolerance`), so it approximates the test only for
  batches of about that size.
* Deequ constraints (every row): ``is_complete`` -> ``not_null``; ``is_unique``
  -> ``unique`` (one column); ``is_contained_in`` -> ``accepted_values``;
  ``is_non_negative``, ``is_positive``, ``is_in_range`` ->
  ``dbt_expectations.expect_column_values_to_be_between``; ``has_size`` ->
  ``dbt_expectations.expect_table_row_count_to_be_between`` (a model test);
  ``has_min``, ``has_max``, ``has_mean`` ->
  ``dbt_expectations.expect_column_min/max/mean_to_be_between``;
  ``has_min_length`` (lower bound), ``has_max_length`` (upper bound) ->
  ``dbt_expectations.expect_column_value_lengths_to_be_between``. A fraction
  below 1 (``has_completeness``, ``is_contained_in`` with ``>= 0.9``) has no
  equivalent without the batch size and is skipped.
* A Warning-level check's tests have ``config: severity: warn``.
* Other constraints are skipped with the reason (listed in the header).

dbt renders Jinja in the file (column names when it parses it, test
arguments when it compiles the tests), so text from the data never reaches
it as Jinja: every ``{`` that would open a tag (``{{``, ``{%``, ``{#``) is
written ``{{ '{' }}``, which renders to ``{`` (:func:`~autovalidate.export.base.template_escaped`;
a ``{% raw %}`` block could be ended by an ``{% endraw %}`` in the data).
A column whose name is not a plain identifier gets ``quote: true``, so that
dbt's tests quote it in their SQL. dbt quotes names and accepted values
without escaping them, so a column name with a ``"`` and accepted values
with a ``'`` are skipped (they would end the quoted SQL text early).
"""

from __future__ import annotations

import re
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
    template_escaped,
    translated_pattern,
    yaml_text,
)
from autovalidate.pattern_constraint import PatternConstraint

if TYPE_CHECKING:
    from autovalidate.checks.spec import ConstraintSuite

__all__ = ["export"]

_MAPPING = [
    "pattern constraint -> dbt_expectations.expect_column_values_to_match_regex (is_raw, sql "
    'dialect: ^(...)$, POSIX, ASCII letter classes); the Fisher test -> error_if: ">K"',
    "Deequ constraints on every row -> dbt-core and dbt-expectations tests; fractions below 1 "
    "are skipped (dbt tests count rows)",
    "Warning-level checks -> config: severity: warn",
]
_EXPECT = "dbt_expectations.expect_"
#: What opens a Jinja tag, and a column name dbt's tests can leave unquoted.
_JINJA = ("{{", "{%", "{#")
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _jinja_literal(ch: str) -> str:
    return "{{ '" + ch + "' }}"


_BETWEEN = {"has_min": "min", "has_max": "max", "has_mean": "mean"}


def _every_row(item: Item) -> None:
    if min_fraction(item.assertion) < 1.0:
        raise Unmappable(
            f"{item.method} on a fraction of the rows: dbt tests count failing rows, and the "
            "batch size is unknown"
        )


def _between_args(item: Item) -> dict[str, Any]:
    b = bounds(item.assertion)
    if b.strict_low != b.strict_high and b.low is not None and b.high is not None:
        raise Unmappable(f"{item.assertion}: dbt-expectations has one 'strictly' for both ends")
    args: dict[str, Any] = {}
    if b.low is not None:
        args["min_value"] = b.low
    if b.high is not None:
        args["max_value"] = b.high
    if b.strict_low or b.strict_high:
        args["strictly"] = True
    return args


def _test(item: Item, notes: list[str]) -> tuple[bool, Any]:
    """``(model_level, test)``: a test name, or ``{name: {arguments, config}}``."""
    m = item.method
    if item.column is not None and '"' in item.column:
        raise Unmappable(f'column {item.column!r}: dbt quotes a name without escaping its "')
    config: dict[str, Any] = {"severity": "warn"} if item.warning else {}
    args: dict[str, Any]
    if isinstance(item.constraint, PatternConstraint):
        rule = translated_pattern(item.constraint, "sql")
        add_note(notes, rule.notes)
        name = _EXPECT + "column_values_to_match_regex"
        args = {"regex": rule.translation.regex, "is_raw": True}
        if rule.tolerance.max_count:
            config["error_if"] = f">{rule.tolerance.max_count}"
    elif m == "is_complete":
        name, args = "not_null", {}
    elif m == "is_unique":
        if not isinstance(item.arg("column"), str):
            raise Unmappable("unique takes one column (several: dbt_utils' test)")
        name, args = "unique", {}
    elif m == "is_contained_in":
        _every_row(item)
        values = list(item.arg("allowed_values"))
        if any("'" in str(v) for v in values):
            raise Unmappable("a value with a ': dbt's accepted_values quotes without escaping")
        name, args = "accepted_values", {"values": values}
    elif m in ("is_non_negative", "is_positive", "is_in_range"):
        _every_row(item)
        name = _EXPECT + "column_values_to_be_between"
        if m == "is_in_range":
            low_open = item.arg("include_lower_bound") is False
            if low_open != (item.arg("include_upper_bound") is False):
                raise Unmappable("dbt-expectations has one 'strictly' for both ends")
            args = {"min_value": item.arg("lower_bound"), "max_value": item.arg("upper_bound")}
            if low_open:
                args["strictly"] = True
        else:
            args = {"min_value": 0}
            if m == "is_positive":
                args["strictly"] = True
    elif m == "has_size":
        name, args = _EXPECT + "table_row_count_to_be_between", _between_args(item)
        return True, {name: _properties(args, config)}
    elif m in _BETWEEN:
        name, args = _EXPECT + f"column_{_BETWEEN[m]}_to_be_between", _between_args(item)
    elif m in ("has_min_length", "has_max_length"):
        args = _between_args(item)
        wanted = "min_value" if m == "has_min_length" else "max_value"
        if set(args) - {wanted} or wanted not in args:
            raise Unmappable(
                f"{m} {item.assertion}: only a {'lower' if wanted == 'min_value' else 'upper'} "
                "bound is a bound on every value's length (and not a strict one)"
            )
        name = _EXPECT + "column_value_lengths_to_be_between"
    else:
        raise Unmappable(f"no dbt test for {m}")
    return False, ({name: _properties(args, config)} if args or config else name)


def _properties(args: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if args:
        out["arguments"] = args
    if config:
        out["config"] = config
    return out


def export(
    suite: ConstraintSuite, *, name: str, rename: Mapping[str, str] | None = None
) -> SuiteExport:
    """Write ``suite`` as a dbt properties file for the model ``name``.

    Parameters
    ----------
    suite
        The constraint suite.
    name
        The dbt model the tests are for.
    rename
        Suite column -> the model's column name.

    Returns
    -------
    SuiteExport
        ``schema.yml`` text (``version: 2``); the mapping is stated in its header comment.
    """
    mapped, skipped, notes = collect(suite, rename or {}, _test)
    model_tests = [test for _, (model_level, test) in mapped if model_level]
    columns: dict[str, list[Any]] = {}
    for item, (model_level, test) in mapped:
        if not model_level:
            assert item.column is not None
            columns.setdefault(item.column, []).append(test)
    model: dict[str, Any] = {"name": name, "description": "Tests exported by autovalidate."}
    if model_tests:
        model["data_tests"] = model_tests
    model["columns"] = [
        {"name": c, **({} if _PLAIN.fullmatch(c) else {"quote": True}), "data_tests": tests}
        for c, tests in columns.items()
    ]
    body = yaml_text(template_escaped({"version": 2, "models": [model]}, _JINJA, _jinja_literal))
    lines = header("dbt (dbt-core >= 1.10, dbt-expectations)", _MAPPING, notes, skipped)
    text = commented(lines, body)
    return SuiteExport("dbt", text, len(mapped), tuple(skipped), tuple(notes))
