"""The suite and constraint schemas (issue 30): types, ranges, a digest of the verdict fields."""

from __future__ import annotations

import dataclasses
import inspect
import json
import random

import pytest

import autovalidate.metrics as metrics
from autovalidate.anomaly import STRATEGIES as STRATEGY_CLASSES
from autovalidate.checks.check import CheckLevel, ConstrainableDataType
from autovalidate.checks.spec import _OPS, ConstraintSuite
from autovalidate.drift import TESTS
from autovalidate.errors import ConstraintFormatError
from autovalidate.metrics import Analyzer
from autovalidate.pattern_constraint import PatternConstraint, verdict_digest
from autovalidate.schemas import (
    ANALYZERS,
    ASSERTION_OPS,
    CHECK_LEVELS,
    COLUMN_OR_LIST,
    COLUMNS_LIST,
    DATA_TYPES,
    DRIFT_TESTS,
    MAX_NESTING,
    METHODS,
    STRATEGIES,
    SUITE_SCHEMA,
    parse_json,
)
from tests.spark_support import CODE_CONSTRAINT


def test_the_schemas_names_are_the_codes():
    assert DRIFT_TESTS == list(TESTS)
    assert CHECK_LEVELS == [level.value for level in CheckLevel]
    assert DATA_TYPES == [t.value for t in ConstrainableDataType]
    assert ASSERTION_OPS == [*_OPS, "between"]
    from autovalidate.solver.fmdv import METHODS as SOLVER_METHODS

    assert METHODS == list(SOLVER_METHODS)
    assert STRATEGIES == list(STRATEGY_CLASSES)
    assert ANALYZERS == sorted(ANALYZER_CLASSES)


#: The analyzer classes of autovalidate.metrics, by name: what a suite's analyzer may name.
ANALYZER_CLASSES = {
    name: cls
    for name, cls in vars(metrics).items()
    if isinstance(cls, type) and issubclass(cls, Analyzer) and not inspect.isabstract(cls)
}


def test_the_methods_taking_lists_of_columns_are_the_checks():
    """``column`` is one name, or a list where the method says; ``columns`` a list where it says."""
    from autovalidate.checks.check import SUITE_METHODS, Check

    def annotations(parameter: str) -> dict[str, str]:
        signatures = {m: inspect.signature(getattr(Check, m)).parameters for m in SUITE_METHODS}
        return {m: str(p[parameter].annotation) for m, p in signatures.items() if parameter in p}

    column, columns = annotations("column"), annotations("columns")
    assert set(column.values()) == {"str", "Columns"}  # a name; a name or a list
    assert COLUMN_OR_LIST == sorted(m for m, a in column.items() if a == "Columns")
    assert set(columns.values()) == {"Columns", "Sequence[str]"}
    assert COLUMNS_LIST == sorted(m for m, a in columns.items() if a == "Sequence[str]")


def test_has_no_anomalies_analyzer_and_strategy_fields_are_the_classes():
    """Each field of an analyzer and a strategy has a place (and its type) in the schema."""
    deequ = SUITE_SCHEMA["allOf"][1]["then"]["properties"]["checks"]["items"]["properties"]
    fields = deequ["constraints"]["items"]["allOf"][0]["then"]["properties"]
    analyzer_fields = {f.name for cls in ANALYZER_CLASSES.values() for f in dataclasses.fields(cls)}
    assert set(fields["analyzer"]["properties"]) == analyzer_fields | {"analyzer"}
    strategy_fields = {f.name for cls in STRATEGY_CLASSES.values() for f in dataclasses.fields(cls)}
    assert set(fields["strategy"]["properties"]) == strategy_fields | {"strategy"}


def constraint(**changes: object) -> dict:
    """A tolerant pattern constraint as suggest writes it, with ``changes`` made by hand."""
    return {**CODE_CONSTRAINT.to_dict(), **changes}


