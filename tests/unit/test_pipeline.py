"""autovalidate.validate on DuckDB: status, raise_for_status, JSON, and the split of a batch's rows.

Each row-level constraint kind is split on a small table whose breaking rows
are known by construction; the expected rows are written out, not computed
by the code under test.
"""

from __future__ import annotations

import json
import pickle

import duckdb
import pandas as pd
import pyarrow as pa
import pytest

import autovalidate as av
from autovalidate.checks.spec import Assertion, CheckSpec, ConstraintSpec, ConstraintSuite
from autovalidate.engines.duckdb import DuckDBEngine
from autovalidate.pipeline import BROKEN_CONSTRAINTS

ZIP = r"\A(?:[0-9]{5})\z"

#: id 1..8: zip (a null, two typos), state, amount (a negative, a null), low/high.
BATCH = pd.DataFrame(
    {
        "id": [1, 2, 3, 4, 5, 6, 7, 8],
        "zip": ["35233", None, "3595x", "35233", "x5957", "36301", "36301", "35233"],
        "state": ["al", "al", "ak", "al", None, "zz", "al", "al"],
        "amount": [1.5, -2.0, 3.0, None, 4.0, 0.0, 7.0, 2.0],
        "low": [1, 2, 3, 4, 5, 6, 9, 1],
        "high": [2, 3, 4, 5, 6, 7, 8, 1],
    }
)


def _zip_constraint(column: str = "zip", test: str = "strict") -> av.PatternConstraint:
    return av.PatternConstraint(
        regex=ZIP,
        pattern="<digit>{5}",
        segments=(),
        fpr=0.0,
        method="fmdv",
        test=test,
        alpha=0.01,
        train_n=100,
        train_nonconforming=0,
        column=column,
    )


def _ids(rows: duckdb.DuckDBPyRelation) -> list[int]:
    return sorted(r[0] for r in rows.select("id").fetchall())


def _broken(invalid: duckdb.DuckDBPyRelation) -> dict[int, list[str]]:
    return dict(invalid.select(f"id, {BROKEN_CONSTRAINTS}").fetchall())


def _split(check: av.Check, data=BATCH, **kwargs):
    valid, invalid = av.validate(data, check).split(**kwargs)
    return _ids(valid), _broken(invalid)


def check() -> av.Check:
    return av.Check(av.CheckLevel.ERROR, "batch")


@pytest.mark.parametrize(
    ("build", "breaking"),
    [
        # pattern constraints: non-null values not fully matching; the null (id 2) is no violation
        (lambda c: c.satisfies_pattern_constraint("zip", _zip_constraint()), [3, 5]),
        (lambda c: c.is_complete("zip"), [2]),
        (lambda c: c.has_completeness("state", lambda x: x > 0.5), [5]),
        # containment: non-null values outside the set; the null state (id 5) passes
        (lambda c: c.is_contained_in("state", ["al", "ak"]), [6]),
        (lambda c: c.is_non_negative("amount"), [2]),
        (lambda c: c.is_positive("amount"), [2, 6]),
        (lambda c: c.is_in_range("amount", 0, 5, include_lower_bound=False), [2, 6, 7]),
        (lambda c: c.is_less_than("low", "high"), [7, 8]),
        (lambda c: c.is_less_than_or_equal_to("low", "high"), [7]),
        # a SQL predicate: false or null breaks it (amount is null in id 4)
        (lambda c: c.satisfies("amount < 5", "small amount"), [4, 7]),
        # has_pattern counts a null as not matching, as its metric does (Deequ)
        (lambda c: c.has_pattern("zip", "[0-9]{5}"), [2, 3, 5]),
    ],
    ids=[
        "pattern",
        "is_complete",
        "has_completeness",
        "is_contained_in",
        "is_non_negative",
        "is_positive",
        "is_in_range",
        "is_less_than",
        "is_less_than_or_equal_to",
        "satisfies",
        "has_pattern",
    ],
)
def test_each_row_level_constraint_splits_the_rows_it_counts(build, breaking):
    built = build(check())
    valid, broken = _split(built)
    (name,) = [str(c) for c in built.constraints]
    assert broken == {i: [name] for i in breaking}
    assert valid == [i for i in range(1, 9) if i not in breaking]


def test_the_rows_breaking_a_constraint_are_those_its_metric_counts():
    """Completeness and compliance ratios equal the valid share of the split."""
    built = check().is_complete("zip").is_contained_in("state", ["al", "ak"])
    result = av.validate(BATCH, built)
    values = [r["value"] for r in result.rows()]
    broken = _broken(result.split()[1])
    for name, value in zip([str(c) for c in built.constraints], values, strict=True):
        assert 1 - sum(name in names for names in broken.values()) / len(BATCH) == value


