"""Writing an AV-bench run: JSON, Markdown table, per-case CSV, Fig. 10 and Fig. 12 plots."""

from __future__ import annotations

import csv
import json
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

from autovalidate.wording import counted
from benchmarks.avbench.failures import PRECISION_TARGET

__all__ = ["machine", "commit", "write"]

#: Files a run may write, by role; a run deletes the ones it does not write.
OUTPUTS = ("json", "md", "cases.csv", "pr.png", "sensitivity.png")


def machine() -> dict[str, Any]:
    """Cores, memory (bytes), CPU model, OS and Python of this machine."""
    memory = None
    cpu = platform.processor() or None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = int(line.split()[1]) * 1024
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cores": os.cpu_count(),
        # the other work on the machine: timings on shared cores follow it
        "load_average_1min": os.getloadavg()[0],
        "memory_bytes": memory,
        "cpu": cpu,
        "os": platform.platform(),
        "python": platform.python_version(),
    }


def commit(repo: Path) -> dict[str, Any]:
    """``git rev-parse HEAD`` of ``repo`` and whether tracked files differ from it.

    ``benchmarks/results/`` is left out: it holds the outputs of runs, this one's included.
    """
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":!benchmarks/results"],
        cwd=repo,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return {"sha": head or None, "dirty": bool(dirty)}


def _paths(out: Path, stem: str) -> dict[str, Path]:
    return {
        role: out / (f"{stem}.{role}" if "." not in role else f"{stem}_{role}") for role in OUTPUTS
    }


def write(report: dict[str, Any], out: Path, stem: str) -> dict[str, Path]:
    """Write the run's files under ``out`` named ``stem.*``; remove stale ones of that stem.

    Returns
    -------
    dict
        Role (``json``, ``md``, ``cases.csv``, ``pr.png``, ``sensitivity.png``) to path.
    """
    out.mkdir(parents=True, exist_ok=True)
    paths = _paths(out, stem)
    per_case = report.pop("_per_case")
    written = {"json", "md", "cases.csv", "pr.png"}
    if "sensitivity" in report:
        written.add("sensitivity.png")
    for role, path in paths.items():
        if role not in written and path.exists():
            path.unlink()
    with paths["cases.csv"].open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(per_case[0]))
        writer.writeheader()
        writer.writerows(per_case)
    _plot_pr(report, paths["pr.png"])
    if "sensitivity" in report:
        _plot_sensitivity(report["sensitivity"], paths["sensitivity.png"])
    report["files"] = {role: p.name for role, p in paths.items() if role in written}
    paths["json"].write_text(json.dumps(report, indent=2, sort_keys=False, default=str) + "\n")
    paths["md"].write_text(markdown(report))
    return {role: p for role, p in paths.items() if role in written}


def _f(x: Any) -> str:
    return "–" if x is None or (isinstance(x, float) and x != x) else f"{x:.3f}"


def _prf(scores: dict[str, Any]) -> str:
    """Precision, recall and F1 of a summary as three table cells."""
    return f"{_f(scores['precision'])} | {_f(scores['recall'])} | {_f(scores['f1'])}"


