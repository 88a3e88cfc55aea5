"""Write a file so that a reader sees the old or the new content, never half of one.

The new content goes to a temporary file in the same folder, which then replaces the file with
one rename. Where the system allows it (Linux, most file systems) the temporary file has no name
until the moment before the rename (``O_TMPFILE``), so a crash or a ``kill -9`` while it is
written leaves nothing behind; elsewhere it is named ``.cfglint-PID-XXXXXXXX.tmp`` (short, so
that it fits beside a file whose name is already near the 255-byte limit), and a later run
removes those of processes that no longer exist.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
import time
from pathlib import Path

from cfglint import files, session
from cfglint.fix.text import BOM

_TEMP = re.compile(r"\.cfglint-(?P<pid>[0-9]+)-[0-9a-z]{8}\.tmp")
# Temporary files of cfglint 0.1 (`.NAME.XXXXXXXX.cfglint-tmp`), left by a crash.
_OLD_TEMP = re.compile(r"\..+\.[0-9a-z_]{8}\.cfglint-tmp")
# A temporary file this old belongs to no live write (a write takes milliseconds); the pid
# check covers the common case sooner, this one a pid reused since, or another host.
_STALE_AFTER_S = 600
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def _like_existing(existing: bytes, content: str) -> str:
    # A caller that read the file in text mode lost its BOM and CRLFs: give them back.
    if existing.startswith(BOM.encode()) and not content.startswith(BOM):
        content = BOM + content
    if b"\r\n" in existing and "\r" not in content:
        content = content.replace("\n", "\r\n")
    return content


def unwritable_reason(path: Path) -> str | None:
    """Why ``write_atomic(path, ...)`` would be refused or fail, None when it can write.

    A file without any write permission bit is refused even for root (who could write it): a
    read-only mode is the owner's way of saying "do not change this file".
    """
    target = Path(os.path.realpath(path))
    try:
        mode = target.stat().st_mode
    except OSError as error:
        return error.strerror or str(error)
    if not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        return "the file is read-only (no write permission bit)"
    if not os.access(target, os.W_OK) or not os.access(target.parent, os.W_OK | os.X_OK):
        return os.strerror(errno.EACCES)
    return None


def write_atomic(path: Path, content: str) -> None:
    """Replace the existing file ``path`` with ``content`` (UTF-8).

    The file's permission bits are kept, and its owner and group where this process may set
    them; so are a byte order mark and CRLF line endings when ``content`` lacks them (it was read
    in text mode). A symlink is followed: the file it points to is replaced, the link stays. A
    hard link is not: the rename gives the path a new file, the other names keep the old one.
    A file with no write permission bit raises PermissionError (see ``unwritable_reason``); a
    file that no longer exists (deleted while cfglint ran) raises FileNotFoundError and is not
    created again.
    """
    target = Path(os.path.realpath(path))
    status = _existing_status(target, path)
    if not stat.S_IMODE(status.st_mode) & 0o222:
        raise PermissionError(errno.EACCES, "the file is read-only", str(path))
    existing = files.read_bytes_capped(target)
    data = _like_existing(existing, content).encode("utf-8")
    remove_stale_temp_files(target.parent)
    temp = target.parent / f".cfglint-{os.getpid()}-{_token()}.tmp"
    try:
        _write_temp(temp, data, status)
        _existing_status(target, path)  # deleted while the new content was written?
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def write_report(path: Path, content: str) -> None:
    """Write a report cfglint produces (``--output-file``) whole or not at all: the file is
    created when it does not exist (with the mode the umask gives a new file, and its missing
    folders, as ruff does), and replaced with its mode kept when it does."""
    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        status: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        status = None
    if status is not None and not stat.S_ISREG(status.st_mode):
        raise IsADirectoryError(errno.EISDIR, "not a regular file", str(path))
    remove_stale_temp_files(target.parent)
    temp = target.parent / f".cfglint-{os.getpid()}-{_token()}.tmp"
    try:
        _write_temp(temp, content.encode("utf-8"), status)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _existing_status(target: Path, path: Path) -> os.stat_result:
    try:
        return os.stat(target)
    except FileNotFoundError:
        raise FileNotFoundError(
            errno.ENOENT, "the file no longer exists (not created again)", str(path)
        ) from None


def _token() -> str:
    alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
    return "".join(secrets.choice(alphabet) for _ in range(8))


def _write_temp(temp: Path, data: bytes, status: os.stat_result | None) -> None:
    """``data`` in a new file named ``temp``, with the mode and owner of ``status`` (None: a
    new file's mode under the umask, owned by this process)."""
    descriptor = _unnamed_file(temp.parent)
    if descriptor is not None:
        try:
            _fill(descriptor, data, status)
            # The name comes last: until here a crash leaves nothing in the folder.
            if _give_name(descriptor, temp):
                return
        finally:
            os.close(descriptor)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _CLOEXEC
    descriptor = os.open(temp, flags, 0o600)
    try:
        _fill(descriptor, data, status)
    finally:
        os.close(descriptor)


def _fill(descriptor: int, data: bytes, status: os.stat_result | None) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view) :]
    os.fsync(descriptor)
    if status is None:
        os.fchmod(descriptor, 0o666 & ~_umask())
        return
    os.fchmod(descriptor, stat.S_IMODE(status.st_mode))
    _keep_owner(descriptor, status)


