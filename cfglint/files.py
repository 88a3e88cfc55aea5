"""Every read of a user's file goes through here: regular files only, never more than a limit.

cfglint runs on untrusted trees (a pull request, a pre-commit hook), so a "file" may be a FIFO
(opening it for reading blocks until a writer comes), a symlink to `/dev/zero` (endless), or
simply huge. Each read is checked before the file is opened (never open a device: opening some
has side effects), opened without blocking, checked again on the open descriptor (the path may
have been swapped in between), and read up to the limit and no further. A file the command
read before comes from memory while a fresh status of it is the one it had: a config is read to
tell it is one, for its target comment, to resolve it and for its noqa comments.

The limit is measured, not guessed (docs/benchmarks.md, "Hostile input"): the costliest
accepted file, checked, fixed twice and shown, must stay under 300 MB of memory and 10 s.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from cfglint import session

# The largest file cfglint reads: configs, bases, settings and target files alike. Measured
# (benchmarks/bench_hostile.py --sizes): the costliest content this size takes under 5 s and
# 120 MB to check (YAML, read by PyYAML's pure-Python parser, is the slowest); the largest of
# the ~2,500 .py configs in the mmdet, mmseg and mmpretrain wheels is 29 KB. The fixer edits
# less (cfglint/fix/limits.py).
MAX_FILE_BYTES = 128 * 1024

# What one command keeps of the files it read, to read them again from memory while they stat
# the same: the corpus's 2,500 configs hold 8 MB.
KEEP_BYTES = 64 * 1024 * 1024

_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
_CHUNK = 64 * 1024


@dataclass(frozen=True, slots=True)
class Read:
    """One read of a file, as the observers are told of it."""

    path: Path | str  # a str where the reader holds one (the index tells of thousands)
    digest: str | None  # of the bytes read (`digest`); None: the read failed
    limit: int | None  # the size limit it was read with (None: MAX_FILE_BYTES)
    # Of the open file before its bytes were read: a later write changes it (see
    # `stamp_stands_in` for when it may stand in for reading the file again).
    stamp: Stamp | None = None


Stamp = tuple[int, int, int]  # (size, mtime_ns, inode)

# Git's "racily clean" rule: a file's stamp stands in for its contents only when its mtime is
# older than the run that recorded it by more than the coarsest timestamp granularity in use
# (2 s, FAT); a file written in the same instant as the record is always read again.
RACY_NS = 2_000_000_000


def stamp_of(status: os.stat_result) -> Stamp:
    return (status.st_size, status.st_mtime_ns, status.st_ino)


def stamp_stands_in(recorded: Stamp | None, now: Stamp | None, recorded_ns: int) -> bool:
    """Whether a file whose stamp, taken before a run started at `recorded_ns` read it, was
    `recorded` and is `now` now, still holds what that run read."""
    return recorded is not None and recorded == now and recorded[1] < recorded_ns - RACY_NS


# Told of every read. The result cache (cfglint/cache/) records what a run read here, so that a
# cached result is only used while each of those files still reads the same.
ReadObserver = Callable[[Read], None]
_observers: list[ReadObserver] = []


def digest(data: bytes) -> str:
    """What a cache compares a file's contents by."""
    import hashlib  # only runs that record what they read need it

    return hashlib.blake2b(data, digest_size=16).hexdigest()


@contextmanager
def observed(observer: ReadObserver) -> Iterator[None]:
    """Tell `observer` of every read while the block runs."""
    _observers.append(observer)
    try:
        yield
    finally:
        _observers.remove(observer)


def observing() -> bool:
    """Whether any observer is told of reads now."""
    return bool(_observers)


def tell(read: Read) -> None:
    """Tell the observers of a read made elsewhere: in a worker process, or by an earlier run
    whose cached result stands in for reading the file again."""
    for observer in _observers:
        observer(read)


class UnreadableFileError(OSError):
    """A file cfglint will not or cannot read; ``reason`` says why, in words for the user.

    An OSError, so code that already treats a failed read as "no text" keeps doing so.
    """

    def __init__(self, path: Path, reason: str, code: int = errno.EINVAL) -> None:
        super().__init__(code, reason, str(path))
        self.path = path
        self.reason = reason


class NotRegularFileError(UnreadableFileError):
    """A folder, FIFO, socket or device: never opened."""


class FileTooLargeError(UnreadableFileError):
    """Larger than the limit (checked on the size it reports and on what it holds)."""


def regular_file_status(path: Path) -> os.stat_result:
    """The file's status when it is a regular file (symlinks followed), or why it is not one."""
    try:
        status = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            raise UnreadableFileError(
                path, "broken symlink: the file it points to does not exist", errno.ENOENT
            ) from None
        raise UnreadableFileError(path, "file not found", errno.ENOENT) from None
    except OSError as error:
        raise _from_os_error(path, error) from None
    _require_regular(path, status)
    return status


