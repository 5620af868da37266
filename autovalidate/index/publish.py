"""Publishing an index directory atomically, and reading one while another is published over it.

Two layouts are read:

* **plain**: the metadata file, ``patterns/`` and ``generalization/`` (format
  4) at the top of the directory.
  A first build or merge publishes this way, by one rename of a complete
  staging directory (``.NAME.tmp-*`` beside it) to the path; every index
  built before versioned publishing, and the packaged default index, is one.
* **versioned**: the pointer file :data:`POINTER` names the current version,
  a plain index in a subdirectory ``v-*``. Replacing an index
  (``--overwrite``, ``index build --merge-into M --out M``) renames the new
  complete index into a new ``v-*`` directory, then replaces the pointer by
  one atomic rename (:func:`os.replace`). A reader that resolves the pointer
  before or after that rename finds a complete index, the old one or the new.

A reader holds a shared :func:`fcntl.flock` on the version directory it reads
(the index directory itself for the plain layout) for as long as its
:class:`~autovalidate.index.reader.PatternIndex` is open; a publisher removes
a superseded version only once it can lock it exclusively, without waiting,
after renaming it aside (so no reader can open it anew). The previous version
thus stays until no reader holds it, and is removed by a later publish or
open. Publishers to the same path take turns (a lock file in the system's
temporary directory).

A publish killed at any step leaves an index at the path: the old one until
the pointer is replaced, the new one after. What it leaves behind (a staging
directory, a version never pointed to, a superseded version, the plain files
of a converted index, the ``.NAME.old-*`` of the former two-rename publish
whose rename back never happened) is cleaned, or recovered, by the next
publish and by every open that can write there (:func:`recover`): a staging
directory only once its writer, which locks it, is gone.

Local file systems only (POSIX ``flock`` and ``rename``); the Spark job
publishes other file systems (HDFS, S3) through Hadoop's API.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import re
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

from autovalidate.errors import IndexBuildError, IndexNotFoundError
from autovalidate.index.schema import (
    GENERALIZATION_DIR,
    METADATA_FILE,
    PATTERNS_DIR,
    IndexMetadata,
)

__all__ = [
    "POINTER",
    "IndexLease",
    "check_writable",
    "open_version",
    "publish_local",
    "publish_staged",
    "recover",
    "staging_dir",
]

#: The pointer file of a versioned index directory: the current version's name.
POINTER = "_autovalidate_current"
_VERSION = re.compile(r"v-[0-9]+-[0-9a-f]{12}")
#: Sibling leftovers: staging of a build or merge, a --merge-into build, the former move-aside.
_SIBLINGS = (".tmp-", ".new-", ".old-")
#: Hadoop's checksum of the metadata file: the Spark build's local file system
#: writes one beside every file it writes (a plain index's top has it).
_METADATA_CHECKSUM = f".{METADATA_FILE}.crc"
#: What the plain layout holds at the top of the index directory (the metadata, the
#: tables, the metadata's checksum): a conversion to versions removes each.
_PLAIN_FILES = (METADATA_FILE, PATTERNS_DIR, GENERALIZATION_DIR, _METADATA_CHECKSUM)


def _step(name: str) -> None:
    """A point between two steps of a publish (tests kill a publish at each)."""


def _lock(fd: int, *, exclusive: bool, wait: bool) -> bool:
    """Lock ``fd``; ``False`` if ``wait`` is off and another process holds a conflicting lock."""
    flags = (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | (0 if wait else fcntl.LOCK_NB)
    try:
        fcntl.flock(fd, flags)
    except BlockingIOError:
        return False
    return True


def _open_dir(path: Path) -> int | None:
    try:
        return os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except (FileNotFoundError, NotADirectoryError):
        return None


class IndexLease:
    """A reader's hold on the index directory it reads: a shared lock, released by :meth:`close`.

    Attributes
    ----------
    path
        The directory holding the metadata, ``patterns/`` and
        ``generalization/`` (a version directory, or the index directory of
        the plain layout).
    """

    def __init__(self, path: Path, fd: int | None) -> None:
        self.path = path
        self._fd = fd

    def close(self) -> None:
        """Release the lock (idempotent)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _current(out: Path) -> Path:
    """The directory the pointer names, or ``out`` itself (plain layout, or no pointer)."""
    try:
        name = (out / POINTER).read_text(encoding="utf-8").strip()
    except (FileNotFoundError, NotADirectoryError):
        return out
    except OSError as exc:
        raise IndexNotFoundError(str(out), f"{out}: unreadable {POINTER}: {exc}") from exc
    if not _VERSION.fullmatch(name):
        raise IndexNotFoundError(str(out), f"{out}: {POINTER} names no version ({name[:40]!r})")
    return out / name


