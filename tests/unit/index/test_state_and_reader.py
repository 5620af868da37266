import itertools
import json

import pytest

from autovalidate.errors import IndexNotFoundError, IndexSchemaError, IndexVersionError
from autovalidate.index.reader import PatternIndex
from autovalidate.index.schema import METADATA_FILE, pattern_id
from autovalidate.index.state import IndexAccumulator, write_local_index
from autovalidate.index.stats import CONDITION_SIZES, SHORT_BOUNDS, PatternStats

H5 = "<digit>+:<digit>{2}:<digit>{2} <letter>{2}"


def test_paper_example8_fpr_aggregation(tmp_path):
    # 5000 columns match h5; 4800 have FPR_D = 0 and 200 have FPR_D = 1%: FPR_T = 0.04%.
    # (Scaled down 100x: 48 pure columns, 2 with one non-matching value in 100.)
    pure = ["10:02:20 AM"] * 100
    dirty = ["10:02:20 AM"] * 99 + ["unknown"]
    out = tmp_path / "idx"
    write_local_index([pure] * 48 + [dirty] * 2, out, budget=10**6, ladder=(0.0,))
    with PatternIndex.open(out) as idx:
        stats = idx.lookup([H5])[H5]
    assert stats.cov == 50
    assert stats.fpr == pytest.approx(0.0004)


def test_null_tokens_are_missing_values_not_impurity(tmp_path):
    # "n/a", "NA", "" and "  " are missing (autovalidate.nulls): they count neither in |D|
    # nor against a pattern, so these columns are as pure as the 100 times
    col = ["10:02:20 AM"] * 96 + ["n/a", "NA", "", "  "]
    out = tmp_path / "idx"
    write_local_index([col] * 3, out, budget=10**6, ladder=(0.0,))
    with PatternIndex.open(out) as idx:
        stats = idx.lookup([H5, "<upper>{2}", "NA"])
    assert stats[H5].cov == 3 and stats[H5].fpr == 0.0
    assert "<upper>{2}" not in stats and "NA" not in stats


def test_accumulators_merge_like_one():
    cols = [["a-1", "b-2"], ["A-1", "x"], ["12", "1.5", None], ["a-1"] * 3]
    one = IndexAccumulator()
    for c in cols:
        one.add_column(c)
    left, right = IndexAccumulator(), IndexAccumulator()
    for c in cols[:2]:
        left.add_column(c)
    for c in cols[2:]:
        right.add_column(c)
    merged = right.merge(left)  # order does not matter
    assert merged.sums.keys() == one.sums.keys()
    for p, (cov, *floats) in one.sums.items():
        assert merged.sums[p][0] == cov and merged.sums[p][1:] == pytest.approx(floats)
    assert merged.stats() == one.stats()


def test_lookup_ignores_unknown_and_checks_strings(tmp_path):
    out = tmp_path / "idx"
    write_local_index([["ab", "cd"], ["AB"]], out)
    with PatternIndex.open(out) as idx:
        found = idx.lookup(["<lower>{2}", "<lower>{2}", "nope", "<letter>{2}"])
        assert set(found) == {"<lower>{2}", "<letter>{2}"}
        assert found["<letter>{2}"].cov == 2
        assert idx.size() > 0 and idx.tau == 8
    assert pattern_id("<lower>{2}") == pattern_id("<lower>{2}") != pattern_id("<upper>{2}")


def test_missing_partial_and_incompatible_indexes_are_refused(tmp_path):
    with pytest.raises(IndexNotFoundError):
        PatternIndex.open(tmp_path / "nothing")
    partial = tmp_path / "partial"
    (partial / "patterns").mkdir(parents=True)  # a killed build: files but no metadata
    with pytest.raises(IndexNotFoundError):
        PatternIndex.open(partial)
    out = tmp_path / "idx"
    write_local_index([["ab"]], out)
    meta = json.loads((out / METADATA_FILE).read_text())
    (out / METADATA_FILE).write_text(json.dumps({**meta, "hierarchy_version": 999}))
    with pytest.raises(IndexVersionError):
        PatternIndex.open(out)
    (out / METADATA_FILE).write_text("{not json")
    with pytest.raises(IndexSchemaError):
        PatternIndex.open(out)


def test_local_writer_refuses_to_overwrite(tmp_path):
    from autovalidate.errors import IndexBuildError

    out = tmp_path / "idx"
    write_local_index([["ab"]], out)
    with pytest.raises(IndexBuildError):
        write_local_index([["ab"]], out)


