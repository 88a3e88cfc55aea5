"""Write a file so that a reader sees the old or the new content, never half of one."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path

from cfglint.fix.text import BOM


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
    """Replace ``path`` with ``content`` (UTF-8) through a temp file in the same folder.

    The file's permission bits are kept, and its owner and group where this process may set
    them; so are a byte order mark and CRLF line endings when ``content`` lacks them (it was read
    in text mode). A symlink is followed: the file it points to is replaced, the link stays. A
    hard link is not: the rename gives the path a new file, the other names keep the old one.
    A file with no write permission bit raises PermissionError (see ``unwritable_reason``).
    """
    target = Path(os.path.realpath(path))
    try:
        existing = target.read_bytes()
        status: os.stat_result | None = target.stat()
    except FileNotFoundError:
        existing, status = b"", None
    if status is not None and not stat.S_IMODE(status.st_mode) & 0o222:
        raise PermissionError(errno.EACCES, "the file is read-only", str(path))
    data = _like_existing(existing, content).encode("utf-8")
    handle, temp_name = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=".cfglint-tmp"
    )
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        if status is not None:
            os.chmod(temp_name, stat.S_IMODE(status.st_mode))
            _keep_owner(temp_name, status)
        os.replace(temp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        raise


def _keep_owner(temp_name: str, status: os.stat_result) -> None:
    if (status.st_uid, status.st_gid) == (os.geteuid(), os.getegid()):
        return
    # Only root may give a file away; anyone else writes it as their own, like an editor does.
    with contextlib.suppress(PermissionError):
        os.chown(temp_name, status.st_uid, status.st_gid)
