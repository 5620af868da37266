"""Each bad input of docs/bad-inputs.md through the real CLI: the exit code and message documented.

The table in the document is the test's list: each row names a case here, and
the run must exit with the row's code and, for exit 2, print one ``error:``
line containing the row's text. Real files, a real index (written by the local
index writer: the same Parquet files and metadata as the Spark job), real DuckDB.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner, Result

from autovalidate.cli import app
from autovalidate.index.state import write_local_index
from autovalidate.pattern_constraint import Segment
from autovalidate.patterns.render import pattern_regex, spell_segments
from tests.conftest import ROOT, corpus

DOC = ROOT / "docs" / "bad-inputs.md"
runner = CliRunner()


def run(*args: object) -> Result:
    return runner.invoke(app, [str(a) for a in args])


def doc_rows() -> list[tuple[str, str, int, str]]:
    rows = []
    for line in DOC.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[2].isdigit():
            quoted = re.search(r"`([^`]*)`", cells[3])
            rows.append(
                (cells[0], cells[1].strip("`"), int(cells[2]), quoted.group(1) if quoted else "")
            )
    return rows


class Files:
    """A small index, a training file, a pattern constraint and a suite, built once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.index = root / "index"
        write_local_index(corpus(), self.index, budget=200_000)
        self.train = self.csv(
            "train.csv",
            "when,n\n" + "".join(f"0{i % 9 + 1}/1{i % 9}/2001,{i}\n" for i in range(60)),
        )
        self.constraint = root / "when.json"
        made = run(
            "suggest",
            self.train,
            "-c",
            "when",
            "-i",
            self.index,
            "--r",
            "0.5",
            "--m",
            "1",
            "-o",
            self.constraint,
        )
        assert made.exit_code == 0 and self.constraint.exists(), made.output
        self.suite = root / "suite.json"
        self.suite.write_text(
            json.dumps(
                {
                    "format": "autovalidate-suite",
                    "version": 2,
                    "checks": [
                        {
                            "description": "a",
                            "level": "Error",
                            "constraints": [
                                {
                                    "kind": "deequ",
                                    "constraint": "has_size",
                                    "assertion": {"op": ">=", "value": 1},
                                }
                            ],
                        }
                    ],
                }
            )
        )

    def csv(self, name: str, text: str | bytes) -> Path:
        path = self.root / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8", newline="")
        return path

    def broken_index(self, name: str) -> Path:
        copy = self.root / name
        shutil.copytree(self.index, copy)
        return copy


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Files:
    return Files(tmp_path_factory.mktemp("bad-inputs"))


def _late_latin(f: Files) -> Path:
    return f.csv("late.csv", b"a,b\n" + b"abc,1\n" * 100_000 + b"x\xffy,2\n")


def _ragged(f: Files) -> Result:
    data = f.csv("ragged.csv", "a,b\n1,2\n3\n4,5,6\n")
    res = run("validate", data, "-c", f.suite, "--json")
    from autovalidate.engines.io import column_values

    assert column_values(str(data), "b") == ["2", None, "5"]
    assert column_values(str(data), "column2") == [None, None, "6"]
    return res


def _quote(f: Files) -> Result:
    data = f.csv("quote.csv", 'a,b\n1,"open\n2,3\n')
    from autovalidate.engines.io import column_values

    assert column_values(str(data), "b") == ['"open', "3"]
    return run("validate", data, "-c", f.suite)


def _big_cell(f: Files) -> Result:
    data = f.csv("big.csv", "a,b\n" + "x" * 1_000_000 + ",1\nyz,2\n")
    return run("suggest", data, "-c", "a", "-i", f.index, "--json")


def _huge_line(f: Files) -> Result:
    data = f.csv("huge.csv", "a,b\n" + "x" * 5_000_000 + ",1\nyz,2\n")
    res = run("suggest", data)
    # the quoted line is cut, not the reason after it
    assert len(res.output) < 1_000, len(res.output)
    return res


def _wide(f: Files) -> Result:
    columns = range(20_000)
    lines = [",".join(f"c{i}" for i in columns)] + [",".join(map(str, columns))] * 3
    return run("suggest", f.csv("wide.csv", "\n".join(lines) + "\n"))


def _nul(f: Files) -> Result:
    data = f.csv("nul.csv", b"a,b\nx\x00y,1\nz,2\n")
    from autovalidate.engines.io import column_values

    assert column_values(str(data), "a") == ["x\x00y", "z"]
    return run("validate", data, "-c", f.suite)


