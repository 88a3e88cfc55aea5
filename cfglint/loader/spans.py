"""Spans of values in a data file, through MMEngine's text substitution, in the original file."""

from __future__ import annotations

from pathlib import Path

from cfglint.loader.source import LineIndex
from cfglint.loader.textsub import MappedText
from cfglint.types import Origin, Span


class DataSpans:
    """Offsets of the text MMEngine parses -> origins in the file as written."""

    def __init__(self, path: Path, original: str, mapped: MappedText) -> None:
        self.path = path
        self.original = original
        self.mapped = mapped
        self._chain = (path,)
        self._lines = LineIndex(original)

    def origin(self, start: int, end: int) -> Origin:
        """The origin of the value at ``start:end`` of the parsed (substituted) text."""
        orig_start = self.mapped.original_start(start)
        orig_end = max(self.mapped.original_end(end), orig_start)
        line, column = self._lines.position(orig_start)
        end_line, end_column = self._lines.position(orig_end)
        env = self.mapped.env_dependent(start, end)
        return Origin(Span(self.path, line, column, end_line, end_column), self._chain, env)

    def source(self, start: int, end: int) -> str:
        """The original text of the value at ``start:end`` of the parsed text."""
        orig_start = self.mapped.original_start(start)
        return self.original[orig_start : max(self.mapped.original_end(end), orig_start)]
