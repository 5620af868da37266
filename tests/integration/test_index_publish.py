"""Publishing an index over itself while it is read, and killing the publish at each step.

Real processes, real files, real DuckDB. A merge M + P -> M (``--overwrite``)
runs in a child process that kills itself (SIGKILL) at one step of the
publish; after every kill there is a complete index at M, and the next open
or publish cleans or recovers what the kill left. Meanwhile reader processes
open M in a loop: no read may fail. (The 10,000-read run is
``benchmarks/index_publish_stress.py``.)
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import stat
import time

import pytest

from autovalidate.errors import IndexBuildError
from autovalidate.index.generalization import GeneralizationStats
from autovalidate.index.merge import merge_indexes
from autovalidate.index.publish import POINTER, check_writable, open_version
from autovalidate.index.reader import PatternIndex
from autovalidate.index.state import write_local_index
from benchmarks.index_publish_stress import STEPS, columns, merge_killed_at


def _reader(out: str, stop: multiprocessing.synchronize.Event, counts: multiprocessing.Queue):
    ok = failed = 0
    errors: list[str] = []
    while not stop.is_set():
        try:
            with PatternIndex.open(out) as index:
                assert index.metadata.patterns > 0 and index.size() == index.metadata.patterns
            ok += 1
        except Exception as exc:  # noqa: BLE001 - counted, reported by the test
            failed += 1
            errors.append(f"{type(exc).__name__}: {exc}")
    counts.put((ok, failed, errors[:3]))


def test_a_publish_killed_at_every_step_leaves_an_index_and_readers_never_fail(tmp_path):
    out, part = tmp_path / "m", tmp_path / "part"
    write_local_index(columns(1, 30), out)  # the plain layout, as every index before this one
    write_local_index(columns(2, 30), part)
    stop = multiprocessing.Event()
    counts: multiprocessing.Queue = multiprocessing.Queue()
    readers = [
        multiprocessing.Process(target=_reader, args=(str(out), stop, counts)) for _ in range(2)
    ]
    for r in readers:
        r.start()
    try:
        kills = 0
        for step in STEPS:
            run = merge_killed_at(step, out, part)
            assert run.returncode in (0, -signal.SIGKILL), (step, run.stderr[-2000:])
            kills += run.returncode == -signal.SIGKILL
            with PatternIndex.open(out) as index:  # an index at M after every kill
                assert index.metadata.patterns > 0
        assert kills == len(STEPS)
        merge_indexes([out, part], out, overwrite=True, labels=[None, None])  # runs to the end
        time.sleep(0.5)
    finally:
        stop.set()
        results = [counts.get(timeout=60) for _ in readers]
        for r in readers:
            r.join(timeout=60)
    ok = sum(r[0] for r in results)
    failed = sum(r[1] for r in results)
    assert ok > 20 and failed == 0, results
    # the kills' leftovers are gone: one version, the pointer, nothing beside M
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m", "part"]
    entries = sorted(p.name for p in out.iterdir())
    assert entries[0] == POINTER and len(entries) == 2 and entries[1].startswith("v-"), entries
    with PatternIndex.open(out) as index:
        lakes = index.metadata.corpus["lakes"]
    assert len(lakes) >= 2


def test_a_reader_keeps_the_version_it_opened(tmp_path):
    out, part = tmp_path / "m", tmp_path / "part"
    write_local_index(columns(1, 30), out)
    write_local_index(columns(2, 30), part)
    plain = PatternIndex.open(out, in_memory=False)  # reads the Parquet files in place
    merge_indexes([out, part], out, overwrite=True, labels=[None, None])  # now versioned
    assert plain.size() == plain.metadata.patterns  # the plain files were kept for it
    plain.close()
    held = PatternIndex.open(out, in_memory=False)
    version = held.lease.path
    assert version.parent == out and version.name.startswith("v-")
    assert not (out / "_autovalidate_index.json").exists()  # the plain files are gone now
    merge_indexes([out, part], out, overwrite=True, labels=[None, None])
    merge_indexes([out, part], out, overwrite=True, labels=[None, None])
    assert held.size() == held.metadata.patterns and version.exists()
    with PatternIndex.open(out) as fresh:
        assert fresh.lease.path != version
    held.close()
    with PatternIndex.open(out):  # an open cleans what no reader holds any more
        pass
    assert not version.exists()
    assert len([p for p in out.iterdir() if p.name.startswith("v-")]) == 1


def test_a_versioned_index_keeps_its_generalization_table_in_its_version(tmp_path):
    """Format 4's generalization/ is published, read and merged from the version directory."""
    out, part = tmp_path / "m", tmp_path / "part"
    first, second = columns(1, 30), columns(2, 30)
    write_local_index(first, out)
    write_local_index(second, part)
    merge_indexes([out, part], out, overwrite=True, labels=[None, None])  # now versioned
    merge_indexes([out, part], out, overwrite=True, labels=[None, None])  # M read from a version
    expected = GeneralizationStats()
    for column in first + second + second:
        expected.add_column(column)
    assert expected.positions and expected.shapes
    # OUT holds the pointer and one version: no plain table left at its top
    entries = sorted(p.name for p in out.iterdir())
    assert entries[0] == POINTER and len(entries) == 2 and entries[1].startswith("v-"), entries
    with PatternIndex.open(out) as index:
        version = index.lease.path
        assert version.parent == out and (version / "generalization").is_dir()
        assert index.generalization_files
        assert {f.parent for f in index.generalization_files} == {version / "generalization"}
        stats = index.generalization
    for table in ("positions", "shapes", "repeats"):
        got, want = getattr(stats, table), getattr(expected, table)
        assert got.keys() == want.keys(), table
        for key, sums in want.items():
            assert got[key] == pytest.approx(sums), (table, key)


