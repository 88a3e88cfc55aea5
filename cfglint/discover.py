"""Turn the paths on the command line into the config files to check."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from cfglint.codes import UNREADABLE_CONFIG
from cfglint.config_sniff import CONFIG_SUFFIXES, looks_like_config
from cfglint.files import UnreadableFileError, is_dir, read_text_capped, regular_file_status
from cfglint.paths import suffix_of
from cfglint.settings import default_excluded, settings_for
from cfglint.types import Discovered, LoadProblem, Span

BASE_FOLDER = "_base_"


def is_base_file(path: Path) -> bool:
    """Files inside a `_base_` folder, or named `_base_*` beside the configs inheriting them
    (a model kept next to its leaves), are only ever inherited, never launched."""
    return BASE_FOLDER in path.parts[:-1] or path.name.startswith(BASE_FOLDER)


def walk_paths(
    folder: Path,
    *,
    skip_hidden: bool = False,
    settings_exclude: bool = True,
    unreadable: Callable[[Path, OSError], None] | None = None,
) -> Iterator[str]:
    """Every file under `folder` that the settings do not exclude, in a stable order, as
    strings (a project's whole tree is walked for every pre-commit run, and a pathlib object
    per file costs more than the walk itself); `skip_hidden`: not inside folders whose name
    starts with a dot either; `settings_exclude` False: only the default exclusions hold, not
    the settings' `exclude`; `unreadable` is told of each folder that cannot be listed (os.walk
    skips it silently)."""
    settings = settings_for(folder) if settings_exclude else None

    def walk_error(error: OSError) -> None:
        if unreadable is not None:
            unreadable(Path(error.filename or folder), error)

    def excluded(path: str) -> bool:
        if settings is not None:
            return settings.is_excluded(path)
        return default_excluded((os.path.basename(path),))

    for directory, subdirs, files in os.walk(folder, onerror=walk_error):
        subdirs[:] = sorted(
            d
            for d in subdirs
            if not (skip_hidden and d.startswith(".")) and not excluded(os.path.join(directory, d))
        )
        for name in sorted(files):
            path = os.path.join(directory, name)
            if not excluded(path):
                yield path


LAUNCHER_SUFFIX = ".sh"


def _empty_package_marker(path: Path) -> bool:
    """An `__init__.py` with nothing but comments: a lazy-import project's config folders are
    packages, and their markers are neither configs nor worth a warning."""
    if path.name != "__init__.py":
        return False
    try:
        text = read_text_capped(path, errors="replace")
    except OSError:
        return False
    return all(not line.strip() or line.lstrip().startswith("#") for line in text.splitlines())


def _walk(
    folder: Path, problems: list[LoadProblem], skipped: list[Path]
) -> Iterator[tuple[Path, bool]]:
    """Each file the walk finds, and whether it is a launcher (else an included config)."""
    settings = settings_for(folder)
    sniff = settings.table.include is None

    def unreadable(path: Path, error: OSError) -> None:
        # Never a silent pass: the configs in there are not checked, and the run says so.
        reason = error.strerror or str(error)
        message = f"cannot read folder: {reason} (the configs in it are not checked)"
        problems.append(LoadProblem(UNREADABLE_CONFIG, message, Span(path, 1, 1, 1, 1)))

    for walked in walk_paths(folder, unreadable=unreadable):
        suffix = suffix_of(walked)
        if suffix == LAUNCHER_SUFFIX:
            yield Path(walked), True
            continue
        if sniff and suffix.lower() not in CONFIG_SUFFIXES:
            continue  # what `is_included` says without an `include`, before any Path is built
        path = Path(walked)
        if not settings.is_included(path):
            continue
        if not sniff or is_base_file(path) or looks_like_config(path):
            # A base is checked through the configs inheriting it, whatever it holds.
            yield path, False
        elif path.suffix == ".py" and not _empty_package_marker(path):
            skipped.append(path)


def _named_file_problem(path: Path) -> LoadProblem | None:
    """Why a path named on the command line that is no folder cannot be checked as a file."""
    try:
        regular_file_status(path)
    except UnreadableFileError as error:
        missing = error.errno == errno.ENOENT
        message = "no such file or directory" if missing else error.reason
        return LoadProblem(UNREADABLE_CONFIG, message, Span(path, 1, 1, 1, 1))
    return None


def discover(paths: Sequence[Path], force_exclude: bool = False) -> Discovered:
    """`force_exclude`: apply `exclude` to files and folders named explicitly too (ruff's
    `--force-exclude`; pre-commit names every changed file, excluded or not)."""
    leaves: dict[Path, None] = {}
    bases: dict[Path, None] = {}
    named: dict[Path, None] = {}
    launchers: dict[Path, None] = {}
    problems: list[LoadProblem] = []
    skipped: list[Path] = []
    for given in paths:
        absolute = Path(os.path.abspath(given))
        if force_exclude and settings_for(absolute).is_excluded(absolute):
            continue
        if is_dir(absolute):
            # A base met while walking a folder is checked through the leaves found there.
            for path, is_launcher in _walk(absolute, problems, skipped):
                if is_launcher:
                    launchers[path] = None
                elif not is_base_file(path):
                    leaves[path] = None
        elif (problem := _named_file_problem(absolute)) is not None:
            problems.append(problem)
        elif absolute.suffix == LAUNCHER_SUFFIX:
            launchers[absolute] = None
            named[absolute] = None
        else:
            # A file named explicitly is checked whatever `include` says, as ruff does.
            (bases if is_base_file(absolute) else leaves)[absolute] = None
            named[absolute] = None
    return Discovered(
        tuple(leaves),
        tuple(bases),
        tuple(problems),
        tuple(named),
        tuple(launchers),
        tuple(dict.fromkeys(skipped)),
    )
