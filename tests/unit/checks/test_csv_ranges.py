"""Range checks on a CSV read as text compare numbers, in the metric and in the row split.

DuckDB refuses to compare text with a number (a binder error made every
`is_in_range` on a CSV column a failed constraint with no value); the column
is read as a number there, as a mean reads it. Real data: the beers table.
"""

from __future__ import annotations

import pandas as pd
import pytest

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


def test_a_csv_range_fails_text_that_is_no_number_as_deequ_does_in_one_scan(dirty_clean):
    """`0.09%` in a number column is outside any range, an empty cell inside (Deequ on Spark).

    Spark (outside ANSI mode) casts the text for `abv >= 0`; a text that is
    not a number makes the comparison null, and a null predicate does not
    comply. The range, the mean and the maximum share the one scan of the file.
    """
    path = dirty_clean / "beers" / "dirty.csv"
    text = pd.read_csv(path, dtype=str, keep_default_na=False)
    abv = pd.to_numeric(text["abv"], errors="coerce")
    empty = text["abv"] == ""
    assert empty.any() and (abv.isna() & ~empty).any()  # the data have both
    inside = empty | abv.between(0, 0.1)
    check = (
        Check(CheckLevel.ERROR, "abv")
        .is_in_range("abv", 0, 0.1)
        .has_mean("abv", lambda v: v > 0)
        .has_max("abv", lambda v: v > 0)
    )
    result = av.validate(str(path), [check])
    ranges, mean, maximum = result.rows()
    assert ranges["value"] == inside.mean()
    assert mean["value"] == pytest.approx(abv.mean(), rel=1e-12) and maximum["value"] == abv.max()
    assert result.verification.metrics.stats.scans == 1
    _, invalid = result.split()
    assert sorted(invalid.df()["id"]) == sorted(text.loc[~inside, "id"])