def open_version(path: str | os.PathLike[str], *, attempts: int = 100) -> IndexLease:
    """Resolve an index directory to the directory to read, and hold it.

    Parameters
    ----------
    path
        An index directory, plain or versioned.
    attempts
        Resolutions to try while publishers replace the version under it.

    Returns
    -------
    IndexLease
        The version directory (or ``path`` itself, plain), locked shared until
        the lease is closed: no publisher removes it meanwhile. A directory that
        cannot be locked (no such directory) is returned unlocked, for the
        reader to report.

    Raises
    ------
    IndexNotFoundError
        If the pointer names no version, or the version kept vanishing.
    """
    out = Path(path)
    recover(out, wait=False)
    for _ in range(attempts):
        root = _current(out)
        fd = _open_dir(root)
        if fd is None:
            if root == out:
                return IndexLease(out, None)  # no such directory: the reader says so
            continue  # removed after the pointer moved on: resolve again
        _lock(fd, exclusive=False, wait=True)
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(root))
        except FileNotFoundError:
            same = False
        if same and root == out and (out / POINTER).exists():
            same = False  # converted to the versioned layout meanwhile
        if same:
            return IndexLease(root, fd)
        os.close(fd)
    raise IndexNotFoundError(str(out), f"{out}: the index kept changing while it was opened")


#: Staging directories :func:`staging_dir` makes before it gives up: between making
#: one and locking it, another process's :func:`recover` may remove it.
_STAGING_TRIES = 10


def _new_dir(parent: Path, prefix: str) -> Path:
    """Make a directory of a new random name ``prefix*`` in ``parent``, as ``mkdir`` would.

    Its mode is what the umask leaves of 0o777 (0o755 under umask 022), not
    :func:`tempfile.mkdtemp`'s 0o700: a staging directory becomes the
    published index (or one of its versions), which other users read.

    Raises
    ------
    OSError
        If it cannot be made.
    """
    for _ in range(100):
        path = parent / f"{prefix}{uuid.uuid4().hex[:12]}"
        try:
            os.mkdir(path, 0o777)
        except FileExistsError:
            continue
        return path
    raise FileExistsError(errno.EEXIST, "no unused name", str(parent / prefix))


