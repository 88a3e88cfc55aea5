"""A stored run: what it read, and what it printed. Frozen, versioned, and validated when read:
a cache file that is truncated, from another version or simply not ours is never trusted."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

# Bump when the layout below changes: older entries are then foreign and ignored.
FORMAT = "cfglint-cache/1"


@dataclass(frozen=True, slots=True)
class FileState:
    """A file the run read: its content hash, or None when the read failed (missing, unreadable)."""

    path: str
    digest: str | None
    limit: int | None = None  # the size limit it was read with (None: files.py's default)
    # (size, mtime_ns, inode) when recorded; see inputs.unchanged for when it may stand in for
    # reading the file again.
    stamp: tuple[int, int, int] | None = None


@dataclass(frozen=True, slots=True)
class FolderState:
    """A folder that held a file the run read (or above one, inside the project): its names,
    so that a config, base or settings file created or removed there is noticed."""

    path: str
    names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Inputs:
    files: tuple[FileState, ...]
    folders: tuple[FolderState, ...]
    # When the run started (time.time_ns()): every stamp was taken after it, before its file
    # was read.
    recorded_ns: int


@dataclass(frozen=True, slots=True)
class Entry:
    key: str  # the run's key (key.py), repeated inside: a file renamed by hand is not trusted
    inputs: Inputs
    stdout: str
    stderr: str
    exit_code: int


def dumps(entry: Entry) -> bytes:
    """The entry as JSON behind a header line holding the format and the body's hash."""
    body = json.dumps(
        {
            "key": entry.key,
            "files": [
                [s.path, s.digest, s.limit, None if s.stamp is None else list(s.stamp)]
                for s in entry.inputs.files
            ],
            "recorded_ns": entry.inputs.recorded_ns,
            "folders": [[state.path, list(state.names)] for state in entry.inputs.folders],
            "stdout": entry.stdout,
            "stderr": entry.stderr,
            "exit_code": entry.exit_code,
        },
        separators=(",", ":"),
    ).encode()
    return f"{FORMAT} {hashlib.sha256(body).hexdigest()}\n".encode() + body


def loads(data: bytes, key: str) -> Entry | None:
    """The entry stored for `key`, or None for anything else: foreign, truncated, altered."""
    header, _, body = data.partition(b"\n")
    expected = f"{FORMAT} {hashlib.sha256(body).hexdigest()}".encode()
    if header != expected:
        return None
    try:
        raw = json.loads(body)
        entry = Entry(
            key=_str(raw["key"]),
            inputs=Inputs(
                files=tuple(_file_state(item) for item in _list(raw["files"])),
                folders=tuple(
                    FolderState(_str(p), tuple(_str(n) for n in _list(names)))
                    for p, names in _pairs(raw["folders"])
                ),
                recorded_ns=_int(raw["recorded_ns"]),
            ),
            stdout=_str(raw["stdout"]),
            stderr=_str(raw["stderr"]),
            exit_code=_int(raw["exit_code"]),
        )
    except (ValueError, KeyError, TypeError):
        return None
    return entry if entry.key == key else None


def _file_state(item: object) -> FileState:
    path, digest, limit, raw_stamp = _list(item)  # a ValueError unless four
    stamp = None
    if raw_stamp is not None:
        size, mtime, inode = _list(raw_stamp)
        stamp = (_int(size), _int(mtime), _int(inode))
    return FileState(_str(path), _opt_str(digest), None if limit is None else _int(limit), stamp)


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("expected a string")
    return value


def _opt_str(value: object) -> str | None:
    return None if value is None else _str(value)


def _int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError("expected an int")
    return value


def _list(value: object) -> list[object]:
    if not isinstance(value, list):
        raise TypeError("expected a list")
    return value


def _pairs(value: object) -> list[tuple[object, object]]:
    pairs = []
    for item in _list(value):
        pair = _list(item)
        if len(pair) != 2:
            raise TypeError("expected a pair")
        pairs.append((pair[0], pair[1]))
    return pairs
