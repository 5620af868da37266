r"""Null tokens: the texts that stand for a missing value in machine-generated data.

A CSV written by R, pandas, a database export or a spreadsheet says "no value"
with text: ``NA``, ``N/A``, ``null``, ``None``, ``-`` or nothing at all.  For
a pattern constraint such a text is a *missing value*, completeness, a
separate metric: it is never learned as the column's pattern (a column whose
first rows are ``NA`` would otherwise get ``<upper>{2}``, which fails on the
rest) and never counted as non-conforming, neither in the corpus index nor in
a training column nor in a validated batch (issue "pattern quality v2", item 4).

:data:`DEFAULT_NULL_TOKENS` is pandas' default ``na_values`` for
``read_csv`` (``pandas._libs.parsers.STR_NA_VALUES``, pandas 2.2), plus
``-``; a value is also missing when it is empty or only whitespace
(:data:`WHITESPACE_REGEX`: space, tab, newline, carriage return, form feed,
vertical tab, the characters every engine's regex calls whitespace alike).
Matching is exact and case-sensitive, as in pandas.  The list is configurable
per constraint (``null_tokens``); an empty list keeps only nulls and
whitespace-only values missing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import lru_cache

import regex

from autovalidate.portable_regex import literal_regex

__all__ = [
    "DEFAULT_NULL_TOKENS",
    "WHITESPACE_REGEX",
    "drop_missing",
    "may_match_missing",
    "missing_regex",
]

#: pandas' default ``na_values`` (``STR_NA_VALUES``) plus ``-``, sorted.
DEFAULT_NULL_TOKENS: tuple[str, ...] = tuple(
    sorted(
        {
            "",
            "#N/A",
            "#N/A N/A",
            "#NA",
            "-1.#IND",
            "-1.#QNAN",
            "-NaN",
            "-nan",
            "1.#IND",
            "1.#QNAN",
            "<NA>",
            "N/A",
            "NA",
            "NULL",
            "NaN",
            "None",
            "n/a",
            "nan",
            "null",
            "-",
        }
    )
)
#: A value that is empty or only whitespace, fully anchored; the same in
#: Python ``regex``, Java and RE2.
_WHITESPACE_CHARS = "\t\n\x0b\f\r "
_WHITESPACE_BODY = "[" + literal_regex(_WHITESPACE_CHARS) + "]*"
WHITESPACE_REGEX = rf"\A(?:{_WHITESPACE_BODY})\z"
_WHITESPACE = regex.compile(WHITESPACE_REGEX)


def drop_missing(
    values: Iterable[str | None], null_tokens: Iterable[str] = DEFAULT_NULL_TOKENS
) -> Iterator[str]:
    """The values that are not missing, in order.

    Parameters
    ----------
    values
        Values as text; ``None`` is a null.
    null_tokens
        The texts that mean "missing" (exact, case-sensitive); empty and
        whitespace-only values are missing whatever the list.
    """
    tokens = frozenset(null_tokens)
    for value in values:
        if value is not None and value not in tokens and _WHITESPACE.fullmatch(value) is None:
            yield value


def missing_regex(null_tokens: Iterable[str] = DEFAULT_NULL_TOKENS) -> str:
    r"""One fully anchored regex that matches exactly the missing texts.

    A text is missing when it is empty or only whitespace, or one of
    ``null_tokens`` (exact, case-sensitive): ``\A(?:[\t\n\x0B\f\r ]*|NA|...)\z``,
    the same in Python ``regex``, Java and RE2. An engine tests a value with
    one regex match, which fails at the first character of most present
    values, instead of a whitespace match and a list lookup.
    """
    tokens = sorted({t for t in null_tokens if t})
    return r"\A(?:" + "|".join([_WHITESPACE_BODY, *map(literal_regex, tokens)]) + r")\z"


def may_match_missing(pattern_regex: str, null_tokens: Iterable[str] = DEFAULT_NULL_TOKENS) -> bool:
    """Whether a missing text might fully match ``pattern_regex``; True when unsure.

    False means no missing text matches: no null token, not the empty text,
    and no text of whitespace only, because the pattern cannot even begin
    with a whitespace character (``regex`` partial matching). A value that
    matches such a pattern is then present, and an engine can count the
    missing values among the failing ones only. A regex Python's ``regex``
    cannot compile (one written for an engine only) gets True.

    Parameters
    ----------
    pattern_regex
        A fully anchored regex in the shared subset (e.g. a
        :class:`~autovalidate.pattern_constraint.PatternConstraint`'s).
    null_tokens
        The texts that mean "missing".
    """
    return _may_match_missing(pattern_regex, tuple(sorted(set(null_tokens))))


@lru_cache(maxsize=1024)
def _may_match_missing(pattern_regex: str, null_tokens: tuple[str, ...]) -> bool:
    try:
        compiled = regex.compile(pattern_regex)
    except regex.error:
        return True
    if any(compiled.fullmatch(t) for t in (*null_tokens, "")):
        return True
    return any(compiled.fullmatch(ch, partial=True) for ch in _WHITESPACE_CHARS)
