r"""Literal text in the regex subset Python ``regex``, Java and RE2 share.

Every regex the package hands an engine (a rendered pattern, the missing-value
regex of :mod:`autovalidate.nulls`) must mean the same in Python's ``regex``
module, Java's ``java.util.regex`` (Spark ``rlike``) and RE2 (DuckDB
``regexp_full_match``).  :func:`literal_regex` writes literal text that way:
ASCII letters, digits and space as they are, ASCII punctuation escaped with a
backslash, control characters below U+00A0 as ``\xHH``, every other character
(non-ASCII letters, emoji) as itself.
"""

from __future__ import annotations

import string

__all__ = ["literal_regex"]

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
