"""`# cfglint: ...` comments: the per-file target and noqa suppressions.

Only real comments count: in a Python config the comments come from `tokenize`, so a directive
inside a string or a docstring is text, not a directive. The directive words are matched
case-insensitively (`# cfglint: NOQA` works, as ruff accepts `# NOQA`), and so are rule codes
(`cl202` is CL202). A code list that cannot be read suppresses nothing and is reported, instead
of silently turning into a blanket noqa.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass, field

_DIRECTIVE = re.compile(r"#\s*cfglint\s*:\s*", re.IGNORECASE)
_TARGET = re.compile(r"target\s*=\s*(?P<name>[A-Za-z0-9._-]+)", re.IGNORECASE)
_NOQA = re.compile(r"(?P<kind>noqa-file|noqa)(?![A-Za-z0-9_-])", re.IGNORECASE)
_CODE = re.compile(r"[A-Za-z]+[0-9]+(?![A-Za-z0-9_-])")
_CODE_LIKE = re.compile(r"[A-Za-z]+[-_]?[0-9]")
_SEPARATOR = re.compile(r"\s*,\s*|\s+")

EXPECTED_CODES = (
    "expected a comma-separated list of codes after `noqa:` (e.g. `# cfglint: noqa: CL201, CL202`)"
)


@dataclass(frozen=True, slots=True)
class Noqa:
    """A suppression: every code (codes is None) or the listed ones (upper case)."""

    codes: frozenset[str] | None

    def covers(self, code: str) -> bool:
        return self.codes is None or code in self.codes


@dataclass(frozen=True, slots=True)
class DirectiveProblem:
    """A `# cfglint:` comment that was not understood: it suppresses nothing."""

    line: int
    message: str


@dataclass(frozen=True, slots=True)
class Suppressions:
    """A file's noqa comments: per line, for the whole file, and the ones not understood."""

    by_line: dict[int, Noqa] = field(default_factory=dict)
    file: Noqa | None = None
    problems: tuple[DirectiveProblem, ...] = ()
    # (line, code) of well-formed codes, so the caller can report codes no rule has.
    codes: tuple[tuple[int, str], ...] = ()

    def covers(self, line: int, code: str) -> bool:
        if self.file is not None and self.file.covers(code):
            return True
        noqa = self.by_line.get(line)
        return noqa is not None and noqa.covers(code)


def comments(text: str, *, python: bool = True) -> Iterator[tuple[int, str]]:
    """(1-based line, comment text from its `#`) for every comment of the file.

    Python text goes through tokenize; text it cannot tokenize (a syntax error, a YAML config)
    falls back to a per-line scan that skips a `#` inside a quoted string on its line.
    """
    if python:
        found: list[tuple[int, str]] = []
        try:
            for token in tokenize.generate_tokens(io.StringIO(text).readline):
                if token.type == tokenize.COMMENT:
                    found.append((token.start[0], token.string))
        except (tokenize.TokenError, SyntaxError):
            pass
        else:
            yield from found
            return
    for number, line in enumerate(text.splitlines(), start=1):
        index = _comment_start(line)
        if index is not None:
            yield number, line[index:]


def _comment_start(line: str) -> int | None:
    quote: str | None = None
    for index, char in enumerate(line):
        if quote is not None:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "#":
            return index
    return None


def _directives(comment: str) -> Iterator[str]:
    """The text after each `# cfglint:` in a comment (`# note  # cfglint: noqa` has one)."""
    for found in _DIRECTIVE.finditer(comment):
        yield comment[found.end() :]


def target_comment(text: str, *, python: bool = True) -> tuple[str, int] | None:
    """The `# cfglint: target=NAME` a config names for itself (the first one), and its line."""
    if "cfglint" not in text.lower():
        return None
    for line, comment in comments(text, python=python):
        for rest in _directives(comment):
            found = _TARGET.match(rest)
            if found is not None:
                return found.group("name"), line
    return None


def suppressions(text: str, *, python: bool = True) -> Suppressions:
    """Every noqa comment of a file (`noqa` for its line, `noqa-file` for the whole file)."""
    by_line: dict[int, Noqa] = {}
    file_codes: set[str] = set()
    file_blanket = False
    has_file = False
    problems: list[DirectiveProblem] = []
    codes: list[tuple[int, str]] = []
    if "cfglint" not in text.lower():
        return Suppressions()
    for line, comment in comments(text, python=python):
        if "noqa" not in comment.lower():
            continue
        for rest in _directives(comment):
            found = _NOQA.match(rest)
            if found is None:
                continue
            kind = found.group("kind").lower()
            parsed = _parse_codes(rest[found.end() :])
            if isinstance(parsed, str):
                message = f"invalid `# cfglint: {kind}` directive: {parsed}; it suppresses nothing"
                problems.append(DirectiveProblem(line, message))
                continue
            codes.extend((line, code) for code in parsed or ())
            if kind == "noqa-file":
                has_file = True
                file_blanket = file_blanket or parsed is None
                file_codes.update(parsed or ())
            else:
                by_line[line] = _merge(by_line.get(line), parsed)
    file_noqa = None
    if has_file:
        file_noqa = Noqa(None if file_blanket else frozenset(file_codes))
    return Suppressions(by_line, file_noqa, tuple(problems), tuple(codes))


def _merge(old: Noqa | None, codes: frozenset[str] | None) -> Noqa:
    if old is None:
        return Noqa(codes)
    if old.codes is None or codes is None:
        return Noqa(None)
    return Noqa(old.codes | codes)


def _parse_codes(rest: str) -> frozenset[str] | str | None:
    """What follows `noqa`: None (every code), the codes, or why it is not understood."""
    stripped = rest.lstrip()
    if not stripped.startswith(":"):
        # `# cfglint: noqa  why` is a blanket noqa; `# cfglint: noqa CL201` lost its colon.
        if _CODE_LIKE.match(stripped):
            return "expected `:` before the codes (e.g. `# cfglint: noqa: CL201`)"
        return None
    text = stripped[1:]
    position = len(text) - len(text.lstrip())
    found = _CODE.match(text, position)
    if found is None:
        return EXPECTED_CODES
    codes = {found.group().upper()}
    position = found.end()
    while (separator := _SEPARATOR.match(text, position)) is not None:
        following = _CODE.match(text, separator.end())
        if following is None:
            if "," in separator.group():
                return EXPECTED_CODES
            break
        codes.add(following.group().upper())
        position = following.end()
    remainder = text[position:].strip()
    # Free text may follow the codes (`# cfglint: noqa: CL102  entry point creates the group`),
    # but not something that looks like a mistyped code (`CL201 CL-202`).
    if remainder and not remainder.startswith("#") and _CODE_LIKE.match(remainder):
        return EXPECTED_CODES
    return frozenset(codes)
