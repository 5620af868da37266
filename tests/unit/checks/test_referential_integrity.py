"""Referential integrity between two tables of one source (UN/LOCODE, from the shared lake).

Subdivision codes name their country by its ISO code (``SUCountry``): every
one is in the country-code table, and most are not in the table of country
aliases. Both engines, no mocks.
"""

from __future__ import annotations

import pytest

from autovalidate.checks import Check, CheckLevel, ConstraintStatus, VerificationSuite
from autovalidate.errors import ParameterError
from autovalidate.metrics import ReferentialIntegrity
from tests.unit.checks.test_schema_freshness import lake_table

PART = "datasets+un-locode-000.parquet"


def _tables():
    return {
        name: lake_table(PART, f"datasets/un-locode:data/{name}.csv")
        for name in ("subdivision-codes", "country-codes", "alias")
    }


def _expected_orphans(tables) -> tuple[int, list[str]]:
    aliases = set(tables["alias"]["Country"].to_pylist())
    orphans = [c for c in tables["subdivision-codes"]["SUCountry"].to_pylist() if c not in aliases]
    return len(orphans), sorted(set(orphans))[:5]


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_orphans_are_counted_and_named(engine, request):
    tables = _tables()
    if engine == "spark":
        spark = request.getfixturevalue("spark")
        tables = {n: spark.createDataFrame(t.to_pandas()) for n, t in tables.items()}
    subdivisions = tables["subdivision-codes"]
    # the pair (SUCountry, SUCode) against the first 800 subdivisions: the rest are orphans
    first = tables["subdivision-codes"]
    first = first.slice(0, 800) if engine == "duckdb" else first.limit(800)
    check = (
        Check(CheckLevel.ERROR, "locode")
        .has_referential_integrity(
            "SUCountry", tables["country-codes"], "CountryCode", reference_name="countries"
        )
        .has_referential_integrity(
            "SUCountry", tables["alias"], "Country", reference_name="aliases"
        )
        .has_referential_integrity(["SUCountry", "SUCode"], first, reference_name="first 800")
    )
    if engine == "duckdb":  # the same code on Spark; its jobs cost seconds each
        check = check.has_referential_integrity(
            "SUCountry", tables["alias"], "Country", lambda f: f >= 0.9, where="SUType = 'State'"
        ).has_referential_integrity("SUCountry", tables["country-codes"], "no_such_column")
    result = VerificationSuite().on_data(subdivisions).add_check(check).run()
    found, orphans, pair, *duckdb_only = result.check_results[0].constraint_results

    assert found.status is ConstraintStatus.SUCCESS and found.value == 1.0
    assert found.details == {"num_rows": 1000, "num_orphans": 0, "examples": []}

    n_orphans, examples = _expected_orphans(_tables())
    assert 0 < n_orphans < 1000
    assert orphans.status is ConstraintStatus.FAILURE
    assert orphans.details == {"num_rows": 1000, "num_orphans": n_orphans, "examples": examples}
    assert orphans.message.startswith(
        f"{n_orphans} of 1000 rows have values not in aliases(Country), e.g. {', '.join(examples)}"
    )
    assert pair.status is ConstraintStatus.FAILURE
    assert pair.details["num_orphans"] > 0 and len(pair.details["examples"][0]) == 2
    if duckdb_only:
        filtered, broken = duckdb_only
        assert 0 < filtered.details["num_rows"] < 1000  # only the states' rows
        assert broken.status is ConstraintStatus.FAILURE and broken.metric.error is not None


def test_columns_and_reference_columns_pair_up():
    with pytest.raises(ParameterError, match="as many reference columns"):
        ReferentialIntegrity(["a", "b"], None, ["x"])
