r"""Validating pattern constraints inside PySpark jobs, counting with Spark's own regex.

Nothing is collected but two counts and a few example values: the regex runs
on the executors through ``rlike`` (Java's ``java.util.regex``; the
constraint's regex is anchored with ``\A...\z``, so ``rlike``'s search
semantics amount to a full match).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autovalidate.constraint import DEFAULT_EXAMPLES, PatternConstraint, PatternValidationResult
from autovalidate.errors import ColumnNotFoundError, EngineError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = ["validate_spark"]


def validate_spark(
    df: DataFrame,
    constraint: PatternConstraint,
    column: str | None = None,
    *,
    examples: int = DEFAULT_EXAMPLES,
) -> PatternValidationResult:
    """Validate a column of a Spark DataFrame against a pattern constraint.

    Parameters
    ----------
    df
        The batch; any column type (values are cast to string).
    constraint
        A constraint from :func:`autovalidate.suggest_pattern` or JSON.
    column
        The column to check; defaults to the constraint's column.
    examples
        How many non-conforming values to bring back for the report.

    Returns
    -------
    PatternValidationResult
        Counts over non-null values; the decision of the constraint's test.

    Raises
    ------
    ColumnNotFoundError
        If the DataFrame has no such column.
    EngineError
        If the Spark job fails.

    Examples
    --------
    In an ingestion job::

        result = validate_spark(batch_df, constraint, "order_id")
        if not result.passed:
            raise RuntimeError(result.message)
    """
    from pyspark.errors import PySparkException
    from pyspark.sql import functions as F

    column = column if column is not None else constraint.column
    if column is None or column not in df.columns:
        raise ColumnNotFoundError(str(column), df.columns)
    value = F.col(f"`{column.replace('`', '``')}`").cast("string")
    bad = value.isNotNull() & ~value.rlike(constraint.regex)
    try:
        row = df.agg(
            F.count(value).alias("n"),
            F.count(F.when(bad, True)).alias("bad"),
        ).first()
        assert row is not None  # a global aggregation always has one row
        sample = (
            [r[0] for r in df.where(bad).select(value).limit(examples).collect()]
            if row["bad"]
            else []
        )
    except PySparkException as exc:
        raise EngineError(f"Spark failed validating column {column!r}: {exc}") from exc
    return constraint.evaluate_counts(
        int(row["bad"]), int(row["n"]), examples=sample, column=column
    )
