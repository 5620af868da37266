"""Text for a reader: counted nouns (``2 constraints``), control characters shown, long text cut."""

from __future__ import annotations

__all__ = ["counted", "printable", "shortened"]


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun``, plural unless ``n`` is 1 (``noun + "s"`` unless ``plural`` is given).

    >>> counted(1, "constraint"), counted(3, "check"), counted(12000, "value")
    ('1 constraint', '3 checks', '12,000 values')
    >>> counted(2, "index", "indexes")
    '2 indexes'
    """
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


#: Control characters (C0 but tab and newline, DEL, C1) -> their visible escapes (``\x1b``).
_CONTROLS = {
    c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F, *range(0x80, 0xA0)) if c not in (0x09, 0x0A)
}


def printable(text: str) -> str:
    r"""``text`` with its control characters shown as escapes (``\x1b``), never sent as such.

    Values, column names and descriptions come from data and suite files a
    stranger may have written; an ESC in one (``\x1b[2J``) would clear or
    recolour the reader's terminal, a carriage return would hide what comes
    before it. Tab and newline stay.
    """
    return text.translate(_CONTROLS)


def shortened(text: str, most: int) -> str:
    """``text`` up to ``most`` characters, then how many more there were.

    >>> shortened("abcdef", 4), shortened("abc", 4)
    ('abcd... (2 more characters)', 'abc')
    """
    if len(text) <= most:
        return text
    return f"{text[:most]}... ({len(text) - most:,} more characters)"
