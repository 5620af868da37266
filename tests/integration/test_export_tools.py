"""Each export read and run by the real tool, on the hospital table's clean and dirty batches.

The suite is what ``suggest`` learns on the clean table (Deequ's rules and the
Auto-Validate pattern rule, with the lake-mini index), plus the zip code's
pattern constraint. Every tool reads the batches as text, as autovalidate does,
except the integer ``index`` (the suite's numeric checks are on it); numeric
checks on the other columns are left out of the test suite, since they read
those text columns as numbers (a reader with types would keep them).

* Great Expectations (installed by the ``test`` extra): the JSON is loaded by
  ``ExpectationSuite`` and validated on pandas and on Spark;
* Soda Core 3 on DuckDB and dbt-core with dbt-duckdb, each in its own venv
  (``tests/install.sh``, pins that conflict with ours): the checks run, the
  ``schema.yml`` is parsed with warnings as errors and dbt-core's tests run;
* pandera (``test`` extra): ``pandera.io.from_yaml`` and ``validate``;
* DQDL: AWS Glue's parser is a Java library outside the reachable registries,
  so the rules are checked against DQDL's grammar rules for the forms
  written, and the regexes run in Java (Spark ``rlike``) with their thresholds.

The dirty batch names its columns differently (``zip`` for ``ZipCode``): it is
read with the clean table's column names, by position.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pandas as pd
import pytest
import yaml

from autovalidate import CheckLevel, ConstraintSuite, PatternConstraint, PatternIndex
from autovalidate.checks.spec import CheckSpec
from autovalidate.engines.io import column_values
from autovalidate.export import export_suite
from autovalidate.pattern_inference import suggest_pattern
from autovalidate.suggest.runner import ConstraintSuggestionRunner

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / ".tools"
NUMERIC = {"index"}
NUMERIC_METHODS = {"is_non_negative", "is_positive", "is_in_range", "has_min", "has_max"}
ZIP_ERRORS = 30  # the dirty batch's zip codes with a typo (x5957, 3595x, ...)


def _tool(name: str) -> Path:
    python = TOOLS / name / "bin" / "python"
    if not python.exists():
        pytest.fail(f"{python} is missing: run `bash tests/install.sh` (README's test command)")
    return python


def _kept(constraint) -> bool:
    if isinstance(constraint, PatternConstraint):
        return True
    return constraint.constraint not in NUMERIC_METHODS or constraint.args.get("column") in NUMERIC


@pytest.fixture(scope="module")
def paths(dirty_clean) -> dict[str, Path]:
    return {b: dirty_clean / "hospital" / f"{b}.csv" for b in ("clean", "dirty")}


@pytest.fixture(scope="module")
def columns(paths) -> list[str]:
    return list(pd.read_csv(paths["clean"], nrows=0).columns)


@pytest.fixture(scope="module")
def suite(mini_index, paths) -> ConstraintSuite:
    clean = str(paths["clean"])
    with PatternIndex.open(mini_index) as index:
        suggested = ConstraintSuggestionRunner.on_data(clean).with_pattern_index(index).run()
        zip_code = suggest_pattern(column_values(clean, "ZipCode"), index, column="ZipCode")
    assert zip_code is not None and zip_code.pattern == "<digit>{5}"
    checks = [
        CheckSpec(
            c.description,
            CheckLevel.WARNING if c.description == "column 'Score'" else c.level,
            tuple(x for x in c.constraints if _kept(x)),
        )
        for c in suggested.to_suite().checks
    ]
    checks.append(CheckSpec("zip codes", CheckLevel.ERROR, (zip_code,)))
    return ConstraintSuite.from_dict(ConstraintSuite(tuple(checks)).to_dict())  # as saved


@pytest.fixture(scope="module")
def frames(paths, columns) -> dict[str, pd.DataFrame]:
    out = {}
    for batch, path in paths.items():
        df = pd.read_csv(path, dtype=str, keep_default_na=False, names=columns, header=0)
        out[batch] = df.astype({c: "int64" for c in NUMERIC})
    return out


def _tolerant_with_errors(suite: ConstraintSuite) -> dict[str, int]:
    """Columns of pattern rules that tolerated non-conforming training values -> how many."""
    return {
        c.column: c.train_nonconforming
        for c in suite.constraints
        if isinstance(c, PatternConstraint) and c.train_nonconforming
    }


# -- Great Expectations ------------------------------------------------------------------------


def _gx_run(engine: str, data, suite_text: str, spark=None):
    import great_expectations as gx

    context = gx.get_context(mode="ephemeral")
    source = (
        context.data_sources.add_pandas("pandas")
        if engine == "pandas"
        else context.data_sources.add_spark("spark")
    )
    batch_definition = source.add_dataframe_asset("hospital").add_batch_definition_whole_dataframe(
        "batch"
    )
    expectations = gx.ExpectationSuite(**json.loads(suite_text))
    batch = batch_definition.get_batch(batch_parameters={"dataframe": data})
    return expectations, batch.validate(expectations)


def _zip_result(result):
    (found,) = [
        r
        for r in result.results
        if r.expectation_config.type == "expect_column_values_to_match_regex"
        and r.expectation_config.kwargs["column"] == "ZipCode"
    ]
    return found


def _assert_gx(exported, clean, dirty) -> None:
    expectations, on_clean = clean
    assert len(expectations.expectations) == exported.exported
    failing = [
        (r.expectation_config.type, r.expectation_config.kwargs.get("column"))
        for r in on_clean.results
        if not r.success
    ]
    assert on_clean.success, failing
    _, on_dirty = dirty
    assert not on_dirty.success
    zip_result = _zip_result(on_dirty)
    assert not zip_result.success
    assert zip_result.result["unexpected_count"] == ZIP_ERRORS
    unexpected = zip_result.result["partial_unexpected_list"]
    assert unexpected and all(not str(v).isdigit() for v in unexpected)


def test_gx_suite_on_pandas_passes_clean_and_fails_dirty(suite, frames):
    exported = export_suite(suite, "gx", name="hospital")
    doc = json.loads(exported.text)
    assert {s["reason"] for s in doc["meta"]["autovalidate"]["skipped"]} == {
        "no Great Expectations expectation for has_data_type"
    }
    assert "Mapping:" in doc["notes"]
    _assert_gx(
        exported,
        _gx_run("pandas", frames["clean"], exported.text),
        _gx_run("pandas", frames["dirty"], exported.text),
    )


@pytest.mark.spark
def test_gx_suite_on_spark_passes_clean_and_fails_dirty(suite, frames, spark):
    # the pattern constraints (GX runs Spark jobs per metric: the whole suite takes minutes)
    patterns = ConstraintSuite(
        (CheckSpec("patterns", CheckLevel.ERROR, tuple(suite.pattern_constraints())),)
    )
    exported = export_suite(patterns, "gx", name="hospital")
    runs = {
        b: _gx_run("spark", spark.createDataFrame(df), exported.text) for b, df in frames.items()
    }
    _assert_gx(exported, runs["clean"], runs["dirty"])


def test_an_exported_median_check_gives_gx_our_verdicts(tmp_path):
    """``has_exact_quantile`` at 0.5 -> GX's median expectation, which interpolates the same."""
    import autovalidate as av
    from autovalidate.checks.spec import Assertion, ConstraintSpec

    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0, 10.0, None], "b": [1.0, 2.0, 2.0, 3.0, 4.0]})
    median = {"column": "a", "quantile": 0.5}  # 2.5, between 2 and 3
    constraints = (
        ConstraintSpec("has_exact_quantile", median, Assertion("between", [2.5, 2.5])),
        ConstraintSpec("has_exact_quantile", median, Assertion(">", 2.5)),  # fails
        ConstraintSpec("has_exact_quantile", {"column": "b", "quantile": 0.5}, Assertion("<=", 2)),
        ConstraintSpec("has_exact_quantile", {"column": "b", "quantile": 0.9}, Assertion("<=", 9)),
    )
    suite = ConstraintSuite((CheckSpec("medians", CheckLevel.ERROR, constraints),))
    ours = [r["passed"] for r in av.validate(frame, suite).to_dict()["results"]]
    assert ours == [True, False, True, True]
    exported = export_suite(suite, "gx", name="medians")
    assert [s.reason for s in exported.skipped] == [
        "GX's quantile expectation takes a value of the column (pandas 'nearest', SQL "
        "percentile_disc), not an interpolated one; only the median maps"
    ]
    _, result = _gx_run("pandas", frame, exported.text)
    assert [r.success for r in result.results] == ours[:3]
    assert [r.result["observed_value"] for r in result.results] == [2.5, 2.5, 2.0]


