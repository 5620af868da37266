"""A suite file is untrusted input: mutated suites load or are refused, and run or are refused.

Valid suites of every documented form (a version 2 suite of Deequ checks and
a pattern constraint, a version 1 suite, a single pattern constraint, a suite
of ``has_no_anomalies`` constraints) are mutated the ways a hand edit or a
hostile author mutates them: a key dropped, added or given twice, a value of
another JSON type at any path, huge or non-finite numbers, integers written
as floats, long strings, control characters and lone surrogates, unknown
names, bad regexes and SQL, empty lists, deep nesting. Each mutated file is
loaded as ``autovalidate validate`` loads it (:meth:`ConstraintSuite.load`)
and, if it loads, run as ``validate`` runs it (:func:`autovalidate.validate`
on a sandboxed DuckDB engine over a CSV file, with a metrics repository and a
reference bound). Either step may refuse the suite, with one of the errors a
bad suite raises (docs/bad-inputs.md): a
:class:`~autovalidate.errors.ConstraintFormatError` (or its
:class:`~autovalidate.errors.UnsafeInputError`) on load; on the run also a
missing column or a repository that cannot be read. Never a ``TypeError``,
``KeyError``, ``RecursionError`` or other error leaking out, and never a hang.

The examples are derandomized (the same ones on every run) and few: the whole
module takes a few seconds.
"""

from __future__ import annotations

import copy
import json
import sys
import time
from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autovalidate import pipeline
from autovalidate.analysis import AnalysisRunner
from autovalidate.anomaly import (
    STRATEGIES,
    HoltWintersStrategy,
    OnlineNormalStrategy,
    RelativeRateOfChangeStrategy,
    SimpleThresholdStrategy,
)
from autovalidate.checks.check import SUITE_METHODS
from autovalidate.checks.spec import ConstraintSuite
from autovalidate.engines import open_engine
from autovalidate.errors import (
    AutovalidateError,
    ColumnNotFoundError,
    ConstraintFormatError,
    RepositoryError,
)
from autovalidate.metrics import Completeness, Size
from autovalidate.metrics.codec import analyzer_to_dict
from autovalidate.repository import InMemoryMetricsRepository, ResultKey
from autovalidate.schemas import ANALYZERS, MAX_NESTING
from tests.spark_support import CODE_CONSTRAINT

#: Errors a run of a loaded suite may end in: the suite's own fault (a constraint the
#: run refuses), a column the suite reads that the file lacks, a dataset name the
#: repository cannot store.
RUN_ERRORS = (ConstraintFormatError, ColumnNotFoundError, RepositoryError)
#: Generous: the whole load and run take milliseconds; a hang or a blow-up takes seconds.
BOUND_S = 5.0


def deequ(constraint: str, **args: Any) -> dict[str, Any]:
    return {"kind": "deequ", "constraint": constraint, **args}


def anomalies(analyzer: dict[str, Any], strategy: dict[str, Any], **args: Any) -> dict[str, Any]:
    return deequ("has_no_anomalies", analyzer=analyzer, strategy=strategy, dataset="orders", **args)


PATTERN = CODE_CONSTRAINT.to_dict()
#: One constraint of each documented form, on the batch's columns.
CONSTRAINTS: list[dict[str, Any]] = [
    deequ("is_complete", column="id"),
    deequ(
        "has_completeness",
        column="price",
        assertion={"op": ">=", "value": 0.5},
        hint="half of the prices at least",
    ),
    deequ("is_contained_in", column="flag", allowed_values=["y", "n"]),
    deequ("is_in_range", column="price", lower_bound=0.0, upper_bound=100.0),
    deequ(
        "has_pattern",
        column="code",
        pattern="^[0-9]{2}-[A-Z]{2}$",
        assertion={"op": ">=", "value": 0.5},
    ),
    deequ(
        "satisfies",
        predicate="CAST(id AS INTEGER) > 0",
        constraint_name="positive ids",
        where="flag = 'y'",
    ),
    deequ("has_size", assertion={"op": "between", "value": [1, 10]}),
    deequ("has_exact_quantile", column="price", quantile=0.5, assertion={"op": "<=", "value": 50}),
    deequ("is_unique", column="id"),
    deequ("has_data_type", column="price", data_type="Fractional"),
    deequ(
        "is_pair_contained_in",
        column_a="flag",
        column_b="code",
        allowed_pairs=[["y", "12-AB"], ["n", None]],
    ),
    deequ("matches_datetime_format", column="ts", datetime_format="%Y-%m-%d"),
    deequ(
        "has_referential_integrity",
        columns="code",
        reference_name="codes",
        reference_columns="code",
        assertion={"op": ">=", "value": 0.5},
    ),
    deequ("has_max_length", column="name", assertion={"op": "<=", "value": 10}),
    deequ("has_schema", schema={"id": "VARCHAR"}, allow_added=True),
    PATTERN,
    anomalies(
        analyzer_to_dict(Size()),
        SimpleThresholdStrategy(upper_bound=200.0).to_dict(),  # lower_bound: -Infinity
        tags={"region": "eu"},
    ),
    anomalies(
        analyzer_to_dict(Completeness("price")),
        OnlineNormalStrategy().to_dict(),
        after=0,
        before=None,
    ),
    anomalies(
        {"analyzer": "ApproxCountDistinct", "column": "code", "precision": 12},
        RelativeRateOfChangeStrategy(max_rate_increase=2.0).to_dict(),
    ),
    anomalies(
        {"analyzer": "ApproxQuantiles", "column": "price", "quantiles": [0.5, 0.9]},
        HoltWintersStrategy(periodicity=2).to_dict(),
    ),
]


