"""What an execution engine offers the analysis runner, and how its work is counted.

An engine runs engine-neutral expressions (:mod:`autovalidate.metrics.expressions`)
on one data set: one aggregation query over the rows, or a grouping into a
frequency table that further queries aggregate. Every query is counted in
:class:`ExecutionStats`, separating the *scans* (queries that read the input
data) from queries over grouped data or stored states, so that tests and
benchmarks can check scan sharing (Schelter et al., ICDE 2019, Algorithm 1).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the metrics package imports the engines at run time, not the reverse
    from autovalidate.metrics.base import FrequencyTable, Grouping, Schema
    from autovalidate.metrics.expressions import Expr

__all__ = ["Engine", "ExecutionStats"]


@dataclass
class ExecutionStats:
    """Queries an engine issued.

    Attributes
    ----------
    scans
        Queries that read the input data.
    queries
        All queries: scans plus queries over grouped data or stored states.
    log
        One line per query, ``"scan: ..."`` or ``"query: ..."``, in order.
    """

    scans: int = 0
    queries: int = 0
    log: list[str] = field(default_factory=list)

    def record(self, description: str, *, scan: bool) -> None:
        """Count one query."""
        self.queries += 1
        if scan:
            self.scans += 1
        self.log.append(f"{'scan' if scan else 'query'}: {description}")


class Engine(ABC):
    """Runs analyzer expressions on one data set.

    Attributes
    ----------
    name
        ``"duckdb"`` or ``"spark"``.
    stats
        The queries issued so far.
    """

    name: str

    def __init__(self) -> None:
        self.stats = ExecutionStats()

    @abstractmethod
    def schema(self) -> Schema:
        """Column name -> kind, without reading the data."""

    @abstractmethod
    def aggregate(self, exprs: Sequence[Expr]) -> list[Any]:
        """Evaluate aggregate expressions over all rows in one scan.

        Raises
        ------
        EngineError
            If the engine rejects or fails the query (a bad ``where`` filter, say).
        """

    @abstractmethod
    def frequencies(self, grouping: Grouping, *, materialize: bool) -> FrequencyTable:
        """Return the frequency table of ``grouping``.

        With ``materialize=False`` the table stays a query: each query on it
        scans the data again (use it when one query suffices). With
        ``materialize=True`` the data are grouped once, now (one scan), and
        later queries read the result.

        Raises
        ------
        EngineError
            If grouping fails.
        """

    @abstractmethod
    def sample(self, condition: Expr, columns: Sequence[Expr], limit: int) -> list[tuple[Any, ...]]:
        """Up to ``limit`` rows matching ``condition``, projected on ``columns`` (one scan).

        Which rows come back is the engine's choice (the first ones it finds):
        examples for a report, not a random sample.

        Raises
        ------
        EngineError
            If the engine rejects or fails the query.
        """

    def close(self) -> None:  # noqa: B027 - engines without resources keep the default
        """Release what the engine holds (cached tables, connections)."""
