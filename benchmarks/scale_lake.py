"""A scale lake: N times a base lake, by resampling its columns with value perturbations (issue 11).

Usage::

    python3 benchmarks/scale_lake.py --factor 10 --out benchmarks/work/scale/lakes/lake-x10
                                     [--base ../shared/lake] [--seed 0] [--max-file-mb 50]

What it writes, in the base lake's schema (same Arrow fields and types, zstd
Parquet, files named ``<stem>-NNN.parquet`` after the base file they come
from, so ``index_jobs/build_index.py`` reads it unchanged):

* replica 0 is every base column as it is (the 1x scale lake holds the same
  data as the base lake);
* replicas 1 .. N-1 hold a perturbed copy of every base column each (a
  stratified resample: every base column is drawn exactly N times, so the
  mix of column kinds, lengths and sources is the base lake's), with
  ``table_id`` ``owner/repo:scaleK/path`` (K = the replica), so every column
  has its own identity ``(table_id, column_position)``.

A perturbed column is its base column passed value by value through a map
drawn once per column (seeded by ``--seed``, the replica, the table id and
the column position; stable across processes and machines):

* dates ``YYYY-MM-DD``, ``YYYY/MM/DD`` and ``MM/DD/YYYY`` (also inside
  datetimes: the time of day is kept) are shifted by the column's offset, 1 to
  3650 days either way; standalone years 1800-2099 by the same offset in
  years;
* digits elsewhere are re-drawn through a permutation of 1-9 (0 stays 0, so
  leading zeros and number shapes stay);
* tokens that mix letters and digits (ids: ``A12B``, ``4f89``, GUIDs) get
  their letters re-drawn within their class and case (``a-f`` among ``a-f``
  and ``g-z`` among ``g-z``, likewise upper case), so hexadecimal runs stay
  hexadecimal;
* words (letter-only tokens), punctuation, spaces and nulls are kept: the
  vocabulary of a real lake recurs across its tables.

Each part of the map is one-to-one (a date shift, a year shift, a
permutation), and equal values map to equal values, so a perturbed column
keeps its base column's nulls, repetitions and value lengths, and its
distinct values up to rare collisions between the parts (a shifted year
meeting a re-drawn 4-digit number). Every value keeps its sequence of
character classes (digit, lower/upper case, hex letter, each other
character itself): the pattern *shapes* of the lake are kept, while its
constants vary.

Output is streamed: one base file in memory at a time, one replica of it
converted at a time, appended as a row group to the current output file,
which is closed once it holds ``--max-file-mb`` of uncompressed Arrow data.
A ``_scale_lake.json`` manifest (ignored by the index job, whose lake
listing skips ``_*`` files) records the base, factor, seed and counts.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import random
import re
import shutil
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
BASE = ROOT.parent / "shared" / "lake"
MANIFEST = "_scale_lake.json"
#: Uncompressed Arrow megabytes (2**20 bytes) per output file before it is closed.
MAX_FILE_MB = 50
#: Largest date shift, in days either way.
MAX_SHIFT_DAYS = 3650

_DIGITS = "123456789"
_LETTER_GROUPS = ("abcdef", "ghijklmnopqrstuvwxyz", "ABCDEF", "GHIJKLMNOPQRSTUVWXYZ")
# one alternation, scanned left to right: dates first (so their digits are shifted,
# not re-drawn), then times of day (kept), then alphanumeric tokens
_TOKEN = re.compile(
    r"(?P<ymd>(?<!\d)(?P<y1>\d{4})(?P<s1>[-/])(?P<m1>\d{2})(?P=s1)(?P<d1>\d{2})(?!\d)"
    r"(?P<t1>[T ]?\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?(?!\d))?)"
    r"|(?P<mdy>(?<!\d)(?P<m2>\d{2})/(?P<d2>\d{2})/(?P<y2>\d{4})(?!\d)"
    r"(?P<t2>[T ]?\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?(?!\d))?)"
    r"|(?P<time>(?<!\d)\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?(?!\d))"
    r"|(?P<tok>[A-Za-z0-9]+)",
    re.ASCII,
)


def column_seed(seed: int, replica: int, table_id: str, position: int) -> int:
    """The 64-bit seed of one generated column (BLAKE2b; the same in every process)."""
    key = f"{seed}\x00{replica}\x00{table_id}\x00{position}".encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "little")


class ColumnPerturbation:
    """The value map of one generated column: a date shift and class-keeping permutations.

    Parameters
    ----------
    seed
        The column's seed (:func:`column_seed`).

    Attributes
    ----------
    shift_days
        Date shift in days, in ``[-MAX_SHIFT_DAYS, MAX_SHIFT_DAYS]``, never 0.
    """

    def __init__(self, seed: int):
        rng = random.Random(seed)
        self.shift_days = rng.randint(1, MAX_SHIFT_DAYS) * rng.choice((-1, 1))
        self._shift = dt.timedelta(days=self.shift_days)
        self._years = round(self.shift_days / 365.25) or (1 if self.shift_days > 0 else -1)
        digits = list(_DIGITS)
        rng.shuffle(digits)
        self._digits = str.maketrans(_DIGITS, "".join(digits))
        src, dst = "", ""
        for group in _LETTER_GROUPS:
            drawn = list(group)
            rng.shuffle(drawn)
            src, dst = src + group, dst + "".join(drawn)
        self._letters_and_digits = str.maketrans(src + _DIGITS, dst + "".join(digits))
        self._memo: dict[str, str] = {}

    def __call__(self, value: str | None) -> str | None:
        """The perturbed value (``None`` stays ``None``; equal inputs give equal outputs)."""
        if value is None:
            return None
        out = self._memo.get(value)
        if out is None:
            out = _TOKEN.sub(self._token, value)
            self._memo[value] = out
        return out

    def _token(self, m: re.Match[str]) -> str:
        kind = m.lastgroup
        text = m.group(0)
        if kind == "tok":
            if text.isdigit():
                if len(text) == 4 and text[:2] in ("18", "19", "20"):
                    return str(int(text) + self._years)
                return text.translate(self._digits)
            if text.isalpha():
                return text  # a word: kept
            return text.translate(self._letters_and_digits)  # an id
        if kind == "time":
            return text
        if kind == "ymd":
            y, mo, d, sep, order, tail = m["y1"], m["m1"], m["d1"], m["s1"], "ymd", m["t1"]
        else:
            y, mo, d, sep, order, tail = m["y2"], m["m2"], m["d2"], "/", "mdy", m["t2"]
        tail = tail or ""  # the time of day of a datetime, kept
        try:
            day = dt.date(int(y), int(mo), int(d)) + self._shift
        except (ValueError, OverflowError):  # not a real date (13/45/2020): digits re-drawn
            return text.translate(self._digits)
        if not 1000 <= day.year <= 9999:
            return text.translate(self._digits)
        if order == "ymd":
            return f"{day.year:04d}{sep}{day.month:02d}{sep}{day.day:02d}{tail}"
        return f"{day.month:02d}/{day.day:02d}/{day.year:04d}{tail}"


def perturb_table(table: pa.Table, replica: int, seed: int) -> pa.Table:
    """Replica ``replica`` of a lake table (``replica == 0``: the table itself).

    Parameters
    ----------
    table
        Rows of a lake file (one row per column; the lake schema).
    replica
        Which copy, ≥ 0.
    seed
        The generator's seed.

    Returns
    -------
    pyarrow.Table
        Same schema and row count: ``table_id`` renamed to ``source:scaleK/path``
        and ``values`` perturbed column by column (see the module docstring).
    """
    if replica == 0:
        return table
    sources = table.column("source").to_pylist()
    table_ids = table.column("table_id").to_pylist()
    positions = table.column("column_position").to_pylist()
    values = table.column("values").to_pylist()
    new_ids, new_values = [], []
    for source, table_id, position, vals in zip(sources, table_ids, positions, values, strict=True):
        perturb = ColumnPerturbation(column_seed(seed, replica, table_id, position))
        new_values.append(None if vals is None else [perturb(v) for v in vals])
        path = table_id[len(source) + 1 :] if table_id.startswith(source + ":") else table_id
        new_ids.append(f"{source}:scale{replica}/{path}")
    schema = table.schema
    columns = {name: table.column(name) for name in schema.names}
    columns["table_id"] = pa.chunked_array([pa.array(new_ids, pa.string())])
    columns["values"] = pa.chunked_array([pa.array(new_values, schema.field("values").type)])
    return pa.table([columns[n] for n in schema.names], schema=schema)


def _stem(path: Path) -> str:
    """``owner+repo`` of ``owner+repo-000.parquet`` (the base lake's naming)."""
    return re.sub(r"-\d+$", "", path.stem)


class _RollingWriter:
    """Parquet files ``<stem>-NNN.parquet``, each closed past ``max_bytes`` of Arrow data."""

    def __init__(self, out: Path, schema: pa.Schema, max_bytes: int):
        self.out, self.schema, self.max_bytes = out, schema, max_bytes
        self.files: list[str] = []
        self._next: dict[str, int] = {}
        self._writer: pq.ParquetWriter | None = None
        self._stem = ""
        self._bytes = 0

    def write(self, stem: str, table: pa.Table) -> None:
        if self._writer is not None and (
            stem != self._stem or self._bytes + table.nbytes > self.max_bytes
        ):
            self.close()
        if self._writer is None:
            n = self._next.get(stem, 0)
            self._next[stem] = n + 1
            name = f"{stem}-{n:03d}.parquet"
            self._writer = pq.ParquetWriter(
                self.out / name, self.schema, compression="zstd", compression_level=9
            )
            self._stem, self._bytes = stem, 0
            self.files.append(name)
        self._writer.write_table(table)
        self._bytes += table.nbytes

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None


def base_files(base: Path) -> list[Path]:
    """The base lake's Parquet files, sorted by name (the other files are not lake data)."""
    files = sorted(base.glob("*.parquet"))
    if not files:
        raise SystemExit(f"{base}: no .parquet files")
    return files


def generate(
    base: Path,
    factor: int,
    out: Path,
    *,
    seed: int = 0,
    max_file_mb: float = MAX_FILE_MB,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Write the scale lake of ``base`` at ``factor`` into ``out`` (replaced if it exists).

    Parameters
    ----------
    base
        Directory of the base lake's Parquet files.
    factor
        Integer ≥ 1: the scale lake holds ``factor`` times the base columns.
    out
        Output directory; removed first if it exists.
    seed
        Seed of every perturbation: the same arguments give the same lake.
    max_file_mb
        Uncompressed Arrow megabytes per output file (files hold whole row groups,
        one per base file and replica, so a file may exceed it by one row group).
    progress
        Called with a line of text after each replica of each base file.

    Returns
    -------
    dict
        The manifest written to ``out/_scale_lake.json``: base, factor, seed,
        files, columns and values (non-null and stored) of base and output,
        and the generation's wall seconds.
    """
    if factor < 1:
        raise ValueError(f"factor must be an integer >= 1, got {factor}")
    started = time.perf_counter()
    files = base_files(base)
    schema = pq.read_schema(files[0])
    for f in files[1:]:
        if not pq.read_schema(f).equals(schema):
            raise SystemExit(f"{f}: its schema differs from {files[0]}'s")
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    writer = _RollingWriter(out, schema, int(max_file_mb * 2**20))
    counts = {"base_columns": 0, "base_values_stored": 0, "columns": 0, "values_stored": 0}
    try:
        for f in files:
            table = pq.read_table(f)
            stored = sum(len(v) for v in table.column("values").to_pylist() if v is not None)
            counts["base_columns"] += table.num_rows
            counts["base_values_stored"] += stored
            for replica in range(factor):
                writer.write(_stem(f), perturb_table(table, replica, seed))
                counts["columns"] += table.num_rows
                counts["values_stored"] += stored
                if progress:
                    progress(f"{f.name} replica {replica + 1}/{factor}: {counts['columns']:,} cols")
    finally:
        writer.close()
    manifest = {
        "base": str(base.resolve()),
        "factor": factor,
        "seed": seed,
        "max_file_mb": max_file_mb,
        "files": writer.files,
        **counts,
        "bytes": sum((out / n).stat().st_size for n in writer.files),
        "seconds": round(time.perf_counter() - started, 3),
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def read_manifest(out: Path) -> dict[str, Any] | None:
    """The manifest of a scale lake written by :func:`generate`, or ``None``."""
    try:
        return dict(json.loads((out / MANIFEST).read_text()))
    except (OSError, ValueError):
        return None


def ensure(base: Path, factor: int, out: Path, *, seed: int = 0) -> dict[str, Any]:
    """The scale lake at ``out``: reused if its manifest matches, else generated."""
    found = read_manifest(out)
    if found and (found["base"], found["factor"], found["seed"]) == (
        str(base.resolve()),
        factor,
        seed,
    ):
        return found
    return generate(base, factor, out, seed=seed)


def iter_rows(lake: Path) -> Iterator[dict[str, Any]]:
    """Every row of a lake directory, file by file (for checks on small lakes)."""
    for f in sorted(lake.glob("*.parquet")):
        yield from pq.read_table(f).to_pylist()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, default=BASE, help="base lake directory")
    parser.add_argument("--factor", type=int, required=True, help="integer >= 1")
    parser.add_argument("--out", type=Path, required=True, help="output lake directory")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-file-mb", type=float, default=MAX_FILE_MB)
    args = parser.parse_args(argv)
    if args.factor < 1:
        parser.error("--factor must be an integer >= 1")
    manifest = generate(
        args.base,
        args.factor,
        args.out,
        seed=args.seed,
        max_file_mb=args.max_file_mb,
        progress=lambda line: print(line, file=sys.stderr, flush=True),
    )
    print(json.dumps(manifest, indent=2))


if __name__ == "__main__":
    main()
