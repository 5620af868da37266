"""Real errors: cell-level error detection on ``../shared/dirty-clean`` (``BENCHMARK.md``).

For each table and column (dirty's columns aligned to clean's by position;
the tables are read as :func:`benchmarks.batch_validation.read_text` reads
them: text as written, empty cells as missing):

* train = the first ceil(n/10) non-empty values of the clean column (n its
  non-empty values), in row order; the *rest* = the rows after the last
  training row;
* a rule is learned on train by each method (as on B);
* false alarm: Validate(clean rest, rule) fails (the rule's own decision);
  dirty batch failed: Validate(dirty rest, rule) fails;
* error cells: rows of the rest where dirty != clean (an empty cell compares
  as empty); an error cell is flagged when its dirty value is not empty and
  the rule rejects it (regex full match fails, or not in the dictionary).  An
  error cell that is empty in dirty is a missing value: no format rule sees
  it, it stays in the denominator, and ``empty_error_cells`` says how many.

Columns without a non-empty clean value get no case (every method abstains);
their error cells count in the denominator.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.avbench.drift import shape
from benchmarks.avbench.protocol import Case, Rule, decide, full_match_verdicts
from benchmarks.batch_validation import TABLES, read_text

__all__ = ["Column", "cases", "evaluate", "load_columns"]


@dataclass(frozen=True)
class Column:
    """One column of a dirty-clean table, split for learning.

    Attributes
    ----------
    case
        Its values as a :class:`Case` (train = the first 10% of the non-empty
        clean values, test = the clean rest); None for a column that is empty
        in clean.
    dirty_rest
        Non-empty dirty values of the rest rows.
    errors
        Dirty values (None: empty) of the rest rows where dirty != clean.
    """

    table: str
    position: int
    name: str
    case: Case | None
    dirty_rest: tuple[str, ...]
    errors: tuple[str | None, ...]


def load_columns(root: Path, tables: Sequence[str] = TABLES) -> list[Column]:
    """Every column of every table under ``root`` (``TABLE/clean.csv``, ``TABLE/dirty.csv``)."""
    out: list[Column] = []
    learnable = 0
    for table in tables:
        clean = read_text(root / table / "clean.csv")
        dirty = read_text(root / table / "dirty.csv", columns=list(clean.columns))
        if len(clean) != len(dirty):
            raise ValueError(f"{table}: {len(clean)} clean rows, {len(dirty)} dirty rows")
        for pos, name in enumerate(clean.columns):
            c = list(clean[name])
            d = list(dirty[name])
            rows = [r for r, v in enumerate(c) if v is not None]
            n_train = math.ceil(len(rows) / 10)
            cut = rows[n_train - 1] + 1 if rows else 0
            rest = range(cut, len(c))
            case = None
            if rows:
                values = [c[r] for r in rows[:n_train]] + [c[r] for r in rest if c[r] is not None]
                case = Case(learnable, "dirty-clean", table, pos, name, tuple(values), n_train)
                learnable += 1
            out.append(
                Column(
                    table,
                    pos,
                    name,
                    case,
                    tuple(d[r] for r in rest if d[r] is not None),
                    tuple(d[r] for r in rest if (d[r] or "") != (c[r] or "")),
                )
            )
    return out


def cases(columns: Sequence[Column]) -> list[Case]:
    """The learnable columns as cases (``cases[i].idx == i``)."""
    return [c.case for c in columns if c.case is not None]


def _share(part: int, whole: int) -> float:
    return part / whole if whole else math.nan


def _new_shapes(column: Column) -> int:
    """Error cells whose dirty value has a :func:`~.drift.shape` no clean value of the column has.

    A rule that accepts every clean value and is built from classes alone
    (case, digit and letter-run lengths, symbols) accepts every value of a
    clean value's shape, so this is the most such a rule can flag; past it,
    only a literal part of a pattern (``patients``) or a dictionary can.
    """
    if column.case is None:
        return sum(1 for v in column.errors if v is not None)
    known = {shape(v) for v in column.case.values}
    return sum(1 for v in column.errors if v is not None and shape(v) not in known)


def evaluate(columns: Sequence[Column], runs: dict[str, list[Rule | None]]) -> dict[str, Any]:
    """Per method: columns with a rule, false alarms, dirty batches failed, error cells flagged.

    ``runs[name][i]`` is the method's rule for ``cases(columns)[i]``.
    """
    learnable = [c for c in columns if c.case is not None]
    distinct = [
        {*c.case.test, *c.dirty_rest, *(v for v in c.errors if v is not None)}
        for c in learnable
        if c.case is not None
    ]
    ok = full_match_verdicts(
        (rule, v)
        for rules in runs.values()
        for rule, values in zip(rules, distinct, strict=True)
        if rule is not None
        for v in values
    )
    error_cells = sum(len(c.errors) for c in columns)
    report: dict[str, Any] = {
        "tables": sorted({c.table for c in columns}),
        "columns": len(columns),
        "learnable_columns": len(learnable),
        "error_cells": error_cells,
        "empty_error_cells": sum(1 for c in columns for v in c.errors if v is None),
        "new_shape_error_cells": sum(_new_shapes(c) for c in columns),
        "methods": {},
    }
    for name, rules in runs.items():
        row: dict[str, Any] = {
            "columns_with_rule": 0,
            "false_alarms": 0,
            "clean_cells_rejected": 0,
            "dirty_batches_failed": 0,
            "dirty_columns_with_errors_failed": 0,
            "error_cells_flagged": 0,
            "error_cells_flagged_without_false_alarm": 0,
            "false_alarm_columns": [],
        }
        for col, rule in zip(learnable, rules, strict=True):
            if rule is None:
                continue
            assert col.case is not None
            key = rule.key()
            row["columns_with_rule"] += 1
            bad_clean = sum(1 for v in col.case.test if not ok[(key, v)])
            bad_dirty = sum(1 for v in col.dirty_rest if not ok[(key, v)])
            flagged = sum(1 for v in col.errors if v is not None and not ok[(key, v)])
            alarm = not decide(rule, bad_clean, len(col.case.test))
            row["clean_cells_rejected"] += bad_clean
            row["error_cells_flagged"] += flagged
            if alarm:
                row["false_alarms"] += 1
                row["false_alarm_columns"].append(f"{col.table}.{col.name}")
            else:
                row["error_cells_flagged_without_false_alarm"] += flagged
            if not decide(rule, bad_dirty, len(col.dirty_rest)):
                row["dirty_batches_failed"] += 1
                if col.errors:
                    row["dirty_columns_with_errors_failed"] += 1
        row["error_cells_flagged_fraction"] = _share(row["error_cells_flagged"], error_cells)
        row["error_cells_flagged_fraction_of_nonempty"] = _share(
            row["error_cells_flagged"], error_cells - report["empty_error_cells"]
        )
        report["methods"][name] = row
    report["columns_with_errors"] = sum(1 for c in columns if c.errors)
    return report
