"""``autovalidate suggest``: constraints for every column of a table, or a pattern for one."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table

from autovalidate.checks.levels import CheckLevel
from autovalidate.cli.common import (
    console,
    field_table,
    handle_errors,
    local_input,
    print_json,
    progress,
    require_rows,
    styled,
    write_atomically,
    wrote,
)
from autovalidate.pattern_inference import (
    MAX_VALUES,
    NoPatternReason,
    infer_pattern,
    solver_params,
)
from autovalidate.solver.fmdv import METHODS, SolverParams
from autovalidate.wording import counted

if TYPE_CHECKING:
    from autovalidate.suggest.rules import ConstraintSuggestion
    from autovalidate.suggest.runner import ConstraintSuggestionResult

_D = SolverParams()


@handle_errors
def suggest(
    file: str = typer.Argument(..., metavar="FILE", help="CSV/TSV or Parquet file."),
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
    method: str = typer.Option("fmdv-vh", "--method", help=f"One of {', '.join(METHODS)}."),
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
    max_position_risk: float = typer.Option(
        _D.max_position_risk,
        "--max-position-risk",
        min=0.0,
        max=1.0,
        help="Largest admissible risk of a vertical cut priced by positions (fraction): its "
        "shape risk (later values in a shape the training values do not show) plus its "
        "parts' risks, from the index's generalization statistics (a budget of a false "
        "alarm, beside r for the paper's cut).",
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
    verbose: bool = typer.Option(
        False,
        "--verbose",
        "-v",
        help="Whole table: each suggestion's Python code and full reason (every category of a "
        "categorical range), not one line per suggestion.",
    ),
) -> None:
    """Suggest validation constraints for FILE.

    Without --column: profile every column (Deequ's column profiler, three
    shared-scan passes) and apply Deequ's suggestion rules (completeness with
    its Bernoulli bound, type, non-negativity, uniqueness, categorical ranges,
    text lengths), plus the Auto-Validate pattern rule for string columns
    (with --index, or else the packaged default index). Each suggestion comes
    with its reason and Python code; --out writes them as a suite that
    `autovalidate validate FILE --constraints` runs. The table has one line per
    suggestion (long lists of categories cut, with their count); --verbose,
    --json and --html give all of it. With --column: infer one regex
    validation pattern (Auto-Validate).

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
        "max_position_risk": max_position_risk,
        "max_values": max_values or None,
    }
    with local_input(file) as path:
        require_rows(path, path)
        if column is not None:
            params = solver_params(
                r=r,
                m=m,
                theta=theta,
                tau=tau,
                objective=objective,
                max_shortfall=max_shortfall,
                max_position_risk=max_position_risk,
            )
            _suggest_pattern(
                path, column, index, params, method, max_values or None, out, as_json, html
            )
        else:
            _suggest_table(
                path, index, pattern_options, level, test_ratio, seed, out, as_json, html, verbose
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
    verbose: bool,
) -> None:
    from autovalidate.index.reader import PatternIndex
    from autovalidate.report import render_html, suggestion_report
    from autovalidate.suggest.runner import ConstraintSuggestionRunner

    started = time.perf_counter()
    builder = ConstraintSuggestionRunner.on_data(str(file))
    if test_ratio is not None:
        builder = builder.use_train_test_split_with_testset_ratio(test_ratio, seed)
    # seconds of work: a bar at a terminal, no lines in a file (its output is the table)
    with progress("reading", unit="columns", enabled=not as_json, off_terminal=False) as update:
        builder = builder.on_progress(update)
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
                "elapsed_ms": round(elapsed * 1000, 1),
                "out": None if out is None else str(out),
            }
        )
        return
    if verbose:
        _print_suggestions(file, result)
    else:
        _print_summary(file, result)
    _print_table_result(result, elapsed, verbose)
    wrote(out, html)


