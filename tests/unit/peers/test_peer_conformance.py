"""Peer conformance: the concrete cases of Deequ's and PyDeequ's tests (and of Great
Expectations' test definitions), ported as data, on DuckDB and on Spark (issue 33).

Each table runs once per engine: one verification run computes every analyzer and every
check of the table's cases in shared scans, then each case compares its value with the
peer's. A case marked :class:`~tests.unit.peers.support.Differs` must give our documented
value instead, and that value must differ from the peer's; every such case is listed in
the differences table of ``docs/deequ.md``.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from autovalidate.errors import ParameterError
from tests.unit.peers import deequ_cases, gx_cases
from tests.unit.peers.support import A, C, R, arrow_table, run_table, same

#: Tables whose cases also run on Spark in the default run: "full" holds the frequency
#: metrics and the one Spark-only difference. A Spark query costs about half a second
#: here whatever its size, and the cases need one per table and distinct grouping (some
#: 150 in all), so the other tables' Spark cases are marked slow (``-m slow`` runs them;
#: they pass as well).
SPARK_BY_DEFAULT = {"full"}
SOURCES = [deequ_cases, gx_cases]
TABLES = {name: spec for m in SOURCES for name, spec in m.TABLES.items()}
ANALYZER_CASES = [c for m in SOURCES for c in m.ANALYZER_CASES]
CHECK_CASES = [c for m in SOURCES for c in m.CHECK_CASES]
REFUSED = [c for m in SOURCES for c in getattr(m, "REFUSED", [])]


def _ids(cases: list[Any]) -> list[str]:
    """Each case's id, numbered where two cases would read alike (assertions as functions)."""
    seen: dict[str, int] = defaultdict(int)
    ids = []
    for case in cases:
        seen[case.id] += 1
        ids.append(case.id if seen[case.id] == 1 else f"{case.id}#{seen[case.id]}")
    return ids


CHECK_IDS = dict(zip(map(id, CHECK_CASES), _ids(CHECK_CASES), strict=True))
DOCS = Path(__file__).resolve().parents[3] / "docs" / "deequ.md"


def _by_table() -> dict[str, tuple[list[Any], list[C]]]:
    grouped: dict[str, tuple[list[Any], list[C]]] = defaultdict(lambda: ([], []))
    for case in ANALYZER_CASES:
        if case.analyzer not in grouped[case.table][0]:
            grouped[case.table][0].append(case.analyzer)
    for case in CHECK_CASES:
        grouped[case.table][1].append(case)
    return grouped


@pytest.fixture(scope="module")
def outcomes(request):
    """``outcomes(engine, table)``: the table's metrics and check statuses, run once."""
    grouped = _by_table()
    memo: dict[tuple[str, str], tuple[dict[Any, Any], dict[str, str]]] = {}

    def get(engine: str, table: str) -> tuple[dict[Any, Any], dict[str, str]]:
        if (engine, table) not in memo:
            schema, rows = TABLES[table]
            if engine == "duckdb":
                data: Any = arrow_table(schema, rows)
            else:
                data = request.getfixturevalue("spark").createDataFrame(rows, schema=schema)
            analyzers, checks = grouped[table]
            metrics, statuses = run_table(data, analyzers, checks)
            by_id = {CHECK_IDS[id(c)]: s for c, s in zip(checks, statuses, strict=True)}
            memo[engine, table] = metrics, by_id
        return memo[engine, table]

    return get


def _params(cases: list[Any], ids: list[str]) -> list[Any]:
    """Each case on DuckDB, and on Spark (slow unless its table is in SPARK_BY_DEFAULT)."""
    params = []
    for case, case_id in zip(cases, ids, strict=True):
        params.append(pytest.param(case, "duckdb", id=f"{case_id}-duckdb"))
        marks = () if case.table in SPARK_BY_DEFAULT else (pytest.mark.slow,)
        params.append(pytest.param(case, "spark", id=f"{case_id}-spark", marks=marks))
    return params


def _differs(case: A | C, engine: str) -> bool:
    return case.differs is not None and engine in case.differs.engines


def _expected(case: A | C, engine: str) -> Any:
    return case.differs.ours if case.differs and _differs(case, engine) else case.expected


ANALYZER_PARAMS = _params(ANALYZER_CASES, [c.id for c in ANALYZER_CASES])
CHECK_PARAMS = _params(CHECK_CASES, _ids(CHECK_CASES))


@pytest.mark.parametrize(("case", "engine"), ANALYZER_PARAMS)
def test_analyzer_case(case: A, engine, outcomes):
    value = outcomes(engine, case.table)[0][case.analyzer]
    assert same(value, _expected(case, engine)), f"{value!r} != {_expected(case, engine)!r}"
    if _differs(case, engine):
        assert not same(value, case.expected)


@pytest.mark.parametrize(("case", "engine"), CHECK_PARAMS)
def test_check_case(case: C, engine, outcomes):
    status = outcomes(engine, case.table)[1][CHECK_IDS[id(case)]]
    assert status == _expected(case, engine)
    if _differs(case, engine):
        assert status != case.expected


@pytest.mark.parametrize("case", REFUSED, ids=lambda c: f"{c.source}:{c.label}")
def test_refused_parameters(case: R):
    with pytest.raises(ParameterError):
        case.make()


def test_analyzer_case_ids_are_unique():
    ids = [c.id for c in ANALYZER_CASES]
    assert len(ids) == len(set(ids))


def test_every_difference_is_documented():
    """Each reason a case differs has a row in docs/deequ.md's differences table."""
    docs = DOCS.read_text()
    reasons = {c.differs.why for c in [*ANALYZER_CASES, *CHECK_CASES] if c.differs}
    assert reasons
    missing = [r for r in sorted(reasons) if f"| `{r}` |" not in docs]
    assert not missing
