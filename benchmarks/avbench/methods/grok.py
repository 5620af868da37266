"""Grok: a curated library of named regexes; a column gets the most specific one that fits.

The library is the ``grok-patterns`` file shipped with ``pygrok`` (the
Logstash core set: 76 named patterns such as ``IPV4``, ``UUID``,
``TIMESTAMP_ISO8601``, ``WORD``, ``GREEDYDATA``), each expanded by pygrok
itself (``pygrok.Grok("%{NAME}")``).  As in the paper (§5.2), every value of
``C.train`` must fully match one pattern; otherwise the method abstains.

*Most specific* is defined on data, once for the whole library and
independently of the query column: a pattern's specificity is the fraction
of a fixed probe sample of corpus values (``PROBE_SIZE`` non-null values of
the lake, a DuckDB reservoir sample with seed 0) that it fully matches; the
pattern matching the smallest fraction wins; ties go to the pattern built
from fewer other named patterns (transitively: ``IPV4`` before ``IP``, which
is ``IPV6|IPV4``; ``USERNAME`` before its alias ``USER``), then the name.  A
subset relation between two patterns' languages implies the probe order, so
``IPV4`` beats ``IP``, which beats ``NOTSPACE``, which beats ``DATA``.

Grok's regexes use atomic groups and look-arounds, which RE2 lacks, so their
rules are counted with Python ``regex`` (``Rule.dialect == "python"``), the
engine pygrok itself uses; full match is ``\\A(?:...)\\z``.  ``DATA`` and
``GREEDYDATA`` (``.*?``, ``.*``) accept every single-line value and are marked
match-anything.

References
----------
Song & He, SIGMOD 2021, §5.2 ("Grok Patterns"); pygrok 1.0.0
(``pygrok/patterns/grok-patterns``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import regex

from benchmarks.avbench.protocol import Rule

__all__ = ["GrokMethod", "grok_library"]

PROBE_SIZE = 20000
#: Patterns whose definition accepts any (single-line) string.
MATCH_ANYTHING = frozenset({".*", ".*?"})
_REF = regex.compile(r"%\{(\w+)(?::\w+){0,2}\}")


@dataclass(frozen=True)
class GrokPattern:
    """One named pattern: its anchored Python regex and its specificity on the probe."""

    name: str
    definition: str
    regex: str
    probe_fraction: float
    references: int


def _definitions() -> dict[str, str]:
    import pygrok

    path = Path(pygrok.__file__).parent / "patterns" / "grok-patterns"
    out = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, _, definition = line.partition(" ")
        out[name] = definition.strip()
    return out


def grok_library(lake: Path) -> list[GrokPattern]:
    """The library ordered most specific first (see the module docstring).

    Raises
    ------
    ImportError
        If pygrok is not installed (``pip install -e '.[bench]'``).
    """
    try:
        import pygrok
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("Grok needs pygrok: pip install -e '.[bench]'") from exc
    con = duckdb.connect()
    con.execute("SET threads = 1")  # the reservoir sample is repeatable only single-threaded
    probe = [
        r[0]
        for r in con.execute(
            "SELECT v FROM (SELECT unnest(values) AS v FROM "
            f"read_parquet('{lake}/*.parquet')) WHERE v IS NOT NULL "
            f"USING SAMPLE reservoir({PROBE_SIZE} ROWS) REPEATABLE (0)"
        ).fetchall()
    ]
    con.close()
    definitions = _definitions()
    library = []
    for name, definition in definitions.items():
        body = pygrok.Grok("%{" + name + "}").regex_obj.pattern
        anchored = rf"\A(?:{body})\z"
        rx = regex.compile(anchored)
        hits = sum(1 for v in probe if rx.fullmatch(v))
        refs = len(_references(name, definitions))
        library.append(GrokPattern(name, definition, anchored, hits / max(1, len(probe)), refs))
    library.sort(key=lambda p: (p.probe_fraction, p.references, p.name))
    return library


def _references(name: str, definitions: dict[str, str]) -> set[str]:
    """The named patterns ``name`` is built from, transitively."""
    seen: set[str] = set()
    todo = [name]
    while todo:
        for ref in _REF.findall(definitions.get(todo.pop(), "")):
            if ref not in seen:
                seen.add(ref)
                todo.append(ref)
    return seen


@dataclass
class GrokMethod:
    """The most specific Grok pattern that every training value fully matches, else abstain."""

    library: list[GrokPattern]
    name: str = "grok"
    pattern_based: bool = True
    _compiled: list[regex.Pattern[str]] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        self._compiled = [regex.compile(p.regex) for p in self.library]

    def fit(self, train: list[str]) -> Rule | None:
        distinct = set(train)
        for pattern, rx in zip(self.library, self._compiled, strict=True):
            if all(rx.fullmatch(v) for v in distinct):
                return Rule(
                    "regex",
                    f"%{{{pattern.name}}}",
                    regex=pattern.regex,
                    dialect="python",
                    match_anything=pattern.definition in MATCH_ANYTHING,
                )
        return None
