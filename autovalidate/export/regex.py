r"""A constraint's regex in another tool's dialect, with what the translation approximates.

autovalidate's regexes (:mod:`autovalidate.patterns.render`) are fully
anchored, ``\A(?:...)\z``, and use Unicode letter properties (``\p{L}``,
``\p{Lu}``, ``\p{Ll}``): the same in Python's ``regex`` module, Java and RE2.
Other tools run other engines, with other anchoring:

* Python's ``re`` (Great Expectations' pandas backend, pandera) rejects
  ``\p{...}`` and ``\z`` (its absolute end is ``\Z``);
* Great Expectations, Soda and dbt-expectations *search* (the regex may match
  anywhere in the value); pandera matches a prefix (``re.match``);
* SQL engines (Soda and dbt run the regex in the warehouse: PostgreSQL, RE2 in
  BigQuery and DuckDB, Java in Spark, POSIX in Snowflake) share little beyond
  POSIX extended syntax.

:func:`translate` reads the regex construct by construct (``\A``, ``\z``,
``\p{L}``, ``\p{Lu}``, ``\p{Ll}``, character classes with ranges, escaped
literals, ``\xHH``, ``{k}``, ``{k,}``, ``{k,m}``, ``+``, ``*``, ``?``, ``(?:...)``,
``|``), so any pattern class rendered from these constructs translates, and
writes it again in a :class:`Dialect`, wrapped in the anchors that make it a
full match under the target's own semantics. Where the target cannot say
what autovalidate says, the translation is an approximation, returned in
words with the regex.

Dialects
--------
``java``
    Java ``java.util.regex`` (AWS Glue Data Quality runs on Spark): exact.
``python``
    Python ``re``: letters are ASCII letters (see below).
``portable``
    The meaning shared by Python ``re`` and Java, for Great Expectations,
    whose one suite runs on pandas (``re``) and on Spark (Java): ASCII letters,
    and the absolute end written ``(?![\s\S])`` (neither ``\z`` nor ``\Z`` means
    the same in both).
``sql``
    POSIX extended syntax, for Soda and dbt: plain groups ``(...)``, ``^`` and
    ``$``, metacharacters as one-character bracket expressions (``[.]``) so no
    backslash is needed for them, ASCII letters.

Letters outside Java are ASCII: ``\p{L}`` becomes ``A-Za-z``, ``\p{Lu}``
``A-Z``, ``\p{Ll}`` ``a-z`` (Python ``re`` has no Unicode case class at all,
and a uniform rule keeps the pandas and Spark runs of one suite identical).
A non-ASCII letter (``é``, ``ß``, ``Ж``) then fails a letter class in the
export while autovalidate accepts it, and matches a negated class (a
``<symbol>``) that autovalidate rejects it from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from autovalidate.errors import ParameterError

__all__ = ["DIALECTS", "Dialect", "Translation", "translate"]

# -- the constructs of a rendered regex ------------------------------------------------------


@dataclass(frozen=True)
class _Literal:
    char: str


@dataclass(frozen=True)
class _Class:
    r"""``[...]`` or a bare ``\\p{X}`` (``bare``): chars, ranges and Unicode properties."""

    negated: bool
    chars: tuple[str, ...]
    ranges: tuple[tuple[str, str], ...]
    properties: tuple[str, ...]
    bare: bool = False


@dataclass(frozen=True)
class _Group:
    branches: tuple[tuple[_Node, ...], ...]


@dataclass(frozen=True)
class _Repeat:
    node: _Node
    quantifier: str  # "+", "*", "?", "{k}", "{k,}" or "{k,m}"


_Node = _Literal | _Class | _Group | _Repeat

_PROPERTIES = ("L", "Lu", "Ll")


class _Parser:
    """Recursive descent over the constructs listed in the module docstring."""

    def __init__(self, regex: str) -> None:
        self.text = regex
        self.i = 0

    def fail(self, what: str) -> ParameterError:
        return ParameterError(
            f"regex {self.text!r}: {what} at offset {self.i}; only rendered pattern regexes "
            "translate"
        )

    def peek(self, n: int = 1) -> str:
        return self.text[self.i : self.i + n]

    def alternation(self) -> tuple[tuple[_Node, ...], ...]:
        branches = [self.sequence()]
        while self.peek() == "|":
            self.i += 1
            branches.append(self.sequence())
        return tuple(branches)

    def sequence(self) -> tuple[_Node, ...]:
        nodes: list[_Node] = []
        while self.i < len(self.text) and self.peek() not in ("|", ")"):
            if self.peek(2) == "\\z":
                break
            atom = self.atom()
            nodes.append(self.quantified(atom))
        return tuple(nodes)

    def quantified(self, atom: _Node) -> _Node:
        while self.i < len(self.text):
            ch = self.peek()
            if ch in "+*?":
                self.i += 1
                atom = _Repeat(atom, ch)
            elif ch == "{":
                end = self.text.find("}", self.i)
                body = self.text[self.i + 1 : end] if end > 0 else ""
                parts = body.split(",")
                if not (
                    1 <= len(parts) <= 2
                    and parts[0].isdigit()
                    and (len(parts) == 1 or parts[1] == "" or parts[1].isdigit())
                ):
                    raise self.fail("a bad {k} quantifier")
                self.i = end + 1
                atom = _Repeat(atom, "{" + body + "}")
            else:
                break
        return atom

    def atom(self) -> _Node:
        ch = self.peek()
        if self.peek(3) == "(?:":
            self.i += 3
            branches = self.alternation()
            if self.peek() != ")":
                raise self.fail("an unclosed group")
            self.i += 1
            return _Group(branches)
        if ch == "(":
            raise self.fail("a capturing group")
        if ch == "[":
            return self.char_class()
        if ch == "\\":
            if self.peek(3) == "\\p{":
                return _Class(False, (), (), (self.property(),), bare=True)
            return _Literal(self.escape())
        if ch in ".^$":
            raise self.fail(f"an unsupported construct {ch!r}")
        self.i += 1
        return _Literal(ch)

    def property(self) -> str:
        end = self.text.find("}", self.i)
        name = self.text[self.i + 3 : end] if end > 0 else ""
        if name not in _PROPERTIES:
            raise self.fail(f"an unknown property \\p{{{name}}}")
        self.i = end + 1
        return name

    def escape(self) -> str:
        r"""One escaped character: ``\\xHH`` or a backslash before punctuation."""
        if self.peek(2) == "\\x":
            digits = self.text[self.i + 2 : self.i + 4]
            try:
                char = chr(int(digits, 16))
            except ValueError:
                raise self.fail("a bad \\x escape") from None
            self.i += 4
            return char
        char = self.text[self.i + 1 : self.i + 2]
        if not char or char.isalnum():
            raise self.fail(f"an unsupported escape \\{char}")
        self.i += 2
        return char

    def char_class(self) -> _Class:
        self.i += 1
        negated = self.peek() == "^"
        if negated:
            self.i += 1
        chars: list[str] = []
        ranges: list[tuple[str, str]] = []
        properties: list[str] = []
        while self.peek() != "]":
            if self.i >= len(self.text):
                raise self.fail("an unclosed character class")
            if self.peek(3) == "\\p{":
                properties.append(self.property())
                continue
            low = self.escape() if self.peek() == "\\" else self.take()
            if self.peek() == "-" and self.peek(2) != "-]":
                self.i += 1
                high = self.escape() if self.peek() == "\\" else self.take()
                ranges.append((low, high))
            else:
                chars.append(low)
        self.i += 1
        return _Class(negated, tuple(chars), tuple(ranges), tuple(properties))

    def take(self) -> str:
        ch = self.peek()
        self.i += 1
        return ch


def _parse_anchored(regex: str) -> tuple[tuple[_Node, ...], ...]:
    r"""The alternatives of a ``\A(?:...)\z`` regex's body."""
    if not (regex.startswith("\\A") and regex.endswith("\\z")):
        raise ParameterError(f"regex {regex!r} is not anchored as \\A...\\z")
    parser = _Parser(regex)
    parser.i = 2
    branches = parser.alternation()
    if parser.text[parser.i :] != "\\z":
        raise parser.fail("trailing text before \\z")
    if len(branches) == 1 and len(branches[0]) == 1 and isinstance(branches[0][0], _Group):
        return branches[0][0].branches  # the rendered (?:...) around the whole body
    return branches


