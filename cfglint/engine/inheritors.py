"""Which configs of a project inherit a file: for checking and for fixing.

pre-commit passes only the files a commit changes; a changed file that other configs name in
`_base_` (a `_base_` file, a leaf-to-leaf `_base_ = './x_1x.py'` chain, a shared fragment)
must bring those configs into the check. A fix placed in a file must not break any config of the
project reading it, checked or not. Resolving every config of a large project for each such
file would cost as much as checking all of them, so a cheap text index finds the candidates
first: a config can only inherit a file, directly or through other files, along a chain of files
that each mention the next one's path. Only the candidates are resolved, and the loader's answer
(the files a resolution went through) decides. Files are compared by real path, so a base
reached through a symlinked folder is one file. What the index found in each file can be kept
between runs (a ReferenceStore: cfglint/cache/index.py): a file whose stamp is unchanged is not
read again.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from cfglint import files
from cfglint.discover import is_base_file, walk_paths
from cfglint.loader.lazy import read_base_modules, relative_module_path
from cfglint.loader.source import CONFIG_SUFFIXES
from cfglint.paths import git_work_tree, real_path, suffix_of
from cfglint.session import per_session
from cfglint.settings import Settings, settings_for

# A config path as a `_base_` entry writes it: './x.py', '../_base_/a/b.yaml', 'pkg::c/d.py'.
# Found by its extension, then read backwards (a regex for the whole path retries at every
# character of every word: six times slower on the corpus).
_EXTENSION = re.compile(r"\.(?:py|ya?ml|json)\b")
_REVERSED_STEM = re.compile(r"[\w.+\-/\\:{}$~]*")
_MAX_REFERENCE = 1024
# Marks of a reference that is not a path relative to the config (`pkg::`, placeholders).
_UNPLACED = re.compile(r"[:{}$~]")


@per_session
def real(path: Path) -> Path:
    """The path with symlinks resolved (a run asks for the same few thousand paths often)."""
    resolved = real_path(path)
    # Most paths are real already: the same object, rather than a new Path to build and hash.
    return path if isinstance(path, Path) and resolved == str(path) else Path(resolved)


def project_root(path: Path) -> Path:
    """Where the configs that may inherit `path` live.

    The settings root (the folder of the `pyproject.toml` with `[tool.cfglint]`, or of
    `cfglint.toml`); without settings, the git work tree holding the path; else the path itself
    if it is a folder, its folder if it is a file.
    """
    absolute = Path(os.path.abspath(path))
    settings = settings_for(absolute)
    if settings.source is not None:
        return settings.root
    folder = absolute if files.is_dir(absolute) else absolute.parent
    return git_work_tree(folder) or folder


class InheritanceIndex:
    """For one project root: which files each `_base_`-using file of it may name.

    Every config file under the root is indexed, whatever the settings' `exclude` says (an
    excluded config still runs, and a fix must not break it); only the default exclusions and
    hidden folders (caches, tool state; a project without settings or git can be a home folder)
    are left out. A relative reference (`'../_base_/x.py'`) is resolved against the mentioning
    file's folder, as MMEngine does, so two `default_runtime.py` of different packages are told
    apart. A reference cfglint cannot place without more work (`pkg::x.py`,
    `{{ fileDirname }}/x.py`) matches every file of that name.
    """

    def __init__(
        self, root: Path, walked: ProjectWalk, known: KnownReferences | None = None
    ) -> None:
        """`walked`: the project's files; `known`: what an earlier run found in each file,
        taken again for each file whose stamp stands in for it (`files.stamp_stands_in`)."""
        self.root = root
        # Real path of a named file -> the files naming it.
        self._by_path: dict[str, list[str]] = {}
        self._by_name: dict[str, list[str]] = {}
        # Whether a check takes a config (None: a file of a `_base_` folder, never a config by
        # itself; False: a config the check does not take, not `include`d or `exclude`d), told
        # for the configs a question reaches: matching every file's path against the settings'
        # globs would cost more than the rest of the index.
        self._checkable: dict[Path, bool | None] = {}
        self._settings: dict[Path, Settings] = {}
        # Folders that could not be listed: a config in one may inherit any file.
        self.unreadable = walked.unreadable
        # What this run found in each file, for the next one (`known`).
        self.found = KnownReferences(time.time_ns(), {})
        # Strings, not pathlib, for the thousands of files and references of a project.
        self._resolutions: dict[tuple[str, str], str] = {}
        for path in walked.paths:
            if suffix_of(path) not in CONFIG_SUFFIXES:
                continue
            references = self._references(path, known)
            if not references:
                continue  # it inherits nothing, so nothing reaches a config through it
            folder = os.path.dirname(path)
            for reference in references:
                if _UNPLACED.search(reference):
                    name = reference.replace("\\", "/").rsplit("/", 1)[-1]
                    self._by_name.setdefault(name, []).append(path)
                else:
                    self._by_path.setdefault(self._resolved(folder, reference), []).append(path)

    def _references(self, path: str, known: KnownReferences | None) -> tuple[str, ...]:
        """The config paths the file mentions; as found by an earlier run when the file's stamp
        says it is the same (then told to the readers of files.py as read)."""
        try:
            stamp: files.Stamp | None = files.stamp_of(os.stat(path))
        except OSError:
            stamp = None
        earlier = known.files.get(path) if known is not None else None
        if earlier is not None and known is not None:
            earlier_stamp, digest, references = earlier
            if files.stamp_stands_in(earlier_stamp, stamp, known.recorded_ns):
                files.tell(files.Read(path, digest, None, stamp))
                self.found.files[path] = earlier
                return references
        try:
            # Never a FIFO or a device (a FIFO in the project would block the whole run), never
            # more than the loader reads: a file it refuses inherits nothing.
            data = files.read_bytes_capped(Path(path))
        except OSError:
            return ()
        references = _references_in(data, path.endswith(".py"))
        self.found.files[path] = (stamp, files.digest(data), references)
        return references

    def _resolved(self, folder: str, reference: str) -> str:
        """The real path of the file a relative reference names: the loader's own normalisation
        of a relative `_base_` entry (abspath), then the file behind any symlink on the way
        (each folder resolved once; the configs of a folder mostly name the same bases)."""
        key = (folder, reference)
        resolved = self._resolutions.get(key)
        if resolved is None:
            resolved = real_path(os.path.abspath(os.path.join(folder, reference)))
            self._resolutions[key] = resolved
        return resolved

    def candidates(self, path: Path, *, checkable_only: bool = True) -> list[Path]:
        """The configs that may inherit `path` (never `path` itself), a superset, in a stable
        order: the ones a check takes, or with `checkable_only` False every config outside
        `_base_` folders."""
        start = str(real(path))
        seen = {start}
        queue = [start]
        found: list[Path] = []
        while queue:
            current = queue.pop()
            name = os.path.basename(current)
            mentioning = (*self._by_path.get(current, ()), *self._by_name.get(name, ()))
            for mentioned_in in mentioning:
                config = Path(mentioned_in)
                key = str(real(config))
                if key in seen:
                    continue
                seen.add(key)
                queue.append(key)
                checkable = self._is_checkable(config)
                if checkable or (checkable is not None and not checkable_only):
                    found.append(config)
        return sorted(found)

    def _is_checkable(self, path: Path) -> bool | None:
        if path not in self._checkable:
            if is_base_file(path):
                self._checkable[path] = None
            else:
                folder = path.parent
                if folder not in self._settings:
                    self._settings[folder] = settings_for(folder)
                settings = self._settings[folder]
                self._checkable[path] = settings.is_included(path) and not settings.is_excluded(
                    path
                )
        return self._checkable[path]


def _references_in(data: bytes, python: bool) -> tuple[str, ...]:
    """The config paths a file's text mentions, as written, when it uses `_base_` at all, and
    the base modules of a lazy-import config's `with read_base():` as paths."""
    references: dict[str, None] = {}
    if python and b"read_base" in data:
        for module in read_base_modules(data.decode("utf-8", errors="replace")):
            relative = relative_module_path(module)
            # A package's module (`mmdet.configs.x`) matches every file of its name.
            references[relative or "pkg::" + module.replace(".", "/") + ".py"] = None
    if b"_base_" not in data:
        return tuple(references)
    text = data.decode("utf-8", errors="replace")
    for match in _EXTENSION.finditer(text):
        start = match.start()
        before = text[max(0, start - _MAX_REFERENCE) : start][::-1]
        stem = _REVERSED_STEM.match(before)
        if stem is not None and stem.end():
            references[stem.group()[::-1] + match.group()] = None
    return tuple(references)


