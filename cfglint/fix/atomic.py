"""Write a file so that a reader sees the old or the new content, never half of one."""

from __future__ import annotations

import contextlib
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


def write_atomic(path: Path, content: str) -> None:
    """Replace ``path`` with ``content`` (UTF-8) through a temp file in the same folder.

    The file's permission bits are kept; so are a byte order mark and CRLF line endings when
    ``content`` lacks them (it was read in text mode). A symlink is followed: the file it points
    to is replaced, the link stays.
    """
    target = Path(os.path.realpath(path))
    try:
        existing = target.read_bytes()
        mode: int | None = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        existing, mode = b"", None
    data = _like_existing(existing, content).encode("utf-8")
    handle, temp_name = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=".cfglint-tmp"
    )
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        if mode is not None:
            os.chmod(temp_name, mode)
        os.replace(temp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        raise
