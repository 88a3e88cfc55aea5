"""Which configs of a project inherit a file: what a change to that file can break.

pre-commit passes only the files a commit changes; a changed file that other configs name in
`_base_` (a `_base_` file, a leaf-to-leaf `_base_ = './x_1x.py'` chain, a shared fragment)
must bring those configs into the check. Resolving every config of a large project for each
named file would cost as much as checking all of them, so a cheap text index finds the
candidates first: a config can only inherit a file, directly or through other files, along a
chain of files that each mention the next one's file name. Only the candidates are resolved,
and the loader's answer (the files a resolution went through) decides.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterator
from pathlib import Path

from cfglint.discover import is_base_file, walk_files
from cfglint.loader import Loader
from cfglint.loader.source import CONFIG_SUFFIXES
from cfglint.paths import git_work_tree
from cfglint.settings import settings_for
from cfglint.types import LoadResult

# Larger files are data, not configs (the loader refuses files over 10 MB anyway).
_MAX_SCANNED_BYTES = 1024 * 1024
# A config path as a `_base_` entry writes it: './x.py', '../_base_/a/b.yaml', 'pkg::c/d.py'.
# Found by its extension, then read backwards (a regex for the whole path retries at every
# character of every word: six times slower on the corpus).
_EXTENSION = re.compile(r"\.(?:py|ya?ml|json)\b")
_REVERSED_STEM = re.compile(r"[\w.+\-/\\:{}$~]*")
_MAX_REFERENCE = 1024
# Marks of a reference that is not a path relative to the config (`pkg::`, placeholders).
_UNPLACED = (":", "{", "}", "$", "~")


def project_root(path: Path) -> Path:
    """Where the configs that may inherit `path` live.

    The settings root (the folder of the `pyproject.toml` with `[tool.cfglint]`, or of
    `cfglint.toml`); without settings, the git work tree holding the file; else its folder.
    """
    absolute = Path(os.path.abspath(path))
    settings = settings_for(absolute)
    if settings.source is not None:
        return settings.root
    folder = absolute if absolute.is_dir() else absolute.parent
    return git_work_tree(folder) or folder


class InheritanceIndex:
    """For one project root: which files a `_base_`-using file of it may name.

    A relative reference (`'../_base_/x.py'`) is resolved against the mentioning file's folder,
    as MMEngine does, so two `default_runtime.py` of different packages are told apart. A
    reference cfglint cannot place without more work (`pkg::x.py`, `{{ fileDirname }}/x.py`)
    matches every file of that name.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._by_path: dict[Path, list[Path]] = {}
        self._by_name: dict[str, list[Path]] = {}
        self._checkable: set[Path] = set()
        settings = settings_for(root)
        # Hidden folders hold caches and tool state, not configs (and a project without settings
        # or git can be a home folder).
        for path in walk_files(root, skip_hidden=True):
            if path.suffix not in CONFIG_SUFFIXES:
                continue
            if settings.is_included(path) and not is_base_file(path):
                self._checkable.add(path)
            folder = os.path.dirname(path)
            for reference in _references(path):
                if any(mark in reference for mark in _UNPLACED):
                    name = reference.replace("\\", "/").rsplit("/", 1)[-1]
                    self._by_name.setdefault(name, []).append(path)
                else:
                    target = _resolved(folder, reference)
                    self._by_path.setdefault(target, []).append(path)

    def candidates(self, path: Path) -> list[Path]:
        """The configs that may inherit `path`: a superset, in a stable order."""
        seen = {path}
        queue = [path]
        found: list[Path] = []
        while queue:
            current = queue.pop()
            mentioning = (*self._by_path.get(current, ()), *self._by_name.get(current.name, ()))
            for config in mentioning:
                if config in seen:
                    continue
                seen.add(config)
                queue.append(config)
                if config in self._checkable:
                    found.append(config)
        return sorted(found)


@functools.cache
def _resolved(folder: str, reference: str) -> Path:
    # The loader's own normalisation of a relative `_base_` entry (abspath, symlinks kept).
    return Path(os.path.abspath(os.path.join(folder, reference)))


def _references(path: Path) -> set[str]:
    """The config paths a file mentions, as written, when it uses `_base_` at all."""
    try:
        with open(path, "rb") as stream:  # the builtin: faster than Path.open here
            data = stream.read(_MAX_SCANNED_BYTES + 1)
    except OSError:
        return set()
    if len(data) > _MAX_SCANNED_BYTES or b"_base_" not in data:
        return set()
    text = data.decode("utf-8", errors="replace")
    references = set()
    for match in _EXTENSION.finditer(text):
        start = match.start()
        before = text[max(0, start - _MAX_REFERENCE) : start][::-1]
        stem = _REVERSED_STEM.match(before)
        if stem is not None and stem.end():
            references.add(stem.group()[::-1] + match.group())
    return references


class Inheritors:
    """Finds, for each named file, the configs of its project that inherit it (one index per
    project root, built the first time a file of that project asks)."""

    def __init__(self, loader: Loader) -> None:
        self._loader = loader
        self._indexes: dict[Path, InheritanceIndex] = {}

    def of(self, path: Path) -> Iterator[tuple[Path, LoadResult]]:
        """Each config that inherits `path`, with its load result: a resolved config, or a
        failure whose chain of `_base_` files goes through `path` (a base the change broke)."""
        root = project_root(path)
        if root not in self._indexes:
            self._indexes[root] = InheritanceIndex(root)
        for candidate in self._indexes[root].candidates(path):
            result = self._loader.load(candidate)
            if path in result.files:
                yield candidate, result
