"""JSON Schemas of the files autovalidate reads as untrusted input: suites and pattern constraints.

A suite travels like code and is edited by hand, so it is checked on load
against a schema (`JSON Schema <https://json-schema.org>`_ draft 2020-12,
checked by the ``jsonschema`` package) before anything in it is used: every
field's type and range (a fraction in [0, 1], a count >= 0, a finite number, a
list of strings), and no field the format does not know. A string where a
number belongs (``"alpha": "0.01"``), a string where a list belongs
(``"allowed_values": "abc"``, ``"null_tokens": "NULL"``) or a boolean where a
count belongs (``"train_n": true``) is refused with one line naming the file,
the JSON path of the field and what it should be (:func:`check_document`).

:data:`SUITE_SCHEMA` describes a suite (version 1 or 2),
:data:`PATTERN_CONSTRAINT_SCHEMA` one pattern constraint (a file of its own,
or an item of a suite). The lists of names below (drift tests, check levels,
data types, assertion ops) are the code's own; a unit test holds them equal.
"""

from __future__ import annotations

import functools
import json
import math
import re
import sys
from collections.abc import Mapping
from typing import Any

__all__ = ["PATTERN_CONSTRAINT_SCHEMA", "SUITE_SCHEMA", "check_document", "parse_json"]

#: The largest finite JSON number; larger ones (``1e400``, ``10**400``) are refused.
_MAX = sys.float_info.max
_FINITE: dict[str, Any] = {"type": "number", "minimum": -_MAX, "maximum": _MAX}
_FRACTION: dict[str, Any] = {"type": "number", "minimum": 0, "maximum": 1}
_COUNT: dict[str, Any] = {"type": "integer", "minimum": 0}
_TEXT: dict[str, Any] = {"type": "string"}
_OPTIONAL_TEXT: dict[str, Any] = {"type": ["string", "null"]}
_TEXTS: dict[str, Any] = {"type": "array", "items": _TEXT}

#: :data:`autovalidate.drift.TESTS`.
DRIFT_TESTS = ["fisher", "chi2", "strict"]
#: :data:`autovalidate.metrics.distribution.DISTRIBUTION_TESTS` (``has_no_drift``'s ``test``).
DISTRIBUTION_TESTS = ["ks", "chi2", "psi", "js"]
#: The methods that infer pattern constraints (``suggest --method``).
METHODS = ["fmdv", "fmdv-v", "fmdv-h", "fmdv-vh"]
#: :class:`autovalidate.checks.CheckLevel` values.
CHECK_LEVELS = ["Error", "Warning"]
#: :class:`autovalidate.checks.ConstrainableDataType` values.
DATA_TYPES = ["Null", "Fractional", "Integral", "Boolean", "String", "Numeric"]
#: :class:`autovalidate.checks.spec.Assertion` ops.
ASSERTION_OPS = ["==", "!=", "<", "<=", ">", ">=", "between"]
#: Where a pattern segment's ``fpr`` comes from (:class:`autovalidate.solver.search.Hypothesis`).
EVIDENCE = ["corpus", "positions", "literal"]
#: The most times a repeated segment may occur, in a suite and in a rendered regex
#: (:mod:`autovalidate.patterns.render`; RE2 accepts bounds up to 1000).
MAX_REPEAT = 1000
#: The analyzers of :mod:`autovalidate.metrics` (``has_no_anomalies``' ``analyzer``,
#: read by :func:`autovalidate.metrics.codec.analyzer_from_dict`).
ANALYZERS = [
    "ApproxCountDistinct",
    "ApproxQuantile",
    "ApproxQuantiles",
    "ColumnTypes",
    "Completeness",
    "Compliance",
    "Correlation",
    "CountDistinct",
    "CustomSql",
    "DataType",
    "Distinctness",
    "DistributionDrift",
    "DuplicateCount",
    "Entropy",
    "ExactQuantile",
    "Histogram",
    "InterquartileRange",
    "Kurtosis",
    "MaxLength",
    "Maximum",
    "Mean",
    "MinLength",
    "Minimum",
    "Monotonicity",
    "MutualInformation",
    "NewestTimestamp",
    "PatternConformance",
    "PatternMatch",
    "Range",
    "RatioOfSums",
    "ReferentialIntegrity",
    "Size",
    "Skewness",
    "StandardDeviation",
    "Sum",
    "UniqueValueRatio",
    "Uniqueness",
    "Variance",
    "ZeroCount",
]
#: The Check methods whose ``column`` may be a list of columns; the others' is one name.
COLUMN_OR_LIST = ["is_unique"]
#: The Check methods whose ``columns`` is a list, never one name (a name is not its letters).
COLUMNS_LIST = ["has_columns", "satisfies"]
#: :data:`autovalidate.anomaly.STRATEGIES` (``has_no_anomalies``' ``strategy``).
STRATEGIES = [
    "SimpleThreshold",
    "AbsoluteChange",
    "RelativeRateOfChange",
    "OnlineNormal",
    "BatchNormal",
    "HoltWinters",
    "ExponentialSmoothing",
]

