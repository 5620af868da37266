r"""Validating pattern constraints inside PySpark jobs, counting with Spark's own regex.

The same call as :meth:`PatternConstraint.validate` on a Spark DataFrame: the
:class:`~autovalidate.metrics.PatternConformance` analyzer runs on the
executors through the Spark engine (``rlike``, Java's ``java.util.regex``,
with the pattern wrapped in ``\A(?:...)\z``), and nothing is collected but
two counts and, when a value fails, a few examples. A Spark Connect DataFrame
works as a classic one (the ``connect`` extra installs PySpark's client).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autovalidate.errors import ColumnNotFoundError
from autovalidate.pattern_constraint import (
    DEFAULT_EXAMPLES,
    PatternConstraint,
    PatternValidationResult,
)

if TYPE_CHECKING:
    from autovalidate.engines.spark import DataFrame

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
        The batch, a classic or Spark Connect DataFrame; any column type
        (values are cast to string).
    constraint
        A constraint from :func:`autovalidate.suggest_pattern` or JSON.
    column
        The column to check; defaults to the constraint's column.
    examples
        How many non-conforming values to bring back for the report (0: none;
        the first ones Spark finds, in one more query, only when a value fails).

    Returns
    -------
    PatternValidationResult
        Counts over non-null values; the decision of the constraint's test.

    Raises
    ------
    ValueError
        If ``examples`` is not an integer >= 0.
    ColumnNotFoundError
        If the DataFrame has no such column.
    EngineError
        If the Spark job fails (a corrupt file, a lost executor): an error,
        never a failed validation.

    Examples
    --------
    In an ingestion job::

        result = validate_spark(batch_df, constraint, "order_id")
        if not result.passed:
            raise RuntimeError(result.message)
    """
    if column is None and constraint.column is None:
        raise ColumnNotFoundError("None", df.columns)
    return constraint.validate(df, column, examples=examples)
