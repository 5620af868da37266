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
product's synthetic issues in ``autovalidate.anomaly.avh_batches``, whose
parameters are fixed): schema change (a column renamed), unit change (a
numeric column times one of 0.001, 0.01, 1.609, 2.2046, 100, 1000), missing
values (10-50 % of a column nulled), duplicated rows (20-100 % of the rows
again), truncated strings (a text column cut to 1 .. its median length - 1
characters), category drift (a column with at most 50 distinct values resampled
with weights inverse to the frequencies), string format change (separators
``-`` ``:`` ``.`` ``/`` and spaces swapped, letters' case swapped).

Methods, all on the same history (the statistics
:func:`autovalidate.anomaly.avh_batches.record_avh_batch` records: the
conformance to Auto-Validate patterns learned from the first history batch's
text columns included):

* ``avh@delta`` for delta in 0.01, 0.05, 0.1: one program per history
  (:func:`~autovalidate.anomaly.avh_batches.fit_program`, synthetic issues from the
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
* ``redyuk``: today's ``validate-batch`` (exponential smoothing, 90 %
  interval) on Redyuk's statistics;
* ``deequ-online-normal`` / ``deequ-batch-normal`` (3 standard deviations) and
  ``deequ-rate-of-change`` (ratio to the previous batch within [0.5, 2], a
  hand-set threshold) on every scalar metric AVH records; batch-normal also at
  6 and 10 standard deviations, to compare recall at a lower false-positive rate.

A batch is rejected when any watched metric is anomalous or missing. Reported:
recall per issue kind, precision, and the observed false-positive rate on
clean trials with its 95 % Clopper-Pearson interval; "within sampling error"
means the one-sided binomial test of ``FPR <= delta`` does not reject at 5 %.

Writes ``benchmarks/results/avh_pipelines.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd
from scipy import stats

from autovalidate import PatternConstraint, suggest_pattern
from autovalidate.anomaly import (
    AnomalyDetector,
    BatchNormalStrategy,
    ExponentialSmoothingStrategy,
    OnlineNormalStrategy,
    RelativeRateOfChangeStrategy,
)
from autovalidate.anomaly.avh_batches import (
    AVH_STATISTICS,
    avh_statistics,
    fit_program,
    synthetic_issues,
    tracked_patterns,
)
from autovalidate.anomaly.base import AnomalyDetectionStrategy, DataPoint
from autovalidate.anomaly.batches import BATCH_STATISTICS
from autovalidate.metrics import Metric
from autovalidate.metrics.codec import analyzer_key
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


def _strategies() -> dict[str, tuple[AnomalyDetectionStrategy, tuple[str, ...]]]:
    every = AVH_STATISTICS
    return {
        "redyuk (validate-batch today)": (ExponentialSmoothingStrategy(0.9), BATCH_STATISTICS),
        "deequ-online-normal (3 sd)": (OnlineNormalStrategy(3.0, 3.0), every),
        **{
            f"deequ-batch-normal ({k:g} sd)": (BatchNormalStrategy(k, k), every)
            for k in (3.0, 6.0, 10.0)
        },
        "deequ-rate-of-change [0.5, 2]": (RelativeRateOfChangeStrategy(0.5, 2.0), every),
    }


def _forecast_rejects(
    strategy: AnomalyDetectionStrategy,
    names: tuple[str, ...],
    history: list[dict[str, Metric]],
    new: dict[str, Metric],
) -> bool:
    tracked = {
        k
        for h in history
        for k, m in h.items()
        if m.name in names and isinstance(m.value, (int, float))
    }
    for key in tracked:
        series = [
            DataPoint(t, float(h[key].value))
            for t, h in enumerate(history)
            if key in h and isinstance(h[key].value, (int, float))
        ]  # type: ignore[arg-type]
        m = new.get(key)
        if m is None or m.error is not None or not isinstance(m.value, (int, float)):
            return True
        if len(series) < 3:
            continue
        result = AnomalyDetector(strategy).is_new_point_anomalous(
            series, DataPoint(len(history), float(m.value))
        )
        if result.points[-1][1].is_anomaly:
            return True
    return False


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


def run_trial(trial: Trial, issue_rng: np.random.Generator) -> list[dict[str, Any]]:
    numeric = _numeric_columns(pd.concat(trial.history, ignore_index=True))
    # as record_avh_batch: the first batch's text columns get their patterns, kept after
    first = _stats(trial.history[0], numeric, learn=True)
    learned = tracked_patterns([AnalysisResult(ResultKey("p", 0), first)])
    history = [first] + [_stats(b, numeric, learned) for b in trial.history[1:]]
    results = [AnalysisResult(ResultKey("p", t), h) for t, h in enumerate(history)]
    issues = synthetic_issues(trial.history[-1], numeric_columns=numeric, patterns=learned)
    programs = {
        f"{prefix}@{d}": fit_program(results, None, d, issues=issues, zero_variance=zv)  # type: ignore[arg-type]
        for prefix, zv in TREATMENTS.items()
        for d in DELTAS
    }
    patterns = _patterns(pd.concat(trial.history, ignore_index=True))
    strategies = _strategies()
    rows = []
    cases: list[tuple[str, str, pd.DataFrame]] = []
    for i, batch in enumerate(trial.tested):
        kind = KINDS[(i + trial.rep) % len(KINDS)]
        broken, column = inject(batch, kind, issue_rng)
        cases += [("clean", "", batch), (kind, column, broken)]
    cases += [("dirty rows (Redyuk et al. flights)", "", d) for d in trial.dirty]
    for kind, column, frame in cases:
        new = _stats(frame, numeric, learned)
        decisions = {name: p.rejects(new, history[-1]) for name, p in programs.items()}
        for name, (strategy, names) in strategies.items():
            decisions[name] = _forecast_rejects(strategy, names, history, new)
        decisions["autovalidate-patterns"] = _patterns_reject(patterns, frame)
        rows.append(
            {
                "pipeline": trial.pipeline,
                "rep": trial.rep,
                "kind": kind,
                "column": column,
                "rejected": decisions,
            }
        )
    for name, p in programs.items():
        rows.append(
            {
                "pipeline": trial.pipeline,
                "rep": trial.rep,
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
    args = parser.parse_args(argv)
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
        rows += run_trial(trial, rng)
        print(f"{trial.pipeline} rep {trial.rep}: {time.time() - start:.0f} s", file=sys.stderr)
    doc = {
        "commit": _commit(),
        "finished": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "seconds": time.time() - start,
        "parameters": {
            "reps": args.reps,
            "tables": args.tables,
            "deltas": DELTAS,
            "zero_variance": TREATMENTS,
        },
        "machine": {"python": sys.version.split()[0], "platform": platform.platform()},
        "pipelines": pipelines,
        "summary": summarize(rows),
        "rows": rows,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "avh_pipelines.json").write_text(json.dumps(doc, indent=1) + "\n")
    (RESULTS / "avh_pipelines.md").write_text(render(doc))
    print(render(doc))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
