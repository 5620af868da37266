"""Recurring-pipeline benchmark: AVH programs against forecasts and Deequ's anomaly strategies.

Usage::

    python3 benchmarks/avh_pipelines.py [--reps 4] [--tables 6]
    python3 benchmarks/avh_pipelines.py --write-batches DIR --days 8   # the docs' batches

Pipelines (real public data in ``../shared``):

* ``nycflights`` (``../shared/lake``, Rdatasets ``openintro/nycflights.csv``;
  the lake keeps 1000 of its rows): time-partitioned, one batch per week of
  2013 (from ``month`` and ``day``), in time order; weeks 0-29 are the
  history, weeks 30-52 are tested;
* ``flights`` (Redyuk et al. 2020's own experiment: ``../shared/dirty-clean/flights``):
  the rows permuted by ``numpy.random.default_rng(rep)`` and cut into batches
  of 50 rows; the first 25 are the history, the rest are tested; a tested
  batch's rows taken from ``dirty.csv`` are a real issue ("dirty rows");
* ``--tables`` lake tables: those with 1000 stored rows and 6 to 12 columns,
  taken in the order of the SHA-256 of their ``table_id`` (a fixed
  pseudo-random order nobody chose); rows permuted per ``rep`` and cut into
  batches of 25 rows; the first 25 batches are the history.

Every tested batch is validated twice: as it is (a clean trial) and with one
injected issue (an issue trial). Issue kinds, drawn in turn, their
parameters drawn by ``numpy.random.default_rng`` (unrelated to the
product's synthetic issues in ``autovalidate.monitor.avh_batches``, whose
parameters are fixed): schema change (a column renamed), unit change (a
numeric column times one of 0.001, 0.01, 1.609, 2.2046, 100, 1000), missing
values (10-50 % of a column nulled), duplicated rows (20-100 % of the rows
again), truncated strings (a text column cut to 1 .. its median length - 1
characters), category drift (a column with at most 50 distinct values resampled
with weights inverse to the frequencies), string format change (separators
``-`` ``:`` ``.`` ``/`` and spaces swapped, letters' case swapped).

Methods, all on the same history (the statistics
:func:`autovalidate.monitor.avh_batches.record_avh_batch` records: the
conformance to Auto-Validate patterns learned from the first history batch's
text columns included):

* ``avh@delta`` for delta in 0.01, 0.05, 0.1: one program per history
  (:func:`~autovalidate.monitor.avh_batches.fit_program`, synthetic issues from the
  newest history batch), pinned and run on every tested batch; a history
  without variation gets the rank bound (``zero_variance="rank"``, the default);
* ``avh-plugin@delta``: the same with ``zero_variance="plugin"`` (the
  plug-in estimate sigma = 0: "stays equal" priced at any requested bound;
  see :mod:`autovalidate.anomaly.avh`), so the two treatments are compared on
  the same trials;
* ``autovalidate-patterns``: Auto-Validate patterns alone (Song & He 2021):
  for every column, :func:`autovalidate.suggest_pattern` (default index,
  default ``fmdv-vh``) trained on the whole history's values; a tested batch
  is rejected when a column's Fisher drift test fails (alpha 0.01, the
  default) or a column with a pattern is gone;
* ``redyuk (validate-batch)``: today's ``validate-batch`` (exponential
  smoothing, 90 % interval) on Redyuk's statistics;
* ``deequ-online-normal`` / ``deequ-batch-normal`` (3 standard deviations) and
  ``deequ-rate-of-change`` (ratio to the previous batch within [0.5, 2], a
  hand-set threshold) on every scalar metric AVH records; batch-normal also at
  6 and 10 standard deviations; in the matched comparison only, also
  ``deequ-batch-normal, varying metrics``: BatchNormal without the metrics
  whose history never varied (a change of one of those is an anomaly at
  every threshold).

A batch is rejected when any watched metric is anomalous or missing. Reported:
recall per issue kind, precision, and the observed false-positive rate on
clean trials with its 95 % Clopper-Pearson interval; "within sampling error"
means the one-sided binomial test of ``FPR <= delta`` does not reject at 5 %.

Matched comparison: each of these baselines is a threshold family
(:data:`FAMILIES`; grids :data:`SD_GRID` in standard deviations,
:data:`RATE_GRID` for accepted ratios ``[1/r, r]``, :data:`CONFIDENCE_GRID`
for Redyuk's interval). A batch gets one score per family (the largest over
the watched metrics of how far the value is from the family's expectation in
its units; infinite for a missing metric), computed once from the batch's
statistics, so every threshold costs a comparison; the decisions at the
hand-set thresholds are the strategies' own (``AnomalyDetector``'s, checked
equal on the trials when this was written). For every AVH program the
family's recall is reported at the loosest threshold of its grid whose
observed false positives are at most the program's (:func:`matched`).

Writes ``benchmarks/results/avh_pipelines.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import platform
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist
from typing import Any

import duckdb
import numpy as np
import pandas as pd
from scipy import stats

from autovalidate import PatternConstraint, suggest_pattern
from autovalidate.anomaly.exponential_smoothing import fit_simple_exponential_smoothing
from autovalidate.metrics import Metric
from autovalidate.metrics.codec import analyzer_key
from autovalidate.monitor.avh_batches import (
    AVH_STATISTICS,
    SyntheticIssue,
    avh_statistics,
    fit_program,
    synthetic_issues,
    tracked_patterns,
)
from autovalidate.monitor.batches import BATCH_STATISTICS
from autovalidate.repository.base import AnalysisResult, ResultKey

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
LAKE = SHARED / "lake"
RESULTS = ROOT / "benchmarks" / "results"
DELTAS = (0.01, 0.05, 0.1)
TREATMENTS = {"avh": "rank", "avh-plugin": "plugin"}  # method prefix -> zero_variance
KINDS = (
    "schema change",
    "unit change",
    "missing values",
    "duplicated rows",
    "truncated strings",
    "category drift",
    "string format change",
)
NYC = "vincentarelbundock/Rdatasets:csv/openintro/nycflights.csv"


# -- data ------------------------------------------------------------------------------------


def lake_table(table_id: str) -> pd.DataFrame:
    """A lake table rebuilt from its one-row-per-column Parquet (values as text)."""
    rows = duckdb.execute(
        f"select column_name, \"values\" from '{LAKE}/*.parquet' where table_id = ? "
        "order by column_position",
        [table_id],
    ).fetchall()
    return pd.DataFrame({name: values for name, values in rows})


def lake_tables(k: int) -> list[str]:
    """The first ``k`` eligible lake tables in SHA-256 order (see the module docstring)."""
    ids = duckdb.execute(
        f"select table_id from '{LAKE}/*.parquet' group by table_id "
        'having max(len("values")) = 1000 and count(*) between 6 and 12'
    ).fetchall()
    eligible = sorted(
        (t for (t,) in ids if t != NYC), key=lambda t: hashlib.sha256(t.encode()).hexdigest()
    )
    return eligible[:k]


def nyc_weeks() -> list[pd.DataFrame]:
    frame = lake_table(NYC)
    day = pd.to_datetime(
        "2013-" + frame["month"].str.zfill(2) + "-" + frame["day"].str.zfill(2), errors="coerce"
    )
    week = (day - pd.Timestamp("2013-01-01")).dt.days // 7
    return [g.reset_index(drop=True) for _, g in frame.groupby(week, sort=True)]


def read_text(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""])


@dataclass
class Trial:
    """One history with its tested batches."""

    pipeline: str
    rep: int
    history: list[pd.DataFrame]
    tested: list[pd.DataFrame]
    dirty: list[pd.DataFrame]  # real issues (flights' dirty rows)


def trials(reps: int, tables: int) -> Iterator[Trial]:
    weeks = nyc_weeks()
    yield Trial("nycflights (weekly)", 0, weeks[:30], weeks[30:], [])
    clean = read_text(SHARED / "dirty-clean" / "flights" / "clean.csv")
    dirty = read_text(SHARED / "dirty-clean" / "flights" / "dirty.csv")
    dirty.columns = clean.columns
    for rep in range(reps):
        perm = np.random.default_rng(rep).permutation(len(clean))
        parts = [perm[i : i + 50] for i in range(0, len(perm) - 49, 50)]
        batches = [clean.iloc[p].reset_index(drop=True) for p in parts]
        dirt = [dirty.iloc[p].reset_index(drop=True) for p in parts[25:]]
        yield Trial("flights (Redyuk et al.)", rep, batches[:25], batches[25:], dirt)
    for table_id in lake_tables(tables):
        frame = lake_table(table_id)
        for rep in range(reps):
            perm = np.random.default_rng(rep).permutation(len(frame))
            batches = [
                frame.iloc[perm[i : i + 25]].reset_index(drop=True) for i in range(0, 1000, 25)
            ]
            yield Trial(table_id, rep, batches[:25], batches[25:], [])


# -- injected issues -------------------------------------------------------------------------


def _numeric_columns(frame: pd.DataFrame) -> list[str]:
    out = []
    for c in frame.columns:
        present = frame[c].dropna()
        if len(present) and pd.to_numeric(present, errors="coerce").notna().mean() >= 0.9:
            out.append(c)
    return out


def inject(frame: pd.DataFrame, kind: str, rng: np.random.Generator) -> tuple[pd.DataFrame, str]:
    """``frame`` with one issue of ``kind``; returns it and the column touched."""
    out = frame.copy()
    columns = list(frame.columns)
    numeric = _numeric_columns(frame)
    text = [c for c in columns if c not in numeric and frame[c].notna().any()]
    if kind == "unit change" and numeric:
        c = str(rng.choice(numeric))
        factor = float(rng.choice([0.001, 0.01, 1.609, 2.2046, 100, 1000]))
        out[c] = [
            None if pd.isna(x) else f"{x * factor:.6g}"
            for x in pd.to_numeric(frame[c], errors="coerce")
        ]
        return out, c
    if kind == "missing values":
        c = str(rng.choice(columns))
        out.loc[rng.random(len(out)) < rng.uniform(0.1, 0.5), c] = None
        return out, c
    if kind == "duplicated rows":
        extra = frame.sample(frac=rng.uniform(0.2, 1.0), random_state=int(rng.integers(1 << 31)))
        return pd.concat([frame, extra], ignore_index=True), "*"
    if kind == "truncated strings" and text:
        c = str(rng.choice(text))
        median = int(frame[c].dropna().str.len().median())
        keep = int(rng.integers(1, max(2, median)))
        out[c] = frame[c].str[:keep]
        return out, c
    if kind == "category drift":
        low = [c for c in columns if 1 < frame[c].nunique() <= 50]
        if low:
            c = str(rng.choice(low))
            counts = frame[c].value_counts()
            weights = (1.0 / counts) / (1.0 / counts).sum()
            out[c] = rng.choice(counts.index.to_numpy(), len(frame), p=weights.to_numpy())
            return out, c
    if kind == "string format change" and text:
        c = str(rng.choice(text))
        table = str.maketrans({"-": "/", "/": "-", ":": ".", ".": ":", " ": "_"})
        out[c] = [None if pd.isna(v) else str(v).translate(table).swapcase() for v in frame[c]]
        return out, c
    # schema change, and the fallback when a kind does not apply to this table
    c = str(rng.choice(columns))
    return out.rename(columns={c: f"{c}_v2"}), c


# -- methods ---------------------------------------------------------------------------------


def _stats(
    frame: pd.DataFrame,
    numeric: list[str],
    patterns: dict[str, str] | None = None,
    learn: bool = False,
) -> dict[str, Metric]:
    present = [c for c in numeric if c in frame.columns]
    stats = avh_statistics(frame, numeric_columns=present, patterns=patterns, learn=learn)
    return {analyzer_key(a): m for a, m in stats.items()}


#: Thresholds swept for the matched comparison, loosest (most rejections) first.
SD_GRID = (
    1.0,
    1.5,
    2.0,
    2.5,
    3.0,
    4.0,
    5.0,
    6.0,
    8.0,
    10.0,
    12.0,
    15.0,
    20.0,
    30.0,
    50.0,
    100.0,
    1000.0,
)
RATE_GRID = (1.1, 1.25, 1.5, 2.0, 3.0, 5.0, 10.0, 100.0, 1000.0)  # accepted ratios [1/r, r]
CONFIDENCE_GRID = (0.9, 0.95, 0.99, 0.999, 0.9999, 1 - 1e-6, 1 - 1e-9, 1 - 1e-12)


@dataclass(frozen=True)
class Family:
    """A threshold-based baseline, decided at any threshold from one score per batch.

    A batch is rejected at threshold ``t`` iff its score exceeds ``cut(t)``
    (the score is the largest over the watched metrics; a metric that is
    missing scores infinity).
    """

    statistics: tuple[str, ...]
    grid: tuple[float, ...]  # loosest first
    hand_set: tuple[float, ...]  # the thresholds the main table reports
    label: str

    def cut(self, threshold: float) -> float:
        if self.grid is CONFIDENCE_GRID:  # Redyuk's interval: its half-width in sigmas
            return NormalDist().inv_cdf(0.5 + threshold / 2)
        return threshold

    def name(self, family: str, threshold: float) -> str:
        return f"{family} ({self.label.format(threshold)})"


FAMILIES = {
    "redyuk (validate-batch)": Family(
        BATCH_STATISTICS, CONFIDENCE_GRID, (0.9,), "{:.12g} interval"
    ),
    "deequ-online-normal": Family(AVH_STATISTICS, SD_GRID, (3.0,), "{:g} sd"),
    "deequ-batch-normal": Family(AVH_STATISTICS, SD_GRID, (3.0, 6.0, 10.0), "{:g} sd"),
    "deequ-rate-of-change": Family(AVH_STATISTICS, RATE_GRID, (2.0,), "[1/{0:g}, {0:g}]"),
    # BatchNormal with the metrics that never varied left unwatched (any change of one is an
    # anomaly at every threshold, which keeps BatchNormal above 0 false positives)
    "deequ-batch-normal, varying metrics": Family(AVH_STATISTICS, SD_GRID, (), "{:g} sd"),
}


def _tracked(history: list[dict[str, Metric]], names: tuple[str, ...]) -> dict[str, list[float]]:
    """Each watched metric's series over the history (as ``AnomalyDetector`` is given it)."""
    keys = {
        k
        for h in history
        for k, m in h.items()
        if m.name in names and isinstance(m.value, (int, float))
    }
    return {
        k: [float(h[k].value) for h in history if k in h and isinstance(h[k].value, (int, float))]  # type: ignore[arg-type]
        for k in sorted(keys)
    }


