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

import regex

__all__ = [
    "DEFAULT_NULL_TOKENS",
    "WHITESPACE_REGEX",
    "drop_missing",
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
WHITESPACE_REGEX = r"\A(?:[\t\n\x0B\f\r ]*)\z"
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