# -- Soda ----------------------------------------------------------------------------------------


def _soda(tmp_path: Path, text: str, csv: Path, columns: list[str]) -> dict:
    checks = tmp_path / "checks.yml"
    checks.write_text(text)
    run = subprocess.run(
        [
            str(_tool("soda")),
            str(ROOT / "tests" / "tools" / "run_soda.py"),
            str(checks),
            "hospital",
            str(csv),
            json.dumps(columns),
            json.dumps(sorted(NUMERIC)),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout)


def test_soda_checks_run_in_soda_core_on_duckdb(suite, paths, columns, tmp_path):
    exported = export_suite(suite, "soda", name="hospital")
    doc = yaml.safe_load(exported.text)
    listed = doc["checks for hospital"]
    clean = _soda(tmp_path, exported.text, paths["clean"], columns)
    assert clean["errors"] == []
    assert len(clean["checks"]) == len(listed) >= exported.exported  # every check evaluated
    assert [c["name"] for c in clean["checks"] if c["outcome"] != "pass"] == []
    assert clean["exit_code"] == 0
    dirty = _soda(tmp_path, exported.text, paths["dirty"], columns)
    assert dirty["errors"] == [] and dirty["exit_code"] == 2  # 2: a check failed
    (zip_check,) = [c for c in dirty["checks"] if c["name"].startswith("zip codes:")]
    assert zip_check["outcome"] == "fail"
    assert zip_check["value"] == pytest.approx(100 * ZIP_ERRORS / 1000)
    warnings = [c for c in dirty["checks"] if c["name"].startswith("column 'Score'")]
    assert warnings and {c["outcome"] for c in warnings} <= {"pass", "warn"}


# -- dbt -----------------------------------------------------------------------------------------


def _dbt_project(tmp_path: Path, schema: str, csv: Path, columns: list[str]) -> Path:
    project = tmp_path / "dbt"
    (project / "models").mkdir(parents=True)
    (project / "dbt_project.yml").write_text(
        "name: autovalidate_export\nversion: '1.0'\nconfig-version: 2\nprofile: autovalidate\n"
    )
    (project / "profiles.yml").write_text(
        "autovalidate:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n"
        f"      path: {project / 'dev.duckdb'}\n"
    )
    select = ", ".join(
        f'CAST("{c}" AS BIGINT) AS "{c}"' if c in NUMERIC else f'"{c}"' for c in columns
    )
    (project / "models" / "hospital.sql").write_text(
        f"SELECT {select} FROM read_csv('{csv}', header = true, all_varchar = true, "
        f"names = {columns!r})\n"
    )
    (project / "models" / "schema.yml").write_text(schema)
    return project


def _dbt(project: Path, *args: str) -> subprocess.CompletedProcess:
    dbt = _tool("dbt").parent / "dbt"
    return subprocess.run(
        [str(dbt), *args, "--project-dir", str(project), "--profiles-dir", str(project)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_dbt_schema_parses_and_its_dbt_core_tests_run(suite, paths, columns, tmp_path):
    exported = export_suite(suite, "dbt", name="hospital")
    model = yaml.safe_load(exported.text)["models"][0]
    written = [t for c in model["columns"] for t in c["data_tests"]] + model.get("data_tests", [])
    # parse with warnings as errors, build the model, run dbt-core's own tests; the
    # dbt-expectations tests are parsed (the package comes from dbt's hub, out of reach)
    build = ("--warn-error", "build", "--no-partial-parse", "--exclude", "test_name:expect*")
    project = _dbt_project(tmp_path, exported.text, paths["clean"], columns)
    clean = _dbt(project, *build)
    assert clean.returncode == 0, clean.stdout[-3000:]
    manifest = json.loads((project / "target" / "manifest.json").read_text())
    tests = [n for n in manifest["nodes"].values() if n["resource_type"] == "test"]
    assert len(tests) == len(written)
    (regex_test,) = [
        n
        for n in tests
        if n["test_metadata"]["kwargs"].get("column_name") == "ZipCode"
        and n["test_metadata"]["name"] == "expect_column_values_to_match_regex"
    ]
    assert regex_test["test_metadata"]["namespace"] == "dbt_expectations"
    assert regex_test["test_metadata"]["kwargs"]["regex"] == "^([0-9]{5})$"
    assert regex_test["config"]["error_if"].startswith(">")
    results = json.loads((project / "target" / "run_results.json").read_text())["results"]
    ran = [r for r in results if r["unique_id"].startswith("test.")]
    assert ran and {r["status"] for r in ran} == {"pass"}
    dirty_project = _dbt_project(tmp_path / "dirty", exported.text, paths["dirty"], columns)
    dirty = _dbt(dirty_project, *build)
    assert dirty.returncode == 1  # accepted_values of the typo-ridden columns fail
    results = json.loads((dirty_project / "target" / "run_results.json").read_text())["results"]
    assert "fail" in {r["status"] for r in results}


# -- pandera -------------------------------------------------------------------------------------


def test_pandera_schema_loads_and_validates(suite, frames):
    from pandera.errors import SchemaErrors
    from pandera.pandas import DataFrameSchema

    exported = export_suite(suite, "pandera", name="hospital")
    schema = DataFrameSchema.from_yaml(exported.text)
    assert set(schema.columns) == {c for c in yaml.safe_load(exported.text)["columns"]}

    def failures(df: pd.DataFrame) -> pd.DataFrame:
        try:
            schema.validate(df, lazy=True)
        except SchemaErrors as exc:
            return exc.failure_cases
        return pd.DataFrame(columns=["column", "check"])

    # pandera has no fraction: a pattern rule that tolerated some training values is
    # exported strict and fails on exactly those values of the clean batch, nothing else
    clean = failures(frames["clean"])
    tolerated = _tolerant_with_errors(suite)
    assert tolerated, "the suite should have a tolerant rule with training errors"
    assert clean["column"].value_counts().to_dict() == tolerated
    assert set(clean["check"].astype(str)) == {
        c for c in clean["check"].astype(str) if "str_matches" in c
    }
    dirty = failures(frames["dirty"])
    zip_cases = dirty[
        (dirty["column"] == "ZipCode") & dirty["check"].astype(str).str.contains("str_matches")
    ]
    assert len(zip_cases) == ZIP_ERRORS


# -- DQDL ----------------------------------------------------------------------------------------

_QUOTED = r'"(?:\\["\\]|[^"])*"'  # DQDL's QUOTED_STRING: QUOTE (ESC | .)*? QUOTE
_NUMBER = r"-?[0-9]+(?:\.[0-9]+)?"
_COMPARE = rf"(?:>=|<=|>|<|=) {_NUMBER}"
_THRESHOLD = rf"(?: with threshold >= {_NUMBER})?"
_RULE = re.compile(
    "|".join(
        [
            rf"IsComplete {_QUOTED}",
            rf"IsUnique {_QUOTED}",
            rf"Completeness {_QUOTED} >= {_NUMBER}",
            rf"ColumnValues {_QUOTED} matches {_QUOTED}{_THRESHOLD}",
            rf"ColumnValues {_QUOTED} in \[{_QUOTED}(?:, {_QUOTED})*\]{_THRESHOLD}",
            rf"ColumnValues {_QUOTED} {_COMPARE}{_THRESHOLD}",
            rf"(?:ColumnLength|Mean) {_QUOTED} {_COMPARE}",
            rf"RowCount {_COMPARE}",
        ]
    )
)
_MATCHES = re.compile(rf'ColumnValues "(.+?)" matches "(.+)"(?: with threshold >= ({_NUMBER}))?')


@pytest.mark.spark
def test_dqdl_rules_follow_the_grammar_and_their_regexes_run_in_java(suite, frames, spark):
    exported = export_suite(suite, "dqdl", name="hospital")
    body = [line for line in exported.text.splitlines() if not line.startswith("#")]
    assert body[0] == "Rules = [" and body[-1] == "]"
    rules = [line.strip().removesuffix(",") for line in body[1:-1]]
    assert len(rules) == exported.exported
    for rule in rules:
        parts = rule.split(" and ") if rule.startswith("(") else [rule]
        for part in parts:
            assert _RULE.fullmatch(part.removeprefix("(").removesuffix(")")), rule
    matches = [m.groups() for r in rules if (m := _MATCHES.fullmatch(r))]
    assert {c for c, _, _ in matches} == {
        c.column for c in suite.constraints if isinstance(c, PatternConstraint)
    }
    # a rule may fail the dirty batch only on a column with real errors (dirty != clean)
    with_errors = {
        c for c in frames["clean"].columns if not frames["clean"][c].equals(frames["dirty"][c])
    }
    assert "ZipCode" in with_errors
    for batch, df in frames.items():
        sdf = spark.createDataFrame(df)
        for column, regex, threshold in matches:
            # NULL rows count as not matching in DQDL; these columns have none
            conforming = sdf.where(sdf[column].rlike(regex)).count() / sdf.count()
            passed = conforming >= float(threshold or 1.0)
            assert passed or (batch == "dirty" and column in with_errors), (batch, column, regex)
            if column == "ZipCode" and batch == "dirty":
                assert conforming == pytest.approx(1 - ZIP_ERRORS / 1000) and not passed


# -- text from the data is text in every target (issue 30) ---------------------------------------

#: Values and a column name that a template engine would run, or that could end an escape.
HOSTILE = ["{{ 7*7 }}", "{% endraw %}", "{%- endraw -%}x", "{# c #}", "${HOME}", "${HOME", "ok"]
HOSTILE_COLUMN = "{{ 6*7 }}"


@pytest.fixture()
def hostile(tmp_path) -> tuple[ConstraintSuite, Path]:
    from autovalidate.checks.spec import ConstraintSpec

    csv = tmp_path / "hostile.csv"
    pd.DataFrame({HOSTILE_COLUMN: HOSTILE, "id": list(range(len(HOSTILE)))}).to_csv(
        csv, index=False
    )
    check = CheckSpec(
        "hostile",
        CheckLevel.ERROR,
        (
            ConstraintSpec(
                "is_contained_in", {"column": HOSTILE_COLUMN, "allowed_values": HOSTILE}
            ),
            ConstraintSpec("is_complete", {"column": HOSTILE_COLUMN}),
        ),
    )
    return ConstraintSuite((check,)), csv


def test_dbt_gets_data_as_text_not_jinja(hostile, tmp_path):
    suite, csv = hostile
    exported = export_suite(suite, "dbt", name="hospital")
    assert exported.exported == 2
    for opener in ("{{ 7", "{%", "{#", "{{ 6"):
        assert opener not in exported.text  # no tag from the data reaches dbt
    project = _dbt_project(tmp_path, exported.text, csv, [HOSTILE_COLUMN, "id"])
    model_sql = project / "models" / "hospital.sql"  # the model's own SQL, kept from Jinja
    model_sql.write_text("{% raw %}" + model_sql.read_text() + "{% endraw %}")
    run = _dbt(project, "--warn-error", "build", "--no-partial-parse")
    assert run.returncode == 0, run.stdout[-3000:]  # the values are accepted: read as written
    manifest = json.loads((project / "target" / "manifest.json").read_text())
    (model,) = [n for n in manifest["nodes"].values() if n["resource_type"] == "model"]
    assert list(model["columns"]) == [HOSTILE_COLUMN]  # not '42'
    results = json.loads((project / "target" / "run_results.json").read_text())["results"]
    tests = [r for r in results if r["unique_id"].startswith("test.")]
    assert len(tests) == 2 and {r["status"] for r in tests} == {"pass"}
    # dbt quotes accepted values without escaping: a quote in one would end the SQL string
    from autovalidate.checks.spec import ConstraintSpec

    quoted = ConstraintSpec("is_contained_in", {"column": "k", "allowed_values": ["x') OR 1=1 --"]})
    skipped = export_suite(
        ConstraintSuite((CheckSpec("c", CheckLevel.ERROR, (quoted,)),)), "dbt", name="t"
    )
    assert skipped.exported == 0 and "without escaping" in skipped.skipped[0].reason


def test_soda_gets_data_as_text_not_variables(hostile, tmp_path):
    suite, csv = hostile
    exported = export_suite(suite, "soda", name="hospital")
    assert exported.exported == 2
    assert "${HOME}" not in exported.text and "{%" not in exported.text
    result = _soda(tmp_path, exported.text, csv, [HOSTILE_COLUMN, "id"])
    assert result["errors"] == []
    assert [c["outcome"] for c in result["checks"]] == ["pass", "pass"]
    assert all("/root" not in c["name"] and "42" not in c["name"] for c in result["checks"])


def test_dqdl_skips_text_it_cannot_quote():
    from autovalidate.checks.spec import ConstraintSpec

    values = ["a", 'b"] and IsComplete "x', "line\nbreak"]
    check = CheckSpec(
        "c",
        CheckLevel.ERROR,
        (ConstraintSpec("is_contained_in", {"column": "k", "allowed_values": values}),),
    )
    exported = export_suite(ConstraintSuite((check,)), "dqdl", name="t")
    assert exported.exported == 0 and "control character" in exported.skipped[0].reason
    quoted = export_suite(
        ConstraintSuite(
            (
                CheckSpec(
                    "c",
                    CheckLevel.ERROR,
                    (
                        ConstraintSpec(
                            "is_contained_in", {"column": "k", "allowed_values": values[:2]}
                        ),
                    ),
                ),
            )
        ),
        "dqdl",
        name="t",
    )
    body = [line for line in quoted.text.splitlines() if not line.startswith("#")]
    assert body[1].strip() == 'ColumnValues "k" in ["a", "b\\"] and IsComplete \\"x"]'