#: Categories of an ``is_contained_in`` shown on its one line; the rest are counted.
SHOWN_CATEGORIES = 3
#: Widest the column column gets in the one-line table, in characters.
MAX_COLUMN_WIDTH = 20


def compact(s: ConstraintSuggestion) -> tuple[str, str]:
    """A suggestion's constraint and its reason, each short enough for one line.

    The constraint: its method, its assertion and its arguments but the column
    (the table's first column names it), a list of categories as its count and
    the first :data:`SHOWN_CATEGORIES` (``is_contained_in >= 0.9 [38 values:
    'aa', 'ua', 'boston', …]``), a pattern constraint as its pattern. The
    reason: the profile value the rule rests on, numbers to 4 significant
    digits; for a suggestion weakened because it failed on its own data, that.
    """
    from autovalidate.pattern_constraint import PatternConstraint

    c = s.constraint
    if isinstance(c, PatternConstraint):
        return f"pattern {c.pattern}", f"estimated FPR {c.fpr:.4f}"
    parts = [c.constraint]
    if c.assertion is not None:
        parts.append(f"{c.assertion.op} {c.assertion.value!r}")
    for value in c.args.values():
        if value == s.column:
            continue
        if isinstance(value, (list, tuple)) and len(value) > SHOWN_CATEGORIES:
            shown = ", ".join(map(repr, value[:SHOWN_CATEGORIES]))
            parts.append(f"[{len(value)} values: {shown}, …]")
        else:
            parts.append(repr(list(value) if isinstance(value, tuple) else value))
    reason = s.current_value
    if s.adjustment:  # "<code> failed on the data it was suggested from (value V), weakened ..."
        was = re.match(r"\.(\w+)\(.*\(value ([^)]+)\)", s.adjustment)
        reason = "weakened: " + (f"{was[1]} failed here ({was[2]})" if was else s.adjustment)
    reason = re.sub(r"\d+\.\d{5,}", lambda m: f"{float(m.group()):.4g}", reason)
    return " ".join(parts), reason


