"""Check levels and statuses, apart from the checks: the CLI reads them without an engine."""

from __future__ import annotations

import enum
from collections.abc import Iterable

__all__ = ["CheckLevel", "CheckStatus"]


class CheckLevel(str, enum.Enum):
    """How grave a failing check is (Deequ's ``CheckLevel``)."""

    ERROR = "Error"
    WARNING = "Warning"


class CheckStatus(str, enum.Enum):
    """Outcome of a check or of a whole verification (Deequ's ``CheckStatus``)."""

    SUCCESS = "Success"
    WARNING = "Warning"
    ERROR = "Error"

    @classmethod
    def worst(cls, statuses: Iterable[CheckStatus]) -> CheckStatus:
        """Error if any is Error, else Warning if any is Warning, else Success."""
        found = set(statuses)
        for status in (cls.ERROR, cls.WARNING):
            if status in found:
                return status
        return cls.SUCCESS
