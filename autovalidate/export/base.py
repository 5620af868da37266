"""What every export shares: walking a suite, assertions as bounds, skipped checks, the header.

An export maps each constraint of a :class:`~autovalidate.ConstraintSuite` to
the target's rule, or skips it with the reason. A Deequ constraint's assertion
(:class:`~autovalidate.checks.spec.Assertion`) becomes a fraction (``>= 0.95``: at
least 95 % of the rows) or numeric bounds; an assertion that is neither has no
equivalent.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from autovalidate._version import __version__
from autovalidate.checks.check import CheckLevel
from autovalidate.export.regex import Translation, translate
from autovalidate.export.tolerance import Tolerance, tolerance
from autovalidate.pattern_constraint import PatternConstraint

if TYPE_CHECKING:  # suites are read through their public attributes only
    from autovalidate.checks.spec import Assertion, ConstraintSpec, ConstraintSuite

__all__ = [
    "Bounds",
    "Item",
    "Skipped",
    "SuiteExport",
    "Unmappable",
    "bounds",
    "collect",
    "commented",
    "constraint_label",
    "header",
    "min_fraction",
    "number_text",
    "translated_pattern",
    "shorten",
    "template_escaped",
    "walk",
    "yaml_text",
]


class Unmappable(Exception):
    """A constraint the target has no equivalent for; the message is the reason."""


@dataclass(frozen=True)
class Skipped:
    """A constraint left out of an export.

    Attributes
    ----------
    check
        The check's description.
    constraint
        The constraint, as :func:`constraint_label` writes it.
    reason
        Why the target cannot express it.
    """

    check: str
    constraint: str
    reason: str


@dataclass(frozen=True)
class SuiteExport:
    """A suite in a target's format.

    Attributes
    ----------
    target
        ``gx``, ``soda``, ``dqdl``, ``dbt`` or ``pandera``.
    text
        The file's text (the mapping stated in it).
    exported
        Constraints exported.
    skipped
        Constraints left out, with the reason.
    notes
        The approximations the export makes, one sentence each.
    """

    target: str
    text: str
    exported: int
    skipped: tuple[Skipped, ...]
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (without the text)."""
        return {
            "target": self.target,
            "exported": self.exported,
            "skipped": [vars(s) for s in self.skipped],
            "notes": list(self.notes),
        }


def constraint_label(
    constraint: ConstraintSpec | PatternConstraint, width: int | None = None
) -> str:
    """A constraint in one line: ``pattern('zip', <digit>+)`` or its fluent Python code.

    Parameters
    ----------
    constraint
        A suite's constraint.
    width
        Cut the label to this many characters, ending in ``...``.
    """
    if isinstance(constraint, PatternConstraint):
        text = f"pattern({constraint.column!r}, {constraint.pattern})"
    else:
        text = constraint.code()
    return text if width is None else shorten(text, width)


