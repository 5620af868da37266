"""The batch-validation evaluation's protocol and baselines (benchmarks/batch_validation.py)."""

from __future__ import annotations

import pandas as pd
import pytest

from benchmarks.batch_validation import (
    Score,
    binned_linf,
    ks_p_values,
    ks_rejects,
    linf,
    numeric_columns,
    read_text,
    timespans,
)


def test_timespans_are_reproducible_disjoint_and_labelled_at_random(dirty_clean):
    clean = read_text(dirty_clean / "hospital" / "clean.csv")
    dirty = read_text(dirty_clean / "hospital" / "dirty.csv", columns=list(clean.columns))
    assert list(dirty.columns) == list(clean.columns)  # renamed by position
    spans = timespans(clean, dirty, 20, 10)
    again = timespans(clean, dirty, 20, 10)
    assert [s.dirty for s in spans] == [s.dirty for s in again]
    assert 3 < sum(s.dirty for s in spans) < 17
    for span in spans:
        assert len(span.history) == 10 and all(len(b) == 90 for b in span.history)
        ids = {i for b in span.history for i in b["index"]}
        assert len(ids) == 900 and not ids & set(span.next_batch["index"])
        source = dirty if span.dirty else clean
        assert set(span.next_batch["index"]) <= set(source["index"])
        assert span.changed_cells > 0  # 41 % of hospital's rows have an error: 90 rows hold one


def test_linf_is_the_largest_difference_of_relative_frequencies():
    ref = pd.Series(["a", "a", "b", None])
    cur = pd.Series(["a", "b", "b", "c"])
    # ref: a 2/3, b 1/3; cur: a 1/4, b 1/2, c 1/4 -> max |2/3 - 1/4| = 5/12
    assert linf(ref, cur) == pytest.approx(5 / 12)
    assert linf(ref, pd.Series([None, None])) == 1.0
    assert linf(pd.Series([None]), pd.Series([None])) == 0.0


def test_binned_linf_uses_the_reference_deciles():
    ref = pd.Series([str(v) for v in range(100)])
    assert binned_linf(ref, ref) == 0.0
    shifted = pd.Series([str(v) for v in range(50, 150)])
    # the reference's top bin (above its 0.9 quantile, 89.1) holds 10 % of it and 60 % of
    # the shifted values (90 .. 149)
    assert binned_linf(ref, shifted) == pytest.approx(0.6 - 0.1)
    assert binned_linf(ref, pd.Series(["n/a"] * 5)) == 1.0


def test_ks_with_bonferroni():
    union = pd.DataFrame({"x": [str(v) for v in range(200)], "y": [str(v % 7) for v in range(200)]})
    same = pd.DataFrame(
        {"x": [str(v) for v in range(0, 200, 2)], "y": [str(v % 7) for v in range(100)]}
    )
    moved = same.assign(x=[str(v + 150) for v in range(100)])
    assert not ks_rejects(ks_p_values(union, same, ["x", "y"]))
    p = ks_p_values(union, moved, ["x", "y"])
    assert p["x"] < 0.05 / 2 and ks_rejects(p)
    assert ks_rejects({"x": None})  # the column lost every number
    assert not ks_rejects({})  # nothing numeric: nothing to reject


def test_numeric_columns_need_every_value_to_parse():
    history = [pd.DataFrame({"a": ["1", "2.5", None], "b": ["1", "x", "2"]})]
    assert numeric_columns(history) == ["a"]


def test_scores():
    s = Score()
    for dirty, rejected in [
        (True, True),
        (True, False),
        (False, True),
        (False, False),
        (True, True),
    ]:
        s.add(dirty, rejected)
    assert (s.tp, s.fn, s.fp, s.tn) == (2, 1, 1, 1)
    assert s.accuracy == 3 / 5 and s.f1 == pytest.approx(4 / 6)