def _batch_normal(series: list[float]) -> Callable[[float], float]:
    # BatchNormalStrategy: mean and sample deviation of the history; strictly outside is an anomaly
    n = len(series)
    mean = sum(series) / n
    std = math.sqrt(sum((v - mean) ** 2 for v in series) / (n - 1))

    def score(v: float) -> float:
        if math.isnan(v) or math.isnan(mean) or std == 0.0:
            return 0.0 if math.isnan(v) or math.isnan(mean) or v == mean else math.inf
        return abs(v - mean) / std

    return score


def _online_normal(series: list[float]) -> Callable[[float], float]:
    # OnlineNormalStrategy: Welford's running mean and population variance, the new value included
    mean = sn = 0.0
    for i, value in enumerate(series):
        last = mean
        mean = value if i == 0 else last + (value - last) / (i + 1)
        sn += (value - last) * (value - mean)
    n = len(series)

    def score(v: float) -> float:
        m = mean + (v - mean) / (n + 1)
        std = math.sqrt((sn + (v - mean) * (v - m)) / (n + 1))
        if math.isnan(v) or math.isnan(m) or std == 0.0:
            return 0.0 if math.isnan(v) or math.isnan(m) or v == m else math.inf
        return abs(v - m) / std

    return score


def _rate_of_change(series: list[float]) -> Callable[[float], float]:
    # RelativeRateOfChangeStrategy on the ratio to the previous value: x/0 is infinite, 0/0 none
    previous = series[-1]

    def score(v: float) -> float:
        if previous == 0.0:
            return 0.0 if v == 0.0 or math.isnan(v) else math.inf
        ratio = v / previous
        if math.isnan(ratio):
            return 0.0
        return math.inf if ratio <= 0.0 else max(ratio, 1.0 / ratio)

    return score