def _crlf(f: Files) -> Result:
    lf = f.train.read_text(encoding="utf-8")
    data = f.csv("crlf.csv", lf.replace("\n", "\r\n"))
    res = run("suggest", data, "-c", "when", "-i", f.index, "--r", "0.5", "--m", "1", "--json")
    same = run("suggest", f.train, "-c", "when", "-i", f.index, "--r", "0.5", "--m", "1", "--json")
    assert (
        json.loads(res.output)["constraint"]["regex"]
        == json.loads(same.output)["constraint"]["regex"]
    )
    return res


def _one_column(f: Files) -> Result:
    keys = [f"2000A1F3;2000A1F3-{i:04d}" for i in range(40)]
    data = f.csv("keys.csv", "key\n" + "".join(f"{k}\n" for k in keys))
    res = run("suggest", data, "-c", "key", "-i", f.index, "--json")
    assert json.loads(res.output)["values"] == len(keys)
    from autovalidate.engines.io import column_values

    assert column_values(str(data), "key") == keys
    return res


def _null_tokens(f: Files) -> Result:
    data = f.csv("tokens.csv", "a,b\n" + "NULL,1\nN/A,2\n" * 20)
    res = run("suggest", data, "-c", "a", "-i", f.index, "--json")
    assert json.loads(res.output)["constraint"] is None
    return res


def _truncated_part(f: Files) -> Result:
    index = f.broken_index("truncated")
    part = sorted((index / "patterns").glob("*.parquet"))[0]
    part.write_bytes(part.read_bytes()[:100])
    return run("suggest", f.train, "-c", "when", "-i", index)


def _deleted_part(f: Files) -> Result:
    index = f.broken_index("deleted-part")
    (part,) = (index / "patterns").glob("*.parquet")
    table = pq.read_table(part)
    half = table.num_rows // 2
    part.unlink()  # two part files, as a Spark build writes: still a complete index
    pq.write_table(table.slice(0, half), index / "patterns" / "part-00000.parquet")
    pq.write_table(table.slice(half), index / "patterns" / "part-00001.parquet")
    assert run("index", "info", index).exit_code == 0
    (index / "patterns" / "part-00001.parquet").unlink()
    return run("index", "info", index)


def _metadata(f: Files, name: str, edit: Callable[[Path], None]) -> Path:
    index = f.broken_index(name)
    edit(index / "_autovalidate_index.json")
    return index


def _edited_count(path: Path) -> None:
    meta = json.loads(path.read_text())
    meta["patterns"] -= 1
    path.write_text(json.dumps(meta))


def _other_format(path: Path) -> None:
    meta = json.loads(path.read_text())
    meta["format_version"] = 99
    path.write_text(json.dumps(meta))


def _constraint_edit(f: Files, name: str, edit: Callable[[dict], None]) -> Path:
    doc = json.loads(f.constraint.read_text())
    if "checks" in doc:  # a suite as suggest --out writes it: its first pattern constraint
        edit(doc["checks"][0]["constraints"][0])
    else:
        edit(doc["constraints"][0] if "constraints" in doc else doc)
    path = f.root / name
    path.write_text(json.dumps(doc))
    return path


def _in_suite(f: Files, name: str, **changes: object) -> Result:
    """The suite ``suggest --out`` wrote, its pattern constraint edited by hand."""
    return run("validate", f.train, "-c", _constraint_edit(f, name, lambda d: d.update(changes)))


def _tampered(doc: dict) -> None:
    doc["regex"] = r"\A(?:(a|aa)+)\z"


def _past_re2(doc: dict) -> None:
    """The pattern made a list of up to 1,000 items by hand: every field agrees, RE2 refuses."""
    item, unit = doc["pattern"], "," + doc["pattern"]
    cut = [(item, 0), (unit, 999)]
    segments = [Segment(item), Segment(unit, optional=True, repeat=999)]
    doc.update(
        segments=[s.to_dict() for s in segments],
        pattern=spell_segments(cut),
        regex=pattern_regex(cut),
    )


def _suite_of(f: Files, name: str, constraint: dict) -> Path:
    """A suite file of one Deequ constraint, as a hand-edited or hostile suite is."""
    doc = {
        "format": "autovalidate-suite",
        "version": 2,
        "checks": [{"description": "a", "level": "Error", "constraints": [constraint]}],
    }
    path = f.root / name
    path.write_text(json.dumps(doc))
    return path


