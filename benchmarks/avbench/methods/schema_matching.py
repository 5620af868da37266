"""Schema-matching baselines SM-I-1, SM-I-10, SM-P-M, SM-P-P: broaden train, then PWheel.

Song & He (§5.2) broaden ``C.train`` with the values of related columns of
the corpus T, found by vanilla schema matching, and run PWheel on the
result:

* instance-based, ``SM-I-k``: every corpus column sharing at least ``k``
  distinct values with ``C.train`` (k = 1, 10; we read the paper's "overlaps
  with more than 1 or 10 instances" as at least k, which the names
  SM-I-1/SM-I-10 suggest);
* pattern-based, ``SM-P-M`` / ``SM-P-P``: every corpus column whose
  majority pattern (held by more than half of its values) or plurality
  pattern (the most frequent one; ties go to the smallest pattern string)
  equals that of ``C.train``.  A value's pattern is its run shape: each
  maximal run of digits becomes one digit mark, each maximal run of letters
  one letter mark, every other character stays itself (the run cut of
  :mod:`.pwheel`).  Without a majority pattern SM-P-M finds no column.

The query column itself (same ``table_id`` and ``column_position``) is
excluded from its own broadened data: it is in T, and its test values would
otherwise leak into training.  Other columns of B stay in T, as in the paper.

To keep a run to minutes, each query uses at most ``MAX_COLUMNS`` matched
columns (SM-I: those with the most shared values, ties by corpus order;
SM-P: a pseudo-random choice, by a hash of the query and column ids) and at
most ``MAX_VALUES`` of their distinct values (by a hash of the value), each
weighted by its count in those columns; all of ``C.train`` is always kept.
Overlaps and patterns are computed in DuckDB over the lake's Parquet files.

References
----------
Song & He, SIGMOD 2021, §5.2 ("Schema-Matching"); Rahm & Bernstein, "A survey
of approaches to automatic schema matching", VLDB J. 2001.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pyarrow as pa

from benchmarks.avbench.methods.pwheel import structure_rule
from benchmarks.avbench.protocol import Case, Rule

__all__ = ["SchemaMatcher", "SchemaMatchingMethod", "VARIANTS"]

MAX_COLUMNS = 50
MAX_VALUES = 500
#: name -> (kind, parameter)
VARIANTS = {
    "sm-i-1": ("instance", 1),
    "sm-i-10": ("instance", 10),
    "sm-p-m": ("majority", 0),
    "sm-p-p": ("plurality", 0),
}

# digits -> \x01, letters -> \x02: the run shape of a value (same cut as pwheel._RUN)
_SHAPE = "regexp_replace(regexp_replace({v}, '[0-9]+', chr(1), 'g'), '\\p{{L}}+', chr(2), 'g')"


class SchemaMatcher:
    """The corpus side of schema matching: distinct values and patterns of every lake column.

    Parameters
    ----------
    lake
        Directory of the lake's Parquet files.
    cases
        The query set B.
    """

    def __init__(self, lake: Path, cases: Sequence[Case]):
        self.cases = list(cases)
        con = self.con = duckdb.connect()
        con.execute(
            "CREATE TABLE cols AS SELECT row_number() OVER (ORDER BY table_id, column_position) "
            "AS cid, table_id, column_position, values "
            f"FROM read_parquet('{lake}/*.parquet')"
        )
        con.execute(
            "CREATE TABLE lake_vals AS SELECT cid, v AS value, count(*) AS n FROM "
            "(SELECT cid, unnest(values) AS v FROM cols) WHERE v IS NOT NULL GROUP BY ALL"
        )
        own = pa.table(
            {
                "qid": pa.array([c.idx for c in cases], pa.int32()),
                "table_id": pa.array([c.table_id for c in cases], pa.string()),
                "column_position": pa.array([c.column_position for c in cases], pa.int32()),
            }
        )
        con.register("own_arrow", own)
        con.execute(
            "CREATE TABLE own AS SELECT o.qid, c.cid FROM own_arrow o JOIN cols c "
            "USING (table_id, column_position)"
        )
        con.unregister("own_arrow")
        con.execute("ALTER TABLE cols DROP COLUMN values")
        train: dict[tuple[int, str], int] = {}
        for c in cases:
            for v in c.train:
                train[(c.idx, v)] = train.get((c.idx, v), 0) + 1
        con.register(
            "train_arrow",
            pa.table(
                {
                    "qid": pa.array([k[0] for k in train], pa.int32()),
                    "value": pa.array([k[1] for k in train], pa.string()),
                    "n": pa.array(list(train.values()), pa.int64()),
                }
            ),
        )
        con.execute("CREATE TABLE train AS SELECT * FROM train_arrow")
        con.unregister("train_arrow")
        shape = _SHAPE.format(v="value")
        for table, key in (("lake_vals", "cid"), ("train", "qid")):
            con.execute(
                f"CREATE TABLE {table}_shapes AS SELECT {key}, {shape} AS shape, sum(n) AS n "
                f"FROM {table} GROUP BY ALL"
            )
            con.execute(
                f"CREATE TABLE {table}_top AS SELECT {key}, shape, n, total FROM ("
                f"SELECT {key}, shape, n, sum(n) OVER (PARTITION BY {key}) AS total, "
                f"row_number() OVER (PARTITION BY {key} ORDER BY n DESC, shape) AS rk "
                f"FROM {table}_shapes) WHERE rk = 1"
            )

    def close(self) -> None:
        """Release the DuckDB connection."""
        self.con.close()

    def _matches(self, kind: str, k: int) -> str:
        """SQL of (qid, cid) matched columns, at most MAX_COLUMNS per query, own column excluded."""
        if kind == "instance":
            return (
                "SELECT qid, cid FROM (SELECT t.qid, l.cid, row_number() OVER "
                "(PARTITION BY t.qid ORDER BY count(*) DESC, l.cid) AS rk "
                "FROM train t JOIN lake_vals l USING (value) "
                "WHERE NOT EXISTS (SELECT 1 FROM own o WHERE o.qid = t.qid AND o.cid = l.cid) "
                f"GROUP BY t.qid, l.cid HAVING count(*) >= {k}) WHERE rk <= {MAX_COLUMNS}"
            )
        majority = "WHERE 2 * n > total" if kind == "majority" else ""
        return (
            "SELECT qid, cid FROM (SELECT q.qid, l.cid, row_number() OVER "
            "(PARTITION BY q.qid ORDER BY hash(q.qid, l.cid)) AS rk "
            f"FROM (SELECT * FROM train_top {majority}) q "
            f"JOIN (SELECT * FROM lake_vals_top {majority}) l USING (shape) "
            "WHERE NOT EXISTS (SELECT 1 FROM own o WHERE o.qid = q.qid AND o.cid = l.cid)) "
            f"WHERE rk <= {MAX_COLUMNS}"
        )

    def broadened(self, variant: str) -> list[tuple[Counter, int]]:
        """Per case: train plus the sampled values of its matched columns, and the column count."""
        kind, k = VARIANTS[variant]
        self.con.execute(f"CREATE OR REPLACE TEMP TABLE matched AS {self._matches(kind, k)}")
        columns = dict(
            self.con.execute("SELECT qid, count(*) FROM matched GROUP BY qid").fetchall()
        )
        rows = self.con.execute(
            "SELECT qid, value, n FROM (SELECT m.qid, l.value, sum(l.n) AS n, row_number() OVER "
            "(PARTITION BY m.qid ORDER BY hash(l.value)) AS rk "
            "FROM matched m JOIN lake_vals l USING (cid) GROUP BY m.qid, l.value) "
            f"WHERE rk <= {MAX_VALUES}"
        ).fetchall()
        out = [(Counter(c.train), columns.get(c.idx, 0)) for c in self.cases]
        for qid, value, n in rows:
            out[qid][0][value] += int(n)
        return out


@dataclass
class SchemaMatchingMethod:
    """One SM variant: broadened data from a shared :class:`SchemaMatcher`, then PWheel."""

    name: str
    matcher: SchemaMatcher
    pattern_based: bool = True

    def fit_all(self, cases: Sequence[Case]) -> list[Rule | None]:
        """Rules for every case of B at once (the broadening is one DuckDB query)."""
        assert [c.idx for c in cases] == [c.idx for c in self.matcher.cases]
        return [
            structure_rule(values, f"[{n} cols] ")
            for values, n in self.matcher.broadened(self.name)
        ]