def _smoothing(series: list[float]) -> Callable[[float], float]:
    # ExponentialSmoothingStrategy: outside forecast +- max(z sigma, 1e-9 max(1, |forecast|))
    fit = fit_simple_exponential_smoothing(series)
    floor = 1e-9 * max(1.0, abs(fit.forecast))

    def score(v: float) -> float:
        off = abs(v - fit.forecast)
        if math.isnan(off) or math.isnan(fit.sigma):
            return math.inf
        if off <= floor:
            return 0.0
        return math.inf if fit.sigma == 0.0 else off / fit.sigma

    return score


def _undecided(v: float) -> float:
    # a series of fewer than 3 points is not decided (AnomalyDetector), only checked for presence
    return 0.0


def _batch_normal_varying(series: list[float]) -> Callable[[float], float]:
    n = len(series)
    mean = sum(series) / n
    varies = sum((v - mean) ** 2 for v in series) > 0.0
    return _batch_normal(series) if varies else _undecided


_SCORERS = {
    "redyuk (validate-batch)": _smoothing,
    "deequ-online-normal": _online_normal,
    "deequ-batch-normal": _batch_normal,
    "deequ-rate-of-change": _rate_of_change,
    "deequ-batch-normal, varying metrics": _batch_normal_varying,
}


def _scorers(history: list[dict[str, Metric]]) -> dict[str, dict[str, Callable[[float], float]]]:
    """Per family, each watched metric's score function, fitted once per history."""
    out = {}
    for family, f in FAMILIES.items():
        series = _tracked(history, f.statistics)
        out[family] = {
            k: _SCORERS[family](s) if len(s) >= 3 else _undecided for k, s in series.items()
        }
    return out


