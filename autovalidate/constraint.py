"""Pattern constraints: an inferred regex, its training counts and drift test (Song & He, §4).

A :class:`PatternConstraint` is what :func:`autovalidate.suggest_pattern`
returns and what ``autovalidate suggest --out`` writes as JSON.  Validating a
batch counts its non-null values that do not fully match ``regex`` and
decides with :func:`autovalidate.drift.drift_test`: Fisher's exact test
against the training counts for tolerant rules (FMDV-H, FMDV-VH), or
``strict`` (any non-conforming value fails) for rules without tolerance (FMDV,
FMDV-V).  Nulls are completeness, a separate metric: they are never counted.

The same counting runs on Python sequences, files, pandas and Arrow (DuckDB
``regexp_full_match``, RE2: linear time in the length of a value, no
backtracking) and on Spark DataFrames (``rlike``, Java; :mod:`autovalidate.spark`);
the regex means the same in the dialects.

Only regexes of the pattern language run: loading a constraint
(:meth:`PatternConstraint.from_dict`) renders the regex again from the
constraint's pattern segments (:func:`autovalidate.patterns.render.pattern_regex`)
and refuses a constraint whose stored regex differs, so a hand-edited regex
(a back-reference, ``(a|aa)+``) never reaches an engine under a pattern's name.
Rendered regexes have no nested quantifiers, which also keeps Java's
backtracking engine in Spark clear of exponential cases.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from contextlib import closing
from dataclasses import asdict, dataclass, field
from typing import Any

import duckdb
import pyarrow as pa

from autovalidate.drift import TESTS, DriftTest, drift_test
from autovalidate.errors import ConstraintFormatError, DataError, ParameterError
from autovalidate.io import (
    column_values,
    is_value_sequence,
    quote_identifier,
    resolve_column,
    to_relation,
)
from autovalidate.patterns.render import pattern_regex, render_body

__all__ = ["CONSTRAINT_KIND", "PatternConstraint", "PatternValidationResult", "rendered_regex"]

CONSTRAINT_KIND = "autovalidate-pattern"
CONSTRAINT_VERSION = 1
#: Non-conforming values reported with a result.
DEFAULT_EXAMPLES = 5


def _sql_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


@dataclass(frozen=True)
class PatternValidationResult:
    """The verdict of a pattern constraint on one batch.

    Attributes
    ----------
    passed
        False only when the drift test fails the batch.
    column
        The column validated, if named.
    n_values, n_nonconforming
        Non-null values of the batch, and those not fully matching the regex.
    nonconforming_fraction
        n_nonconforming / n_values, in [0, 1] (0 for an empty batch).
    drift
        The test's statistic, p-value, alpha and decision.
    examples
        Up to a few non-conforming values, in batch order.
    message
        One line for people.
    """

    passed: bool
    column: str | None
    n_values: int
    n_nonconforming: int
    nonconforming_fraction: float
    drift: DriftTest
    examples: tuple[str, ...]
    message: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        d = {k: v for k, v in asdict(self).items() if k != "drift"}
        d["examples"] = list(self.examples)
        d["drift"] = self.drift.to_dict()
        return d


@dataclass(frozen=True)
class PatternConstraint:
    r"""A validation pattern inferred for a column, with what is needed to test new batches.

    Attributes
    ----------
    regex
        Fully anchored (``\A(?:...)\z``) regex; full-match semantics, the same
        in Python ``regex``, Java and RE2.
    pattern
        The canonical pattern string (optional segments in ``(...)?``).
    segments
        Per segment: ``pattern``, ``regex`` (unanchored), ``fpr`` (FPR_T, a
        fraction), ``cov`` (Cov_T, columns), ``optional``.
    fpr
        Σ FPR_T of the segments: the estimated false-positive rate per value.
    method
        ``fmdv``, ``fmdv-v``, ``fmdv-h`` or ``fmdv-vh``.
    test
        ``strict``, ``fisher`` or ``chi2`` (see :mod:`autovalidate.drift`).
    alpha
        Significance level of the test.
    train_n, train_nonconforming
        Non-null training values and those not matching ``regex``; their
        ratio is θ_C.
    column
        The column the constraint was inferred for, if named.
    params
        Solver parameters used (r, m, θ, τ).
    index
        Provenance of the index used (path, τ, patterns, build time).
    """

    regex: str
    pattern: str
    segments: tuple[dict[str, Any], ...]
    fpr: float
    method: str
    test: str
    alpha: float
    train_n: int
    train_nonconforming: int
    column: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    index: dict[str, Any] = field(default_factory=dict)

    @property
    def theta_train(self) -> float:
        """θ_C: the training non-conforming fraction, in [0, 1]."""
        return self.train_nonconforming / self.train_n if self.train_n else 0.0

    # -- deciding -----------------------------------------------------------

    def evaluate_counts(
        self,
        n_nonconforming: int,
        n_values: int,
        *,
        examples: tuple[str, ...] | list[str] = (),
        column: str | None = None,
    ) -> PatternValidationResult:
        """Decide on a batch from its counts (the engine-independent part of validation).

        Parameters
        ----------
        n_nonconforming
            Non-null values of the batch not fully matching :attr:`regex`.
        n_values
            Non-null values of the batch.
        examples
            Some non-conforming values, for the report.
        column
            Column name for the report (defaults to :attr:`column`).

        Returns
        -------
        PatternValidationResult

        Raises
        ------
        ParameterError
            If the counts are inconsistent.
        """
        result = drift_test(
            self.train_nonconforming,
            self.train_n,
            n_nonconforming,
            n_values,
            test=self.test,
            alpha=self.alpha,
        )
        column = column if column is not None else self.column
        frac = n_nonconforming / n_values if n_values else 0.0
        where = f"{column!r}: " if column is not None else ""
        if self.test == "strict":
            verdict = "failed" if result.drift else "passed"
            message = (
                f"{where}{verdict}: {n_nonconforming} of {n_values} values do not match "
                f"{self.pattern} (no tolerance)"
            )
        else:
            verdict = "failed" if result.drift else "passed"
            message = (
                f"{where}{verdict}: {frac:.2%} non-conforming vs {self.theta_train:.2%} in "
                f"training ({self.test} p={result.p_value:.3g}, alpha={self.alpha})"
            )
        return PatternValidationResult(
            passed=not result.drift,
            column=column,
            n_values=n_values,
            n_nonconforming=n_nonconforming,
            nonconforming_fraction=frac,
            drift=result,
            examples=tuple(examples),
            message=message,
        )

    def nonconforming(self, values: Sequence[str]) -> list[str]:
        """The values (non-null, in order) that do not fully match :attr:`regex`.

        Matched by DuckDB's ``regexp_full_match`` (RE2): time linear in the
        total length of the values, whatever the regex and the values.
        """
        if not values:
            return []
        table = pa.table({"i": pa.array(range(len(values)), pa.int64()), "v": values})
        with closing(duckdb.connect()) as con:
            rows = (
                con.from_arrow(table)
                .filter(f"NOT regexp_full_match(v, {_sql_literal(self.regex)})")
                .order("i")
                .select("v")
                .fetchall()
            )
        return [r[0] for r in rows]

    def validate(
        self,
        data: Any,
        column: str | None = None,
        *,
        examples: int = DEFAULT_EXAMPLES,
        con: duckdb.DuckDBPyConnection | None = None,
    ) -> PatternValidationResult:
        """Validate a batch of local data.

        Parameters
        ----------
        data
            A sequence of values (list, tuple, pandas Series, pyarrow Array;
            ``None``/NaN are nulls), or a table: a CSV/Parquet path, a pandas
            DataFrame, a pyarrow Table or a DuckDB relation (then ``column``
            names the column, by default :attr:`column`).
        column
            Column of a table.
        examples
            How many non-conforming values to report.
        con
            DuckDB connection for tables; a fresh one by default.

        Returns
        -------
        PatternValidationResult

        Raises
        ------
        ColumnNotFoundError
            If the table has no such column.
        DataError, DataSourceError
            If the data cannot be read.
        """
        if is_value_sequence(data):
            values = [v for v in column_values(data) if v is not None]
            bad = self.nonconforming(values)
            return self.evaluate_counts(
                len(bad), len(values), examples=bad[:examples], column=column
            )
        column = column if column is not None else self.column
        own = con is None
        con = con or duckdb.connect()
        try:
            rel = to_relation(data, con, all_varchar=True)
            column = resolve_column(rel, column)
            col = f"CAST({quote_identifier(column)} AS VARCHAR)"
            literal = _sql_literal(self.regex)
            nonconforming = f"{col} IS NOT NULL AND NOT regexp_full_match({col}, {literal})"
            ((n_values, n_bad),) = rel.aggregate(
                f"count({col}), count(*) FILTER (WHERE {nonconforming})"
            ).fetchall()
            sample = [
                r[0] for r in rel.filter(nonconforming).select(col).limit(examples).fetchall()
            ]
        except duckdb.Error as exc:
            raise DataError(f"cannot validate column {column!r}: {exc}") from exc
        finally:
            if own:
                con.close()
        return self.evaluate_counts(int(n_bad), int(n_values), examples=sample, column=column)

    # -- serialising --------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict, with ``kind`` and ``version`` for :meth:`from_dict`."""
        d = asdict(self)
        d["segments"] = [dict(s) for s in self.segments]
        return {"kind": CONSTRAINT_KIND, "version": CONSTRAINT_VERSION, **d}

    def to_json(self) -> str:
        """The constraint as pretty JSON text."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PatternConstraint:
        """Rebuild a constraint from :meth:`to_dict` output.

        Raises
        ------
        ConstraintFormatError
            If the kind, version or a field is wrong, or the regex is not the
            one the constraint's pattern renders to (:func:`rendered_regex`).
        """
        if not isinstance(data, dict) or data.get("kind") != CONSTRAINT_KIND:
            raise ConstraintFormatError(f"not a {CONSTRAINT_KIND} constraint")
        if data.get("version") != CONSTRAINT_VERSION:
            raise ConstraintFormatError(
                f"constraint version {data.get('version')!r}; "
                f"this autovalidate reads {CONSTRAINT_VERSION}"
            )
        fields = {k: v for k, v in data.items() if k not in ("kind", "version")}
        try:
            constraint = cls(**{**fields, "segments": tuple(fields.get("segments", ()))})
        except TypeError as exc:
            raise ConstraintFormatError(f"bad constraint fields: {exc}") from exc
        if constraint.test not in TESTS:
            raise ConstraintFormatError(f"unknown test {constraint.test!r}")
        if not (
            isinstance(constraint.train_n, int)
            and 0 <= constraint.train_nonconforming <= constraint.train_n
        ):
            raise ConstraintFormatError("training counts must satisfy 0 <= non-conforming <= n")
        rendered = rendered_regex(constraint)
        if constraint.regex != rendered:
            raise ConstraintFormatError(
                f"regex {constraint.regex!r} is not the one pattern {constraint.pattern} "
                f"renders to ({rendered!r}): the constraint was edited by hand or written by "
                "another pattern language; suggest it again"
            )
        return constraint


def rendered_regex(constraint: PatternConstraint) -> str:
    """The regex the constraint's pattern renders to, checking its parts agree.

    Parameters
    ----------
    constraint
        A constraint as read from JSON.

    Returns
    -------
    str
        :func:`~autovalidate.patterns.render.pattern_regex` of the segments
        (or of :attr:`PatternConstraint.pattern` when there are none).

    Raises
    ------
    ConstraintFormatError
        If a segment is malformed or not a canonical pattern, a segment's regex
        is not its pattern's, or the segments do not spell :attr:`PatternConstraint.pattern`.
    """
    try:
        if not constraint.segments:
            return pattern_regex(constraint.pattern)
        parts = []
        for i, segment in enumerate(constraint.segments):
            if not isinstance(segment, dict) or not isinstance(segment.get("pattern"), str):
                raise ConstraintFormatError(f"segment {i}: needs 'pattern', a string")
            pattern, optional = segment["pattern"], bool(segment.get("optional", False))
            if segment.get("regex", render_body(pattern)) != render_body(pattern):
                raise ConstraintFormatError(
                    f"segment {i}: regex {segment['regex']!r} is not the one {pattern} renders to"
                )
            parts.append((pattern, optional))
        spelled = "".join(f"({p})?" if optional else p for p, optional in parts)
        if spelled != constraint.pattern:
            raise ConstraintFormatError(
                f"pattern {constraint.pattern!r} is not its segments' {spelled!r}"
            )
        return pattern_regex(parts)
    except ParameterError as exc:
        raise ConstraintFormatError(f"not a pattern of the pattern language: {exc}") from exc