def suite(*constraints: dict) -> dict:
    return {
        "format": "autovalidate-suite",
        "version": 2,
        "checks": [{"description": "d", "level": "Error", "constraints": list(constraints)}],
    }


SIZE = {"analyzer": "Size", "where": None}
THRESHOLD = {"strategy": "SimpleThreshold", "upper_bound": 10.0, "lower_bound": float("-inf")}


def anomalies(analyzer: dict = SIZE, strategy: dict = THRESHOLD) -> dict:
    """A has_no_anomalies constraint of a suite, its analyzer or strategy edited by hand."""
    return {
        "kind": "deequ",
        "constraint": "has_no_anomalies",
        "analyzer": analyzer,
        "strategy": strategy,
        "dataset": "orders",
    }


HAND_EDITED = {
    "alpha as a string": (constraint(alpha="0.01"), "alpha: must be a number, not '0.01'"),
    "null tokens as a string": (
        constraint(null_tokens="NULL"),
        "null_tokens: must be a list, not 'NULL'",
    ),
    "train_n true": (constraint(train_n=True), "train_n: must be an integer, not True"),
    "alpha out of range": (constraint(alpha=1.5), "alpha: 1.5 is greater than or equal"),
    "negative count": (constraint(train_nonconforming=-1), "train_nonconforming: -1 is less"),
    "unknown test": (constraint(test="none"), "unknown drift test 'none'"),
    "unknown field": (constraint(tolerance=0.5), "'tolerance' was unexpected"),
    "allowed values as a string": (
        {"kind": "deequ", "constraint": "is_contained_in", "column": "a", "allowed_values": "abc"},
        "allowed_values: must be a list, not 'abc'",
    ),
    "a bound of 10**400": (
        {"kind": "deequ", "constraint": "has_size", "assertion": {"op": ">=", "value": 10**400}},
        "assertion.value: 1000000000000000000000000000000000000000... is greater than the maximum",
    ),
    # json.dumps writes NaN (not JSON), json.loads reads it, and a NaN bound compares
    # false with the schema's minimum and maximum: it loaded and its check failed on
    # every row, for a reason the file does not show
    "a range bound of NaN": (
        {
            "kind": "deequ",
            "constraint": "is_in_range",
            "column": "a",
            "lower_bound": float("nan"),
            "upper_bound": 5.0,
        },
        "lower_bound: NaN is not a number",
    ),
    "a quantile of NaN": (
        {
            "kind": "deequ",
            "constraint": "has_exact_quantile",
            "column": "a",
            "quantile": float("nan"),
            "assertion": {"op": "<=", "value": 3.0},
        },
        "quantile: NaN is not a number",
    ),
    "an assertion between NaN and 1": (
        {
            "kind": "deequ",
            "constraint": "has_mean",
            "column": "a",
            "assertion": {"op": "between", "value": [float("nan"), 1.0]},
        },
        "assertion.value[0]: NaN is not a number",
    ),
    "a bound as a string": (
        {"kind": "deequ", "constraint": "has_size", "assertion": {"op": ">=", "value": "3"}},
        "assertion.value: must be a number or a list, not '3'",
    ),
    # has_no_anomalies' analyzer and strategy went to their classes unchecked: a path
    # as reference data was read, a column as a list of lists raised a TypeError, a
    # strategy's bound of "b" failed the check on every run and "no" was true
    "an anomaly analyzer's reference data as a path": (
        anomalies(analyzer={**SIZE, "analyzer": "ReferentialIntegrity", "reference": "x.csv"}),
        "analyzer.reference: unknown reference (a suite names it: reference_name) 'x.csv'",
    ),
    "an anomaly analyzer's column as a list of lists": (
        anomalies(analyzer={"analyzer": "Completeness", "column": [["a"]]}),
        "analyzer.column: must be a string, not [['a']]",
    ),
    "an unknown anomaly analyzer": (
        anomalies(analyzer={"analyzer": "Analyzer"}),
        "analyzer.analyzer: unknown analyzer 'Analyzer'; expected 'ApproxCountDistinct' or",
    ),
    "an anomaly strategy's bound as a string": (
        anomalies(strategy={"strategy": "SimpleThreshold", "upper_bound": "b"}),
        "strategy.upper_bound: must be a number, not 'b'",
    ),
    "an anomaly strategy's flag as a string": (
        anomalies(strategy={"strategy": "BatchNormal", "include_interval": "no"}),
        "strategy.include_interval: must be true or false, not 'no'",
    ),
    # JSON Schema's integer takes 2.0: a slice failed on it in every run
    "an anomaly strategy's order of 2.0": (
        anomalies(strategy={"strategy": "AbsoluteChange", "max_rate_increase": 1, "order": 2.0}),
        "strategy.order: must be an integer, not 2.0",
    ),
    "an analyzer's precision of 12.0": (
        anomalies(analyzer={"analyzer": "ApproxCountDistinct", "column": "a", "precision": 12.0}),
        "analyzer.precision: must be an integer, not 12.0",
    ),
    # the schema took a list for every column and a name for every list of columns
    "a list where one column is taken": (
        {
            "kind": "deequ",
            "constraint": "is_in_range",
            "column": ["a"],
            "lower_bound": 0.0,
            "upper_bound": 1.0,
        },
        "column: must be a string, not ['a']",
    ),
    "a name where a list of columns is taken": (
        {"kind": "deequ", "constraint": "has_columns", "columns": "id"},
        "columns: must be a list, not 'id'",
    ),
    # an unpaired \ud800 escape: DuckDB and the terminal could not encode the text
    "a column name with a lone surrogate": (
        {"kind": "deequ", "constraint": "is_complete", "column": "a\ud800"},
        "column: 'a\\ud800' is not text: '\\ud800' is half of a surrogate pair",
    ),
    "a schema's column name with a lone surrogate": (
        {"kind": "deequ", "constraint": "has_schema", "schema": {"\udc00": "VARCHAR"}},
        "schema.'\\udc00': '\\udc00' is not text",
    ),
}