def _score(scorers: dict[str, Callable[[float], float]], new: dict[str, Metric]) -> float:
    """The batch's score: the largest of its metrics' (infinite when one is missing)."""
    worst = 0.0
    for key, score in scorers.items():
        m = new.get(key)
        if m is None or m.error is not None or not isinstance(m.value, (int, float)):
            return math.inf
        worst = max(worst, score(float(m.value)))
    return worst


def _patterns(history: pd.DataFrame) -> dict[str, PatternConstraint]:
    """Auto-Validate's constraint for each column of the history that gets one."""
    out = {}
    for c in history.columns:
        values = history[c].dropna().tolist()
        if values:
            constraint = suggest_pattern(values, column=str(c))
            if constraint is not None:
                out[str(c)] = constraint
    return out


def _patterns_reject(patterns: dict[str, PatternConstraint], frame: pd.DataFrame) -> bool:
    for c, constraint in patterns.items():
        if c not in frame.columns:
            return True
        if not constraint.validate(frame[c].tolist(), examples=0).passed:
            return True
    return False


@dataclass
class Prepared:
    """A trial's statistics, each computed once and shared by every method and threshold."""

    pipeline: str
    rep: int
    history: list[dict[str, Metric]]
    issues: list[SyntheticIssue]
    cases: list[tuple[str, str, dict[str, Metric], bool]]  # kind, column, statistics, patterns


