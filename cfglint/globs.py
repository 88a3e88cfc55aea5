"""Path globs for settings: `*` within a path segment, `**` across segments, `?` one character.

A pattern without `/` matches a file or folder name anywhere (as in .gitignore); a pattern
that names a folder matches everything inside it.
"""

from __future__ import annotations

import functools
import re
from pathlib import PurePosixPath


@functools.lru_cache(maxsize=512)
def _compile(pattern: str) -> re.Pattern[str]:
    pattern = pattern.strip("/")
    if "/" not in pattern:
        pattern = f"**/{pattern}"
    parts: list[str] = []
    index = 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            parts.append("(?:[^/]+/)*")
            index += 3
        elif pattern.startswith("**", index):
            parts.append(".*")
            index += 2
        elif pattern[index] == "*":
            parts.append("[^/]*")
            index += 1
        elif pattern[index] == "?":
            parts.append("[^/]")
            index += 1
        else:
            parts.append(re.escape(pattern[index]))
            index += 1
    # A match on a folder covers everything below it.
    return re.compile("".join(parts) + "(?:/.*)?")


def matches(pattern: str, relative_path: PurePosixPath) -> bool:
    return _compile(pattern).fullmatch(relative_path.as_posix()) is not None


def specificity(pattern: str) -> tuple[int, int]:
    """More literal characters means more specific; then more path segments."""
    literal = len(re.sub(r"\*+|\?", "", pattern))
    return literal, pattern.count("/")