@pytest.mark.parametrize("case", sorted(HAND_EDITED))
def test_a_hand_edited_suite_is_refused_naming_file_path_and_type(tmp_path, case):
    item, needle = HAND_EDITED[case]
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(suite(constraint(), item)))
    with pytest.raises(ConstraintFormatError) as info:
        ConstraintSuite.load(path)
    message = str(info.value)
    assert message.startswith(f"{path}: $.checks[0].constraints[1]")
    assert needle in message and "\n" not in message


@pytest.mark.parametrize(
    "edit",
    [
        {"train_nonconforming": 200},  # a tolerance 100 times wider: the check switched off
        {"train_n": 1000},
        {"null_tokens": ["NULL", "x5957"]},  # a typo declared missing
        {"alpha": 1e-300},
        {"test": "strict"},
        {"method": "fmdv"},
    ],
)
def test_an_edit_of_a_verdict_field_breaks_the_digest(edit):
    doc = constraint(**edit)
    with pytest.raises(ConstraintFormatError, match="do not match its digest"):
        PatternConstraint.from_dict(doc)
    with pytest.raises(ConstraintFormatError, match="do not match its digest"):
        ConstraintSuite.from_dict(suite(doc), source="s.json")


def test_fields_outside_the_verdict_and_digestless_constraints_still_load():
    assert PatternConstraint.from_dict(constraint(column="zip")).column == "zip"
    old = constraint()
    del old["digest"]  # written before the digest existed
    assert PatternConstraint.from_dict(old) == PatternConstraint.from_dict(constraint())
    assert verdict_digest(constraint()) == constraint()["digest"]


def test_every_check_method_argument_has_a_place_in_the_schema():
    import inspect

    from autovalidate.checks.check import SUITE_METHODS, Check
    from autovalidate.schemas import SUITE_SCHEMA

    deequ = SUITE_SCHEMA["allOf"][1]["then"]["properties"]["checks"]["items"]["properties"]
    fields = deequ["constraints"]["items"]["allOf"][0]["then"]["properties"]
    for method in SUITE_METHODS:
        names = list(inspect.signature(getattr(Check, method)).parameters)[1:]
        assert set(names) <= set(fields), (method, set(names) - set(fields))


