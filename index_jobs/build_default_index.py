r"""Rebuild the default pattern index that ships inside the package, from the shared lake.

One command, from the repository root, after the hierarchy or the lake changed::

    python3 -m index_jobs.build_default_index

It

1. keeps the rows of ``../shared/lake`` whose ``source`` may ship in an
   Apache-2.0 package (:data:`SOURCES`, the one place that decision is made;
   ``docs/default-index.md`` shows it and a test checks the two agree), as a
   temporary Parquet directory: a file whose rows all come from included
   sources is copied, one with mixed sources is filtered row by row;
2. builds the index of that filtered lake with the product's own Spark job
   (:func:`autovalidate.index.build.build_index`, local mode, ``min_cov=1``);
3. keeps the patterns with Cov_T ≥ ``--floor`` and writes them as one zstd
   Parquet file, then the metadata (with the provenance: sources, licenses,
   snapshot commits, what was left out and why, the floor, the unpruned
   pattern count) and ``NOTICE.md`` (the attributions CC BY and MIT ask for),
   into a staging directory that replaces ``--out`` when complete.

What the floor drops: a pattern of Cov_T = c, every corpus column pure, has
the estimate ``strength * mean / (c + strength)`` without training evidence
(``FprPrior.estimate`` with n = 0); the default floor
(:func:`least_feasible_cov`) is the least c at which that is at most the
default r, under the prior fitted on the unpruned index.  The prior is fitted
on patterns of Cov_T ≥ 20, which pruning keeps, and pruning changes no kept
row.  The solver conditions the estimate on the training values, and from
about 5 distinct ones a pure pattern of a single column can be feasible
(``FprPrior.futile_below`` is 0 there): those below the floor the default
index does not have.  Measured, they are worth little (``docs/default-index.md``:
the same P, R and abstentions on AV-bench's B at floors 7, 2 and 1), for 12x
the patterns; ``--floor 1`` keeps them all.

The script lives in ``index_jobs/`` because it is a product build step (its
output is package data, made by the index job), not a measurement.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "SOURCES",
    "SourceDecision",
    "build_default_index",
    "filter_lake",
    "least_feasible_cov",
    "main",
    "prune_index",
]

ROOT = Path(__file__).resolve().parents[1]
#: The packaged index, as the package reads it (``autovalidate.index.default``).
PACKAGED = ROOT / "autovalidate" / "data" / "default-index"
NOTICE_FILE = "NOTICE.md"


@dataclass(frozen=True)
class SourceDecision:
    """Whether the pattern statistics of one lake source may ship in an Apache-2.0 package.

    Attributes
    ----------
    repo
        ``owner/repo``, the value of the lake's ``source`` column.
    license
        The license as the repository states it (``_SOURCES.md``).
    include
        True: its statistics ship; False: left out.
    reason
        Why, in a few words.
    attribution
        True where the license asks that the source be credited (CC BY, MIT):
        it is then named in the shipped ``NOTICE.md``.
    """

    repo: str
    license: str
    include: bool
    reason: str
    attribution: bool = False


def _public(repo: str, license: str, note: str = "") -> SourceDecision:
    """A public-domain dedication (ODC PDDL, CC0): included, no condition."""
    return SourceDecision(repo, license, True, "public-domain dedication: no conditions" + note)


def _cc_by(repo: str, license: str) -> SourceDecision:
    """CC BY 4.0: included, credited in NOTICE.md."""
    reason = "permissive; CC BY asks for attribution, given in NOTICE.md"
    return SourceDecision(repo, license, True, reason, attribution=True)


def _mit(repo: str) -> SourceDecision:
    """MIT: included, its notice kept in NOTICE.md."""
    return SourceDecision(repo, "MIT", True, "permissive; notice kept in NOTICE.md", True)


def _left_out(repo: str, license: str, reason: str) -> SourceDecision:
    """Copyleft, non-commercial, unknown or unclear: left out."""
    return SourceDecision(repo, license, False, reason)


#: The license decision, source by source (see ``docs/default-index.md``).  A
#: source of the lake missing from this table is left out.
SOURCES: tuple[SourceDecision, ...] = (
    _cc_by("fivethirtyeight/data", "CC BY 4.0 (data), MIT (code)"),
    _mit("plotly/datasets"),
    _left_out(
        "vincentarelbundock/Rdatasets",
        "GPL-3",
        "copyleft: derived data could not ship under Apache-2.0 alone",
    ),
    _public("datasets/un-locode", "ODC PDDL 1.0"),
    _public(
        "datasets/country-codes",
        "ODC PDDL",
        " (codes sourced from ISO and others are facts, not the standard's text)",
    ),
    _public("datasets/language-codes", "ODC PDDL 1.0"),
    _public("datasets/currency-codes", "ODC PDDL"),
    _public("datasets/media-types", "ODC PDDL 1.0"),
    _public("datasets/top-level-domain-names", "ODC PDDL 1.0"),
    _left_out(
        "datasets/nasdaq-listings",
        "ODC PDDL 1.0, with Nasdaq's copyright notice for the source data",
        "a third party claims copyright on the source data: unclear, left out",
    ),
    _public("datasets/s-and-p-500-companies", "ODC PDDL (data), MIT/BSD (code)"),
    _mit("datasets/publicbodies"),
    _public("datasets/dac-and-crs-code-lists", "ODC PDDL"),
    _cc_by("datasets/world-cities", "CC BY 4.0 (data from GeoNames)"),
    _public("datasets/covid-19", "ODC PDDL"),
    _public("github/innovationgraph", "CC0 1.0"),
    _cc_by("ipinfo/sample-database", "CC BY 4.0"),
    _public("cisagov/dotgov-data", "CC0 1.0"),
    _public("cisagov/kev-data", "CC0 1.0"),
    _left_out(
        "citizenlab/malware-indicators",
        "CC BY-NC-SA 4.0",
        "non-commercial and share-alike: incompatible with Apache-2.0",
    ),
    _left_out(
        "vega/vega-datasets",
        "BSD-3-Clause (code); each dataset its own license",
        "per-dataset licenses not recorded in the lake: unknown, left out",
    ),
)


def included_sources() -> frozenset[str]:
    """The ``owner/repo`` names whose statistics ship."""
    return frozenset(s.repo for s in SOURCES if s.include)


def filter_lake(lake: Path, out: Path, include: frozenset[str]) -> dict[str, int]:
    """Write the rows of ``lake`` whose ``source`` is in ``include`` as Parquet under ``out``.

    Parameters
    ----------
    lake
        Directory of lake Parquet files (schema in ``_SOURCES.md``).
    out
        An empty or new directory.
    include
        ``owner/repo`` names to keep.

    Returns
    -------
    dict
        Lake rows (columns) per source, over every source found, kept or not.

    Raises
    ------
    FileNotFoundError
        If ``lake`` has no ``*.parquet`` file.
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    files = sorted(lake.glob("*.parquet"))
    if not files:
        raise FileNotFoundError(f"{lake}: no .parquet files")
    out.mkdir(parents=True, exist_ok=True)
    rows: dict[str, int] = {}
    for f in files:
        sources = pq.read_table(f, columns=["source"]).column("source").to_pylist()
        for s in sources:
            rows[s] = rows.get(s, 0) + 1
        keep = [s in include for s in sources]
        if all(keep):
            shutil.copyfile(f, out / f.name)
        elif any(keep):
            table = pq.read_table(f)
            mask = pc.is_in(table.column("source"), value_set=pa.array(sorted(include)))
            pq.write_table(table.filter(mask), out / f.name, compression="zstd")
    return dict(sorted(rows.items()))


