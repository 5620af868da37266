"""One AV-bench run: every method on B, the two reports, sensitivity and cost (``BENCHMARK.md``)."""

from __future__ import annotations

import inspect
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import autovalidate
from autovalidate.patterns.tokens import tokenize
from benchmarks.avbench import drift, folds, indexes, noise, real_errors
from benchmarks.avbench.abstentions import cause, census
from benchmarks.avbench.calibration import calibration
from benchmarks.avbench.failures import failures
from benchmarks.avbench.methods import deequ, grok, pwheel, schema_matching, tfdv
from benchmarks.avbench.methods.deequ import DeequCategorical, DeequFractional
from benchmarks.avbench.methods.fmdv import FmdvMethod
from benchmarks.avbench.methods.grok import GrokMethod, GrokPattern, grok_library
from benchmarks.avbench.methods.pwheel import PWheelMethod
from benchmarks.avbench.methods.schema_matching import VARIANTS, SchemaMatcher, SchemaMatchingMethod
from benchmarks.avbench.methods.tfdv import TfdvMethod, TfdvSetup, ensure_tfdv
from benchmarks.avbench.protocol import (
    Case,
    CaseScore,
    Rule,
    RuleCounter,
    load_machine_queries,
    load_queries,
    repetitive,
    score,
    summarize,
)

__all__ = [
    "Config",
    "FMDV_VARIANTS",
    "GRID",
    "METHOD_KEYS",
    "QUERY_SETS",
    "latency_summary",
    "load_cases",
    "long_values",
    "product_defaults",
    "run",
]

FMDV_VARIANTS = ("fmdv", "fmdv-v", "fmdv-h", "fmdv-vh")
METHOD_KEYS = (
    *FMDV_VARIANTS,
    "deequ-cat",
    "deequ-fra",
    "tfdv",
    "pwheel",
    "grok",
    *VARIANTS,
)
#: The sensitivity grid of BENCHMARK.md (the paper's Fig. 12).
GRID: dict[str, tuple[float, ...]] = {
    "r": (0, 0.01, 0.02, 0.05, 0.1),
    "m": (0, 10, 50, 100, 500),
    "tau": (8, 10, 13),
    "theta": (0, 0.01, 0.05, 0.1, 0.2),
}
#: θ only acts through a horizontal cut (the paper's Fig. 12(d) is FMDV-H's).
THETA_VARIANTS = ("fmdv-h", "fmdv-vh")
QUICK_SIZE = 100
#: The query sets of BENCHMARK.md: B (drawn from the lake) and B-M (machine-generated
#: columns of sources the lake does not hold).
QUERY_SETS = ("B", "B-M")


@dataclass
class Config:
    """What a run does.

    Attributes
    ----------
    lake
        The corpus T (and the source of B).
    queries
        The query set: ``"B"`` (from the lake) or ``"B-M"`` (``machine``).
    machine
        B-M's ``cases.parquet``.
    index
        The default-tau index; None: ``work/index-tau{tau}``, built by the
        offline cost step (or reused when its metadata matches).
    work
        Scratch space (indexes, the TFDV venv); gitignored.
    out
        Where results go.
    quick
        Only the first ``quick`` columns of B (a prefix, not another sample).
    skip_build
        Build no index: no offline cost, no tau points without an index.
    tfdv_install
        May install TFDV into ``work/tfdv-venv``.
    sensitivity, cost
        Run the sweep, the cost measurements.
    drift
        Measure format-drift recall on B.
    dirty_clean
        Directory of the dirty-clean tables for the real-errors measure
        (None: not measured).
    leave_source_out
        Also score the FMDV variants on B with K-fold leave-source-out indexes
        (:mod:`.folds`; built under ``work`` or reused). B only.
    other_indexes
        Label -> index directory: the FMDV variants scored with each as well
        (the package's default index beside the lake's).
    progress
        Called with one line per step.
    """

    lake: Path
    index: Path | None
    work: Path
    out: Path
    queries: str = "B"
    machine: Path | None = None
    quick: int | None = None
    skip_build: bool = False
    tfdv_install: bool = True
    sensitivity: bool = True
    cost: bool = True
    drift: bool = True
    dirty_clean: Path | None = None
    leave_source_out: bool = False
    other_indexes: dict[str, Path] = field(default_factory=dict)
    progress: Callable[[str], None] = field(default=lambda line: None)


