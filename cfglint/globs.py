"""Path globs for settings: `*` within a path segment, `**` across segments, `?` one character.

A pattern without `/` matches a file or folder name anywhere (as in .gitignore); a pattern
that names a folder matches everything inside it. A `**` that is not a whole segment acts as
`*` (as in .gitignore).

Settings come from the tree being checked (a pull request can change `pyproject.toml`), so
matching never backtracks more than once per wildcard: at most (pattern length x path length)
steps. A regular expression took exponential time on `*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from pathlib import PurePosixPath

# A `**` segment: any number of path segments, none included.
_ANY_SEGMENTS = "**"
_STARS = re.compile(r"\*+")


@functools.lru_cache(maxsize=512)
def _compile(pattern: str) -> tuple[str, ...]:
    """The pattern as segment patterns (`*` and `?` only) and `**` markers."""
    pattern = pattern.strip("/")
    parts = pattern.split("/")
    if "/" not in pattern:
        parts = [_ANY_SEGMENTS, pattern]
    segments: list[str] = []
    for index, part in enumerate(parts):
        if part == _ANY_SEGMENTS:
            if index == len(parts) - 1:
                segments.append("*")  # a final `**` needs something below the folder
            segments.append(_ANY_SEGMENTS)
        else:
            segments.append(_STARS.sub("*", part))
    # A match on a folder covers everything below it.
    segments.append(_ANY_SEGMENTS)
    collapsed = [
        segment
        for index, segment in enumerate(segments)
        if not (segment == _ANY_SEGMENTS and index and segments[index - 1] == _ANY_SEGMENTS)
    ]
    return tuple(collapsed)


def matches(pattern: str, relative_path: PurePosixPath) -> bool:
    return _matches(_compile(pattern), relative_path.as_posix().split("/"))


def matches_any(patterns: tuple[str, ...], relative_path: str) -> bool:
    """Whether any pattern matches the path (POSIX, relative): the path is split once, and the
    plain names among the patterns (`.git`, `build`: most of them) are one set lookup."""
    names = relative_path.split("/")
    plain, others = _split(patterns)
    return not plain.isdisjoint(names) or any(_matches(segments, names) for segments in others)


@functools.lru_cache(maxsize=64)
def _split(patterns: tuple[str, ...]) -> tuple[frozenset[str], tuple[tuple[str, ...], ...]]:
    plain: set[str] = set()
    others: list[tuple[str, ...]] = []
    for pattern in patterns:
        segments = _compile(pattern)
        name = _plain_name(segments)
        if name is None:
            others.append(segments)
        else:
            plain.add(name)
    return frozenset(plain), tuple(others)


def _plain_name(segments: tuple[str, ...]) -> str | None:
    """The name, for a pattern that is a plain name matching anywhere."""
    if len(segments) == 3 and segments[0] == segments[2] == _ANY_SEGMENTS:
        only = segments[1]
        if "*" not in only and "?" not in only:
            return only
    return None


def _matches(segments: tuple[str, ...], names: list[str]) -> bool:
    only = _plain_name(segments)
    if only is not None:
        return only in names  # a plain name anywhere (most patterns: `.git`, `build`)
    return _wildcard_match(segments, names, _ANY_SEGMENTS, _segment_matches)


def _segment_matches(pattern: str, name: str) -> bool:
    if "*" not in pattern and "?" not in pattern:
        return pattern == name
    return _wildcard_match(pattern, name, "*", _char_matches)


def _char_matches(pattern: str, char: str) -> bool:
    return pattern == "?" or pattern == char


def _wildcard_match(
    pattern: Sequence[str],
    items: Sequence[str],
    star: str,
    item_matches: Callable[[str, str], bool],
) -> bool:
    """Whether `items` match `pattern`, where `star` matches any run of items and every other
    element exactly one item (as `item_matches` says). Greedy, going back only to the last
    star: enough, because between two stars every element takes exactly one item, so the
    leftmost place where that stretch matches is always a good one."""
    position = index = 0
    last_star = -1
    resume = 0
    while index < len(items):
        if position < len(pattern) and pattern[position] == star:
            last_star, resume = position, index
            position += 1
        elif position < len(pattern) and item_matches(pattern[position], items[index]):
            position += 1
            index += 1
        elif last_star >= 0:
            resume += 1
            position, index = last_star + 1, resume
        else:
            return False
    while position < len(pattern) and pattern[position] == star:
        position += 1
    return position == len(pattern)


def specificity(pattern: str) -> tuple[int, int]:
    """More literal characters means more specific; then more path segments."""
    literal = len(re.sub(r"\*+|\?", "", pattern))
    return literal, pattern.count("/")