LEAK = "CAST(id AS INTEGER) < ascii(substr((SELECT content FROM read_text('/etc/passwd')),1,1))"


def _deequ(f: Files, name: str, **constraint: object) -> Result:
    data = f.csv("ids.csv", "id,name\n" + "".join(f"{i},n{i}\n" for i in range(1000)))
    suite = _suite_of(f, name, {"kind": "deequ", **constraint})
    return run("validate", data, "-c", suite)


def _deep(f: Files) -> Result:
    depth = 100_000
    suite = f.csv("deep.json", '{"format": "autovalidate-suite", "version": 2, "checks": ')
    suite.write_text(suite.read_text() + "[" * depth + "]" * depth + "}")
    return run("validate", f.train, "-c", suite)


def _just_short_of_the_parser(f: Files) -> Result:
    depth = 960  # the parser read it (a few frames short of its limit), repr did not
    suite = _suite_of(f, "short.json", {"kind": "deequ", "constraint": "has_size"})
    suite.write_text(
        suite.read_text().replace("}]}]}", ', "assertion": ' + "[" * depth + "]" * depth + "}]}]}")
    )
    return run("validate", f.train, "-c", suite)


def _key_twice(f: Files) -> Result:
    suite = _suite_of(
        f, "twice.json", {"kind": "deequ", "constraint": "is_complete", "column": "@"}
    )
    suite.write_text(suite.read_text().replace('"column": "@"', '"column": "id", "column": "name"'))
    return run("validate", f.csv("ids.csv", "id,name\n1,a\n"), "-c", suite)


def _anomalies(f: Files, name: str, repository: Path | None, **changes: object) -> Result:
    """A suite of one has_no_anomalies constraint on the batch's size, edited by hand."""
    constraint = {
        "kind": "deequ",
        "constraint": "has_no_anomalies",
        "analyzer": {"analyzer": "Size"},
        "strategy": {"strategy": "AbsoluteChange", "max_rate_increase": 10.0},
        "dataset": "orders",
        **changes,
    }
    suite = _suite_of(f, name, constraint)
    data = f.csv("ids.csv", "id,name\n" + "".join(f"{i},n{i}\n" for i in range(1000)))
    return run("validate", data, "-c", suite, *(["-r", repository] if repository else []))


def _history(f: Files, name: str) -> Path:
    """A directory metrics repository holding the sizes of 8 earlier batches of 'orders'."""
    import pandas as pd

    from autovalidate.analysis import AnalysisRunner
    from autovalidate.metrics import Size
    from autovalidate.repository import ResultKey, open_repository

    repo = f.root / name
    repository = open_repository(repo)
    for day in range(1, 9):
        context = AnalysisRunner.on_data(pd.DataFrame({"a": range(990 + day)})).add_analyzer(Size())
        repository.save(ResultKey.at("orders", f"2024-01-0{day}"), context.run())
    return repo


def _long_name(f: Files) -> Result:
    name = "x" * 10_000_000
    res = _deequ(f, "long-name.json", constraint="is_complete", column=name)
    line = res.output.strip()
    left_out = re.search(r"\.\.\. \(([\d,]+) more characters\)$", line)
    assert len(line) < 2_200 and left_out, line[-80:]
    assert int(left_out.group(1).replace(",", "")) > len(name) - 2_000, line[-80:]
    return res


def _escapes(f: Files) -> Result:
    clear = "\x1b[2J\x1b[31m"
    doc = json.loads(f.constraint.read_text())  # the suite suggest --out wrote
    doc["checks"][0]["description"] = f"{clear}PWNED"
    suite = f.root / "escapes.json"
    suite.write_text(json.dumps(doc))
    data = f.csv("escapes.csv", "when,n\n" + "01/12/2001,1\n" * 20 + f"{clear}01/12/2001,2\n" * 10)
    res = run("validate", data, "-c", suite)
    assert res.exit_code == 1  # the value breaks the pattern: a data failure, shown
    assert "\x1b" not in res.output and "\r" not in res.output, repr(res.output)
    # the description and the non-conforming value, each as its escapes
    assert res.output.count("\\x1b[2J") >= 2, res.output
    return res


