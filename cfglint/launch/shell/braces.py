"""Brace expansion (`{a,b}`, `{0..7}`, `{00..15..2}`, `{a..e}`) on a word's parts.

Only unquoted literal braces count; a word that would grow past MAX_WORDS words is left as
written (bash would build it; no launcher needs it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from cfglint.launch.shell.tree import Literal, WordPart

MAX_WORDS = 1024
_Item = str | WordPart  # one character of a literal, or a whole other part
_SEQUENCE = re.compile(r"(-?[0-9]+|[A-Za-z])\.\.(-?[0-9]+|[A-Za-z])(?:\.\.(-?[0-9]+))?")


class _TooMany(Exception):
    pass


def expand_braces(parts: Sequence[WordPart]) -> list[tuple[WordPart, ...]]:
    if not any(isinstance(part, Literal) and "{" in part.text for part in parts):
        return [tuple(parts)]
    items: list[_Item] = []
    for part in parts:
        if isinstance(part, Literal):
            items.extend(part.text)
        else:
            items.append(part)
    try:
        variants = _expand(items)
    except _TooMany:
        return [tuple(parts)]
    return [_rebuild(variant) for variant in variants]


def _expand(items: list[_Item]) -> list[list[_Item]]:
    for start, item in enumerate(items):
        if item != "{":
            continue
        found = _group(items, start)
        if found is None:
            continue
        close, alternatives = found
        suffixes = _expand(items[close + 1 :])
        out: list[list[_Item]] = []
        for alternative in alternatives:
            for expanded in _expand(alternative):
                for suffix in suffixes:
                    out.append(items[:start] + expanded + suffix)
                    if len(out) > MAX_WORDS:
                        raise _TooMany
        return out
    return [items]


def _group(items: list[_Item], start: int) -> tuple[int, list[list[_Item]]] | None:
    """The `}` closing the `{` at `start` and the group's alternatives, or None if the braces
    do not make a brace expansion (`{}`, `{a}`, no `}`)."""
    depth = 0
    commas: list[int] = []
    for index in range(start + 1, len(items)):
        item = items[index]
        if item == "{":
            depth += 1
        elif item == "}":
            if depth == 0:
                if commas:
                    bounds = [start, *commas, index]
                    return index, [items[a + 1 : b] for a, b in pairwise(bounds)]
                sequence = _sequence(items[start + 1 : index])
                return None if sequence is None else (index, [list(word) for word in sequence])
            depth -= 1
        elif item == "," and depth == 0:
            commas.append(index)
    return None


def _sequence(items: list[_Item]) -> list[str] | None:
    if not all(isinstance(item, str) for item in items):
        return None
    match = _SEQUENCE.fullmatch("".join(str(item) for item in items))
    if match is None:
        return None
    first, last, step_text = match.groups()
    step = abs(int(step_text)) if step_text else 1
    step = step or 1
    if first.isalpha() != last.isalpha():
        return None
    if first.isalpha():
        low, high = ord(first), ord(last)
        codes = range(low, high + 1, step) if low <= high else range(low, high - 1, -step)
        return [chr(code) for code in codes][: MAX_WORDS + 1]
    low, high = int(first), int(last)
    if abs(high - low) // step > MAX_WORDS:
        raise _TooMany
    width = (
        max(len(first), len(last))
        if first.lstrip("-").startswith("0") or last.lstrip("-").startswith("0")
        else 0
    )
    numbers = range(low, high + 1, step) if low <= high else range(low, high - 1, -step)
    return [str(number).zfill(width) if width else str(number) for number in numbers]


def _rebuild(items: list[_Item]) -> tuple[WordPart, ...]:
    parts: list[WordPart] = []
    text: list[str] = []
    for item in items:
        if isinstance(item, str):
            text.append(item)
            continue
        if text:
            parts.append(Literal("".join(text)))
            text.clear()
        parts.append(item)
    if text:
        parts.append(Literal("".join(text)))
    return tuple(parts)