def _print_summary(file: Path, result: ConstraintSuggestionResult) -> None:
    """One line per suggestion: column, constraint, reason; cut where the console ends."""
    rows = [(s.column, *compact(s)) for s in result.suggestions]
    headers = ("column", "suggested constraint", "because")
    rules = 3 * len(headers) + 1  # each column: 2 of padding and 1 of rule; one rule more
    first = min(MAX_COLUMN_WIDTH, max([len(headers[0]), *(len(r[0]) for r in rows)]))
    room = max(20, console.width - rules - first)
    constraint, reason = (max([len(headers[i]), *(len(r[i]) for r in rows)]) for i in (1, 2))
    # the constraint gets what it needs, up to what leaves the reason 2/5 of the room
    second = min(constraint, max(room - reason, room * 3 // 5))
    table = Table(*headers, title=f"suggestions for {file}")
    for column, width in zip(table.columns, (first, second, room - second), strict=True):
        column.no_wrap, column.overflow, column.max_width = True, "ellipsis", width
    for row in rows:
        table.add_row(*row)
    console.print(table)


def _print_suggestions(file: Path, result: ConstraintSuggestionResult) -> None:
    """Every suggestion with its Python code and its full reason (``--verbose``)."""
    table = Table("column", "suggested constraint", "reason", title=f"suggestions for {file}")
    for s in result.suggestions:
        table.add_row(s.column, s.code, s.reason)
    console.print(table)


def _print_table_result(result: ConstraintSuggestionResult, elapsed: float, verbose: bool) -> None:
    for s in result.dropped:
        console.print(f"dropped {s.code} for {s.column!r}: {s.adjustment}", soft_wrap=True)
    console.print(
        f"{counted(len(result.suggestions), 'suggestion')} for "
        f"{counted(len(result.column_profiles.profiles), 'column')} from "
        f"{counted(result.num_records, 'row')} in {elapsed:.1f} s "
        f"({counted(result.stats.scans, 'scan')} of the data)"
        + ("" if verbose else "; all of each: --verbose, --json, --html"),
        soft_wrap=True,
    )
    if result.pattern_index is not None:
        console.print(f"pattern rule applied with the {result.pattern_index}")
    if result.pattern_rule != "applied":
        console.print(styled(f"pattern rule {result.pattern_rule}", "yellow"), soft_wrap=True)
    if result.evaluation is not None:
        rows = result.evaluation_rows()
        held = sum(1 for row in rows if row["status"] == "Success")
        evaluation = Table("column", "rule", "on the test set", "metric", title="evaluation")
        for row in rows:
            status = (
                styled("holds", "green") if row["status"] == "Success" else styled("fails", "red")
            )
            metric = "" if row["metric"] is None else f"{row['metric']:.4g}"
            evaluation.add_row(row["column"], row["rule"], status, metric)
        console.print(evaluation)
        holds = "holds" if len(rows) == 1 else "hold"
        console.print(f"{held} of {counted(len(rows), 'suggestion')} {holds} on the test set")


def _suggest_pattern(
    file: Path,
    column: str,
    index: Path | None,
    params: SolverParams,
    method: str,
    max_values: int | None,
    out: Path | None,
    as_json: bool,
    html: Path | None,
) -> None:
    from autovalidate.checks.spec import suite_to_json
    from autovalidate.index.default import index_summary, open_default_index
    from autovalidate.index.reader import PatternIndex
    from autovalidate.report import pattern_report, render_html
    from autovalidate.report.model import PatternDetails

    with PatternIndex.open(index) if index is not None else open_default_index() as idx:
        started = time.perf_counter()
        # streamed from the file: memory holds the sample of max_values, not the column
        suggestion = infer_pattern(
            str(file),
            idx,
            params=params,
            method=method,
            column=column,
            max_values=max_values,
            diagnose_abstention=True,
        )
        elapsed_ms = (time.perf_counter() - started) * 1000
        used = index_summary(idx)
    constraint, reason, diagnosis = suggestion.constraint, suggestion.reason, suggestion.diagnosis
    n_values = suggestion.non_null
    if out is not None and constraint is not None:
        write_atomically(out, suite_to_json([constraint]) + "\n")
    if html is not None:
        why = [] if reason is None else [reason.explanation]
        why += [] if diagnosis is None else diagnosis.lines
        write_atomically(html, render_html(pattern_report(file, column, constraint, n_values, why)))
    if as_json:
        print_json(
            {
                "file": str(file),
                "column": column,
                "index": used,
                "values": n_values,
                "constraint": constraint.to_dict() if constraint else None,
                "description": constraint.description if constraint else None,
                "reason": None if reason is None else reason.explanation,
                "diagnosis": None if diagnosis is None else diagnosis.to_dict(),
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
                f"{reason.explanation}."
                if reason is NoPatternReason.ALL_MISSING
                else "no hypothesis pattern is feasible "
                f"(estimated FPR > r={params.max_fpr} or coverage < m={params.min_cov}; "
                "a cut priced by positions: risk > "
                f"max_position_risk={params.max_position_risk}); "
                "free text, and values whose tokens differ from value to value (random "
                "base64 keys, lists of items of several shapes), usually end here."
            ),
        )
        for line in [] if diagnosis is None else diagnosis.lines:
            console.print(f"  {line}")
        wrote(html)
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
    table.add_row("method", f"{method} in {elapsed_ms:.0f} ms")
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
                *([str((seg.branch or 0) + 1)] if head else []),
                seg.pattern,
                seg.reads,
                f"{seg.fpr:.4f}",
                "literal" if seg.literal else "positions" if seg.by_positions else f"{seg.cov:,}",
                (f"up to {seg.repeat}x" if seg.repeat > 1 else "yes") if seg.optional else "",
            )
        console.print(segs)
    wrote(out, html)