def _fifo(f: Files) -> Result:
    import os
    import threading

    fifo = f.root / "stream.csv"
    os.mkfifo(fifo)
    text = f.train.read_bytes()

    def feed() -> None:
        with open(fifo, "wb") as w:  # blocks until the command opens it, once
            w.write(text)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    done: list[Result] = []
    command = threading.Thread(
        target=lambda: done.append(run("validate", fifo, "-c", f.constraint, "--json")),
        daemon=True,
    )
    command.start()
    command.join(timeout=120)
    hung = command.is_alive()
    while command.is_alive():  # a second open of the FIFO waits for a writer: give it EOF
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
        command.join(timeout=0.1)
    assert not hung, "validate hung on a FIFO (it opened it more than once)"
    (res,) = done
    assert json.loads(res.output)["passed"] is True
    return res


def _padded(f: Files) -> Result:
    data = f.csv("padded.csv", "  padded  ,b\n" + "".join(f"x{i},1\n" for i in range(30)))
    res = run("suggest", data, "-c", "  padded  ", "-i", f.index, "--json")
    assert json.loads(res.output)["column"] == "  padded  ", res.output
    return res


def _repository(f: Files, name: str, text: str) -> Result:
    repo = f.root / name
    (repo / "orders").mkdir(parents=True)
    (
        repo / "orders" / "notes.json" if "stray" in name else repo / "orders" / "1-a.json"
    ).write_text(text)
    return run("metrics", "history", "-r", repo, "-d", "orders")


