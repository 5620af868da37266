"""The seeded sample a pattern is inferred from, and the column streamed to it (issue 35)."""

from __future__ import annotations

from collections import Counter

import pyarrow as pa
import pyarrow.parquet as pq

from autovalidate import suggest_pattern
from autovalidate.pattern_inference import _Reservoir


def test_a_stream_no_larger_than_the_reservoir_is_kept_whole_in_order():
    reservoir = _Reservoir(5, seed=0)
    reservoir.extend(["a", "b", "c"])
    reservoir.extend(["d", "e"])
    assert reservoir.values == ["a", "b", "c", "d", "e"] and not reservoir.sampled
    unbounded = _Reservoir(None, seed=0)
    unbounded.extend([str(i) for i in range(1000)])
    assert len(unbounded.values) == 1000 and not unbounded.sampled


def test_the_sample_does_not_depend_on_how_the_stream_is_cut():
    values = [str(i) for i in range(20_000)]
    whole = _Reservoir(500, seed=0)
    whole.extend(values)
    cut = _Reservoir(500, seed=0)
    for start in range(0, len(values), 777):
        cut.extend(values[start : start + 777])
    assert whole.sampled and whole.seen == 20_000
    assert cut.values == whole.values and len(set(whole.values)) == 500
    other = _Reservoir(500, seed=1)
    other.extend(values)
    assert other.values != whole.values


def test_every_value_is_as_likely_to_be_sampled():
    seen: Counter[str] = Counter()
    for seed in range(2000):
        reservoir = _Reservoir(10, seed)
        reservoir.extend([str(i) for i in range(100)])
        seen.update(reservoir.values)
    # each value is in 10 % of the samples: 200 of 2000, binomial sd 13.4
    assert len(seen) == 100 and all(140 < n < 260 for n in seen.values())
    late = sum(seen[str(i)] for i in range(90, 100))
    assert 1700 < late < 2300  # the last values of the stream too


def test_a_table_column_is_streamed_to_the_same_constraint_as_its_values(small_index, tmp_path):
    triples = [f"{i % 97},{(i * 7) % 89},{(i * 3) % 71}" for i in range(2000)]
    train = triples + ["x"] * 40 + [None, "NA"]
    path = tmp_path / "train.parquet"
    pq.write_table(pa.table({"t": train, "n": list(range(len(train)))}), path)
    options = {"method": "fmdv-h", "r": 0.2, "m": 5, "max_values": 500}
    listed = suggest_pattern(train, small_index, column="t", **options)
    streamed = suggest_pattern(str(path), small_index, column="t", **options)
    assert listed is not None and listed.params["inferred_from"] == 500
    assert streamed == listed
    assert streamed.train_n == 2040 and streamed.train_nonconforming == 40