def _umask() -> int:
    mask = os.umask(0o022)  # the only way to read it is to set it: put it back at once
    os.umask(mask)
    return mask


def _unnamed_file(folder: Path) -> int | None:
    """A new file in ``folder`` without a name (``O_TMPFILE``), None where that is not
    possible (another system, a file system without it)."""
    flag = getattr(os, "O_TMPFILE", None)
    if flag is None:
        return None
    try:
        return os.open(folder, flag | os.O_WRONLY | _CLOEXEC, 0o600)
    except OSError as error:
        if error.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL, errno.ENOENT):
            return None
        raise


def _give_name(descriptor: int, temp: Path) -> bool:
    """Link an unnamed file into its folder as ``temp``; False where that is not possible.

    Through /proc/self/fd, with the link followed (``link()`` on the path would try to link
    the /proc entry itself): the one way that needs no privilege.
    """
    try:
        proc = os.open("/proc/self/fd", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC)
    except OSError:
        return False
    try:
        os.link(str(descriptor), temp, src_dir_fd=proc, follow_symlinks=True)
    except OSError as error:
        if error.errno == errno.EEXIST:
            raise
        return False
    finally:
        os.close(proc)
    return True


def _keep_owner(descriptor: int, status: os.stat_result) -> None:
    if (status.st_uid, status.st_gid) == (os.geteuid(), os.getegid()):
        return
    # Only root may give a file away; anyone else writes it as their own, like an editor does.
    with contextlib.suppress(PermissionError):
        os.fchown(descriptor, status.st_uid, status.st_gid)


def remove_stale_temp_files(folder: Path) -> None:
    """Remove the temporary files a crashed cfglint left in ``folder`` (once per command)."""
    cleaned = session.current().cleaned_folders
    if folder in cleaned:
        return
    cleaned.add(folder)
    now = time.time()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if not name.startswith(".") or not name.endswith((".tmp", ".cfglint-tmp")):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and _stale(name, now - info.st_mtime):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)


def _stale(name: str, age_s: float) -> bool:
    ours = _TEMP.fullmatch(name)
    if ours is not None:
        return age_s > _STALE_AFTER_S or not _alive(int(ours.group("pid")))
    return _OLD_TEMP.fullmatch(name) is not None and age_s > _STALE_AFTER_S


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True  # this run's own write, in another thread: never removed under it
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # gone, or a pid no process can have
        return False
    except PermissionError:
        return True  # someone else's process: left alone
    return True