def shorten(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, ending in ``...`` when cut."""
    return text if len(text) <= width else text[: width - 3] + "..."


@dataclass(frozen=True)
class Item:
    """One constraint of a suite, as an export sees it.

    Attributes
    ----------
    description, level
        The check's description and level.
    constraint
        The constraint.
    column
        The column it reads, renamed for the target (``None`` for table-level ones).
    """

    description: str
    level: CheckLevel
    constraint: ConstraintSpec | PatternConstraint
    column: str | None

    @property
    def label(self) -> str:
        """See :func:`constraint_label`."""
        return constraint_label(self.constraint)

    @property
    def warning(self) -> bool:
        """The check is at level Warning."""
        return self.level is CheckLevel.WARNING

    @property
    def method(self) -> str:
        """The Check method, ``"pattern"`` for a pattern constraint."""
        c = self.constraint
        return "pattern" if isinstance(c, PatternConstraint) else c.constraint

    def arg(self, name: str) -> Any:
        """An argument of a Deequ constraint."""
        assert not isinstance(self.constraint, PatternConstraint)
        return self.constraint.args.get(name)

    @property
    def assertion(self) -> Assertion | None:
        """The Deequ constraint's assertion (``None``: the method's default)."""
        assert not isinstance(self.constraint, PatternConstraint)
        return self.constraint.assertion


def walk(suite: ConstraintSuite, rename: Mapping[str, str]) -> Iterator[Item]:
    """Every constraint of ``suite``, its column renamed by ``rename`` (suite -> target column)."""
    for check in suite.checks:
        for constraint in check.constraints:
            if isinstance(constraint, PatternConstraint):
                column = constraint.column
            else:
                value = constraint.args.get("column")
                column = value if isinstance(value, str) else None
            if column is not None:
                column = rename.get(column, column)
            yield Item(check.description, check.level, constraint, column)


def common_skip_reason(item: Item) -> str | None:
    """The reason no target takes ``item``, if there is one."""
    if not isinstance(item.constraint, PatternConstraint) and item.constraint.where is not None:
        return "a where filter (SQL text in autovalidate's engines) is not exported"
    if item.method == "pattern" and item.column is None:
        return "a pattern constraint without its column"
    return None


def min_fraction(assertion: Assertion | None) -> float:
    """The least fraction of rows an assertion on a fraction asks for, in [0, 1].

    ``None`` (the method's default: every row) is 1; ``>= x`` and ``> x`` are
    ``x`` (``>`` read as ``>=``); ``== 1`` is 1; ``between`` with an upper end
    of at least 1 is its lower end.

    Raises
    ------
    Unmappable
        For any other assertion (an upper bound on a fraction, say).
    """
    if assertion is None:
        return 1.0
    op, value = assertion.op, assertion.value
    if op in (">=", ">") and isinstance(value, (int, float)):
        return float(value)
    if op == "==" and value == 1:
        return 1.0
    if op == "between" and isinstance(value, tuple) and value[1] >= 1:
        return float(value[0])
    raise Unmappable(f"the assertion {assertion} is not a least fraction of rows")


@dataclass(frozen=True)
class Bounds:
    """Numeric bounds of an assertion: ``low <= x <= high``, either end open or strict."""

    low: float | None
    high: float | None
    strict_low: bool = False
    strict_high: bool = False


def bounds(assertion: Assertion | None) -> Bounds:
    """The bounds an assertion puts on a metric.

    Raises
    ------
    Unmappable
        For ``!=`` or a missing assertion.
    """
    if assertion is None:
        raise Unmappable("no assertion")
    op, value = assertion.op, assertion.value
    if op == "between" and isinstance(value, tuple):
        return Bounds(value[0], value[1])
    assert isinstance(value, (int, float))
    table = {
        ">=": Bounds(value, None),
        ">": Bounds(value, None, strict_low=True),
        "<=": Bounds(None, value),
        "<": Bounds(None, value, strict_high=True),
        "==": Bounds(value, value),
    }
    if op not in table:
        raise Unmappable(f"the assertion {assertion} is not an interval")
    return table[op]


@dataclass(frozen=True)
class TranslatedPattern:
    """A pattern constraint in a target's dialect, with the tolerance as a fixed bound."""

    translation: Translation
    tolerance: Tolerance

    @property
    def notes(self) -> tuple[str, ...]:
        """The approximations of the regex and of the tolerance."""
        tol = () if self.tolerance.note is None else (self.tolerance.note,)
        return self.translation.approximations + tol


def translated_pattern(constraint: PatternConstraint, dialect: str) -> TranslatedPattern:
    """The constraint's regex in ``dialect`` and its test's bound (:func:`tolerance`)."""
    return TranslatedPattern(translate(constraint.regex, dialect), tolerance(constraint))


def header(target: str, mapping: list[str], notes: list[str], skipped: list[Skipped]) -> list[str]:
    """The lines stating an export's mapping, approximations and skipped checks."""
    lines = [
        f"Exported by autovalidate {__version__} for {target}.",
        "Mapping:",
        *(f"- {m}" for m in mapping),
    ]
    if notes:
        lines += ["Approximations:", *(f"- {n}" for n in notes)]
    if skipped:
        lines += ["Skipped (no equivalent):"]
        lines += [f"- {s.check}: {s.constraint}: {s.reason}" for s in skipped]
    return lines


def number_text(x: float) -> str:
    """A bound as the rule files write it: ``3`` for a whole number, else ``0.986``."""
    return repr(int(x)) if float(x).is_integer() else repr(float(x))


def commented(lines: list[str], body: str) -> str:
    """``body`` after ``lines`` as ``#`` comments (YAML's and DQDL's comment)."""
    return "".join(f"# {' '.join(line.split())}\n" for line in lines) + body


def yaml_text(doc: Any) -> str:
    """``doc`` as block-style YAML, keys in order, text as written (no line folding)."""
    import yaml

    return str(
        yaml.safe_dump(
            doc, sort_keys=False, allow_unicode=True, default_flow_style=False, width=10_000
        )
    )


def template_escaped(doc: Any, openers: tuple[str, ...], literal: Callable[[str], str]) -> Any:
    """``doc`` with every string (keys too) escaped for a target that renders templates in it.

    dbt renders Jinja in a ``schema.yml`` (column names, test arguments), Soda
    renders ``${...}`` (with the environment's variables) in its checks: text
    from the data (a column name, an accepted value) must reach them as text.
    Each character that opens a template tag (the first of an ``openers``
    pair, ``{{`` say) is written as a template expression that renders to that
    character, ``literal(ch)`` (``{{ '{' }}``), so the tag never forms and no
    text from the data, ``{% endraw %}`` included, can end an escape early.

    Parameters
    ----------
    doc
        Plain data: dicts, lists, strings, numbers.
    openers
        The two-character sequences that open a tag (``"{{"``, ``"{%"``, ``"{#"``).
    literal
        The target's expression for one character.
    """
    if isinstance(doc, str):
        out = []
        for i, ch in enumerate(doc):
            out.append(literal(ch) if doc[i : i + 2] in openers else ch)
        return "".join(out)
    if isinstance(doc, dict):
        return {
            template_escaped(k, openers, literal): template_escaped(v, openers, literal)
            for k, v in doc.items()
        }
    if isinstance(doc, (list, tuple)):
        return [template_escaped(v, openers, literal) for v in doc]
    return doc


def add_note(notes: list[str], new: tuple[str, ...] | list[str]) -> None:
    """Append the notes not yet in ``notes``."""
    for note in new:
        if note not in notes:
            notes.append(note)


def collect(
    suite: ConstraintSuite,
    rename: Mapping[str, str],
    rule: Callable[[Item, list[str]], Any],
) -> tuple[list[tuple[Item, Any]], list[Skipped], list[str]]:
    """Map every constraint of ``suite`` with ``rule``; the ones it cannot map are skipped.

    Parameters
    ----------
    suite
        The suite.
    rename
        Suite column -> column in the target.
    rule
        The target's rule for an item; appends its approximations to the list
        it is given; raises :class:`Unmappable` with the reason.

    Returns
    -------
    tuple
        The mapped ``(item, rule)`` pairs in suite order, the skipped
        constraints, and the approximations made.
    """
    mapped: list[tuple[Item, Any]] = []
    skipped: list[Skipped] = []
    notes: list[str] = []
    for item in walk(suite, rename):
        try:
            reason = common_skip_reason(item)
            if reason is not None:
                raise Unmappable(reason)
            mapped.append((item, rule(item, notes)))
        except Unmappable as exc:
            skipped.append(Skipped(item.description, item.label, str(exc)))
    return mapped, skipped, notes
