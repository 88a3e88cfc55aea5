"""Shell glob patterns (`case` arms, `${x#pattern}`, `${x/pattern/text}`) as regular expressions.

Only matched against strings the file itself holds; never against file names.
"""

from __future__ import annotations

import re

MAX_SUBJECT = 4096  # longer strings are not searched for a pattern (the search is quadratic)


def glob_to_regex(pattern: str) -> str:
    """The regular expression of an unquoted glob: `*`, `?`, `[...]`, backslash escapes."""
    out: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "*":
            out.append(".*")
        elif char == "?":
            out.append(".")
        elif char == "\\" and index + 1 < len(pattern):
            index += 1
            out.append(re.escape(pattern[index]))
        elif char == "[":
            end, bracket = _bracket(pattern, index)
            out.append(bracket)
            index = end
            continue
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)


def _bracket(pattern: str, start: int) -> tuple[int, str]:
    """A `[...]` expression at `start`: where it ends and its regex; a lone `[` is literal."""
    index = start + 1
    negate = index < len(pattern) and pattern[index] in "!^"
    if negate:
        index += 1
    body_start = index
    if index < len(pattern) and pattern[index] == "]":
        index += 1
    while index < len(pattern) and pattern[index] != "]":
        index += 1
    if index >= len(pattern):
        return start + 1, re.escape("[")
    body = pattern[body_start:index]
    escaped = "".join("\\" + char if char in "\\^[]" else char for char in body)
    return index + 1, "[" + ("^" if negate else "") + escaped + "]"


def matches(regex: str, subject: str) -> bool:
    try:
        return re.fullmatch(regex, subject, re.DOTALL) is not None
    except re.error:
        return False


def remove_affix(subject: str, regex: str, *, prefix: bool, longest: bool) -> str:
    """`${x#p}`, `${x##p}`, `${x%p}`, `${x%%p}`."""
    lengths = range(len(subject), -1, -1) if longest else range(len(subject) + 1)
    for length in lengths:
        piece = subject[:length] if prefix else subject[len(subject) - length :]
        if matches(regex, piece):
            return subject[length:] if prefix else subject[: len(subject) - length]
    return subject


def replace_pattern(subject: str, regex: str, replacement: str, *, every: bool, anchor: str) -> str:
    """`${x/p/r}` (first match), `${x//p/r}` (every match), `${x/#p/r}`, `${x/%p/r}`."""
    if anchor == "#":
        for length in range(len(subject), -1, -1):
            if matches(regex, subject[:length]):
                return replacement + subject[length:]
        return subject
    if anchor == "%":
        for start in range(len(subject) + 1):
            if matches(regex, subject[start:]):
                return subject[:start] + replacement
        return subject
    out: list[str] = []
    start = 0
    while start <= len(subject):
        end = next(
            (end for end in range(len(subject), start, -1) if matches(regex, subject[start:end])),
            None,
        )
        if end is None:
            if start < len(subject):
                out.append(subject[start])
            start += 1
            continue
        out.append(replacement)
        start = end
        if not every:
            out.append(subject[start:])
            return "".join(out)
    return "".join(out)
