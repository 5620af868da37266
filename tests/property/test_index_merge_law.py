"""The index merge law: merge(build(L1), ..., build(Lk)) == build(L1 ∪ ... ∪ Lk), per pattern.

On partitions of real columns of ``../shared/lake-mini`` chosen by
hypothesis, with the in-process builder (the Spark build's merge is checked in
tests/integration/test_index_merge.py). ``cov`` must be equal, the other sums
(``imp_sum``, the conditional sums) and ``fpr`` equal up to float summation order.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autovalidate.index.merge import merge_indexes
from autovalidate.index.publish import open_version
from autovalidate.index.reader import PatternIndex
from autovalidate.index.schema import SUM_COLUMNS
from autovalidate.index.state import write_local_index

#: Every 15th column of lake-mini: 122 real columns of all sources, ~1.5 s to index.
STEP = 15


#: The float sums of a pattern row, then ``fpr``.
FLOATS = [c for c in SUM_COLUMNS if c != "cov"] + ["fpr"]


def pattern_rows(index: Path) -> dict[str, tuple]:
    """pattern -> (pattern_id, cov, *FLOATS), read from the index's files.

    The files of the version an index directory points to, when it was
    published over an older one (autovalidate.index.publish).
    """
    lease = open_version(index)
    try:
        rows = (
            duckdb.connect()
            .execute(
                f"SELECT pattern, pattern_id, cov, {', '.join(FLOATS)} "
                f"FROM read_parquet('{lease.path}/patterns/*.parquet')"
            )
            .fetchall()
        )
    finally:
        lease.close()
    return {r[0]: r[1:] for r in rows}


def assert_same_index(merged: Path, whole: Path) -> None:
    got, want = pattern_rows(merged), pattern_rows(whole)
    assert got.keys() == want.keys()
    for pattern, (pid, cov, *floats) in want.items():
        g = got[pattern]
        assert (g[0], g[1]) == (pid, cov), pattern
        assert list(g[2:]) == pytest.approx(floats, rel=1e-9, abs=1e-9), pattern


@pytest.fixture(scope="module")
def pool(lake_mini) -> list[list[str | None]]:
    table = pq.read_table(next(lake_mini.glob("*.parquet")), columns=["values"])
    return table.column(0).to_pylist()[::STEP]


@pytest.fixture(scope="module")
def whole(pool, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("whole") / "index"
    write_local_index(pool, out, corpus_path="pool")
    return out


@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_merge_of_builds_is_the_build_of_the_union(pool, whole, tmp_path_factory, data):
    parts = data.draw(st.integers(2, 3), label="parts")
    assignment = data.draw(
        st.lists(st.integers(0, parts - 1), min_size=len(pool), max_size=len(pool)),
        label="assignment",
    )
    nested = data.draw(st.booleans(), label="nested")
    tmp = tmp_path_factory.mktemp("parts")
    inputs = []
    for k in range(parts):
        columns = [c for c, a in zip(pool, assignment, strict=True) if a == k]
        write_local_index(columns, tmp / f"p{k}", corpus_path=f"lake{k}")  # may be empty
        inputs.append(tmp / f"p{k}")
    if nested and parts == 3:  # (p0 + p1) + p2: merges of merges
        merge_indexes(inputs[:2], tmp / "p01")
        inputs = [tmp / "p01", inputs[2]]
    merged = merge_indexes(inputs, tmp / "merged")
    assert_same_index(tmp / "merged", whole)
    with PatternIndex.open(tmp / "merged") as index, PatternIndex.open(whole) as ref:
        assert index.size() == ref.size() == merged.patterns
        for key in ("columns", "columns_indexed", "values"):
            assert index.metadata.corpus[key] == ref.metadata.corpus[key]
        assert index.metadata.build["rungs"] == ref.metadata.build["rungs"]
        assert [lake["path"] for lake in index.metadata.corpus["lakes"]] == [
            f"lake{k}" for k in range(parts)
        ]
        sample = list(pattern_rows(whole))[:: max(1, ref.size() // 50)]
        got, want = index.lookup(sample), ref.lookup(sample)
        assert {p: s.cov for p, s in got.items()} == {p: s.cov for p, s in want.items()}
        assert all(got[p].fpr == pytest.approx(s.fpr, abs=1e-12) for p, s in want.items())
