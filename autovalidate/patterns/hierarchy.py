r"""The generalization hierarchy: what one token may generalize to (Song & He 2021, §2.1, Fig. 4-5).

Every token has a small set of *options*, from its exact text (a constant) up
to the root classes, and a pattern is one option per token.  The options, as
they appear in canonical pattern strings:

=======  ==================================================================
kind     options, specific to general
=======  ==================================================================
``D``    ``2019`` → ``<digit>{4}`` → ``<digit>+`` → ``<num>``;
         ``<digit>{4}`` → ``<hex-lower>{4}`` / ``<hex-upper>{4}`` → ``<alphanum>{4}``
         → ``<alphanum>+``; ``<digit>+`` → ``<alphanum>+``
``L``    ``PM`` → ``<upper>{2}`` → ``<upper>+`` → ``<letter>+`` → ``<alphanum>+``;
         ``<upper>{2}`` → ``<letter>{2}`` → ``<letter>+``;
         ``<letter>{2}`` → ``<alphanum>{2}`` → ``<alphanum>+``
         (``<lower>`` likewise; title case ``Berlin`` → ``<upper>{1}<lower>{5}``
         → ``<upper>{1}<lower>+`` → ``<letter>+``, and ``<upper>{1}<lower>{5}``
         → ``<letter>{6}``; other mixed-case or caseless letters skip the case
         class); letters that are all hexadecimal digits of one case
         (``beef``) also → ``<hex-lower>{4}`` → ``<alphanum>{4}``
``M``    ``4f89`` → ``<digit>{1}<lower>{1}<digit>{2}`` (its run shape, letters
         split into runs of one case: ``Grp2`` is ``<upper>{1}<lower>{2}<digit>{1}``)
         → ``<digit>{1}<letter>{1}<digit>{2}``
         → ``<digit>+<letter>+<digit>+`` → ``<alphanum>+``;
         ``<digit>{1}<lower>{1}<digit>{2}`` → ``<digit>+<lower>+<digit>+``
         → ``<digit>+<letter>+<digit>+``;
         ``<digit>{1}<letter>{1}<digit>{2}`` → ``<alphanum>{4}`` → ``<alphanum>+``;
         hexadecimal runs of one case: ``4f89`` → ``<hex-lower>{4}`` → ``<alphanum>{4}``
``N``    ``-12.50`` → ``-<digit>{2}.<digit>{2}`` → ``-<digit>+.<digit>+`` → ``<num>``
``S``    ``/`` only: a symbol is always its own literal
=======  ==================================================================

Version 2 of the hierarchy (issue "pattern quality v2") made it finer where
version 1 let realistic format drift through:

* a symbol has no class any more (version 1 had ``<symbol>``, any
  non-alphanumeric character): a separator stays the character it is, so
  ``0_18877_4_0`` no longer accepts ``0-18877-4-0``; columns whose separators
  vary have more than one format (see the solver's multi-format search);
* hexadecimal runs of one case (``<hex-lower>``, ``<hex-upper>``, exact
  length only) sit between a token's own shape and ``<alphanum>{k}``, so a
  GUID's or a hash's case and length hold;
* a mixed run's shape keeps the case of its letter runs, and a title-case
  word (``Berlin``) has a node of its own, ``<upper>{1}<lower>{5}``.

Every finer node is still only a hypothesis: the solver takes it only where
the corpus's FPR_T supports it (§2.1).

The root of Fig. 4, ``<all>``, matches any value; the hypothesis space
excludes it (H(C) = ∩ P(v) minus ``.*``, §2.1), so it is never an option.
Each arrow is a strict superset in the strings matched, which makes coverage
anti-monotone along the arrows: the online search relies on that.

Canonical strings are a sequence of *elements*: class elements
``<name>{k}``, ``<name>+`` (``digit``, ``letter``, ``upper``, ``lower``,
``alphanum``, and ``hex-lower``/``hex-upper`` with ``{k}`` only) or a bare
``<num>``, and literal characters, where
``\``, ``<``, ``{`` and ``+`` are escaped with a backslash.  The concatenation
of a pattern's options is its canonical string, the key of the index.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import NamedTuple

import regex

from autovalidate.patterns.tokens import Token, is_lower, is_upper

__all__ = [
    "HIERARCHY_VERSION",
    "UNRESERVED_RUN",
    "Generalizations",
    "escape_literal",
    "generalizations",
    "options",
    "representative",
    "representatives",
]

#: Bumped whenever the options of a token change: an index built with another
#: hierarchy holds other keys and must be rebuilt.
HIERARCHY_VERSION = 2

_ESCAPED = frozenset("\\<{+")
_HEX_CHARS = {
    "hex-lower": frozenset("0123456789abcdef"),
    "hex-upper": frozenset("0123456789ABCDEF"),
}
_SHAPE_RUNS = regex.compile(r"[0-9]+|\p{L}+", regex.V1)
#: Runs of one case: digits, uppercase letters, lowercase letters, other letters.
_CASE_RUNS = regex.compile(r"[0-9]+|\p{Lu}+|\p{Ll}+|(?:(?![\p{Lu}\p{Ll}])\p{L})+", regex.V1)


def _is_digit_run(run: str) -> bool:
    return run[0].isascii() and run[0].isdigit()


def _case(text: str) -> str | None:
    """``"upper"`` or ``"lower"`` if every character is a letter of that case, else None."""
    return "upper" if is_upper(text) else "lower" if is_lower(text) else None


#: The one option of an identifier token (kind ``U``,
#: :func:`~autovalidate.patterns.tokens.identifier_tokens`) beside its constant.
UNRESERVED_RUN = "<unreserved>+"


def escape_literal(text: str) -> str:
    """Escape text for use as constant elements of a canonical pattern string."""
    return "".join("\\" + ch if ch in _ESCAPED else ch for ch in text)


class Generalizations(NamedTuple):
    """The options of one token and the arrows between them.

    Attributes
    ----------
    options
        Every option, the constant first.
    parents
        For each option, its immediate generalizations (empty for a root).
    level
        For each option, the length of the longest path down from a root
        (roots are level 0); each arrow goes down exactly one level.
    """

    options: tuple[str, ...]
    parents: dict[str, tuple[str, ...]]
    level: dict[str, int]


def _build(edges: list[tuple[str, str]], constant: str) -> Generalizations:
    parents: dict[str, list[str]] = {constant: []}
    for child, parent in edges:
        parents.setdefault(child, []).append(parent)
        parents.setdefault(parent, [])
    level: dict[str, int] = {}

    def depth(o: str) -> int:
        if o not in level:
            ps = parents[o]
            level[o] = 0 if not ps else 1 + max(depth(p) for p in ps)
        return level[o]

    for o in parents:
        depth(o)
    ordered = sorted(parents, key=lambda o: -level[o])
    return Generalizations(
        options=tuple(ordered),
        parents={o: tuple(ps) for o, ps in parents.items()},
        level=level,
    )


@lru_cache(maxsize=1 << 16)
def generalizations(token: Token) -> Generalizations:
    """All options of a token with their arrows (the hierarchy above).

    Parameters
    ----------
    token
        A token from :func:`~autovalidate.patterns.tokens.tokenize`.

    Returns
    -------
    Generalizations
    """
    kind, text = token
    k = len(text)
    const = escape_literal(text)
    ak, ap = f"<alphanum>{{{k}}}", "<alphanum>+"
    if kind == "S":
        return _build([], const)
    if kind == "U":  # an identifier run (identifier_tokens): its characters, any number
        return _build([(const, UNRESERVED_RUN)], const)
    if kind == "N":
        sign = text[0] if text[0] in "+-" else ""
        whole, _, frac = text[len(sign) :].partition(".")
        fk = escape_literal(sign) + f"<digit>{{{len(whole)}}}"
        fp = escape_literal(sign) + "<digit>+"
        if frac:
            fk += f".<digit>{{{len(frac)}}}"
            fp += ".<digit>+"
        return _build([(const, fk), (fk, fp), (fp, "<num>")], const)
    edges = [(ak, ap)]
    # the most specific class node of the run, below which the hexadecimal classes sit
    if kind == "D":
        dk, dp = f"<digit>{{{k}}}", "<digit>+"
        edges += [(const, dk), (dk, dp), (dp, "<num>"), (dp, ap)]
        hex_child = dk
    elif kind == "L":
        lk, lp = f"<letter>{{{k}}}", "<letter>+"
        edges += [(lk, lp), (lk, ak), (lp, ap)]
        case = _case(text)
        if case is not None:
            ck, cp = f"<{case}>{{{k}}}", f"<{case}>+"
            edges += [(const, ck), (ck, cp), (ck, lk), (cp, lp)]
        elif k > 1 and is_upper(text[0]) and is_lower(text[1:]):  # title case: Berlin
            tk, tp = f"<upper>{{1}}<lower>{{{k - 1}}}", "<upper>{1}<lower>+"
            edges += [(const, tk), (tk, tp), (tk, lk), (tp, lp)]
        else:
            edges.append((const, lk))
        hex_child = const
    elif kind == "M":
        runs = _SHAPE_RUNS.findall(text)
        plain = ["digit" if _is_digit_run(r) else "letter" for r in runs]
        sk = "".join(f"<{n}>{{{len(r)}}}" for n, r in zip(plain, runs, strict=True))
        sp = "".join(f"<{n}>+" for n in plain)
        edges += [(sk, sp), (sk, ak), (sp, ap)]
        case_runs = _CASE_RUNS.findall(text)
        cased = ["digit" if _is_digit_run(r) else _case(r) or "letter" for r in case_runs]
        if cased != plain:
            csk = "".join(f"<{n}>{{{len(r)}}}" for n, r in zip(cased, case_runs, strict=True))
            csp = "".join(f"<{n}>+" for n in cased)
            edges += [(const, csk), (csk, sk), (csk, csp), (csp, sp)]
        else:
            edges.append((const, sk))
        hex_child = const
    else:  # pragma: no cover - tokens come from tokenize()
        raise ValueError(f"unknown token kind {kind!r}")
    for name, chars in _HEX_CHARS.items():
        if all(c in chars for c in text):
            hk = f"<{name}>{{{k}}}"
            edges += [(hex_child, hk), (hk, ak)]
    return _build(edges, const)


#: ASCII characters by what the hierarchy reads of them: a digit, a hexadecimal
#: letter of either case, any other letter of either case.
_REPRESENTATIVE = str.maketrans(
    {
        **dict.fromkeys("0123456789", "0"),
        **dict.fromkeys("abcdef", "a"),
        **dict.fromkeys("ghijklmnopqrstuvwxyz", "g"),
        **dict.fromkeys("ABCDEF", "A"),
        **dict.fromkeys("GHIJKLMNOPQRSTUVWXYZ", "G"),
    }
)


def representative(token: Token) -> Token:
    """A token whose options are ``token``'s, but for the constant (its own text).

    The options other than a token's constant read only its kind, length,
    the runs and case of its characters and whether its letters are
    hexadecimal digits; a token with every ASCII character replaced by one
    of its class (``8c2d`` → ``0a0a``, ``Berlin`` → ``Gagggg``) has the
    same ones, with the same arrows and levels. Columns of 10^5 distinct
    GUID parts have at most 2^k representatives of a k-character part, so
    the solver builds the hierarchy of those instead of one per value.
    Symbols and non-ASCII characters are kept as they are.
    """
    text = _representative_text(*token)
    return token if text == token.text else Token(token.kind, text)


def representatives(tokens: Iterable[Token]) -> set[Token]:
    """The distinct :func:`representative` of ``tokens`` (no Token built per input token)."""
    return {Token(*shape) for shape in {(k, _representative_text(k, t)) for k, t in tokens}}


def _representative_text(kind: str, text: str) -> str:
    return text if kind == "S" else text.translate(_REPRESENTATIVE)


def options(token: Token) -> tuple[str, ...]:
    """The options of a token, constant first (P(v) restricted to one token)."""
    return generalizations(token).options