def prepare(trial: Trial, issue_rng: np.random.Generator) -> Prepared:
    """Inject the issues and compute every statistic of the trial (the slow part)."""
    numeric = _numeric_columns(pd.concat(trial.history, ignore_index=True))
    # as record_avh_batch: the first batch's text columns get their patterns, kept after
    first = _stats(trial.history[0], numeric, learn=True)
    learned = tracked_patterns([AnalysisResult(ResultKey("p", 0), first)])
    history = [first] + [_stats(b, numeric, learned) for b in trial.history[1:]]
    issues = synthetic_issues(trial.history[-1], numeric_columns=numeric, patterns=learned)
    patterns = _patterns(pd.concat(trial.history, ignore_index=True))
    frames: list[tuple[str, str, pd.DataFrame]] = []
    for i, batch in enumerate(trial.tested):
        kind = KINDS[(i + trial.rep) % len(KINDS)]
        broken, column = inject(batch, kind, issue_rng)
        frames += [("clean", "", batch), (kind, column, broken)]
    frames += [("dirty rows (Redyuk et al. flights)", "", d) for d in trial.dirty]
    cases = [
        (kind, column, _stats(frame, numeric, learned), _patterns_reject(patterns, frame))
        for kind, column, frame in frames
    ]
    return Prepared(trial.pipeline, trial.rep, history, issues, cases)