def product_defaults() -> dict[str, Any]:
    """r, m, theta, tau, alpha and objective as ``autovalidate.suggest_pattern`` defaults them."""
    params = inspect.signature(autovalidate.suggest_pattern).parameters
    return {k: params[k].default for k in ("r", "m", "theta", "tau", "alpha", "objective")}


#: The paper's FMDV objective (Eq. 5: the least FPR), reported beside the
#: product's default objective so the choice stays visible.
ABLATIONS: dict[str, dict[str, Any]] = {"objective=fpr": {"objective": "fpr"}}


@dataclass
class MethodRun:
    """The rules of one method on B, and what it cost."""

    name: str
    pattern_based: bool
    rules: list[Rule | None]
    seconds: float
    per_case_ms: list[float] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)
    #: per case of the long-values set, the least of BEST_OF timed calls (ms)
    best_of_ms: list[float] = field(default_factory=list)


def _fit(method: Any, cases: Sequence[Case], timed: bool = False) -> MethodRun:
    started = time.perf_counter()
    per_case: list[float] = []
    if hasattr(method, "fit_all"):
        rules = method.fit_all(cases)
    else:
        rules = []
        for c in cases:
            t = time.perf_counter()
            rules.append(method.fit(c.train))
            per_case.append((time.perf_counter() - t) * 1000.0)
    return MethodRun(
        method.name,
        method.pattern_based,
        rules,
        time.perf_counter() - started,
        per_case if timed else [],
        dict(getattr(method, "info", {})),
    )


def _fit_methods(
    cases: Sequence[Case],
    index: autovalidate.PatternIndex,
    lake: Path,
    tfdv_setup: TfdvSetup,
    grok_patterns: list[GrokPattern],
    say: Callable[[str], None],
    timed: bool = False,
) -> dict[str, MethodRun]:
    """Every method of ``METHOD_KEYS`` fitted on the train part of each case."""
    runs: dict[str, MethodRun] = {}
    for variant in FMDV_VARIANTS:
        runs[variant] = _fit(FmdvMethod(variant, index), cases, timed=timed)
    if timed:  # right after the single calls, before the baselines fill the process
        runs[DEFAULT_VARIANT].best_of_ms = _best_of(
            FmdvMethod(DEFAULT_VARIANT, index), long_values(cases), cases
        )
    baselines = (
        DeequCategorical(),
        DeequFractional(),
        PWheelMethod(),
        TfdvMethod(tfdv_setup),
        GrokMethod(grok_patterns),
    )
    for method in baselines:
        runs[method.name] = _fit(method, cases)
    matcher = SchemaMatcher(lake, cases)
    for variant in VARIANTS:
        runs[variant] = _fit(SchemaMatchingMethod(variant, matcher), cases)
    matcher.close()
    say(", ".join(f"{name} {m.seconds:.1f} s" for name, m in runs.items()))
    return runs


def _summary(scores: list[CaseScore], subsets: dict[str, list[int]]) -> dict[str, dict[str, float]]:
    """P, R and F1 over all cases and over each named subset (applicable, the slices)."""
    return {"all": summarize(scores), **{k: summarize(scores, v) for k, v in subsets.items()}}


def slices(cases: Sequence[Case]) -> dict[str, list[int]]:
    """BENCHMARK.md's two slices: ``repetitive`` (≤ 3 distinct training values) and ``varied``."""
    few = repetitive(cases)
    chosen = set(few)
    return {"repetitive": few, "varied": [c.idx for c in cases if c.idx not in chosen]}


def load_cases(cfg: Config) -> list[Case]:
    """The run's query set: B from the lake, or B-M from ``cfg.machine``.

    Raises
    ------
    RuntimeError
        If ``cfg.queries`` is unknown or B-M's file is missing.
    """
    if cfg.queries == "B":
        return load_queries(cfg.lake, quick=cfg.quick)
    if cfg.queries == "B-M":
        if cfg.machine is None or not cfg.machine.is_file():
            raise RuntimeError(f"no B-M cases file at {cfg.machine}")
        return load_machine_queries(cfg.machine, quick=cfg.quick)
    raise RuntimeError(f"unknown query set {cfg.queries!r}; one of {', '.join(QUERY_SETS)}")