def staging_dir(out: Path) -> tuple[Path, int]:
    """A new staging directory beside ``out`` (``.NAME.tmp-*``), locked by this process.

    Returns
    -------
    tuple
        The directory and the descriptor holding its lock: close it when done.
        While it is held, :func:`recover` leaves the directory alone; one that
        a concurrent recover removed before the lock was taken is replaced.

    Raises
    ------
    OSError
        If the directory cannot be made, or :data:`_STAGING_TRIES` in a row
        were removed before their lock.
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(_STAGING_TRIES):
        staging = _new_dir(out.parent, f".{out.name}.tmp-")
        try:
            fd = os.open(staging, os.O_RDONLY | os.O_DIRECTORY)
        except FileNotFoundError:
            continue  # a concurrent recover took it for a killed publisher's, unlocked
        _lock(fd, exclusive=True, wait=True)
        try:
            if os.stat(staging).st_ino == os.fstat(fd).st_ino:
                return staging, fd
        except FileNotFoundError:
            pass  # renamed away by a recover that locked it first
        os.close(fd)
    raise FileNotFoundError(f"{out.parent}: every staging directory was removed before its lock")


@contextlib.contextmanager
def _publish_lock(out: Path, *, wait: bool = True) -> Iterator[bool]:
    """Hold the lock of publishers to ``out``; yields ``False`` if ``wait`` is off and it is taken.

    A lock file in the system's temporary directory, named by a hash of
    ``out``'s absolute path: nothing is left beside ``out``, and the lock is
    no directory a staging writer or a reader locks.
    """
    key = hashlib.sha256(os.path.realpath(out).encode("utf-8", "surrogateescape")).hexdigest()
    lock = Path(tempfile.gettempdir()) / f"autovalidate-publish-{key[:24]}.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        yield _lock(fd, exclusive=True, wait=wait)
    finally:
        os.close(fd)


def _has_index(out: Path) -> bool:
    return (out / POINTER).is_file() or (out / METADATA_FILE).is_file()


def publish_staged(staging: Path, out: Path, *, overwrite: bool) -> None:
    """Publish the complete index in ``staging`` (metadata written) at ``out``.

    With no index at ``out``: one rename, ``staging`` becomes ``out`` (plain
    layout). With one and ``overwrite``: ``staging`` becomes a new version of
    ``out`` and the pointer is replaced (see the module notes); superseded
    versions no reader holds are removed.

    Raises
    ------
    IndexBuildError
        If ``out`` exists without ``overwrite``, or cannot be written.
    """
    try:
        with _publish_lock(out):
            _recover_locked(out)
            if not out.exists():
                os.rename(staging, out)
                _step("renamed")
                return
            if not overwrite:
                raise IndexBuildError(f"{out}: appeared while building; not replaced")
            version = out / f"v-{time.time_ns()}-{uuid.uuid4().hex[:12]}"
            os.rename(staging, version)
            _step("version")
            pointer = out / f".pointer-{uuid.uuid4().hex[:12]}"
            with open(pointer, "w", encoding="utf-8") as f:
                f.write(version.name + "\n")
                f.flush()
                os.fsync(f.fileno())
            _step("pointer written")
            os.replace(pointer, out / POINTER)
            _step("pointer replaced")
            _clean_versions(out)
            _step("cleaned")
    except OSError as exc:
        raise IndexBuildError(f"{out}: cannot publish the index: {exc}") from exc


def publish_local(
    out: str | os.PathLike[str],
    write: Callable[[Path], IndexMetadata],
    *,
    overwrite: bool = False,
) -> IndexMetadata:
    """Publish an index on the local file system atomically: staging, metadata last, rename.

    ``write(staging)`` writes the pattern files under ``staging/patterns/``
    (created beforehand) and the generalization table under
    ``staging/generalization/``, and returns the metadata; the metadata file
    is then written, and the staging directory (``.NAME.tmp-*`` beside
    ``out``, which no reader accepts) published by :func:`publish_staged`. A failure or an
    interrupt removes the staging directory and publishes nothing; a kill
    leaves it to :func:`recover`.

    Parameters
    ----------
    out
        Index directory to publish.
    write
        Fills the staging directory; called once.
    overwrite
        Replace an existing index at ``out`` once the new one is complete (as
        a new version: readers of the old one keep it until they close it).

    Returns
    -------
    IndexMetadata
        What ``write`` returned, as written to the metadata file.

    Raises
    ------
    IndexBuildError
        If ``out`` exists without ``overwrite``, or cannot be written.
    """
    target = Path(out)
    if target.exists() and not overwrite:
        raise IndexBuildError(f"{target}: already exists; remove it first or overwrite it")
    try:
        staging, fd = staging_dir(target)
    except OSError as exc:
        raise IndexBuildError(f"{target}: cannot write index: {exc}") from exc
    try:
        _step("staging")
        (staging / PATTERNS_DIR).mkdir()
        meta = write(staging)
        _step("patterns written")
        (staging / METADATA_FILE).write_text(meta.to_json(), encoding="utf-8")
        _step("metadata written")
        publish_staged(staging, target, overwrite=overwrite)
    except BaseException as exc:
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(exc, OSError) and not isinstance(exc, IndexBuildError):
            raise IndexBuildError(f"{target}: cannot write index: {exc}") from exc
        raise
    finally:
        os.close(fd)
    return meta


def check_writable(out: str | os.PathLike[str]) -> None:
    """Raise unless an index can be published at ``out`` (before any work is done).

    Creates and removes a directory beside ``out`` (and in it, if it exists):
    what publishing does.

    Raises
    ------
    IndexBuildError
        One line naming ``out`` and why it cannot be written.
    """
    target = Path(out)
    existing = next((p for p in [target.parent, *target.parent.parents] if p.exists()), None)
    if existing is not None and not existing.is_dir():
        raise IndexBuildError(f"{target}: cannot write here: {existing} is not a directory")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        for where in [target.parent, *([target] if target.is_dir() else [])]:
            os.rmdir(tempfile.mkdtemp(prefix=f".{target.name}.probe-", dir=where))
        if target.exists() and not target.is_dir():
            raise OSError(errno.ENOTDIR, "not a directory")
    except OSError as exc:
        raise IndexBuildError(f"{target}: cannot write here: {exc.strerror or exc}") from exc


def _remove_unheld(path: Path, trash: Path) -> bool:
    """Remove directory ``path`` unless a reader or writer holds a lock on it.

    It is first renamed to ``trash`` and a random suffix, so that no reader
    opens it anew; a removal killed midway leaves that name to :func:`recover`.
    """
    fd = _open_dir(path)
    if fd is None:
        return False
    try:
        if not _lock(fd, exclusive=True, wait=False):
            return False
        aside = trash.with_name(f"{trash.name}{uuid.uuid4().hex[:12]}")
        os.rename(path, aside)  # no reader can open it anew
    finally:
        os.close(fd)
    shutil.rmtree(aside, ignore_errors=True)
    return True


def _clean_versions(out: Path) -> None:
    """Remove what no reader holds: superseded versions, the plain files of a converted index."""
    current = _current(out)
    if current == out:
        return
    for entry in list(out.iterdir()):
        if entry.name.startswith((".trash-", ".pointer-")):
            if entry.is_dir():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
        elif _VERSION.fullmatch(entry.name) and entry != current:
            _remove_unheld(entry, out / ".trash-")
    if any((out / name).exists() for name in _PLAIN_FILES):
        fd = _open_dir(out)  # plain readers lock the index directory itself
        if fd is not None:
            try:
                if _lock(fd, exclusive=True, wait=False):
                    (out / METADATA_FILE).unlink(missing_ok=True)  # first: no index there now
                    (out / _METADATA_CHECKSUM).unlink(missing_ok=True)
                    for table in (PATTERNS_DIR, GENERALIZATION_DIR):
                        shutil.rmtree(out / table, ignore_errors=True)
            finally:
                os.close(fd)


def _recover_locked(out: Path) -> None:
    """:func:`recover`'s work, the publish lock held."""
    for entry in sorted(out.parent.glob(f".{glob_escape(out.name)}.*")):
        kind = entry.name[len(out.name) + 1 :][:5]
        if kind not in _SIBLINGS or not entry.is_dir():
            continue
        old = entry / out.name
        if kind == ".old-" and not _has_index(out) and (old / METADATA_FILE).is_file():
            if out.is_dir() and not any(out.iterdir()):
                out.rmdir()
            if not out.exists():
                os.rename(old, out)  # the former publish was killed between its renames
        _remove_unheld(entry, out.parent / f".{out.name}.tmp-trash-")
    if out.is_dir():
        _clean_versions(out)


