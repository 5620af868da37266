"""Batch monitoring workflows: record each batch's statistics, then accept or reject a batch.

:mod:`~autovalidate.monitor.batches` forecasts every statistic from its
history with an anomaly detection strategy (Redyuk, Markl & Schelter, 2020);
:mod:`~autovalidate.monitor.avh_batches` decides by a program of constraints
whose false-positive rate is bounded by a budget (Auto-Validate-by-History,
Tu et al. KDD 2023). Both read the data through an engine and keep the history
in a metrics repository; the strategies, the bounds and the selection they use
stay in :mod:`autovalidate.anomaly`.
"""
