"""Exported regexes mean autovalidate's full match in each target's engine and semantics.

The same values and patterns as the dialect test of rendered regexes: letters of
several scripts, non-ASCII digits, metacharacters, newlines and control
characters. Each translation runs in its target's real engine with its target's
semantics: Python ``re.match`` (pandera), ``re.search`` (Great Expectations on
pandas), DuckDB's ``regexp_matches`` (RE2, searching: the SQL dialect) and
Spark's ``rlike`` (Java, searching: DQDL and Great Expectations on Spark). A
translation without approximations must agree on every value; one with them
(ASCII letters for ``\\p{...}``) on every value whose letters are ASCII, and
must say so.
"""

from __future__ import annotations

import re
import unicodedata

import duckdb
import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autovalidate.errors import ParameterError
from autovalidate.export.regex import translate
from tests.property.test_regex_dialects import cases, values


def _ascii_letters_only(value: str) -> bool:
    return all(ch.isascii() or not unicodedata.category(ch).startswith("L") for ch in value)


def _must_agree(value: str, translation) -> bool:
    return not translation.approximations or _ascii_letters_only(value)


def _check(pairs, dialect, run) -> int:
    compared = 0
    for value, rendered in pairs:
        t = translate(rendered, dialect)
        if "\\p{" in rendered and dialect != "java":
            assert any("ASCII" in a for a in t.approximations), (rendered, t)
        if _must_agree(value, t):
            expected = regex.fullmatch(rendered, value) is not None
            assert run(t.regex, value) == expected, (dialect, value, rendered, t.regex)
            compared += 1
    return compared


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(values, min_size=1, max_size=6), st.integers(0, 10**6))
def test_python_re_translations_are_full_matches(vals, seed):
    pairs = cases(vals, seed)
    _check(pairs, "python", lambda r, v: re.match(r, v) is not None)  # pandera: a prefix
    _check(pairs, "portable", lambda r, v: re.search(r, v) is not None)  # GX pandas: anywhere


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(values, min_size=1, max_size=6), st.integers(0, 10**6))
def test_sql_translation_is_a_full_match_in_re2(vals, seed):
    pairs = [(v, r) for v, r in cases(vals, seed)]
    if not pairs:
        return
    con = duckdb.connect()
    translated = [translate(r, "sql").regex for _, r in pairs]
    got = con.execute(
        "SELECT regexp_matches(v, r) FROM (SELECT unnest(?::varchar[]) v, unnest(?::varchar[]) r)",
        [[v for v, _ in pairs], translated],
    ).fetchall()
    keys = zip([v for v, _ in pairs], translated, strict=True)
    answers = dict(zip(keys, (g for (g,) in got), strict=True))
    _check(pairs, "sql", lambda r, v: answers[(v, r)])


@pytest.mark.spark
@settings(
    max_examples=4,  # a Spark job each: few examples, many values in each
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.lists(values, min_size=20, max_size=50), st.integers(0, 10**6))
def test_java_and_portable_translations_in_spark_rlike(spark, vals, seed):
    pairs = cases(vals, seed)
    if not pairs:
        return
    rows = [(v, translate(r, "java").regex, translate(r, "portable").regex) for v, r in pairs]
    df = spark.createDataFrame(rows, "v string, j string, p string")
    got = df.selectExpr("v", "j", "p", "v RLIKE j AS jm", "v RLIKE p AS pm").collect()
    java = {(row.v, row.j): row.jm for row in got}
    portable = {(row.v, row.p): row.pm for row in got}
    assert _check(pairs, "java", lambda r, v: java[(v, r)]) == len(pairs)  # exact: every value
    _check(pairs, "portable", lambda r, v: portable[(v, r)])


def test_the_rendered_vocabulary_only():
    with pytest.raises(ParameterError, match="anchored"):
        translate("[0-9]+", "sql")
    with pytest.raises(ParameterError, match="capturing group"):
        translate(r"\A(?:([0-9])\1)\z", "sql")
    with pytest.raises(ParameterError, match="unknown dialect"):
        translate(r"\A(?:[0-9])\z", "perl")


def test_generic_constructs_translate():
    """Constructs beyond today's classes (hex classes, {k,m}, *, alternation) translate too."""
    rendered = r"\A(?:[0-9A-Fa-f]{2,4}(?:\:[0-9a-f]+)*|\p{Lu}\p{Ll}*)\z"
    assert translate(rendered, "sql").regex == "^([0-9A-Fa-f]{2,4}(:[0-9a-f]+)*|[A-Z][a-z]*)$"
    assert translate(rendered, "java").regex == (
        r"^(?:[0-9A-Fa-f]{2,4}(?:\:[0-9a-f]+)*|\p{Lu}\p{Ll}*)\z"
    )
    for value in ("0aF3:ff:0", "Abc", "A", "0aF3:", "abc", "0aF3Abc"):
        expected = regex.fullmatch(rendered, value) is not None
        assert (re.match(translate(rendered, "python").regex, value) is not None) == expected
