"""Anomaly detection on metric histories: one strategy per module, and a detector.

Strategies (Deequ's ``anomalydetection``, PVLDB 2018 §3.4): :class:`SimpleThresholdStrategy`,
:class:`AbsoluteChangeStrategy`, :class:`RelativeRateOfChangeStrategy`,
:class:`OnlineNormalStrategy`, :class:`BatchNormalStrategy`,
:class:`HoltWintersStrategy`; and the exponential-smoothing forecast with a
prediction interval of Redyuk et al. 2020, :class:`ExponentialSmoothingStrategy`.
:meth:`autovalidate.checks.Check.has_no_anomalies` decides a batch's metric
against its history in a metrics repository; :mod:`~autovalidate.monitor.batches`
accepts or rejects whole batches as in Redyuk et al. 2020;
:mod:`~autovalidate.monitor.avh_batches` by a program of constraints whose
false-positive rate is bounded by a budget (Auto-Validate-by-History, Tu et
al. KDD 2023; the bounds and the selection are in :mod:`~autovalidate.anomaly.avh`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from autovalidate.anomaly.base import (
    Anomaly,
    AnomalyDetectionResult,
    AnomalyDetectionStrategy,
    AnomalyDetector,
    DetectionPoint,
)
from autovalidate.anomaly.batch_normal import BatchNormalStrategy
from autovalidate.anomaly.change import AbsoluteChangeStrategy, RelativeRateOfChangeStrategy
from autovalidate.anomaly.exponential_smoothing import (
    ExponentialSmoothingStrategy,
    fit_simple_exponential_smoothing,
)
from autovalidate.anomaly.holt_winters import HoltWintersStrategy
from autovalidate.anomaly.online_normal import OnlineNormalStrategy
from autovalidate.anomaly.simple_threshold import SimpleThresholdStrategy
from autovalidate.errors import ConstraintFormatError

__all__ = [
    "STRATEGIES",
    "AbsoluteChangeStrategy",
    "Anomaly",
    "AnomalyDetectionResult",
    "AnomalyDetectionStrategy",
    "AnomalyDetector",
    "BatchNormalStrategy",
    "DetectionPoint",
    "ExponentialSmoothingStrategy",
    "HoltWintersStrategy",
    "OnlineNormalStrategy",
    "RelativeRateOfChangeStrategy",
    "SimpleThresholdStrategy",
    "fit_simple_exponential_smoothing",
    "strategy_from_dict",
]

#: Strategy classes by their serialized name.
STRATEGIES: dict[str, type[AnomalyDetectionStrategy]] = {
    cls.name: cls
    for cls in (
        SimpleThresholdStrategy,
        AbsoluteChangeStrategy,
        RelativeRateOfChangeStrategy,
        OnlineNormalStrategy,
        BatchNormalStrategy,
        HoltWintersStrategy,
        ExponentialSmoothingStrategy,
    )
}


def strategy_from_dict(data: Mapping[str, Any]) -> AnomalyDetectionStrategy:
    """A strategy from ``{"strategy": name, **parameters}`` (its ``to_dict``).

    Raises
    ------
    ConstraintFormatError
        If the name is unknown or the parameters do not fit.
    ParameterError
        If a parameter is out of range.
    """
    name = data.get("strategy") if isinstance(data, Mapping) else None
    cls = STRATEGIES.get(str(name))
    if cls is None:
        raise ConstraintFormatError(
            f"unknown anomaly detection strategy {name!r}; expected one of {', '.join(STRATEGIES)}"
        )
    try:
        return cls(**{k: v for k, v in data.items() if k != "strategy"})
    except TypeError as exc:
        raise ConstraintFormatError(f"strategy {name}: {exc}") from exc