def suite(*constraints: dict[str, Any]) -> dict[str, Any]:
    """A version 2 suite of one check holding ``constraints``."""
    check = {"description": "orders", "level": "Error", "constraints": list(constraints)}
    return {"format": "autovalidate-suite", "version": 2, "checks": [check]}


#: Suites of every form: version 2, version 1 (pattern constraints), a single pattern constraint.
suites = st.one_of(
    st.lists(st.sampled_from(CONSTRAINTS), min_size=1, max_size=2).map(lambda cs: suite(*cs)),
    st.just({"format": "autovalidate-suite", "version": 1, "constraints": [PATTERN]}),
    st.just(PATTERN),
)


#: A value of each JSON type, and those hand edits and hostile authors write.
BY_TYPE: dict[str, list[Any]] = {
    "null": [None],
    "bool": [True, False],
    "int": [0, -1, 2, 2**63, 10**400],
    "float": [0.5, -0.0, 2.0, 1e308, float("inf"), float("-inf"), float("nan")],
    "str": ["", "id", "x" * 50_000, "0.5", "Error", "<digit>{99999}"],
    "list": [[], [None], ["a"], [1, 2], [2, 1], [["a"]], [[1, 2]], ["a"] * 1_000],
    "dict": [
        {},
        {"a": 1},
        {"analyzer": "CustomSql", "query": "SELECT 1"},
        {"op": ">=", "value": 1},
    ],
}
#: Text to put in a string: control characters, a lone surrogate, regexes and SQL to refuse.
TEXTS = [
    "\x00\x1b[2J\r\n",
    "é\u202e",
    "\ud800",  # an unpaired surrogate escape, which json.loads reads
    "(a+)+",
    "(?=a)",
    "[z-a",
    "x{2000}",
    "'; SELECT 1 --",
    "(SELECT content FROM read_text('/etc/passwd'))",
    "%Q",
]
#: Names a suite gives: check methods, strategies, analyzers, ops, levels, kinds, and strangers.
NAMES: list[str] = sorted(
    {*SUITE_METHODS, *STRATEGIES, *ANALYZERS, "has_no_anomalies", "Analyzer", "__init__"}
    | {"between", "==", "Error", "Warning", "Fractional", "fisher", "ks", "deequ"}
    | {"autovalidate-pattern", "autovalidate-suite", "nope", "is_complete "}
)
KEYS = ["extra", "where", "column", "assertion", "reference", "regex", "params", "kind"]


def depths() -> list[int]:
    """Nestings past :data:`MAX_NESTING`, and up to where Python's parser stops from here.

    The parser recurses once a level and stops at the recursion limit, counted
    from the stack the suite is read on: a few levels short of it a suite was
    read, and the first ``repr`` of it, deeper in the stack, failed.
    """
    frame, here = sys._getframe(), 0
    while frame is not None:
        frame, here = frame.f_back, here + 1
    room = sys.getrecursionlimit() - here
    return [MAX_NESTING + 1, *range(room - 60, room + 1, 4)]


def paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every JSON path of ``doc``, as tuples of keys and indices (the root is ``()``)."""
    out = [prefix]
    items = (
        doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else []
    )
    for key, value in items:
        out += paths(value, (*prefix, key))
    return out


def at(doc: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        doc = doc[key]
    return doc


KINDS = ["retype", "retype", "text", "number", "drop", "add", "rename", "twice", "deep"]
KINDS += ["duplicate", "empty", "wrap"]
#: What :func:`render` writes in place of a marker: (the marker as JSON, the text).
Edit = tuple[str, str]


def mutate(doc: Any, choose: Callable[[list[Any]], Any]) -> tuple[Any, Edit | None]:
    """``doc`` mutated once, and an edit of its text to make (a key twice, deep nesting)."""
    doc = copy.deepcopy(doc)
    anywhere = paths(doc)[1:]
    if not anywhere:  # a scalar, an empty list or object
        return doc, None
    inside = [p for p in anywhere if len(p) > 4]  # in a constraint of a version 2 suite
    path = choose(inside if inside and choose([False, True, True]) else anywhere)
    kind, parent, last = choose(KINDS), at(doc, path[:-1]), path[-1]
    target = parent[last]
    marker = "\x00marker\x00"
    if kind == "retype":
        parent[last] = copy.deepcopy(choose(BY_TYPE[choose(sorted(BY_TYPE))]))
    elif kind == "text" and isinstance(target, str):
        parent[last] = choose([target + choose(TEXTS), choose(TEXTS)])
    elif kind == "number" and isinstance(target, (int, float)) and not isinstance(target, bool):
        parent[last] = choose([float(target), -target, target * 10**6, 10**18, float("nan")])
    elif kind == "drop":
        del parent[last]
    elif kind == "add" and isinstance(target, dict):
        target[choose(KEYS)] = copy.deepcopy(choose(choose(list(BY_TYPE.values()))))
    elif kind == "rename" and isinstance(target, str):
        parent[last] = choose(NAMES)
    elif kind == "twice" and isinstance(target, dict) and target:
        target[marker] = copy.deepcopy(choose(choose(list(BY_TYPE.values()))))
        return doc, (
            json.dumps(marker),
            json.dumps(choose(sorted(k for k in target if k != marker))),
        )
    elif kind == "deep":  # written as text: nesting this deep is past json.dumps too
        depth, leaf = choose(depths()), target if isinstance(target, (str, int)) else 1
        parent[last] = marker
        return doc, (json.dumps(marker), "[" * depth + json.dumps(leaf) + "]" * depth)
    elif kind == "duplicate" and isinstance(target, list):
        target.extend(copy.deepcopy(target))
    elif kind == "empty" and isinstance(target, (list, dict)):
        target.clear()
    elif kind == "wrap":
        parent[last] = [target]
    return doc, None


def render(doc: Any, edit: Edit | None) -> str:
    """The JSON text of ``doc``, its marker replaced as ``edit`` says."""
    text = json.dumps(doc)
    return text if edit is None else text.replace(*edit)


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    """A small CSV batch on one sandboxed engine, a metrics history, a reference table."""
    root = tmp_path_factory.mktemp("suite-fuzz")
    data = root / "batch.csv"
    data.write_text(
        "id,code,price,name,ts,flag\n"
        "1,12-AB,3.5,ann,2024-01-01,y\n"
        "2,34-CD,,bob,2024-01-02,n\n"
        "3,xx,99,\x1b[2J,bad,y\n",
        encoding="utf-8",
    )
    repository = InMemoryMetricsRepository()
    for day in range(1, 9):
        frame = pa.table({"price": [1.0, None, 3.0][: 1 + day % 3]})
        context = AnalysisRunner.on_data(frame).add_analyzers([Size(), Completeness("price")])
        repository.save(ResultKey.at("orders", f"2024-01-0{day}", {"region": "eu"}), context.run())
    references = {"codes": pa.table({"code": ["12-AB", "34-CD"]})}
    with open_engine(str(data), sandbox=True) as engine:
        yield root, engine, repository, references


def check_mutated(batch: Any, text: str) -> str:
    """Load and run the suite ``text`` as ``validate`` does; say how far it went."""
    root, engine, repository, references = batch
    path = root / "suite.json"
    path.write_text(text, encoding="utf-8")
    started = time.perf_counter()
    try:
        try:
            suite = ConstraintSuite.load(path)
        except ConstraintFormatError as exc:
            assert str(exc).strip(), "a refusal says why"
            return "refused"
        assert ConstraintSuite.from_dict(json.loads(suite.to_json())) == suite
        try:
            result = pipeline.validate(engine, suite, repository=repository, references=references)
        except RUN_ERRORS as exc:
            assert str(exc).strip(), "a refusal says why"
            return "refused on the run"
        # what --json prints, as UTF-8
        json.dumps(result.to_dict(), ensure_ascii=False, default=str).encode("utf-8")
        return "ran"
    except AutovalidateError as exc:  # an error of the library, but not one a bad suite raises
        raise AssertionError(f"{type(exc).__name__} is not how a bad suite is refused") from exc
    finally:
        elapsed = time.perf_counter() - started
        assert elapsed < BOUND_S, f"{elapsed:.1f} s on {text[:300]}"


@settings(
    max_examples=150,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(base=suites, data=st.data())
def test_a_mutated_suite_loads_and_runs_or_is_refused(batch, base, data):
    def choose(options: list[Any]) -> Any:
        return data.draw(st.sampled_from(options))

    doc, edit = base, None
    for _ in range(data.draw(st.integers(1, 2))):
        doc, edit = mutate(doc, choose)
        if edit is not None:  # its marker stays as it is
            break
    check_mutated(batch, render(doc, edit))


def test_the_suites_load_and_run(batch):
    """Each unmutated constraint runs: the mutations start from suites that work."""
    assert check_mutated(batch, json.dumps(suite(*CONSTRAINTS))) == "ran"
    assert check_mutated(batch, json.dumps(PATTERN)) == "ran"