PATTERN_CONSTRAINT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": [
        "kind",
        "version",
        "regex",
        "pattern",
        "fpr",
        "method",
        "test",
        "alpha",
        "train_n",
        "train_nonconforming",
    ],
    "additionalProperties": False,
    "properties": {
        "kind": {"const": "autovalidate-pattern"},
        "version": {"type": "integer"},  # the loader names a version it does not read
        "regex": _TEXT,
        "pattern": _TEXT,
        "segments": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["pattern"],
                "additionalProperties": False,
                "properties": {
                    "pattern": _TEXT,
                    "regex": _TEXT,
                    "fpr": {**_FINITE, "minimum": 0},
                    "cov": _COUNT,
                    "evidence": {"enum": EVIDENCE, "title": "segment evidence"},
                    "shape_risk": _FRACTION,
                    "optional": {"type": "boolean"},
                    "repeat": {"type": "integer", "minimum": 2, "maximum": MAX_REPEAT},
                    "branch": _COUNT,
                    "parts": {
                        "type": "array",
                        "minItems": 1,
                        "items": {
                            "type": "object",
                            "required": ["pattern"],
                            "additionalProperties": False,
                            # required or optional, never repeated: a repeat inside a
                            # repeated segment multiplies the regex (RE2 compiles it out)
                            "properties": {"pattern": _TEXT, "optional": {"type": "boolean"}},
                        },
                    },
                },
            },
        },
        "fpr": {**_FINITE, "minimum": 0},
        "method": {"enum": METHODS, "title": "method"},
        "test": {"enum": DRIFT_TESTS, "title": "drift test"},
        "alpha": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        "train_n": _COUNT,
        "train_nonconforming": _COUNT,
        "column": _OPTIONAL_TEXT,
        "params": {"type": "object"},
        "index": {"type": "object"},
        "null_tokens": _TEXTS,
        "digest": _TEXT,
    },
}

# (a keyword of one type, such as "minimum" or "items", ignores values of the others)
_ASSERTION: dict[str, Any] = {
    "type": ["object", "null"],
    "required": ["op", "value"],
    "additionalProperties": False,
    "properties": {
        "op": {"enum": ASSERTION_OPS, "title": "assertion op"},
        "value": {
            **_FINITE,
            "type": ["number", "array"],
            "items": _FINITE,
            "minItems": 2,
            "maxItems": 2,
        },
    },
}

_COLUMNS: dict[str, Any] = {"type": ["string", "array"], "items": _TEXT}
_REFERENCE: dict[str, Any] = {
    "const": None,
    "title": "reference (a suite names it: reference_name)",
}

