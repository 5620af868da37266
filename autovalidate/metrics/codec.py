"""Analyzers as plain data, and the stable key a metrics history is stored under.

One codec for analyzers, two uses:

* :func:`analyzer_to_dict` / :func:`analyzer_from_dict`: an analyzer as JSON
  data and back, ``{"analyzer": "Mean", "column": "price", "where": None}``
  (its class name and every dataclass field). Suite files hold analyzers in
  this form (``has_no_anomalies``, :mod:`autovalidate.checks.spec`), so only
  plain fields are accepted: a suite is untrusted input and names no
  expression object and no data.
* :func:`analyzer_key`: the identity of an analyzer's metric in a metrics
  repository (:mod:`autovalidate.repository`), canonical JSON of the same
  data: keys sorted, no whitespace, e.g.
  ``{"analyzer":"Completeness","column":"price"}``. It depends on the
  analyzer's class name and field values only, never on how SQL is rendered
  (``str(analyzer)``), so a change of the SQL text keeps every recorded
  history. Three differences from :func:`analyzer_to_dict`, each so that every
  analyzer has a key that lasts:

  - a field at its declared default is left out, so an analyzer that gains
    a field with a default keeps the key it had;
  - an expression field (a :class:`~autovalidate.metrics.Compliance` built
    from an expression tree, as ``is_in_range`` builds it) is written as its
    tree, ``{"expr": "Call", "fn": "ge", "args": [...]}``, not as SQL text;
  - a ``reference`` field (the reference data of
    :class:`~autovalidate.metrics.ReferentialIntegrity` and
    :class:`~autovalidate.metrics.DistributionDrift`) is left out: the data
    is bound when the analyzer runs and ``reference_name`` names it, as in
    the analyzer's text.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import MISSING, fields
from typing import Any

from autovalidate.errors import ConstraintFormatError
from autovalidate.metrics.base import Analyzer
from autovalidate.metrics.expressions import Expr

__all__ = ["analyzer_from_dict", "analyzer_key", "analyzer_to_dict", "keys_by_text"]

#: Fields holding data bound when the analyzer runs, named by ``reference_name``.
_BOUND_FIELDS = frozenset({"reference"})


def _data(value: Any, *, expressions: bool) -> Any:
    """``value`` as JSON data (tuples as lists, expressions as trees if asked).

    Raises
    ------
    TypeError
        Naming the type of a value that is not plain data.
    """
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (tuple, list)):
        return [_data(v, expressions=expressions) for v in value]
    if expressions and isinstance(value, Expr):
        tree = {f.name: _data(getattr(value, f.name), expressions=True) for f in fields(value)}  # type: ignore[arg-type]
        return {"expr": type(value).__name__, **tree}
    raise TypeError(type(value).__name__)


def _fields(analyzer: Analyzer, *, key: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"analyzer": type(analyzer).__name__}
    for f in fields(analyzer):  # type: ignore[arg-type]
        value = getattr(analyzer, f.name)
        if key and (
            f.name in _BOUND_FIELDS
            or (f.default is not MISSING and type(value) is type(f.default) and value == f.default)
        ):
            continue
        try:
            out[f.name] = _data(value, expressions=key)
        except TypeError as exc:
            raise ConstraintFormatError(
                f"{analyzer}: field {f.name} is a {exc}, not plain data"
            ) from None
    return out


def analyzer_to_dict(analyzer: Analyzer) -> dict[str, Any]:
    """An analyzer as plain data: ``{"analyzer": "Mean", "column": "price", "where": None}``.

    Tuples become lists; every field is written.

    Raises
    ------
    ConstraintFormatError
        If a field is not plain data (a :class:`~autovalidate.metrics.Compliance`
        built from an expression object rather than SQL text, the reference
        data of a :class:`~autovalidate.metrics.ReferentialIntegrity`).
    """
    return _fields(analyzer, key=False)


def analyzer_from_dict(data: Mapping[str, Any]) -> Analyzer:
    """Inverse of :func:`analyzer_to_dict` (analyzers of :mod:`autovalidate.metrics`).

    Fields left out take their defaults, so it also reads the data of a key
    without expressions (``analyzer_from_dict(json.loads(analyzer_key(a))) ==
    a`` for an analyzer of plain fields).

    Raises
    ------
    ConstraintFormatError
        If the analyzer is unknown or its fields do not fit.
    """
    import autovalidate.metrics as metrics

    name = data.get("analyzer") if isinstance(data, Mapping) else None
    cls = getattr(metrics, str(name), None)
    if not (isinstance(cls, type) and issubclass(cls, Analyzer)):
        raise ConstraintFormatError(f"unknown analyzer {name!r}")
    kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items() if k != "analyzer"}
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise ConstraintFormatError(f"analyzer {name}: {exc}") from exc


def analyzer_key(analyzer: Analyzer) -> str:
    """The stable key of an analyzer's metric in a metrics repository (see the module docstring).

    Returns
    -------
    str
        Canonical JSON (sorted keys, no whitespace, UTF-8 text), e.g.
        ``{"analyzer":"Mean","column":"price"}``; equal analyzers have equal keys.

    Raises
    ------
    ConstraintFormatError
        If a field is neither plain data, an expression nor reference data
        (no analyzer of :mod:`autovalidate.metrics` has such a field).

    Examples
    --------
    >>> from autovalidate.metrics import Completeness
    >>> analyzer_key(Completeness("price", where="qty > 0"))
    '{"analyzer":"Completeness","column":"price","where":"qty > 0"}'
    """
    return json.dumps(
        _fields(analyzer, key=True), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )


def keys_by_text(analyzers: Iterable[Analyzer]) -> dict[str, str]:
    """Each analyzer's key (:func:`analyzer_key`) by its text (``str(analyzer)``).

    What was stored under an analyzer's text before keys existed (a metrics
    repository's rows, an AVH program's constraints) finds its key here.
    A key never starts as a text does: a key is a JSON object, a text starts
    with the class name.
    """
    return {str(a): analyzer_key(a) for a in analyzers}
