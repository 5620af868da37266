"""The shape of a ported peer case, and how one is run on a table (not a test module).

A case is data: the table it reads (a name in its source's ``TABLES``), the analyzer or
the ``Check`` method call, and the peer's expected value. Where this library differs on
purpose, the case carries :class:`Differs`: our value and the key of the reason in the
differences table of ``docs/deequ.md``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from autovalidate.checks import Check, CheckLevel, VerificationSuite
from autovalidate.metrics import Analyzer, Distribution


class _Fail:
    """The expected value of a metric that cannot be computed (the peer's ``Failure``)."""

    def __repr__(self) -> str:
        return "FAIL"


FAIL = _Fail()


@dataclass(frozen=True)
class Differs:
    """Our value where it differs from the peer's, and the reason's key in docs/deequ.md.

    ``engines``: the engines where it differs (on the others the peer's value holds).
    """

    ours: Any
    why: str
    engines: tuple[str, ...] = ("duckdb", "spark")


@dataclass(frozen=True)
class Dist:
    """A distribution as compared: its bin count and its non-empty bins.

    ``bins`` maps a value to ``(absolute, ratio)``; with ``keys=False`` only the
    multiset of the bins' ``(absolute, ratio)`` is compared (ties the peer leaves open).
    """

    number_of_bins: int
    bins: Mapping[str, tuple[int, float]]
    keys: bool = True


def dist(number_of_bins: int, **bins: tuple[int, float]) -> Dist:
    return Dist(number_of_bins, bins)


def dist_values(number_of_bins: int, *bins: tuple[int, float]) -> Dist:
    return Dist(number_of_bins, {str(i): b for i, b in enumerate(bins)}, keys=False)


@dataclass(frozen=True)
class A:
    """An analyzer case: ``analyzer`` on table ``table`` gives ``expected``."""

    source: str
    table: str
    analyzer: Analyzer
    expected: Any
    differs: Differs | None = None

    @property
    def id(self) -> str:
        return f"{self.source}:{self.table}:{self.analyzer}"


@dataclass(frozen=True)
class C:
    """A check case: ``Check.<method>(*args, **kwargs)`` on ``table``, and the check's status.

    ``also``: more ``(method, args)`` calls on the same check (a GX expectation that takes
    two of our constraints); the status is Success when every constraint succeeds.
    """

    source: str
    table: str
    method: str
    args: tuple[Any, ...]
    kwargs: Mapping[str, Any]
    expected: str
    differs: Differs | None = None
    also: tuple[tuple[str, tuple[Any, ...]], ...] = ()

    @property
    def id(self) -> str:
        shown = [a if isinstance(a, str | int | float | list) else "fn" for a in self.args]
        extra = "".join(f",{k}={v}" for k, v in self.kwargs.items())
        more = "".join(f"+{m}" for m, _ in self.also)
        return f"{self.source}:{self.table}:{self.method}{tuple(shown)}{extra}{more}"


@dataclass(frozen=True)
class R:
    """A case the peer fails on its parameters: ``make`` raises ParameterError here."""

    source: str
    label: str
    make: Callable[[], Any]


def eq(value: float) -> Callable[[float], bool]:
    return lambda v: v == value


def lt(value: float) -> Callable[[float], bool]:
    return lambda v: v < value


def gt(value: float) -> Callable[[float], bool]:
    return lambda v: v > value


def ge(value: float) -> Callable[[float], bool]:
    return lambda v: v >= value


_ARROW_TYPES = {
    "string": pa.string(),
    "bigint": pa.int64(),
    "int": pa.int32(),
    "double": pa.float64(),
    "float": pa.float32(),
    "boolean": pa.bool_(),
}


def _fields(schema: str) -> list[tuple[str, str]]:
    """``name type`` pairs of a Spark DDL schema (names may be back-quoted)."""
    pairs = []
    for part in schema.split(", "):
        name, _, kind = part.rpartition(" ")
        pairs.append((name.strip("`"), kind))
    return pairs


def arrow_table(schema: str, rows: Sequence[tuple[Any, ...]]) -> pa.Table:
    """The rows as an Arrow table with the Spark DDL schema's types."""
    fields = _fields(schema)
    return pa.table(
        {
            name: pa.array([row[i] for row in rows], _ARROW_TYPES[kind])
            for i, (name, kind) in enumerate(fields)
        }
    )


def run_table(
    data: Any, analyzers: Sequence[Analyzer], checks: Sequence[C]
) -> tuple[dict[Analyzer, Any], list[str]]:
    """One verification run over ``data``: each analyzer's observed value, each check's status.

    All analyzers and checks of a table share the run (and so its scans).
    """
    built = []
    for case in checks:
        check = getattr(Check(CheckLevel.ERROR, case.id), case.method)(*case.args, **case.kwargs)
        for method, args in case.also:
            check = getattr(check, method)(*args)
        built.append(check)
    result = (
        VerificationSuite().on_data(data).add_checks(built).add_required_analyzers(analyzers).run()
    )
    statuses = [
        "Success" if all(c.status.value == "Success" for c in r.constraint_results) else "Failure"
        for r in result.check_results
    ]
    return {a: observed(result.metrics.metric(a)) for a in analyzers}, statuses


def observed(metric: Any) -> Any:
    """A metric as the cases state it: FAIL, a float, a tuple of quantiles or a :class:`Dist`."""
    if metric.error is not None:
        return FAIL
    value = metric.value
    if isinstance(value, Distribution):
        bins = {k: (v.absolute, v.ratio) for k, v in value.values.items() if v.absolute}
        return Dist(value.number_of_bins, bins)
    if isinstance(value, Mapping):
        return tuple(value.values())
    return float(value)


def same(observed_value: Any, expected: Any) -> bool:
    """Observed equals expected: floats to 1e-12 relative, NaN equals NaN."""
    if expected is FAIL or observed_value is FAIL:
        return observed_value is expected
    if isinstance(expected, Dist):
        if not isinstance(observed_value, Dist):
            return False
        if expected.number_of_bins != observed_value.number_of_bins:
            return False
        if not expected.keys:
            return _same_seq(sorted(observed_value.bins.values()), sorted(expected.bins.values()))
        return expected.bins.keys() == observed_value.bins.keys() and all(
            _same_seq(observed_value.bins[k], expected.bins[k]) for k in expected.bins
        )
    if isinstance(expected, tuple):
        return isinstance(observed_value, tuple) and _same_seq(observed_value, expected)
    return _same_float(observed_value, expected)


def _same_seq(a: Sequence[Any], b: Sequence[Any]) -> bool:
    return len(a) == len(b) and all(
        _same_seq(x, y) if isinstance(x, tuple) else _same_float(x, y)
        for x, y in zip(a, b, strict=True)
    )


def _same_float(a: Any, b: Any) -> bool:
    if not isinstance(a, int | float):
        return False
    a, b = float(a), float(b)
    if math.isnan(b) or math.isinf(b):
        return math.isnan(a) if math.isnan(b) else a == b
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
