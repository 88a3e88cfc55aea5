"""Reading a config file's text, and turning ast byte offsets into character spans."""

from __future__ import annotations

import ast
import bisect
from pathlib import Path

from cfglint import files
from cfglint.codes import UNREADABLE_CONFIG
from cfglint.loader.problems import fail
from cfglint.types import Span

CONFIG_SUFFIXES = (".py", ".json", ".yaml", ".yml")


def read_config_text(path: Path) -> str:
    """The file's text, or a CL902 LoadError saying why it cannot be a config."""
    try:
        files.regular_file_status(path)
        if path.suffix not in CONFIG_SUFFIXES:
            raise fail(
                UNREADABLE_CONFIG,
                f"unsupported config type `{path.suffix or path.name}` "
                "(MMEngine loads .py, .json, .yaml, .yml)",
                path,
            )
        data = files.read_bytes_capped(path)
    except files.UnreadableFileError as error:
        raise fail(UNREADABLE_CONFIG, error.reason, path) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise fail(
            UNREADABLE_CONFIG, f"not UTF-8 text (byte 0x{data[error.start]:02x})", path, line
        ) from None


class SourceText:
    """A parsed file's text: ast positions to 1-based character spans, and source segments."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.text = text
        self._lines = text.splitlines(keepends=True)
        self.ascii = text.isascii()

    def _column(self, line: int, byte_offset: int) -> int:
        if self.ascii or line > len(self._lines):
            return byte_offset + 1
        raw = self._lines[line - 1].encode("utf-8")
        return len(raw[:byte_offset].decode("utf-8", errors="replace")) + 1

    def span(self, node: ast.expr | ast.stmt) -> Span:
        end_line = node.end_lineno or node.lineno
        end_col = node.end_col_offset if node.end_col_offset is not None else node.col_offset
        return Span(
            self.path,
            node.lineno,
            self._column(node.lineno, node.col_offset),
            end_line,
            self._column(end_line, end_col),
        )

    def segment(self, node: ast.expr | ast.stmt) -> str:
        span = self.span(node)
        if span.line == span.end_line:
            return self._line(span.line)[span.column - 1 : span.end_column - 1]
        parts = [self._line(span.line)[span.column - 1 :]]
        parts.extend(self._line(n) for n in range(span.line + 1, span.end_line))
        parts.append(self._line(span.end_line)[: span.end_column - 1])
        return "".join(parts)

    def _line(self, line: int) -> str:
        return self._lines[line - 1] if 0 < line <= len(self._lines) else ""


class LineIndex:
    """1-based line and character column of character offsets in a text."""

    __slots__ = ("_starts",)

    def __init__(self, text: str) -> None:
        self._starts = [0]
        position = text.find("\n")
        while position != -1:
            self._starts.append(position + 1)
            position = text.find("\n", position + 1)

    def position(self, offset: int) -> tuple[int, int]:
        index = bisect.bisect_right(self._starts, offset) - 1
        return index + 1, offset - self._starts[index] + 1
