"""The AV-bench protocol of ``shared/BENCHMARK.md`` (Song & He 2021, §5.1), pinned down in code.

* Corpus T: every Parquet file of the lake (one row per column).
* Query set B: 1000 columns drawn with ``random.Random(0).sample`` from the
  eligible columns: at least 100 non-null values, fewer than half of them plain
  numbers, sorted by (table_id, column_position), first of each
  (source, column_name).
* Split: nulls dropped, order kept; train = first ceil(n/10), test = the rest.
* Validate(X, rule): a rule without tolerance fails if any value of X does not
  conform; a rule with tolerance applies its own test; an abstention passes.
* P_A(C_i) = 1 if Validate(test_i) passes; R_A(C_i) = fraction of the other
  columns C_j (all values) that fail, squashed to 0 where P_A(C_i) = 0.
  P, R are means over B; F1 from the means.
* Two reports: all of B, and the pattern-applicable subset (some pattern-based
  method returns a rule that is neither an abstention nor match-anything).

Counting is done in DuckDB over the distinct (column, part, value) triples of
B with their multiplicities: RE2 regexes (the product's regexes mean the same
there as in Python and Java) in batches, one scan per batch, and all
dictionary rules in one join.  Regexes that need constructs RE2 lacks (Grok's
atomic groups and look-arounds) are counted with Python's ``regex`` module on
the same distinct values, with the same full-match semantics.  A
:class:`RuleCounter` keeps the counts of every rule it has seen, so the
sensitivity sweep counts each distinct rule once.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import regex

from autovalidate import drift_test
from autovalidate.nulls import WHITESPACE_REGEX

__all__ = [
    "Case",
    "Counts",
    "Rule",
    "RuleCounter",
    "eligible_columns",
    "load_queries",
    "load_machine_queries",
    "repetitive",
    "count_rules",
    "decide",
    "full_match_verdicts",
    "score",
]

PLAIN_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
QUERY_SET_SIZE = 1000
MIN_VALUES = 100


@dataclass(frozen=True)
class Case:
    """One query column C_i of B.

    Attributes
    ----------
    idx
        Position in B (0-based).
    table_id, column_position, column_name, source
        Where the column comes from in the lake.
    values
        Non-null values in order.
    n_train
        ceil(n / 10): ``values[:n_train]`` is train, the rest is test.
    """

    idx: int
    source: str
    table_id: str
    column_position: int
    column_name: str
    values: tuple[str, ...]
    n_train: int

    @property
    def train(self) -> list[str]:
        return list(self.values[: self.n_train])

    @property
    def test(self) -> list[str]:
        return list(self.values[self.n_train :])


@dataclass(frozen=True)
class Rule:
    """A validation rule returned by a method (an abstention is ``None``).

    Attributes
    ----------
    kind
        ``"regex"`` (``regex`` is fully anchored, full-match semantics) or
        ``"dictionary"`` (``values`` are the allowed strings).
    dialect
        Of a regex: ``"re2"`` (counted in DuckDB) or ``"python"`` (needs
        Python ``regex`` constructs, counted in Python).
    decision
        How counts become a verdict: ``"strict"`` (fail on any non-conforming
        value), ``"min_fraction"`` (fail when the conforming fraction is below
        ``min_fraction``: Deequ's compliance constraint), or ``"constraint"``
        (the product's own decision, ``constraint.evaluate_counts``: the
        paper's §4 Fisher test for FMDV-H/VH, strict for FMDV/FMDV-V).
    description
        The rule as people read it, for the per-case CSV.
    match_anything
        The rule accepts every value, or (PWheel and SM) its structure is the
        catch-all ξ* after at most a prefix: it does not count as a pattern
        rule for the applicable subset.
    missing
        Of an RE2 regex rule: texts the rule reads as missing values (the
        product's null tokens), which, like empty or whitespace-only values,
        it counts neither as non-conforming nor among a batch's values, as
        the rule's own validation does.
    """

    kind: str
    description: str
    regex: str | None = None
    values: frozenset[str] | None = None
    decision: str = "strict"
    min_fraction: float = 0.0
    constraint: Any = None
    match_anything: bool = False
    dialect: str = "re2"
    missing: tuple[str, ...] = ()

    def key(self) -> tuple:
        """Identity of what must be counted (rules sharing it share the counts)."""
        if self.kind == "regex":
            return ("regex", self.dialect, self.regex, self.missing)
        return ("dictionary", self.values)


@dataclass
class Counts:
    """Non-conforming and total counts of one rule on every column of B.

    ``bad_full[j]``/``n_full[j]`` over all values of C_j; ``bad_test[j]``/
    ``n_test[j]`` over its test part.
    """

    bad_full: list[int] = field(default_factory=list)
    n_full: list[int] = field(default_factory=list)
    bad_test: list[int] = field(default_factory=list)
    n_test: list[int] = field(default_factory=list)


def eligible_columns(lake: Path) -> list[tuple[str, str, int, str, list[str]]]:
    """The eligible columns, sorted and de-duplicated as the protocol says.

    Returns
    -------
    list of (source, table_id, column_position, column_name, non-null values)
    """
    con = duckdb.connect()
    rows = con.execute(
        "SELECT source, table_id, column_position, column_name, values "
        f"FROM read_parquet('{lake}/*.parquet') ORDER BY table_id, column_position"
    ).fetchall()
    con.close()
    seen: set[tuple[str, str]] = set()
    out = []
    for source, table_id, position, name, values in rows:
        kept = [v for v in values if v is not None]
        if len(kept) < MIN_VALUES:
            continue
        numbers = sum(1 for v in kept if PLAIN_NUMBER.fullmatch(v))
        if 2 * numbers >= len(kept):
            continue
        if (source, name) in seen:
            continue
        seen.add((source, name))
        out.append((source, table_id, position, name, kept))
    return out


def load_queries(lake: Path, size: int = QUERY_SET_SIZE, *, quick: int | None = None) -> list[Case]:
    """The query set B: ``random.Random(0).sample(eligible, size)``.

    ``quick`` keeps only the first ``quick`` cases of that sample (a smoke test
    on a prefix of the real B, not another sample).
    """
    eligible = eligible_columns(lake)
    sample = random.Random(0).sample(eligible, min(size, len(eligible)))
    if quick:
        sample = sample[:quick]
    return [
        Case(i, s, t, p, name, tuple(vals), math.ceil(len(vals) / 10))
        for i, (s, t, p, name, vals) in enumerate(sample)
    ]


def load_machine_queries(path: Path, *, quick: int | None = None) -> list[Case]:
    """The query set B-M: every column of ``avbench-machine/cases.parquet``, in file order.

    The file holds the 600 columns already sampled and sorted (its README says
    how); each is split as B's are.  ``source`` is the repository, as in the lake.
    """
    import pyarrow.parquet as pq

    rows = pq.read_table(
        path, columns=["source", "table_id", "column_position", "column_name", "values"]
    ).to_pylist()
    if quick:
        rows = rows[:quick]
    cases = []
    for i, row in enumerate(rows):
        kept = [v for v in row["values"] if v is not None]
        cases.append(
            Case(
                i,
                row["source"],
                row["table_id"],
                row["column_position"],
                row["column_name"],
                tuple(kept),
                math.ceil(len(kept) / 10),
            )
        )
    return cases


#: The repetitive slice: a training part of at most this many distinct values
#: (``BENCHMARK.md``: time-ordered data often starts with one value repeated).
REPETITIVE_DISTINCT = 3


def repetitive(cases: Sequence[Case]) -> list[int]:
    """Indexes of the cases whose training part holds at most 3 distinct values."""
    return [c.idx for c in cases if len(set(c.train)) <= REPETITIVE_DISTINCT]


def _values_table(cases: Sequence[Case]) -> pa.Table:
    """Distinct (col, is_test, value) of B with their multiplicity ``n``."""
    counts: dict[tuple[int, bool, str], int] = {}
    for c in cases:
        for k, v in enumerate(c.values):
            key = (c.idx, k >= c.n_train, v)
            counts[key] = counts.get(key, 0) + 1
    return pa.table(
        {
            "col": pa.array([k[0] for k in counts], pa.int32()),
            "is_test": pa.array([k[1] for k in counts]),
            "value": pa.array([k[2] for k in counts], pa.string()),
            "n": pa.array(list(counts.values()), pa.int64()),
        }
    )


#: RE2 regexes counted per DuckDB scan.
_REGEX_BATCH = 24


class RuleCounter:
    """Counts rules on every column of B, remembering what it has counted.

    Parameters
    ----------
    cases
        The query set B (``cases[i].idx == i``).
    """

    def __init__(self, cases: Sequence[Case]):
        self.n = len(cases)
        self._con = duckdb.connect()
        self._con.register("vals_arrow", _values_table(cases))
        self._con.execute("CREATE TABLE vals AS SELECT * FROM vals_arrow").fetchall()
        self._con.unregister("vals_arrow")
        self.n_full = [0] * self.n
        self.n_test = [0] * self.n
        for c, a, b in self._con.execute(
            "SELECT col, sum(n), coalesce(sum(n) FILTER (WHERE is_test), 0) FROM vals GROUP BY col"
        ).fetchall():
            self.n_full[c], self.n_test[c] = int(a), int(b)
        self._distinct: list[tuple[int, bool, str, int]] | None = None
        self._cache: dict[tuple, Counts] = {}

    def close(self) -> None:
        """Release the DuckDB connection."""
        self._con.close()

    def count(self, rules: Iterable[Rule | None]) -> dict[tuple, Counts]:
        """Counts of every distinct rule (abstentions skipped), computing only new ones."""
        todo: dict[tuple, Rule] = {}
        for rule in rules:
            if rule is not None and rule.key() not in self._cache:
                todo.setdefault(rule.key(), rule)
        re2 = [r for r in todo.values() if r.kind == "regex" and r.dialect == "re2"]
        python = [r for r in todo.values() if r.kind == "regex" and r.dialect == "python"]
        dictionaries = [r for r in todo.values() if r.kind == "dictionary"]
        for start in range(0, len(re2), _REGEX_BATCH):
            self._count_re2(re2[start : start + _REGEX_BATCH])
        for rule in python:
            self._count_python(rule)
        if dictionaries:
            self._count_dictionaries(dictionaries)
        return self._cache

    def _count_re2(self, rules: list[Rule]) -> None:
        parts = []
        for k, rule in enumerate(rules):
            present = "true"
            if rule.missing:
                tokens = ", ".join("'" + t.replace("'", "''") + "'" for t in rule.missing)
                blank = "'" + WHITESPACE_REGEX.replace("'", "''") + "'"
                present = f"NOT (value IN ({tokens}) OR regexp_full_match(value, {blank}))"
            bad = f"{present} AND NOT {_re2_full_match(rule)}"
            parts.append(
                f"coalesce(sum(n) FILTER (WHERE {bad}), 0) AS f{k}, "
                f"coalesce(sum(n) FILTER (WHERE is_test AND {bad}), 0) AS t{k}, "
                f"coalesce(sum(n) FILTER (WHERE {present}), 0) AS nf{k}, "
                f"coalesce(sum(n) FILTER (WHERE is_test AND {present}), 0) AS nt{k}"
            )
        rows = self._con.execute(
            f"SELECT col, {', '.join(parts)} FROM vals GROUP BY col"
        ).fetchall()
        for k, rule in enumerate(rules):
            counts = self._counts((row[0], row[1 + 4 * k], row[2 + 4 * k]) for row in rows)
            if rule.missing:
                for row in rows:
                    counts.n_full[row[0]] = int(row[3 + 4 * k])
                    counts.n_test[row[0]] = int(row[4 + 4 * k])
            self._cache[rule.key()] = counts

    def _count_python(self, rule: Rule) -> None:
        if self._distinct is None:
            self._distinct = self._con.execute("SELECT col, is_test, value, n FROM vals").fetchall()
        rx = regex.compile(rule.regex)
        verdict: dict[str, bool] = {}
        bad_full = [0] * self.n
        bad_test = [0] * self.n
        for col, is_test, value, n in self._distinct:
            ok = verdict.get(value)
            if ok is None:
                ok = verdict[value] = rx.fullmatch(value) is not None
            if not ok:
                bad_full[col] += n
                if is_test:
                    bad_test[col] += n
        self._cache[rule.key()] = Counts(bad_full, list(self.n_full), bad_test, list(self.n_test))

    def _count_dictionaries(self, rules: list[Rule]) -> None:
        ids, words = [], []
        for rid, rule in enumerate(rules):
            for w in rule.values or ():
                ids.append(rid)
                words.append(w)
        self._con.register(
            "dict_arrow",
            pa.table({"rid": pa.array(ids, pa.int32()), "value": pa.array(words, pa.string())}),
        )
        matched = self._con.execute(
            "SELECT d.rid, v.col, sum(v.n), coalesce(sum(v.n) FILTER (WHERE v.is_test), 0) "
            "FROM vals v JOIN dict_arrow d ON v.value = d.value GROUP BY ALL"
        ).fetchall()
        self._con.unregister("dict_arrow")
        per_rule: dict[int, list[tuple[int, int, int]]] = {}
        for rid, col, a, b in matched:
            per_rule.setdefault(rid, []).append((col, int(a), int(b)))
        for rid, rule in enumerate(rules):
            good_full = [0] * self.n
            good_test = [0] * self.n
            for col, a, b in per_rule.get(rid, []):
                good_full[col], good_test[col] = a, b
            self._cache[rule.key()] = self._counts(
                (j, self.n_full[j] - good_full[j], self.n_test[j] - good_test[j])
                for j in range(self.n)
            )

    def _counts(self, rows: Iterable[tuple[int, int, int]]) -> Counts:
        bad_full = [0] * self.n
        bad_test = [0] * self.n
        for col, a, b in rows:
            bad_full[col], bad_test[col] = int(a), int(b)
        return Counts(bad_full, list(self.n_full), bad_test, list(self.n_test))


def _re2_full_match(rule: Rule, value: str = "value") -> str:
    """SQL of ``rule``'s full match on the column ``value`` (RE2, DuckDB)."""
    literal = "'" + str(rule.regex).replace("'", "''") + "'"
    return f"regexp_full_match({value}, {literal})"


def full_match_verdicts(checks: Iterable[tuple[Rule, str]]) -> dict[tuple[tuple, str], bool]:
    """Value-level verdicts: whether each value conforms to its rule (full match, or a word of it).

    The same semantics as :class:`RuleCounter`: RE2 regexes in DuckDB
    (``_REGEX_BATCH`` rules per scan of the distinct (rule, value) pairs),
    ``python``-dialect regexes with Python ``regex``, dictionaries by
    membership.

    Returns
    -------
    dict
        ``(rule.key(), value)`` -> True if the value conforms.
    """
    todo: dict[tuple, tuple[Rule, set[str]]] = {}
    for rule, value in checks:
        todo.setdefault(rule.key(), (rule, set()))[1].add(value)
    out: dict[tuple[tuple, str], bool] = {}
    re2: list[tuple[Rule, set[str]]] = []
    for key, (rule, values) in todo.items():
        if rule.kind == "dictionary":
            out.update(((key, v), v in (rule.values or ())) for v in values)
        elif rule.dialect == "python":
            rx = regex.compile(str(rule.regex))
            out.update(((key, v), rx.fullmatch(v) is not None) for v in values)
        else:
            re2.append((rule, values))
    if not re2:
        return out
    con = duckdb.connect()
    try:
        for start in range(0, len(re2), _REGEX_BATCH):
            batch = re2[start : start + _REGEX_BATCH]
            rids = [k for k, (_, values) in enumerate(batch) for _ in values]
            words = [v for _, values in batch for v in values]
            pairs = {"rid": pa.array(rids, pa.int32()), "value": pa.array(words, pa.string())}
            con.register("pairs", pa.table(pairs))
            cases = " ".join(
                f"WHEN {k} THEN {_re2_full_match(rule)}" for k, (rule, _) in enumerate(batch)
            )
            for rid, value, ok in con.execute(
                f"SELECT rid, value, CASE rid {cases} END FROM pairs"
            ).fetchall():
                out[(batch[rid][0].key(), value)] = bool(ok)
            con.unregister("pairs")
    finally:
        con.close()
    return out


def count_rules(cases: Sequence[Case], rules: Iterable[Rule | None]) -> dict[tuple, Counts]:
    """Counts of every distinct rule on every column of B (full column and test part)."""
    counter = RuleCounter(cases)
    try:
        return dict(counter.count(rules))
    finally:
        counter.close()


def decide(rule: Rule, bad: int, n: int) -> bool:
    """Validate(X, rule) from X's counts: True if X passes."""
    if rule.decision == "strict":
        return bad == 0
    if rule.decision == "constraint":
        c = rule.constraint
        return _constraint_passes(c.test, c.alpha, c.train_nonconforming, c.train_n, bad, n)
    if rule.decision == "min_fraction":
        return n == 0 or (n - bad) / n >= rule.min_fraction
    raise ValueError(f"unknown decision {rule.decision!r}")


@lru_cache(maxsize=1 << 18)
def _constraint_passes(
    test: str, alpha: float, train_bad: int, train_n: int, bad: int, n: int
) -> bool:
    """The product's verdict (``drift_test``, as ``PatternConstraint.evaluate_counts`` calls it).

    Memoised on its inputs: recall asks the same Fisher test for many columns.
    """
    return not drift_test(train_bad, train_n, bad, n, test=test, alpha=alpha).drift


@dataclass(frozen=True)
class CaseScore:
    """Precision and recall of one method on one case (Eq. 17 with squashing)."""

    precision: int
    recall: float


def score(
    cases: Sequence[Case], rules: Sequence[Rule | None], counts: dict[tuple, Counts]
) -> list[CaseScore]:
    """Per-case precision and squashed recall of one method (``rules[i]`` for case i)."""
    n = len(cases)
    out = []
    for i, rule in enumerate(rules):
        if rule is None:
            out.append(CaseScore(1, 0.0))
            continue
        c = counts[rule.key()]
        if not decide(rule, c.bad_test[i], c.n_test[i]):
            out.append(CaseScore(0, 0.0))
            continue
        failed = sum(1 for j in range(n) if j != i and not decide(rule, c.bad_full[j], c.n_full[j]))
        out.append(CaseScore(1, failed / (n - 1) if n > 1 else 0.0))
    return out


def summarize(scores: Sequence[CaseScore], subset: Sequence[int] | None = None) -> dict[str, float]:
    """P, R (means over the cases) and F1 from them, over all cases or a subset."""
    chosen = [scores[i] for i in subset] if subset is not None else list(scores)
    if not chosen:
        return {"precision": float("nan"), "recall": float("nan"), "f1": float("nan"), "cases": 0}
    p = sum(s.precision for s in chosen) / len(chosen)
    r = sum(s.recall for s in chosen) / len(chosen)
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": p, "recall": r, "f1": f1, "cases": len(chosen)}