# -- dialects ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Dialect:
    r"""How one target writes a regex.

    Attributes
    ----------
    name
        ``java``, ``python``, ``portable`` or ``sql``.
    engines
        The engines that run it, in words.
    start, end
        The anchors of a full match under the target's semantics.
    group
        Opening of a group (``(?:`` or ``(`` where non-capturing groups are not
        universal).
    properties
        Unicode property -> its text inside a bracket expression (``A-Za-z``),
        or ``None`` to keep ``\p{...}``.
    literal
        Writes one literal character outside a bracket expression.
    end_note
        What the end anchor approximates, if anything.
    class_literal
        Writes one character inside a bracket expression.
    """

    name: str
    engines: str
    start: str
    end: str
    group: str
    properties: dict[str, str] | None
    literal: Callable[[str], str]
    end_note: str | None = None
    class_literal: Callable[[str], str] = lambda ch: _class_char(ch)


_ASCII_LETTERS = {"L": "A-Za-z", "Lu": "A-Z", "Ll": "a-z"}
_PROPERTY_WORDS = {"L": "a letter", "Lu": "an upper-case letter", "Ll": "a lower-case letter"}


def _control(ch: str) -> str | None:
    code = ord(ch)
    return f"\\x{code:02X}" if code < 0x20 or 0x7F <= code < 0xA0 else None


