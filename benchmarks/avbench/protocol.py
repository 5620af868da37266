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

Counting is done in DuckDB, one query per distinct regex (RE2; the product's
regexes mean the same there as in Python and Java) and one join for all
dictionary rules, over a table of every value of B.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

__all__ = [
    "Case",
    "Counts",
    "Rule",
    "eligible_columns",
    "load_queries",
    "count_rules",
    "decide",
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
        ``"regex"`` (``regex`` is fully anchored, RE2-compatible) or
        ``"dictionary"`` (``values`` are the allowed strings).
    decision
        How counts become a verdict: ``"strict"`` (fail on any non-conforming
        value), ``"min_fraction"`` (fail when the conforming fraction is below
        ``min_fraction``: Deequ's compliance constraint), or ``"constraint"``
        (the product's own decision, ``constraint.evaluate_counts``: the
        paper's §4 Fisher test for FMDV-H/VH, strict for FMDV/FMDV-V).
    description
        The rule as people read it, for the per-case CSV.
    match_anything
        The rule accepts every value (does not count as a pattern rule for
        the applicable subset).
    """

    kind: str
    description: str
    regex: str | None = None
    values: frozenset[str] | None = None
    decision: str = "strict"
    min_fraction: float = 0.0
    constraint: Any = None
    match_anything: bool = False

    def key(self) -> tuple:
        """Identity of what must be counted (rules sharing it share the counts)."""
        if self.kind == "regex":
            return ("regex", self.regex)
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


def _values_table(cases: Sequence[Case]) -> pa.Table:
    col, part, value = [], [], []
    for c in cases:
        for k, v in enumerate(c.values):
            col.append(c.idx)
            part.append(k >= c.n_train)
            value.append(v)
    return pa.table(
        {"col": pa.array(col, pa.int32()), "is_test": pa.array(part), "value": pa.array(value)}
    )


def count_rules(cases: Sequence[Case], rules: Iterable[Rule]) -> dict[tuple, Counts]:
    """Counts of every distinct rule on every column of B (full column and test part)."""
    n = len(cases)
    con = duckdb.connect()
    con.register("vals_arrow", _values_table(cases))
    con.execute("CREATE TABLE vals AS SELECT * FROM vals_arrow").fetchall()
    totals = con.execute(
        "SELECT col, count(*), count(*) FILTER (WHERE is_test) FROM vals GROUP BY col"
    ).fetchall()
    n_full = [0] * n
    n_test = [0] * n
    for c, a, b in totals:
        n_full[c], n_test[c] = a, b
    distinct: dict[tuple, Rule] = {}
    for rule in rules:
        distinct.setdefault(rule.key(), rule)
    out: dict[tuple, Counts] = {}
    dictionaries = [(k, r) for k, r in distinct.items() if r.kind == "dictionary"]
    for key, rule in distinct.items():
        if rule.kind != "regex":
            continue
        literal = "'" + rule.regex.replace("'", "''") + "'"
        rows = con.execute(
            f"SELECT col, count(*) FILTER (WHERE NOT regexp_full_match(value, {literal})), "
            f"count(*) FILTER (WHERE is_test AND NOT regexp_full_match(value, {literal})) "
            "FROM vals GROUP BY col"
        ).fetchall()
        out[key] = _counts(rows, n, n_full, n_test)
    if dictionaries:
        ids, words = [], []
        for rid, (_, rule) in enumerate(dictionaries):
            for w in rule.values:
                ids.append(rid)
                words.append(w)
        con.register("dict_arrow", pa.table({"rid": pa.array(ids, pa.int32()), "value": words}))
        matched = con.execute(
            "SELECT d.rid, v.col, count(*), count(*) FILTER (WHERE v.is_test) "
            "FROM vals v JOIN dict_arrow d ON v.value = d.value GROUP BY ALL"
        ).fetchall()
        per_rule: dict[int, list[tuple[int, int, int]]] = {}
        for rid, col, a, b in matched:
            per_rule.setdefault(rid, []).append((col, a, b))
        for rid, (key, _) in enumerate(dictionaries):
            good_full = [0] * n
            good_test = [0] * n
            for col, a, b in per_rule.get(rid, []):
                good_full[col], good_test[col] = a, b
            rows = [(j, n_full[j] - good_full[j], n_test[j] - good_test[j]) for j in range(n)]
            out[key] = _counts(rows, n, n_full, n_test)
    con.close()
    return out


def _counts(rows, n, n_full, n_test) -> Counts:
    bad_full = [0] * n
    bad_test = [0] * n
    for col, a, b in rows:
        bad_full[col], bad_test[col] = a, b
    return Counts(bad_full, list(n_full), bad_test, list(n_test))


def decide(rule: Rule, bad: int, n: int) -> bool:
    """Validate(X, rule) from X's counts: True if X passes."""
    if rule.decision == "strict":
        return bad == 0
    if rule.decision == "constraint":
        return rule.constraint.evaluate_counts(bad, n).passed
    if rule.decision == "min_fraction":
        return n == 0 or (n - bad) / n >= rule.min_fraction
    raise ValueError(f"unknown decision {rule.decision!r}")


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
