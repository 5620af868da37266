"""``autovalidate suggest``: constraints for every column of a table, or a pattern for one."""

from __future__ import annotations

import time
from pathlib import Path

import typer
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from autovalidate.checks.check import CheckLevel
from autovalidate.checks.spec import suite_to_json
from autovalidate.cli.common import (
    console,
    field_table,
    handle_errors,
    local_input,
    print_json,
    reading,
    require_rows,
    styled,
    write_atomically,
)
from autovalidate.errors import EmptyColumnError
from autovalidate.index.default import index_summary, open_default_index
from autovalidate.index.reader import PatternIndex
from autovalidate.io import column_values
from autovalidate.nulls import drop_missing
from autovalidate.report import pattern_report, render_html, suggestion_report
from autovalidate.report.model import PatternDetails
from autovalidate.solver.fmdv import METHODS, SolverParams
from autovalidate.suggest.pattern import MAX_VALUES, suggest_pattern
from autovalidate.suggest.runner import ConstraintSuggestionResult, ConstraintSuggestionRunner

_D = SolverParams()


@handle_errors
def suggest(
    file: str = typer.Argument(..., help="CSV/TSV or Parquet file."),
    column: str = typer.Option(
        None,
        "--column",
        "-c",
        help="Infer an Auto-Validate pattern for this column only. "
        "Without it: Deequ's suggestion rules for every column, and the pattern rule.",
    ),
    index: Path = typer.Option(
        None,
        "--index",
        "-i",
        help="Pattern index directory (autovalidate index build) of your own lake. "
        "Without it: the default index packaged with autovalidate (a public corpus).",
    ),
    method: str = typer.Option("fmdv-vh", "--method", "-m", help=f"One of {', '.join(METHODS)}."),
    r: float = typer.Option(
        _D.max_fpr, "--r", min=0.0, max=1.0, help="Largest admissible estimated FPR (fraction)."
    ),
    m: int = typer.Option(
        _D.min_cov, "--m", min=0, help="Least admissible coverage (corpus columns)."
    ),
    theta: float = typer.Option(
        _D.theta,
        "--theta",
        min=0.0,
        max=0.999,
        help="Tolerated non-conforming fraction (H methods).",
    ),
    tau: int = typer.Option(
        _D.tau, "--tau", min=1, max=13, help="Most tokens per pattern or segment."
    ),
    objective: str = typer.Option(
        _D.objective, "--objective", help="fpr (FMDV, Eq. 5) or coverage (CMDV)."
    ),
    max_shortfall: float = typer.Option(
        _D.max_shortfall,
        "--max-shortfall",
        min=0.0,
        max=1.0,
        help="Most the run-length bounds of a pattern (<digit>{3,} for <digit>+) may add "
        "to its estimated FPR (fraction); 0: no bound.",
    ),
    max_values: int = typer.Option(
        MAX_VALUES,
        "--max-values",
        min=0,
        help="Most values a pattern is inferred from; a larger column is sampled "
        "(seeded) and the result says so. 0: every value.",
    ),
    level: CheckLevel = typer.Option(
        CheckLevel.ERROR,
        "--level",
        case_sensitive=False,
        help="Check level of the suggested constraints in the --out suite (whole table).",
    ),
    test_ratio: float = typer.Option(
        None,
        "--test-ratio",
        min=0.0,
        max=1.0,
        help="Whole table: suggest on a random 1-RATIO of the rows and report how each "
        "suggestion holds on the rest (Deequ's evaluation, PVLDB 2018 §5.3).",
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the train/test split."),
    out: Path = typer.Option(
        None, "--out", "-o", help="Write the constraints as a suite JSON file for `validate`."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    html: Path = typer.Option(
        None, "--html", help="Also write a self-contained HTML report of the suggestions."
    ),
) -> None:
    """Suggest validation constraints for FILE.

    Without --column: profile every column (Deequ's column profiler, three
    shared-scan passes) and apply Deequ's suggestion rules (completeness with
    its Bernoulli bound, type, non-negativity, uniqueness, categorical ranges,
    text lengths), plus the Auto-Validate pattern rule for string columns
    (with --index, or else the packaged default index). Each suggestion comes
    with its reason and Python code; --out writes them as a suite that
    `autovalidate validate FILE --constraints` runs. With --column: infer one
    regex validation pattern (Auto-Validate).

    Exit codes: 0 done (also when no constraint applies), 2 error.
    """
    pattern_options = {
        "method": method,
        "r": r,
        "m": m,
        "theta": theta,
        "tau": tau,
        "objective": objective,
        "max_shortfall": max_shortfall,
        "max_values": max_values or None,
    }
    with local_input(file) as path, reading(path):
        require_rows(path, path)
        if column is not None:
            _suggest_pattern(path, column, index, pattern_options, out, as_json, html)
        else:
            _suggest_table(
                path, index, pattern_options, level, test_ratio, seed, out, as_json, html
            )


def _suggest_table(
    file: Path,
    index: Path | None,
    pattern_options: dict[str, object],
    level: CheckLevel,
    test_ratio: float | None,
    seed: int,
    out: Path | None,
    as_json: bool,
    html: Path | None,
) -> None:
    started = time.perf_counter()
    builder = ConstraintSuggestionRunner.on_data(str(file))
    if test_ratio is not None:
        builder = builder.use_train_test_split_with_testset_ratio(test_ratio, seed)
    with Progress(
        TextColumn("{task.description}", style="bold", markup=False),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=as_json,
        transient=True,
    ) as progress:
        task = progress.add_task("reading", total=None)

        def report(text: str, done: int, total: int | None) -> None:
            progress.update(task, description=text, completed=done, total=total)

        builder = builder.on_progress(report)
        if index is not None:
            with PatternIndex.open(index) as idx:
                result = builder.with_pattern_index(idx, **pattern_options).run()
        else:  # the runner uses the packaged default index
            result = builder.with_pattern_options(**pattern_options).run()
    elapsed = time.perf_counter() - started
    if out is not None:
        write_atomically(out, result.to_suite(level=level).to_json() + "\n")
    if html is not None:
        write_atomically(html, render_html(suggestion_report(file, result)))
    if as_json:
        print_json(
            {
                "file": str(file),
                **result.to_dict(),
                "elapsed_s": round(elapsed, 3),
                "out": None if out is None else str(out),
            }
        )
        return
    _print_table_result(file, result, elapsed, out)


def _print_table_result(
    file: Path, result: ConstraintSuggestionResult, elapsed: float, out: Path | None
) -> None:
    table = Table("column", "suggested constraint", "reason", title=f"suggestions for {file}")
    for s in result.suggestions:
        code = s.code if len(s.code) <= 90 else s.code[:87] + "..."
        weakened = "; weakened: failed as suggested on this data" if s.adjustment else ""
        table.add_row(s.column, code, f"{s.description} ({s.current_value}){weakened}")
    console.print(table)
    for s in result.dropped:
        console.print(f"dropped {s.code} for {s.column!r}: {s.adjustment}", soft_wrap=True)
    console.print(
        f"{len(result.suggestions)} suggestions for {len(result.column_profiles.profiles)} "
        f"columns from {result.num_records:,} rows in {elapsed:.1f} s "
        f"({result.column_profiles.stats.scans} scans)"
    )
    if result.pattern_index is not None:
        console.print(f"pattern rule applied with the {result.pattern_index}")
    if result.pattern_rule != "applied":
        console.print(styled(f"pattern rule {result.pattern_rule}", "yellow"), soft_wrap=True)
    if result.evaluation is not None:
        rows = result.evaluation_rows()
        held = sum(1 for row in rows if row["status"] == "Success")
        evaluation = Table("column", "rule", "on the test set", "coverage", title="evaluation")
        for row in rows:
            status = (
                styled("holds", "green") if row["status"] == "Success" else styled("fails", "red")
            )
            coverage = "" if row["coverage"] is None else f"{row['coverage']:.4g}"
            evaluation.add_row(row["column"], row["rule"], status, coverage)
        console.print(evaluation)
        console.print(f"{held} of {len(rows)} suggestions hold on the test set")
    if out is not None:
        console.print(f"wrote {out}")


def _suggest_pattern(
    file: Path,
    column: str,
    index: Path | None,
    options: dict[str, object],
    out: Path | None,
    as_json: bool,
    html: Path | None,
) -> None:
    values = column_values(str(file), column)
    if not any(v is not None for v in values):
        raise EmptyColumnError(column)
    with PatternIndex.open(index) if index is not None else open_default_index() as idx:
        started = time.perf_counter()
        constraint = suggest_pattern(values, idx, column=column, **options)  # type: ignore[arg-type]
        elapsed_ms = (time.perf_counter() - started) * 1000
        used = index_summary(idx)
    n_values = sum(v is not None for v in values)
    reason = (
        None
        if constraint is not None
        else "every value is missing (null tokens such as NA or N/A, or blanks)"
        if next(drop_missing(values), None) is None
        else "no feasible hypothesis pattern (FPR > r or coverage < m)"
    )
    if out is not None and constraint is not None:
        write_atomically(out, suite_to_json([constraint]) + "\n")
    if html is not None:
        write_atomically(html, render_html(pattern_report(file, column, constraint, n_values)))
    if as_json:
        print_json(
            {
                "file": str(file),
                "column": column,
                "index": used,
                "values": n_values,
                "constraint": constraint.to_dict() if constraint else None,
                "description": constraint.description if constraint else None,
                "reason": reason,
                "elapsed_ms": round(elapsed_ms, 2),
                "out": str(out) if out is not None and constraint is not None else None,
            }
        )
        return
    if constraint is None:
        console.print(
            styled("no constraint", "yellow"),
            f"({used['description']})",
            f"for {column!r}: "
            + (
                f"{reason}."
                if reason and reason.startswith("every value")
                else "no hypothesis pattern is feasible "
                f"(estimated FPR > r={options['r']} or coverage < m={options['m']}); "
                "natural-language columns usually end here."
            ),
        )
        return
    table = field_table()
    table.add_row("column", f"{column} ({n_values:,} non-null values)")
    if "inferred_from" in constraint.params:
        table.add_row(
            "sample",
            f"pattern inferred from {constraint.params['inferred_from']:,} values drawn at "
            "random (seeded); the training counts cover every value",
        )
    table.add_row("index", str(used["description"]))
    table.add_row("pattern", constraint.pattern)
    table.add_row("reads", constraint.description)
    table.add_row("regex", constraint.regex)
    table.add_row("estimated FPR", f"{constraint.fpr:.4f}")
    table.add_row(
        "non-conforming in training",
        f"{constraint.train_nonconforming} ({constraint.theta_train:.2%})",
    )
    table.add_row(
        "drift test",
        f"{constraint.test}"
        + (f", alpha={constraint.alpha}" if constraint.test != "strict" else ""),
    )
    table.add_row("method", f"{options['method']} in {elapsed_ms:.0f} ms")
    console.print(table)
    details = PatternDetails.of(constraint)
    if len(details.segments) > 1:
        head = ["format"] if details.formats > 1 else []
        segs = Table(
            *head, "segment", "reads", "FPR", "coverage", "optional", title="vertical cuts"
        )
        segs.columns[len(head)].overflow = "fold"
        for seg in details.segments:
            segs.add_row(
                *([str(seg.branch + 1)] if head else []),
                seg.pattern,
                seg.reads,
                f"{seg.fpr:.4f}",
                "literal" if seg.literal else f"{seg.cov:,}",
                "yes" if seg.optional else "",
            )
        console.print(segs)
    if out is not None:
        console.print(f"wrote {out}")