def _backslash_literal(ch: str) -> str:
    """Python ``re`` and Java: punctuation escaped with a backslash, as autovalidate renders it."""
    control = _control(ch)
    if control is not None:
        return control
    if ch.isascii() and not ch.isalnum() and ch != " ":
        return "\\" + ch
    return ch


def _java_literal(ch: str) -> str:
    r"""As :func:`_backslash_literal`, but ``"`` and ``\\`` as hex, never inside a quoted string."""
    if ch in '"\\':
        return f"\\x{ord(ch):02X}"
    return _backslash_literal(ch)


def _java_class_literal(ch: str) -> str:
    r"""As :func:`_class_char`, but ``"`` and ``\\`` as hex (see :func:`_java_literal`)."""
    if ch in '"\\':
        return f"\\x{ord(ch):02X}"
    return _class_char(ch)


#: POSIX metacharacters outside a bracket expression, written as a bracket expression.
_SQL_BRACKETED = frozenset(".*+?(){}|$")


def _sql_literal(ch: str) -> str:
    r"""POSIX extended: a metacharacter as ``[.]``, ``[`` ``]`` ``\\`` ``^`` escaped; rest as is."""
    control = _control(ch)
    if control is not None:
        return control
    if ch in _SQL_BRACKETED:
        return f"[{ch}]"
    if ch in "[]\\^":
        return "\\" + ch
    return ch


DIALECTS: dict[str, Dialect] = {
    "java": Dialect(
        "java",
        "Java java.util.regex (Spark)",
        "^",
        r"\z",
        "(?:",
        None,
        _java_literal,
        class_literal=_java_class_literal,
    ),
    "python": Dialect(
        "python",
        "Python re",
        r"\A",
        r"\Z",
        "(?:",
        _ASCII_LETTERS,
        _backslash_literal,
    ),
    "portable": Dialect(
        "portable",
        "Python re (pandas) and Java (Spark)",
        "^",
        r"(?![\s\S])",
        "(?:",
        _ASCII_LETTERS,
        _backslash_literal,
    ),
    "sql": Dialect(
        "sql",
        "POSIX extended regular expressions (PostgreSQL, RE2, Java, Snowflake)",
        "^",
        "$",
        "(",
        _ASCII_LETTERS,
        _sql_literal,
        end_note=(
            "$ ends the match: some engines (Java in Spark, Python) also accept the value "
            "with one trailing newline, which autovalidate rejects"
        ),
    ),
}