def prune_index(raw: Path, out: Path, *, floor: int, provenance: dict[str, Any]) -> dict[str, Any]:
    """Copy the patterns of index ``raw`` with Cov_T ≥ ``floor`` into a new index at ``out``.

    The pattern rows are written as one zstd Parquet file sorted by
    ``pattern_id``; the metadata is ``raw``'s with ``patterns``, ``build.floor``
    and ``build.unpruned_patterns`` updated and ``corpus`` extended by
    ``provenance``.  Files go to a staging directory beside ``out`` that
    replaces ``out`` once complete.

    Parameters
    ----------
    raw
        A complete index (``min_cov=1``).
    out
        Where the pruned index goes (replaced if present).
    floor
        Least Cov_T kept (≥ 1).
    provenance
        Merged into the metadata's ``corpus`` record.

    Returns
    -------
    dict
        The new index's metadata as plain data, plus ``bytes`` (its size on disk).

    Raises
    ------
    ValueError
        If ``floor`` < 1.
    """
    import duckdb

    from autovalidate.index.reader import PatternIndex
    from autovalidate.index.schema import (
        GENERALIZATION_DIR,
        METADATA_FILE,
        PATTERN_COLUMNS,
        PATTERNS_DIR,
    )

    if floor < 1:
        raise ValueError(f"floor must be at least 1, got {floor}")
    # held open while its files are copied: the files of the version it points to
    # (an unpruned index rebuilt with overwrite is versioned, autovalidate.index.publish)
    with PatternIndex.open(raw, in_memory=False) as index:
        meta = index.metadata
        staging = out.parent / f".{out.name}.tmp-{uuid.uuid4().hex[:12]}"
        (staging / PATTERNS_DIR).mkdir(parents=True)
        try:
            part = staging / PATTERNS_DIR / "part-00000.zstd.parquet"
            columns = ", ".join(PATTERN_COLUMNS)
            con = duckdb.connect()
            try:
                con.execute(
                    f"COPY (SELECT {columns} FROM read_parquet(?) WHERE cov >= ? "
                    f"ORDER BY pattern_id) "
                    f"TO '{part}' (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 19)",
                    [[str(f) for f in index.files], floor],
                )
                ((kept,),) = con.execute(
                    "SELECT count(*) FROM read_parquet(?)", [str(part)]
                ).fetchall()
                # the position and shape statistics are a few hundred rows: kept whole
                (staging / GENERALIZATION_DIR).mkdir()
                con.execute(
                    "COPY (SELECT * FROM read_parquet(?) ORDER BY ALL) "
                    f"TO '{staging / GENERALIZATION_DIR / 'part-00000.zstd.parquet'}' "
                    "(FORMAT parquet, COMPRESSION zstd)",
                    [[str(f) for f in index.generalization_files]],
                )
            finally:
                con.close()
            meta.corpus = {**meta.corpus, **provenance}
            meta.build = {**meta.build, "floor": floor, "unpruned_patterns": meta.patterns}
            meta.patterns = int(kept)
            (staging / NOTICE_FILE).write_text(notice(provenance), encoding="utf-8")
            (staging / METADATA_FILE).write_text(meta.to_json() + "\n", encoding="utf-8")
            if out.exists():
                shutil.rmtree(out)
            out.parent.mkdir(parents=True, exist_ok=True)
            staging.rename(out)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    return {**asdict(meta), "bytes": size}


