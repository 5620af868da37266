"""The missing-value regex and the pattern test that lets an engine skip it.

:func:`~autovalidate.nulls.missing_regex` must match exactly the texts
:func:`~autovalidate.nulls.drop_missing` drops, in Python ``regex`` and in RE2
(DuckDB); :func:`~autovalidate.nulls.may_match_missing` may say True when a
pattern matches no missing text, never False when one does.
"""

from __future__ import annotations

import duckdb
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from autovalidate.nulls import DEFAULT_NULL_TOKENS, drop_missing, may_match_missing, missing_regex
from autovalidate.patterns.hierarchy import options
from autovalidate.patterns.render import pattern_regex
from autovalidate.patterns.tokens import tokenize

WHITESPACE = " \t\n\x0b\x0c\r"
ALPHABET = WHITESPACE + "aNA/#.-_é\u00a0\x01()[]\\|?*+0189"
texts = st.text(alphabet=ALPHABET, max_size=6)
tokens = st.lists(st.text(alphabet=ALPHABET, min_size=1, max_size=5), max_size=4)
#: One connection for the module's examples (a connection per example took 5 of 6 s).
CON = duckdb.connect()
missing_texts = st.one_of(
    st.text(alphabet=WHITESPACE, max_size=8), st.sampled_from(DEFAULT_NULL_TOKENS)
)


@settings(max_examples=200, deadline=None)
@given(st.lists(texts, min_size=1, max_size=20), tokens)
def test_the_missing_regex_matches_exactly_what_drop_missing_drops(values, null_tokens):
    rx = missing_regex(null_tokens)
    expected = [v not in set(drop_missing([v], null_tokens)) for v in values]
    assert [bool(regex.fullmatch(rx, v)) for v in values] == expected
    rows = CON.execute(
        "SELECT list(regexp_full_match(v, ?) ORDER BY i) FROM "
        "(SELECT unnest(?) AS v, unnest(range(len(?))) AS i)",
        [rx, values, values],
    ).fetchall()
    assert rows[0][0] == expected


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=ALPHABET, min_size=1, max_size=6), st.data())
def test_a_pattern_said_to_match_no_missing_value_matches_none(value, data):
    toks = tokenize(value)
    pattern = "".join(data.draw(st.sampled_from(options(t))) for t in toks)
    rx = pattern_regex(pattern)
    if not may_match_missing(rx):
        for text in data.draw(st.lists(missing_texts, min_size=1, max_size=10)):
            assert regex.fullmatch(rx, text) is None, (pattern, text)


def test_the_usual_patterns_skip_the_missing_test_and_blank_ones_do_not():
    assert not may_match_missing(pattern_regex("<digit>{5}"))
    assert not may_match_missing(pattern_regex("<upper>{2}"), ())  # NA is no null token here
    assert may_match_missing(pattern_regex("<upper>{2}"))  # NA is one
    assert may_match_missing(pattern_regex(r" <digit>+"))  # starts with a space
    assert may_match_missing(r"[0-9]{5}|")  # matches the empty text
    assert may_match_missing("[0-9")  # not a regex Python reads: unsure