def run(cfg: Config) -> dict[str, Any]:
    """Run the benchmark; returns the report (also the content of ``avbench.json``).

    Raises
    ------
    RuntimeError
        If an index is needed, missing, and building is not allowed.
    """
    say = cfg.progress
    defaults = product_defaults()
    report: dict[str, Any] = {}
    cost: dict[str, Any] = {}
    if cfg.cost and not cfg.skip_build:
        say(f"offline cost: building the index of {cfg.lake} at local[1] and local[2]")
        cost["offline"] = indexes.offline_cost(cfg.lake, cfg.work, tau=defaults["tau"])
    index_path = cfg.index or cfg.work / f"index-tau{defaults['tau']}"
    if cfg.index is None and not indexes.index_matches(index_path, cfg.lake, defaults["tau"]):
        if cfg.skip_build:
            raise RuntimeError(f"no index at {index_path}; pass --index or drop --skip-build")
        say(f"building the default index at {index_path}")
        indexes.build(cfg.lake, index_path, tau=defaults["tau"], master="local[2]")

    say(f"loading {cfg.queries}")
    cases = load_cases(cfg)
    index = autovalidate.PatternIndex.open(index_path)
    say(f"{cfg.queries}: {len(cases)} columns; index {index_path} (tau={index.tau})")

    setup = ensure_tfdv(cfg.work, install=cfg.tfdv_install)
    say(f"tfdv: {setup.implementation}")
    library = grok_library(cfg.lake)
    autovalidate.suggest_pattern(cases[0].train, index)  # warm the index before timing
    runs = _fit_methods(cases, index, cfg.lake, setup, library, say, timed=cfg.cost)

    counter = RuleCounter(cases)
    counts = counter.count(r for m in runs.values() for r in m.rules)
    scores = {name: score(cases, m.rules, counts) for name, m in runs.items()}
    applicable = [i for i in range(len(cases)) if any(_pattern_rule(m, i) for m in runs.values())]
    subsets = {"applicable": applicable, **slices(cases)}
    report["methods"] = {}
    for name in METHOD_KEYS:
        m = runs[name]
        report["methods"][name] = {
            **_summary(scores[name], subsets),
            "pattern_based": m.pattern_based,
            "abstentions": sum(r is None for r in m.rules),
            "match_anything": sum(r is not None and r.match_anything for r in m.rules),
            "fit_seconds": m.seconds,
            **m.info,
        }
    report["cases"] = {"all": len(cases), **{k: len(v) for k, v in subsets.items()}}
    report["noise"] = {v: noise.interval(scores[v]) for v in FMDV_VARIANTS}
    report["calibration"] = {
        DEFAULT_VARIANT: calibration(
            runs[DEFAULT_VARIANT].rules, [s.precision for s in scores[DEFAULT_VARIANT]], counts
        )
    }
    report["abstentions"] = _census(
        cases, runs[DEFAULT_VARIANT].rules, lambda i: cause(cases[i], index), subsets
    )
    report["failures"] = failures(
        cases, runs[DEFAULT_VARIANT].rules, scores[DEFAULT_VARIANT], subsets["repetitive"]
    )
    for label, path in cfg.other_indexes.items():
        say(f"FMDV variants with the index {label} ({path})")
        with autovalidate.PatternIndex.open(path) as other:
            report.setdefault("other_indexes", {})[label] = _fmdv_block(
                cases,
                counter,
                {v: FmdvMethod(v, other) for v in FMDV_VARIANTS},
                subsets,
                cause_of=lambda i: cause(cases[i], other),  # noqa: B023 (called in this iteration)
            )
            report["other_indexes"][label]["index"] = {"path": str(path), **_index_facts(other)}
    if cfg.leave_source_out:
        if cfg.queries != "B":
            raise RuntimeError("leave-source-out is defined for B only")
        report["leave_source_out"] = _leave_source_out(cases, counter, subsets, cfg, defaults, say)
    per_case_drift: dict[str, list[float]] = {}
    if cfg.drift:
        say("format-drift recall")
        report["drift"], per_case_drift = drift.drift_recall(
            cases,
            {name: runs[name].rules for name in METHOD_KEYS},
            {name: [s.precision for s in scores[name]] for name in METHOD_KEYS},
        )
    if cfg.dirty_clean is not None:
        say(f"real errors: {cfg.dirty_clean}")
        columns = real_errors.load_columns(cfg.dirty_clean)
        learned = _fit_methods(real_errors.cases(columns), index, cfg.lake, setup, library, say)
        report["real_errors"] = real_errors.evaluate(
            columns, {name: learned[name].rules for name in METHOD_KEYS}
        )

    report["ablation"] = {}
    for label, change in ABLATIONS.items():
        if all(defaults.get(k) == v for k, v in change.items()):
            continue  # the ablation is the default: nothing to compare
        report["ablation"][label] = {}
        for variant in FMDV_VARIANTS:
            rules = _fit(FmdvMethod(variant, index, dict(change)), cases).rules
            report["ablation"][label][variant] = _summary(
                score(cases, rules, counter.count(rules)), subsets
            )
        say(f"ablation {label}")

    if cfg.sensitivity:
        say("sensitivity sweep")
        report["sensitivity"] = sensitivity(
            cases, counter, index, runs, applicable, defaults, cfg, say
        )
    counter.close()
    if cfg.cost:
        cost["online"] = {v: latency_summary(runs[v].per_case_ms) for v in FMDV_VARIANTS}
        longest = long_values(cases)
        cost["online_long_values"] = {
            "columns": [f"{cases[i].table_id}:{cases[i].column_name}" for i in longest],
            "methods": {
                v: latency_summary([runs[v].per_case_ms[i] for i in longest]) for v in FMDV_VARIANTS
            },
            "best_of": {
                "calls": BEST_OF,
                "method": DEFAULT_VARIANT,
                **latency_summary(runs[DEFAULT_VARIANT].best_of_ms),
            },
        }
        report["cost"] = cost
    report["params"] = {
        "lake": str(cfg.lake),
        "index": {"path": str(index_path), **_index_facts(index)},
        "query_set": {
            "name": cfg.queries,
            "size": len(cases),
            "quick": cfg.quick,
            "seed": 0,
            **({"file": str(cfg.machine)} if cfg.queries == "B-M" else {}),
        },
        "defaults": defaults,
        "grid": {k: list(v) for k, v in GRID.items()},
        "baselines": {
            "deequ": {
                "cardinality_threshold": deequ.CARDINALITY_THRESHOLD,
                "target_coverage": deequ.TARGET_COVERAGE,
                "z": deequ.Z,
            },
            "tfdv": {"max_string_domain_size": tfdv.MAX_STRING_DOMAIN_SIZE},
            "pwheel": {"seeds": pwheel.SEEDS, "max_positions": pwheel.MAX_POSITIONS},
            "grok": {"probe_size": grok.PROBE_SIZE},
            "schema_matching": {
                "max_columns": schema_matching.MAX_COLUMNS,
                "max_values": schema_matching.MAX_VALUES,
            },
        },
    }
    index.close()
    report["_per_case"] = _per_case(cases, runs, scores, applicable, per_case_drift)
    return report