#: A constraint with a repeated segment, as suggest writes one since the solver prices a
#: vertical cut by positions: evidence, shape_risk and repeat on its segments.
REPEATED = {
    "kind": "autovalidate-pattern",
    "version": 1,
    "regex": r"\A(?:\p{L}+(?:\_\p{L}+){0,3})\z",
    "pattern": "<letter>+(_<letter>+){0,3}",
    "segments": [
        {
            "pattern": "<letter>+",
            "regex": r"\p{L}+",
            "fpr": 0.0095,
            "cov": 0,
            "evidence": "positions",
            "shape_risk": 0.0346,
            "optional": False,
        },
        {
            "pattern": "_<letter>+",
            "regex": r"\_\p{L}+",
            "fpr": 0.0012,
            "cov": 0,
            "evidence": "positions",
            "optional": True,
            "repeat": 3,
        },
    ],
    "fpr": 0.0453,
    "method": "fmdv-vh",
    "test": "strict",
    "alpha": 0.01,
    "train_n": 3,
    "train_nonconforming": 0,
    "column": "code",
}


def repeated(**segment_changes: object) -> dict:
    """:data:`REPEATED` with its repeated (second) segment changed by hand."""
    segments = [dict(s) for s in REPEATED["segments"]]
    segments[1].update(segment_changes)
    return {**REPEATED, "segments": segments}


def test_a_suite_with_a_repeated_segment_loads_and_validates(tmp_path):
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(suite(REPEATED)))
    (loaded,) = ConstraintSuite.load(path).pattern_constraints()
    assert loaded.segments[1].repeat == 3
    assert loaded.segments[0].shape_risk == 0.0346
    assert loaded.validate(["ab_cd", "ab_cd_ef_gh", "xy"]).passed
    # four repetitions is one more than the segment allows
    result = loaded.validate(["ab_cd", "ab_cd_ef_gh_ij_kl"])
    assert not result.passed and result.examples == ("ab_cd_ef_gh_ij_kl",)


def test_a_suggested_constraint_with_a_repeated_segment_loads_again(tmp_path):
    from autovalidate.pattern_inference import suggest_pattern

    constraint = suggest_pattern(["ab_cd", "ab_cd_ef", "xy_zz"], column="code")
    assert constraint is not None
    written = constraint.to_dict()
    assert any("repeat" in s for s in written["segments"]), written["segments"]
    assert {s["evidence"] for s in written["segments"]} <= {"corpus", "positions", "literal"}
    path = tmp_path / "suite.json"
    path.write_text(ConstraintSuite.of_patterns([constraint]).to_json())
    (loaded,) = ConstraintSuite.load(path).pattern_constraints()
    assert loaded == constraint
    assert loaded.validate(["ab_cd", "ab_cd_ef", "xy_zz", "ab_cd_ef_gh"]).passed


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"repeat": 1}, "repeat: 1 is less than the minimum of 2"),
        ({"repeat": 1001}, "repeat: 1001 is greater than the maximum of 1000"),
        ({"repeat": "3"}, "repeat: must be an integer, not '3'"),
        ({"repeat": 2.5}, "repeat: must be an integer, not 2.5"),
        ({"evidence": "guess"}, "unknown segment evidence 'guess'"),
        ({"shape_risk": 1.5}, "shape_risk: 1.5 is greater than the maximum of 1"),
        ({"shape_risk": "0.1"}, "shape_risk: must be a number, not '0.1'"),
    ],
)
def test_a_hand_edited_segment_is_refused_naming_its_field(tmp_path, change, needle):
    _refused_naming(tmp_path, repeated(**change), "segments[1]", needle)