def markdown(report: dict[str, Any]) -> str:
    """The run as a Markdown page: quality table, cost, sensitivity, links to the plots."""
    c = report["commit"]
    m = report["machine"]
    lines = [
        "# AV-bench results",
        "",
        f"Commit `{c['sha']}`{' (with uncommitted changes)' if c['dirty'] else ''}; "
        f"{m['cores']} cores, {m['memory_bytes'] / 2**30:.0f} GiB"
        + (
            f" (load average {m['load_average_1min']:.1f} at the start)"
            if "load_average_1min" in m
            else ""
        )
        + f"; {report['finished']}; "
        f"{report['seconds']:.0f} s.",
        f"{report['params']['query_set'].get('name', 'B')}: {report['cases']['all']} columns"
        f"{' (quick: a prefix)' if report['params']['query_set']['quick'] else ''}; "
        f"pattern-applicable subset: {report['cases']['applicable']} columns. "
        f"Index: `{report['params']['index']['path']}` (tau={report['params']['index']['tau']}). "
        "Product defaults: "
        + ", ".join(f"{k}={v}" for k, v in report["params"]["defaults"].items())
        + ".",
        "",
        "| method | P (all) | R (all) | F1 (all) | P (appl.) | R (appl.) | F1 (appl.) "
        "| abstains | match-anything | implementation |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, r in report["methods"].items():
        a, s = r["all"], r["applicable"]
        lines.append(
            f"| {name} | {_prf(a)} "
            f"| {_prf(s)} "
            f"| {r['abstentions']} | {r['match_anything']} | {r.get('implementation', '')} |"
        )
    for label, by_variant in report.get("ablation", {}).items():
        lines += [
            "",
            f"Ablation, {label} (other parameters at the defaults):",
            "",
            "| method | P (all) | R (all) | F1 (all) | P (appl.) | R (appl.) | F1 (appl.) |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for name, r in by_variant.items():
            a, s = r["all"], r["applicable"]
            lines.append(f"| {name} | {_prf(a)} | {_prf(s)} |")
    lines += _slice_lines(report)
    lines += _fmdv_lines("FMDV variants, 95% bootstrap intervals", report.get("noise"), None)
    lines += _calibration_lines(report.get("calibration", {}).get("fmdv-vh"), "")
    lines += _abstention_lines(report.get("abstentions"), "")
    lines += _failure_lines(report.get("failures"), "")
    for label, block in report.get("other_indexes", {}).items():
        lines += _block_lines(f"With the index `{label}` (`{block['index']['path']}`)", block)
    if "leave_source_out" in report:
        lso = report["leave_source_out"]
        lines += _block_lines(
            "Leave-source-out B: each column's rule learned with an index of the other "
            f"folds' sources ({len(lso['folds'])} folds)",
            lso,
        )
    lines += _drift_lines(report.get("drift")) + _real_error_lines(report.get("real_errors"))
    files = report["files"]
    lines += [
        "",
        f"Precision/recall (Fig. 10): [{files['pr.png']}]({files['pr.png']}); "
        f"per case: [{files['cases.csv']}]({files['cases.csv']}).",
    ]
    cost = report.get("cost")
    if cost:
        lines += [
            "",
            "## Cost",
            "",
            "Online, `suggest_pattern` with a warm index, per column:",
            "",
            "| method | median ms | p95 ms | mean ms |",
            "|---|---:|---:|---:|",
        ]
        for name, o in cost["online"].items():
            lines.append(
                f"| {name} | {o['median_ms']:.1f} | {o['p95_ms']:.1f} | {o['mean_ms']:.1f} |"
            )
        long = cost.get("online_long_values")
        if long:
            lines += [
                "",
                f"The long-values set: the {len(long['columns'])} columns of B with the most "
                "tokens per training value (GUIDs in paths, timestamps with zones, records):",
                "",
                "| method | median ms | p95 ms | mean ms |",
                "|---|---:|---:|---:|",
            ]
            for name, o in long["methods"].items():
                lines.append(
                    f"| {name} | {o['median_ms']:.1f} | {o['p95_ms']:.1f} | {o['mean_ms']:.1f} |"
                )
            best = long.get("best_of")
            if best:
                lines.append(
                    f"| {best['method']}, least of {best['calls']} calls | {best['median_ms']:.1f} "
                    f"| {best['p95_ms']:.1f} | {best['mean_ms']:.1f} |"
                )
                lines += [
                    "",
                    "One call per column, in order, as the rows above time it, moves with the "
                    "machine's noise; the last row takes the least of "
                    f"{best['calls']} calls per column, the calls going round the columns.",
                ]
        off = cost.get("offline")
        if off:
            lines += [
                "",
                f"Offline index build (tau={off['tau']}), corpus "
                f"{off['corpus_bytes'] / 2**20:.1f} MiB:",
                "",
                "| master | wall s | columns/s | values/s | index MiB | index/corpus |",
                "|---|---:|---:|---:|---:|---:|",
            ]
            for master, b in off["builds"].items():
                lines.append(
                    f"| {master} | {b['wall_seconds']:.0f} | {b['columns_per_second']:.0f} "
                    f"| {b['values_per_second']:.0f} | {b['index_bytes'] / 2**20:.1f} "
                    f"| {b['index_to_corpus']:.2f} |"
                )
    sens = report.get("sensitivity")
    if sens:
        lines += ["", "## Sensitivity (Fig. 12), pattern-applicable subset, P / R", ""]
        for param in ("r", "m", "tau", "theta"):
            entry = sens.get(param)
            if not entry or not entry["values"]:
                continue
            lines += [
                f"| {param} | " + " | ".join(str(v) for v in entry["values"]) + " |",
                "|---|" + "---:|" * len(entry["values"]),
            ]
            for variant, res in entry["methods"].items():
                cells = [f"{_f(x['precision'])} / {_f(x['recall'])}" for x in res["applicable"]]
                lines.append(f"| {variant} | " + " | ".join(cells) + " |")
            lines.append("")
        if "omitted" in sens:
            lines += ["Omitted: " + "; ".join(f"{k}: {v}" for k, v in sens["omitted"].items()), ""]
        lines.append(f"Plot: [{files['sensitivity.png']}]({files['sensitivity.png']}).")
    return "\n".join(lines) + "\n"


def _slice_lines(report: dict[str, Any]) -> list[str]:
    """Every method on the two slices of BENCHMARK.md (repetitive: ≤ 3 distinct training values)."""
    cases = report["cases"]
    if "repetitive" not in cases:
        return []
    lines = [
        "",
        f"Slices: repetitive ({cases['repetitive']} columns whose training part holds at most 3 "
        f"distinct values) and varied ({cases['varied']}):",
        "",
        "| method | P (rep.) | R (rep.) | F1 (rep.) | P (varied) | R (varied) | F1 (varied) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, r in report["methods"].items():
        a, b = r["repetitive"], r["varied"]
        lines.append(f"| {name} | {_prf(a)} | {_prf(b)} |")
    return lines


def _band(x: list[float]) -> str:
    return f"{x[0]:.3f}-{x[1]:.3f}" if x else "–"


def _fmdv_lines(
    title: str, bands: dict[str, Any] | None, summaries: dict[str, Any] | None
) -> list[str]:
    """A table of FMDV variants: P, R, F1 (with slices when given) and the bootstrap intervals."""
    if not bands:
        return []
    lines = ["", f"{title}:", ""]
    if summaries is None:
        lines += ["| method | P | R | F1 |", "|---|---:|---:|---:|"]
        for name, b in bands.items():
            lines.append(
                f"| {name} | {_band(b['precision'])} | {_band(b['recall'])} | {_band(b['f1'])} |"
            )
        return lines
    lines += [
        "| method | P | R | F1 | abstains | F1 (appl.) | F1 (rep.) | F1 (varied) "
        "| P 95% | F1 95% |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, r in summaries.items():
        a = r["all"]
        lines.append(
            f"| {name} | {_prf(a)} "
            f"| {r['abstentions']} | {_f(r['applicable']['f1'])} | {_f(r['repetitive']['f1'])} "
            f"| {_f(r['varied']['f1'])} | {_band(r['noise']['precision'])} "
            f"| {_band(r['noise']['f1'])} |"
        )
    return lines


def _calibration_lines(cal: dict[str, Any] | None, where: str) -> list[str]:
    """The calibration table of FMDV-VH's estimated FPR (benchmarks/avbench/calibration.py)."""
    if not cal or not cal["rules"]:
        return []
    lines = [
        "",
        f"Calibration of FMDV-VH's estimated FPR{where}: {cal['rules']} rules in deciles of "
        "their estimate; `failed` is the share of rules that fail their own test part "
        "(1 - precision), `non-conforming` the mean share of test values the regex rejects. "
        "Every decile of 30 or more rules within 0.05: "
        + {True: "yes.", False: "no.", None: "no decile has 30 rules."}[cal["calibrated"]]
        + _pass_chance(cal["pass_chance"]),
        "`p` tests the decile's failures against a calibrated estimate (each rule failing "
        "with its estimate as the probability: exact, Poisson binomial); `chance` is the "
        "probability that a calibrated estimate's decile falls within 0.05.",
        "",
        "| decile | rules | estimate range | mean estimate | failed | non-conforming "
        "| p | chance |",
        "|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for k, d in enumerate(cal["deciles"], 1):
        lines.append(
            f"| {k} | {d['rules']} | {d['low']:.4f}-{d['high']:.4f} | {d['estimate']:.3f} "
            f"| {d['failed']:.3f} | {d['nonconforming']:.3f} | {d['p_value']:.3f} "
            f"| {d['pass_chance']:.2f} |"
        )
    return lines


def _pass_chance(chance: float | None) -> str:
    """The table's pass chance as a sentence's end ("" when no decile is judged)."""
    if chance is None:
        return ""
    return (
        f" A calibrated estimate would pass every judged decile with probability {chance:.2f}"
        " on this many rules."
    )


def _block_lines(title: str, block: dict[str, Any]) -> list[str]:
    """An FMDV block of the run (another index, leave-source-out B): table, drift, calibration."""
    bands = {k: r["noise"] for k, r in block["methods"].items()}
    lines = _fmdv_lines(title, bands, block["methods"])
    if "drift" in block:
        d = block["drift"]["with_rule"]
        lines += ["", f"FMDV-VH drift recall over the columns with a rule: {_f(d['total'])}."]
    where = ", " + title.split(":")[0]
    return (
        lines
        + _calibration_lines(block.get("calibration"), where)
        + _abstention_lines(block.get("abstentions"), where)
        + _failure_lines(block.get("failures"), where)
    )


def _abstention_lines(found: dict[str, Any] | None, where: str) -> list[str]:
    """The census of FMDV-VH's abstentions by cause (benchmarks/avbench/abstentions.py)."""
    if not found or not found["abstentions"]:
        return []
    return [
        "",
        f"FMDV-VH's {found['abstentions']} abstentions{where}, by what ruled out the vertical "
        "cuts of the largest retained set (`suggest --column` prints it for one column); "
        "`words`: a training value holds a space:",
        "",
        *_cause_table(found["causes"]),
    ]


def _cause_table(causes: dict[str, dict[str, int]]) -> list[str]:
    """A census as a Markdown table: a row per cause, a column per part (slice, total)."""
    parts = list(next(iter(causes.values())))
    lines = ["| cause | " + " | ".join(parts) + " |", "|---|" + "---:|" * len(parts)]
    for why, row in causes.items():
        lines.append(f"| {why} | " + " | ".join(str(row[k]) for k in parts) + " |")
    return lines


def _failure_lines(found: dict[str, Any] | None, where: str) -> list[str]:
    """FMDV-VH's failing rules by cause, and what abstaining could buy (avbench/failures.py)."""
    if not found or not found["census"]["failing"]:
        return []
    census, front = found["census"], found["frontier"]
    lines = [
        "",
        f"FMDV-VH's {census['failing']} failing rules of {census['rules']}{where}, by what most "
        "of the later values they reject are: a training value left out by the horizontal cut "
        "(`tolerated`), a shape the training part never showed (`new shape`), a shape it "
        "showed with a list's unit repeated more often (`more parts`), or the token classes "
        "of a training value (`same shape`: the rule fixed a class, width, bound or constant "
        "too narrowly):",
        "",
        *_cause_table(census["causes"]),
    ]
    if front["break_even"] is None or front["best"] is None:
        return lines
    most = front["most_failing"]
    text = [
        f"Abstaining{where}: it raises F1 only on a group of rules of which more than "
        f"{front['break_even']:.2f} fail. Of {front['selections']} groups that a rule on one or "
        "two features known at suggestion time selects (chosen on these columns: an upper "
        "bound for new ones), "
        + (
            f"the most failing of 10 or more rules fails {most:.2f}."
            if most is not None
            else "none holds 10 or more rules."
        )
    ]
    text.append(_group("The best", front["best"]) + f", against F1 {_f(front['f1'])} without.")
    at = front["best_at_target"]
    text.append(
        _group(f"The best reaching precision {PRECISION_TARGET}", at) + "."
        if at
        else f"No group reaches precision {PRECISION_TARGET}."
    )
    return lines + ["", " ".join(text)]


def _group(title: str, g: dict[str, Any]) -> str:
    """An abstention group of the frontier as a phrase."""
    return (
        f'{title}, "{g["rule"]}" ({counted(g["abstained"], "rule")}, {g["failing"]} failing): '
        f"P {_f(g['precision'])} / R {_f(g['recall'])} / F1 {_f(g['f1'])}"
    )


def _drift_lines(drift: dict[str, Any] | None) -> list[str]:
    """The format-drift recall tables: over B and over the columns with a rule, per kind."""
    if not drift:
        return []
    kinds = list(drift["counted"])
    lines = [
        "",
        "## Format-drift recall",
        "",
        f"Up to {drift['sample_size']} test values of each column of B, mutated by each kind; "
        "a mutated value counts only if its exact shape occurs in no value of the column. "
        "Share rejected (value level), squashed: 0 where the method abstains or its rule "
        "fails its own test. Counted mutated values (columns) per kind: "
        + ", ".join(f"{k} {c['values']} ({c['cases']})" for k, c in drift["counted"].items())
        + ".",
    ]
    subsets = (
        ("all", "mean over B"),
        ("with_rule", "mean over the columns with a rule"),
        (
            "passing",
            "mean over the columns whose rule passes its own test (not squashed: what the "
            "rules reject; the rows above are at most this times the share of rules passing)",
        ),
    )
    for subset, title in subsets:
        lines += [
            "",
            f"Drift recall, {title}:",
            "",
            "| method | columns | total | " + " | ".join(kinds) + " |",
            "|---|---:|---:|" + "---:|" * len(kinds),
        ]
        for name, r in drift["methods"].items():
            d = r[subset]
            lines.append(
                f"| {name} | {d['cases']} | {_f(d['total'])} | "
                + " | ".join(_f(d["kinds"][k]) for k in kinds)
                + " |"
            )
    return lines


def _real_error_lines(real: dict[str, Any] | None) -> list[str]:
    """The real-errors table (dirty-clean tables, cell level)."""
    if not real:
        return []
    lines = [
        "",
        "## Real errors (dirty-clean)",
        "",
        f"Tables {', '.join(real['tables'])}: {real['columns']} columns "
        f"({real['columns_with_errors']} with error cells); learned on the first 10% of each "
        f"clean column, validated on the rest. Error cells in the rest: {real['error_cells']}, "
        f"of which {real['empty_error_cells']} are empty in dirty (missing: no format rule "
        "sees them).",
        *_new_shape_lines(real),
        "",
        "| method | columns with a rule | false alarms | clean cells rejected "
        "| dirty batches failed | error cells flagged | flagged / all "
        "| flagged / non-empty | flagged, no false alarm |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, r in real["methods"].items():
        lines.append(
            f"| {name} | {r['columns_with_rule']} | {r['false_alarms']} "
            f"| {r['clean_cells_rejected']} | {r['dirty_batches_failed']} "
            f"| {r['error_cells_flagged']} | {_f(r['error_cells_flagged_fraction'])} "
            f"| {_f(r['error_cells_flagged_fraction_of_nonempty'])} "
            f"| {r['error_cells_flagged_without_false_alarm']} |"
        )
    return lines


def _new_shape_lines(real: dict[str, Any]) -> list[str]:
    """The share of error cells a class-only rule could flag at most (absent from old reports)."""
    if "new_shape_error_cells" not in real:
        return []
    n = real["new_shape_error_cells"]
    return [
        "",
        f"Error cells whose dirty value has a shape (letters by case, digits, other "
        f"characters as they are) that no clean value of its column has: {n}, "
        f"{_f(n / real['error_cells'])} of all. That is the most a rule built from classes "
        "alone can flag without rejecting a clean value; the other error cells are typos "
        "that keep the shape (`birminxham`), values replaced by other valid-looking ones "
        "(`10:10 a.m.`), or empty. Only a literal part of a pattern or a dictionary can "
        "flag those.",
    ]


def _plot_pr(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 5.5))
    for ax, subset, title in (
        (axes[0], "all", f"all of B ({report['cases']['all']} columns)"),
        (axes[1], "applicable", f"pattern-applicable ({report['cases']['applicable']} columns)"),
    ):
        for k, (name, r) in enumerate(report["methods"].items()):
            p, rec = r[subset]["precision"], r[subset]["recall"]
            if p != p:
                continue
            ours = name.startswith("fmdv")
            ax.scatter(
                rec,
                p,
                marker="*" if ours else "o",
                s=120 if ours else 50,
                color="tab:red" if ours else "tab:blue",
            )
            # staggered labels: methods often land on nearly the same point
            ax.annotate(
                name, (rec, p), textcoords="offset points", xytext=(5, 9 * (k % 3) - 9), fontsize=8
            )
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel("recall")
        ax.set_ylabel("precision")
        ax.set_title(title)
        ax.grid(alpha=0.3)
    fig.suptitle("AV-bench: precision vs. recall (Song & He 2021, Fig. 10)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _plot_sensitivity(sens: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    params = [p for p in ("r", "m", "tau", "theta") if sens.get(p, {}).get("values")]
    fig, axes = plt.subplots(1, len(params), figsize=(4.5 * len(params), 4.5), squeeze=False)
    colors = {
        "fmdv": "tab:blue",
        "fmdv-v": "tab:green",
        "fmdv-h": "tab:orange",
        "fmdv-vh": "tab:red",
    }
    for ax, param in zip(axes[0], params, strict=True):
        entry = sens[param]
        x = list(range(len(entry["values"])))
        for variant, res in entry["methods"].items():
            ys = res["applicable"]
            ax.plot(
                x, [y["precision"] for y in ys], "-o", color=colors[variant], label=f"{variant} P"
            )
            ax.plot(
                x, [y["recall"] for y in ys], "--s", color=colors[variant], label=f"{variant} R"
            )
        ax.set_xticks(x, [str(v) for v in entry["values"]])
        ax.set_xlabel(param + (f" (default {sens['defaults'][param]})"))
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("precision (solid) / recall (dashed), applicable subset")
    axes[0][0].legend(fontsize=7, loc="center right")  # the r panel has all four variants
    fig.suptitle("AV-bench sensitivity (Song & He 2021, Fig. 12)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