def _fmdv_block(
    cases: Sequence[Case],
    counter: RuleCounter,
    methods: dict[str, Any],
    subsets: dict[str, list[int]],
    rules: dict[str, list[Rule | None]] | None = None,
    cause_of: Callable[[int], str] | None = None,
) -> dict[str, Any]:
    """The FMDV variants' summaries, abstentions, noise, the default's calibration and failures.

    ``methods`` fit the rules (variant -> a method with ``fit``), unless
    ``rules`` gives them already; ``cause_of`` (a case position -> the cause
    of the default's abstention there, :func:`~benchmarks.avbench.abstentions.cause`)
    adds the census of its abstentions.
    """
    if rules is None:
        rules = {v: _fit(m, cases).rules for v, m in methods.items()}
    block: dict[str, Any] = {"methods": {}}
    for variant, got in rules.items():
        scores = score(cases, got, counter.count(got))
        block["methods"][variant] = {
            **_summary(scores, subsets),
            "abstentions": sum(r is None for r in got),
            "noise": noise.interval(scores),
        }
        if variant == DEFAULT_VARIANT:
            passed = [s.precision for s in scores]
            block["calibration"] = calibration(got, passed, counter.count(got))
            block["failures"] = failures(cases, got, scores, subsets["repetitive"])
            drift_report, _ = drift.drift_recall(
                cases, {variant: got}, {variant: [s.precision for s in scores]}
            )
            block["drift"] = drift_report["methods"][variant]
            if cause_of is not None:
                block["abstentions"] = _census(cases, got, cause_of, subsets)
    return block


