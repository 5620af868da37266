"""Helpers shared by the Deequ metric tests (not a test module)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from autovalidate.analysis import AnalysisRunner, AnalyzerContext, InMemoryStateProvider
from autovalidate.metrics import Analyzer, Distribution, State


def run(data: Any, analyzers: Iterable[Analyzer], **options: Any) -> AnalyzerContext:
    """Run analyzers on data with the public runner."""
    builder = AnalysisRunner.on_data(data).add_analyzers(list(analyzers))
    if "aggregate_with" in options:
        builder = builder.aggregate_with(options["aggregate_with"])
    if "save_states_with" in options:
        builder = builder.save_states_with(options["save_states_with"])
    if "share_scans" in options:
        builder = builder.share_scans(options["share_scans"])
    return builder.run()


def value(data: Any, analyzer: Analyzer) -> Any:
    """The metric value of one analyzer; fails the test if the metric failed."""
    metric = run(data, [analyzer]).metric(analyzer)
    assert metric.error is None, metric.error
    return metric.value


def states(
    data: Any, analyzers: Iterable[Analyzer]
) -> tuple[AnalyzerContext, dict[Analyzer, State | None]]:
    """Metrics and the states the run computed, through an in-memory state provider."""
    analyzers = list(analyzers)
    provider = InMemoryStateProvider()
    context = run(data, analyzers, save_states_with=provider)
    return context, {a: provider.load(a) for a in analyzers}


def same_value(a: Any, b: Any, rel: float = 1e-9) -> bool:
    """Metric values equal, floats up to ``rel`` (NaN equals NaN)."""
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return math.isclose(a, b, rel_tol=rel, abs_tol=rel)
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(same_value(a[k], b[k], rel) for k in a)
    if isinstance(a, Distribution) and isinstance(b, Distribution):
        return a.number_of_bins == b.number_of_bins and same_value(
            {k: (v.absolute, v.ratio) for k, v in a.values.items()},
            {k: (v.absolute, v.ratio) for k, v in b.values.items()},
            rel,
        )
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(same_value(x, y, rel) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def arrow(
    columns: Mapping[str, list[Any]], types: Mapping[str, pa.DataType] | None = None
) -> pa.Table:
    """An Arrow table from column lists (nulls as None), with optional explicit types."""
    types = types or {}
    return pa.table(
        {name: pa.array(values, type=types.get(name)) for name, values in columns.items()}
    )


@dataclass
class PatternDecision:
    """A pattern rule's decision: a plain value object, shaped as ``PatternValidationResult``."""

    passed: bool
    message: str
    nonconforming_fraction: float

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "nonconforming_fraction": self.nonconforming_fraction}
