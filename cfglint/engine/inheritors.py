"""Which configs of a project inherit a file: for checking and for fixing.

pre-commit passes only the files a commit changes; a changed file that other configs name in
`_base_` (a `_base_` file, a leaf-to-leaf `_base_ = './x_1x.py'` chain, a shared fragment)
must bring those configs into the check. A fix placed in a file must not break any config of the
project reading it, checked or not. Resolving every config of a large project for each such
file would cost as much as checking all of them, so a cheap text index finds the candidates
first: a config can only inherit a file, directly or through other files, along a chain of files
that each mention the next one's path. Only the candidates are resolved, and the loader's answer
(the files a resolution went through) decides. Files are compared by real path, so a base
reached through a symlinked folder is one file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

from cfglint import files
from cfglint.discover import is_base_file, walk_files
from cfglint.loader import Loader
from cfglint.loader.lazy import read_base_modules, relative_module_path
from cfglint.loader.source import CONFIG_SUFFIXES
from cfglint.paths import git_work_tree
from cfglint.session import per_session
from cfglint.settings import Settings, settings_for
from cfglint.types import LoadResult

# A config path as a `_base_` entry writes it: './x.py', '../_base_/a/b.yaml', 'pkg::c/d.py'.
# Found by its extension, then read backwards (a regex for the whole path retries at every
# character of every word: six times slower on the corpus).
_EXTENSION = re.compile(r"\.(?:py|ya?ml|json)\b")
_REVERSED_STEM = re.compile(r"[\w.+\-/\\:{}$~]*")
_MAX_REFERENCE = 1024
# Marks of a reference that is not a path relative to the config (`pkg::`, placeholders).
_UNPLACED = (":", "{", "}", "$", "~")


@per_session
def real(path: Path) -> Path:
    """The path with symlinks resolved (a run asks for the same few thousand paths often)."""
    return Path(os.path.realpath(path))


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

    def __init__(self, root: Path) -> None:
        self.root = root
        # Real path of a named file -> the files naming it.
        self._by_path: dict[Path, list[Path]] = {}
        self._by_name: dict[str, list[Path]] = {}
        # Whether a check takes a config (None: a file of a `_base_` folder, never a config by
        # itself; False: a config the check does not take, not `include`d or `exclude`d), told
        # for the configs a question reaches: matching every file's path against the settings'
        # globs would cost more than the rest of the index.
        self._checkable: dict[Path, bool | None] = {}
        self._settings: dict[Path, Settings] = {}
        # Folders that could not be listed: a config in one may inherit any file.
        self.unreadable: dict[Path, str] = {}
        for path in walk_files(
            root, skip_hidden=True, settings_exclude=False, unreadable=self._unreadable
        ):
            if path.suffix not in CONFIG_SUFFIXES:
                continue
            references = _references(path)
            if not references:
                continue  # it inherits nothing, so nothing reaches a config through it
            folder = path.parent
            for reference in references:
                if any(mark in reference for mark in _UNPLACED):
                    name = reference.replace("\\", "/").rsplit("/", 1)[-1]
                    self._by_name.setdefault(name, []).append(path)
                else:
                    self._by_path.setdefault(_resolved(str(folder), reference), []).append(path)

    def _unreadable(self, folder: Path, error: OSError) -> None:
        self.unreadable[folder] = error.strerror or str(error)

    def candidates(self, path: Path, *, checkable_only: bool = True) -> list[Path]:
        """The configs that may inherit `path` (never `path` itself), a superset, in a stable
        order: the ones a check takes, or with `checkable_only` False every config outside
        `_base_` folders."""
        start = real(path)
        seen = {start}
        queue = [start]
        found: list[Path] = []
        while queue:
            current = queue.pop()
            mentioning = (*self._by_path.get(current, ()), *self._by_name.get(current.name, ()))
            for config in mentioning:
                key = _real_file(config)
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


@per_session
def _real_file(path: Path) -> Path:
    # Folders are resolved once each (cached); only a symlinked file needs its own resolution.
    if os.path.islink(path):
        return real(path)
    return real(path.parent) / path.name


@per_session
def _resolved(folder: str, reference: str) -> Path:
    # The loader's own normalisation of a relative `_base_` entry (abspath), then the file
    # behind any symlink on the way.
    return real(Path(os.path.abspath(os.path.join(folder, reference))))


def _references(path: Path) -> set[str]:
    """The config paths a file mentions, as written, when it uses `_base_` at all, and the
    base modules of a lazy-import config's `with read_base():` as paths."""
    try:
        # Never a FIFO or a device (a FIFO in the project would block the whole run), never
        # more than the loader reads: a file it refuses inherits nothing.
        data = files.read_bytes_capped(path)
    except OSError:
        return set()
    references = set()
    if b"read_base" in data and path.suffix == ".py":
        for module in read_base_modules(data.decode("utf-8", errors="replace")):
            relative = relative_module_path(module)
            # A package's module (`mmdet.configs.x`) matches every file of its name.
            references.add(relative or "pkg::" + module.replace(".", "/") + ".py")
    if b"_base_" not in data:
        return references
    text = data.decode("utf-8", errors="replace")
    for match in _EXTENSION.finditer(text):
        start = match.start()
        before = text[max(0, start - _MAX_REFERENCE) : start][::-1]
        stem = _REVERSED_STEM.match(before)
        if stem is not None and stem.end():
            references.add(stem.group()[::-1] + match.group())
    return references


class InheritanceIndexes:
    """One InheritanceIndex per project root, built the first time a file under it asks.

    Separate from any Loader: fixes edit values, never `_base_` references, so the indexes
    built for the first check serve every check of a fix loop and the fix placement too.
    """

    def __init__(self) -> None:
        self._indexes: dict[Path, InheritanceIndex] = {}

    def for_root(self, root: Path) -> InheritanceIndex:
        key = real(root)
        if key not in self._indexes:
            self._indexes[key] = InheritanceIndex(root)
        return self._indexes[key]

    def unreadable_folders(self) -> dict[Path, str]:
        """Each folder of the indexed projects that could not be listed, with why."""
        return {
            folder: reason
            for index in self._indexes.values()
            for folder, reason in index.unreadable.items()
        }


class Inheritors:
    """Finds, for each file named on the command line, the configs of its project that a check
    takes and that inherit it."""

    def __init__(self, loader: Loader, indexes: InheritanceIndexes) -> None:
        self._loader = loader
        self._indexes = indexes

    def of(self, path: Path) -> Iterator[tuple[Path, LoadResult]]:
        """Each config that inherits `path`, with its load result: a resolved config, or a
        failure whose chain of `_base_` files goes through `path` (a base the change broke)."""
        index = self._indexes.for_root(project_root(path))
        key = real(path)
        for candidate in index.candidates(path):
            result = self._loader.load(candidate)
            if any(real(file) == key for file in result.files):
                yield candidate, result
