"""Rendered regexes mean the same in Python ``regex``, RE2 (DuckDB) and Java (Spark).

Values mix letters of several scripts and cases, ASCII and non-ASCII digits,
regex metacharacters, whitespace and control characters, and supplementary
characters; patterns are drawn from the generalization hierarchy of other
values, so that some match and some do not.
"""

from __future__ import annotations

import itertools
import random

import duckdb
import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autovalidate.patterns.hierarchy import options
from autovalidate.patterns.render import pattern_regex
from autovalidate.patterns.tokens import tokenize

ALPHABET = (
    "abcDEXYZ"  # ASCII letters (hexadecimal digits of both cases among them)
    "éÉßǅŉ"  # Latin with case quirks (titlecase, no-case)
    "ΣσЖж中文ひらカナ한글"  # other scripts, caseless ones too
    "0189"  # ASCII digits
    "٣१"  # non-ASCII digits: symbols here
    ".-_/:|+*?()[]{}^$\\#'\" \t\n"  # metacharacters, whitespace, newline
    "\x00\x01\x7f\u0085\u00a0\u2028"  # control and separator characters
    "😀𝐀𝟘"  # supplementary: emoji, math letter (Lu), math digit (Nd)
)
values = st.text(alphabet=ALPHABET, min_size=1, max_size=8)


def patterns_of(value: str, rng: random.Random, k: int) -> list[str]:
    tokens = tokenize(value)
    if not tokens or len(tokens) > 6:
        return []
    combos = list(itertools.islice(itertools.product(*(options(t) for t in tokens)), 2000))
    return rng.sample(combos and ["".join(c) for c in combos], min(k, len(combos)))


def cases(vals: list[str], seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    out = []
    for v in vals:
        for source in (v, rng.choice(vals)):
            for p in patterns_of(source, rng, 3):
                out.append((v, pattern_regex(p)))
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(values, min_size=1, max_size=6), st.integers(0, 10**6))
def test_python_and_duckdb_agree(vals, seed):
    pairs = cases(vals, seed)
    if not pairs:
        return
    con = duckdb.connect()
    got = con.execute(
        "SELECT regexp_full_match(v, r) "
        "FROM (SELECT unnest(?::varchar[]) v, unnest(?::varchar[]) r)",
        [[v for v, _ in pairs], [r for _, r in pairs]],
    ).fetchall()
    for (v, r), (dd,) in zip(pairs, got, strict=True):
        assert (regex.fullmatch(r, v) is not None) == dd, (v, r)


@pytest.mark.spark
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.lists(values, min_size=5, max_size=25), st.integers(0, 10**6))
def test_python_and_java_agree(spark, vals, seed):
    pairs = cases(vals, seed)
    if not pairs:
        return
    df = spark.createDataFrame(pairs, "v string, r string")
    got = [row[0] for row in df.selectExpr("v rlike r").collect()]
    for (v, r), java in zip(pairs, got, strict=True):
        assert (regex.fullmatch(r, v) is not None) == java, (v, r)


def test_every_value_matches_all_its_own_patterns():
    rng = random.Random(0)
    samples = ["9/12/2019 12:01:32 PM", "a<b{c+d\\e", "ǅx-12.5", "\x00\n😀𝐀", "3f2504e0-4f89"]
    for v in samples:
        for p in patterns_of(v, rng, 200):
            assert regex.fullmatch(pattern_regex(p), v), (v, p)