def _census(
    cases: Sequence[Case],
    rules: Sequence[Rule | None],
    cause_of: Callable[[int], str],
    subsets: dict[str, list[int]],
) -> dict[str, Any]:
    """The census of the abstentions among ``rules`` (benchmarks/avbench/abstentions.py)."""
    causes = [(i, cause_of(i)) for i, rule in enumerate(rules) if rule is None]
    return census(cases, causes, subsets["repetitive"])


def _leave_source_out(
    cases: Sequence[Case],
    counter: RuleCounter,
    subsets: dict[str, list[int]],
    cfg: Config,
    defaults: dict[str, Any],
    say: Callable[[str], None],
) -> dict[str, Any]:
    """The FMDV variants on B, each column's rule learned by an index that never saw its source."""
    split = folds.source_folds(cfg.lake)
    where = folds.fold_of(split)
    paths = folds.fold_indexes(cfg.lake, cfg.work, tau=defaults["tau"], say=say)
    rules: dict[str, list[Rule | None]] = {v: [None] * len(cases) for v in FMDV_VARIANTS}
    causes: dict[int, str] = {}
    for k, path in enumerate(paths):
        mine = [c for c in cases if where[c.source] == k]
        with autovalidate.PatternIndex.open(path) as index:
            for variant in FMDV_VARIANTS:
                method = FmdvMethod(variant, index)
                for c in mine:
                    rules[variant][c.idx] = method.fit(c.train)
            # the default's abstentions explained with the index that made them
            for c in mine:
                if rules[DEFAULT_VARIANT][c.idx] is None:
                    causes[c.idx] = cause(c, index)
        say(f"leave-source-out fold {k}: {len(mine)} columns of B")
    block = _fmdv_block(cases, counter, {}, subsets, rules, causes.__getitem__)
    block["folds"] = [
        {"sources": fold, "columns": sum(1 for c in cases if where[c.source] == k)}
        for k, fold in enumerate(split)
    ]
    return block


def _pattern_rule(m: MethodRun, i: int) -> bool:
    """Whether method ``m`` gave case ``i`` a pattern that is not match-anything."""
    rule = m.rules[i]
    return m.pattern_based and rule is not None and not rule.match_anything


def _index_facts(index: autovalidate.PatternIndex) -> dict[str, Any]:
    meta = index.metadata
    return {
        "tau": meta.tau,
        "patterns": meta.patterns,
        "corpus": meta.corpus,
        "built": meta.build.get("finished"),
        "master": meta.build.get("master"),
    }


#: Size of the "long values" latency set (issue "speed at lake scale").
LONG_VALUES_SIZE = 100


def long_values(cases: Sequence[Case], size: int = LONG_VALUES_SIZE) -> list[int]:
    """Indexes of the ``size`` cases of B with the most tokens per training value.

    Tokens as the solver cuts them (:func:`autovalidate.patterns.tokens.tokenize`),
    averaged over a case's training values; ties broken by position in B.
    """

    def mean_tokens(case: Case) -> float:
        return sum(len(tokenize(v)) for v in case.train) / max(1, len(case.train))

    ranked = sorted(range(len(cases)), key=lambda i: (-mean_tokens(cases[i]), i))
    return sorted(ranked[:size])


#: Calls per column of the long-values set for its best-of latency.
BEST_OF = 3
#: The method whose best-of latency is measured: ``suggest_pattern``'s default.
DEFAULT_VARIANT: str = inspect.signature(autovalidate.suggest_pattern).parameters["method"].default


def _best_of(method: FmdvMethod, subset: list[int], cases: Sequence[Case]) -> list[float]:
    """Per case of ``subset``, the least wall time (ms) of :data:`BEST_OF` calls of ``method.fit``.

    One call per column (the Cost table) moves with the machine's noise; the
    least of a few shows the solver's own time. The calls go round the
    columns, so that a column's second call comes after every other column's
    first (its tokens' hierarchy cached by then, as in any process that has
    seen them).
    """
    best = [math.inf] * len(subset)
    for _ in range(BEST_OF):
        for j, i in enumerate(subset):
            started = time.perf_counter()
            method.fit(cases[i].train)
            best[j] = min(best[j], (time.perf_counter() - started) * 1000.0)
    return best


