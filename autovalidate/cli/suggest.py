"""``autovalidate suggest``: infer a validation pattern for a column of a file."""

from __future__ import annotations

import time
from pathlib import Path

import typer
from rich.table import Table

from autovalidate.cli.common import console, handle_errors, print_json
from autovalidate.errors import EmptyColumnError
from autovalidate.index.reader import PatternIndex
from autovalidate.infer import suggest_pattern
from autovalidate.io import column_values
from autovalidate.solver.fmdv import METHODS, SolverParams
from autovalidate.suite import suite_to_json

_D = SolverParams()


@handle_errors
def suggest(
    file: Path = typer.Argument(..., help="CSV/TSV or Parquet file with the column's values."),
    column: str = typer.Option(..., "--column", "-c", help="The column to infer a pattern for."),
    index: Path = typer.Option(
        ..., "--index", "-i", help="Pattern index directory (autovalidate index build)."
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
    out: Path = typer.Option(
        None, "--out", "-o", help="Write the constraint as a suite JSON file for `validate`."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Suggest a regex validation constraint for COLUMN of FILE (Auto-Validate).

    Exit codes: 0 done (also when no pattern is feasible: the column gets no
    constraint), 2 error.
    """
    values = column_values(str(file), column)
    if not any(v is not None for v in values):
        raise EmptyColumnError(column)
    with PatternIndex.open(index) as idx:
        started = time.perf_counter()
        constraint = suggest_pattern(
            values,
            idx,
            method=method,
            r=r,
            m=m,
            theta=theta,
            tau=tau,
            objective=objective,
            column=column,
        )
        elapsed_ms = (time.perf_counter() - started) * 1000
    n_values = sum(v is not None for v in values)
    if out is not None and constraint is not None:
        out.write_text(suite_to_json([constraint]) + "\n", encoding="utf-8")
    if as_json:
        print_json(
            {
                "file": str(file),
                "column": column,
                "values": n_values,
                "constraint": constraint.to_dict() if constraint else None,
                "reason": None
                if constraint
                else "no feasible hypothesis pattern (FPR > r or coverage < m)",
                "elapsed_ms": round(elapsed_ms, 2),
                "out": str(out) if out is not None and constraint is not None else None,
            }
        )
        return
    if constraint is None:
        console.print(
            f"[yellow]no constraint[/] for {column!r}: no hypothesis pattern is feasible "
            f"(estimated FPR > r={r} or coverage < m={m}); "
            "natural-language columns usually end here."
        )
        return
    table = Table(show_header=False, box=None)
    table.add_row("column", f"{column} ({n_values:,} non-null values)")
    table.add_row("pattern", constraint.pattern)
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
    if len(constraint.segments) > 1:
        segs = Table("segment", "FPR", "coverage", "optional", title="vertical cuts")
        for s in constraint.segments:
            segs.add_row(
                s["pattern"], f"{s['fpr']:.4f}", f"{s['cov']:,}", "yes" if s["optional"] else ""
            )
        console.print(segs)
    if out is not None:
        console.print(f"wrote {out}")