def is_dir(path: Path | str) -> bool:
    """Whether `path` is a folder (symlinks followed); False when it cannot be told (a folder
    on the way that cannot be searched), where ``Path.is_dir`` raises PermissionError."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def read_bytes_capped(path: Path, limit: int | None = None) -> bytes:
    """The file's bytes: an UnreadableFileError for anything but a regular file of at most
    ``limit`` bytes (default MAX_FILE_BYTES), or one that cannot be read."""
    if not _observers:
        return _read_bytes_capped(path, limit).data
    try:
        kept = _read_bytes_capped(path, limit)
    except OSError:
        tell(Read(path, None, limit))
        raise
    if kept.digest is None:
        kept.digest = digest(kept.data)
    tell(Read(path, kept.digest, limit, stamp_of(kept.status)))
    return kept.data


class _Kept:
    """A file's bytes as a command read them, with its status on the open file."""

    __slots__ = ("data", "digest", "status")

    def __init__(self, data: bytes, status: os.stat_result) -> None:
        self.data = data
        self.status = status
        self.digest: str | None = None


def _same_file(kept: os.stat_result, now: os.stat_result) -> bool:
    # The stamp a cache compares, and the change time and device too: a write in place changes
    # the modification and change times, a replace (cfglint's own fixes, most editors) the inode.
    return (
        stamp_of(kept) == stamp_of(now)
        and kept.st_ctime_ns == now.st_ctime_ns
        and kept.st_dev == now.st_dev
    )


def _read_bytes_capped(path: Path, limit: int | None) -> _Kept:
    limit = MAX_FILE_BYTES if limit is None else limit
    status = regular_file_status(path)
    if status.st_size > limit:
        raise too_large(path, status.st_size, limit)
    reads = session.current()
    name = os.fspath(path)
    kept = reads.files_read.get(name)
    if kept is not None and _same_file(kept.status, status):
        return cast(_Kept, kept)
    kept = _Kept(*_read_open(path, limit))
    if reads.files_read_bytes + len(kept.data) <= KEEP_BYTES:
        reads.files_read[name] = kept
        reads.files_read_bytes += len(kept.data)
    return kept


def _read_open(path: Path, limit: int) -> tuple[bytes, os.stat_result]:
    try:
        descriptor = os.open(path, _OPEN_FLAGS)
    except OSError as error:
        raise _from_os_error(path, error) from None
    try:
        status = os.fstat(descriptor)
        _require_regular(path, status)
        chunks: list[bytes] = []
        size = 0
        while size <= limit:  # one byte past the limit tells a file that grew
            chunk = os.read(descriptor, min(_CHUNK, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as error:
        if isinstance(error, UnreadableFileError):
            raise
        raise _from_os_error(path, error) from None
    finally:
        os.close(descriptor)
    if size > limit:
        raise too_large(path, None, limit)
    return b"".join(chunks), status


def read_text_capped(
    path: Path,
    limit: int | None = None,
    *,
    errors: str = "strict",
    translate_newlines: bool = False,
) -> str:
    """The file's text, decoded as UTF-8. With ``errors="strict"`` a file that is not UTF-8
    raises UnicodeDecodeError. Line endings stay as they are unless ``translate_newlines``
    (then as ``open()`` in text mode gives them: ``\r\n`` and ``\r`` become ``\n``)."""
    text = read_bytes_capped(path, limit).decode("utf-8", errors=errors)
    if translate_newlines and "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def too_large(path: Path, size: int | None, limit: int) -> FileTooLargeError:
    """`size` None: the file held more than it said (it grew, or reports no size)."""
    held = f"more than {limit:,}" if size is None else f"{size:,}"
    return FileTooLargeError(
        path,
        f"file too large ({held} bytes; cfglint reads files up to {size_text(limit)})",
        errno.EFBIG,
    )


def size_text(limit: int) -> str:
    """1 MB, 256 KB, or a byte count."""
    for unit, name in ((1024 * 1024, "MB"), (1024, "KB")):
        if limit % unit == 0:
            return f"{limit // unit:,} {name}"
    return f"{limit:,} bytes"


def _require_regular(path: Path, status: os.stat_result) -> None:
    if stat.S_ISDIR(status.st_mode):
        raise NotRegularFileError(path, "is a directory, not a file", errno.EISDIR)
    if not stat.S_ISREG(status.st_mode):
        raise NotRegularFileError(path, "not a regular file (a FIFO, socket or device): not read")


def _from_os_error(path: Path, error: OSError) -> UnreadableFileError:
    if error.errno == errno.ELOOP:
        return UnreadableFileError(path, "symlink loop", errno.ELOOP)
    reason = error.strerror or str(error)
    return UnreadableFileError(path, f"cannot read file: {reason}", error.errno or errno.EIO)