def _finite_or_none(x: float) -> float | None:
    return x if math.isfinite(x) else None


def decide(prep: Prepared) -> list[dict[str, Any]]:
    """Every method's decision on every case of a prepared trial, and each family's score."""
    history = prep.history
    results = [AnalysisResult(ResultKey("p", t), h) for t, h in enumerate(history)]
    programs = {
        f"{prefix}@{d}": fit_program(results, None, d, issues=prep.issues, zero_variance=zv)  # type: ignore[arg-type]
        for prefix, zv in TREATMENTS.items()
        for d in DELTAS
    }
    scorers = _scorers(history)
    rows = []
    for kind, column, new, patterns_reject in prep.cases:
        decisions = {name: p.rejects(new, history[-1]) for name, p in programs.items()}
        scores = {family: _score(s, new) for family, s in scorers.items()}
        for family, f in FAMILIES.items():
            for t in f.hand_set:
                decisions[f.name(family, t)] = scores[family] > f.cut(t)
        decisions["autovalidate-patterns"] = patterns_reject
        rows.append(
            {
                "pipeline": prep.pipeline,
                "rep": prep.rep,
                "kind": kind,
                "column": column,
                "rejected": decisions,
                # null: rejected at every threshold (a watched metric is missing or left a constant)
                "scores": {k: _finite_or_none(v) for k, v in scores.items()},
            }
        )
    for name, p in programs.items():
        rows.append(
            {
                "pipeline": prep.pipeline,
                "rep": prep.rep,
                "program": name,
                "constraints": len(p.constraints),
                "fpr_bound": p.fpr_bound,
                "synthetic_caught": p.covered,
                "synthetic": p.issues,
                "chosen": [f"{c.candidate.key}|{c.interval.side}" for c in p.constraints],
            }
        )
    return rows


# -- report ----------------------------------------------------------------------------------


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    a = (1 - level) / 2
    lo = 0.0 if k == 0 else float(stats.beta.ppf(a, k, n - k + 1))
    hi = 1.0 if k == n else float(stats.beta.ppf(1 - a, k + 1, n - k))
    return lo, hi


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    cases = [r for r in rows if "kind" in r]
    methods = list(cases[0]["rejected"])
    kinds = sorted({r["kind"] for r in cases if r["kind"] != "clean"})
    out: dict[str, Any] = {}
    for m in methods:
        clean = [r["rejected"][m] for r in cases if r["kind"] == "clean"]
        bad = [r["rejected"][m] for r in cases if r["kind"] != "clean"]
        fp, tp = int(sum(clean)), int(sum(bad))
        lo, hi = clopper_pearson(fp, len(clean))
        delta = float(m.split("@")[1]) if m.startswith("avh") and "@" in m else None
        entry = {
            "clean_trials": len(clean),
            "false_positives": fp,
            "fpr": fp / len(clean),
            "fpr_ci95": [lo, hi],
            "issue_trials": len(bad),
            "recall": tp / len(bad),
            "precision": tp / (tp + fp) if tp + fp else None,
            "recall_by_kind": {
                k: float(np.mean([r["rejected"][m] for r in cases if r["kind"] == k]))
                for k in kinds
            },
        }
        if delta is not None:
            # one-sided binomial test of H0: FPR <= delta
            entry["p_value_fpr_le_delta"] = float(stats.binom.sf(fp - 1, len(clean), delta))
        out[m] = entry
    return out


