"""What the solver needs of a pattern index: a protocol, so the solver depends on no storage.

:class:`~autovalidate.index.reader.PatternIndex` (DuckDB over Parquet)
implements it; so can anything that answers the same five questions, for
example a dictionary in a test or a service in front of a shared index.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from autovalidate.index.generalization import GeneralizationStats
from autovalidate.index.stats import FprPrior, PatternStats, RunShortfall

__all__ = ["PatternLookup"]


class PatternLookup(Protocol):
    """The corpus evidence FMDV reads (Song & He 2021, §2.4, online stage)."""

    @property
    def tau(self) -> int:
        """The token limit τ the statistics were enumerated with."""
        ...

    @property
    def prior(self) -> FprPrior:
        """The prior of FPR_T fitted on the corpus (see :class:`FprPrior`)."""
        ...

    @property
    def generalization(self) -> GeneralizationStats:
        """How formats generalized in the corpus (:mod:`autovalidate.index.generalization`).

        Without position statistics (empty), the solver prices every segment
        of a vertical cut by its FPR_T, as the paper does.
        """
        ...

    def lookup(self, patterns: Iterable[str]) -> dict[str, PatternStats]:
        """FPR_T (Eq. 4) and Cov_T of the patterns the corpus has; absent ones matched nothing."""
        ...

    def shortfall(self, patterns: Iterable[str]) -> dict[str, RunShortfall]:
        """How often corpus columns ran shorter than their training prefix, per bound.

        For the patterns with ``+`` runs the corpus has evidence of; absent
        ones are never bounded.
        """
        ...