def test_a_row_lists_every_constraint_it_broke_in_the_checks_order():
    built = check().satisfies_pattern_constraint("zip", _zip_constraint()).is_complete("state")
    second = av.Check(av.CheckLevel.WARNING, "amounts").is_non_negative("amount")
    valid, invalid = av.validate(BATCH, [built, second]).split()
    pattern, state = (str(c) for c in built.constraints)
    (amount,) = (str(c) for c in second.constraints)
    assert _broken(invalid) == {2: [amount], 3: [pattern], 5: [pattern, state]}
    assert _ids(valid) == [1, 4, 6, 7, 8]
    assert invalid.columns == [*BATCH.columns, BROKEN_CONSTRAINTS]
    assert valid.columns == list(BATCH.columns)


def test_a_where_filter_limits_the_rows_a_constraint_judges():
    built = (
        check().is_complete("zip", where="state = 'ak'").is_non_negative("amount", where="id > 2")
    )
    assert _split(built) == ([1, 2, 3, 4, 5, 6, 7, 8], {})
    built = check().is_contained_in("state", ["al"], where="id < 7")
    assert _split(built)[1] == {3: [str(built.constraints[0])], 6: [str(built.constraints[0])]}


def test_constraints_on_the_whole_batch_have_no_row_predicate():
    built = (
        check()
        .is_unique("zip")
        .has_size(lambda n: n > 100)
        .has_mean("amount", lambda m: m > 100)
        .has_max_length("zip", lambda n: n < 2)
        .has_data_type("zip", av.ConstrainableDataType.INTEGRAL)
    )
    result = av.validate(BATCH, built)
    assert not result.passed  # they fail on the batch ...
    assert result.row_constraints() == {}  # ... but judge no row
    valid, invalid = result.split()
    assert _ids(valid) == list(range(1, 9)) and invalid.fetchall() == []


def test_failed_only_leaves_out_constraints_the_batch_met():
    tolerant = check().has_completeness("zip", lambda x: x > 0.5).is_contained_in("state", ["al"])
    result = av.validate(BATCH, tolerant)
    assert len(result.row_constraints()) == 2
    (failed,) = result.row_constraints(failed_only=True)
    assert failed == str(tolerant.constraints[1])
    assert set(_broken(result.split(failed_only=True)[1])) == {3, 6}


def test_rename_judges_the_suite_column_and_keeps_the_batch_columns():
    """The suite's ZipCode is read from zip; a batch column named ZipCode comes back too."""
    batch = BATCH.assign(ZipCode="not a zip")
    suite = ConstraintSuite.of_patterns([_zip_constraint("ZipCode")])
    result = av.validate(batch, suite, rename={"ZipCode": "zip"})
    valid, invalid = result.split()
    assert set(_broken(invalid)) == {3, 5}
    assert invalid.columns == [*batch.columns, BROKEN_CONSTRAINTS]
    assert invalid.select("ZipCode").fetchall() == [("not a zip",), ("not a zip",)]
    assert len(valid.fetchall()) == 6


def test_the_parts_are_lazy_relations_on_every_duckdb_input(tmp_path):
    path = tmp_path / "batch.parquet"
    BATCH.to_parquet(path)
    built = check().satisfies_pattern_constraint("zip", _zip_constraint())
    inputs = [BATCH, pa.Table.from_pandas(BATCH), duckdb.from_df(BATCH), str(path), path]
    for data in inputs:
        valid, invalid = av.validate(data, built).split()
        assert isinstance(valid, duckdb.DuckDBPyRelation)
        assert (_ids(valid), set(_broken(invalid))) == ([1, 2, 4, 6, 7, 8], {3, 5})


def test_split_reads_nothing_until_the_parts_are_read():
    engine = DuckDBEngine(BATCH)
    result = av.validate(engine, check().is_complete("zip"))
    before = engine.stats.queries
    valid, invalid = result.split()
    assert engine.stats.queries == before
    assert _ids(valid) == [1, 3, 4, 5, 6, 7, 8]


def test_split_refuses_a_column_name_the_batch_has():
    result = av.validate(BATCH, check().is_complete("zip"))
    with pytest.raises(av.ParameterError, match="'state' is a column of the data"):
        result.split(column="state")


