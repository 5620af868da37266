"""Constraint suites on disk: what ``autovalidate suggest --out`` writes and ``validate`` runs.

A suite holds checks, each with a level and constraints, all as plain JSON
(no callables), so that a suite written by one process runs in another::

    {"format": "autovalidate-suite", "version": 2,
     "checks": [{"description": "orders", "level": "Error",
                 "constraints": [
                    {"kind": "deequ", "constraint": "has_completeness", "column": "price",
                     "assertion": {"op": ">=", "value": 0.92}},
                    {"kind": "deequ", "constraint": "is_unique", "column": "id"},
                    {"kind": "autovalidate-pattern", "column": "zip", "regex": "...", ...}]}]}

A Deequ constraint names a :class:`~autovalidate.checks.Check` method
(``"constraint"``), its arguments by their parameter names, the assertion as
data (:class:`Assertion`), and optionally ``where`` and ``hint``. An
Auto-Validate pattern constraint is the object
:meth:`~autovalidate.pattern_constraint.PatternConstraint.to_dict` writes; it runs
through :meth:`~autovalidate.checks.Check.satisfies_pattern_constraint`.

Version 1 suites (``{"format": ..., "version": 1, "constraints": [...]}``, only
pattern constraints) and files holding a single pattern constraint are read as
one check at level Error, exactly as before.

Running a suite (:meth:`ConstraintSuite.run`) is :mod:`autovalidate.checks.running`.
"""

from __future__ import annotations

import inspect
import json
import math
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autovalidate.checks.check import (
    SUITE_METHODS,
    Check,
    CheckLevel,
    ConstrainableDataType,
)
from autovalidate.checks.running import run_checks
from autovalidate.checks.verification import VerificationResult
from autovalidate.errors import ConstraintFormatError, DataSourceError, ParameterError
from autovalidate.metrics.codec import analyzer_from_dict, analyzer_to_dict
from autovalidate.pattern_constraint import (
    CONSTRAINT_KIND,
    DEFAULT_EXAMPLES,
    PatternConstraint,
)
from autovalidate.schemas import (
    PATTERN_CONSTRAINT_SCHEMA,
    SUITE_SCHEMA,
    check_document,
    parse_json,
)
from autovalidate.user_code import check_sql_expression, check_user_regex

if TYPE_CHECKING:
    from autovalidate.repository.base import MetricsRepository

__all__ = [
    "DEEQU_KIND",
    "SUITE_FORMAT",
    "Assertion",
    "CheckSpec",
    "ConstraintSpec",
    "ConstraintSuite",
    "analyzer_from_dict",
    "analyzer_to_dict",
    "load_suite",
    "suite_to_json",
]

SUITE_FORMAT = "autovalidate-suite"
#: The first format (pattern constraints only): read, never written.
SUITE_VERSION = 1
#: Suites with checks, levels and Deequ constraints: the version written.
SUITE_VERSION_CHECKS = 2
#: ``kind`` of a Deequ constraint in a suite.
DEEQU_KIND = "deequ"
#: The SQL dialects a suite's SQL is read in on load: it runs on either engine.
SQL_DIALECTS = ("duckdb", "spark")

_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


@dataclass(frozen=True)
class Assertion:
    """An assertion on a metric value, as data: ``value <op> bound``.

    Parameters
    ----------
    op
        ``"=="``, ``"!="``, ``"<"``, ``"<="``, ``">"``, ``">="`` or
        ``"between"`` (both ends included).
    value
        The bound: a number, or ``(low, high)`` for ``"between"``.

    Examples
    --------
    >>> Assertion(">=", 0.92)(0.95)
    True
    >>> Assertion("between", (1, 3)).code()
    'lambda x: 1 <= x <= 3'
    """

    op: str
    value: float | tuple[float, float]

    def __post_init__(self) -> None:
        if self.op == "between":
            if not (isinstance(self.value, (tuple, list)) and len(self.value) == 2):
                raise ConstraintFormatError("'between' needs [low, high]")
            low, high = (_number(v) for v in self.value)
            object.__setattr__(self, "value", (low, high))
        elif self.op in _OPS:
            object.__setattr__(self, "value", _number(self.value))
        else:
            raise ConstraintFormatError(
                f"assertion op {self.op!r}: expected one of {', '.join([*_OPS, 'between'])}"
            )

    def __call__(self, x: float) -> bool:
        """Apply the assertion to a metric value."""
        if self.op == "between":
            low, high = self.value  # type: ignore[misc]
            return bool(low <= x <= high)
        return bool(_OPS[self.op](x, self.value))

    def __str__(self) -> str:
        if self.op == "between":
            low, high = self.value  # type: ignore[misc]
            return f"{_num_text(low)} <= x <= {_num_text(high)}"
        return f"x {self.op} {_num_text(self.value)}"  # type: ignore[arg-type]

    def code(self) -> str:
        """The assertion as Python source, a lambda."""
        return f"lambda x: {self}"

    def to_dict(self) -> dict[str, Any]:
        """``{"op": ..., "value": ...}``."""
        value = list(self.value) if isinstance(self.value, tuple) else self.value
        return {"op": self.op, "value": value}

    @classmethod
    def from_dict(cls, data: Any) -> Assertion:
        """Inverse of :meth:`to_dict`.

        Raises
        ------
        ConstraintFormatError
            If the op or the value is not valid.
        """
        if not isinstance(data, Mapping) or set(data) != {"op", "value"}:
            raise ConstraintFormatError(f"assertion must be {{'op', 'value'}}, got {data!r}")
        return cls(str(data["op"]), data["value"])


