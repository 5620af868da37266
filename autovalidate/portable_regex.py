r"""Literal text in the regex subset Python ``regex``, Java and RE2 share.

Every regex the package hands an engine (a rendered pattern, the missing-value
regex of :mod:`autovalidate.nulls`) must mean the same in Python's ``regex``
module, Java's ``java.util.regex`` (Spark ``rlike``) and RE2 (DuckDB
``regexp_full_match``).  :func:`literal_regex` writes literal text that way:
ASCII letters, digits and space as they are, ASCII punctuation escaped with a
backslash, control characters below U+00A0 as ``\xHH``, every other character
(non-ASCII letters, emoji) as itself. :func:`re2_error` asks RE2 itself
whether it compiles a regex: the strictest of the three, with limits of its own
on size.
"""

from __future__ import annotations

import string

__all__ = ["literal_regex", "re2_error"]

_PUNCT = frozenset(string.punctuation)
_PLAIN = frozenset(string.ascii_letters + string.digits + " ")


def _char_regex(ch: str) -> str:
    if ch in _PLAIN:
        return ch
    if ch in _PUNCT:
        return "\\" + ch
    code = ord(ch)
    if code < 0x20 or 0x7F <= code < 0xA0:
        return f"\\x{code:02X}"
    return ch


def literal_regex(text: str) -> str:
    """A regex matching exactly ``text``, the same in Python ``regex``, Java and RE2."""
    return "".join(_char_regex(ch) for ch in text)


def re2_error(regex: str) -> str | None:
    """Why RE2 refuses to compile ``regex``, or None where it compiles it.

    RE2 (google-re2, the library DuckDB's ``regexp_full_match`` runs, with
    its default options) refuses what it cannot run in linear time (a
    backreference, a look-around) and what outgrows its limits: a counted
    repetition copies its body, and counts nesting past 1,000 copies
    (``(?:[0-9]{4}){0,251}``: "invalid repetition size") or copies past its
    memory budget ("pattern too large") are refused.
    ``tests/property/test_regex_dialects.py`` holds it to DuckDB's answer.
    """
    import re2

    options = re2.Options()
    options.log_errors = False  # RE2 logs to stderr itself otherwise
    try:
        re2.compile(regex, options)
    except re2.error as exc:
        detail = exc.args[0] if exc.args else exc
        return detail.decode() if isinstance(detail, bytes) else str(detail)
    return None
