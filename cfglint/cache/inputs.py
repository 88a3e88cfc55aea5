"""What a run read, recorded as it reads, and checked again before its result is replayed.

The record: every file read through `cfglint/files.py` (its content hash, or that the read
failed), the names in each folder holding one of those files (recursively below it, so a config
added anywhere under a folder the run walked is seen), in each folder above it up to the
project root and in each folder of the import path, and the settings files (`cfglint.toml`,
`pyproject.toml`) that could appear in any folder above. A base, settings file, target file,
entry script or launcher that changes, appears or disappears makes the record differ, and the
run is done again.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from cfglint import files
from cfglint.cache.entry import FileState, FolderState, Inputs
from cfglint.excluded import DEFAULT_EXCLUDE
from cfglint.paths import absolute_path

SETTINGS_NAMES = ("cfglint.toml", "pyproject.toml")
# Folders never walked for configs (tool state, VCS data): their contents change all the time.
_SKIPPED_FOLDERS = frozenset(DEFAULT_EXCLUDE)
# The names of a folder that cannot be listed: no file name holds a NUL.
UNREADABLE = ("\0",)


class Recorder:
    """A `files.ReadObserver`: the first state of each file read, and whether any changed while
    the run was reading (then its result describes no single state of the tree)."""

    def __init__(self) -> None:
        # Every stamp a read takes is later than this (`files.stamp_stands_in`).
        self.started_ns = time.time_ns()
        # By absolute path, as a string: a pre-commit run is told of every file of its project.
        self.read: dict[str, FileState] = {}
        self.changed = False
        # The same file is read several times (as a config, for its noqa comments, for the
        # report's source lines): each later read is compared by digest alone.
        self._seen: dict[tuple[str, int | None], str | None] = {}

    def __call__(self, read: files.Read) -> None:
        key = (os.fspath(read.path), read.limit)
        if key in self._seen:
            if self._seen[key] != read.digest:
                self.changed = True
            return
        self._seen[key] = read.digest
        absolute = absolute_path(key[0])
        state = FileState(absolute, read.digest, read.limit, read.stamp)
        first = self.read.setdefault(absolute, state)
        if first.digest != state.digest and first.limit == state.limit:
            self.changed = True


def snapshot(recorder: Recorder, walked: Iterable[Path], root: Path, skip: Path) -> Inputs:
    """The record of a finished run. `walked`: the paths named on the command line; `root`:
    the project root (folders above it only count for settings files); `skip`: the cache
    folder, whose own changes mean nothing. Paths are strings throughout: a run that indexed a
    project read thousands of files."""
    # Below a config's folder (or a folder named), any new file may be a config the run would
    # have found; elsewhere (a settings file's folder, where a missing file would be) only the
    # folder's own names matter.
    deep = {
        os.path.dirname(path)
        for path, state in recorder.read.items()
        if state.digest is not None and os.path.basename(path) not in SETTINGS_NAMES
    }
    deep.update(os.path.abspath(folder) for folder in walked if files.is_dir(folder))
    parents = {os.path.dirname(path) for path in recorder.read}
    flat = {_existing(parent) for parent in parents} - deep
    skipped = os.fspath(skip)
    listed: dict[str, tuple[str, ...]] = {}
    for top in _tops(deep):
        _list_tree(top, skipped, listed)
    # `pkg::` bases are found through the import path: a package installed or removed there
    # shows in its folder's names.
    import_path = {os.path.abspath(entry or ".") for entry in sys.path}
    for folder in flat | {folder for folder in import_path if files.is_dir(folder)}:
        listed.setdefault(folder, _names(folder, skipped))
    project = os.fspath(root)
    inside = project.rstrip(os.sep) + os.sep
    probes: dict[str, FileState] = {}
    done: set[str] = set()
    for folder in deep | flat:
        # Each folder above: once one is done, so are all above it.
        for above in _above(folder):
            if above in done:
                break
            done.add(above)
            if above == project or above.startswith(inside):
                listed.setdefault(above, _names(above, skipped))
            for name in SETTINGS_NAMES:
                probe = os.path.join(above, name)
                if probe not in recorder.read and probe not in probes:
                    probes[probe] = _read_state(probe, None)
    return Inputs(
        tuple(sorted([*recorder.read.values(), *probes.values()], key=lambda state: state.path)),
        tuple(FolderState(path, names) for path, names in sorted(listed.items())),
        recorder.started_ns,
    )


def _above(folder: str) -> Iterator[str]:
    """The folders above `folder`, nearest first, up to the file system's root."""
    while True:
        parent = os.path.dirname(folder)
        if parent == folder:
            return
        yield parent
        folder = parent


def unchanged(inputs: Inputs, skip: Path) -> bool:
    """Whether every file and folder still reads as recorded. A file whose stamp stands in for
    it (`files.stamp_stands_in`) is taken as unchanged without reading it."""
    for state in inputs.files:
        if state.stamp is not None and files.stamp_stands_in(
            state.stamp, _stamp(state.path), inputs.recorded_ns
        ):
            continue
        if _read_state(state.path, state.limit).digest != state.digest:
            return False
    skipped = os.fspath(skip)
    return all(_names(state.path, skipped) == state.names for state in inputs.folders)


def _read_state(path: str, limit: int | None) -> FileState:
    try:
        data: bytes | None = files.read_bytes_capped(Path(path), limit)
    except OSError:
        data = None
    return FileState(path, None if data is None else files.digest(data), limit)


def _stamp(path: str) -> files.Stamp | None:
    try:
        return files.stamp_of(os.stat(path))
    except OSError:
        return None


def _existing(folder: str) -> str:
    """The folder, or the nearest folder above it that exists: where a missing base would be
    created."""
    while not files.is_dir(folder) and folder != os.path.dirname(folder):
        folder = os.path.dirname(folder)
    return folder


def _tops(folders: set[str]) -> list[str]:
    """The folders not inside another of them."""
    return [f for f in sorted(folders) if not any(p in folders for p in _above(f))]


def _list_tree(top: str, skip: str, listed: dict[str, tuple[str, ...]]) -> None:
    pending = [top]
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(folder) as entries:
                found = list(entries)
        except OSError:
            listed[folder] = UNREADABLE
            continue
        listed[folder] = _sorted_names([entry.name for entry in found], folder, skip)
        pending.extend(
            child
            for entry in found
            if entry.name not in _SKIPPED_FOLDERS
            and (child := os.path.join(folder, entry.name)) != skip
            and _is_real_dir(entry)
        )


def _is_real_dir(entry: os.DirEntry[str]) -> bool:
    """A folder, not a symlink to one (never walked into: a link can make a cycle)."""
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _names(folder: str, skip: str) -> tuple[str, ...]:
    """The folder's names (sorted; the cache folder left out), or `UNREADABLE`: a folder that
    could not be listed is recorded too (the run said so; once readable, its configs count)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return UNREADABLE
    return _sorted_names(names, folder, skip)


def _sorted_names(names: list[str], folder: str, skip: str) -> tuple[str, ...]:
    skip_folder, skip_name = os.path.split(skip)
    if folder == skip_folder and skip_name in names:
        names.remove(skip_name)
    return tuple(sorted(names))
