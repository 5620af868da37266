"""What the CLI prints of strings it did not write: control characters shown as escapes."""

from __future__ import annotations

import io
import re

from rich.table import Table

from autovalidate.cli.common import _Console, printable, styled


def test_printable_escapes_c0_del_and_c1_but_keeps_tab_and_newline():
    text = "a\x1b[2Jb\x00c\rd\x7fe\x9bf\tg\nh\u00e9\u2028"
    assert printable(text) == "a\\x1b[2Jb\\x00c\\x0dd\\x7fe\\x9bf\tg\nh\u00e9\u2028"
    assert printable("plain, ünïcode 北京") == "plain, ünïcode 北京"


def test_the_console_escapes_strings_cells_and_styled_text_and_keeps_its_own_styling():
    out = io.StringIO()
    console = _Console(file=out, markup=False, force_terminal=True, width=120)
    table = Table("check", "value")
    table.add_row("\x1b[31mred", styled("\x1b]0;title\x07", "bold"))
    console.print(table)
    console.print("\x1b[2J", styled("ok", "green"))
    shown = out.getvalue()
    assert "\x1b[32mok" in shown  # green, by rich
    # rich's own styles are the only ESC sent; without them, the strings' escapes are text
    text = re.sub("\x1b\\[[0-9;]*m", "", shown)
    assert "\x1b" not in text and "\x07" not in text
    assert "\\x1b[31mred" in text and "\\x1b]0;title\\x07" in text and "\\x1b[2J" in text
