"""Leave-source-out folds of the lake (``shared/BENCHMARK.md``, "Leave-source-out B").

In AV-bench's B every query column is also a column of the corpus that built
the index, so its own training and test values are evidence for the rule it
gets. Leave-source-out B removes that: the lake's sources (repositories) are
split into K folds (``random.Random(seed).shuffle`` of the sorted sources,
then every K-th one), an index is built from the other folds' files, and each
column of B is scored against the index that never saw its source.

A fold's lake is a directory of symbolic links to the lake's Parquet files of
the sources it keeps (the lake stores one source per file prefix), so the
product's own index job builds it unchanged.
"""

from __future__ import annotations

import random
from pathlib import Path

from benchmarks.avbench import indexes

__all__ = ["DEFAULT_FOLDS", "fold_lake", "fold_of", "source_folds", "fold_indexes"]

DEFAULT_FOLDS = 5


def _source_files(lake: Path) -> dict[str, list[Path]]:
    """The lake's Parquet files by source (``owner+repo-NNN.parquet`` is ``owner/repo``)."""
    files: dict[str, list[Path]] = {}
    for path in sorted(lake.glob("*.parquet")):
        stem = path.name.rsplit("-", 1)[0]
        files.setdefault(stem.replace("+", "/", 1), []).append(path)
    return files


def source_folds(lake: Path, k: int = DEFAULT_FOLDS, seed: int = 0) -> list[list[str]]:
    """The lake's sources in ``k`` folds: shuffled with ``seed``, then dealt round-robin."""
    sources = sorted(_source_files(lake))
    random.Random(seed).shuffle(sources)
    return [sorted(sources[i::k]) for i in range(k)]


def fold_of(folds: list[list[str]]) -> dict[str, int]:
    """Source -> the fold holding it."""
    return {s: i for i, fold in enumerate(folds) for s in fold}


def fold_lake(lake: Path, held_out: list[str], out: Path) -> Path:
    """A lake directory of links to every file of ``lake`` whose source is not ``held_out``."""
    out.mkdir(parents=True, exist_ok=True)
    wanted = {
        path.name: path
        for source, paths in _source_files(lake).items()
        if source not in held_out
        for path in paths
    }
    for link in out.glob("*.parquet"):
        if link.name not in wanted:
            link.unlink()
    for name, path in wanted.items():
        link = out / name
        if not link.exists():
            link.symlink_to(path.resolve())
    return out


def fold_indexes(
    lake: Path, work: Path, *, tau: int, k: int = DEFAULT_FOLDS, seed: int = 0, say=print
) -> list[Path]:
    """Per fold, an index of the lake without the fold's sources (built, or reused if it matches).

    Indexes live under ``work/lso-k{k}-s{seed}/fold-{i}/index``; a fold's index is
    rebuilt when its metadata no longer matches the product (another version, tau or
    corpus).
    """
    folds = source_folds(lake, k, seed)
    paths = []
    for i, held_out in enumerate(folds):
        base = work / f"lso-k{k}-s{seed}" / f"fold-{i}"
        corpus = fold_lake(lake, held_out, base / "lake")
        target = base / "index"
        if not indexes.index_matches(target, corpus, tau):
            say(f"fold {i}: building the index without {', '.join(held_out)}")
            indexes.build(corpus, target, tau=tau, master="local[2]")
        paths.append(target)
    return paths