#: ``has_no_anomalies``' analyzer: its class and fields by name (a field's type is
#: the same in every analyzer that has it; the class refuses a field it lacks).
#: The codec would pass anything on: a column as a list of lists, reference data.
_ANALYZER: dict[str, Any] = {
    "type": "object",
    "required": ["analyzer"],
    "additionalProperties": False,
    "properties": {
        "analyzer": {"enum": ANALYZERS, "title": "analyzer"},
        "column": _TEXT,
        "columns": _COLUMNS,
        "first_column": _TEXT,
        "second_column": _TEXT,
        "where": _OPTIONAL_TEXT,
        "instance_name": _TEXT,
        "predicate": _TEXT,
        "query": _TEXT,
        "numerator": _TEXT,
        "denominator": _TEXT,
        "order_by": _TEXT,
        "decreasing": {"type": "boolean"},
        "strictly": {"type": "boolean"},
        "pattern": _TEXT,
        "null_tokens": _TEXTS,
        "quantile": _FRACTION,
        "quantiles": {"type": "array", "items": _FRACTION},
        "relative_error": _FRACTION,
        "precision": {"type": "integer"},
        "max_detail_bins": {"type": "integer"},
        "test": {"enum": DISTRIBUTION_TESTS, "title": "drift test"},
        "threshold": {"type": ["number", "null"], "minimum": 0, "maximum": _MAX},
        "reference": _REFERENCE,
        "reference_name": _TEXT,
        "reference_columns": {"type": ["string", "array", "null"], "items": _TEXT},
    },
}

_RATE: dict[str, Any] = {"type": ["number", "null"]}
_FACTOR: dict[str, Any] = {"type": ["number", "null"], "minimum": 0}

#: ``has_no_anomalies``' strategy: its name and parameters (an open bound may be
#: an infinity; the strategy refuses a parameter it lacks, and inverted bounds).
_STRATEGY: dict[str, Any] = {
    "type": "object",
    "required": ["strategy"],
    "additionalProperties": False,
    "properties": {
        "strategy": {"enum": STRATEGIES, "title": "anomaly detection strategy"},
        "upper_bound": {"type": "number"},
        "lower_bound": {"type": "number"},
        "max_rate_decrease": _RATE,
        "max_rate_increase": _RATE,
        "order": {"type": "integer", "minimum": 1},
        "lower_deviation_factor": _FACTOR,
        "upper_deviation_factor": _FACTOR,
        "ignore_start_percentage": _FRACTION,
        "ignore_anomalies": {"type": "boolean"},
        "include_interval": {"type": "boolean"},
        "periodicity": {"type": "integer", "minimum": 2},
        "confidence": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
    },
}

