"""Run the Python examples of a Markdown document and the doctests of a module, for doc tests."""

from __future__ import annotations

import doctest
import re
from pathlib import Path
from types import ModuleType
from typing import Any

DOCS = Path(__file__).resolve().parents[1] / "docs"


def run_markdown_examples(name: str, *, at_least: int) -> dict[str, Any]:
    """Execute the ```python blocks of ``docs/<name>`` in order, in one namespace; return it.

    Fails when the document has fewer than ``at_least`` blocks, so a renamed
    fence cannot silently turn the test into a no-op.
    """
    doc = DOCS / name
    blocks = re.findall(r"```python\n(.*?)```", doc.read_text(), flags=re.S)
    assert len(blocks) >= at_least, f"{doc}: {len(blocks)} python blocks"
    namespace: dict[str, Any] = {}
    for block in blocks:
        exec(compile(block, str(doc), "exec"), namespace)  # noqa: S102 - our own documentation
    return namespace


def assert_doctests_pass(module: ModuleType) -> None:
    """The module's docstring examples exist and all hold."""
    failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0
