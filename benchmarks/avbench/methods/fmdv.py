"""The product's FMDV variants, called through its public API only."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import autovalidate
from benchmarks.avbench.protocol import Rule


@dataclass
class FmdvMethod:
    """``autovalidate.suggest_pattern(train, index, method=name, **params)``."""

    name: str
    index: autovalidate.PatternIndex
    params: dict[str, Any] = field(default_factory=dict)
    pattern_based: bool = True

    def fit(self, train: list[str]) -> Rule | None:
        constraint = autovalidate.suggest_pattern(
            train, self.index, method=self.name, **self.params
        )
        if constraint is None:
            return None
        return Rule(
            "regex",
            constraint.pattern,
            regex=constraint.regex,
            decision="constraint",
            constraint=constraint,
            missing=constraint.null_tokens,
        )