_DEEQU_CONSTRAINT: dict[str, Any] = {
    "type": "object",
    "required": ["kind", "constraint"],
    "additionalProperties": False,
    # a list where a method takes one column failed in its SQL (an AttributeError); a
    # name where it takes a list was read as its letters ("id": columns "i" and "d")
    "allOf": [
        {
            "if": {"properties": {"constraint": {"enum": COLUMN_OR_LIST}}},
            "else": {"properties": {"column": _TEXT}},
        },
        {
            "if": {"properties": {"constraint": {"enum": COLUMNS_LIST}}},
            "then": {"properties": {"columns": _TEXTS}},
        },
    ],
    "properties": {
        "kind": {"const": "deequ"},
        "constraint": _TEXT,
        "assertion": _ASSERTION,
        "where": _OPTIONAL_TEXT,
        "hint": _OPTIONAL_TEXT,
        # the Check methods' arguments, by parameter name
        "column": _COLUMNS,
        "columns": _COLUMNS,
        "column_a": _TEXT,
        "column_b": _TEXT,
        "quantile": _FRACTION,
        "relative_error": _FRACTION,
        "data_type": {"enum": DATA_TYPES, "title": "data type"},
        "pattern": _TEXT,
        "name": _OPTIONAL_TEXT,
        "allowed_values": {
            "type": "array",
            "items": {**_FINITE, "type": ["string", "boolean", "number"]},
        },
        "allowed_pairs": {
            "type": "array",
            "items": {
                "type": "array",
                "minItems": 2,
                "maxItems": 2,
                "items": {**_FINITE, "type": ["string", "boolean", "number", "null"]},
            },
        },
        "lower_bound": _FINITE,
        "upper_bound": _FINITE,
        "include_lower_bound": {"type": "boolean"},
        "include_upper_bound": {"type": "boolean"},
        "predicate": _TEXT,
        "constraint_name": _TEXT,
        "datetime_format": _TEXT,
        "numerator": _TEXT,
        "query": _TEXT,
        "order_by": _TEXT,
        "strictly": {"type": "boolean"},
        "denominator": _TEXT,
        # schema and freshness
        "types": {"type": ["string", "array"], "items": _TEXT},
        "exact": {"type": "boolean"},
        "ordered": {"type": "boolean"},
        "schema": {"type": "object", "additionalProperties": _TEXT},
        "allow_added": {"type": "boolean"},
        "max_age_hours": {"type": "number", "minimum": 0, "maximum": _MAX},
        "reference_time": _OPTIONAL_TEXT,
        # has_referential_integrity, has_no_drift: the suite names the reference data,
        # the caller binds the name when the suite runs; data, a path or a query is refused
        "reference": _REFERENCE,
        "reference_name": _TEXT,
        "reference_columns": {"type": ["string", "array", "null"], "items": _TEXT},
        "test": {"enum": DISTRIBUTION_TESTS, "title": "drift test"},
        "threshold": {"type": ["number", "null"], "minimum": 0, "maximum": _MAX},
        # has_no_anomalies
        "analyzer": _ANALYZER,
        "strategy": _STRATEGY,
        "dataset": _TEXT,
        "tags": {"type": "object", "additionalProperties": _TEXT},
        "after": {"type": ["integer", "null"]},
        "before": {"type": ["integer", "null"]},
    },
}

_CONSTRAINT: dict[str, Any] = {
    "type": "object",
    "required": ["kind"],
    "properties": {"kind": {"enum": ["deequ", "autovalidate-pattern"], "title": "constraint kind"}},
    "allOf": [
        {
            "if": {"properties": {"kind": {"const": "deequ"}}},
            "then": _DEEQU_CONSTRAINT,
        },
        {
            "if": {"properties": {"kind": {"const": "autovalidate-pattern"}}},
            "then": PATTERN_CONSTRAINT_SCHEMA,
        },
    ],
}

SUITE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "autovalidate constraint suite",
    "type": "object",
    "required": ["format", "version"],
    "properties": {
        "format": {"const": "autovalidate-suite"},
        "version": {"enum": [1, 2]},
    },
    "allOf": [
        {
            "if": {"properties": {"version": {"const": 1}}},
            "then": {
                "required": ["constraints"],
                "additionalProperties": False,
                "properties": {
                    "format": True,
                    "version": True,
                    "constraints": {"type": "array", "items": PATTERN_CONSTRAINT_SCHEMA},
                },
            },
        },
        {
            "if": {"properties": {"version": {"const": 2}}},
            "then": {
                "required": ["checks"],
                "additionalProperties": False,
                "properties": {
                    "format": True,
                    "version": True,
                    "checks": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["constraints"],
                            "additionalProperties": False,
                            "properties": {
                                "description": _TEXT,
                                "level": {"enum": CHECK_LEVELS, "title": "check level"},
                                "constraints": {"type": "array", "items": _CONSTRAINT},
                            },
                        },
                    },
                },
            },
        },
    ],
}


