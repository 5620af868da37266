"""Whole-table suggestion on a wide table: the suggestions of each column alone (issue 35)."""

from __future__ import annotations

import csv
import random

from autovalidate.suggest import ConstraintSuggestionRunner

COLUMNS = 18
ROWS = 20


def _wide_csv(path):
    """A CSV of ``COLUMNS`` columns cycling through six kinds, seeded."""
    rng = random.Random(35)
    kinds = [
        lambda: str(rng.randrange(1000)),  # unique-ish non-negative integers
        lambda: f"{rng.gauss(0, 1):.3f}",  # fractional, some negative
        lambda: rng.choice(["red", "green", "blue"]),  # categories
        lambda: f"ID-{rng.randrange(100000):05d}",  # codes: a pattern
        lambda: rng.choice(["", "x", "7"]),  # nulls mixed with a string and a number
        lambda: rng.choice(["2024-01-0" + str(rng.randrange(1, 10)), "n/a"]),  # dates and text
    ]
    columns = [[kinds[c % len(kinds)]() for _ in range(ROWS)] for c in range(COLUMNS)]
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow([f"c{c}" for c in range(COLUMNS)])
        writer.writerows(zip(*columns, strict=True))
    return path


def test_whole_table_suggestions_are_those_of_each_column_alone(tmp_path, monkeypatch):
    # small queries of the held columns: their bounds fall inside the aggregations of a column
    monkeypatch.setattr("autovalidate.engines.duckdb.AGGREGATES_PER_QUERY", 7)
    data = str(_wide_csv(tmp_path / "wide.csv"))
    whole = ConstraintSuggestionRunner.on_data(data).run()
    # the runner read the columns once (held them): no pass of the profile scans, nor
    # the numeric view of the columns holding numbers (held from memory), nor the
    # pattern rule's reads of each string column
    assert whole.column_profiles.stats.scans == 0
    assert "query: aggregate 7" in whole.column_profiles.stats.log
    scans = [line for line in whole.stats.log if line.startswith("scan:")]
    assert scans == [f"scan: hold {COLUMNS} columns"]
    assert f"query: hold {COLUMNS} columns" in whole.stats.log
    assert "query: text batches" in whole.stats.log
    assert len({s.column for s in whole.suggestions}) == COLUMNS
    for column in whole.column_profiles.profiles:
        alone = ConstraintSuggestionRunner.on_data(data).restrict_to_columns([column]).run()
        assert whole.column_profiles[column] == alone.column_profiles[column], column
        assert [s.to_dict() for s in whole.suggestions_for(column)] == [
            s.to_dict() for s in alone.suggestions
        ], column
        assert [s.to_dict() for s in whole.dropped if s.column == column] == [
            s.to_dict() for s in alone.dropped
        ], column
