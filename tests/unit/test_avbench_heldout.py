"""AV-bench's held-out machinery: B-M, leave-source-out folds, slices, noise and calibration."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binom

from benchmarks.avbench import folds, noise
from benchmarks.avbench.calibration import MIN_RULES, calibration, poisson_binomial
from benchmarks.avbench.protocol import (
    CaseScore,
    Counts,
    Rule,
    load_machine_queries,
    repetitive,
)

SHARED = Path(__file__).resolve().parents[3] / "shared"
MACHINE = SHARED / "avbench-machine" / "cases.parquet"


@pytest.mark.skipif(not MACHINE.is_file(), reason="needs ../shared/avbench-machine")
def test_machine_queries_split_like_b():
    cases = load_machine_queries(MACHINE)
    assert len(cases) == 600
    assert [c.idx for c in cases] == list(range(600))
    for c in cases:
        assert None not in c.values
        assert c.n_train == math.ceil(len(c.values) / 10)
        assert c.train + c.test == list(c.values)
    # the README's promise: none of B-M's sources is a source of the lake
    lake_sources = {s for fold in folds.source_folds(SHARED / "lake") for s in fold}
    assert not {c.source for c in cases} & lake_sources
    few = repetitive(cases)
    assert few and len(few) < len(cases)
    assert all(len(set(cases[i].train)) <= 3 for i in few)


def _lake(tmp_path: Path, sources: list[str]) -> Path:
    lake = tmp_path / "lake"
    lake.mkdir()
    for s in sources:
        for part in ("000", "001"):
            (lake / f"{s.replace('/', '+', 1)}-{part}.parquet").write_bytes(b"x")
    (lake / "_SOURCES.md").write_text("metadata, not a source")
    return lake


def test_source_folds_partition_the_sources_and_fold_lakes_leave_one_out(tmp_path):
    sources = [f"owner{i}/repo-{i}" for i in range(7)]
    lake = _lake(tmp_path, sources)
    split = folds.source_folds(lake, k=3, seed=0)
    assert sorted(s for fold in split for s in fold) == sorted(sources)
    assert [len(f) for f in split] == [3, 2, 2]
    assert split == folds.source_folds(lake, k=3, seed=0)  # seeded
    where = folds.fold_of(split)
    out = folds.fold_lake(lake, split[1], tmp_path / "fold")
    linked = {p.name for p in out.glob("*.parquet")}
    for s in sources:
        names = {f"{s.replace('/', '+', 1)}-000.parquet", f"{s.replace('/', '+', 1)}-001.parquet"}
        assert (names <= linked) == (where[s] != 1), s
    # a second call for another fold replaces the links
    out = folds.fold_lake(lake, split[0], tmp_path / "fold")
    assert not any(p.name.startswith(split[0][0].replace("/", "+")) for p in out.glob("*"))


def _scores(precision: list[int], recall: list[float]) -> list[CaseScore]:
    return [CaseScore(p, r) for p, r in zip(precision, recall, strict=True)]


def test_bootstrap_interval_covers_the_estimate_and_narrows_with_more_columns():
    small = _scores([1, 0] * 20, [0.5, 0.0] * 20)
    large = _scores([1, 0] * 500, [0.5, 0.0] * 500)
    a, b = noise.interval(small), noise.interval(large)
    for band in (a, b):
        assert band["precision"][0] < 0.5 < band["precision"][1]
    assert b["precision"][1] - b["precision"][0] < a["precision"][1] - a["precision"][0]


def test_paired_difference_sees_a_change_beyond_noise_and_not_a_shuffle():
    old = _scores([1] * 300, [0.5] * 300)
    better = _scores([1] * 300, [0.5] * 250 + [0.9] * 50)
    diff = noise.paired(better, old)
    assert diff["recall"]["diff"] == pytest.approx(50 * 0.4 / 300)
    assert diff["recall"]["interval"][0] > 0
    assert diff["f1"]["interval"][0] > 0
    assert diff["precision"]["interval"] == [0.0, 0.0]
    # the same columns' scores in another order: no paired difference at all,
    # while an unpaired comparison would see two samples that differ by chance
    same = noise.paired(better, better)
    assert same["f1"]["interval"] == [0.0, 0.0]
    with pytest.raises(ValueError):
        noise.paired(better, old[:-1])


@dataclass
class _Constraint:
    fpr: float


def _rule(i: int, fpr: float) -> Rule:
    return Rule("regex", f"r{i}", regex=f"r{i}", decision="constraint", constraint=_Constraint(fpr))


def test_calibration_deciles_compare_the_estimate_with_the_failure_rate():
    n = 10 * MIN_RULES
    rules = [_rule(i, (i // MIN_RULES) / 100) for i in range(n)] + [None]
    # the rules of decile q fail q times in 30: a failure rate of q / 30, estimate q / 100
    precision = [0 if i % MIN_RULES < i // MIN_RULES else 1 for i in range(n)] + [1]
    counts = {
        rules[i].key(): Counts(
            [0] * (n + 1), [10] * (n + 1), [2 if i % 2 else 0] * (n + 1), [10] * (n + 1)
        )
        for i in range(n)
    }
    cal = calibration(rules, precision, counts)
    assert cal["rules"] == n
    assert [d["rules"] for d in cal["deciles"]] == [MIN_RULES] * 10
    for q, d in enumerate(cal["deciles"]):
        assert d["estimate"] == pytest.approx(q / 100)
        assert d["failed"] == pytest.approx(q / MIN_RULES)
        assert d["judged"]
        assert d["calibrated"] == (abs(q / 100 - q / MIN_RULES) <= 0.05)
        assert 0.0 <= d["nonconforming"] <= 0.2
    assert cal["calibrated"] is False  # decile 9: 0.09 estimated, 0.3 failed


def test_calibration_keeps_ties_in_one_decile_and_judges_none_when_small():
    rules = [_rule(i, 0.0 if i < 7 else 0.1) for i in range(10)]
    counts = {r.key(): Counts([0] * 10, [5] * 10, [0] * 10, [5] * 10) for r in rules}
    cal = calibration(rules, [1] * 10, counts)
    assert [d["rules"] for d in cal["deciles"]] == [7, 3]
    assert cal["calibrated"] is None


def test_poisson_binomial_is_the_binomial_for_equal_trials_and_exact_at_the_edges():
    pmf = poisson_binomial([0.07] * 45)
    assert pmf == pytest.approx(binom.pmf(range(46), 45, 0.07), abs=1e-15)
    mixed = poisson_binomial([0.0, 1.0, 0.5])
    assert mixed.tolist() == [0.0, 0.5, 0.5, 0.0]
    assert poisson_binomial([0.01 * i for i in range(90)]).sum() == pytest.approx(1.0)


def test_calibration_says_how_likely_each_decile_is_under_a_calibrated_estimate():
    n = 10 * MIN_RULES
    rules = [_rule(i, (i // MIN_RULES) / 100) for i in range(n)]
    precision = [0 if i % MIN_RULES < i // MIN_RULES else 1 for i in range(n)]
    counts = {r.key(): Counts([0] * n, [10] * n, [0] * n, [10] * n) for r in rules}
    cal = calibration(rules, precision, counts)
    first, last = cal["deciles"][0], cal["deciles"][-1]
    # estimate 0 and no failure: the only outcome, and it is within the tolerance
    assert first["p_value"] == pytest.approx(1.0) and first["pass_chance"] == pytest.approx(1.0)
    # estimate 0.09 and 9 failures in 30: far beyond a calibrated estimate's noise
    assert last["p_value"] < 1e-3
    # 30 rules at 0.09: failures within 0.05 of it are 2 or 3 or 4 (0.04 <= k/30 <= 0.14)
    assert last["pass_chance"] == pytest.approx(binom.cdf(4, 30, 0.09) - binom.cdf(1, 30, 0.09))
    judged = [d["pass_chance"] for d in cal["deciles"] if d["judged"]]
    assert cal["pass_chance"] == pytest.approx(float(np.prod(judged)))
    assert 0.0 < cal["pass_chance"] < 1.0
