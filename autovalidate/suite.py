"""Constraint suites on disk: what ``autovalidate suggest --out`` writes and ``validate`` reads.

A suite is JSON::

    {"format": "autovalidate-suite", "version": 1,
     "constraints": [{"kind": "autovalidate-pattern", "column": "...", ...}, ...]}

A file holding a single constraint object is read as a suite of one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from autovalidate.constraint import CONSTRAINT_KIND, PatternConstraint
from autovalidate.errors import ConstraintFormatError, DataSourceError

__all__ = ["SUITE_FORMAT", "load_suite", "suite_to_json"]

SUITE_FORMAT = "autovalidate-suite"
SUITE_VERSION = 1


def suite_to_json(constraints: Sequence[PatternConstraint]) -> str:
    """A suite of constraints as pretty JSON text."""
    doc = {
        "format": SUITE_FORMAT,
        "version": SUITE_VERSION,
        "constraints": [c.to_dict() for c in constraints],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False)


def load_suite(path: str | Path) -> list[PatternConstraint]:
    """Read a suite (or a single constraint) from a JSON file.

    Raises
    ------
    DataSourceError
        If the file cannot be read.
    ConstraintFormatError
        If it is not valid JSON, not a suite, or a constraint is malformed.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise DataSourceError(str(p), exc.strerror or str(exc)) from exc
    try:
        doc: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConstraintFormatError(f"{p}: not JSON: {exc}") from exc
    items: Any
    if isinstance(doc, dict) and doc.get("kind") == CONSTRAINT_KIND:
        items = [doc]
    elif isinstance(doc, dict) and doc.get("format") == SUITE_FORMAT:
        if doc.get("version") != SUITE_VERSION:
            raise ConstraintFormatError(
                f"{p}: suite version {doc.get('version')!r}; expected {SUITE_VERSION}"
            )
        items = doc.get("constraints")
        if not isinstance(items, list):
            raise ConstraintFormatError(f"{p}: 'constraints' must be a list")
    else:
        raise ConstraintFormatError(f"{p}: neither a constraint suite nor a pattern constraint")
    out = []
    for i, item in enumerate(items):
        try:
            out.append(PatternConstraint.from_dict(item))
        except ConstraintFormatError as exc:
            raise ConstraintFormatError(f"{p}: constraint {i}: {exc}") from exc
    return out
