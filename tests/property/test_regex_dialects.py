"""Rendered regexes mean the same in Python ``regex``, RE2 (DuckDB) and Java (Spark).

Values mix letters of several scripts and cases, ASCII and non-ASCII digits,
regex metacharacters, whitespace and control characters, and supplementary
characters; patterns are drawn from the generalization hierarchy of other
values (as either lexer reads them, so ``<unreserved>`` runs too), so that
some match and some do not, half of those with ``+`` runs also with lower
bounds (``{k,}``, :func:`~autovalidate.patterns.render.bounded_pattern`).
"""

from __future__ import annotations

import itertools
import random

import duckdb
import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autovalidate.metrics.expressions import anchored_regex
from autovalidate.patterns.hierarchy import options
from autovalidate.patterns.render import bounded_pattern, pattern_regex
from autovalidate.patterns.tokens import identifier_tokens, tokenize
from autovalidate.portable_regex import re2_error

ALPHABET = (
    "abcDEXYZ"  # ASCII letters (hexadecimal digits of both cases among them)
    "éÉßǅŉ"  # Latin with case quirks (titlecase, no-case)
    "ΣσЖж中文ひらカナ한글"  # other scripts, caseless ones too
    "0189"  # ASCII digits
    "٣१"  # non-ASCII digits: symbols here
    ".-_~/:|+*?()[]{}^$\\#'\" \t\n"  # metacharacters, whitespace, newline
    "\x00\x01\x7f\u0085\u00a0\u2028"  # control and separator characters
    "😀𝐀𝟘"  # supplementary: emoji, math letter (Lu), math digit (Nd)
)
values = st.text(alphabet=ALPHABET, min_size=1, max_size=8)


def patterns_of(value: str, rng: random.Random, k: int, *, bounds: bool = True) -> list[str]:
    """k of the value's hierarchy patterns; with ``bounds``, half of those with ``+``
    runs bounded from below at random (such a pattern need not match the value)."""
    tokens = (identifier_tokens if rng.random() < 0.25 else tokenize)(value)
    if not tokens or len(tokens) > 6:
        return []
    combos = list(itertools.islice(itertools.product(*(options(t) for t in tokens)), 2000))
    chosen = rng.sample(combos and ["".join(c) for c in combos], min(k, len(combos)))
    return [
        bounded_pattern(p, [rng.randint(1, 4) for _ in range(p.count(">+"))])
        if bounds and ">+" in p and rng.random() < 0.5
        else p
        for p in chosen
    ]


def cases(vals: list[str], seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    out = []
    for v in vals:
        for source in (v, rng.choice(vals)):
            for p in patterns_of(source, rng, 3):
                out.append((v, pattern_regex(p)))
        # cuts with optional and repeated segments: (?:...)? and (?:...){0,k}
        head, tail = patterns_of(v, rng, 1), patterns_of(rng.choice(vals), rng, 1)
        if head and tail:
            out.append((v, pattern_regex([(head[0], 0), (tail[0], rng.randint(1, 4))])))
            out.append((v + v, pattern_regex([(head[0], 0), (head[0], rng.randint(1, 4))])))
            # a repeated segment with an optional part of its own (a list item's)
            parts = ((head[0], 0), (tail[0], 1))
            item = [(head[0], 0), (tail[0], 1)]
            for value in (v + v, v + rng.choice(vals) + v):
                out.append((value, pattern_regex([*item, (parts, rng.randint(1, 4))])))
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
        for p in patterns_of(v, rng, 200, bounds=False):
            assert regex.fullmatch(pattern_regex(p), v), (v, p)


@settings(max_examples=100, deadline=None)
@given(st.lists(values, min_size=1, max_size=4), st.integers(0, 10**6))
def test_a_rendered_regex_is_searched_as_it_is(vals, seed):
    # Spark's rlike searches; a rendered regex is anchored already, and wrapping
    # it again cost 7% of a validation (benchmarks/validate_speed.py)
    rendered = {r for _, r in cases(vals, seed)}
    branches = sorted(rendered)[:3]
    if len(branches) > 1:  # a multi-format regex, \A(?:b1|b2)\z
        rendered.add(r"\A(?:" + "|".join(b[5:-3] for b in branches) + r")\z")
    for r in rendered:
        assert anchored_regex(r) == r


@pytest.mark.parametrize(
    ("pattern", "wrapped"),
    [
        (r"[a-z]+", True),
        (r"\A(?:a)|(?:b)\z", True),  # two alternatives, each anchored at one end only
        (r"\A(?:a)(b)\z", True),
        (r"\A(?:a\)\z", True),  # the last ) is a literal
        (r"\A(?:[]a)])\z", True),  # a class opening with ] is not read
        (r"\A(?:[^]a)])\z", True),
        (r"\A(?:\Q)|(\E)\z", True),
        (r"\A(?:(?x) a # ) \n)\z", True),
        (r"\A(?:[()]+|\(x\))\z", False),
        (r"\A(?:(?:a|b)+\-[0-9]{2})\z", False),
    ],
)
def test_anchoring_wraps_what_it_cannot_prove_anchored(pattern, wrapped):
    got = anchored_regex(pattern)
    assert got == (r"\A(?:" + pattern + r")\z" if wrapped else pattern)
    try:
        regex.compile(pattern)
    except regex.error:  # Java's and RE2's own syntax (\Q...\E), or broken: the wrap suffices
        return
    for v in ["a", "b", "ab", "xa", "a)", "]", "()", "(x)", "b-12", "ab-12", ")", " a ", "c"]:
        assert (regex.search(got, v) is not None) == (
            regex.fullmatch(r"(?:" + pattern + r")", v) is not None
        ), (pattern, v)


_ELEMENTS = st.sampled_from(
    ["<letter>", "<upper>", "<lower>", "<alphanum>", "<digit>", "<hex-lower>", "-", ".", "é"]
)
_QUANTIFIERS = st.sampled_from(["+", "{1}", "{2}", "{3,}", "{4}", "{8}"])


@st.composite
def _cuts(draw: st.DrawFn) -> list[tuple[object, int]]:
    """A cut of 1-3 segments, one maybe repeated up to 1,000 times or with optional parts."""

    def pattern() -> str:
        out = ""
        for _ in range(draw(st.integers(1, 3))):
            el = draw(_ELEMENTS)
            out += el + draw(_QUANTIFIERS) if el.startswith("<") else el
        return out

    cut: list[tuple[object, int]] = [(pattern(), 0)]
    for _ in range(draw(st.integers(0, 2))):
        most = draw(st.sampled_from([1, 2, 9, 29, 69, 150, 250, 300, 400, 760, 1000]))
        nested = draw(st.booleans())
        cut.append((((pattern(), 0), (pattern(), 1)) if nested else pattern(), most))
    return cut


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_cuts())
def test_re2_refuses_what_duckdb_refuses_and_compiles_what_it_compiles(cut):
    """The solver and the suite loader ask RE2 (google-re2); DuckDB validates: the same answer.

    Near RE2's limits (a list bound copying its item hundreds of times), where
    a regex compiles depends on RE2's options (its memory budget); if DuckDB's
    RE2 ever differed from google-re2's defaults, a rule the solver keeps
    could fail to run in ``validate``.
    """
    rx = pattern_regex(cut)
    try:
        duckdb.connect().execute("SELECT regexp_full_match('', ?)", [rx]).fetchall()
        duckdb_error = None
    except duckdb.Error as exc:
        duckdb_error = str(exc)
    error = re2_error(rx)
    assert (error is None) == (duckdb_error is None), (cut, error, duckdb_error)
