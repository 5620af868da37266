"""A suite's user code (issue 30): SQL that is one expression over the row, linear regexes.

Real sqlglot, real RE2, real DuckDB (the sandboxed database) and real Spark.
"""

from __future__ import annotations

import pandas as pd
import pytest

from autovalidate.checks import Check, CheckLevel
from autovalidate.checks.running import run_checks
from autovalidate.checks.spec import ConstraintSpec
from autovalidate.engines.duckdb import DuckDBEngine
from autovalidate.errors import ConstraintFormatError, EngineError, UnsafeInputError
from autovalidate.metrics import PatternMatch
from autovalidate.user_code import check_sql_expression, check_user_regex

LEAK = "CAST(id AS INTEGER) < ascii(substr((SELECT content FROM read_text('/etc/passwd')),1,1))"

REFUSED_SQL = {
    LEAK: "a query",
    "id IN (SELECT 1)": "a query",
    "EXISTS (SELECT 1)": "a query",
    "SELECT 1": "a SELECT statement",
    "id > 1; SELECT 2": "2 statements",
    "SET enable_external_access = true": "statement",
    "read_csv('/etc/passwd') IS NULL": "function read_csv()",
    "getenv('HOME') = 'x'": "function getenv()",
    "current_setting('home_directory') = ''": "function current_setting()",
    "reflect('java.lang.System', 'getenv', 'HOME') = 'x'": "function reflect()",
    "java_method('java.lang.System', 'exit', 1) = 1": "function java_method()",
    "id > ?": "a parameter placeholder",
    "id >": "not an SQL expression",
    # values of a size the suite chooses: DuckDB's memory limit does not bound them
    "length(repeat(CAST(id AS VARCHAR), 100000000)) > 0": "function repeat()",
    "length(space(100000000)) > 0": "function space()",
    "len(range(1000000000000)) > 0": "function generate_series()",  # DuckDB's range
    "size(sequence(1, 100000000)) > 0": "function generate_series()",  # Spark's
    "size(array_repeat(id, 100000000)) > 0": "function array_repeat()",
    "len(list_resize([1], 100000000)) > 0": "function list_resize()",
    "length(printf('%0100000000d', id)) > 0": "function printf()",
    "length(format('{:>100000000}', name)) > 0": "function format()",
    "rpad(name, 100000000, 'x') = name": "function rpad() with a length",
    "lpad(name, id, 'x') = name": "function lpad() with a length",
}

ACCEPTED_SQL = [
    "id > 1",
    "price > 0 AND name LIKE 'a%'",
    "CAST(id AS INTEGER) BETWEEN 1 AND 10",
    "id::INTEGER > 3",  # DuckDB's cast
    "`odd name` > 1",  # Spark's quoting
    '"odd name" IS NOT NULL',
    "coalesce(length(name), 0) < 10 OR name IS NULL",
    "CASE WHEN id > 1 THEN TRUE ELSE FALSE END",
    "id IN (1, 2, 3)",
    "lpad(zip, 5, '0') = zip",  # a padding of a literal length is bounded by it
]


@pytest.mark.parametrize("text", sorted(REFUSED_SQL))
def test_sql_that_is_not_one_expression_over_the_row_is_refused(text):
    with pytest.raises(UnsafeInputError) as info:
        check_sql_expression(text, "constraint 3: predicate", dialects=("duckdb", "spark"))
    message = str(info.value)
    assert message.startswith("constraint 3: predicate: ")
    assert REFUSED_SQL[text] in message and "\n" not in message


@pytest.mark.parametrize("text", ACCEPTED_SQL)
def test_expressions_over_the_row_are_accepted(text):
    check_sql_expression(text, "where", dialects=("duckdb", "spark"))


REFUSED_REGEX = {
    r"(a)\1": "outside the RE2 subset",  # backreference
    r"(?=a)a": "outside the RE2 subset",  # look-ahead
    r"(?<!a)b": "outside the RE2 subset",  # look-behind
    r"(?>a+)b": "outside the RE2 subset",  # atomic group
    r"a*+b": "outside the RE2 subset",  # possessive quantifier
    r"(a+)+b": "nests repetitions",
    r"(a|aa)+b": "nests repetitions",
    r"(.*x){20}": "nests repetitions",
    r"((ab)*c)*": "nests repetitions",
    r"(?:x[0-9]{1,3})+": "nests repetitions",
}

ACCEPTED_REGEX = [
    r"\A(?:[0-9]{5})\z",
    r"[0-9]+\.0 (oz\.?|OZ\.|ounce)( Alumi-Tek)?",
    r"CVE-[0-9]{4}-[0-9]{4,}",
    r"(\d{1,3}\.){3}\d{1,3}",  # bounded nesting
    r"(?:[0-9]{3}-)+[0-9]{4}",  # a fixed-length group repeated
    r"(?i)[a-z]+@[a-z]+\.com",
    r"[(a+)]+",  # parentheses in a class are characters
    r"\Q(a+)+\E",  # quoted text
    r"\p{Greek}+",
]


@pytest.mark.parametrize("regex", sorted(REFUSED_REGEX))
def test_regexes_a_backtracking_engine_can_blow_up_on_are_refused(regex):
    with pytest.raises(UnsafeInputError, match=REFUSED_REGEX[regex].replace("(", r"\(")):
        check_user_regex(regex, "has_pattern('code')")
    with pytest.raises(UnsafeInputError):  # also built from Python, before any engine
        PatternMatch("code", regex)