def _refused_naming(tmp_path, constraint_doc: dict, where: str, needle: str) -> None:
    """Loading a suite of ``constraint_doc`` fails with one line naming ``where`` and ``needle``."""
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(suite(constraint_doc)))
    with pytest.raises(ConstraintFormatError) as info:
        ConstraintSuite.load(path)
    message = str(info.value)
    assert message.startswith(f"{path}: $.checks[0].constraints[0].{where}"), message
    assert needle in message and "\n" not in message


#: A list of items with an optional part, as the list solver writes it: the repeated
#: segment has parts of its own, one of them optional.
NESTED = {
    **REPEATED,
    "regex": r"\A(?:T[0-9]{4}(?:\.[0-9]{3})?(?:\; T[0-9]{4}(?:\.[0-9]{3})?){0,2})\z",
    "pattern": "T<digit>{4}(.<digit>{3})?(; T<digit>{4}(.<digit>{3})?){0,2}",
    "segments": [
        {"pattern": "T<digit>{4}", "regex": "T[0-9]{4}", "evidence": "positions"},
        {"pattern": ".<digit>{3}", "regex": r"\.[0-9]{3}", "optional": True},
        {
            "pattern": "; T<digit>{4}(.<digit>{3})?",
            "regex": r"\; T[0-9]{4}(?:\.[0-9]{3})?",
            "evidence": "positions",
            "optional": True,
            "repeat": 2,
            "parts": [
                {"pattern": "; T<digit>{4}", "optional": False},
                {"pattern": ".<digit>{3}", "optional": True},
            ],
        },
    ],
}


def nested(**part_changes: object) -> dict:
    """:data:`NESTED` with the optional part of its repeated segment changed by hand."""
    segments = [dict(s) for s in NESTED["segments"]]
    segments[2]["parts"] = [dict(p) for p in segments[2]["parts"]]
    segments[2]["parts"][1].update(part_changes)
    return {**NESTED, "segments": segments}


def test_a_list_whose_items_have_an_optional_part_loads_validates_and_reads(tmp_path):
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(suite(NESTED)))
    (loaded,) = ConstraintSuite.load(path).pattern_constraints()
    assert loaded.segments[2].parts == (("; T<digit>{4}", 0), (".<digit>{3}", 1))
    assert loaded.validate(["T1005", "T1565.001; T1078", "T1003.008; T1552.001; T1059"]).passed
    result = loaded.validate(["T1005", "T1005.01; T1078", "T1005.001.002", "T1; T2; T3; T4"])
    assert not result.passed and result.n_nonconforming == 3
    assert loaded.description == (
        "'T' 4 digits ['.' 3 digits] ['; T' 4 digits ['.' 3 digits]] up to 2 times"
    )
    # written again, it is the same file
    assert PatternConstraint.from_dict(loaded.to_dict()) == loaded
    assert loaded.to_dict()["segments"][2]["parts"] == NESTED["segments"][2]["parts"]


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"repeat": 2}, "parts[1]: Additional properties are not allowed ('repeat'"),
        ({"optional": "yes"}, "parts[1].optional: must be true or false"),
        ({"pattern": 3}, "parts[1].pattern: must be a string"),
        ({"nested": []}, "parts[1]"),
    ],
)
def test_a_hand_edited_part_is_refused_naming_its_field(tmp_path, change, needle):
    _refused_naming(tmp_path, nested(**change), "segments[2]", needle)


@pytest.mark.parametrize(
    "change",
    [
        {"pattern": ".<digit>{4}"},  # the parts no longer spell the segment's pattern
        {"pattern": "<nope>{3}"},  # not a pattern of the pattern language
        {"optional": False},  # the regex is not the parts'
    ],
)
def test_parts_that_disagree_with_their_segment_are_refused(change):
    with pytest.raises(ConstraintFormatError, match="segment 2"):
        PatternConstraint.from_dict(nested(**change))


