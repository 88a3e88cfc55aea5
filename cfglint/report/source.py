"""File text for the formats that need it: UTF-8 byte columns and whole-line fix previews."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cfglint import files
from cfglint.types import TextEdit


@dataclass(frozen=True, slots=True)
class LineReplacement:
    """Lines `first..last` (1-based, inclusive, with their line endings) become `text`."""

    first: int
    last: int
    text: str


class SourceFiles:
    """Reads each file once per report; files may change between reports (after a fix)."""

    def __init__(self) -> None:
        self._lines: dict[Path, tuple[str, ...] | None] = {}

    def lines(self, path: Path) -> tuple[str, ...] | None:
        """The file's lines with their line endings, or None when it cannot be read."""
        if path not in self._lines:
            self._lines[path] = _read_lines(path)
        return self._lines[path]

    def byte_column(self, path: Path, line: int, column: int) -> int:
        """The 1-based UTF-8 byte column of a 1-based character column (as is if unreadable)."""
        lines = self.lines(path)
        if lines is None or not 1 <= line <= len(lines):
            return column
        prefix = lines[line - 1][: column - 1]
        # Past the end of the line (a span ending after the newline): count the rest as bytes.
        overshoot = max(0, column - 1 - len(prefix))
        return len(prefix.encode("utf-8", errors="replace")) + 1 + overshoot

    def whole_line_replacement(
        self, path: Path, edits: Sequence[TextEdit], covering: tuple[int, int] | None = None
    ) -> LineReplacement | None:
        """The edits (all in `path`) widened to the whole lines they touch, and to the lines
        `covering` (first, last) when given, then applied.

        An insertion at the very end of the file (after the last newline) is anchored on the
        last line. None when the file cannot be read or an edit lies outside it.
        """
        lines = self.lines(path)
        if not lines or not edits:
            return None
        first = min(edit.span.line for edit in edits)
        last = max(_last_line_touched(edit) for edit in edits)
        if covering is not None:
            first, last = min(first, covering[0]), max(last, covering[1])
        count = len(lines)
        if last == count + 1 and any(_after_end(edit, count) for edit in edits):
            first, last = min(first, count), count
        if last > len(lines) or first < 1:
            return None
        offsets = _line_offsets(lines)
        block_start = offsets[first - 1]
        block = "".join(lines)[block_start : offsets[last]]
        # Apply from the end backwards so the offsets of earlier edits stay valid.
        for edit in sorted(
            edits, key=lambda edit: (edit.span.line, edit.span.column), reverse=True
        ):
            start = _offset(offsets, edit.span.line, edit.span.column) - block_start
            end = _offset(offsets, edit.span.end_line, edit.span.end_column) - block_start
            block = block[:start] + edit.content + block[end:]
        return LineReplacement(first, last, block)


def _after_end(edit: TextEdit, line_count: int) -> bool:
    """An empty edit at column 1 of the line after the last one: an insertion at the end."""
    span = edit.span
    return span.line == span.end_line == line_count + 1 and span.column == span.end_column == 1


def _read_lines(path: Path) -> tuple[str, ...] | None:
    try:
        text = files.read_text_capped(path, errors="replace")
    except OSError:
        return None
    # Split on "\n" only (not str.splitlines, which also splits on form feeds and the like):
    # that is how Python's tokenizer, and so the loader, counts lines.
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return tuple(lines)


def _last_line_touched(edit: TextEdit) -> int:
    span = edit.span
    # An edit ending at the very start of a line stops at the end of the line before.
    if span.end_column == 1 and span.end_line > span.line:
        return span.end_line - 1
    return span.end_line


def _line_offsets(lines: Sequence[str]) -> list[int]:
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    return offsets


def _offset(offsets: Sequence[int], line: int, column: int) -> int:
    if line > len(offsets) - 1:
        return offsets[-1]
    return offsets[line - 1] + column - 1
