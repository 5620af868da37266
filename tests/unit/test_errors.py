"""Every public error survives pickle with its message, type and fields.

Spark ships exceptions from executors and multiprocessing from workers by
pickling them; an error that cannot be rebuilt turns into an unrelated
TypeError on the way.
"""

from __future__ import annotations

import pickle

import pytest

import autovalidate.errors as errors

CASES = [
    errors.AutovalidateError("plain"),
    errors.DataError("bad data"),
    errors.ColumnNotFoundError("zip", ["ZipCode", "City"]),
    errors.ColumnNotFoundError("ZipCode", ["zip"], hint="to check it: --rename ZipCode=zip"),
    errors.EmptyColumnError("zip"),
    errors.EmptyColumnError(None, "custom message"),
    errors.DataSourceError("/tmp/x.csv", "cannot read"),
    errors.PatternIndexError("index"),
    errors.IndexNotFoundError("/idx"),
    errors.IndexSchemaError("/idx", "pattern files lack columns ['fpr']"),
    errors.IndexVersionError("/idx", {"hierarchy": 1}, {"hierarchy": 2}),
    errors.IndexMergeError("/idx", "tau", 6, 8),
    errors.DefaultIndexError("/pkg/default-index", "index built with hierarchy 1"),
    errors.IndexBuildError("build failed"),
    errors.ConstraintFormatError("bad suite"),
    errors.ParameterError("theta out of range"),
    errors.EngineError("duckdb failed"),
    errors.QueryError("Spark refused the query: [UNRESOLVED_COLUMN] nope"),
    errors.UnsafeInputError("constraint 1: where", "'(SELECT 1)' refused: a query"),
    errors.MissingDependencyError("autovalidate index build", "pyspark", "spark"),
    errors.RepositoryError("/repo.duckdb", "lock not obtained within 60 s"),
    errors.InsufficientHistoryError("orders", 1, 3),
    errors.ValidationFailedError("Error", ["zip codes: pattern('zip', <digit>+): 3.00% ..."]),
]


def test_every_error_class_is_covered() -> None:
    covered = {type(e).__name__ for e in CASES}
    assert covered == set(errors.__all__)


@pytest.mark.parametrize("error", CASES, ids=lambda e: type(e).__name__)
def test_error_round_trips_through_pickle(error: errors.AutovalidateError) -> None:
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is type(error)
    assert str(back) == str(error)
    assert back.args == error.args
    assert vars(back) == vars(error)


def test_fields_survive() -> None:
    back = pickle.loads(pickle.dumps(errors.InsufficientHistoryError("orders", 1, 3)))
    assert (back.dataset, back.found, back.needed) == ("orders", 1, 3)
    back = pickle.loads(pickle.dumps(errors.ColumnNotFoundError("zip", ["ZipCode"])))
    assert back.column == "zip" and back.available == ["ZipCode"]
    with pytest.raises(KeyError):
        raise back
    back = pickle.loads(pickle.dumps(errors.ValidationFailedError("Error", ["a: b: c", "d: e: f"])))
    assert back.status == "Error" and back.failures == ["a: b: c", "d: e: f"]