@pytest.mark.parametrize("regex", ACCEPTED_REGEX)
def test_linear_regexes_are_accepted(regex):
    check_user_regex(regex, "has_pattern('code')")


def test_a_suite_constraint_is_refused_on_load_naming_its_field():
    with pytest.raises(ConstraintFormatError, match="satisfies predicate: .* a query"):
        ConstraintSpec("satisfies", {"predicate": LEAK, "constraint_name": "leak"})
    with pytest.raises(ConstraintFormatError, match="is_complete where: .*function getenv"):
        ConstraintSpec("is_complete", {"column": "id"}, where="getenv('HOME') = ''")
    with pytest.raises(ConstraintFormatError, match="has_pattern\\('id'\\): regex"):
        ConstraintSpec("has_pattern", {"column": "id", "pattern": r"(\d+)+x"})
    anomaly = {
        "analyzer": {"analyzer": "Compliance", "instance": "c", "predicate": LEAK},
        "strategy": {"strategy": "SimpleThresholdStrategy", "upper_bound": 1.0},
        "dataset": "d",
    }
    with pytest.raises(ConstraintFormatError, match="analyzer predicate"):
        ConstraintSpec("has_no_anomalies", anomaly)


def test_checks_built_in_python_are_refused_before_the_engine_runs_them(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("id,name\n1,a\n2,b\n")
    check = Check(CheckLevel.ERROR, "c").satisfies(LEAK, "leak")
    with pytest.raises(UnsafeInputError, match="a query"):
        run_checks([check], str(data))
    with pytest.raises(UnsafeInputError, match="a query"):
        run_checks([check], pd.DataFrame({"id": ["1"]}))


def test_the_sandboxed_duckdb_database_reads_the_data_and_no_other_file(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("id,name\n1,a\n2,b\n")
    other = tmp_path / "secret.txt"
    other.write_text("s3cret")
    engine = DuckDBEngine(str(data), sandbox=True)
    try:
        assert engine.query("SELECT count(*) FROM _av_data", "count") == [(2,)]
        with pytest.raises(EngineError, match="disabled by configuration"):
            engine.query(f"SELECT content FROM read_text('{other}')", "leak")
        with pytest.raises(EngineError, match="locked"):
            engine.query("SET enable_external_access = true", "unlock")
    finally:
        engine.close()
    frame = DuckDBEngine(pd.DataFrame({"a": [1, 2, 3]}), sandbox=True)
    try:
        assert frame.query("SELECT sum(a) FROM _av_data", "sum") == [(6,)]
        with pytest.raises(EngineError, match="disabled by configuration"):
            frame.query(f"SELECT content FROM read_text('{other}')", "leak")
    finally:
        frame.close()


@pytest.mark.spark
def test_spark_refuses_the_same_sql_and_regexes(spark):
    from autovalidate.engines.spark import SparkEngine
    from autovalidate.metrics import Compliance
    from autovalidate.metrics import expressions as E

    frame = spark.createDataFrame([(1, "a")], ["id", "name"])
    engine = SparkEngine(frame)
    with pytest.raises(UnsafeInputError, match="function reflect"):
        engine.aggregate([E.count_where(E.sql("reflect('java.lang.System', 'getenv', 'X') = ''"))])
    check = Check(CheckLevel.ERROR, "c").satisfies("id IN (SELECT 1)", "sub")
    with pytest.raises(UnsafeInputError, match="a query"):
        run_checks([check], frame)
    assert Compliance("ok", "id > 0").aggregations()  # an expression over the row is fine


@pytest.mark.parametrize(
    "text",
    ["(" * 5_000 + "a = 1" + ")" * 5_000, "NOT " * 10_000 + "a = 1"],
    ids=["parentheses", "nots"],
)
def test_sql_nested_past_what_the_parser_reads_is_refused_saying_so(text):
    with pytest.raises(UnsafeInputError) as info:
        check_sql_expression(text, "constraint 0: predicate", dialects=("duckdb", "spark"))
    message = str(info.value)
    # the text quoted is cut, and the reason after it is whole
    assert "refused: nested too deeply to read; a predicate" in message
    assert len(message) < 500 and "more characters)" in message


def test_a_long_refused_predicate_is_quoted_in_part_and_its_reason_in_full():
    text = "a = 1 AND " * 5_000 + "read_csv('x') IS NULL"
    with pytest.raises(UnsafeInputError) as info:
        check_sql_expression(text, "where")
    assert "read_csv" in str(info.value).split("refused:")[1]
    assert len(str(info.value)) < 600


def test_sql_longer_than_the_limit_is_refused_before_it_is_parsed():
    from autovalidate.user_code import MAX_SQL_TEXT, check_sql_query

    text = "a = 1 OR " * (MAX_SQL_TEXT // 9) + "TRUE"
    with pytest.raises(UnsafeInputError, match=r"refused: 100,00\d characters, more than 100,000"):
        check_sql_expression(text, "where")
    with pytest.raises(UnsafeInputError, match="more than 100,000"):
        check_sql_query("SELECT count(*) FROM data WHERE " + text, "custom sql")
    check_sql_expression("a = 1 OR " * 1000 + "TRUE", "where")  # 9 KB is fine
