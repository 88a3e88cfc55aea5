"""A file's text as offsets, lines and columns: the one place that converts between them.

Line breaks are ``\\r\\n``, ``\\r`` or ``\\n`` (what Python's and YAML's tokenizers count). A
leading UTF-8 byte order mark is not part of the text: columns count characters the way an
editor shows them, and the mark is put back when the text is written.
"""

from __future__ import annotations

import bisect
import re
from pathlib import Path

from cfglint.types import Span, TextEdit

BOM = "\ufeff"
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_bom(source: str) -> tuple[str, str]:
    """(bom, text): the byte order mark, if any, and the text after it."""
    if source.startswith(BOM):
        return BOM, source[1:]
    return "", source


class TextDoc:
    """The text of one file with a table of line starts."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.text = text
        self.line_starts = [0] + [match.end() for match in _LINE_BREAK.finditer(text)]
        first_break = _LINE_BREAK.search(text)
        # Inserted lines use the file's own line ending, so CRLF files stay CRLF.
        self.newline = first_break.group() if first_break else "\n"

    def offset(self, line: int, column: int) -> int:
        """Offset of a 1-based line and 1-based column."""
        if not 1 <= line <= len(self.line_starts):
            raise ValueError(f"line {line} is outside {self.path}")
        result = self.line_starts[line - 1] + column - 1
        if not 0 <= result <= len(self.text):
            raise ValueError(f"column {column} of line {line} is outside {self.path}")
        return result

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of an offset."""
        index = bisect.bisect_right(self.line_starts, offset) - 1
        return index + 1, offset - self.line_starts[index] + 1

    def span(self, start: int, end: int) -> Span:
        line, column = self.position(start)
        end_line, end_column = self.position(end)
        return Span(self.path, line, column, end_line, end_column)

    def edit(self, start: int, end: int, content: str) -> TextEdit:
        return TextEdit(self.span(start, end), content)

    def line_start(self, offset: int) -> int:
        return self.line_starts[bisect.bisect_right(self.line_starts, offset) - 1]

    def next_line_start(self, offset: int) -> int:
        """Start of the line after the one holding ``offset`` (the end of the text on the last)."""
        index = bisect.bisect_right(self.line_starts, offset)
        return self.line_starts[index] if index < len(self.line_starts) else len(self.text)

    def line_end(self, offset: int) -> int:
        """Offset of the line break ending the line that holds ``offset``."""
        match = _LINE_BREAK.search(self.text, offset)
        return match.start() if match else len(self.text)

    def indent_before(self, offset: int) -> str | None:
        """The text between the line start and ``offset`` when it is all blanks, else None."""
        prefix = self.text[self.line_start(offset) : offset]
        return prefix if prefix.strip(" \t\f") == "" else None

    def rest_is_blank_or_comment(self, offset: int) -> bool:
        rest = self.text[offset : self.line_end(offset)].strip()
        return rest == "" or rest.startswith("#")

    def line_of(self, offset: int) -> int:
        return self.position(offset)[0]