def test_lookup_on_files_removed_after_open_raises_an_index_error(tmp_path):
    out = tmp_path / "idx"
    write_local_index([["ab", "cd"], ["AB"]], out)
    with PatternIndex.open(out, in_memory=False) as idx:
        for part in (out / "patterns").rglob("*.parquet"):
            part.unlink()
        with pytest.raises(IndexSchemaError):
            idx.lookup(["<lower>{2}"])
        with pytest.raises(IndexSchemaError):
            idx.size()


def test_fpr_prior_shrinks_thin_evidence_and_fades_with_coverage():
    from autovalidate.index.stats import FprPrior, PatternStats

    prior = FprPrior(mean=0.2, strength=2.0)
    # two impure columns: neither trusted (0.5) nor dismissed
    assert prior.estimate(PatternStats(0.5, 2)) == pytest.approx((1.0 + 0.4) / 4)
    # thousands of columns: Eq. 4 itself
    assert prior.estimate(PatternStats(0.5, 5000)) == pytest.approx(0.5, abs=1e-3)
    assert FprPrior(0.2, 0.0).estimate(PatternStats(0.5, 2)) == 0.5


def conditional_stats(imps: list[float]) -> PatternStats:
    """The statistics an index keeps of a pattern whose corpus columns have impurities ``imps``."""
    from autovalidate.index.schema import column_state

    sums = [sum(x) for x in zip(*(column_state(i) for i in imps), strict=True)]
    k = len(CONDITION_SIZES)
    pairs = zip(sums[2 : 2 + k], sums[2 + k : 2 + 2 * k], strict=True)
    return PatternStats(sums[1] / sums[0], int(sums[0]), tuple(x for pair in pairs for x in pair))


def test_conditional_estimate_discounts_columns_unlike_the_training_column():
    from autovalidate.index.stats import FprPrior

    prior = FprPrior(mean=0.3, strength=4.0)
    # half the corpus columns are pure, half mix in 40% other values (a length
    # that varies): Eq. 4 says 0.2, but 30 distinct conforming training values
    # are unlikely from a column of the impure kind (0.6^30)
    stats = conditional_stats([0.0] * 50 + [0.4] * 50)
    unconditional = prior.estimate(stats)
    assert unconditional == pytest.approx((20 + 4 * 0.3) / 104)
    at = {n: prior.estimate(stats, n) for n in (1, 3, 5, 10, 30, 100, 10**6)}
    assert at[1] < unconditional
    sizes = sorted(at)
    assert all(at[a] >= at[b] for a, b in itertools.pairwise(sizes))
    assert at[30] < 0.01 and at[10**6] == at[100]
    # corpus columns impure at the rate the training column could hide (1%) stay counted
    slight = conditional_stats([0.01] * 100)
    assert prior.estimate(slight, 100) == pytest.approx(0.01, rel=0.05)
    # one pure corpus column and no more: the prior keeps n = 1 from trusting it
    assert prior.estimate(conditional_stats([0.0]), 1) > 0.1
    # statistics without the sums: the unconditional estimate, whatever n
    assert prior.estimate(PatternStats(stats.fpr, stats.cov), 30) == unconditional


