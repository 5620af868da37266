"""Counted nouns in messages: ``1 constraint``, ``2 constraints``, ``12,000 values``."""

from __future__ import annotations

__all__ = ["counted"]


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun``, plural unless ``n`` is 1 (``noun + "s"`` unless ``plural`` is given).

    >>> counted(1, "constraint"), counted(3, "check"), counted(12000, "value")
    ('1 constraint', '3 checks', '12,000 values')
    >>> counted(2, "index", "indexes")
    '2 indexes'
    """
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"
