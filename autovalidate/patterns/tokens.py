r"""The lexer: a value becomes a sequence of coarse tokens (Song & He 2021, §2.1, §3).

A token is the unit of alignment, of the vertical-cut DP and of the token
limit tau.  The lexer scans left to right and grows each token until a
character of another class starts (§3: "growing each token until a character of
a different class is encountered"), with one change the paper's enterprise
columns call for: a maximal run of letters *and* digits is one token, so that
hexadecimal ids, GUID groups and base64-like keys, whose letter and digit runs
vary from row to row, still have the same number of tokens in every row.

Character classes (the same in the lexer and in every rendered regex):

* letter: any Unicode letter, ``\p{L}``;
* digit: an ASCII digit ``0-9`` (other Unicode digits are symbols);
* symbol: every other character, one token each (spaces and punctuation
  included).

Token kinds:

``D``
    a run of ASCII digits only, e.g. ``2019``;
``L``
    a run of letters only, e.g. ``Mar``;
``M``
    a run mixing letters and digits, e.g. ``3f2504e0``;
``N``
    a number that is not a plain digit run: a decimal ``12.50`` (digits, one
    dot, digits, where the dotted chain has exactly one dot, so ``1.2.3`` stays
    five tokens) and/or a signed number ``-7``, ``+1.5`` (a ``+``/``-`` right
    before the digits, at the start of the value or after a symbol other than
    ``.``, so ``2019-03`` keeps its dash as a symbol);
``S``
    a single symbol character.

:func:`identifier_tokens` is a second, coarser lexer for identifiers (URLs,
paths, e-mail addresses, host names, tokens): a maximal run of letters,
digits and RFC 3986's unreserved symbols ``.``, ``_``, ``~`` and ``-`` that
holds a letter or digit is one token of kind ``U`` (``careem-bike``,
``www.aarp.org``); every other character is a symbol token, as above.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import regex

__all__ = ["Token", "identifier_tokens", "tokenize", "token_class", "is_lower", "is_upper"]

_RUN = regex.compile(r"[\p{L}0-9]+|[^\p{L}0-9]", regex.V1)
#: RFC 3986's unreserved characters (letters here any Unicode letter, as above).
_UNRESERVED = r"[\p{L}0-9._~\-]"
_IDENTIFIER = regex.compile(rf"{_UNRESERVED}*[\p{{L}}0-9]{_UNRESERVED}*|.", regex.V1 | regex.S)
_UPPER = regex.compile(r"\p{Lu}+", regex.V1)
_LOWER = regex.compile(r"\p{Ll}+", regex.V1)
_LETTERS = regex.compile(r"\p{L}+", regex.V1)


class Token(NamedTuple):
    """One coarse token: its kind (``D``, ``L``, ``M``, ``N``, ``S`` or ``U``) and its text."""

    kind: str
    text: str


def _is_digits(run: str) -> bool:
    return run.isascii() and run.isdigit()


@lru_cache(maxsize=4096)
def _is_symbol_char(ch: str) -> bool:
    return regex.fullmatch(r"[^\p{L}0-9]", ch) is not None


def is_upper(text: str) -> bool:
    r"""True if every character is an uppercase letter (``\p{Lu}``)."""
    return _UPPER.fullmatch(text) is not None


def is_lower(text: str) -> bool:
    r"""True if every character is a lowercase letter (``\p{Ll}``)."""
    return _LOWER.fullmatch(text) is not None


@lru_cache(maxsize=1 << 16)
def tokenize(value: str) -> tuple[Token, ...]:
    """Split a value into coarse tokens.

    Parameters
    ----------
    value
        Any string; the empty string has no tokens.

    Returns
    -------
    tuple of Token
        The tokens in order; their texts concatenate back to ``value``.

    References
    ----------
    Song & He, SIGMOD 2021, §2.1 (coarse tokens) and §3 (the lexer).
    """
    runs = _RUN.findall(value)
    n = len(runs)
    words = [not _is_symbol_char(r) if len(r) == 1 else True for r in runs]
    tokens: list[Token] = []
    i = 0
    while i < n:
        run = runs[i]
        if not words[i]:
            # a sign: +/- before digits, at the start or after a symbol other than '.'
            if (
                run in "+-"
                and i + 1 < n
                and _is_digits(runs[i + 1])
                and (i == 0 or (not words[i - 1] and runs[i - 1] != "."))
            ):
                j, text = _number_at(runs, words, i + 1)
                tokens.append(Token("N", run + text))
                i = j
                continue
            tokens.append(Token("S", run))
            i += 1
            continue
        if _is_digits(run):
            j, text = _number_at(runs, words, i)
            tokens.append(Token("N" if j > i + 1 else "D", text))
            i = j
            continue
        tokens.append(Token("L" if _LETTERS.fullmatch(run) else "M", run))
        i += 1
    return tuple(tokens)


@lru_cache(maxsize=1 << 16)
def identifier_tokens(value: str) -> tuple[Token, ...]:
    """Split a value into identifier tokens (``U``) and symbols (``S``): the coarser lexer.

    A ``U`` token is a maximal run of letters, digits, ``.``, ``_``, ``~`` and
    ``-`` holding at least one letter or digit, the characters RFC 3986
    leaves unreserved in a URL (``https://www.aarp.org/a-b/`` is ``U : / /
    U / U /``); a run of those symbols alone, and every other character, is
    one ``S`` token each. The texts concatenate back to ``value``.

    Beyond the paper (its lexer is :func:`tokenize`): a URL's or a path's
    parts change their inner symbols from row to row (``careem-bike``,
    ``en_ae``, ``v1.2``), which the fine lexer reads as new formats.
    """
    return tuple(
        Token("U", run) if len(run) > 1 or not _is_symbol_char(run) else Token("S", run)
        for run in _IDENTIFIER.findall(value)
    )


def _number_at(runs: list[str], words: list[bool], i: int) -> tuple[int, str]:
    """At a digit run ``runs[i]``: take ``digits.digits`` if the dotted chain has one dot.

    Returns the index after the number and its text.
    """
    n = len(runs)
    if (
        i + 2 < n
        and runs[i + 1] == "."
        and _is_digits(runs[i + 2])
        and not (i >= 2 and runs[i - 1] == "." and words[i - 2])
        and not (i + 4 < n and runs[i + 3] == "." and words[i + 4])
    ):
        return i + 3, runs[i] + "." + runs[i + 2]
    return i + 1, runs[i]


def token_class(kind: str, text: str) -> str:
    """A token's alignment class: ``W`` (a word), ``D`` (digits), ``N`` (a number), ``S`` + symbol.

    An identifier token (:func:`identifier_tokens`) is its own class, ``U``.

    Values whose tokens have the same classes in order (the same *signature*)
    line up position by position (:mod:`autovalidate.solver.alignment`).
    """
    if kind in ("D", "L", "M"):
        return "W" if kind != "D" else "D"
    if kind in ("N", "U"):
        return kind
    return "S" + text