def check_document(doc: Any, schema: Mapping[str, Any], source: str) -> None:
    """Refuse a document that does not fit ``schema``, naming the first field at fault.

    Parameters
    ----------
    doc
        The parsed JSON document.
    schema
        :data:`SUITE_SCHEMA` or :data:`PATTERN_CONSTRAINT_SCHEMA`.
    source
        The file (or ``"constraint"``), for the message.

    Raises
    ------
    ConstraintFormatError
        One line: ``"{source}: {json path}: {what is wrong}"``, e.g.
        ``suite.json: $.checks[0].constraints[0].alpha: must be a number, not
        '0.01'``. Of several faults, the deepest one
        (:func:`jsonschema.exceptions.best_match`).
    """
    from jsonschema.exceptions import best_match

    from autovalidate.errors import ConstraintFormatError

    fault = _not_plain(doc)
    if fault is not None:  # before the schema: a NaN passes every minimum and maximum
        raise ConstraintFormatError(f"{source}: {fault[0]}: {fault[1]}")
    error = best_match(_validator(schema).iter_errors(doc), key=_deepest)
    if error is not None:
        raise ConstraintFormatError(f"{source}: {error.json_path}: {_said(error)}")


#: A UTF-16 surrogate, which ``json.loads`` reads from a ``\\ud800`` escape left unpaired.
_SURROGATE = re.compile("[\ud800-\udfff]")


def _not_plain(doc: Any) -> tuple[str, str] | None:
    r"""The JSON path of a value ``doc`` may not hold, and what it is; or None.

    Python's JSON parser reads ``NaN`` (and ``Infinity``), which JSON (RFC
    8259, §6) has no number for, and a NaN compares false with every bound of
    a schema: a suite's ``"lower_bound": NaN`` would pass and fail its check
    for a reason the file does not show. An infinity is a number the schema
    bounds where it must (an anomaly strategy's open bound is one).

    It also reads an unpaired ``\ud800`` escape into a string no UTF-8 can
    encode: such a name or description reached DuckDB and the terminal and
    failed there (an unexpected ``UnicodeEncodeError``, a ``TypeError``). And
    of a key given twice in an object it keeps the last value, where a reader
    of the file may see the first (:func:`parse_json`'s ``keys_once``).
    """

    def fault(value: Any) -> str | None:
        if isinstance(value, float) and math.isnan(value):
            return "NaN is not a number"
        if isinstance(value, str) and not value.isascii() and (lone := _SURROGATE.search(value)):
            return f"{_shown(value)} is not text: {lone.group()!r} is half of a surrogate pair"
        return None

    if (said := fault(doc)) is not None:
        return "$", said
    stack: list[tuple[str, Any]] = [("$", doc)] if isinstance(doc, (Mapping, list, tuple)) else []
    while stack:  # containers only: a path is spelled for a value found, not for each
        path, node = stack.pop()
        if isinstance(node, _KeyTwice):
            return f"{path}.{node.key}", "given twice (JSON keeps the last: which one is meant?)"
        mapping = isinstance(node, Mapping)
        spell = "{}.{}" if mapping else "{}[{}]"
        inner = []
        for key, value in node.items() if mapping else enumerate(node):
            if (said := fault(key)) is not None:  # a tag's name, a schema's column
                return spell.format(path, _shown(key)), said
            if (said := fault(value)) is not None:
                return spell.format(path, key), said
            if isinstance(value, (Mapping, list, tuple)):
                inner.append((key, value))
        stack.extend((spell.format(path, k), v) for k, v in reversed(inner))
    return None


_TYPE_NAMES = {
    "array": "a list",
    "object": "an object",
    "number": "a number",
    "integer": "an integer",
    "string": "a string",
    "boolean": "true or false",
    "null": "null",
}


def _shown(value: Any) -> str:
    """``value`` as Python writes it, cut after 40 characters (a 400-digit number, a long list)."""
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:40] + "..."


def _said(error: Any) -> str:
    """What is wrong, in one line: the expected type, the known names, or the rule broken."""
    shown = _shown(error.instance)
    if error.validator == "type":
        expected = error.validator_value
        names = [expected] if isinstance(expected, str) else list(expected)
        return f"must be {' or '.join(_TYPE_NAMES.get(n, n) for n in names)}, not {shown}"
    if error.validator in ("enum", "const"):
        title = error.schema.get("title", "value")
        options = error.validator_value if error.validator == "enum" else [error.validator_value]
        return f"unknown {title} {shown}; expected {' or '.join(map(repr, options))}"
    return " ".join(error.message.replace(repr(error.instance), shown).split())


