"""The README and docs cite papers by name and section, and link only inside the repository.

A file number such as "000 §5.3" or "001" names a source document of the
project's working set, which no reader of the repository has; a link to
``../shared/...`` leaves the repository (issue 31).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

#: A bare 000-004 (the source documents' numbers), not part of a number like 0.001 or 1,000.
FILE_NUMBER = re.compile(r"(?<![\w.,/-])00[0-4](?![\w.,%])")
#: Markdown links ``[text](target)``.
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


@pytest.mark.parametrize("doc", DOCUMENTS, ids=lambda p: p.name)
def test_no_citation_by_file_number(doc):
    for n, line in enumerate(doc.read_text().splitlines(), 1):
        assert not FILE_NUMBER.search(line), f"{doc.name}:{n}: {line}"
        assert "seeds/" not in line, f"{doc.name}:{n}: {line}"


@pytest.mark.parametrize("doc", DOCUMENTS, ids=lambda p: p.name)
def test_links_stay_inside_the_repository_and_resolve(doc):
    targets = [t for t in LINK.findall(doc.read_text()) if not t.startswith(("http", "#"))]
    for target in targets:
        path = (doc.parent / target.split("#", 1)[0]).resolve()
        assert path.is_relative_to(ROOT), f"{doc.name}: {target} points outside the repository"
        assert path.exists(), f"{doc.name}: {target} does not exist"
