"""For fix placement, who inherits a file: every config of the project, checked or not, with
its own target.

Fix placement asks two questions about a file before editing it: which configs would change
(all configs of the project inheriting it, including the ones not named on the command line and
the ones `exclude` hides from linting), and whether the file belongs to the project at all (a
`pkg::` base in site-packages does not). The configs that were checked are known from the check;
the others are found through the project's text index (engine/inheritors.py), and only the
candidates for a file are resolved, when a fix asks about that file. Files are compared by real
path, so a base reached through a symlinked folder is one file.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from cfglint.engine.inheritors import InheritanceIndexes, project_root, real
from cfglint.engine.run import CheckResult, is_fragment
from cfglint.fix import unwritable_reason
from cfglint.loader import Loader
from cfglint.settings import declared_target, default_excluded, installed_code, settings_for
from cfglint.types import LoadResult, ResolvedConfig

__all__ = ["ProjectConfig", "ProjectIndex", "real"]


@dataclass(frozen=True, slots=True)
class ProjectConfig:
    path: Path
    files: frozenset[Path]  # real paths: the config and everything it inherits
    target: str | None  # None: no target can be found, so it shares no target
    checked: bool  # named (or found) on the command line: `--target` applies to it


class ProjectIndex:
    """The configs of the projects being fixed that read a file, by its real path.

    A project is the folder of the settings (`pyproject.toml` / `cfglint.toml`) governing a path
    given on the command line; without settings, the git work tree holding it; else the given
    path itself if it is a folder, its folder if it is a file. The folders of the settings of
    the checked configs are projects too.

    Fixes edit values, never `_base_` references or target comments, so an answer stays true
    for the whole fix loop: each file's is computed once. The configs that were not checked are
    resolved by a Loader that the fix loop replaces whenever it writes files
    (`files_changed`), so that one round's questions and baselines share it and no round sees
    the trees of another.
    """

    def __init__(
        self,
        result: CheckResult,
        paths: Sequence[Path],
        indexes: InheritanceIndexes | None = None,
    ) -> None:
        self.indexes = indexes or InheritanceIndexes()
        self._paths = tuple(paths)
        # What the checked configs' trees say, taken now (the fix loop lets the trees go) and
        # turned into real paths on the first question (a report may never ask one).
        self._resolved = tuple(result.resolved)
        # The entry scripts and launchers of the launches checked belong to the project too.
        self._launch_files = tuple(
            dict.fromkeys(path for facts in result.configs.values() for path in facts.overlay)
        )
        self._facts = [
            (path, facts.files, result.targets.get(path))
            for path, facts in result.configs.items()
            if not facts.fragment
        ]
        self._roots: tuple[Path, ...] | None = None
        self._checked_real: set[Path] | None = None
        self._checked_by_file: dict[Path, list[ProjectConfig]] = {}
        self._answers: dict[Path, list[ProjectConfig]] = {}
        self._loader: Loader | None = None

    def load(self, config: Path) -> LoadResult:
        """A config resolved as its files are now."""
        if self._loader is None:
            self._loader = Loader()
        return self._loader.load(config)

    def files_changed(self) -> None:
        """Files were written: what was resolved before no longer holds."""
        self._loader = None

    @property
    def _checked(self) -> set[Path]:
        """Every checked config by real path, fragments included: never resolved again here."""
        if self._checked_real is None:
            self._checked_real = {real(path) for path in self._resolved}
            for path, inherited, target in self._facts:
                files = frozenset(real(file) for file in inherited)
                config = ProjectConfig(path, files, target, checked=True)
                for file in files:
                    self._checked_by_file.setdefault(file, []).append(config)
        return self._checked_real

    @property
    def roots(self) -> tuple[Path, ...]:
        """The projects' folders, by real path."""
        if self._roots is None:
            roots: dict[Path, None] = {}
            for given in (*self._paths, *self._launch_files):
                roots[real(project_root(given))] = None
            for config in self._resolved:
                settings = settings_for(config)
                if settings.source is not None:
                    roots[real(settings.root)] = None
            self._roots = tuple(roots)
        return self._roots

    def _root_of(self, path: Path) -> Path | None:
        """The outermost project holding the (real) path: the most configs that may read it."""
        holding = [root for root in self.roots if path.is_relative_to(root)]
        return min(holding, key=lambda root: len(root.parts)) if holding else None

    def inheritors(self, file: Path) -> list[ProjectConfig]:
        """Every config of the project whose resolution reads ``file``: the checked ones (the
        file itself among them when it was checked), then the others, each with the target it
        declares."""
        key = real(file)
        if key not in self._answers:
            checked = self._checked
            found = list(self._checked_by_file.get(key, ()))
            root = self._root_of(key)
            if root is not None:
                for candidate in self.indexes.for_root(root).candidates(key, checkable_only=False):
                    if real(candidate) in checked:
                        continue
                    loaded = self.load(candidate)
                    if not isinstance(loaded, ResolvedConfig) or is_fragment(loaded):
                        continue
                    files = frozenset(real(path) for path in loaded.files)
                    if key in files:
                        target = declared_target(candidate)
                        found.append(ProjectConfig(candidate, files, target, checked=False))
            self._answers[key] = found
        return self._answers[key]

    def unchecked_reading(self, files: Iterable[Path]) -> list[ProjectConfig]:
        """The configs that were not checked and read any of ``files``, once each."""
        found: dict[Path, ProjectConfig] = {}
        for file in files:
            for config in self.inheritors(file):
                if not config.checked:
                    found.setdefault(real(config.path), config)
        return list(found.values())

    def not_editable(self, file: Path) -> str | None:
        """Why a fix must not edit ``file`` in place (None: it may), for files other than the
        checked config a fix is for."""
        path = real(file)
        root = self._root_of(path)
        if root is None:
            return "it is outside the project"
        folders = path.relative_to(root).parts[:-1]
        if installed_code(folders) or default_excluded(folders):
            return "it is installed code or in an excluded folder"
        if path not in self._checked and settings_for(file).is_excluded(file):
            return "the settings exclude it"
        return unwritable_reason(file)
