"""The freshness suggestion: is_fresh for a date column whose newest value is recent
(issue 33). On CISA's KEV table from the shared lake, its dateAdded column as dates."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa

from autovalidate.checks import Check, CheckLevel, VerificationSuite
from autovalidate.metrics.base import ColumnKind
from autovalidate.profiles import profile_columns
from autovalidate.suggest.rules import DEFAULT_RULES, RuleContext, fresh_if_recent
from tests.unit.checks.test_schema_freshness import kev

HOUR = 3600.0


def _kev_dated() -> tuple[pa.Table, float]:
    """KEV with dateAdded as dates, and its newest date at midnight UTC in epoch seconds."""
    table = kev()
    dates = [dt.date.fromisoformat(v) for v in table["dateAdded"].to_pylist()]
    table = table.set_column(
        table.column_names.index("dateAdded"), "dateAdded", pa.array(dates, pa.date32())
    )
    newest = dt.datetime.combine(max(dates), dt.time(), dt.timezone.utc).timestamp()
    return table, newest


def test_a_recent_date_column_gets_is_fresh_with_twice_its_age_in_days():
    table, newest = _kev_dated()
    profiles = profile_columns(table, columns=["dateAdded", "cveID"])
    dates = profiles["dateAdded"]
    assert dates.kind is ColumnKind.TEMPORAL and dates.newest == newest
    assert profiles["cveID"].newest is None and "newest" not in profiles["cveID"].to_dict()

    now = newest + 30 * HOUR
    suggestion = fresh_if_recent(dates, RuleContext(profiles.num_records, now=now))
    assert suggestion is not None
    assert suggestion.constraint.to_dict() == {
        "kind": "deequ",
        "constraint": "is_fresh",
        "column": "dateAdded",
        "max_age_hours": 72,
    }
    assert suggestion.current_value == "Newest: 30.0 hours old"
    # the suggested check holds now and fails once the data is older than 72 hours
    spec = suggestion.constraint
    for at, status in ((now, "Success"), (newest + 73 * HOUR, "Failure")):
        check = Check(CheckLevel.ERROR, "fresh").is_fresh(
            "dateAdded",
            spec.args["max_age_hours"],
            reference_time=dt.datetime.fromtimestamp(at, dt.timezone.utc).replace(tzinfo=None),
        )
        result = VerificationSuite().on_data(table).add_check(check).run()
        assert result.check_results[0].constraint_results[0].status.value == status

    fresh = RuleContext(profiles.num_records, now=newest + 2 * HOUR)
    assert fresh_if_recent(dates, fresh).constraint.args["max_age_hours"] == 24
    assert "FreshIfRecentRule" in {rule.name for rule in DEFAULT_RULES}


def test_old_data_text_and_future_dates_get_no_freshness():
    table, newest = _kev_dated()
    profiles = profile_columns(table, columns=["dateAdded", "dueDate"])
    archive = RuleContext(profiles.num_records, now=newest + 8 * 24 * HOUR)
    assert fresh_if_recent(profiles["dateAdded"], archive) is None
    before = RuleContext(profiles.num_records, now=newest - HOUR)
    assert fresh_if_recent(profiles["dateAdded"], before) is None
    recent = RuleContext(profiles.num_records, now=newest + HOUR)
    assert profiles["dueDate"].kind is ColumnKind.STRING  # dates as text: no newest
    assert fresh_if_recent(profiles["dueDate"], recent) is None