def _is_integer(checker: Any, instance: Any) -> bool:
    """An int, not a float of an integral value: JSON Schema's integer takes ``2.0``.

    A count, an order or a period of ``2.0`` reached the code as a float, where
    a slice or a shift failed on it (an anomaly strategy's ``"order": 2.0``
    failed its check on every run; ``"precision": 12.0`` raised a ``TypeError``).
    autovalidate writes integers without a fraction.
    """
    return isinstance(instance, int) and not isinstance(instance, bool)


@functools.cache
def _cached_validator(key: int) -> Any:
    import jsonschema

    base = jsonschema.Draft202012Validator
    strict = jsonschema.validators.extend(
        base, type_checker=base.TYPE_CHECKER.redefine("integer", _is_integer)
    )
    return strict(_SCHEMAS[key])


_SCHEMAS: dict[int, Mapping[str, Any]] = {}


def _validator(schema: Mapping[str, Any]) -> Any:
    """One validator per schema, built once (building one costs more than most checks)."""
    _SCHEMAS.setdefault(id(schema), schema)
    return _cached_validator(id(schema))


def _deepest(error: Any) -> tuple[int, ...]:
    """Rank errors deepest first (the field itself, not the object holding it)."""
    from jsonschema.exceptions import relevance

    return (len(error.absolute_path), *relevance(error))


#: The deepest nesting :func:`parse_json` reads. A suite nests 8 levels (an allowed
#: pair in a constraint), the other files fewer; the code that reads a document
#: (``repr`` of a value in an error, the schema check, a report) recurses once a level.
MAX_NESTING = 100


class _KeyTwice(dict[str, Any]):
    """An object whose JSON text gives a key twice; ``json.loads`` keeps the last value.

    A reader of the file (a review, another tool) may take the first, so a
    suite whose object gives a key twice is refused (:func:`check_document`,
    naming the key's path), not run as the last value says.
    """

    key: str


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) == len(pairs):
        return out
    seen: set[str] = set()
    for key, _ in pairs:  # the first key given again
        if key in seen:
            break
        seen.add(key)
    marked = _KeyTwice(out)
    marked.key = key
    return marked


def parse_json(text: str, *, keys_once: bool = False) -> Any:
    """The JSON document ``text`` (a suite, a program, a metrics or metadata file).

    With ``keys_once``, an object that gives a key twice is marked, for
    :func:`check_document` to refuse (a suite).

    Raises
    ------
    json.JSONDecodeError
        If ``text`` is not JSON, or nests deeper than :data:`MAX_NESTING`
        levels: Python's parser recurses once per level (``[[[[...]]]]``
        100,000 deep ended in a ``RecursionError``), and where it stops
        depends on how deep the stack already is, so a document nested a few
        levels short of that was read and the first ``repr`` of it failed (a
        suite 960 deep: an unexpected ``RecursionError`` from ``validate``).
    """
    try:
        doc = json.loads(text, object_pairs_hook=_object if keys_once else None)
        deep = _deeper_than(doc, MAX_NESTING)
    except RecursionError:
        deep = True
    if deep:
        raise json.JSONDecodeError("nested too deeply to read", text, 0) from None
    return doc


def _deeper_than(doc: Any, levels: int) -> bool:
    """Whether ``doc`` nests lists and objects more than ``levels`` deep (without recursing)."""
    stack = [(doc, 1)] if isinstance(doc, (dict, list)) else []
    while stack:
        node, depth = stack.pop()
        if depth > levels:
            return True
        inner = node.values() if isinstance(node, dict) else node
        stack.extend((v, depth + 1) for v in inner if isinstance(v, (dict, list)))
    return False