def glob_escape(name: str) -> str:
    """``name`` with glob's special characters escaped."""
    return re.sub(r"([*?\[])", r"[\1]", name)


def recover(out: str | os.PathLike[str], *, wait: bool = True) -> None:
    """Clean or recover what killed publishes left at and beside ``out``.

    Staging directories whose writer is gone, versions never pointed to or
    superseded and held by no reader, a converted index's plain files, and
    the ``.NAME.old-*`` of the former publish (renamed back when ``out`` has
    no index). Best effort: nothing is done where nothing is left, where the
    directory cannot be written (a packaged index), or, without ``wait``,
    while a publish runs.
    """
    target = Path(out)
    try:
        leftovers = any(
            e.name[len(target.name) + 1 :][:5] in _SIBLINGS
            for e in target.parent.glob(f".{glob_escape(target.name)}.*")
        )
        if not leftovers and (target / POINTER).is_file():
            current = _current(target).name
            leftovers = any(
                e.name != current and (_VERSION.fullmatch(e.name) or e.name in _PLAIN_FILES)
                for e in target.iterdir()
            )
        if not leftovers:
            return
        with _publish_lock(target, wait=wait) as locked:
            if locked:
                _recover_locked(target)
    except OSError:
        return  # read-only, or gone meanwhile: the reader reports what it finds
