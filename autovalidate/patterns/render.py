r"""Canonical pattern strings: parsing, and rendering to one portable regex.

A rendered regex is fully anchored (``\A(?:...)\z``: the whole value must
match, a trailing newline included) and means exactly the same in Python's
``regex`` module, Java's ``java.util.regex`` (Spark ``rlike``) and RE2 (DuckDB
``regexp_full_match``).  It uses only constructs the three share:

* ``[0-9]`` for a digit (ASCII only, as in the lexer), ``\p{L}``, ``\p{Lu}``,
  ``\p{Ll}`` for letters, ``[\p{L}0-9]`` for a letter or digit,
  ``[0-9a-f]`` and ``[0-9A-F]`` for a hexadecimal digit of one case,
  ``[\p{L}0-9._~\-]`` for a character RFC 3986 leaves unreserved
  (``<unreserved>``: a letter, a digit, ``.``, ``_``, ``~`` or ``-``), and
  ``[^\p{L}0-9]`` for one symbol character (``<symbol>``, which hierarchy
  version 1 generated; constraint files written then still render);
* ``{k}``, ``{k,}`` (at least k: a run whose shortest length the corpus
  justifies, :func:`bounded_pattern`, see :mod:`autovalidate.solver.lengths`)
  and ``+`` quantifiers,
  non-capturing groups, ``?`` on a group;
* literals as :func:`~autovalidate.portable_regex.literal_regex` writes them:
  ASCII letters and digits as they are, ASCII punctuation escaped with a
  backslash, control characters below U+00A0 as ``\xHH``, every other
  character (space, non-ASCII letters, emoji) as itself.

Letters are matched by Unicode general category; the three engines may
disagree on characters assigned in Unicode versions newer than the oldest
engine's tables (Java 17 has Unicode 13).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

import regex

from autovalidate.errors import ParameterError
from autovalidate.portable_regex import literal_regex
from autovalidate.schemas import MAX_REPEAT

__all__ = [
    "Element",
    "Form",
    "Parts",
    "describe_pattern",
    "parse_pattern",
    "pattern_regex",
    "quantified",
    "bounded_pattern",
    "render_body",
    "segment_body",
    "spell_form",
    "spell_segments",
    "MAX_REPEAT",
    "run_lengths",
]

_CLASS_REGEX = {
    "digit": "[0-9]",
    "letter": r"\p{L}",
    "upper": r"\p{Lu}",
    "lower": r"\p{Ll}",
    "alphanum": r"[\p{L}0-9]",
    "hex-lower": "[0-9a-f]",
    "hex-upper": "[0-9A-F]",
    "unreserved": r"[\p{L}0-9._~\-]",
}
_BARE_REGEX = {
    "num": r"[+\-]?[0-9]+(?:\.[0-9]+)?",
    "symbol": r"[^\p{L}0-9]",
}
#: Words for a class: (one, many).
_CLASS_WORDS = {
    "digit": ("digit", "digits"),
    "letter": ("letter", "letters"),
    "upper": ("uppercase letter", "uppercase letters"),
    "lower": ("lowercase letter", "lowercase letters"),
    "alphanum": ("letter or digit", "letters or digits"),
    "hex-lower": ("lowercase hex digit", "lowercase hex digits"),
    "hex-upper": ("uppercase hex digit", "uppercase hex digits"),
    "unreserved": (
        "letter, digit, '.', '_', '~' or '-'",
        "letters, digits, '.', '_', '~' or '-'",
    ),
}
_BARE_WORDS = {"num": "a number", "symbol": "a symbol"}


class Element(NamedTuple):
    """One element of a canonical pattern string.

    ``kind`` is ``"literal"`` (``text`` is the character), ``"class"`` (``text``
    is ``digit``/``letter``/``upper``/``lower``/``alphanum``/``hex-lower``/``hex-upper``/
    ``unreserved``
    and ``quantifier`` is a count ``k``, ``"+"``, or ``"k,"`` for at least k) or ``"bare"``
    (``text`` is ``num``/``symbol``).
    """

    kind: str
    text: str
    quantifier: int | str | None = None


def parse_pattern(pattern: str) -> list[Element]:
    """Parse a canonical pattern string into elements.

    Raises
    ------
    ParameterError
        If the string is not a canonical pattern (unknown class, missing
        quantifier, dangling escape).
    """
    out: list[Element] = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            if i + 1 >= n:
                raise ParameterError(f"dangling escape at the end of pattern {pattern!r}")
            out.append(Element("literal", pattern[i + 1]))
            i += 2
            continue
        if ch != "<":
            out.append(Element("literal", ch))
            i += 1
            continue
        close = pattern.find(">", i)
        if close < 0:
            raise ParameterError(f"unclosed class at {i} in pattern {pattern!r}")
        name = pattern[i + 1 : close]
        i = close + 1
        if name in _BARE_REGEX:
            out.append(Element("bare", name))
            continue
        if name not in _CLASS_REGEX:
            raise ParameterError(f"unknown class <{name}> in pattern {pattern!r}")
        if i < n and pattern[i] == "+":
            out.append(Element("class", name, "+"))
            i += 1
        elif i < n and pattern[i] == "{":
            end = pattern.find("}", i)
            count = pattern[i + 1 : end] if end > 0 else ""
            least = count[:-1] if count.endswith(",") else None
            if least is not None and least.isdigit() and int(least) >= 2:
                out.append(Element("class", name, count))
            elif count.isdigit() and int(count) >= 1:
                out.append(Element("class", name, int(count)))
            else:
                raise ParameterError(f"bad count after <{name}> in pattern {pattern!r}")
            i = end + 1
        else:
            raise ParameterError(f"<{name}> needs {{k}}, {{k,}} or + in pattern {pattern!r}")
    return out


def render_body(pattern: str, *, capture_runs: bool = False) -> str:
    """Regex for a canonical pattern string, without anchors.

    With ``capture_runs``, every ``+`` run is a capturing group, in order
    (to read a value's run lengths; a constraint's regex never captures).
    """
    parts: list[str] = []
    for el in parse_pattern(pattern):
        if el.kind == "literal":
            parts.append(literal_regex(el.text))
        elif el.kind == "bare":
            parts.append(_BARE_REGEX[el.text])
        else:
            q = el.quantifier
            body = _CLASS_REGEX[el.text] + ("+" if q == "+" else "" if q == 1 else f"{{{q}}}")
            parts.append(f"({body})" if capture_runs and q == "+" else body)
    return "".join(parts)


@lru_cache(maxsize=1 << 12)
def _runs_regex(pattern: str) -> regex.Pattern[str]:
    return regex.compile(render_body(pattern, capture_runs=True))


@lru_cache(maxsize=1 << 16)
def run_lengths(pattern: str, text: str) -> tuple[int, ...]:
    """The length of each ``+`` run of ``pattern`` in ``text``, in order.

    Runs of one class next to another of an overlapping class split as the
    regex engine's greedy match splits them.

    Raises
    ------
    ParameterError
        If ``pattern`` does not fully match ``text``.
    """
    m = _runs_regex(pattern).fullmatch(text)
    if m is None:
        raise ParameterError(f"pattern {pattern!r} does not match {text!r}")
    return tuple(len(g) for g in m.groups())


#: One element of a canonical pattern string, as :func:`bounded_pattern` rewrites
#: it: an escaped literal, a class (group 1 is ``+`` for a run of any length),
#: or any other character.
_ELEMENT = re.compile(r"\\.|<[a-z-]+>(\+)?|.", re.S)


def bounded_pattern(pattern: str, least: Sequence[int]) -> str:
    """``pattern`` with its i-th ``+`` run written ``{least[i],}`` where ``least[i]`` ≥ 2.

    Raises
    ------
    ValueError
        If ``least`` does not give one length per ``+`` run.
    """
    runs = iter(least)
    out = []
    for m in _ELEMENT.finditer(pattern):
        if m.group(1) is None:
            out.append(m.group())
            continue
        k = next(runs)
        out.append(m.group()[:-1] + f"{{{k},}}" if k >= 2 else m.group())
    if next(runs, None) is not None:
        raise ValueError(f"more lengths than + runs in {pattern!r}")
    return "".join(out)


#: The parts of a segment that has optional parts of its own, one level deep:
#: ``(pattern, most)`` each, as :data:`Segments` (a list item with an optional
#: part, repeated as a whole: ``(; T<digit>{4}(.<digit>{3})?){0,3}``). A
#: constraint's parts are required or optional (most 0 or 1), never repeated.
Parts = tuple[tuple[str, int], ...]
#: What a segment is: a canonical pattern string, or its :data:`Parts`.
Form = str | Parts
#: A vertical cut's segments: ``(form, most)``, where ``most`` is how many
#: times the segment may occur: 0 (or False) for a segment every value has,
#: 1 (or True) for an optional one (``(?:...)?``), k ≥ 2 for a repeated one
#: (``(?:...){0,k}``: the ``_x`` of ``a_x_y_z`` up to k times).
Segments = Sequence[tuple[Form, int]]


def quantified(body: str, most: int) -> str:
    """A segment's regex body with its occurrence bound (``most``, see :data:`Segments`)."""
    if not most:
        return body
    return f"(?:{body})?" if most == 1 else f"(?:{body}){{0,{int(most)}}}"