def test_fpr_prior_is_fitted_on_the_index_by_moments(tmp_path):
    # 120 distinct two-letter codes, each the constant of 25 columns (so Cov_T >= 20),
    # 5 of which pure and 20 with a fifth of their values outside the code
    cols = []
    for i in range(120):
        code = chr(65 + i // 26) + chr(97 + i % 26) + "Q"
        impure = [code] * 8 + [f"x{i}"] * 2
        cols += [[code] * 10] * (5 + i % 3) + [impure] * 20
    out = tmp_path / "idx"
    write_local_index(cols, out, budget=10**6, ladder=(0.0,))
    with PatternIndex.open(out) as idx:
        prior = idx.prior
        con = idx._con
        fprs = [r[0] for r in con.execute("SELECT fpr FROM patterns WHERE cov >= 20").fetchall()]
    mean = sum(fprs) / len(fprs)
    var = sum((f - mean) ** 2 for f in fprs) / len(fprs)
    assert prior.mean == pytest.approx(mean)
    assert prior.strength == pytest.approx(max(0.0, mean * (1 - mean) / var - 1))
    assert prior.strength > 0


def test_the_prior_has_the_same_bits_whatever_the_order_of_the_pattern_rows(tmp_path):
    # DuckDB's avg/var_pop summed in the order the rows came: the prior, and so
    # every estimate, moved in its last bits from one query to the next
    import math
    import random

    import pyarrow.parquet as pq

    cols = []
    for i in range(150):
        code = chr(65 + i // 26) + chr(97 + i % 26) + "Q"
        impure = [code] * (3 + i % 7) + [f"x{i}"] * (1 + i % 5)
        cols += [[code] * 10] * (1 + i % 4) + [impure] * 20
    out = tmp_path / "idx"
    write_local_index(cols, out, budget=10**6, ladder=(0.0,))
    (part,) = (out / "patterns").glob("*.parquet")
    table = pq.read_table(part)
    pairs = zip(table["fpr"].to_pylist(), table["cov"].to_pylist(), strict=True)
    fprs = [f for f, c in pairs if c >= 20]
    exact = math.fsum(fprs) / len(fprs)
    priors = set()
    for seed in range(4):
        order = list(range(table.num_rows))
        random.Random(seed).shuffle(order)
        pq.write_table(table.take(order), part, row_group_size=37)  # many small groups
        for in_memory in (True, False):
            with PatternIndex.open(out, in_memory=in_memory) as idx:
                priors.add(idx.prior)
    assert len(priors) == 1
    assert priors.pop().mean == exact


def test_no_prior_on_an_index_too_small_to_fit_one(tmp_path):
    out = tmp_path / "idx"
    write_local_index([["a-1", "b-2"]] * 3, out, budget=10**6, ladder=(0.0,))
    with PatternIndex.open(out) as idx:
        assert idx.prior.strength == 0.0


def test_warm_binary_search_equals_the_cold_duckdb_join(tmp_path):
    out = tmp_path / "idx"
    columns = [["ab", "cd"], ["AB"], ["2019-01-02", "2020-12-31"], ["x1", "y22", "z333"]]
    write_local_index(columns, out)
    with PatternIndex.open(out, in_memory=False) as cold:
        ((patterns,),) = cold._con.execute("SELECT list(pattern) FROM patterns").fetchall()
        wanted = [*patterns, "nope", "<digit>{99}", patterns[0]]
        expected = cold.lookup(wanted)
        size, prior = cold.size(), cold.prior
    with PatternIndex.open(out) as warm:
        assert warm.lookup(wanted) == expected and len(expected) == len(patterns)
        assert warm.size() == size and warm.prior == prior
        assert warm.lookup([]) == {} and warm.lookup(["nope"]) == {}


def test_warm_lookup_tells_apart_patterns_whose_ids_collide(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = tmp_path / "idx"
    write_local_index([["ab", "cd"]], out)
    meta = json.loads((out / METADATA_FILE).read_text())
    shared = pattern_id("<lower>{2}")
    rows = {  # decoys under the id of <lower>{2} (forged collisions), one pattern elsewhere
        "pattern_id": [shared, shared, shared, pattern_id("<upper>{2}")],
        "pattern": ["zz", "<lower>{2}", "yy", "<upper>{2}"],
        "cov": [2, 1, 3, 4],
        "imp_sum": [0.0, 0.0, 0.0, 0.0],
        **{f"pure_sum_{n}": [2.0, 1.0, 3.0, 4.0] for n in CONDITION_SIZES},
        **{f"imp_sum_{n}": [0.0, n / 1000, 0.0, n / 100] for n in CONDITION_SIZES},
        **{f"short_cov_{k}": [7, 1, 9, 0] if k == 2 else [0] * 4 for k in SHORT_BOUNDS},
        **{f"short_sum_{k}": [0.7, 0.5, 0.9, 0.0] if k == 2 else [0.0] * 4 for k in SHORT_BOUNDS},
        "fpr": [0.5, 0.0, 0.25, 0.0],
    }
    for part in (out / "patterns").glob("*.parquet"):
        part.unlink()
    pq.write_table(pa.table(rows), out / "patterns" / "part-0.parquet")
    (out / METADATA_FILE).write_text(json.dumps({**meta, "patterns": 4}))
    for in_memory in (True, False):
        with PatternIndex.open(out, in_memory=in_memory) as idx:
            found = idx.lookup(["<lower>{2}", "<upper>{2}", "<letter>{2}", "zz"])
            assert {p: s.cov for p, s in found.items()} == {"<lower>{2}": 1, "<upper>{2}": 4}
            # the conditional sums come from the same row as the rest, size by size
            assert {p: s.conditional for p, s in found.items()} == {
                "<lower>{2}": tuple(x for n in CONDITION_SIZES for x in (1.0, n / 1000)),
                "<upper>{2}": tuple(x for n in CONDITION_SIZES for x in (4.0, n / 100)),
            }
            # so do the run-length sums; a pattern without any is absent
            short = idx.shortfall(["<lower>{2}", "<upper>{2}", "zz"])
            assert list(short) == ["<lower>{2}"]
            assert short["<lower>{2}"].cov[0] == 1 and short["<lower>{2}"].total[0] == 0.5