def test_a_part_outside_the_pattern_language_is_refused_where_it_spells_its_segment():
    doc = nested(pattern="<nope>{3}")
    doc["segments"][2]["pattern"] = "; T<digit>{4}(<nope>{3})?"
    with pytest.raises(ConstraintFormatError, match="not a pattern of the pattern language"):
        PatternConstraint.from_dict(doc)


def test_a_suggested_list_with_optional_item_parts_loads_again(tmp_path):
    from autovalidate.pattern_inference import suggest_pattern

    rng = random.Random(5)
    techniques = [
        "; ".join(
            f"T{rng.randint(1001, 1600)}"
            + (f".{rng.randint(1, 12):03d}" if rng.random() < 0.3 else "")
            for _ in range(rng.choice([1, 1, 2, 3]))
        )
        for _ in range(100)
    ]
    constraint = suggest_pattern(techniques, column="techniques")
    assert constraint is not None and any(s.parts for s in constraint.segments), constraint
    path = tmp_path / "suite.json"
    path.write_text(ConstraintSuite.of_patterns([constraint]).to_json())
    (loaded,) = ConstraintSuite.load(path).pattern_constraints()
    assert loaded == constraint
    assert loaded.validate(techniques + ["T1059.002; T1003", "T1190"]).passed
    assert not loaded.validate(["T1059..002"]).passed


def test_the_segment_fields_are_the_solvers():
    """The schema's segment evidence names are the solver's own."""
    import ast
    from pathlib import Path

    import autovalidate.solver as solver
    from autovalidate.schemas import EVIDENCE
    from autovalidate.solver.search import Hypothesis

    named = {Hypothesis("<digit>", 0.0, 1).evidence}
    for module in Path(solver.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if isinstance(node, ast.keyword) and node.arg == "evidence":
                assert isinstance(node.value, ast.Constant), (module.name, ast.dump(node))
                named.add(node.value.value)
    assert sorted(named) == sorted(EVIDENCE)


def test_json_nested_past_the_parser_is_a_decode_error_not_a_recursion_error():
    assert parse_json('{"checks": [[1]]}') == {"checks": [[1]]}
    with pytest.raises(json.JSONDecodeError, match="nested too deeply to read"):
        parse_json("[" * 100_000 + "]" * 100_000)
    with pytest.raises(json.JSONDecodeError):
        parse_json("{")


@pytest.mark.parametrize("depth", [MAX_NESTING + 1, 960, 985])
def test_json_nested_just_short_of_the_parser_is_refused_as_deeper_ones(tmp_path, depth):
    """Read where the parser stopped (a few frames short of the limit), the first repr failed."""
    assert parse_json("[" * MAX_NESTING + "]" * MAX_NESTING) is not None
    with pytest.raises(json.JSONDecodeError, match="nested too deeply to read"):
        parse_json("[" * depth + "]" * depth)
    path = tmp_path / "suite.json"
    value = "[" * depth + "]" * depth
    text = json.dumps(suite({"kind": "deequ", "constraint": "has_size", "assertion": "@"}))
    path.write_text(text.replace('"@"', value))
    with pytest.raises(ConstraintFormatError, match="not JSON: nested too deeply to read"):
        ConstraintSuite.load(path)


def test_a_key_given_twice_is_refused_naming_its_path(tmp_path):
    """json.loads keeps the last value of a key given twice; a reader may see the first."""
    path = tmp_path / "suite.json"
    path.write_text(
        '{"format": "autovalidate-suite", "version": 2, "checks": [{"constraints": ['
        '{"kind": "deequ", "constraint": "is_complete", "column": "id", "column": "x"}]}]}'
    )
    with pytest.raises(ConstraintFormatError) as info:
        ConstraintSuite.load(path)
    assert str(info.value) == (
        f"{path}: $.checks[0].constraints[0].column: given twice "
        "(JSON keeps the last: which one is meant?)"
    )
    # other files read as before; a key given once is no fault
    assert parse_json('{"a": 1, "a": 2}') == {"a": 2}
    assert parse_json('{"a": 1, "b": 2}', keys_once=True) == {"a": 1, "b": 2}