def matched(rows: list[dict[str, Any]], summary: dict[str, Any]) -> dict[str, Any]:
    """Each family's recall at the loosest grid threshold whose observed FPR is at most AVH's.

    For every AVH program (``avh@delta``, ``avh-plugin@delta``) and every
    family of :data:`FAMILIES`: walking the family's grid from its loosest
    threshold, the first whose false positives on the clean trials are at
    most the program's (``reached``); when no threshold of the grid gets
    there, the strictest one, with ``reached`` false.
    """
    cases = [r for r in rows if "kind" in r]
    clean = [r["scores"] for r in cases if r["kind"] == "clean"]
    bad = [r["scores"] for r in cases if r["kind"] != "clean"]

    def rejected(scores: list[dict[str, float | None]], family: str, cut: float) -> int:
        return sum(1 for s in scores if s[family] is None or s[family] > cut)

    out: dict[str, Any] = {}
    for program in (m for m in summary if m.startswith("avh")):
        target = summary[program]["false_positives"]
        entry: dict[str, Any] = {}
        for family, f in FAMILIES.items():
            fps = [rejected(clean, family, f.cut(t)) for t in f.grid]
            at = next((i for i, fp in enumerate(fps) if fp <= target), len(fps) - 1)
            t = f.grid[at]
            entry[family] = {
                "reached": fps[at] <= target,
                "threshold": t,
                "false_positives": fps[at],
                "fpr": fps[at] / len(clean),
                "recall": rejected(bad, family, f.cut(t)) / len(bad),
            }
        out[program] = entry
    return out


def _commit() -> str:
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()