def provenance(lake: Path, rows: dict[str, int]) -> dict[str, Any]:
    """The ``corpus`` record of the default index: what it holds, from where, under which license.

    ``rows`` is :func:`filter_lake`'s count of lake columns per source; the
    snapshot commits come from the lake's ``_build_info.json`` when present.
    """
    commits: dict[str, str] = {}
    info = lake / "_build_info.json"
    if info.is_file():
        for s in json.loads(info.read_text(encoding="utf-8")).get("sources", []):
            commits[s["repo"]] = s.get("commit", "")
    decided = {s.repo: s for s in SOURCES}
    included: list[dict[str, object]] = []
    excluded: list[dict[str, object]] = []
    for repo, n in rows.items():
        d = decided.get(repo)
        entry = {
            "repo": repo,
            "url": f"https://github.com/{repo}",
            "commit": commits.get(repo, ""),
            "license": d.license if d else "unknown",
            "columns": n,
            "reason": d.reason if d else "no license decision in SOURCES: left out",
        }
        (included if d and d.include else excluded).append(entry)
    return {
        "name": "public corpus",
        "path": "../shared/lake (sources below)",
        "description": "public corpus: open-data repositories whose licenses allow shipping "
        "derived statistics in an Apache-2.0 package",
        "sources": included,
        "excluded_sources": excluded,
        "license_decisions": "docs/default-index.md",
    }


def notice(record: dict[str, Any]) -> str:
    """``NOTICE.md`` of the index: every included source, attributions first."""
    attributed = {s.repo for s in SOURCES if s.attribution}
    lines = [
        "# Default pattern index of autovalidate: provenance and attributions",
        "",
        "The files beside this one hold aggregate statistics (per pattern: the number of",
        "corpus columns it matches, Cov_T, and their summed impurity) computed from the",
        "public data sets below. Patterns may contain short literal constants that occur in",
        "those data sets (e.g. `2019`, `PM`). No table or column is stored.",
        "",
        "Built from (repository, snapshot commit, license as the repository states it):",
        "",
    ]
    for s in record["sources"]:
        mark = " - attribution required" if s["repo"] in attributed else ""
        lines.append(f"- {s['url']} at `{s['commit'][:12]}`: {s['license']}{mark}")
    lines += [
        "",
        "Data from fivethirtyeight/data, datasets/world-cities (GeoNames) and",
        "ipinfo/sample-database are used under the Creative Commons Attribution 4.0",
        "International license (https://creativecommons.org/licenses/by/4.0/); changes:",
        "reduced to the pattern statistics above. Data from plotly/datasets and",
        "datasets/publicbodies are used under the MIT license, copyright their authors.",
        "",
        "Left out (license does not allow it or is unclear):",
        "",
    ]
    for s in record["excluded_sources"]:
        lines.append(f"- {s['repo']}: {s['license']}: {s['reason']}")
    return "\n".join(lines) + "\n"