CASES: dict[tuple[str, str], Callable[[Files], Result]] = {
    ("missing file", "validate"): lambda f: run("validate", f.root / "nope[1].csv", "-c", f.suite),
    ("0-byte file", "suggest"): lambda f: run(
        "suggest", f.csv("empty.csv", ""), "-o", f.root / "o1.json"
    ),
    ("header-only CSV", "suggest"): lambda f: run(
        "suggest", f.csv("h.csv", "a,b\n"), "-o", f.root / "o2.json"
    ),
    ("header-only CSV", "validate"): lambda f: run(
        "validate", f.csv("h.csv", "a,b\n"), "-c", f.suite
    ),
    ("non-UTF-8 bytes in the first rows", "validate"): lambda f: run(
        "validate", f.csv("latin.csv", b"a,b\n1,\xff\xfe\n2,x\n"), "-c", f.suite
    ),
    ("non-UTF-8 bytes after 100,000 rows", "validate"): lambda f: run(
        "validate", _late_latin(f), "-c", f.suite
    ),
    ("non-UTF-8 bytes after 100,000 rows", "suggest"): lambda f: run(
        "suggest", _late_latin(f), "-o", f.root / "o3.json"
    ),
    ("non-UTF-8 bytes after 100,000 rows", "suggest --column"): lambda f: run(
        "suggest", _late_latin(f), "-c", "a", "-i", f.index
    ),
    ("ragged rows", "validate"): _ragged,
    ("unbalanced quote", "validate"): _quote,
    ("a 1 MB cell", "suggest --column"): _big_cell,
    ("a 5 MB line", "suggest"): _huge_line,
    ("a CSV file of 20,000 columns", "suggest"): _wide,
    ("NUL bytes in a cell", "validate"): _nul,
    ("CRLF line ends", "suggest --column"): _crlf,
    ("one-column file whose values share a `;`", "suggest --column"): _one_column,
    ("all-null column", "suggest --column"): lambda f: run(
        "suggest", f.csv("nulls.csv", "a,b\n,1\n,2\n"), "-c", "a", "-i", f.index
    ),
    ("column of null tokens (`NULL`, `N/A`)", "suggest --column"): _null_tokens,
    ("missing column", "validate"): lambda f: run(
        "validate", f.csv("renamed.csv", "When,n\n01/11/2001,1\n"), "-c", f.constraint
    ),
    ("truncated Parquet file in the index", "suggest --column"): _truncated_part,
    ("deleted Parquet file in the index", "index info"): _deleted_part,
    ("deleted index metadata file", "suggest --column"): lambda f: run(
        "suggest", f.train, "-c", "when", "-i", _metadata(f, "no-meta", Path.unlink)
    ),
    ("edited index metadata (pattern count)", "suggest --column"): lambda f: run(
        "suggest", f.train, "-c", "when", "-i", _metadata(f, "edited", _edited_count)
    ),
    ("index metadata not JSON", "index info"): lambda f: run(
        "index", "info", _metadata(f, "not-json", lambda p: p.write_text("{"))
    ),
    ("index of another format version", "suggest --column"): lambda f: run(
        "suggest", f.train, "-c", "when", "-i", _metadata(f, "v99", _other_format)
    ),
    ("suite of another format version", "validate"): lambda f: run(
        "validate",
        f.train,
        "-c",
        f.csv("v9.json", '{"format": "autovalidate-suite", "version": 9}'),
    ),
    ("pattern constraint of another version", "validate"): lambda f: run(
        "validate", f.train, "-c", _constraint_edit(f, "c7.json", lambda d: d.update(version=7))
    ),
    ("malformed constraint JSON", "validate"): lambda f: run(
        "validate", f.train, "-c", f.csv("broken.json", '{"format": "autovalidate-suite", ')
    ),
    ("hand-edited regex in a constraint", "validate"): lambda f: run(
        "validate", f.train, "-c", _constraint_edit(f, "tampered.json", _tampered)
    ),
    ("a list bound raised by hand past what RE2 compiles", "validate"): lambda f: run(
        "validate", f.train, "-c", _constraint_edit(f, "long.json", _past_re2)
    ),
    ('hand-edited `"alpha": "0.01"` in a pattern constraint', "validate"): lambda f: _in_suite(
        f, "alpha.json", alpha="0.01"
    ),
    ('hand-edited `"null_tokens": "NULL"` in a pattern constraint', "validate"): lambda f: (
        _in_suite(f, "tokens.json", null_tokens="NULL")
    ),
    ('hand-edited `"train_n": true` in a pattern constraint', "validate"): lambda f: _in_suite(
        f, "n.json", train_n=True
    ),
    ("hand-edited `train_nonconforming` (a wider tolerance)", "validate"): lambda f: _in_suite(
        f, "wider.json", train_nonconforming=30
    ),
    ('hand-edited `"allowed_values": "abc"`', "validate"): lambda f: _deequ(
        f, "abc.json", constraint="is_contained_in", column="name", allowed_values="abc"
    ),
    ("a bound of `10**400` in an assertion", "validate"): lambda f: _deequ(
        f, "big.json", constraint="has_size", assertion={"op": ">=", "value": 10**400}
    ),
    ('a range bound of `NaN` (`"lower_bound": NaN`, which Python\'s JSON reads)', "validate"): (
        lambda f: _deequ(
            f,
            "nan.json",
            constraint="is_in_range",
            column="id",
            lower_bound=float("nan"),
            upper_bound=5.0,
        )
    ),
    ("a suite pair check of 10,000 allowed pairs", "validate"): lambda f: _deequ(
        f,
        "pairs.json",
        constraint="is_pair_contained_in",
        column_a="id",
        column_b="name",
        allowed_pairs=[[i, f"n{i}"] for i in range(10_000)],
    ),
    ("suite predicate reading a file (`read_text` in a subquery)", "validate"): lambda f: _deequ(
        f, "leak.json", constraint="satisfies", predicate=LEAK, constraint_name="leak"
    ),
    ("suite `where` calling `getenv`", "validate"): lambda f: _deequ(
        f, "env.json", constraint="is_complete", column="id", where="getenv('HOME') = ''"
    ),
    ("suite predicate of two statements", "validate"): lambda f: _deequ(
        f, "two.json", constraint="satisfies", predicate="id > 0; SELECT 1", constraint_name="x"
    ),
    ("suite predicate building 100 MB per row (`repeat(name, 100000000)`)", "validate"): (
        lambda f: _deequ(
            f,
            "repeat.json",
            constraint="satisfies",
            predicate="length(repeat(name, 100000000)) > 0",
            constraint_name="x",
        )
    ),
    ("suite predicate nested 5,000 parentheses deep", "validate"): lambda f: _deequ(
        f,
        "nested-sql.json",
        constraint="satisfies",
        predicate="(" * 5_000 + "id > 0" + ")" * 5_000,
        constraint_name="x",
    ),
    ("suite filter of 1.2 MB (100,000 ORs)", "validate"): lambda f: _deequ(
        f,
        "long-where.json",
        constraint="is_complete",
        column="id",
        where="id = '1' OR " * 100_000 + "TRUE",
    ),
    ("`has_pattern` regex with a look-ahead", "validate"): lambda f: _deequ(
        f, "ahead.json", constraint="has_pattern", column="name", pattern="(?=n)n[0-9]+"
    ),
    ("`has_pattern` regex nesting repetitions (`(a+)+`)", "validate"): lambda f: _deequ(
        f, "nested.json", constraint="has_pattern", column="name", pattern="(a+)+"
    ),
    ("a suite nested 100,000 levels deep (`[[[[...]]]]`)", "validate"): _deep,
    ("a column name of 10 MB in a suite", "validate"): _long_name,
    (
        "a suite nested 960 levels deep, just short of where Python's parser stops",
        "validate",
    ): _just_short_of_the_parser,
    ('a key given twice in one object (`"column": "id", "column": "name"`)', "validate"): (
        _key_twice
    ),
    (
        'a list where a constraint takes one column (`"column": ["id"]` in `is_in_range`)',
        "validate",
    ): lambda f: _deequ(
        f, "one.json", constraint="is_in_range", column=["id"], lower_bound=0.0, upper_bound=1.0
    ),
    (
        'one name where a constraint takes a list of columns (`"columns": "id"` in `has_columns`)',
        "validate",
    ): lambda f: _deequ(f, "names.json", constraint="has_columns", columns="id"),
    (
        'an unpaired surrogate escape in a suite\'s SQL (`"where": "name = \'n\\ud800\'"`)',
        "validate",
    ): lambda f: _deequ(
        f, "surrogate.json", constraint="is_complete", column="id", where="name = 'n\ud800'"
    ),
    (
        'a `has_no_anomalies` analyzer holding reference data (`"reference": "x.csv"`)',
        "validate",
    ): lambda f: _anomalies(
        f,
        "reference.json",
        None,
        analyzer={"analyzer": "ReferentialIntegrity", "columns": "id", "reference": "x.csv"},
    ),
    ('a `has_no_anomalies` strategy\'s `"include_interval": "no"`', "validate"): lambda f: (
        _anomalies(
            f, "flag.json", None, strategy={"strategy": "BatchNormal", "include_interval": "no"}
        )
    ),
    ('an integer written as a float (`"order": 2.0` in an anomaly strategy)', "validate"): (
        lambda f: _anomalies(
            f,
            "order.json",
            None,
            strategy={"strategy": "AbsoluteChange", "max_rate_increase": 10.0, "order": 2.0},
        )
    ),
    ('an anomaly strategy\'s `"order": 1000000000`', "validate --repository"): lambda f: _anomalies(
        f,
        "far.json",
        _history(f, "far-history"),
        strategy={"strategy": "AbsoluteChange", "max_rate_increase": 10.0, "order": 10**9},
    ),
    ("a `has_no_anomalies` dataset name of 300 characters", "validate --repository"): lambda f: (
        _anomalies(f, "long-dataset.json", _history(f, "long-history"), dataset="x" * 300)
    ),
    (
        "terminal escape codes in a suite's description and in the data (`ESC[2J`)",
        "validate",
    ): _escapes,
    ("an index OUT that cannot be written (under a file)", "index build"): lambda f: run(
        "index", "build", "--lake", f.root, "--out", f.train / "index"
    ),
    ("a FIFO as input (`mkfifo x.csv; zcat x.gz > x.csv`)", "validate"): _fifo,
    ("an `s3://` URL as input", "validate"): lambda f: run(
        "validate", "s3://bucket/x.csv", "-c", f.suite
    ),
    ("a header with spaces around a name (`  padded  `)", "suggest --column"): _padded,
    ("a stray file in a JSON metrics repository", "metrics history"): lambda f: _repository(
        f, "stray-repo", '{"notes": 1}'
    ),
    ("a metrics file whose rows lack fields", "metrics history"): lambda f: _repository(
        f, "rows-repo", '{"rows": [{"dataset": "orders"}]}'
    ),
    ("a metrics file nested 100,000 levels deep", "metrics history"): lambda f: _repository(
        f, "deep-repo", '{"rows": ' + "[" * 100_000 + "]" * 100_000 + "}"
    ),
    ("report file in a directory that does not exist", "validate --junit"): lambda f: run(
        "validate", f.train, "-c", f.suite, "--junit", f.root / "no-such-dir" / "report.xml"
    ),
}


def test_the_document_lists_every_case():
    assert {(name, command) for name, command, _, _ in doc_rows()} == set(CASES)


@pytest.mark.parametrize("row", doc_rows(), ids=lambda row: f"{row[0]} / {row[1]}")
def test_bad_input_is_answered_as_documented(files, row):
    name, command, code, text = row
    res = CASES[(name, command)](files)
    assert res.exit_code == code, res.output
    assert "Traceback" not in res.output
    if code == 2:
        line = res.output.strip()
        assert line.startswith("error:") and "\n" not in line, res.output
        assert text.lower() in line.lower(), line
        # nothing half-written: no failed run leaves its --out file (o1.json, ...)
        assert not list(files.root.glob("o[0-9].json"))
