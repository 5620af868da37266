"""Range checks on a CSV read as text compare numbers, in the metric and in the row split.

DuckDB refuses to compare text with a number (a binder error made every
`is_in_range` on a CSV column a failed constraint with no value); the column
is read as a number there, as a mean reads it. Real data: the beers table.
"""

from __future__ import annotations

import pandas as pd

import autovalidate as av
from autovalidate import Check, CheckLevel


def test_is_in_range_on_a_csv_column_counts_numbers_and_splits_the_same_rows(dirty_clean):
    path = dirty_clean / "beers" / "clean.csv"
    text = pd.read_csv(path, dtype=str, keep_default_na=False)
    ounces = pd.to_numeric(text["ounces"], errors="coerce")
    inside = ounces.isna() | ounces.between(10, 16)  # a value that is no number is null
    check = Check(CheckLevel.ERROR, "cans").is_in_range("ounces", 10, 16).is_non_negative("abv")
    result = av.validate(str(path), [check])
    (ranges, non_negative) = result.rows()
    assert ranges["value"] == inside.mean() and 0 < ranges["value"] < 1
    assert non_negative["constraint_status"] == "Success"
    _, invalid = result.split()
    broken = invalid.df()
    assert sorted(broken["id"]) == sorted(text.loc[~inside, "id"])
    assert {"19.2", "24", "32"} <= set(broken["ounces"])