def least_feasible_cov(index: Any) -> int:
    """The least Cov_T at which a pure pattern is feasible at the solver's default r.

    Parameters
    ----------
    index
        An opened :class:`~autovalidate.index.reader.PatternIndex` (unpruned).

    Returns
    -------
    int
        At least 1: the least c at which c pure corpus columns put a pattern's
        unconditional estimate (``prior.estimate``, n = 0) at most r.  With
        training evidence a pattern below it can be feasible (module docstring).
    """
    from autovalidate.index.stats import PatternStats
    from autovalidate.solver.fmdv import SolverParams

    defaults = SolverParams()
    prior = index.prior
    c = 1
    while prior.estimate(PatternStats(0.0, c)) > defaults.max_fpr:
        c += 1
    return c


def build_default_index(
    lake: Path,
    out: Path,
    *,
    floor: int | None = None,
    raw: Path | None = None,
    master: str = "local[2]",
    say: Any = print,
) -> dict[str, Any]:
    """Filter ``lake`` by license, build its index on local Spark, prune at ``floor``, publish.

    Parameters
    ----------
    lake
        The shared lake directory.
    out
        Where the pruned index goes (replaced); by default the packaged one.
    floor
        Least Cov_T kept; by default :func:`least_feasible_cov` of the
        unpruned index.
    raw
        Keep (or reuse, when it holds a complete index) the unpruned index of
        the filtered lake here; a temporary directory by default.
    master
        Spark master of the build.
    say
        Called with one progress line per step.

    Returns
    -------
    dict
        The published metadata, with ``bytes`` and ``wall_seconds`` (whole run).

    Raises
    ------
    FileNotFoundError
        If ``lake`` has no Parquet files.
    autovalidate.errors.IndexBuildError
        If the Spark build fails.
    """
    from autovalidate.errors import PatternIndexError
    from autovalidate.index.reader import PatternIndex

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="autovalidate-default-index-") as tmp:
        filtered = Path(tmp) / "lake"
        rows = filter_lake(lake, filtered, included_sources())
        kept = sum(n for s, n in rows.items() if s in included_sources())
        say(f"filtered lake: {kept:,} of {sum(rows.values()):,} columns kept")
        target = raw or Path(tmp) / "raw-index"
        try:
            PatternIndex.open(target, in_memory=False).close()
            say(f"reusing the unpruned index at {target}")
        except PatternIndexError:
            from autovalidate.engines.spark_session import local_session
            from autovalidate.index.build import build_index

            say(f"building the unpruned index on Spark {master} (a few minutes)")
            spark = local_session("autovalidate-default-index", master=master)
            try:
                build_index(spark, str(filtered), str(target), min_cov=1, overwrite=True)
            finally:
                spark.stop()
        if floor is None:
            with PatternIndex.open(target) as unpruned:
                floor = least_feasible_cov(unpruned)
            say(f"floor: Cov_T >= {floor}, the least a pattern needs at the default r")
        record = provenance(lake, rows)
        result = prune_index(target, out, floor=floor, provenance=record)
    result["wall_seconds"] = round(time.perf_counter() - started, 1)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    """``python3 -m index_jobs.build_default_index [--lake DIR] [--out DIR] [--floor N]``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lake", type=Path, default=ROOT.parent / "shared" / "lake")
    parser.add_argument("--out", type=Path, default=PACKAGED, help="default: the packaged index")
    parser.add_argument(
        "--floor", type=int, default=None, help="least Cov_T kept (default: least_feasible_cov)"
    )
    parser.add_argument(
        "--raw", type=Path, default=None, help="keep/reuse the unpruned index of the filtered lake"
    )
    parser.add_argument("--master", default="local[2]")
    args = parser.parse_args(argv)

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    result = build_default_index(
        args.lake, args.out, floor=args.floor, raw=args.raw, master=args.master, say=say
    )
    print(
        json.dumps(
            {
                "out": str(args.out),
                "patterns": result["patterns"],
                "unpruned_patterns": result["build"]["unpruned_patterns"],
                "floor": result["build"]["floor"],
                "bytes": result["bytes"],
                "hierarchy_version": result["hierarchy_version"],
                "wall_seconds": result["wall_seconds"],
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