@dataclass(frozen=True, slots=True)
class KnownReferences:
    """What one run found in a project's files: path -> (stamp before it was read, digest, the
    config paths it mentions), for the next run (cfglint/cache/index.py keeps it)."""

    recorded_ns: int  # when that run started
    files: dict[str, tuple[files.Stamp | None, str, tuple[str, ...]]]


class ReferenceStore(Protocol):
    """Where KnownReferences are kept between runs, per project root."""

    def load(self, root: Path) -> KnownReferences | None: ...

    def save(self, root: Path, known: KnownReferences) -> None: ...


@dataclass(frozen=True, slots=True)
class ProjectWalk:
    """The files of a project the index and the launchers look at: under its root, without
    the default exclusions and hidden folders (caches, tool state)."""

    paths: tuple[str, ...]
    unreadable: dict[Path, str]  # folders that could not be listed, with why


def walk_project(root: Path) -> ProjectWalk:
    unreadable: dict[Path, str] = {}

    def note(folder: Path, error: OSError) -> None:
        unreadable[folder] = error.strerror or str(error)

    walked = walk_paths(root, skip_hidden=True, settings_exclude=False, unreadable=note)
    return ProjectWalk(tuple(walked), unreadable)


class InheritanceIndexes:
    """One InheritanceIndex per project root, built the first time a file under it asks, and
    the project's files, walked once for the index and the launchers.

    Separate from any Loader: fixes edit values, never `_base_` references, so the indexes
    built for the first check serve every check of a fix loop and the fix placement too.
    `store`: what earlier runs found in each file (only files changed since are read again).
    """

    def __init__(self, store: ReferenceStore | None = None) -> None:
        self._store = store
        self._walks: dict[Path, ProjectWalk] = {}
        self._indexes: dict[Path, InheritanceIndex] = {}

    def walk(self, root: Path) -> ProjectWalk:
        key = real(root)
        if key not in self._walks:
            self._walks[key] = walk_project(root)
        return self._walks[key]

    def for_root(self, root: Path) -> InheritanceIndex:
        key = real(root)
        if key not in self._indexes:
            known = self._store.load(key) if self._store is not None else None
            index = InheritanceIndex(root, self.walk(root), known)
            if self._store is not None and (known is None or index.found.files != known.files):
                self._store.save(key, index.found)
            self._indexes[key] = index
        return self._indexes[key]

    def unreadable_folders(self) -> dict[Path, str]:
        """Each folder of the indexed projects that could not be listed, with why."""
        return {
            folder: reason
            for index in self._indexes.values()
            for folder, reason in index.unreadable.items()
        }
