"""Reading a launcher file's text safely: a regular file only, at most MAX_LAUNCHER_BYTES.

The file is opened without blocking and checked on the open descriptor, so a FIFO or a device
put in its place is never read from. Bytes that are not UTF-8 (a GBK comment) are replaced and
said in a note: bash itself reads bytes, so the rest of the file still counts. NUL bytes are
dropped, as bash drops them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cfglint.files import UnreadableFileError, read_bytes_capped

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
        data = read_bytes_capped(path, MAX_LAUNCHER_BYTES)
    except UnreadableFileError as error:
        return Unreadable(error.reason)
    except ValueError:
        return Unreadable("not a valid path")
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
