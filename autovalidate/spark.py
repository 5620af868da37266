r"""Validating pattern constraints inside PySpark jobs, counting with Spark's own regex.

:func:`validate_spark` is an alias of :meth:`PatternConstraint.validate`, which
takes a Spark DataFrame as it takes local data (a suite or checks on a batch:
:func:`autovalidate.validate`, on Spark too): the
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
    """Alias of :meth:`PatternConstraint.validate`: ``constraint.validate(df, column, ...)``.

    Raises :class:`ColumnNotFoundError` when neither ``column`` nor the
    constraint names a column (``validate`` would take a one-column table's).
    """
    if column is None and constraint.column is None:
        raise ColumnNotFoundError("None", df.columns)
    return constraint.validate(df, column, examples=examples)