def segment_body(form: Form) -> str:
    """A segment's regex, unanchored: its pattern's, or its parts' in order, each quantified.

    Raises
    ------
    ParameterError
        If a pattern is not canonical.
    """
    if isinstance(form, str):
        return render_body(form)
    return "".join(quantified(render_body(p), most) for p, most in form)


def spell_form(form: Form) -> str:
    """A segment in canonical spelling: its pattern, or its parts spelled as a cut."""
    return form if isinstance(form, str) else spell_segments(form)


def spell_segments(segments: Segments) -> str:
    """A cut in canonical spelling: ``(...)?`` for an optional segment, ``(...){0,k}`` repeated."""
    spelled = ((spell_form(form), most) for form, most in segments)
    return "".join(
        p if not most else f"({p})?" if most == 1 else f"({p}){{0,{int(most)}}}"
        for p, most in spelled
    )


def pattern_regex(
    segments: Segments | str | None = None, *, branches: Sequence[Segments] | None = None
) -> str:
    r"""The fully anchored portable regex of a pattern.

    Parameters
    ----------
    segments
        A canonical pattern string, or a list of ``(form, most)`` segments
        (a vertical cut, :data:`Segments`): an optional segment may be absent
        as a whole, a repeated one occur up to ``most`` times, and a segment
        of :data:`Parts` is its parts in order, each quantified the same way.
    branches
        For a multi-format pattern, its formats (each a list of segments;
        ``segments`` is then ignored): the regex accepts a value matching any
        one of them, ``\A(?:b1|b2)\z``.

    Returns
    -------
    str
        ``\A(?:...)\z``; full-match semantics in Python ``regex``, Java and RE2.
    """
    branches = _branches(segments, branches)
    body = "|".join("".join(quantified(segment_body(f), most) for f, most in b) for b in branches)
    return rf"\A(?:{body})\z"