@dataclass(frozen=True)
class Translation:
    """A regex in a target's dialect.

    Attributes
    ----------
    regex
        The regex, anchored for a full match under the target's semantics.
    dialect
        The :class:`Dialect` used.
    approximations
        What differs from autovalidate's regex, one sentence each (empty when exact).
    """

    regex: str
    dialect: Dialect
    approximations: tuple[str, ...] = field(default=())


class _Writer:
    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        self.notes: list[str] = []

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def branches(self, branches: tuple[tuple[_Node, ...], ...]) -> str:
        return "|".join("".join(self.node(n) for n in branch) for branch in branches)

    def node(self, node: _Node) -> str:
        if isinstance(node, _Literal):
            return self.dialect.literal(node.char)
        if isinstance(node, _Group):
            return self.dialect.group + self.branches(node.branches) + ")"
        if isinstance(node, _Repeat):
            return self.node(node.node) + node.quantifier
        return self.char_class(node)

    def char_class(self, node: _Class) -> str:
        properties = self.dialect.properties
        if properties is None:  # \p{...} kept
            parts = [f"\\p{{{p}}}" for p in node.properties]
            if node.bare:
                return parts[0]
        else:
            parts = [properties[p] for p in node.properties]
            for p in node.properties:
                self.note(
                    f"\\p{{{p}}} ({_PROPERTY_WORDS[p]}) is written {properties[p]}: "
                    "ASCII letters only; a non-ASCII letter "
                    + (
                        "matches this negated class, which autovalidate's rejects"
                        if node.negated
                        else "does not match here, and does in autovalidate"
                    )
                )
        write = self.dialect.class_literal
        parts += [f"{write(lo)}-{write(hi)}" for lo, hi in node.ranges]
        hyphen = "-" in node.chars
        parts += [write(c) for c in node.chars if c != "-"]
        body = "".join(parts) + ("-" if hyphen else "")
        return "[" + ("^" if node.negated else "") + body + "]"


def _class_char(ch: str) -> str:
    r"""A character inside a bracket expression: ``\\``, ``]``, ``[`` and ``^`` escaped."""
    control = _control(ch)
    if control is not None:
        return control
    return "\\" + ch if ch in "\\][^" else ch


def translate(regex: str, dialect: str | Dialect) -> Translation:
    r"""Write an autovalidate regex in another dialect, anchored for a full match there.

    Parameters
    ----------
    regex
        A rendered pattern regex, ``\A(?:...)\z``
        (:attr:`~autovalidate.PatternConstraint.regex`).
    dialect
        A :class:`Dialect` or its name in :data:`DIALECTS`.

    Returns
    -------
    Translation
        The regex and, in words, what it approximates.

    Raises
    ------
    ParameterError
        If the regex is not anchored or uses a construct outside the rendered
        vocabulary (see the module docstring), or the dialect is unknown.

    Examples
    --------
    >>> translate(r"\A(?:[0-9]{5}(?:\-[0-9]{4})?)\z", "sql").regex
    '^([0-9]{5}(-[0-9]{4})?)$'
    >>> translate(r"\A(?:\p{Lu}[0-9]+)\z", "java").regex
    '^(?:\\p{Lu}[0-9]+)\\z'
    """
    if isinstance(dialect, str):
        if dialect not in DIALECTS:
            raise ParameterError(f"unknown dialect {dialect!r}; expected one of {sorted(DIALECTS)}")
        dialect = DIALECTS[dialect]
    writer = _Writer(dialect)
    body = writer.branches(_parse_anchored(regex))
    if dialect.end_note:
        writer.note(dialect.end_note)
    text = f"{dialect.start}{dialect.group}{body}){dialect.end}"
    return Translation(text, dialect, tuple(writer.notes))