def _number(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or math.isnan(v):
        raise ConstraintFormatError(f"assertion bound must be a number, got {v!r}")
    return v


def _num_text(v: float) -> str:
    return repr(v)


# -- Deequ constraints as data ---------------------------------------------------

#: Check methods a suite may name, besides ``has_no_anomalies``: those marked
#: with :func:`~autovalidate.checks.check.in_suites`.
CHECK_METHODS = SUITE_METHODS
_ANOMALY = "has_no_anomalies"
_COMMON = ("assertion", "where", "hint")
_ANOMALY_ARGS = ("analyzer", "strategy", "dataset", "tags", "after", "before")
#: Constraints that read a reference data set. A suite names the reference
#: (``reference_name``); the caller binds the name to data when the suite runs, so a
#: suite, untrusted input, never makes the tool read a path or run a query of its own.
_REFERENCE_METHODS = ("has_referential_integrity", "has_no_drift")


class _Code(str):
    """Python source standing for an argument in :meth:`ConstraintSpec.code`."""


def _plain_arg(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain_arg(v) for v in value]
    if isinstance(value, ConstrainableDataType):
        return value.value
    return value


@dataclass(frozen=True)
class ConstraintSpec:
    """A Deequ constraint as data: a :class:`~autovalidate.checks.Check` method and its arguments.

    Parameters
    ----------
    constraint
        The check method, e.g. ``"has_completeness"`` (see :data:`CHECK_METHODS`),
        or ``"has_no_anomalies"``.
    args
        The method's arguments by parameter name, as plain data (column names,
        allowed values, bounds, a data type's name). For ``has_no_anomalies``:
        ``analyzer`` (see :func:`analyzer_to_dict`), ``strategy`` (see
        :func:`autovalidate.anomaly.strategy_from_dict`), ``dataset`` and
        optionally ``tags`` and ``after``/``before`` (ms since the epoch). For
        ``has_referential_integrity`` and ``has_no_drift``: ``reference_name``
        instead of the reference, bound to data when the suite runs.
    assertion
        The assertion on the metric, ``None`` where the method has a default
        (``is_complete``: the metric is 1) or takes none.
    where
        SQL filter in Spark SQL (translated on DuckDB); the metric is computed on
        the rows passing it.
    hint
        Added to the failure message.

    Raises
    ------
    ConstraintFormatError
        If the method is unknown or the arguments do not fit its signature,
        or a reference constraint holds ``reference`` instead of naming it.
    UnsafeInputError
        If ``where`` or a ``satisfies`` predicate is not one SQL expression
        over the table's columns (in DuckDB's or Spark's SQL), or a
        ``has_pattern`` regex is outside the RE2 subset
        (:mod:`autovalidate.user_code`).
    """

    constraint: str
    args: Mapping[str, Any]
    assertion: Assertion | None = None
    where: str | None = None
    hint: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", dict(self.args))
        if self.constraint == _ANOMALY:
            unknown = set(self.args) - set(_ANOMALY_ARGS)
            missing = {"analyzer", "strategy", "dataset"} - set(self.args)
            if unknown or missing or self.assertion is not None or self.where is not None:
                raise ConstraintFormatError(
                    "has_no_anomalies takes analyzer, strategy, dataset and optionally tags, "
                    "after, before, hint"
                )
            analyzer = self.args["analyzer"]
            if isinstance(analyzer, Mapping):
                self._check_sql(analyzer.get("where"), "analyzer where")
                self._check_sql(analyzer.get("predicate"), "analyzer predicate")
            return
        self._check_sql(self.where, "where")
        if self.constraint == "satisfies":
            self._check_sql(self.args.get("predicate"), "predicate")
        if self.constraint in ("has_pattern", "has_no_pattern") and "pattern" in self.args:
            check_user_regex(
                self.args["pattern"], f"{self.constraint}({self.args.get('column')!r})"
            )
        if self.constraint not in CHECK_METHODS:
            raise ConstraintFormatError(f"unknown constraint {self.constraint!r}")
        bound: dict[str, Any] = {}
        if self.constraint in _REFERENCE_METHODS:
            if "reference" in self.args or not isinstance(self.args.get("reference_name"), str):
                raise ConstraintFormatError(
                    f"{self.constraint} in a suite names its reference with 'reference_name' "
                    "(the data is bound when the suite runs), not 'reference'"
                )
            bound["reference"] = None
        try:
            inspect.signature(getattr(Check, self.constraint)).bind(
                None, **bound, **self._call_args(), **self._common_kwargs()
            )
        except TypeError as exc:
            raise ConstraintFormatError(f"{self.constraint}: {exc}") from exc

    def _check_sql(self, text: Any, field: str) -> None:
        """Refuse user SQL that is not one expression over the columns, in either engine's SQL."""
        if text is not None:
            check_sql_expression(text, f"{self.constraint} {field}", dialects=SQL_DIALECTS)

    def _call_args(self) -> dict[str, Any]:
        args = {k: tuple(v) if isinstance(v, list) else v for k, v in self.args.items()}
        if "data_type" in args:
            try:
                args["data_type"] = ConstrainableDataType(args["data_type"])
            except ValueError as exc:
                raise ConstraintFormatError(f"unknown data type {args['data_type']!r}") from exc
        return args

    def _common_kwargs(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.assertion is not None:
            out["assertion"] = self.assertion
        if self.where is not None:
            out["where"] = self.where
        if self.hint is not None:
            out["hint"] = self.hint
        return out

    @property
    def columns(self) -> tuple[str, ...]:
        """The columns the constraint refers to."""
        if self.constraint == _ANOMALY:
            analyzer = analyzer_from_dict(self.args["analyzer"])
            return tuple(c for c in (getattr(analyzer, "column", None),) if c is not None) + tuple(
                getattr(analyzer, "columns", ())
            )
        out: list[str] = []
        for key in ("column", "columns", "column_a", "column_b"):
            value = self.args.get(key)
            if isinstance(value, str):
                out.append(value)
            elif isinstance(value, (list, tuple)):
                out.extend(value)
        return tuple(out)

    def add_to(
        self,
        check: Check,
        *,
        repository: MetricsRepository | None = None,
        references: Mapping[str, Any] | None = None,
    ) -> Check:
        """Return ``check`` with this constraint added.

        ``references`` binds the reference names of ``has_referential_integrity``
        and ``has_no_drift`` to data (what the check method takes as ``reference``).

        Raises
        ------
        ConstraintFormatError
            For ``has_no_anomalies`` without a repository, or a reference
            constraint whose reference name is not bound.
        """
        if self.constraint == _ANOMALY:
            from autovalidate.anomaly import strategy_from_dict

            if repository is None:
                raise ConstraintFormatError(
                    "has_no_anomalies needs a metrics repository (validate --repository)"
                )
            return check.has_no_anomalies(
                analyzer_from_dict(self.args["analyzer"]),
                strategy_from_dict(self.args["strategy"]),
                repository=repository,
                dataset=self.args["dataset"],
                with_tag_values=self.args.get("tags") or {},
                after=self.args.get("after"),
                before=self.args.get("before"),
                hint=self.hint,
            )
        bound: dict[str, Any] = {}
        if self.constraint in _REFERENCE_METHODS:
            name = self.args["reference_name"]
            if references is None or name not in references:
                raise ConstraintFormatError(
                    f"{self.constraint} needs the reference {name!r}: bind it to data "
                    f"(references={{{name!r}: data}}, validate --reference {name}=PATH)"
                )
            bound["reference"] = references[name]
        method = getattr(check, self.constraint)
        result: Check = method(**bound, **self._call_args(), **self._common_kwargs())
        return result

    def code(self) -> str:
        """The constraint as Python source for a fluent check, e.g. ``.is_complete("id")``."""
        if self.constraint == _ANOMALY:
            parts = [
                f"{_analyzer_code(self.args['analyzer'])}",
                f"strategy_from_dict({self.args['strategy']!r})",
                "repository=repository",
                f"dataset={self.args['dataset']!r}",
            ]
            if self.args.get("tags"):
                parts.append(f"with_tag_values={self.args['tags']!r}")
            return f".has_no_anomalies({', '.join(parts)})"
        signature = inspect.signature(getattr(Check, self.constraint))
        values: dict[str, Any] = {**self._call_args(), **self._common_kwargs()}
        if self.constraint in _REFERENCE_METHODS:
            values["reference"] = _Code(f"references[{self.args['reference_name']!r}]")
        positional: list[str] = []
        keyword: list[str] = []
        in_order = True  # positional while no earlier parameter was left out
        for name, param in list(signature.parameters.items())[1:]:
            if name not in values:
                in_order = False
                continue
            value = values[name]
            if isinstance(value, Assertion):
                text = value.code()
            else:
                text = value if isinstance(value, _Code) else _code_literal(value)
            if in_order and param.kind is param.POSITIONAL_OR_KEYWORD:
                positional.append(text)
            else:
                in_order = False
                keyword.append(f"{name}={text}")
        return f".{self.constraint}({', '.join(positional + keyword)})"

    def to_dict(self) -> dict[str, Any]:
        """The constraint as plain data (see the module docstring)."""
        out: dict[str, Any] = {"kind": DEEQU_KIND, "constraint": self.constraint}
        out.update({k: _plain_arg(v) for k, v in self.args.items()})
        if self.assertion is not None:
            out["assertion"] = self.assertion.to_dict()
        if self.where is not None:
            out["where"] = self.where
        if self.hint is not None:
            out["hint"] = self.hint
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ConstraintSpec:
        """Inverse of :meth:`to_dict`.

        Raises
        ------
        ConstraintFormatError
            If the object is not a valid Deequ constraint.
        """
        if not isinstance(data, Mapping) or data.get("kind") != DEEQU_KIND:
            raise ConstraintFormatError(f"not a {DEEQU_KIND} constraint")
        name = data.get("constraint")
        if not isinstance(name, str):
            raise ConstraintFormatError("a deequ constraint needs 'constraint': a method name")
        assertion = data.get("assertion")
        return cls(
            name,
            {k: v for k, v in data.items() if k not in ("kind", "constraint", *_COMMON)},
            None if assertion is None else Assertion.from_dict(assertion),
            data.get("where"),
            data.get("hint"),
        )


def _code_literal(value: Any) -> str:
    if isinstance(value, ConstrainableDataType):
        return f"ConstrainableDataType.{value.name}"
    if isinstance(value, tuple):
        return "[" + ", ".join(_code_literal(v) for v in value) + "]"
    return repr(value)


def _analyzer_code(data: Mapping[str, Any]) -> str:
    args = ", ".join(f"{k}={v!r}" for k, v in data.items() if k != "analyzer" and v is not None)
    return f"{data['analyzer']}({args})"


# -- checks and suites ---------------------------------------------------------

SuiteConstraint = ConstraintSpec | PatternConstraint


def _constraint_from_dict(data: Any) -> SuiteConstraint:
    if isinstance(data, Mapping) and data.get("kind") == CONSTRAINT_KIND:
        return PatternConstraint.from_dict(dict(data))
    if isinstance(data, Mapping) and data.get("kind") == DEEQU_KIND:
        return ConstraintSpec.from_dict(data)
    kind = data.get("kind") if isinstance(data, Mapping) else type(data).__name__
    raise ConstraintFormatError(
        f"unknown constraint kind {kind!r}; expected {DEEQU_KIND!r} or {CONSTRAINT_KIND!r}"
    )


@dataclass(frozen=True)
class CheckSpec:
    """A check as data: a description, a level and constraints.

    Parameters
    ----------
    description
        What the check is about.
    level
        The check's status when a constraint fails.
    constraints
        Deequ constraints (:class:`ConstraintSpec`) and Auto-Validate pattern
        constraints (:class:`~autovalidate.pattern_constraint.PatternConstraint`).
    """

    description: str
    level: CheckLevel
    constraints: tuple[SuiteConstraint, ...]

    def to_check(
        self,
        *,
        repository: MetricsRepository | None = None,
        references: Mapping[str, Any] | None = None,
    ) -> Check:
        """Build the :class:`~autovalidate.checks.Check` (see :meth:`ConstraintSpec.add_to`)."""
        check = Check(self.level, self.description)
        for i, c in enumerate(self.constraints):
            if isinstance(c, PatternConstraint):
                if c.column is None:
                    raise ConstraintFormatError("a pattern constraint in a suite needs its column")
                check = check.satisfies_pattern_constraint(c.column, c)
                continue
            try:
                check = c.add_to(check, repository=repository, references=references)
            except ParameterError as exc:  # an argument out of range: say where it is
                raise ConstraintFormatError(
                    f"check {self.description!r}, constraint {i} ({c.constraint}): {exc}"
                ) from exc
        return check

    def to_dict(self) -> dict[str, Any]:
        """The check as plain data."""
        return {
            "description": self.description,
            "level": self.level.value,
            "constraints": [c.to_dict() for c in self.constraints],
        }

    @classmethod
    def from_dict(cls, data: Any) -> CheckSpec:
        """Inverse of :meth:`to_dict`.

        Raises
        ------
        ConstraintFormatError
            If the check or one of its constraints is malformed.
        """
        if not isinstance(data, Mapping):
            raise ConstraintFormatError("a check must be an object")
        try:
            level = CheckLevel(data.get("level", CheckLevel.ERROR.value))
        except ValueError as exc:
            raise ConstraintFormatError(f"unknown check level {data.get('level')!r}") from exc
        items = data.get("constraints")
        if not isinstance(items, list):
            raise ConstraintFormatError("a check's 'constraints' must be a list")
        constraints = []
        for i, item in enumerate(items):
            try:
                constraints.append(_constraint_from_dict(item))
            except ConstraintFormatError as exc:
                raise ConstraintFormatError(f"constraint {i}: {exc}") from exc
        return cls(str(data.get("description", "")), level, tuple(constraints))


@dataclass(frozen=True)
class ConstraintSuite:
    """Checks to run together on each batch, serializable as JSON.

    Examples
    --------
    >>> import pandas as pd
    >>> suite = ConstraintSuite((CheckSpec("ids", CheckLevel.ERROR, (
    ...     ConstraintSpec("is_complete", {"column": "id"}),
    ...     ConstraintSpec("has_size", {}, Assertion(">=", 3)),
    ... )),))
    >>> suite.run(pd.DataFrame({"id": [1, 2, None]})).status.value
    'Error'
    >>> ConstraintSuite.from_dict(suite.to_dict()) == suite
    True
    """

    checks: tuple[CheckSpec, ...]

    @property
    def constraints(self) -> tuple[SuiteConstraint, ...]:
        """Every constraint of every check, in order."""
        return tuple(c for check in self.checks for c in check.constraints)

    def to_dict(self) -> dict[str, Any]:
        """The suite as plain data (version 2)."""
        return {
            "format": SUITE_FORMAT,
            "version": SUITE_VERSION_CHECKS,
            "checks": [c.to_dict() for c in self.checks],
        }

    def to_json(self) -> str:
        """The suite as pretty JSON text."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    @classmethod
    def from_dict(cls, doc: Any, *, source: str = "suite") -> ConstraintSuite:
        """Read a suite of version 1 or 2, or a single pattern constraint.

        Raises
        ------
        ConstraintFormatError
            If the document is not a suite or something in it is malformed: a
            field of the wrong type or out of range is named by its JSON path
            (``suite.json: $.checks[0].constraints[2].alpha: '0.01' is not of
            type 'number'``; :data:`~autovalidate.schemas.SUITE_SCHEMA`).
        """
        if isinstance(doc, dict) and doc.get("kind") == CONSTRAINT_KIND:
            check_document(doc, PATTERN_CONSTRAINT_SCHEMA, source)
            return cls.of_patterns([_pattern(doc, source, 0)])
        if not (isinstance(doc, dict) and doc.get("format") == SUITE_FORMAT):
            raise ConstraintFormatError(
                f"{source}: neither a constraint suite nor a pattern constraint"
            )
        version = doc.get("version")
        if version in (SUITE_VERSION, SUITE_VERSION_CHECKS):
            check_document(doc, SUITE_SCHEMA, source)
        if version == SUITE_VERSION:
            items = doc.get("constraints")
            if not isinstance(items, list):
                raise ConstraintFormatError(f"{source}: 'constraints' must be a list")
            return cls.of_patterns([_pattern(d, source, i) for i, d in enumerate(items)])
        if version == SUITE_VERSION_CHECKS:
            checks = doc.get("checks")
            if not isinstance(checks, list):
                raise ConstraintFormatError(f"{source}: 'checks' must be a list")
            out = []
            for i, item in enumerate(checks):
                try:
                    out.append(CheckSpec.from_dict(item))
                except ConstraintFormatError as exc:
                    raise ConstraintFormatError(f"{source}: check {i}: {exc}") from exc
            return cls(tuple(out))
        raise ConstraintFormatError(
            f"{source}: suite version {version!r}; expected {SUITE_VERSION} or "
            f"{SUITE_VERSION_CHECKS}"
        )

    @classmethod
    def load(cls, path: str | Path) -> ConstraintSuite:
        """Read a suite (or a single pattern constraint) from a JSON file.

        Raises
        ------
        DataSourceError
            If the file cannot be read.
        ConstraintFormatError
            If it is not valid JSON, not a suite, or a constraint is malformed.
        """
        return cls.from_dict(_read_json(Path(path)), source=str(path))

    @classmethod
    def of_patterns(cls, constraints: Sequence[PatternConstraint]) -> ConstraintSuite:
        """Pattern constraints as a suite: one check at level Error, as ``suggest`` writes them."""
        return cls((_pattern_check(list(constraints)),))

    def to_checks(
        self,
        *,
        repository: MetricsRepository | None = None,
        references: Mapping[str, Any] | None = None,
    ) -> list[Check]:
        """The suite's checks, ready for a :class:`~autovalidate.checks.VerificationSuite`.

        ``references`` binds reference names to data (:meth:`ConstraintSpec.add_to`).
        """
        return [c.to_check(repository=repository, references=references) for c in self.checks]

    def run(
        self,
        data: Any,
        *,
        repository: MetricsRepository | None = None,
        rename: Mapping[str, str] | None = None,
        examples: int = DEFAULT_EXAMPLES,
        examples_of_passing: bool = False,
        references: Mapping[str, Any] | None = None,
    ) -> VerificationResult:
        """Alias of :func:`autovalidate.validate`: ``validate(data, self, ...).verification``."""
        # The run validate makes, not a call of it: checks sit below the pipeline
        # (tests/unit/test_layering.py). tests/unit/test_pipeline.py holds them equal.
        return run_checks(
            self.to_checks(repository=repository, references=references),
            data,
            rename=rename,
            examples=examples,
            examples_of_passing=examples_of_passing,
        )

    # -- pattern-only view, for callers of the version 1 API -----------------------

    def pattern_constraints(self) -> list[PatternConstraint]:
        """The pattern constraints, in order."""
        return [c for c in self.constraints if isinstance(c, PatternConstraint)]


def _pattern(doc: Any, source: str, i: int) -> PatternConstraint:
    try:
        return PatternConstraint.from_dict(doc)
    except ConstraintFormatError as exc:
        raise ConstraintFormatError(f"{source}: constraint {i}: {exc}") from exc


def _pattern_check(constraints: list[PatternConstraint]) -> CheckSpec:
    return CheckSpec("autovalidate patterns", CheckLevel.ERROR, tuple(constraints))


def _read_json(p: Path) -> Any:
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise DataSourceError(str(p), exc.strerror or str(exc)) from exc
    try:
        return parse_json(text, keys_once=True)
    except json.JSONDecodeError as exc:
        raise ConstraintFormatError(f"{p}: not JSON: {exc}") from exc


def suite_to_json(constraints: Sequence[PatternConstraint]) -> str:
    """Pattern constraints as a suite (the current version: one check at level Error)."""
    return ConstraintSuite.of_patterns(constraints).to_json()


def load_suite(path: str | Path) -> list[PatternConstraint]:
    """Read the pattern constraints of a suite (or a single constraint) from a JSON file.

    Use :meth:`ConstraintSuite.load` for suites with Deequ constraints.

    Raises
    ------
    DataSourceError
        If the file cannot be read.
    ConstraintFormatError
        If it is not valid JSON, not a suite, a constraint is malformed, or the
        suite holds Deequ constraints.
    """
    suite = ConstraintSuite.load(path)
    patterns = suite.pattern_constraints()
    if len(patterns) != len(suite.constraints):
        raise ConstraintFormatError(
            f"{path}: the suite has Deequ constraints; read it with ConstraintSuite.load"
        )
    return patterns
