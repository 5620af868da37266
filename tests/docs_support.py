"""Run the Python examples of a Markdown document and the doctests of a module, for doc tests."""

from __future__ import annotations

import doctest
import re
from pathlib import Path
from types import ModuleType
from typing import Any

DOCS = Path(__file__).resolve().parents[1] / "docs"


#: The fence of an example shown, not run (it needs a tool the tests do not install:
#: Airflow, Dagster, a cluster); :func:`compile_markdown_examples` checks its syntax.
NO_RUN = "python no-run"


def markdown_blocks(name: str, fence: str = "python") -> list[str]:
    """The blocks of ``docs/<name>`` fenced exactly ```<fence>, in order."""
    return re.findall(rf"```{re.escape(fence)}\n(.*?)```", (DOCS / name).read_text(), flags=re.S)


def run_markdown_examples(name: str, *, at_least: int) -> dict[str, Any]:
    """Execute the ```python blocks of ``docs/<name>`` in order, in one namespace; return it.

    Fails when the document has fewer than ``at_least`` blocks, so a renamed
    fence cannot silently turn the test into a no-op. Blocks fenced
    ```python no-run (:data:`NO_RUN`) are not run.
    """
    doc = DOCS / name
    blocks = markdown_blocks(name)
    assert len(blocks) >= at_least, f"{doc}: {len(blocks)} python blocks"
    namespace: dict[str, Any] = {}
    for block in blocks:
        exec(compile(block, str(doc), "exec"), namespace)  # noqa: S102 - our own documentation
    return namespace


def compile_markdown_examples(name: str, *, at_least: int) -> list[str]:
    """Compile the ```python no-run blocks of ``docs/<name>`` (syntax only); return them."""
    blocks = markdown_blocks(name, NO_RUN)
    assert len(blocks) >= at_least, f"{DOCS / name}: {len(blocks)} {NO_RUN} blocks"
    for block in blocks:
        compile(block, str(DOCS / name), "exec")
    return blocks


def assert_doctests_pass(module: ModuleType) -> None:
    """The module's docstring examples exist and all hold."""
    failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0


README = DOCS.parent / "README.md"


def readme_blocks(section: str, fence: str = "python") -> list[str]:
    """The blocks fenced exactly ```<fence> in the README's ``## <section>``, in order."""
    text = README.read_text().split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(rf"```{re.escape(fence)}\n(.*?)```", text, flags=re.S)


def printed_comments(block: str) -> list[str]:
    """What a block says its ``print(...)  # OUTPUT`` lines print, in order."""
    return [
        m.group(1).strip() for m in re.finditer(r"^\s*print\(.*\)\s+# (.+)$", block, flags=re.M)
    ]


def assert_prints_what_it_says(block: str, printed: str) -> None:
    """Each ``# OUTPUT`` comment of a print is a line of ``printed`` (``...``: any text)."""
    said = printed_comments(block)
    assert said, block
    lines = printed.splitlines()
    for expected in said:
        pattern = ".*".join(re.escape(part) for part in expected.split("..."))
        assert any(re.fullmatch(pattern, line.strip()) for line in lines), (expected, printed)
