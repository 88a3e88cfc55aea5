"""Which of the pull request's changed files the review checks.

The changed configs (the same `files` pattern as the pre-commit hook by default); the check
then brings in every config of the project inheriting one of them (a changed `_base_` file
reviews its leaves). Files that are not regular files inside the repository (a symlink to
`/proc/self/environ` named `x.py`) are never read.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from cfglint.errors import UserError
from cfglint.review.diff import PullRequestDiff

# The pre-commit hook's default (`.pre-commit-hooks.yaml`): files under a `configs` or `config`
# folder.
DEFAULT_FILES = r"(^|/)configs?/.*\.(py|ya?ml|json)$"

# SEAM(launch): launches whose entry script or launcher changed. When `cfglint check` accepts
# shell launchers and entry scripts (docs/launches.md), set this to (".sh", ".py"): the changed
# files with these suffixes then go to the check like any other path, and a changed file that is
# neither a config nor a launch is simply not reported on. Until then the check would read a
# `.sh` file as a config (CL902), so none are passed.
LAUNCH_SUFFIXES: tuple[str, ...] = ()


def files_pattern(text: str) -> re.Pattern[str]:
    try:
        return re.compile(text)
    except re.error as error:
        raise UserError(f"--files {text!r}: not a regular expression ({error})") from None


def files_to_check(repo: Path, diff: PullRequestDiff, pattern: re.Pattern[str]) -> tuple[Path, ...]:
    chosen = []
    for name in sorted(diff.files):
        is_launch = bool(LAUNCH_SUFFIXES) and name.endswith(LAUNCH_SUFFIXES)
        wanted = pattern.search(name) is not None or is_launch
        path = repo / name
        if wanted and path.is_file() and is_inside(path, repo):
            chosen.append(path)
    return tuple(chosen)


def is_inside(path: Path, repo: Path) -> bool:
    """Whether the file, links followed, lies inside the repository."""
    real, root = os.path.realpath(path), os.path.realpath(repo)
    return real == root or real.startswith(root + os.sep)