def test_leftovers_of_the_former_two_rename_publish_are_recovered(tmp_path):
    out = tmp_path / "m"
    write_local_index(columns(1, 30), out)
    aside = tmp_path / ".m.old-abc123"
    aside.mkdir()
    os.rename(out, aside / "m")  # killed between the two renames: no index at M
    staging = tmp_path / ".m.tmp-def456"
    (staging / "patterns").mkdir(parents=True)
    with PatternIndex.open(out) as index:
        assert index.metadata.patterns > 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m"]


def test_write_access_is_checked_before_any_work(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(IndexBuildError, match="cannot write here"):
        check_writable(blocker / "index")
    with pytest.raises(IndexBuildError, match="cannot write here"):
        check_writable(blocker)
    check_writable(tmp_path / "new" / "index")


def test_the_packaged_plain_index_opens_and_nothing_is_written(tmp_path):
    from autovalidate.index.default import default_index_path

    path = default_index_path()
    before = sorted(os.listdir(path.parent))
    lease = open_version(path)
    try:
        assert lease.path == path
    finally:
        lease.close()
    assert sorted(os.listdir(path.parent)) == before
    assert json.loads((path / "_autovalidate_index.json").read_text())["patterns"] > 0


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_published_directories_have_the_umasks_mode_not_a_private_one(tmp_path, umask):
    """A platform team publishes the index; engineers, other Unix users, read it.

    Staging directories were made by ``tempfile.mkdtemp`` (mode 0o700), and
    renamed into the index and its versions.
    """
    out, part = tmp_path / "m", tmp_path / "part"
    previous = os.umask(umask)
    try:
        write_local_index(columns(1, 30), out)  # plain: the staging directory becomes OUT
        write_local_index(columns(2, 30), part)
        merge_indexes([out, part], out, overwrite=True, labels=[None, None])  # a version in OUT
    finally:
        os.umask(previous)
    with PatternIndex.open(out) as index:
        version = index.lease.path
    assert version.parent == out
    for directory in (out, version, version / "patterns", part):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o777 & ~umask, directory
    assert stat.S_IMODE((version / "_autovalidate_index.json").stat().st_mode) == 0o666 & ~umask


def test_a_plain_indexs_hadoop_checksum_goes_with_its_metadata(tmp_path):
    """The Spark build's local file system wrote ``._autovalidate_index.json.crc`` at OUT's top.

    A conversion to versions (``--overwrite``, ``--merge-into OUT --out OUT``)
    removed the plain metadata and tables but left their checksum; one left so
    by an earlier version of this code is removed by the next open.
    """
    out, part = tmp_path / "m", tmp_path / "part"
    write_local_index(columns(1, 30), out)
    write_local_index(columns(2, 30), part)
    checksum = out / "._autovalidate_index.json.crc"
    checksum.write_bytes(b"crc\x00")  # as Hadoop's ChecksumFileSystem writes it
    merge_indexes([out, part], out, overwrite=True, labels=[None, None])
    entries = sorted(p.name for p in out.iterdir())
    assert entries[0] == POINTER and len(entries) == 2 and entries[1].startswith("v-"), entries
    checksum.write_bytes(b"crc\x00")  # a stale one, beside the pointer
    with PatternIndex.open(out) as index:
        assert index.metadata.patterns > 0
    assert not checksum.exists()
