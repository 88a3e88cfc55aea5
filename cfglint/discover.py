"""Turn the paths on the command line into the config files to check."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from cfglint.settings import settings_for
from cfglint.types import LoadProblem, Span

BASE_FOLDER = "_base_"


@dataclass(frozen=True, slots=True)
class Discovered:
    leaves: tuple[Path, ...]  # checked as configs
    # `_base_` files named one by one (pre-commit passes changed files): checked through the
    # leaves under the project root that inherit them.
    bases: tuple[Path, ...]
    problems: tuple[LoadProblem, ...]


def is_base_file(path: Path) -> bool:
    """Files inside a `_base_` folder are only ever inherited, never launched."""
    return BASE_FOLDER in path.parts[:-1]


def _walk(folder: Path) -> Iterator[Path]:
    settings = settings_for(folder)
    for directory, subdirs, files in os.walk(folder):
        here = Path(directory)
        subdirs[:] = sorted(d for d in subdirs if not settings.is_excluded(here / d))
        for name in sorted(files):
            path = here / name
            if settings.is_included(path) and not settings.is_excluded(path):
                yield path


def discover(paths: Sequence[Path]) -> Discovered:
    leaves: dict[Path, None] = {}
    bases: dict[Path, None] = {}
    problems: list[LoadProblem] = []
    for given in paths:
        absolute = Path(os.path.abspath(given))
        if absolute.is_dir():
            # A base met while walking a folder is checked through the leaves found there.
            for path in _walk(absolute):
                if not is_base_file(path):
                    leaves[path] = None
        elif absolute.is_file():
            # A file named explicitly is checked whatever `include` says, as ruff does.
            (bases if is_base_file(absolute) else leaves)[absolute] = None
        else:
            problems.append(
                LoadProblem("CL902", "no such file or directory", Span(absolute, 1, 1, 1, 1))
            )
    return Discovered(tuple(leaves), tuple(bases), tuple(problems))


def leaves_under(root: Path) -> tuple[Path, ...]:
    return tuple(path for path in _walk(root) if not is_base_file(path))
