"""A unified diff of rewritten files that ``patch`` and ``git apply`` accept."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator

NO_NEWLINE = "\\ No newline at end of file\n"
# str.splitlines also breaks at form feeds and other separators that are not line ends.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def _file_names(shown: str) -> tuple[str, str]:
    # git's a/ b/ prefixes for a path relative to the working folder; an absolute path (a file
    # outside it) is written as it is, the way `diff -u` does, never as `a//tmp/...`.
    if shown.startswith("/"):
        return shown, shown
    return f"a/{shown}", f"b/{shown}"


def _marked(lines: Iterable[str]) -> Iterator[str]:
    """Diff lines with the marker after a last line that has no line break (as diff and git
    write it), so that it is not glued to the line after it."""
    for line in lines:
        if line.endswith(("\n", "\r")):
            yield line
        else:
            yield line + "\n" + NO_NEWLINE


def unified_diff(shown: str, old: str, new: str) -> str:
    """The change from ``old`` to ``new`` of the file shown as ``shown`` (POSIX separators)."""
    from_name, to_name = _file_names(shown)
    lines = difflib.unified_diff(
        _LINE.findall(old),
        _LINE.findall(new),
        fromfile=from_name,
        tofile=to_name,
    )
    return "".join(_marked(lines))