def render(doc: dict[str, Any]) -> str:
    s = doc["summary"]
    lines = [
        "# AVH on recurring pipelines: observed false-positive rate against the budget, and recall",
        "",
        f"Commit `{doc['commit']}`, {doc['finished']}; {doc['seconds']:.0f} s. Protocol: "
        "`benchmarks/avh_pipelines.py` (module docstring); pipelines: "
        + ", ".join(f"`{p}`" for p in doc["pipelines"])
        + ".",
        "",
        "| method | FPR on clean batches (95 % CI) | within delta? (p of FPR <= delta) "
        "| recall | precision |",
        "|---|---:|---|---:|---:|",
    ]
    for m, e in s.items():
        lo, hi = e["fpr_ci95"]
        within = ""
        if "p_value_fpr_le_delta" in e:
            ok = "yes" if e["p_value_fpr_le_delta"] >= 0.05 else "**no**"
            within = f"{ok} (p = {e['p_value_fpr_le_delta']:.3f})"
        prec = "" if e["precision"] is None else f"{e['precision']:.2f}"
        lines.append(
            f"| {m} | {e['fpr']:.3f} ({e['false_positives']}/{e['clean_trials']}; "
            f"{lo:.3f}-{hi:.3f}) "
            f"| {within} | {e['recall']:.2f} ({e['issue_trials']}) | {prec} |"
        )
    kinds = list(next(iter(s.values()))["recall_by_kind"])
    lines += [
        "",
        "Recall by issue kind:",
        "",
        "| method | " + " | ".join(kinds) + " |",
        "|---|" + "---:|" * len(kinds),
    ]
    for m, e in s.items():
        lines.append(
            f"| {m} | " + " | ".join(f"{e['recall_by_kind'][k]:.2f}" for k in kinds) + " |"
        )
    n = next(iter(s.values()))["clean_trials"]
    lines += [
        "",
        "Matched false-positive rate: each baseline at the loosest threshold of its grid whose "
        f"observed FPR on the {n} clean batches is at most the AVH program's "
        '(recall, threshold, false positives; "not reached": no threshold of the grid gets '
        "there, the strictest one shown; grids: "
        + "; ".join(
            f"{family} " + ", ".join(f.label.format(t) for t in f.grid)
            for family, f in FAMILIES.items()
        )
        + "):",
        "",
        "| AVH program | its FPR | its recall | " + " | ".join(FAMILIES) + " |",
        "|---|---:|---:|" + "---|" * len(FAMILIES),
    ]
    for program, entry in doc["matched"].items():
        e = s[program]
        cells = []
        for family, f in FAMILIES.items():
            m = entry[family]
            at = f"{f.label.format(m['threshold'])}; {m['false_positives']}/{n}"
            cells.append(
                f"{m['recall']:.2f} ({at})"
                if m["reached"]
                else f"not reached (strictest, {at}: recall {m['recall']:.2f})"
            )
        lines.append(
            f"| {program} | {e['fpr']:.3f} ({e['false_positives']}/{n}) | {e['recall']:.2f} | "
            + " | ".join(cells)
            + " |"
        )
    progs = [r for r in doc["rows"] if "program" in r]
    lines += [
        "",
        "AVH programs (per history): mean number of constraints, mean FPR bound, "
        "synthetic issues caught:",
        "",
    ]
    for name in dict.fromkeys(r["program"] for r in progs):
        ps = [r for r in progs if r["program"] == name]
        lines.append(
            f"* {name}: {np.mean([p['constraints'] for p in ps]):.1f} constraints, bound "
            f"{np.mean([p['fpr_bound'] for p in ps]):.4f}, synthetic caught "
            f"{np.mean([p['synthetic_caught'] / max(1, p['synthetic']) for p in ps]):.2f}"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=4)
    parser.add_argument("--tables", type=int, default=6)
    parser.add_argument(
        "--write-batches", type=Path, help="Write nycflights' first weeks as CSVs here."
    )
    parser.add_argument("--days", type=int, default=8, help="With --write-batches: how many.")
    parser.add_argument(
        "--rerender",
        action="store_true",
        help="Summarize the rows of the results JSON again and rewrite its report (no run).",
    )
    args = parser.parse_args(argv)
    if args.rerender:
        doc = json.loads((RESULTS / "avh_pipelines.json").read_text())
        doc["summary"] = summarize(doc["rows"])
        doc["matched"] = matched(doc["rows"], doc["summary"])
        (RESULTS / "avh_pipelines.json").write_text(json.dumps(doc, indent=1) + "\n")
        (RESULTS / "avh_pipelines.md").write_text(render(doc))
        return 0
    if args.write_batches:
        args.write_batches.mkdir(parents=True, exist_ok=True)
        for i, week in enumerate(nyc_weeks()[: args.days]):
            week.to_csv(args.write_batches / f"week{i + 1}.csv", index=False)
        return 0
    start = time.time()
    rng = np.random.default_rng(2023)
    rows: list[dict[str, Any]] = []
    pipelines: list[str] = []
    for trial in trials(args.reps, args.tables):
        if trial.pipeline not in pipelines:
            pipelines.append(trial.pipeline)
        rows += decide(prepare(trial, rng))
        print(f"{trial.pipeline} rep {trial.rep}: {time.time() - start:.0f} s", file=sys.stderr)
    summary = summarize(rows)
    doc = {
        "commit": _commit(),
        "finished": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "seconds": time.time() - start,
        "parameters": {
            "reps": args.reps,
            "tables": args.tables,
            "deltas": DELTAS,
            "zero_variance": TREATMENTS,
            "grids": {family: f.grid for family, f in FAMILIES.items()},
        },
        "machine": {"python": sys.version.split()[0], "platform": platform.platform()},
        "pipelines": pipelines,
        "summary": summary,
        "matched": matched(rows, summary),
        "rows": rows,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "avh_pipelines.json").write_text(json.dumps(doc, indent=1) + "\n")
    (RESULTS / "avh_pipelines.md").write_text(render(doc))
    print(render(doc))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
