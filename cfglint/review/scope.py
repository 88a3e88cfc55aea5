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

from cfglint.engine.launches import project_entry_scripts
from cfglint.errors import UserError
from cfglint.review.diff import PullRequestDiff

# The pre-commit hook's default (`.pre-commit-hooks.yaml`): files under a `configs` or `config`
# folder.
DEFAULT_FILES = r"(^|/)configs?/.*\.(py|ya?ml|json)$"

# Launches whose launcher or entry script changed (docs/launches.md): a changed shell launcher,
# and a changed `.py` file that the project's launchers or `entry-points` start, go to the check
# too; the check then reviews the configs as those launches run them.
LAUNCHER_SUFFIX = ".sh"


def files_pattern(text: str) -> re.Pattern[str]:
    try:
        return re.compile(text)
    except re.error as error:
        raise UserError(f"--files {text!r}: not a regular expression ({error})") from None


def files_to_check(repo: Path, diff: PullRequestDiff, pattern: re.Pattern[str]) -> tuple[Path, ...]:
    chosen = []
    scripts: set[Path] | None = None
    for name in sorted(diff.files):
        is_launch = name.endswith(LAUNCHER_SUFFIX)
        if not is_launch and name.endswith(".py") and pattern.search(name) is None:
            if scripts is None:
                scripts = project_entry_scripts(repo)
            is_launch = Path(os.path.realpath(repo / name)) in scripts
        wanted = pattern.search(name) is not None or is_launch
        path = repo / name
        if wanted and path.is_file() and is_inside(path, repo):
            chosen.append(path)
    return tuple(chosen)


def is_inside(path: Path, repo: Path) -> bool:
    """Whether the file, links followed, lies inside the repository."""
    real, root = os.path.realpath(path), os.path.realpath(repo)
    return real == root or real.startswith(root + os.sep)
