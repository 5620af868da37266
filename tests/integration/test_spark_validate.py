import pytest

from autovalidate import validate_spark
from autovalidate.errors import ColumnNotFoundError
from tests.spark_support import CODE_CONSTRAINT

pytestmark = pytest.mark.spark

CONSTRAINT = CODE_CONSTRAINT


def test_spark_counts_equal_local_counts(spark):
    values = ["12-AB", "1-AB", None, "99-ÉZ", "12-ab", "12-AB\n", "00-ZZ"] * 50
    df = spark.createDataFrame([(v, i) for i, v in enumerate(values)], "code string, i int")
    remote = validate_spark(df, CONSTRAINT)
    local = CONSTRAINT.validate(values)
    assert (
        (remote.n_values, remote.n_nonconforming)
        == (local.n_values, local.n_nonconforming)
        == (300, 150)
    )
    assert remote.passed == local.passed is False
    # each non-conforming value once (the batch repeats them 50 times)
    assert sorted(remote.examples) == ["1-AB", "12-AB\n", "12-ab"]
    ok = validate_spark(df.where("code = '12-AB'"), CONSTRAINT)
    assert ok.passed and ok.n_nonconforming == 0 and ok.examples == ()


def test_non_string_columns_and_missing_columns(spark):
    df = spark.createDataFrame([(12,), (7,)], "code int")
    res = validate_spark(df, CONSTRAINT)
    assert res.n_values == 2 and res.n_nonconforming == 2
    with pytest.raises(ColumnNotFoundError):
        validate_spark(df, CONSTRAINT, "nope")