def describe_pattern(
    segments: Segments | str | None = None, *, branches: Sequence[Segments] | None = None
) -> str:
    """A short reading of a pattern: ``<digit>{5}-<digit>{4}`` is ``5 digits '-' 4 digits``.

    Parameters
    ----------
    segments, branches
        As for :func:`pattern_regex`; an optional segment reads ``[...]``, a
        repeated one ``[...] up to k times``, and the formats of a
        multi-format pattern are joined by ``, or ``.

    Returns
    -------
    str
        Classes as counted words (``1+ digits`` for ``<digit>+``), literal
        runs quoted, elements separated by spaces.

    Raises
    ------
    ParameterError
        If a pattern is not canonical.
    """
    branches = _branches(segments, branches)
    return ", or ".join(" ".join(_describe(p, o) for p, o in b) for b in branches)


def _branches(
    segments: Segments | str | None, branches: Sequence[Segments] | None
) -> Sequence[Segments]:
    if branches is not None:
        return branches
    if segments is None:
        raise ParameterError("a pattern needs segments or branches")
    return [[(segments, 0)] if isinstance(segments, str) else segments]


def _describe(form: Form, most: int) -> str:
    text = _describe_pattern(form) if isinstance(form, str) else _describe_cut(form)
    if not most:
        return text
    return f"[{text}]" if most == 1 else f"[{text}] up to {int(most)} times"


def _describe_cut(parts: Parts) -> str:
    return " ".join(_describe(p, most) for p, most in parts)


def _describe_pattern(pattern: str) -> str:
    words: list[str] = []
    literal = ""
    for el in parse_pattern(pattern):
        if el.kind == "literal":
            literal += el.text
            continue
        if literal:
            words.append(repr(literal))
            literal = ""
        if el.kind == "bare":
            words.append(_BARE_WORDS[el.text])
        else:
            one, many = _CLASS_WORDS[el.text]
            q = el.quantifier
            if q == "+":
                words.append(f"1+ {many}")
            elif isinstance(q, str):
                words.append(f"{q[:-1]}+ {many}")
            else:
                words.append(f"1 {one}" if q == 1 else f"{q} {many}")
    if literal:
        words.append(repr(literal))
    return " ".join(words)