def latency_summary(ms: list[float]) -> dict[str, float]:
    """Median, p95, mean and max (ms) of per-column times, and the number of columns."""
    a = np.asarray(ms)
    return {
        "median_ms": float(np.median(a)),
        "p95_ms": float(np.percentile(a, 95)),
        "mean_ms": float(a.mean()),
        "max_ms": float(a.max()),
        "columns": len(ms),
    }


def _per_case(
    cases: Sequence[Case],
    runs: dict[str, MethodRun],
    scores: dict[str, list[CaseScore]],
    applicable: list[int],
    drift_totals: dict[str, list[float]],
) -> list[dict[str, Any]]:
    chosen = set(applicable)
    rows = []
    for c in cases:
        row: dict[str, Any] = {
            "case": c.idx,
            "source": c.source,
            "table_id": c.table_id,
            "column_position": c.column_position,
            "column_name": c.column_name,
            "n_values": len(c.values),
            "n_train": c.n_train,
            "applicable": c.idx in chosen,
        }
        for name in METHOD_KEYS:
            rule = runs[name].rules[c.idx]
            row[f"{name}:rule"] = "" if rule is None else rule.description
            row[f"{name}:precision"] = scores[name][c.idx].precision
            row[f"{name}:recall"] = round(scores[name][c.idx].recall, 6)
            if name in drift_totals:
                d = drift_totals[name][c.idx]
                row[f"{name}:drift_recall"] = "" if math.isnan(d) else round(d, 6)
        rows.append(row)
    return rows


def sensitivity(
    cases: Sequence[Case],
    counter: RuleCounter,
    index: autovalidate.PatternIndex,
    runs: dict[str, MethodRun],
    applicable: list[int],
    defaults: dict[str, Any],
    cfg: Config,
    say: Callable[[str], None],
) -> dict[str, Any]:
    """FMDV variants with one of r, m, tau, theta varied from the product defaults (Fig. 12).

    tau values other than the default index's need an index built with that
    tau (``work/index-tau{tau}``, reused when its metadata matches); a tau
    without one is listed under ``omitted``.
    """
    out: dict[str, Any] = {"defaults": {k: defaults[k] for k in GRID}, "subset": "both"}
    out["note"] = "each grid of BENCHMARK.md plus the product default, one parameter at a time"
    indexes_by_tau: dict[int, autovalidate.PatternIndex] = {index.tau: index}
    omitted: dict[str, str] = {}
    for tau in GRID["tau"]:
        tau = int(tau)
        if tau in indexes_by_tau:
            continue
        path = cfg.work / f"index-tau{tau}"
        if not indexes.index_matches(path, cfg.lake, tau):
            if cfg.skip_build:
                omitted[f"tau={tau}"] = f"no index with tau={tau} at {path} and --skip-build"
                continue
            say(f"building the tau={tau} index at {path}")
            indexes.build(cfg.lake, path, tau=tau, master="local[2]")
        indexes_by_tau[tau] = autovalidate.PatternIndex.open(path)
    for param, grid in GRID.items():
        # the grid of BENCHMARK.md, plus the product's own operating point
        values = tuple(sorted({*grid, defaults[param]}))
        variants = THETA_VARIANTS if param == "theta" else FMDV_VARIANTS
        entry: dict[str, Any] = {
            "values": [],
            "methods": {v: {"all": [], "applicable": []} for v in variants},
        }
        for value in values:
            params = {k: defaults[k] for k in ("r", "m", "theta", "tau")}
            params[param] = int(value) if param in ("m", "tau") else value
            idx = indexes_by_tau.get(params["tau"])
            if idx is None:
                continue
            entry["values"].append(params[param])
            for variant in variants:
                if params == {k: defaults[k] for k in ("r", "m", "theta", "tau")} and idx is index:
                    rules = runs[variant].rules
                else:
                    rules = _fit(FmdvMethod(variant, idx, {**params}), cases).rules
                counts = counter.count(rules)
                s = score(cases, rules, counts)
                entry["methods"][variant]["all"].append(summarize(s))
                entry["methods"][variant]["applicable"].append(summarize(s, applicable))
            say(f"sensitivity {param}={params[param]}")
        out[param] = entry
    for idx in indexes_by_tau.values():
        if idx is not index:
            idx.close()
    if omitted:
        out["omitted"] = omitted
    return out
