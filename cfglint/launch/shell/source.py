"""Reading a launcher file's text safely: a regular file only, at most MAX_LAUNCHER_BYTES.

The file is opened without blocking and checked on the open descriptor, so a FIFO or a device
put in its place is never read from. Bytes that are not UTF-8 (a GBK comment) are replaced and
said in a note: bash itself reads bytes, so the rest of the file still counts. NUL bytes are
dropped, as bash drops them.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

MAX_LAUNCHER_BYTES = 1024 * 1024


@dataclass(frozen=True, slots=True)
class LauncherText:
    text: str
    notes: tuple[tuple[int, str], ...] = ()  # (line, message)


@dataclass(frozen=True, slots=True)
class Unreadable:
    message: str


def read_launcher_text(path: Path) -> LauncherText | Unreadable:
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        broken = os.path.islink(path)
        return Unreadable("broken symlink" if broken else "file not found")
    except IsADirectoryError:
        return Unreadable("is a directory, not a launcher")
    except OSError as error:
        if error.errno == errno.ELOOP:
            return Unreadable("symlink loop")
        return Unreadable(f"cannot read file: {error.strerror}")
    except ValueError:
        return Unreadable("not a valid path")
    try:
        status = os.fstat(descriptor)
        if stat.S_ISDIR(status.st_mode):
            return Unreadable("is a directory, not a launcher")
        if not stat.S_ISREG(status.st_mode):
            return Unreadable("not a regular file (a FIFO, socket or device): not read")
        if status.st_size > MAX_LAUNCHER_BYTES:
            return Unreadable(
                f"file too large to be a launcher ({status.st_size:,} bytes; cfglint reads "
                "up to 1 MB)"
            )
        data = os.read(descriptor, MAX_LAUNCHER_BYTES + 1)
    except OSError as error:
        return Unreadable(f"cannot read file: {error.strerror}")
    finally:
        os.close(descriptor)
    if len(data) > MAX_LAUNCHER_BYTES:  # it grew after the size was checked
        return Unreadable("file too large to be a launcher (cfglint reads up to 1 MB)")
    return decode_launcher(data)


def decode_launcher(data: bytes) -> LauncherText:
    notes: list[tuple[int, str]] = []
    if b"\0" in data:
        line = data[: data.index(b"\0")].count(b"\n") + 1
        notes.append((line, "NUL bytes in the file are ignored, as bash ignores them"))
        data = data.replace(b"\0", b"")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        notes.append(
            (
                line,
                f"not UTF-8 text (byte 0x{data[error.start]:02x}): such bytes are read as "
                "U+FFFD, the rest of the file as written",
            )
        )
        text = data.decode("utf-8", errors="replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r\n" in text:
        line = text[: text.index("\r\n")].count("\n") + 1
        notes.append(
            (
                line,
                "Windows line ends (CRLF): bash reads the `\\r` as part of each line's last "
                "word; cfglint reads the lines without it",
            )
        )
        text = text.replace("\r\n", "\n")
    return LauncherText(text, tuple(notes))
