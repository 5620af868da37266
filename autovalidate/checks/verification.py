"""Running checks on data: VerificationSuite and its results (Deequ's ``VerificationSuite``).

The suite collects the analyzers every constraint needs, computes their
metrics in one analysis run (shared scans, see :mod:`autovalidate.analysis.runner`)
and evaluates the checks on them. Results export as rows with Deequ's columns
(``check, check_level, check_status, constraint, constraint_status,
constraint_message``) and as JSON.

Examples
--------
>>> import pandas as pd
>>> from autovalidate.checks import Check, CheckLevel, VerificationSuite
>>> data = pd.DataFrame({"id": [1, 2, 3], "price": [9.5, None, 3.0]})
>>> result = (
...     VerificationSuite()
...     .on_data(data)
...     .add_check(
...         Check(CheckLevel.ERROR, "orders").is_unique("id").is_complete("price")
...     )
...     .run()
... )
>>> result.status.value
'Error'
>>> [r["constraint_status"] for r in result.check_results_as_rows()]
['Success', 'Failure']
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from autovalidate.analysis.runner import AnalyzerContext, RunBuilder, metrics_from_states
from autovalidate.analysis.state_provider import StateLoader, StatePersister
from autovalidate.checks.check import Check, CheckResult, CheckStatus
from autovalidate.metrics.base import Analyzer, plain

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["VerificationResult", "VerificationRunBuilder", "VerificationSuite", "schema_of"]

#: Columns of :meth:`VerificationResult.check_results_as_rows` (Deequ ``checkResultsAsDataFrame``).
CHECK_RESULT_COLUMNS = (
    "check",
    "check_level",
    "check_status",
    "constraint",
    "constraint_status",
    "constraint_message",
)


@dataclass(frozen=True)
class VerificationResult:
    """The outcome of a verification run.

    Attributes
    ----------
    status
        Error if any check failed at level error, else Warning if any failed
        at level warning, else Success.
    check_results
        One result per check, in the order the checks were added.
    metrics
        The metrics computed (and the run's query counts in ``metrics.stats``).
    """

    status: CheckStatus
    check_results: tuple[CheckResult, ...]
    metrics: AnalyzerContext

    def check_results_as_rows(self) -> list[dict[str, str]]:
        """One row per constraint with Deequ's columns; the message is ``""`` on success."""
        return [
            {
                "check": result.check.description,
                "check_level": result.check.level.value,
                "check_status": result.status.value,
                "constraint": str(c.constraint),
                "constraint_status": c.status.value,
                "constraint_message": c.message or "",
            }
            for result in self.check_results
            for c in result.constraint_results
        ]

    def check_results_as_pandas(self) -> pd.DataFrame:
        """:meth:`check_results_as_rows` as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame(self.check_results_as_rows(), columns=list(CHECK_RESULT_COLUMNS))

    def success_metrics_as_rows(self) -> list[dict[str, Any]]:
        """Successful metrics as rows ``entity, instance, name, value``."""
        return self.metrics.metrics_as_rows()

    def to_dict(self) -> dict[str, Any]:
        """Status, checks with their constraints (status, message, metric value), as plain data."""
        return {
            "status": self.status.value,
            "checks": [
                {
                    "check": result.check.description,
                    "check_level": result.check.level.value,
                    "check_status": result.status.value,
                    "constraints": [
                        {
                            "constraint": str(c.constraint),
                            "constraint_status": c.status.value,
                            "constraint_message": c.message or "",
                            "metric": None if c.metric is None else c.metric.to_dict(),
                            "value": plain(c.value),
                            **({"details": dict(c.details)} if c.details is not None else {}),
                        }
                        for c in result.constraint_results
                    ],
                }
                for result in self.check_results
            ],
        }

    def to_json(self, **kwargs: Any) -> str:
        """:meth:`to_dict` as JSON (keyword arguments go to :func:`json.dumps`)."""
        return json.dumps(self.to_dict(), **kwargs)


def _evaluate(checks: Sequence[Check], context: AnalyzerContext) -> VerificationResult:
    results = tuple(check.evaluate(context.metrics) for check in checks)
    return VerificationResult(CheckStatus.worst(r.status for r in results), results, context)


def _analyzers(checks: Iterable[Check], required: Iterable[Analyzer]) -> list[Analyzer]:
    needed = [a for check in checks for a in check.required_analyzers()]
    return list(dict.fromkeys([*needed, *required]))


class VerificationRunBuilder(RunBuilder):
    """Collects the checks of a run; :meth:`run` runs them."""

    def __init__(self, data: Any) -> None:
        super().__init__(data)
        self._checks: list[Check] = []

    def add_check(self, check: Check) -> VerificationRunBuilder:
        """Add a check."""
        self._checks.append(check)
        return self

    def add_checks(self, checks: Iterable[Check]) -> VerificationRunBuilder:
        """Add checks."""
        self._checks.extend(checks)
        return self

    def add_required_analyzer(self, analyzer: Analyzer) -> VerificationRunBuilder:
        """Also compute ``analyzer`` (its metric is in the result's ``metrics``)."""
        self._analyzers.append(analyzer)
        return self

    def add_required_analyzers(self, analyzers: Iterable[Analyzer]) -> VerificationRunBuilder:
        """Also compute ``analyzers``."""
        self._analyzers.extend(analyzers)
        return self

    def run(self) -> VerificationResult:
        """Compute the metrics and evaluate the checks.

        Raises
        ------
        DataSourceError, DataError
            If the data cannot be read at all (a failing constraint is a result,
            not an exception).
        """
        context = self._run_analyzers(_analyzers(self._checks, self._analyzers))
        return _evaluate(self._checks, context)


class VerificationSuite:
    """Entry point for verifications (Deequ's ``VerificationSuite``)."""

    def on_data(self, data: Any) -> VerificationRunBuilder:
        """Start a run on ``data``.

        ``data`` is a pandas DataFrame, a path (CSV read as text; numeric
        metrics of its columns read them cast to numbers, see
        :func:`~autovalidate.analysis.runner.run_analyzers`), an Arrow table or
        a DuckDB relation (the DuckDB engine), a PySpark DataFrame (the Spark
        engine), or an :class:`~autovalidate.engines.Engine`.
        """
        return VerificationRunBuilder(data)

    def run_on_aggregated_states(
        self,
        checks: Iterable[Check],
        loaders: Sequence[StateLoader],
        *,
        required_analyzers: Iterable[Analyzer] = (),
        save_states_with: StatePersister | None = None,
    ) -> VerificationResult:
        """Verify the union of data sets from their stored states alone, reading no data.

        Deequ's ``runOnAggregatedStates``: the checks of a whole partitioned
        table, of any set of its partitions, or of a table after one partition
        was replaced (ICDE 2019, §II).
        """
        checks = list(checks)
        context = metrics_from_states(
            _analyzers(checks, required_analyzers), loaders, save_states_with=save_states_with
        )
        return _evaluate(checks, context)


def schema_of(data: Any) -> dict[str, str]:
    """The columns of ``data`` and their types, as the engine names them; reads no row.

    What :meth:`~autovalidate.checks.Check.has_schema` compares a batch with:
    keep a batch's, check the next one against it.

    Parameters
    ----------
    data
        Anything :meth:`VerificationSuite.on_data` takes.

    Returns
    -------
    dict
        Column -> type name (DuckDB ``BIGINT``, Spark ``bigint``), in the
        data's column order.

    Raises
    ------
    DataSourceError, DataError
        If the data cannot be opened.
    """
    from autovalidate.engines import open_engine

    with open_engine(data) as engine:
        return dict(engine.column_types())
