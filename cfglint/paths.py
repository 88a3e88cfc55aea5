"""How a path is shown to people: relative to the working folder when under it (ruff style)."""

from __future__ import annotations

import os
from pathlib import Path

from cfglint.session import per_session


def display_path(path: Path, cwd: Path | None = None) -> str:
    """Relative to `cwd` (default: the working folder) when under it, else absolute; `..` is
    folded but symlinks are kept; POSIX separators either way."""
    base = Path(os.path.normpath(os.path.abspath(cwd or Path.cwd())))
    joined = path if path.is_absolute() else base / path
    absolute = Path(os.path.normpath(joined))
    try:
        return absolute.relative_to(base).as_posix()
    except ValueError:
        return absolute.as_posix()


def suffix_of(path: str) -> str:
    """`Path(path).suffix` for a string: a project's walk meets every file of the tree, and a
    pathlib object per file costs more than the walk."""
    name = os.path.basename(path)
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


def absolute_and_normal(text: str) -> bool:
    """Whether `os.path.abspath` would give the path back as it is."""
    return text.startswith(os.sep) and f"{os.sep}." not in text and os.sep * 2 not in text


def absolute_path(path: str | Path) -> str:
    """`os.path.abspath`, without its normalisation for a path that needs none: a project's
    walk meets thousands, all absolute and normal already."""
    text = os.fspath(path)
    if absolute_and_normal(text):
        return text.rstrip(os.sep) or os.sep
    return os.path.abspath(text)


def real_path(path: str | Path) -> str:
    """`os.path.realpath`, with each folder resolved once per command: realpath looks at every
    component of every path, and a check asks for thousands of paths in a few hundred folders."""
    text = os.fspath(path)
    parent, name = os.path.split(text)
    if not name or not absolute_and_normal(text) or os.path.islink(text):
        return os.path.realpath(text)
    return os.path.join(_real_folder(parent), name)


@per_session
def _real_folder(folder: str) -> str:
    """`os.path.realpath` of an absolute, normal folder, from its parent's: one `lstat` per
    folder (realpath itself takes one per component, for each of a check's few hundred)."""
    parent, name = os.path.split(folder)
    if not name or parent == folder:
        return os.path.realpath(folder)
    candidate = os.path.join(_real_folder(parent), name)
    return os.path.realpath(candidate) if os.path.islink(candidate) else candidate


def git_work_tree(path: Path) -> Path | None:
    """The root of the git work tree holding `path` (a file or folder), or None."""
    absolute = Path(os.path.abspath(path))
    for candidate in (absolute, *absolute.parents):
        # `.git` is a folder in a clone and a file in a worktree or a submodule.
        # os.path.exists: a folder on the way that cannot be searched is no work tree (Path's
        # exists() raises PermissionError there).
        if os.path.exists(candidate / ".git"):
            return candidate
    return None
