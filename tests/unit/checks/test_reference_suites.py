"""Referential integrity and drift in suite files (issue 33): the suite names its
reference, the caller binds the name to data when the suite runs. On UN/LOCODE's
subdivision, country-code and alias tables from the shared lake (DuckDB; the checks
themselves run on Spark in test_referential_integrity.py and test_distribution_drift.py).
"""

from __future__ import annotations

import json

import pytest

import autovalidate
from autovalidate.checks import Check, CheckLevel, ConstraintStatus
from autovalidate.checks.spec import ConstraintSpec, ConstraintSuite
from autovalidate.errors import ConstraintFormatError
from tests.unit.checks.test_referential_integrity import _expected_orphans, _tables

SUITE = {
    "format": "autovalidate-suite",
    "version": 2,
    "checks": [
        {
            "description": "locode",
            "level": "Error",
            "constraints": [
                {
                    "kind": "deequ",
                    "constraint": "has_referential_integrity",
                    "columns": "SUCountry",
                    "reference_name": "countries",
                    "reference_columns": "CountryCode",
                },
                {
                    "kind": "deequ",
                    "constraint": "has_referential_integrity",
                    "columns": "SUCountry",
                    "reference_name": "aliases",
                    "reference_columns": "Country",
                    "assertion": {"op": ">=", "value": 0.5},
                },
                {
                    "kind": "deequ",
                    "constraint": "has_no_drift",
                    "column": "SUType",
                    "reference_name": "last batch",
                    "test": "psi",
                    "threshold": 0.1,
                },
            ],
        }
    ],
}


def test_a_suite_binds_its_references_when_it_runs(tmp_path):
    tables = _tables()
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(SUITE))
    suite = ConstraintSuite.load(path)
    assert json.loads(suite.to_json())["checks"] == SUITE["checks"]

    subdivisions = tables["subdivision-codes"]
    references = {
        "countries": tables["country-codes"],
        "aliases": tables["alias"],
        "last batch": subdivisions.slice(0, 500),
    }
    result = suite.run(subdivisions, references=references)
    found, orphans, drift = result.check_results[0].constraint_results
    n_orphans, examples = _expected_orphans(tables)
    assert n_orphans > 500  # more than half the subdivisions name no alias
    assert found.status is ConstraintStatus.SUCCESS and found.details["num_orphans"] == 0
    assert orphans.status is ConstraintStatus.FAILURE
    assert orphans.details == {"num_rows": 1000, "num_orphans": n_orphans, "examples": examples}

    # the same checks written in Python with the references as data give the same values
    fluent = (
        Check(CheckLevel.ERROR, "locode")
        .has_referential_integrity(
            "SUCountry", references["countries"], "CountryCode", reference_name="countries"
        )
        .has_referential_integrity(
            "SUCountry",
            references["aliases"],
            "Country",
            lambda f: f >= 0.5,
            reference_name="aliases",
        )
        .has_no_drift(
            "SUType",
            references["last batch"],
            test="psi",
            threshold=0.1,
            reference_name="last batch",
        )
    )
    direct = autovalidate.validate(subdivisions, fluent).verification.check_results[0]
    assert [(c.status, c.value) for c in direct.constraint_results] == [
        (c.status, c.value) for c in (found, orphans, drift)
    ]
    assert drift.details == direct.constraint_results[2].details
    # and validate() binds them as the suite's run does
    again = autovalidate.validate(subdivisions, suite, references=references)
    assert [c.value for c in again.verification.check_results[0].constraint_results] == [
        c.value for c in (found, orphans, drift)
    ]


def test_the_generated_code_runs_with_the_same_references():
    tables = _tables()
    suite = ConstraintSuite.from_dict(SUITE)
    specs = suite.checks[0].constraints
    code = specs[0].code()
    assert code == (
        ".has_referential_integrity('SUCountry', references['countries'], 'CountryCode', "
        "reference_name='countries')"
    )
    references = {"countries": tables["country-codes"]}
    scope = {"Check": Check, "CheckLevel": CheckLevel, "references": references}
    check = eval(f"Check(CheckLevel.ERROR, 'c'){code}", scope)
    result = autovalidate.validate(tables["subdivision-codes"], check)
    assert result.verification.check_results[0].constraint_results[0].value == 1.0


def test_a_suite_never_holds_a_reference_and_names_an_unbound_one():
    bad = json.loads(json.dumps(SUITE))
    bad["checks"][0]["constraints"][0]["reference"] = "/etc/passwd"
    with pytest.raises(ConstraintFormatError, match="reference_name.*'/etc/passwd'"):
        ConstraintSuite.from_dict(bad)
    with pytest.raises(ConstraintFormatError, match="reference_name"):
        ConstraintSpec("has_no_drift", {"column": "a", "reference": "other.parquet"})
    with pytest.raises(ConstraintFormatError, match="reference_name"):
        ConstraintSpec("has_referential_integrity", {"columns": "a"})
    tables = _tables()
    suite = ConstraintSuite.from_dict(SUITE)
    with pytest.raises(ConstraintFormatError, match="'aliases'"):
        suite.run(tables["subdivision-codes"], references={"countries": tables["country-codes"]})


def test_exports_list_reference_constraints_as_skipped_and_the_tests_match():
    from autovalidate.export import TARGETS, export_suite
    from autovalidate.metrics.distribution import DISTRIBUTION_TESTS
    from autovalidate.schemas import DISTRIBUTION_TESTS as SCHEMA_TESTS

    suite = ConstraintSuite.from_dict(SUITE)
    for target in TARGETS:
        skipped = export_suite(suite, target, name="locode").skipped
        assert [s.constraint.split("(")[0] for s in skipped] == [
            ".has_referential_integrity",
            ".has_referential_integrity",
            ".has_no_drift",
        ], target
    assert SCHEMA_TESTS == list(DISTRIBUTION_TESTS)


def test_validate_binds_references_to_files(tmp_path):
    import pyarrow.csv as pcsv
    from typer.testing import CliRunner

    from autovalidate.cli import app

    tables = _tables()
    for name, table in tables.items():
        pcsv.write_csv(table, tmp_path / f"{name}.csv")
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps(SUITE))
    batch = str(tmp_path / "subdivision-codes.csv")
    bound = [
        "--reference",
        f"countries={tmp_path / 'country-codes.csv'}",
        "--reference",
        f"aliases={tmp_path / 'alias.csv'}",
        "--reference",
        f"last batch={batch}",
    ]
    runner = CliRunner()
    result = runner.invoke(app, ["validate", batch, "-c", str(suite), *bound, "--json"])
    assert result.exit_code == 1, result.output  # the aliases constraint fails
    rows = json.loads(result.output)["results"]
    assert [r["constraint_status"] for r in rows] == ["Success", "Failure", "Success"]
    n_orphans, _ = _expected_orphans(tables)
    assert f"{n_orphans} of 1000 rows" in rows[1]["constraint_message"]

    unbound = runner.invoke(app, ["validate", batch, "-c", str(suite), *bound[:2]])
    assert unbound.exit_code == 2 and "'aliases'" in unbound.output
    bad = runner.invoke(app, ["validate", batch, "-c", str(suite), "--reference", "countries"])
    assert bad.exit_code == 2 and "NAME=PATH" in bad.output
