"""For fix placement, who inherits a file: every config of the project, checked or not, with
its own target. (`engine/inheritors.py` answers the checking question: which configs a
changed file brings into a check.)

Fix placement asks two questions about a file before editing it: which configs would change
(all configs of the project inheriting it, including the ones not named on the command line and
the ones `exclude` hides from linting), and whether the file belongs to the project at all (a
`pkg::` base in site-packages does not). Files are compared by real path, so a base reached
through a symlinked folder is one file.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from cfglint.discover import is_base_file
from cfglint.engine.run import CheckResult, is_fragment
from cfglint.errors import UserError
from cfglint.fix import unwritable_reason
from cfglint.loader import Loader
from cfglint.loader.source import CONFIG_SUFFIXES
from cfglint.settings import DEFAULT_EXCLUDE, settings_for, target_name_for
from cfglint.types import ResolvedConfig

# Folders that hold installed code, never the project's own configs.
_INSTALLED = frozenset({"site-packages", "dist-packages"})
# A file that names neither cannot inherit anything.
_INHERITS = re.compile(r"_base_|read_base")


@functools.lru_cache(maxsize=65536)
def real(path: Path) -> Path:
    """The path with symlinks resolved (a run asks for the same few thousand paths often)."""
    return Path(os.path.realpath(path))


@dataclass(frozen=True, slots=True)
class ProjectConfig:
    path: Path
    files: frozenset[Path]  # real paths: the config and everything it inherits
    target: str | None  # None: no target can be found, so it shares no target
    checked: bool  # named (or found) on the command line: `--target` applies to it


class ProjectIndex:
    """The configs of the projects being fixed, by the real path of each file they inherit.

    A project is the folder of the settings (`pyproject.toml` / `cfglint.toml`) governing a path
    given on the command line; without settings, the given path itself.
    """

    def __init__(self, result: CheckResult, paths: Sequence[Path]) -> None:
        # Built on the first question: a report that only needs leaf overrides never walks
        # the project.
        self._result: CheckResult | None = result
        self._paths = tuple(paths)
        self._roots: tuple[Path, ...] = ()
        self._configs: dict[Path, ProjectConfig] = {}
        self._trees: dict[Path, ResolvedConfig] = {}
        self._checked: set[Path] = set()
        self._by_file: dict[Path, list[ProjectConfig]] = {}

    @property
    def roots(self) -> tuple[Path, ...]:
        self._build()
        return self._roots

    @property
    def configs(self) -> dict[Path, ProjectConfig]:
        self._build()
        return self._configs

    @property
    def trees(self) -> dict[Path, ResolvedConfig]:
        """The configs that were not checked, as resolved now, by real path."""
        self._build()
        return self._trees

    def _build(self) -> None:
        result = self._result
        if result is None:
            return
        self._result = None  # the index keeps no checked config's tree
        self._roots = _roots(result, self._paths)
        self._checked = {real(path) for path in result.resolved}
        for path, resolved in result.resolved.items():
            if not is_fragment(resolved):
                self._add(path, resolved, result.targets.get(path), checked=True)
        inherited = {file for config in self._configs.values() for file in config.files}
        loader = Loader()
        for path in self._candidates(inherited):
            loaded = loader.load(path)
            if isinstance(loaded, ResolvedConfig) and not is_fragment(loaded):
                self._add(path, loaded, _own_target(path), checked=False)
                self._trees[real(path)] = loaded
        for config in self._configs.values():
            for file in config.files:
                self._by_file.setdefault(file, []).append(config)

    def _add(self, path: Path, resolved: ResolvedConfig, target: str | None, checked: bool) -> None:
        files = frozenset(real(file) for file in resolved.files)
        self._configs.setdefault(real(path), ProjectConfig(path, files, target, checked))

    def _candidates(self, inherited: set[Path]) -> Iterator[Path]:
        seen = set(self._configs)
        for root in self._roots:
            for path in _walk(root):
                key = real(path)
                if key in seen:
                    continue
                seen.add(key)
                if key in inherited or _may_inherit(path):
                    yield path

    def inheritors(self, file: Path) -> list[ProjectConfig]:
        """Every config of the project whose resolution reads ``file`` (itself included)."""
        self._build()
        return self._by_file.get(real(file), [])

    def not_editable(self, file: Path) -> str | None:
        """Why a fix must not edit ``file`` in place (None: it may), for files other than the
        checked config a fix is for."""
        path = real(file)
        root = next((root for root in self.roots if path.is_relative_to(root)), None)
        if root is None:
            return "it is outside the project"
        folders = path.relative_to(root).parts[:-1]
        if any(part in _INSTALLED or part in DEFAULT_EXCLUDE for part in folders):
            return "it is installed code or in an excluded folder"
        if path not in self._checked and settings_for(file).is_excluded(file):
            return "the settings exclude it"
        return unwritable_reason(file)

    def reload(self, files: set[Path]) -> dict[Path, ResolvedConfig | None]:
        """Unchecked configs reading any of ``files`` resolved again (None: no longer resolves),
        by real path. The index keeps the new trees."""
        loader = Loader()
        now: dict[Path, ResolvedConfig | None] = {}
        for key, before in list(self.trees.items()):
            if not files & self._configs[key].files:
                continue
            loaded = loader.load(before.path)
            now[key] = loaded if isinstance(loaded, ResolvedConfig) else None
            if isinstance(loaded, ResolvedConfig):
                self._trees[key] = loaded
        return now


def _roots(result: CheckResult, paths: Sequence[Path]) -> tuple[Path, ...]:
    roots: dict[Path, None] = {}
    for given in paths:
        settings = settings_for(given)
        roots[real(settings.root if settings.source is not None else given)] = None
    for config in result.resolved:
        settings = settings_for(config)
        if settings.source is not None:
            roots[real(settings.root)] = None
    return tuple(roots)


def _walk(root: Path) -> Iterator[Path]:
    """Every config-like file under ``root``, `exclude` ignored: an excluded config that
    inherits a base still runs, and must not break."""
    if root.is_file():
        yield root
        return
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = sorted(name for name in subdirs if name not in DEFAULT_EXCLUDE)
        here = Path(directory)
        for name in sorted(files):
            path = here / name
            if path.suffix.lower() in CONFIG_SUFFIXES and not is_base_file(path):
                yield path


def _may_inherit(path: Path) -> bool:
    try:
        with path.open(encoding="utf-8", errors="replace") as stream:
            return _INHERITS.search(stream.read()) is not None
    except OSError:
        return False


def _own_target(path: Path) -> str | None:
    """The target its settings or its own comment give a config that was not checked."""
    try:
        return target_name_for(path, None)
    except UserError:
        return None