def test_raise_for_status_raises_for_an_error_level_failure_only():
    passing = av.validate(BATCH, check().is_complete("id"))
    assert passing.raise_for_status() is passing and passing.passed
    warning = av.Check(av.CheckLevel.WARNING, "w").is_complete("zip")
    warned = av.validate(BATCH, warning)
    assert warned.status is av.CheckStatus.WARNING and warned.raise_for_status() is warned
    failing = av.validate(BATCH, [warning, check().is_complete("zip").is_complete("id")])
    with pytest.raises(av.ValidationFailedError) as caught:
        failing.raise_for_status()
    error = caught.value
    assert error.status == "Error" and len(error.failures) == 1
    assert error.failures[0].startswith("batch: CompletenessConstraint(Completeness(zip")
    assert "does not meet the constraint requirement" in str(error)
    assert pickle.loads(pickle.dumps(error)).failures == error.failures


def test_to_json_gives_status_and_one_result_per_constraint(tmp_path):
    path = tmp_path / "batch.csv"
    BATCH.to_csv(path, index=False)
    suite = ConstraintSuite(
        (
            CheckSpec(
                "batch",
                av.CheckLevel.ERROR,
                (
                    ConstraintSpec("is_complete", {"column": "zip"}),
                    ConstraintSpec("has_size", {}, Assertion("==", 8)),
                    _zip_constraint(),
                ),
            ),
        )
    )
    doc = json.loads(av.validate(path, suite).to_json())
    assert (doc["file"], doc["passed"], doc["status"]) == (str(path), False, "Error")
    assert [r["constraint_status"] for r in doc["results"]] == ["Failure", "Success", "Failure"]
    assert doc["results"][2]["n_nonconforming"] == 2
    assert doc["results"][2]["examples"] == ["3595x", "x5957"]
    assert json.loads(av.validate(BATCH, suite).to_json())["file"] is None


def test_a_suite_is_a_file_a_loaded_suite_checks_or_pattern_constraints(tmp_path):
    spec = CheckSpec("zips", av.CheckLevel.ERROR, (_zip_constraint(),))
    path = tmp_path / "suite.json"
    path.write_text(ConstraintSuite((spec,)).to_json())
    forms = [
        path,
        str(path),
        ConstraintSuite((spec,)),
        spec,
        [spec],
        _zip_constraint(),
        [_zip_constraint()],
        check().satisfies_pattern_constraint("zip", _zip_constraint()),
    ]
    for suite in forms:
        result = av.validate(BATCH, suite)
        assert result.status is av.CheckStatus.ERROR
        assert set(_broken(result.split()[1])) == {3, 5}
    with pytest.raises(av.ParameterError, match="suite: expected"):
        av.validate(BATCH, [spec, check()])
    with pytest.raises(av.ParameterError, match="got dict"):
        av.validate(BATCH, {"checks": []})


def test_write_invalid_rows_quarantines_the_rows_split_finds(tmp_path):
    import pyarrow.parquet as pq

    built = check().satisfies_pattern_constraint("zip", _zip_constraint()).is_complete("state")
    result = av.validate(BATCH, built)
    out = tmp_path / "quarantine.parquet"
    result.write_invalid_rows(out)
    written = pq.read_table(out).to_pylist()
    # zip typos at ids 3 and 5, a missing state at id 5
    assert [(r["id"], len(r[BROKEN_CONSTRAINTS])) for r in written] == [(3, 1), (5, 2)]
    assert list(written[0])[:-1] == list(BATCH.columns)
    with pytest.raises(av.ParameterError, match="'state' is a column of the data"):
        result.write_invalid_rows(tmp_path / "other.parquet", column="state")


def test_constraint_suite_run_is_an_alias_of_validate():
    """One entry (issue 32): ``suite.run(data)`` is ``validate(data, suite).verification``."""
    suite = ConstraintSuite(
        (
            CheckSpec(
                "batch",
                av.CheckLevel.ERROR,
                (
                    ConstraintSpec("is_complete", {"column": "postcode"}),
                    ConstraintSpec("has_size", {}, Assertion("==", 8)),
                    _zip_constraint("postcode"),
                ),
            ),
        )
    )
    options = {"rename": {"postcode": "zip"}, "examples": 3, "examples_of_passing": True}
    ran = suite.run(BATCH, **options)
    validated = av.validate(BATCH, suite, **options).verification
    assert ran.status is validated.status is av.CheckStatus.ERROR
    assert ran.check_results_as_rows() == validated.check_results_as_rows()
    (ran_check,), (validated_check,) = ran.check_results, validated.check_results
    details = [c.details for c in ran_check.constraint_results]
    assert details == [c.details for c in validated_check.constraint_results]
    assert details[2]["examples"] == ["3595x", "x5957"]
