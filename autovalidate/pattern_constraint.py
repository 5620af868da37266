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
backtracking) and on Spark DataFrames (``rlike``, Java; :mod:`autovalidate.spark`),
through the data's engine (:mod:`autovalidate.engines`); the regex means the
same in the dialects.

Only regexes of the pattern language run: loading a constraint
(:meth:`PatternConstraint.from_dict`) renders the regex again from the
constraint's pattern segments (:func:`autovalidate.patterns.render.pattern_regex`)
and refuses a constraint whose stored regex differs, so a hand-edited regex
(a back-reference, ``(a|aa)+``) never reaches an engine under a pattern's name.
Rendered regexes have no nested quantifiers, which also keeps Java's
backtracking engine in Spark clear of exponential cases.

The other fields that decide a verdict (:data:`VERDICT_FIELDS`: the method,
the test and its alpha, the training counts, the null tokens) have no
rendering to check them against, so :meth:`PatternConstraint.to_dict` writes
their SHA-256 as ``digest`` and loading refuses a constraint whose fields no
longer match it: an edit that would switch the check off quietly
(``train_nonconforming`` raised, ``NULL`` added to the null tokens) is
refused like an edited regex. The digest detects edits, it does not
authenticate (it has no key); a constraint written before it existed has
none and is read as before. Every field is also checked for its type and range
first (:data:`autovalidate.schemas.PATTERN_CONSTRAINT_SCHEMA`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

import pyarrow as pa

from autovalidate.drift import TESTS, DriftTest, drift_test
from autovalidate.engines import Engine, open_engine
from autovalidate.engines.io import column_values, is_value_sequence
from autovalidate.errors import (
    ColumnNotFoundError,
    ConstraintFormatError,
    DataError,
    ParameterError,
)
from autovalidate.metrics.base import Analyzer
from autovalidate.metrics.strings import PatternConformance
from autovalidate.nulls import DEFAULT_NULL_TOKENS
from autovalidate.patterns.render import (
    MAX_REPEAT,
    Form,
    Parts,
    describe_pattern,
    pattern_regex,
    segment_body,
    spell_form,
    spell_segments,
)
from autovalidate.portable_regex import re2_error
from autovalidate.schemas import PATTERN_CONSTRAINT_SCHEMA, check_document
from autovalidate.wording import counted

__all__ = [
    "CONSTRAINT_KIND",
    "PatternConstraint",
    "PatternValidationResult",
    "Segment",
    "nonconforming_examples",
    "rendered_regex",
    "verdict_digest",
]

CONSTRAINT_KIND = "autovalidate-pattern"
CONSTRAINT_VERSION = 1
#: The fields besides the regex that decide a constraint's verdict, covered by its digest.
VERDICT_FIELDS = ("method", "test", "alpha", "train_n", "train_nonconforming", "null_tokens")
#: Non-conforming values reported with a result.
DEFAULT_EXAMPLES = 5


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
class Segment:
    """One segment of a constraint's pattern: a part of its vertical cut (Song & He 2021, §3).

    Attributes
    ----------
    pattern
        The segment's canonical pattern.
    regex
        Its unanchored regex (``render_body`` of ``pattern``; filled in when empty).
    fpr
        Its estimated FPR, a fraction in [0, 1] (0 for a literal).
    cov
        Cov_T, corpus columns (0 for a literal or a part priced by positions).
    evidence
        Where ``fpr`` comes from: ``corpus`` (the shrunk FPR_T of the
        pattern's corpus columns), ``positions`` (a part of a vertical cut
        priced position by position by the index's generalization
        statistics), ``literal`` (a delimiter); ``""`` in constraint files
        written before it was recorded.
    shape_risk
        Of the first segment of a cut priced by positions: the share of later
        values expected in a new shape, a fraction (counted in the
        constraint's ``fpr``); ``None`` otherwise.
    optional
        The segment may be absent from a value.
    repeat
        Most times an optional segment may occur (the ``_x`` of ``a_x_y``):
        1, or 2 to :data:`~autovalidate.schemas.MAX_REPEAT`.
    branch
        In a multi-format pattern, the 0-based format the segment belongs to
        (formats in order; the regex accepts any one); ``None`` in a
        single-format one.
    parts
        Of a segment with optional parts of its own, one level deep (a list's
        repeated item with an optional part): ``(pattern, most)`` per part,
        most 0 (required) or 1 (optional), never repeated: a repeat inside a
        repeated segment multiplies the regex's size
        (:data:`~autovalidate.patterns.render.Parts`); ``pattern`` is then
        their spelling, ``(...)?`` around an optional part. Empty otherwise.
    """

    pattern: str
    regex: str = ""
    fpr: float = 0.0
    cov: int = 0
    evidence: str = ""
    shape_risk: float | None = None
    optional: bool = False
    repeat: int = 1
    branch: int | None = None
    parts: Parts = ()

    def __post_init__(self) -> None:
        if not self.regex:
            object.__setattr__(self, "regex", segment_body(self.form))

    @property
    def form(self) -> Form:
        """What the segment renders from: its parts, or its pattern."""
        return self.parts or self.pattern

    @property
    def literal(self) -> bool:
        """A separator cut out as a literal (FPR 0, no corpus columns: Song & He 2021, §3)."""
        return self.evidence == "literal" or (not self.evidence and self.cov == 0)

    @property
    def by_positions(self) -> bool:
        """A part priced by the corpus's generalization statistics, not by columns of its own."""
        return self.evidence == "positions"

    @property
    def reads(self) -> str:
        """Its short reading (:func:`describe_pattern`); a literal reads as its quoted text."""
        return describe_pattern([(self.form, 0)])

    def to_dict(self) -> dict[str, Any]:
        """The segment as a constraint file holds it (keys left out where unset)."""
        d: dict[str, Any] = {
            "pattern": self.pattern,
            "regex": self.regex,
            "fpr": self.fpr,
            "cov": self.cov,
        }
        if self.evidence:
            d["evidence"] = self.evidence
        if self.shape_risk is not None:
            d["shape_risk"] = self.shape_risk
        d["optional"] = self.optional
        if self.optional and self.repeat > 1:
            d["repeat"] = self.repeat
        if self.branch is not None:
            d["branch"] = self.branch
        if self.parts:
            d["parts"] = [{"pattern": p, "optional": bool(most)} for p, most in self.parts]
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Segment:
        """A segment from :meth:`to_dict` output (checked against the constraint schema first).

        Raises
        ------
        TypeError
            If a key is not one of the fields.
        """
        fields = dict(data)
        if "parts" in fields:
            fields["parts"] = tuple(
                (part["pattern"], int(part.get("optional", False))) for part in fields["parts"]
            )
        return cls(**fields)


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
        The pattern's segments in order (:class:`Segment`), every format's
        in a multi-format pattern.
    fpr
        Σ of the segments' estimated FPR (and shape risk): the estimated
        false-positive rate, a fraction in [0, 1].
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
        Solver parameters used: ``r``, ``m``, ``theta``, ``tau``, ``objective``,
        ``max_shortfall`` and ``max_position_risk`` (the names of
        :func:`~autovalidate.suggest_pattern`; older constraint files record
        the first four), and ``inferred_from`` where the pattern was inferred
        from a sample. Not a verdict field: validation never reads them.
    index
        Provenance of the index used (path, τ, patterns, build time).
    null_tokens
        Texts that mean a missing value (:mod:`autovalidate.nulls`): like
        nulls and empty or whitespace-only values, they are never counted,
        in training or in a batch.
    """

    regex: str
    pattern: str
    segments: tuple[Segment, ...]
    fpr: float
    method: str
    test: str
    alpha: float
    train_n: int
    train_nonconforming: int
    column: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    index: dict[str, Any] = field(default_factory=dict)
    null_tokens: tuple[str, ...] = DEFAULT_NULL_TOKENS

    @property
    def description(self) -> str:
        """The pattern in words, e.g. ``5 digits '-' 4 digits`` (:func:`describe_pattern`)."""
        if not self.segments:
            return describe_pattern(self.pattern)
        return describe_pattern(branches=_branches(self))

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
                f"{where}{verdict}: {n_nonconforming} of {counted(n_values, 'value')} do not match "
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

    def validate(
        self,
        data: Any,
        column: str | None = None,
        *,
        examples: int = DEFAULT_EXAMPLES,
    ) -> PatternValidationResult:
        """Validate a batch: count its non-conforming values and decide with the drift test.

        The counts are the :class:`~autovalidate.metrics.PatternConformance`
        analyzer run by the data's engine (DuckDB's RE2 for local data, Java's
        regex on Spark), in one scan. The examples are the smallest distinct
        non-conforming values, ascending, from that same scan where the engine
        carries them at no cost (:attr:`~autovalidate.engines.Engine.examples_in_scan`:
        DuckDB); elsewhere (Spark) a second query fetches the first ones it
        finds, only when some value does not conform.

        One constraint on one column (or a plain list of values), with its
        drift decision. A suite, checks or pattern constraints on a batch,
        with its rows split: :func:`autovalidate.validate`, the one entry for
        a batch (a pattern constraint there is a check on its column);
        :func:`autovalidate.validate_spark` is an alias of this call.

        Parameters
        ----------
        data
            A sequence of values (list, tuple, pandas Series, pyarrow Array;
            ``None``, NaN and ``pd.NA`` are nulls), or a table: a CSV/Parquet
            path (CSV read as text, exactly as written), a pandas DataFrame, a
            pyarrow Table, a DuckDB relation, a PySpark DataFrame or an
            :class:`~autovalidate.engines.Engine` (then ``column`` names the
            column, by default :attr:`column`).
        column
            Column of a table (any type: values are compared as text).
        examples
            How many non-conforming values to report (0: none).

        Returns
        -------
        PatternValidationResult

        Raises
        ------
        ValueError
            If ``examples`` is not an integer >= 0.
        ColumnNotFoundError
            If the table has no such column.
        DataError, DataSourceError
            If the data cannot be read.
        EngineError
            If the engine fails the query.
        """
        if isinstance(examples, bool) or not isinstance(examples, int) or examples < 0:
            raise ValueError(f"examples must be an integer >= 0, not {examples!r}")
        sequence = is_value_sequence(data)
        if sequence:  # the values as a one-column table: the same counting
            data = pa.table({"value": pa.array(column_values(data), pa.string())})
        wanted = "value" if sequence else (column if column is not None else self.column)
        with open_engine(data) as engine:
            names = list(engine.schema())
            if wanted is None and len(names) != 1:
                raise DataError(f"the table has {len(names)} columns; name one with column=")
            read = names[0] if wanted is None else wanted
            if read not in names:
                raise ColumnNotFoundError(read, names)
            analyzer = PatternConformance(read, self.regex, null_tokens=self.null_tokens)
            counts = analyzer.aggregations()
            in_scan = engine.examples_in_scan and examples > 0
            values = engine.aggregate(
                counts + (analyzer.examples(EXAMPLE_ROWS * examples),) if in_scan else counts
            )
            state = analyzer.state_from_aggregates(values[: len(counts)])
            n_bad = state.count - state.num_matches
            if in_scan:
                sample = distinct_examples(values[-1] or [], examples)
            else:
                sample = nonconforming_examples(engine, analyzer, examples) if n_bad else []
        return self.evaluate_counts(
            n_bad, state.count, examples=sample, column=column if sequence else read
        )

    # -- serialising --------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict, with ``kind``, ``version`` and ``digest`` for :meth:`from_dict`."""
        d = asdict(self)
        d["segments"] = [s.to_dict() for s in self.segments]
        d["null_tokens"] = list(self.null_tokens)
        return {
            "kind": CONSTRAINT_KIND,
            "version": CONSTRAINT_VERSION,
            **d,
            "digest": verdict_digest(d),
        }

    def to_json(self) -> str:
        """The constraint as pretty JSON text."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PatternConstraint:
        """Rebuild a constraint from :meth:`to_dict` output.

        Raises
        ------
        ConstraintFormatError
            If the kind, version or a field is wrong (its type or range, see
            :data:`~autovalidate.schemas.PATTERN_CONSTRAINT_SCHEMA`; the
            message names the field), the regex is not the one the
            constraint's pattern renders to (:func:`rendered_regex`), RE2 does
            not compile it (:func:`~autovalidate.portable_regex.re2_error`: a
            repetition raised past RE2's limits), or the verdict fields do not
            match the ``digest`` (:func:`verdict_digest`).
        """
        if not isinstance(data, dict) or data.get("kind") != CONSTRAINT_KIND:
            raise ConstraintFormatError(f"not a {CONSTRAINT_KIND} constraint")
        if data.get("version") != CONSTRAINT_VERSION:
            raise ConstraintFormatError(
                f"constraint version {data.get('version')!r}; "
                f"this autovalidate reads {CONSTRAINT_VERSION}"
            )
        check_document(data, PATTERN_CONSTRAINT_SCHEMA, "constraint")
        digest = data.get("digest")
        if digest is not None and digest != verdict_digest(data):
            raise ConstraintFormatError(
                f"its verdict fields ({', '.join(VERDICT_FIELDS)}) do not match its digest: "
                "the constraint was edited by hand; suggest it again"
            )
        fields = {k: v for k, v in data.items() if k not in ("kind", "version", "digest")}
        try:
            if "null_tokens" in fields:
                fields["null_tokens"] = tuple(fields["null_tokens"])
            segments = tuple(Segment.from_dict(s) for s in fields.get("segments", ()))
            constraint = cls(**{**fields, "segments": segments})
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
        error = re2_error(constraint.regex)
        if error is not None:
            raise ConstraintFormatError(
                f"regex of pattern {constraint.pattern} does not compile in RE2, which "
                f"validates it on DuckDB ({error}): the constraint was edited by hand; "
                "suggest it again"
            )
        return constraint


def verdict_digest(data: dict[str, Any]) -> str:
    """``sha256:`` and the hex SHA-256 of a constraint's :data:`VERDICT_FIELDS`, as JSON.

    Parameters
    ----------
    data
        A constraint as :meth:`PatternConstraint.to_dict` writes it (a field
        left out takes its default).
    """
    defaults = {"null_tokens": list(DEFAULT_NULL_TOKENS)}
    covered = {k: data.get(k, defaults.get(k)) for k in VERDICT_FIELDS}
    text = json.dumps(covered, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return "sha256:" + hashlib.sha256(text.encode("ascii")).hexdigest()


def nonconforming_examples(engine: Engine, analyzer: Analyzer, limit: int) -> list[str]:
    """Up to ``limit`` values that fail a :class:`~autovalidate.metrics.PatternConformance`.

    Distinct non-null values (passing the analyzer's ``where``) that do not
    fully match its pattern, the first ones the engine finds (in batch order on
    DuckDB): one query, which stops reading once it has found
    :data:`EXAMPLE_ROWS` times ``limit`` rows; a value repeated in them is shown
    once (a batch with one typo in 30 rows gives one example, not five copies).

    Raises
    ------
    TypeError
        If ``analyzer`` is not a ``PatternConformance``.
    EngineError
        If the engine fails the query.
    """
    if not isinstance(analyzer, PatternConformance):
        raise TypeError(f"examples come from a PatternConformance, not {analyzer}")
    rows = engine.sample(analyzer.nonconforming(), [analyzer.text()], EXAMPLE_ROWS * limit)
    return distinct_examples([r[0] for r in rows], limit)


#: Rows :func:`nonconforming_examples` reads per example it returns, for distinct ones.
EXAMPLE_ROWS = 4


def distinct_examples(values: Iterable[str], limit: int) -> list[str]:
    """The first ``limit`` distinct ``values``, in their order."""
    return list(dict.fromkeys(values))[:limit]


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
        (per format, for a multi-format pattern), or of
        :attr:`PatternConstraint.pattern` when there are none.

    Raises
    ------
    ConstraintFormatError
        If a segment is malformed or not a canonical pattern, a segment's regex
        is not its pattern's, or the segments do not spell :attr:`PatternConstraint.pattern`.
    """
    try:
        if not constraint.segments:
            return pattern_regex(constraint.pattern)
        branches = _branches(constraint)
        spelled = [spell_segments(branch) for branch in branches]
        pattern = spelled[0] if len(spelled) == 1 else "|".join(f"({p})" for p in spelled)
        if pattern != constraint.pattern:
            raise ConstraintFormatError(
                f"pattern {constraint.pattern!r} is not its segments' {pattern!r}"
            )
        return pattern_regex(branches=branches)
    except ParameterError as exc:
        raise ConstraintFormatError(f"not a pattern of the pattern language: {exc}") from exc


def _branches(constraint: PatternConstraint) -> list[list[tuple[Form, int]]]:
    """Each format's ``(pattern, most)`` segments (:data:`~autovalidate.patterns.render.Segments`).

    Raises
    ------
    ConstraintFormatError
        If a segment is malformed, its regex is not its pattern's (its
        parts', where it has parts), its pattern does not spell its parts,
        or its ``branch`` numbers do not count up from 0 in order.
    ParameterError
        If a segment's or a part's pattern is not canonical.
    """
    branches: list[list[tuple[Form, int]]] = []
    for i, segment in enumerate(constraint.segments):
        if not isinstance(segment, Segment):
            raise ConstraintFormatError(f"segment {i}: not a Segment")
        most = int(segment.optional)
        if not all(
            isinstance(part, tuple)
            and len(part) == 2
            and isinstance(part[0], str)
            and part[1] in (0, 1)
            and type(part[1]) in (int, bool)
            for part in segment.parts
        ):
            raise ConstraintFormatError(
                f"segment {i}: 'parts' must be (pattern, most) pairs, most 0 or 1 (never repeated)"
            )
        if segment.parts and segment.pattern != spell_form(segment.parts):
            raise ConstraintFormatError(
                f"segment {i}: pattern {segment.pattern!r} is not its parts' "
                f"{spell_form(segment.parts)!r}"
            )
        if segment.repeat != 1:
            repeat = segment.repeat
            if not most or type(repeat) is not int or not 2 <= repeat <= MAX_REPEAT:
                raise ConstraintFormatError(
                    f"segment {i}: 'repeat' must be a whole number in [2, {MAX_REPEAT}] "
                    "on an optional segment"
                )
            most = repeat
        if segment.regex != segment_body(segment.form):
            raise ConstraintFormatError(
                f"segment {i}: regex {segment.regex!r} is not the one {segment.pattern} renders to"
            )
        branch = 0 if segment.branch is None else segment.branch
        if branch == len(branches):
            branches.append([])
        elif branch != len(branches) - 1:
            raise ConstraintFormatError(
                f"segment {i}: branch {branch!r} out of order (formats count up from 0)"
            )
        branches[-1].append((segment.form, most))
    return branches
